// The TTL-after-finished controller's metric: Go's
// pkg/controller/ttlafterfinished/metrics/metrics.go (JobDeletionDurationSeconds,
// Register). The name, help and buckets are upstream's. Go registers it once
// in the global legacy registry; here it goes into the registry it is given,
// so the manager's /metrics shows it and a test can read its own.
import { Histogram, type Registry } from 'prom-client';
import { exponentialBuckets } from '@kcm-ts/workqueue';
import type { HistogramDefinition } from '../metrics/definition.js';

/**
 * The subsystem prefixed to the controller's metric names: Go's
 * `TTLAfterFinishedSubsystem`.
 *
 * @category TTL-after-finished controller
 */
export const ttlAfterFinishedSubsystem = 'ttl_after_finished_controller';

/**
 * The definitions of the TTL-after-finished controller's metrics.
 *
 * @category TTL-after-finished controller
 */
export interface TTLAfterFinishedMetricDefinitions {
  /** `ttl_after_finished_controller_job_deletion_duration_seconds`, no labels. */
  readonly jobDeletionDurationSeconds: HistogramDefinition;
}

/**
 * The TTL-after-finished controller's metrics as kube-controller-manager
 * exports them: buckets from 100 ms doubling 14 times (the last one from
 * about 27 minutes up).
 *
 * @category TTL-after-finished controller
 */
export const ttlAfterFinishedMetrics: TTLAfterFinishedMetricDefinitions = {
  jobDeletionDurationSeconds: {
    name: `${ttlAfterFinishedSubsystem}_job_deletion_duration_seconds`,
    help: 'The time it took to delete the job since it became eligible for deletion',
    labels: [],
    buckets: exponentialBuckets(0.1, 2, 14),
  },
};

/**
 * Where the controller records: one method per metric.
 *
 * @category TTL-after-finished controller
 */
export interface TTLAfterFinishedMetrics {
  /** Observes how long, in seconds, a Job outlived its expiry before it was deleted. */
  observeJobDeletionDuration(seconds: number): void;
}

/**
 * Records nothing: the default when a controller is given no metrics.
 *
 * @category TTL-after-finished controller
 */
export const noopTTLAfterFinishedMetrics: TTLAfterFinishedMetrics = Object.freeze({
  observeJobDeletionDuration: () => undefined,
});

/**
 * Registers the controller's metrics in `registry` (once: a second call
 * with the same registry uses the histogram already there, as Go's
 * `Register` runs once) and records into them.
 *
 * @example
 * ```ts
 * const metrics = newTTLAfterFinishedMetrics(managerMetrics.registry);
 * new TTLAfterFinishedController({ client, jobInformer: factory.jobs(), metrics });
 * ```
 *
 * @category TTL-after-finished controller
 */
export function newTTLAfterFinishedMetrics(registry: Registry): TTLAfterFinishedMetrics {
  const d = ttlAfterFinishedMetrics.jobDeletionDurationSeconds;
  const histogram =
    (registry.getSingleMetric(d.name) as Histogram | undefined) ??
    new Histogram({ name: d.name, help: d.help, buckets: [...d.buckets], registers: [registry] });
  return { observeJobDeletionDuration: (seconds) => histogram.observe(seconds) };
}
