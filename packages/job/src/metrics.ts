// The Job controller's metrics: pkg/controller/job/metrics/metrics.go
// (JobControllerSubsystem, JobSyncDurationSeconds, JobSyncNum,
// JobFinishedNum, JobByExternalControllerTotal, JobPodsFinished,
// PodFailuresHandledByFailurePolicy, TerminatedPodsTrackingFinalizerTotal,
// JobFinishedIndexesTotal, JobPodsCreationTotal and their label values).
// Go registers them in a global registry; here a provider makes them, as
// @kcm-ts/workqueue's metrics are made, and the default provider makes
// metrics that do nothing. kube-controller-manager's manager wires a
// Prometheus provider with these names.

/**
 * One series of a counter, picked by its label values.
 *
 * @category Metrics
 */
export interface LabeledCounter {
  /** Adds one. */
  inc(): void;
  /** Adds `value` (Go's `Add`; the controller never adds a negative value). */
  add(value: number): void;
}

/**
 * One series of a histogram, picked by its label values.
 *
 * @category Metrics
 */
export interface LabeledHistogram {
  /** Records one observation (for the sync duration, in seconds). */
  observe(value: number): void;
}

/**
 * A counter with labels: Go's `metrics.CounterVec`.
 *
 * @category Metrics
 */
export interface CounterVecMetric {
  /** The series of these label values, in the order the descriptor lists the labels. */
  withLabelValues(...values: string[]): LabeledCounter;
}

/**
 * A histogram with labels: Go's `metrics.HistogramVec`.
 *
 * @category Metrics
 */
export interface HistogramVecMetric {
  /** The series of these label values, in the order the descriptor lists the labels. */
  withLabelValues(...values: string[]): LabeledHistogram;
}

/**
 * The name, type, help, labels and buckets of one Job controller metric, as
 * a Prometheus provider registers it.
 *
 * @category Metrics
 */
export interface JobMetricDescriptor {
  /** The full Prometheus name, such as `job_controller_job_syncs_total`. */
  readonly name: string;
  /** The Prometheus metric type. */
  readonly type: 'counter' | 'histogram';
  /** The help text shown on `/metrics`. */
  readonly help: string;
  /** The label names, in the order `withLabelValues` takes their values. */
  readonly labels: readonly string[];
  /** Kubernetes' stability level of the metric. */
  readonly stabilityLevel: 'STABLE' | 'ALPHA';
  /** Histogram bucket upper bounds, in seconds. */
  readonly buckets?: readonly number[];
}

/**
 * Makes the Job controller's metrics from their descriptors. The manager
 * passes one backed by Prometheus; {@link noopJobMetricsProvider} is the
 * default.
 *
 * @category Metrics
 */
export interface JobMetricsProvider {
  /** A counter with the descriptor's name and labels. */
  newCounterVec(descriptor: JobMetricDescriptor): CounterVecMetric;
  /** A histogram with the descriptor's name, labels and buckets. */
  newHistogramVec(descriptor: JobMetricDescriptor): HistogramVecMetric;
}

const noopSeries: LabeledCounter & LabeledHistogram = Object.freeze({
  inc() {},
  add() {},
  observe() {},
});
const noopVec: CounterVecMetric & HistogramVecMetric = Object.freeze({
  withLabelValues: () => noopSeries,
});

/**
 * The default provider: every metric it makes does nothing.
 *
 * @category Metrics
 */
export const noopJobMetricsProvider: JobMetricsProvider = Object.freeze({
  newCounterVec: () => noopVec,
  newHistogramVec: () => noopVec,
});

/**
 * The subsystem every Job controller metric is named under. Go's
 * `JobControllerSubsystem`.
 *
 * @category Metrics
 */
export const jobControllerSubsystem = 'job_controller';

/**
 * The `action` of a sync that waited for its expectations: Go's
 * `JobSyncActionReconciling`.
 *
 * @category Metrics
 */
export const jobSyncActionReconciling = 'reconciling';
/**
 * The `action` of a sync that neither created nor deleted pods: Go's
 * `JobSyncActionTracking`.
 *
 * @category Metrics
 */
export const jobSyncActionTracking = 'tracking';
/**
 * The `action` of a sync that created pods: Go's `JobSyncActionPodsCreated`.
 *
 * @category Metrics
 */
export const jobSyncActionPodsCreated = 'pods_created';
/**
 * The `action` of a sync that deleted pods: Go's `JobSyncActionPodsDeleted`.
 *
 * @category Metrics
 */
export const jobSyncActionPodsDeleted = 'pods_deleted';

/**
 * The `result` (and `status`) label value of success: Go's `metrics.Succeeded`.
 *
 * @category Metrics
 */
export const metricSucceeded = 'succeeded';
/**
 * The `result` (and `status`) label value of failure: Go's `metrics.Failed`.
 *
 * @category Metrics
 */
export const metricFailed = 'failed';
/**
 * The `event` label value of a finished pod gaining the tracking finalizer:
 * Go's `metrics.Add`.
 *
 * @category Metrics
 */
export const metricAdd = 'add';
/**
 * The `event` label value of a finished pod losing the tracking finalizer:
 * Go's `metrics.Delete`.
 *
 * @category Metrics
 */
export const metricDelete = 'delete';
/**
 * The `reason` of a pod created for the first time: Go's `PodCreateNew`.
 *
 * @category Metrics
 */
export const podCreateNew = 'new';
/**
 * The `reason` of a pod replacing a terminating or failed one: Go's
 * `PodRecreateTerminatingOrFailed`.
 *
 * @category Metrics
 */
export const podRecreateTerminatingOrFailed = 'recreate_terminating_or_failed';
/**
 * The `reason` of a pod replacing a failed one under
 * `podReplacementPolicy: Failed`: Go's `PodRecreateFailed`.
 *
 * @category Metrics
 */
export const podRecreateFailed = 'recreate_failed';

const name = (short: string) => `${jobControllerSubsystem}_${short}`;

/**
 * The nine metrics, keyed like the fields of {@link JobControllerMetrics},
 * with the names, labels and buckets kube-controller-manager exports.
 *
 * @category Metrics
 */
export const jobControllerMetricDescriptors: Readonly<
  Record<keyof JobControllerMetrics, JobMetricDescriptor>
> = Object.freeze({
  jobSyncDurationSeconds: {
    name: name('job_sync_duration_seconds'),
    type: 'histogram',
    help: 'The time it took to sync a job',
    labels: ['completion_mode', 'result', 'action'],
    stabilityLevel: 'STABLE',
    // ExponentialBuckets(0.004, 2, 15): 4ms to about 65s.
    buckets: Array.from({ length: 15 }, (_, i) => 0.004 * 2 ** i),
  },
  jobSyncNum: {
    name: name('job_syncs_total'),
    type: 'counter',
    help: 'The number of job syncs',
    labels: ['completion_mode', 'result', 'action'],
    stabilityLevel: 'STABLE',
  },
  jobFinishedNum: {
    name: name('jobs_finished_total'),
    type: 'counter',
    help: 'The number of finished jobs',
    labels: ['completion_mode', 'result', 'reason'],
    stabilityLevel: 'STABLE',
  },
  jobByExternalControllerTotal: {
    name: name('jobs_by_external_controller_total'),
    type: 'counter',
    help: 'The number of Jobs managed by an external controller',
    labels: ['controller_name'],
    stabilityLevel: 'ALPHA',
  },
  jobPodsFinished: {
    name: name('job_pods_finished_total'),
    type: 'counter',
    help: 'The number of finished Pods that are fully tracked',
    labels: ['completion_mode', 'result'],
    stabilityLevel: 'STABLE',
  },
  podFailuresHandledByFailurePolicy: {
    name: name('pod_failures_handled_by_failure_policy_total'),
    type: 'counter',
    help: 'The number of failed Pods handled by failure policy with respect to the failure policy action applied based on the matched rule. Possible values of the action label correspond to the possible values for the failure policy rule action, which are: "FailJob", "Ignore" and "Count".',
    labels: ['action'],
    stabilityLevel: 'ALPHA',
  },
  terminatedPodsTrackingFinalizerTotal: {
    name: name('terminated_pods_tracking_finalizer_total'),
    type: 'counter',
    help: 'The number of terminated pods (phase=Failed|Succeeded) that have the finalizer batch.kubernetes.io/job-tracking. The event label can be "add" or "delete".',
    labels: ['event'],
    stabilityLevel: 'ALPHA',
  },
  jobFinishedIndexesTotal: {
    name: name('job_finished_indexes_total'),
    type: 'counter',
    help: 'The number of finished indexes. Possible values for the status label are: "succeeded", "failed". Possible values for the backoffLimit label are: "perIndex" and "global"',
    labels: ['status', 'backoffLimit'],
    stabilityLevel: 'ALPHA',
  },
  jobPodsCreationTotal: {
    name: name('job_pods_creation_total'),
    type: 'counter',
    help: 'The number of Pods created by the Job controller labelled with a reason for the Pod creation. This metric also distinguishes between Pods created using different PodReplacementPolicy settings. Possible values of the "reason" label are: "new", "recreate_terminating_or_failed", "recreate_failed". Possible values of the "status" label are: "succeeded", "failed".',
    labels: ['reason', 'status'],
    stabilityLevel: 'ALPHA',
  },
});

/**
 * The Job controller's metrics, made by a {@link JobMetricsProvider}: the
 * variables of Go's `pkg/controller/job/metrics`, in camelCase.
 *
 * @category Metrics
 */
export interface JobControllerMetrics {
  /** `job_controller_job_sync_duration_seconds{completion_mode,result,action}`. */
  readonly jobSyncDurationSeconds: HistogramVecMetric;
  /** `job_controller_job_syncs_total{completion_mode,result,action}`. */
  readonly jobSyncNum: CounterVecMetric;
  /** `job_controller_jobs_finished_total{completion_mode,result,reason}`. */
  readonly jobFinishedNum: CounterVecMetric;
  /** `job_controller_jobs_by_external_controller_total{controller_name}`. */
  readonly jobByExternalControllerTotal: CounterVecMetric;
  /** `job_controller_job_pods_finished_total{completion_mode,result}`. */
  readonly jobPodsFinished: CounterVecMetric;
  /** `job_controller_pod_failures_handled_by_failure_policy_total{action}`. */
  readonly podFailuresHandledByFailurePolicy: CounterVecMetric;
  /** `job_controller_terminated_pods_tracking_finalizer_total{event}`. */
  readonly terminatedPodsTrackingFinalizerTotal: CounterVecMetric;
  /** `job_controller_job_finished_indexes_total{status,backoffLimit}`. */
  readonly jobFinishedIndexesTotal: CounterVecMetric;
  /** `job_controller_job_pods_creation_total{reason,status}`. */
  readonly jobPodsCreationTotal: CounterVecMetric;
}

/**
 * Makes every Job controller metric with `provider`. Go's `Register`, which
 * registers the same nine in the global registry.
 *
 * @category Metrics
 */
export function newJobControllerMetrics(
  provider: JobMetricsProvider = noopJobMetricsProvider,
): JobControllerMetrics {
  const d = jobControllerMetricDescriptors;
  return {
    jobSyncDurationSeconds: provider.newHistogramVec(d.jobSyncDurationSeconds),
    jobSyncNum: provider.newCounterVec(d.jobSyncNum),
    jobFinishedNum: provider.newCounterVec(d.jobFinishedNum),
    jobByExternalControllerTotal: provider.newCounterVec(d.jobByExternalControllerTotal),
    jobPodsFinished: provider.newCounterVec(d.jobPodsFinished),
    podFailuresHandledByFailurePolicy: provider.newCounterVec(d.podFailuresHandledByFailurePolicy),
    terminatedPodsTrackingFinalizerTotal: provider.newCounterVec(
      d.terminatedPodsTrackingFinalizerTotal,
    ),
    jobFinishedIndexesTotal: provider.newCounterVec(d.jobFinishedIndexesTotal),
    jobPodsCreationTotal: provider.newCounterVec(d.jobPodsCreationTotal),
  };
}
