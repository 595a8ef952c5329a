// The CronJob controller's metric: pkg/controller/cronjob/metrics/metrics.go
// (CronJobControllerSubsystem, CronJobCreationSkew). Go registers it in a
// global registry; here a provider makes it, as the workqueue's metrics are
// made, and the default provider makes one that does nothing.
import { exponentialBuckets } from '@kcm-ts/workqueue';

/**
 * A histogram: records observations into buckets.
 *
 * @category Metrics
 */
export interface CronJobHistogram {
  /** Records one observation, in seconds. */
  observe(value: number): void;
}

/**
 * The name, help, stability and buckets of a CronJob controller metric, as a
 * Prometheus provider registers it.
 *
 * @category Metrics
 */
export interface CronJobMetricDescriptor {
  /** The full Prometheus name. */
  readonly name: string;
  /** The Prometheus metric type. */
  readonly type: 'histogram';
  /** The help text shown on `/metrics`. */
  readonly help: string;
  /** Kubernetes' stability level of the metric. */
  readonly stabilityLevel: 'STABLE' | 'ALPHA';
  /** Bucket upper bounds, in seconds. */
  readonly buckets: readonly number[];
}

/**
 * Makes the CronJob controller's metric. The manager passes one backed by
 * Prometheus; {@link noopCronJobMetricsProvider} is the default.
 *
 * @category Metrics
 */
export interface CronJobMetricsProvider {
  /** A histogram with the descriptor's name and buckets (no labels). */
  newHistogram(descriptor: CronJobMetricDescriptor): CronJobHistogram;
}

/**
 * The default provider: the metric it makes does nothing.
 *
 * @category Metrics
 */
export const noopCronJobMetricsProvider: CronJobMetricsProvider = Object.freeze({
  newHistogram: () => Object.freeze({ observe() {} }),
});

/**
 * `cronjob_controller_job_creation_skew_duration_seconds`: the seconds
 * between the time a Job was scheduled for and its creation, in buckets of 1
 * to 512 seconds. Go's `CronJobCreationSkew`.
 *
 * @category Metrics
 */
export const jobCreationSkewDescriptor: CronJobMetricDescriptor = Object.freeze({
  name: 'cronjob_controller_job_creation_skew_duration_seconds',
  type: 'histogram',
  help: 'Time between when a cronjob is scheduled to be run, and when the corresponding job is created',
  stabilityLevel: 'STABLE',
  buckets: Object.freeze(exponentialBuckets(1, 2, 10)),
});
