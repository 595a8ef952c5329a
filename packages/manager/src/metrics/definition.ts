// What a metric is before it is registered: the shape that the metric
// tables of the manager (metrics/prometheus.ts) and of its controllers
// (controller-runtime.ts) are written in.

/**
 * A Prometheus metric's name, help text, labels and (for a histogram) buckets.
 *
 * @category Metrics
 */
export interface MetricDefinition {
  /** The metric's name. */
  readonly name: string;
  /** Its help text. */
  readonly help: string;
  /** Its label names, in order. */
  readonly labels: readonly string[];
  /** A histogram's bucket bounds, in seconds. */
  readonly buckets?: readonly number[];
}

/**
 * A histogram's definition: its buckets are required.
 *
 * @category Metrics
 */
export interface HistogramDefinition extends MetricDefinition {
  /** The bucket bounds, in seconds. */
  readonly buckets: readonly number[];
}
