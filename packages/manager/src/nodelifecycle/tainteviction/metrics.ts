// The taint eviction controller's metrics: Go's
// pkg/controller/tainteviction/metrics/metrics.go (PodDeletionsTotal,
// PodDeletionsLatency, Register). Names, help and buckets are upstream's.
// Go registers them once in the global legacy registry; here they go into
// the registry they are given.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { HistogramDefinition, MetricDefinition } from '../../metrics/definition.js';

const subsystem = 'taint_eviction_controller';

/**
 * The definitions of the taint eviction controller's metrics.
 *
 * @category Taint eviction controller
 */
export interface TaintEvictionMetricDefinitions {
  /** `taint_eviction_controller_pod_deletions_total`. */
  readonly podDeletionsTotal: MetricDefinition;
  /** `taint_eviction_controller_pod_deletion_duration_seconds`. */
  readonly podDeletionsLatency: HistogramDefinition;
}

/**
 * The taint eviction controller's metrics as kube-controller-manager exports them.
 *
 * @category Taint eviction controller
 */
export const taintEvictionMetrics: TaintEvictionMetricDefinitions = {
  podDeletionsTotal: {
    name: `${subsystem}_pod_deletions_total`,
    help: 'Total number of Pods deleted by TaintEvictionController since its start.',
    labels: [],
  },
  podDeletionsLatency: {
    name: `${subsystem}_pod_deletion_duration_seconds`,
    help: 'Latency, in seconds, between the time when a taint effect has been activated for the Pod and its deletion via TaintEvictionController.',
    labels: [],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240],
  },
};

/**
 * Where the taint eviction controller records.
 *
 * @category Taint eviction controller
 */
export interface TaintEvictionMetrics {
  /** Counts a pod deleted, `seconds` after its deletion was due. */
  podDeleted(seconds: number): void;
}

/**
 * Records nothing: the default when the controller is given no metrics.
 *
 * @category Taint eviction controller
 */
export const noopTaintEvictionMetrics: TaintEvictionMetrics = Object.freeze({
  podDeleted: () => undefined,
});

/**
 * Registers the taint eviction controller's metrics in `registry` (once)
 * and records into them.
 *
 * @category Taint eviction controller
 */
export function newTaintEvictionMetrics(registry: Registry): TaintEvictionMetrics {
  const d = taintEvictionMetrics;
  const total =
    (registry.getSingleMetric(d.podDeletionsTotal.name) as Counter | undefined) ??
    new Counter({
      name: d.podDeletionsTotal.name,
      help: d.podDeletionsTotal.help,
      registers: [registry],
    });
  const latency =
    (registry.getSingleMetric(d.podDeletionsLatency.name) as Histogram | undefined) ??
    new Histogram({
      name: d.podDeletionsLatency.name,
      help: d.podDeletionsLatency.help,
      buckets: [...d.podDeletionsLatency.buckets],
      registers: [registry],
    });
  return {
    podDeleted(seconds) {
      total.inc();
      latency.observe(seconds);
    },
  };
}
