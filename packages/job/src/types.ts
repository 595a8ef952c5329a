// The batch/v1 API's names the Job controller writes and reads:
// staging/src/k8s.io/api/batch/v1/types.go (JobTrackingFinalizer,
// JobCompletionIndexAnnotation, JobIndexFailureCountAnnotation,
// JobIndexIgnoredFailureCountAnnotation, JobControllerName, the
// JobConditionType values and the JobReason* condition reasons). They are
// observable API, so they are spelled exactly as Kubernetes spells them.

/**
 * The finalizer the Job controller puts on every pod it creates or adopts,
 * and removes once it has counted the pod. Go's `JobTrackingFinalizer`.
 *
 * @category API
 */
export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';

/**
 * The annotation (and, with PodIndexLabel, the label) holding the
 * completion index of a pod of an Indexed Job. Go's
 * `JobCompletionIndexAnnotation`.
 *
 * @category API
 */
export const jobCompletionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';

/**
 * The annotation counting the failed pods of an index before this pod
 * (`backoffLimitPerIndex`). Go's `JobIndexFailureCountAnnotation`.
 *
 * @category API
 */
export const jobIndexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';

/**
 * The annotation counting the failed pods of an index before this pod whose
 * failure an `Ignore` rule did not count. Go's
 * `JobIndexIgnoredFailureCountAnnotation`.
 *
 * @category API
 */
export const jobIndexIgnoredFailureCountAnnotation =
  'batch.kubernetes.io/job-index-ignored-failure-count';

/**
 * The `spec.managedBy` value naming this controller; a Job with any other
 * value is left to another controller. Go's `JobControllerName`.
 *
 * @category API
 */
export const jobControllerName = 'kubernetes.io/job-controller';

/**
 * The condition type of a Job that finished successfully. Go's `JobComplete`.
 *
 * @category API
 */
export const jobComplete = 'Complete';
/**
 * The condition type of a Job that finished unsuccessfully. Go's `JobFailed`.
 *
 * @category API
 */
export const jobFailed = 'Failed';
/**
 * The condition type of a suspended (`True`) or resumed (`False`) Job. Go's
 * `JobSuspended`.
 *
 * @category API
 */
export const jobSuspended = 'Suspended';
/**
 * The interim condition type of a Job that will fail once its pods are
 * gone. Go's `JobFailureTarget`.
 *
 * @category API
 */
export const jobFailureTarget = 'FailureTarget';
/**
 * The interim condition type of a Job that will complete once its pods are
 * gone. Go's `JobSuccessCriteriaMet`.
 *
 * @category API
 */
export const jobSuccessCriteriaMet = 'SuccessCriteriaMet';

/**
 * The reason of a Job failed by a `FailJob` rule. Go's `JobReasonPodFailurePolicy`.
 *
 * @category API
 */
export const jobReasonPodFailurePolicy = 'PodFailurePolicy';
/**
 * The reason of a Job failed by too many pod failures. Go's
 * `JobReasonBackoffLimitExceeded`.
 *
 * @category API
 */
export const jobReasonBackoffLimitExceeded = 'BackoffLimitExceeded';
/**
 * The reason of a Job failed by `activeDeadlineSeconds`. Go's
 * `JobReasonDeadlineExceeded`.
 *
 * @category API
 */
export const jobReasonDeadlineExceeded = 'DeadlineExceeded';
/**
 * The reason of an Indexed Job failed by more failed indexes than
 * `maxFailedIndexes`. Go's `JobReasonMaxFailedIndexesExceeded`.
 *
 * @category API
 */
export const jobReasonMaxFailedIndexesExceeded = 'MaxFailedIndexesExceeded';
/**
 * The reason of an Indexed Job whose every index finished, some failed. Go's
 * `JobReasonFailedIndexes`.
 *
 * @category API
 */
export const jobReasonFailedIndexes = 'FailedIndexes';
/**
 * The reason of a Job that met its success policy. Go's `JobReasonSuccessPolicy`.
 *
 * @category API
 */
export const jobReasonSuccessPolicy = 'SuccessPolicy';
/**
 * The reason of a Job whose pods reached `completions`. Go's
 * `JobReasonCompletionsReached`.
 *
 * @category API
 */
export const jobReasonCompletionsReached = 'CompletionsReached';
