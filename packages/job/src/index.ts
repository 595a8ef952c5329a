/**
 * kube-controller-manager's Job controller (`pkg/controller/job`) in
 * TypeScript: {@link JobController} runs every Job to completion, counting
 * its pods exactly once through the `batch.kubernetes.io/job-tracking`
 * finalizer, with Indexed Jobs, pod failure policies, success policies,
 * per-index backoff limits, the pod failure backoff, suspend and resume,
 * `podReplacementPolicy` and `managedBy`. It stands on the shared machinery
 * of Go's `pkg/controller`, which is `@kcm-ts/controller`. Names follow
 * Go's, in camelCase.
 *
 * @packageDocumentation
 */

// The controller (job_controller.go)
export {
  JobController,
  concurrentJobSyncs,
  defaultJobApiBackOff,
  defaultJobPodFailureBackOff,
  jobKind,
  maxJobApiBackOff,
  maxJobPodFailureBackOff,
  maxPodCreateDeletePerSync,
  maxUncountedPods,
  syncJobBatchPeriod,
} from './job-controller.js';
export type { JobControllerClients, JobControllerOptions } from './job-controller.js';
export { finishedCondition, isJobFinished, isJobSucceeded } from './job-util.js';

// The batch/v1 API's names (k8s.io/api/batch/v1/types.go)
export {
  jobCompletionIndexAnnotation,
  jobComplete,
  jobControllerName,
  jobFailed,
  jobFailureTarget,
  jobIndexFailureCountAnnotation,
  jobIndexIgnoredFailureCountAnnotation,
  jobReasonBackoffLimitExceeded,
  jobReasonCompletionsReached,
  jobReasonDeadlineExceeded,
  jobReasonFailedIndexes,
  jobReasonMaxFailedIndexesExceeded,
  jobReasonPodFailurePolicy,
  jobReasonSuccessPolicy,
  jobSuccessCriteriaMet,
  jobSuspended,
  jobTrackingFinalizer,
} from './types.js';

// The policies, as pure functions of a Job and its pods
export {
  disruptionTarget,
  matchPodFailurePolicy,
  podFailurePolicyActionCount,
  podFailurePolicyActionFailIndex,
  podFailurePolicyActionFailJob,
  podFailurePolicyActionIgnore,
} from './pod-failure-policy.js';
export type { PodFailurePolicyAction, PodFailurePolicyMatch } from './pod-failure-policy.js';
export { matchSuccessPolicy } from './success-policy.js';

// Indexes as the status writes them ("0-3,5")
export {
  OrderedIntervals,
  getCompletionIndex,
  parseIndexesFromString,
} from './indexed-job-utils.js';
export type { Interval } from './indexed-job-utils.js';

// Metrics (metrics/metrics.go)
export {
  jobControllerMetricDescriptors,
  jobControllerSubsystem,
  newJobControllerMetrics,
  noopJobMetricsProvider,
} from './metrics.js';
export type {
  CounterVecMetric,
  HistogramVecMetric,
  JobControllerMetrics,
  JobMetricDescriptor,
  JobMetricsProvider,
  LabeledCounter,
  LabeledHistogram,
} from './metrics.js';
