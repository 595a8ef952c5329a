// The Job controller: pkg/controller/job/job_controller.go (Controller,
// NewController, Run, the event handlers addPod, updatePod, deletePod,
// addJob, updateJob, deleteJob, enqueueLabelSelector,
// enqueueSyncJobImmediately, enqueueSyncJobBatched, enqueueSyncJobWithDelay,
// enqueueOrphanPod, worker, processNextWorkItem, orphanWorker,
// processNextOrphanPod, syncOrphanPod, syncOrphanPodsBySelector,
// handleSingleOrphanPod, getPodsForJob, syncJob, newFailureCondition,
// newSuccessCondition, delayTerminalCondition, deleteActivePods,
// nonIgnoredFailedPodsCount, deleteJobPods, trackJobStatusAndRemoveFinalizers,
// canRemoveFinalizer, flushUncountedAndRemoveFinalizers,
// cleanUncountedPodsWithoutFinalizers, removeTrackingFinalizerFromPods,
// enactJobFinished, recordJobFinished, filterInUncountedUIDs,
// newFailedConditionForFailureTarget, pastBackoffLimitOnFailure,
// pastActiveDeadline, getFailJobMessage, getNewFinishedPods, manageJob,
// getPodCreationInfoForIndependentIndexes, activePodsForRemoval,
// updateJobStatus, getCompletionMode, appendJobCompletionFinalizerIfNotFound,
// removeTrackingFinalizerPatch, recordJobPodFinished, indexesCount,
// backoffLimitMetricsLabel, recordJobPodFailurePolicyActions, countReadyPods,
// recordJobPodsCreationTotal, managedByExternalController, getPodJobs,
// resolveControllerRef) and client-go's Job lister expansion
// (listers/batch/v1/job_expansion.go, GetPodJobs).
//
// The feature gates of the newest release are on: JobPodFailurePolicy,
// JobBackoffLimitPerIndex, JobPodReplacementPolicy, JobSuccessPolicy,
// JobManagedBy, ElasticIndexedJob and PodIndexLabel.
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  formatTime,
  getControllerOf,
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isNotFound,
  labelSelectorAsSelector,
  newControllerRef,
  noopEventRecorder,
  noopLogger,
  parseSelector,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type GroupVersionKind,
  type Logger,
  type ResourceClient,
  type Selector,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Indexer,
  type Lister,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  ItemExponentialFailureRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  ControllerExpectations,
  PodControllerRefManager,
  RealPodControl,
  activePods,
  addPodControllerUIDIndexer,
  countTerminatingPods,
  filterActivePods,
  filterPodsByOwner,
  isPodReady,
  namespaceTerminatingCause,
  recheckDeletionTimestamp,
  slowStartBatch,
  slowStartInitialBatchSize,
  type PodControl,
} from '@kcm-ts/controller';
import { BackoffStore, getRemainingTime, metaTime } from './backoff-utils.js';
import {
  OrderedIntervals,
  addCompletionIndexAnnotation,
  addCompletionIndexEnvVariables,
  addCompletionIndexLabel,
  addIndexFailureCountAnnotation,
  appendDuplicatedIndexPodsForRemoval,
  byCompletionIndex,
  calculateFailedIndexes,
  calculateSucceededIndexes,
  completionModeStr,
  completionsOf,
  firstPendingIndexes,
  getCompletionIndex,
  getPodsWithDelayedDeletionPerIndex,
  getRemainingTimePerIndex,
  getValidPodsWithFilter,
  hasBackoffLimitPerIndex,
  isIndexedJob,
  parseIndexesFromString,
  podGenerateNameWithIndex,
  unknownCompletionIndex,
} from './indexed-job-utils.js';
import { isJobFinished } from './job-util.js';
import {
  jobSyncActionPodsCreated,
  jobSyncActionPodsDeleted,
  jobSyncActionReconciling,
  jobSyncActionTracking,
  metricFailed,
  metricSucceeded,
  newJobControllerMetrics,
  podCreateNew,
  podRecreateFailed,
  podRecreateTerminatingOrFailed,
  type JobControllerMetrics,
  type JobMetricsProvider,
} from './metrics.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import {
  hasSuccessCriteriaMetCondition,
  isSuccessCriteriaMetCondition,
  matchSuccessPolicy,
} from './success-policy.js';
import {
  UncountedTerminatedPods,
  ensureJobConditionStatus,
  findConditionByType,
  isJobSuspended,
  isPodFailed,
  isSet,
  newCondition,
  onlyReplaceFailedPods,
  trackTerminatingPods,
  type SyncJobCtx,
} from './sync-job-ctx.js';
import {
  UIDTrackingExpectations,
  hasJobTrackingFinalizer,
  recordFinishedPodWithTrackingFinalizer,
} from './tracking-utils.js';
import {
  jobComplete,
  jobControllerName,
  jobFailed,
  jobFailureTarget,
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

/**
 * batch/v1 Job: the kind the controller writes into the references of the
 * pods it owns. Go's `controllerKind`.
 *
 * @category Job controller
 */
export const jobKind: GroupVersionKind = Object.freeze({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
});

/**
 * How long pod events and status updates of one Job are gathered before it
 * is synced (1 s): Go's `syncJobBatchPeriod`.
 *
 * @category Job controller
 */
export const syncJobBatchPeriod = 1000;

/**
 * The first delay of a Job whose sync failed (1 s), doubling with each
 * further failure: Go's `DefaultJobApiBackOff`.
 *
 * @category Job controller
 */
export const defaultJobApiBackOff = 1000;

/**
 * The longest delay of a Job whose syncs keep failing (1 min): Go's
 * `MaxJobApiBackOff`.
 *
 * @category Job controller
 */
export const maxJobApiBackOff = 60_000;

/**
 * How long a replacement pod waits after one pod failure (10 s), doubling
 * with each further failure since the last success: Go's
 * `DefaultJobPodFailureBackOff`.
 *
 * @category Backoff
 */
export const defaultJobPodFailureBackOff = 10_000;

/**
 * The longest a replacement pod waits after pod failures (10 min): Go's
 * `MaxJobPodFailureBackOff`.
 *
 * @category Backoff
 */
export const maxJobPodFailureBackOff = 600_000;

/**
 * The most pod uids `status.uncountedTerminatedPods` holds (500), keeping
 * the status around 20 KB and one sync's finalizer removals bounded. Go's
 * `MaxUncountedPods`.
 *
 * @category Job controller
 */
export const maxUncountedPods = 500;

/**
 * The most pods one sync of one Job creates or deletes (500). Go's
 * `MaxPodCreateDeletePerSync`.
 *
 * @category Job controller
 */
export const maxPodCreateDeletePerSync = 500;

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-job-syncs` flag, the default of Go's `ConcurrentJobSyncs`
 * (pkg/controller/job/config/v1alpha1/defaults.go).
 *
 * @category Job controller
 */
export const concurrentJobSyncs = 5;

/**
 * The clients the controller writes through (unscoped: it picks each
 * object's namespace), as `startJobController` hands it a clientset.
 *
 * @category Job controller
 */
export interface JobControllerClients {
  /** batch/v1 jobs: status writes and the fresh read before adopting. */
  jobs: ResourceClient<Job>;
  /** core/v1 pods: creations, deletions and finalizer patches. */
  pods: ResourceClient<Pod>;
}

/**
 * Options for {@link JobController}: what Go's `NewController` takes.
 *
 * @category Job controller
 */
export interface JobControllerOptions {
  /** The Job informer, usually `factory.jobs()`. */
  jobs: ResourceInformer<Job>;
  /** The pod informer of the same factory, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The clients to write through. */
  client: JobControllerClients;
  /**
   * Records the events about Jobs (pod creations and deletions, Completed,
   * Suspended, Resumed, the failure reasons); kube-controller-manager's
   * comes from a broadcaster with the component name `job-controller`.
   * Default none.
   */
  recorder?: EventRecorder;
  /** Time for deadlines, backoffs, the queues and condition stamps. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Writes pods; default a {@link "@kcm-ts/controller"!RealPodControl} on `client.pods` and `recorder`. */
  podControl?: PodControl;
  /** Makes the `job_controller_*` metrics. Default metrics that do nothing. */
  metricsProvider?: JobMetricsProvider;
}

/**
 * An item of the orphan pod queue: one pod by name, or every pod of a
 * namespace a label selector (a finished or deleted Job's) matches. Go's
 * `orphanPodKey`.
 *
 * @category Job controller
 */
export interface OrphanPodKey {
  /** `name` or `selector`. */
  kind: 'name' | 'selector';
  /** The pods' namespace. */
  namespace: string;
  /** The pod's name, or the selector in its string form. */
  value: string;
}

/** The queue item of an orphan pod key (namespaces hold neither `:` nor `/`). */
function encodeOrphanPodKey(key: OrphanPodKey): string {
  return `${key.kind}:${key.namespace}/${key.value}`;
}

function decodeOrphanPodKey(item: string): OrphanPodKey {
  const colon = item.indexOf(':');
  const slash = item.indexOf('/', colon + 1);
  return {
    kind: item.slice(0, colon) === 'selector' ? 'selector' : 'name',
    namespace: item.slice(colon + 1, slash),
    value: item.slice(slash + 1),
  };
}

/**
 * The counters of a Job status that the pod metrics compare before and
 * after a write (what Go's shallow copy of the status is used for).
 *
 * @category Metrics
 */
export interface JobStatusCounters {
  /** `status.succeeded`. */
  succeeded: number;
  /** `status.failed`. */
  failed: number;
  /** `status.completedIndexes`. */
  completedIndexes: string;
  /** `status.failedIndexes`. */
  failedIndexes: string | undefined;
}

/** The counters of `status`. */
function countersOf(status: JobStatus | undefined): JobStatusCounters {
  return {
    succeeded: status?.succeeded ?? 0,
    failed: status?.failed ?? 0,
    completedIndexes: status?.completedIndexes ?? '',
    failedIndexes: status?.failedIndexes ?? undefined,
  };
}

/** `err` if it is an Error, else an Error carrying it. */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err), { cause: err });
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The Job with its kind, so events and owner references name it even when a list left the kind out. */
function withKind(job: Job): Job {
  return { ...job, apiVersion: 'batch/v1', kind: 'Job' };
}

/** Structural equality of JSON values (owner references, label maps). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** The `backoffLimit` of a Job; the API server defaults it to 6. */
function backoffLimitOf(job: Job): number {
  return job.spec?.backoffLimit ?? 6;
}

/**
 * The name in `spec.managedBy` when it names another controller than this
 * one; `undefined` when this controller manages the Job. Go's
 * `managedByExternalController`.
 *
 * @category Job controller
 */
export function managedByExternalController(job: Job): string | undefined {
  const name = job.spec?.managedBy;
  return isSet(name) && name !== jobControllerName ? name : undefined;
}

/**
 * The completion mode as a metric label: `Indexed` or `NonIndexed`. Go's
 * `getCompletionMode`.
 *
 * @category Job controller
 */
export function getCompletionMode(job: Job): string {
  return isIndexedJob(job) ? 'Indexed' : 'NonIndexed';
}

/**
 * True when the container restarts of the running and pending pods reach
 * `backoffLimit` (any restart when it is 0): how a Job with
 * `restartPolicy: OnFailure` fails, its pods never failing. Go's
 * `pastBackoffLimitOnFailure`.
 *
 * @category Job controller
 */
export function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const s of pod.status?.initContainerStatuses ?? []) restarts += s.restartCount;
    for (const s of pod.status?.containerStatuses ?? []) restarts += s.restartCount;
  }
  const limit = backoffLimitOf(job);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * The message of the first `FailJob` rule a failed pod matches, if any. Go's
 * `getFailJobMessage`.
 *
 * @category Job controller
 */
export function getFailJobMessage(job: Job, pods: readonly Pod[]): string | undefined {
  if (!isSet(job.spec?.podFailurePolicy)) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const [message] = matchPodFailurePolicy(job.spec.podFailurePolicy, p);
    if (message !== undefined) return message;
  }
  return undefined;
}

/**
 * The succeeded and failed pods not yet counted in the status (tracking
 * finalizer on, not listed as uncounted, not expected to lose their
 * finalizer; Indexed Jobs: with a valid index). Go's `getNewFinishedPods`.
 *
 * @category Job controller
 */
export function getNewFinishedPods(
  jobCtx: Pick<SyncJobCtx, 'job' | 'pods' | 'uncounted' | 'expectedRmFinalizers'>,
): [succeededPods: Pod[], failedPods: Pod[]] {
  const succeeded = getValidPodsWithFilter(
    jobCtx,
    jobCtx.uncounted.succeeded,
    (p) => p.status?.phase === 'Succeeded',
  );
  const failed = getValidPodsWithFilter(jobCtx, jobCtx.uncounted.failed, (p) =>
    isPodFailed(p, jobCtx.job),
  );
  return [succeeded, failed];
}

/**
 * The number of failed pods whose failure counts: all of them, less those an
 * `Ignore` rule of the pod failure policy matches. Go's
 * `nonIgnoredFailedPodsCount`.
 *
 * @category Job controller
 */
export function nonIgnoredFailedPodsCount(job: Job, failedPods: readonly Pod[]): number {
  const policy = job.spec?.podFailurePolicy;
  if (!isSet(policy)) return failedPods.length;
  return failedPods.filter((p) => matchPodFailurePolicy(policy, p)[1]).length;
}

/**
 * Whether a sync may remove the tracking finalizer of a pod: when the Job is
 * being deleted or finishing, the pod succeeded, or the pod failed, unless
 * it is the failed pod of its index kept until its replacement exists. Go's
 * `canRemoveFinalizer`.
 *
 * @category Job controller
 */
export function canRemoveFinalizer(
  jobCtx: Pick<SyncJobCtx, 'job' | 'finishedCondition' | 'podsWithDelayedDeletionPerIndex'>,
  pod: Pod,
  considerPodFailed: boolean,
  logger: Logger = noopLogger,
): boolean {
  if (
    jobCtx.job.metadata?.deletionTimestamp ||
    jobCtx.finishedCondition !== undefined ||
    pod.status?.phase === 'Succeeded'
  ) {
    return true;
  }
  if (!considerPodFailed) return false;
  if (hasBackoffLimitPerIndex(jobCtx.job)) {
    const index = getCompletionIndex(pod.metadata?.annotations);
    if (index !== unknownCompletionIndex) {
      const kept = jobCtx.podsWithDelayedDeletionPerIndex?.get(index);
      if (kept !== undefined && kept.metadata?.uid === pod.metadata?.uid) {
        logger
          .v(3)
          .info('Delaying pod finalizer removal to await for pod recreation within the index', {
            pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
          });
        return false;
      }
    }
  }
  return true;
}

/**
 * Moves the uids whose pods no longer carry the tracking finalizer out of
 * `status.uncountedTerminatedPods` into the `succeeded` and `failed`
 * counters. Returns whether the status changed. Go's
 * `cleanUncountedPodsWithoutFinalizers`.
 *
 * @category Job controller
 */
//#region clean-uncounted
export function cleanUncountedPodsWithoutFinalizers(
  status: JobStatus,
  uidsWithFinalizer: ReadonlySet<string>,
): boolean {
  let updated = false;
  const uncounted = (status.uncountedTerminatedPods ??= {});
  const succeeded = filterInUncountedUIDs(uncounted.succeeded, uidsWithFinalizer);
  if (succeeded.length !== (uncounted.succeeded ?? []).length) {
    updated = true;
    status.succeeded =
      (status.succeeded ?? 0) + (uncounted.succeeded ?? []).length - succeeded.length;
    setUncounted(uncounted, 'succeeded', succeeded);
  }
  const failed = filterInUncountedUIDs(uncounted.failed, uidsWithFinalizer);
  if (failed.length !== (uncounted.failed ?? []).length) {
    updated = true;
    status.failed = (status.failed ?? 0) + (uncounted.failed ?? []).length - failed.length;
    setUncounted(uncounted, 'failed', failed);
  }
  return updated;
}
//#endregion clean-uncounted

/** Sets a list of `uncountedTerminatedPods`, leaving an empty one out as the wire form does. */
function setUncounted(
  uncounted: NonNullable<JobStatus['uncountedTerminatedPods']>,
  field: 'succeeded' | 'failed',
  uids: string[],
): void {
  if (uids.length === 0) delete uncounted[field];
  else uncounted[field] = uids;
}

/** The uids of `uncounted` that are in `include`, in order. Go's `filterInUncountedUIDs`. */
function filterInUncountedUIDs(
  uncounted: readonly string[] | undefined,
  include: ReadonlySet<string>,
): string[] {
  return (uncounted ?? []).filter((uid) => include.has(uid));
}

/**
 * The final `Failed` condition of a Job whose `FailureTarget` condition was
 * set: same reason and message, stamped `now`. Go's
 * `newFailedConditionForFailureTarget`.
 *
 * @category Job controller
 */
export function newFailedConditionForFailureTarget(
  condition: JobCondition,
  now: number,
): JobCondition {
  return newCondition(jobFailed, 'True', condition.reason ?? '', condition.message ?? '', now);
}

/**
 * The active pods to delete: for an Indexed Job first the duplicates of an
 * index and the pods without a valid index, then, to reach `rmAtLeast`, the
 * others in {@link "@kcm-ts/controller"!activePods} order (not ready before
 * ready, unscheduled before scheduled, pending before running). Go's
 * `activePodsForRemoval`.
 *
 * @category Job controller
 */
export function activePodsForRemoval(job: Job, pods: readonly Pod[], rmAtLeast: number): Pod[] {
  let rm: Pod[] = [];
  let left: Pod[];
  if (isIndexedJob(job)) {
    [rm, left] = appendDuplicatedIndexPodsForRemoval([], [], pods, completionsOf(job));
  } else {
    left = [...pods];
  }
  if (rm.length < rmAtLeast) {
    left.sort(activePods);
    rm = [...rm, ...left.slice(0, rmAtLeast - rm.length)];
  }
  return rm;
}

/**
 * The finalizers with {@link jobTrackingFinalizer} added unless present.
 * Go's `appendJobCompletionFinalizerIfNotFound`.
 *
 * @category Job controller
 */
export function appendJobCompletionFinalizerIfNotFound(
  finalizers: readonly string[] | undefined,
): string[] {
  const list = [...(finalizers ?? [])];
  if (!list.includes(jobTrackingFinalizer)) list.push(jobTrackingFinalizer);
  return list;
}

/**
 * The strategic merge patch that removes {@link jobTrackingFinalizer} from
 * the pod, or `undefined` when it has none. Go's
 * `removeTrackingFinalizerPatch`.
 *
 * @category Job controller
 */
export function removeTrackingFinalizerPatch(pod: Pod): object | undefined {
  if (!hasJobTrackingFinalizer(pod)) return undefined;
  return { metadata: { '$deleteFromPrimitiveList/finalizers': [jobTrackingFinalizer] } };
}

/**
 * The number of ready pods. Go's `countReadyPods`.
 *
 * @category Job controller
 */
export function countReadyPods(pods: readonly Pod[]): number {
  return pods.filter(isPodReady).length;
}

/**
 * The Job status as the API server's JSON carries it: zero counters, an
 * empty completed-index list and empty condition and uid lists are left
 * out (Go's `omitempty`); `ready`, `terminating`, `failedIndexes` and
 * `uncountedTerminatedPods` stay, as pointers do.
 */
function wireStatus(status: JobStatus): JobStatus {
  const out: JobStatus = { ...status };
  for (const f of ['active', 'succeeded', 'failed'] as const) if (!out[f]) delete out[f];
  if (!out.completedIndexes) delete out.completedIndexes;
  if (out.conditions?.length === 0) delete out.conditions;
  if (out.uncountedTerminatedPods) {
    const u = { ...out.uncountedTerminatedPods };
    if (!u.succeeded?.length) delete u.succeeded;
    if (!u.failed?.length) delete u.failed;
    out.uncountedTerminatedPods = u;
  }
  return out;
}

/**
 * A {@link "@kcm-ts/controller"!PodControl} whose adoption and release
 * patches also add and remove the tracking finalizer, as Go's
 * `NewPodControllerRefManager(..., batch.JobTrackingFinalizer)` makes them:
 * @kcm-ts/controller's manager takes no finalizers, so they are added to
 * its patches on the way out.
 */
function withTrackingFinalizerPatches(podControl: PodControl): PodControl {
  return {
    createPods: (...args) => podControl.createPods(...args),
    createPodsWithGenerateName: (...args) => podControl.createPodsWithGenerateName(...args),
    deletePod: (...args) => podControl.deletePod(...args),
    patchPod(namespace, name, patch, signal) {
      const meta = (patch as { metadata?: Record<string, unknown> }).metadata;
      const refs = meta?.ownerReferences;
      if (meta === undefined || !Array.isArray(refs)) {
        return podControl.patchPod(namespace, name, patch, signal);
      }
      const releasing = refs.some((r) => (r as { $patch?: string }).$patch === 'delete');
      const metadata = releasing
        ? { ...meta, '$deleteFromPrimitiveList/finalizers': [jobTrackingFinalizer] }
        : { ...meta, finalizers: [jobTrackingFinalizer] };
      return podControl.patchPod(namespace, name, { ...patch, metadata }, signal);
    },
  };
}

/**
 * What `manageJob` did: the active pods after it, the
 * metric action, and the first error.
 *
 * @category Job controller
 */
export interface ManageJobResult {
  /** The active pods once the creations and deletions are done. */
  active: number;
  /** The `action` label of the sync metrics. */
  action: string;
  /** One of the errors of the creations or deletions, if any failed. */
  error: Error | undefined;
}

/**
 * Runs every Job to completion: Go's job `Controller`. It watches Jobs and
 * pods through shared informers, queues the keys of Jobs that may need
 * work, and syncs each key on one of several workers: claim the Job's pods,
 * count the finished ones through the `batch.kubernetes.io/job-tracking`
 * finalizer and `status.uncountedTerminatedPods` (so no pod is counted twice
 * or lost, even across a restart), create or delete pods to keep
 * `parallelism` running (with a growing delay after failures), and finish
 * the Job with `Complete` or `Failed` once its pods are gone. A second
 * queue removes the tracking finalizer from pods whose Job is gone or
 * finished.
 *
 * Construct it before starting the informer factory (it registers its event
 * handlers and the pod informer's index by controller uid), then call
 * {@link JobController.run}, as kube-controller-manager's
 * `startJobController` does.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#start-controller}
 *
 * @category Job controller
 */
export class JobController {
  /** The work queue (named `job`), of Job keys. */
  readonly queue: RateLimitingQueue<string>;
  /** The queue of orphan pods whose tracking finalizer to remove (named `job_orphan_pod`). */
  readonly orphanQueue: RateLimitingQueue<string>;
  /** The pod creations and deletions each Job still waits to see. */
  readonly expectations: ControllerExpectations;
  /**
   * The pods whose tracking finalizer removal each Job still waits to see.
   *
   * @internal
   */
  readonly finalizerExpectations: UIDTrackingExpectations;
  /**
   * The pod failure backoff of each Job.
   *
   * @internal
   */
  readonly podBackoffStore = new BackoffStore();
  /** The `job_controller_*` metrics. */
  readonly metrics: JobControllerMetrics;

  readonly #jobInformer: SharedIndexInformer<Job>;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #jobLister: Lister<Job>;
  readonly #podLister: Lister<Pod>;
  readonly #podIndexer: Indexer<Pod>;
  readonly #client: JobControllerClients;
  readonly #podControl: PodControl;
  readonly #refPodControl: PodControl;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Uids of Jobs this controller finished whose finished status the informer has not shown yet. */
  readonly #finishedJobExpectations = new Set<string>();
  #running = false;

  /** @param options - see {@link JobControllerOptions} */
  constructor(options: JobControllerOptions) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#client = options.client;
    this.#podControl =
      options.podControl ??
      new RealPodControl({
        client: options.client.pods,
        recorder: this.#recorder,
        logger: this.#logger,
      });
    this.#refPodControl = withTrackingFinalizerPatches(this.#podControl);
    this.metrics = newJobControllerMetrics(options.metricsProvider);
    this.expectations = new ControllerExpectations({ clock: this.#clock, logger: this.#logger });
    this.finalizerExpectations = new UIDTrackingExpectations(this.#logger);
    this.queue = newRateLimitingQueue<string>(
      new ItemExponentialFailureRateLimiter(defaultJobApiBackOff, maxJobApiBackOff),
      { name: 'job', clock: this.#clock },
    );
    this.orphanQueue = newRateLimitingQueue<string>(
      new ItemExponentialFailureRateLimiter(defaultJobApiBackOff, maxJobApiBackOff),
      { name: 'job_orphan_pod', clock: this.#clock },
    );

    this.#jobInformer = options.jobs.informer();
    this.#jobInformer.addEventHandler({
      onAdd: (job) => this.#handle(() => this.addJob(job)),
      onUpdate: (oldJob, curJob) => this.#handle(() => this.updateJob(oldJob, curJob)),
      onDelete: (job) => this.#handle(() => this.deleteJob(job)),
    });
    this.#jobLister = options.jobs.lister();

    this.#podInformer = options.pods.informer();
    this.#podInformer.addEventHandler({
      onAdd: (pod) => this.#handle(() => this.addPod(pod)),
      onUpdate: (oldPod, curPod) => this.#handle(() => this.updatePod(oldPod, curPod)),
      onDelete: (pod) => this.#handle(() => this.deletePod(pod, true)),
    });
    // Shared with the other controllers of the same factory.
    addPodControllerUIDIndexer(this.#podInformer);
    this.#podIndexer = this.#podInformer.getIndexer();
    this.#podLister = options.pods.lister();
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` Job workers
   * and as many orphan pod workers (kube-controller-manager runs
   * {@link concurrentJobSyncs}) until `signal` aborts; resolves once every
   * worker has stopped and both queues are shut down. A sync in progress
   * when the signal aborts ends at its next request (the signal is passed to
   * the client); the keys still queued are dropped. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queues are shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('JobController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('JobController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // Waking the workers: a worker blocked in get() returns once its queue shuts down.
    void stopped.then(() => {
      this.queue.shutDown();
      this.orphanQueue.shutDown();
    });
    const log = this.#logger;
    log.info('Starting job controller');
    try {
      const synced = await waitForNamedCacheSync(
        'job',
        signal,
        [() => this.#podInformer.hasSynced(), () => this.#jobInformer.hasSynced()],
        {
          clock: this.#clock,
          logger: { info: (m) => log.info(m), error: (m) => log.error(undefined, m) },
        },
      );
      if (!synced) return;
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) {
        running.push(this.#worker(signal), this.#orphanWorker(signal));
      }
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.orphanQueue.shutDown();
      this.#running = false;
      log.info('Shutting down job controller');
    }
  }

  /** Processes Job keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one Job key, syncs it and marks it done: forgotten by the rate
   * limiter on success, re-added with backoff (1 s doubling to 1 min) on
   * failure. Resolves false once the queue has shut down. Go's
   * `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      await this.syncJob(key, signal);
      this.queue.forget(key);
    } catch (err) {
      if (!signal?.aborted) this.#logger.error(err, 'syncing job', { key });
      this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }

  /** Processes orphan pod keys until the queue shuts down. Go's `orphanWorker`. */
  async #orphanWorker(signal: AbortSignal): Promise<void> {
    while (await this.processNextOrphanPod(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one orphan pod key and removes the tracking finalizers it names;
   * retried with backoff on failure. Go's `processNextOrphanPod`.
   */
  async processNextOrphanPod(signal?: AbortSignal): Promise<boolean> {
    const [item, quit] = await this.orphanQueue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      await this.syncOrphanPod(decodeOrphanPodKey(item), signal);
      this.orphanQueue.forget(item);
    } catch (err) {
      if (!signal?.aborted) this.#logger.error(err, 'Error syncing orphan pod', { key: item });
      this.orphanQueue.addRateLimited(item);
    } finally {
      this.orphanQueue.done(item);
    }
    return true;
  }
  //#endregion run

  //#region orphans
  /**
   * Removes the tracking finalizer from the pod a key names, or from every
   * pod its selector matches (failures of single pods are logged). Go's
   * `syncOrphanPod` and `syncOrphanPodsBySelector`.
   *
   * @internal
   */
  async syncOrphanPod(key: OrphanPodKey, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      if (key.kind === 'name') {
        const pod = this.#podLister.byNamespace(key.namespace).tryGet(key.value);
        if (pod === undefined) {
          this.#logger.v(4).info('Orphan pod has been deleted', {
            pod: `${key.namespace}/${key.value}`,
          });
          return;
        }
        await this.handleSingleOrphanPod(pod, signal);
        return;
      }
      let selector: Selector;
      try {
        selector = parseSelector(key.value);
      } catch (err) {
        throw new Error(`invalid label selector: ${messageOf(err)}`, { cause: err });
      }
      for (const pod of this.#podLister.byNamespace(key.namespace).list(selector)) {
        try {
          await this.handleSingleOrphanPod(pod, signal);
        } catch (err) {
          this.#logger.error(err, 'syncing orphan pod failed', {
            pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
          });
        }
      }
    } finally {
      this.#logger.v(4).info('Finished syncing orphan pod', {
        pod: encodeOrphanPodKey(key),
        elapsed: `${this.#clock.since(start)}ms`,
      });
    }
  }

  /**
   * Removes the pod's tracking finalizer unless a live Job still tracks it:
   * kept when its controller is not a batch/v1 Job, is a Job managed by
   * another controller, or is a Job in the cache that has not finished. A
   * pod gone meanwhile is fine. Go's `handleSingleOrphanPod`.
   */
  async handleSingleOrphanPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      if (ref.kind !== jobKind.kind || ref.apiVersion !== 'batch/v1') return;
      const job = this.resolveControllerRef(namespace, ref);
      if (job !== undefined) {
        const controllerName = managedByExternalController(job);
        if (controllerName !== undefined) {
          this.#logger
            .v(2)
            .info(
              'Skip cleanup of the job finalizer for a pod owned by a job that is managed by an external controller',
              {
                namespace,
                name,
                podUID: pod.metadata?.uid,
                jobUID: job.metadata?.uid,
                controllerName,
              },
            );
          return;
        }
        // Adopted by a Job still running: it will count the pod.
        if (!isJobFinished(job)) return;
      }
    }
    const patch = removeTrackingFinalizerPatch(pod);
    if (patch === undefined) return;
    try {
      await this.#podControl.patchPod(namespace, name, patch, signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  //#endregion orphans

  /**
   * The pods the Job owns, the orphans of its namespace it adopts included
   * (adoption adds its controller reference and the tracking finalizer),
   * less those it releases. An adopted pod is returned with the finalizer
   * already on, as it will be once the informer catches up. Reads the pod
   * informer's index by controller uid. Go's `getPodsForJob`.
   *
   * @throws when the selector is invalid, or an adoption or release fails
   */
  async getPodsForJob(job: Job, signal?: AbortSignal): Promise<Pod[]> {
    let selector: Selector;
    try {
      selector = labelSelectorAsSelector(job.spec?.selector);
    } catch (err) {
      throw new Error(`couldn't convert Job selector: ${messageOf(err)}`, { cause: err });
    }
    const namespace = job.metadata?.namespace ?? '';
    const name = job.metadata?.name ?? '';
    const uid = job.metadata?.uid ?? '';
    const pods = filterPodsByOwner(this.#podIndexer, job.metadata ?? {}, jobKind.kind, true);
    // Before adopting, check with a fresh read that the Job is not going away.
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.#client.jobs
        .inNamespace(namespace)
        .get(name, signal ? { signal } : {});
      if (fresh.metadata?.uid !== uid) {
        throw new Error(
          `original Job ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${uid}`,
        );
      }
      return fresh;
    });
    const cm = new PodControllerRefManager(
      this.#refPodControl,
      job,
      selector,
      jobKind,
      canAdopt,
      this.#logger,
    );
    const claimed = await cm.claimPods(pods);
    return claimed.map((p) => {
      const adopted = !(p.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
      if (!adopted || hasJobTrackingFinalizer(p)) return p;
      return {
        ...p,
        metadata: {
          ...p.metadata,
          finalizers: [...(p.metadata?.finalizers ?? []), jobTrackingFinalizer],
        },
      };
    });
  }

  //#region sync
  /**
   * Brings the Job `key` (`namespace/name`) one step closer to done: Go's
   * `syncJob`, step by step:
   *
   * 1. read it from the cache; gone: forget its expectations and backoff;
   *    skip it if another controller manages it (`spec.managedBy`), if it
   *    has finished, or if this controller finished it and the cache does
   *    not show that yet;
   * 2. decide whether it may create or delete pods (its expectations are
   *    satisfied), before looking at pods;
   * 3. claim its pods ({@link JobController.getPodsForJob}) and count them:
   *    active, ready, terminating, and the finished ones not yet counted;
   * 4. set `startTime` on the first sync of an unsuspended Job;
   * 5. decide whether it has finished: an earlier `SuccessCriteriaMet` or
   *    `FailureTarget`, a `FailJob` rule, the backoff limit, the active
   *    deadline (or when to look at it again), failed indexes, the success
   *    policy;
   * 6. finishing: delete its active pods; otherwise create or delete pods
   *    (`manageJob`), decide completion, and set the
   *    `Suspended` condition;
   * 7. write the status and remove the tracking finalizers of the pods
   *    counted (`trackJobStatusAndRemoveFinalizers`).
   *
   * Rejects with the error of step 3, 6 or 7, which the worker retries with backoff.
   */
  async syncJob(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      await this.#syncJob(key, start, signal);
    } finally {
      this.#logger
        .v(4)
        .info('Finished syncing job', { key, elapsed: `${this.#clock.since(start)}ms` });
    }
  }

  async #syncJob(key: string, start: number, signal: AbortSignal | undefined): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    if (namespace === '' || name === '') {
      throw new Error(`invalid job key "${key}": either namespace or name is missing`);
    }
    const sharedJob = this.#jobLister.byNamespace(namespace).tryGet(name);
    if (sharedJob === undefined) {
      this.#logger.v(4).info('Job has been deleted', { key });
      this.expectations.deleteExpectations(key);
      this.finalizerExpectations.deleteExpectations(key);
      this.podBackoffStore.removeBackoffRecord(key);
      return;
    }
    // Checked here too, not only when queueing: the Job may have been
    // replaced by one managed elsewhere since its key was queued.
    const controllerName = managedByExternalController(sharedJob);
    if (controllerName !== undefined) {
      this.#logger.v(2).info('Skip syncing the job as it is managed by an external controller', {
        key,
        uid: sharedJob.metadata?.uid,
        controllerName,
      });
      return;
    }
    // A copy, so the cache is never changed.
    const job = structuredClone(sharedJob);
    const uid = job.metadata?.uid ?? '';
    // A finished Job is never touched again.
    if (isJobFinished(job)) {
      this.podBackoffStore.removeBackoffRecord(key);
      this.#finishedJobExpectations.delete(uid);
      return;
    }
    if (this.#finishedJobExpectations.has(uid)) {
      this.#logger
        .v(2)
        .info(
          'Skip syncing the job as its marked finished but the corresponding update event is not yet received',
          { uid, key },
        );
      return;
    }
    const mode = job.spec?.completionMode;
    if (isSet(mode) && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.#recorder.event(
        withKind(job),
        'Warning',
        'UnknownCompletionMode',
        'Skipped Job sync because completion mode is unknown',
      );
      return;
    }

    const completionMode = getCompletionMode(job);
    const state = { action: jobSyncActionReconciling };
    let result = 'success';
    try {
      await this.#syncActiveJob(key, job, state, signal);
    } catch (err) {
      result = 'error';
      throw err;
    } finally {
      this.metrics.jobSyncDurationSeconds
        .withLabelValues(completionMode, result, state.action)
        .observe(this.#clock.since(start) / 1000);
      this.metrics.jobSyncNum.withLabelValues(completionMode, result, state.action).inc();
    }
  }

  async #syncActiveJob(
    key: string,
    job: Job,
    state: { action: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const status = (job.status ??= {});
    status.uncountedTerminatedPods ??= {};

    // Expectations first: a pod that shows up after this check makes the
    // next sync act, never this one create twice.
    const satisfiedExpectations = this.expectations.satisfiedExpectations(key);

    const pods = await this.getPodsForJob(job, signal);
    const active0 = filterActivePods(pods);
    const jobCtx: SyncJobCtx = {
      job,
      pods,
      activePods: active0,
      ready: countReadyPods(active0),
      uncounted: new UncountedTerminatedPods(status.uncountedTerminatedPods),
      expectedRmFinalizers: this.finalizerExpectations.getExpectedUIDs(key),
      finishedCondition: undefined,
      succeeded: 0,
      failed: 0,
      prevSucceededIndexes: new OrderedIntervals(),
      succeededIndexes: new OrderedIntervals(),
      failedIndexes: undefined,
      newBackoffRecord: { key, failuresAfterLastSuccess: 0, lastFailureTime: undefined },
      podsWithDelayedDeletionPerIndex: undefined,
      terminating: undefined,
    };
    if (trackTerminatingPods(job)) jobCtx.terminating = countTerminatingPods(pods);
    let active = jobCtx.activePods.length;
    //#region count-finished
    const [newSucceededPods, newFailedPods] = getNewFinishedPods(jobCtx);
    jobCtx.succeeded =
      (status.succeeded ?? 0) + newSucceededPods.length + jobCtx.uncounted.succeeded.size;
    jobCtx.failed =
      (status.failed ?? 0) +
      nonIgnoredFailedPodsCount(job, newFailedPods) +
      jobCtx.uncounted.failed.size;
    //#endregion count-finished

    // First start: a suspended Job starts when resumed.
    const now = this.#clock.now();
    if (!isSet(status.startTime) && !isJobSuspended(job)) {
      status.startTime = formatTime(now);
    }

    jobCtx.newBackoffRecord = this.podBackoffStore.newBackoffRecord(
      key,
      newSucceededPods,
      newFailedPods,
    );

    let manageJobErr: Error | undefined;

    // The order of the checks matters, as several may hold at once:
    // 1. an earlier SuccessCriteriaMet or FailureTarget stands (the latter
    //    turning into Failed); 2. failures; 3. successes.
    //#region finish-checks
    const exceedsBackoffLimit = jobCtx.failed > backoffLimitOf(job);
    jobCtx.finishedCondition = hasSuccessCriteriaMetCondition(job);
    // With SuccessCriteriaMet already set, the pod failure policy no longer matters.
    if (jobCtx.finishedCondition === undefined) {
      const failureTarget = findConditionByType(status.conditions, jobFailureTarget);
      if (failureTarget?.status === 'True') {
        jobCtx.finishedCondition = newFailedConditionForFailureTarget(failureTarget, now);
      } else {
        const failJobMessage = getFailJobMessage(job, pods);
        if (failJobMessage !== undefined) {
          // Recorded before the finalizers go, so the message survives the pods.
          jobCtx.finishedCondition = newCondition(
            jobFailureTarget,
            'True',
            jobReasonPodFailurePolicy,
            failJobMessage,
            now,
          );
        }
      }
    }
    if (jobCtx.finishedCondition === undefined) {
      if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods)) {
        jobCtx.finishedCondition = this.newFailureCondition(
          jobReasonBackoffLimitExceeded,
          'Job has reached the specified backoff limit',
        );
      } else if (this.pastActiveDeadline(job)) {
        jobCtx.finishedCondition = this.newFailureCondition(
          jobReasonDeadlineExceeded,
          'Job was active longer than specified deadline',
        );
      } else if (isSet(job.spec?.activeDeadlineSeconds) && !isJobSuspended(job)) {
        const startTime = metaTime(status.startTime) ?? now;
        const syncDuration = job.spec.activeDeadlineSeconds * 1000 - this.#clock.since(startTime);
        this.#logger
          .v(2)
          .info('Job has activeDeadlineSeconds configuration. Will sync this job again', {
            key,
            nextSyncIn: `${syncDuration}ms`,
          });
        this.queue.addAfter(key, syncDuration);
      }
    }
    //#endregion finish-checks

    if (isIndexedJob(job)) {
      [jobCtx.prevSucceededIndexes, jobCtx.succeededIndexes] = calculateSucceededIndexes(
        job,
        pods,
        this.#logger,
      );
      jobCtx.succeeded = jobCtx.succeededIndexes.total();
      if (hasBackoffLimitPerIndex(job)) {
        jobCtx.failedIndexes = calculateFailedIndexes(job, pods, this.#logger);
        if (jobCtx.finishedCondition === undefined) {
          const failedIndexes = jobCtx.failedIndexes.total();
          const maxFailedIndexes = job.spec?.maxFailedIndexes;
          if (isSet(maxFailedIndexes) && failedIndexes > maxFailedIndexes) {
            jobCtx.finishedCondition = this.newFailureCondition(
              jobReasonMaxFailedIndexesExceeded,
              'Job has exceeded the specified maximal number of failed indexes',
            );
          } else if (
            failedIndexes > 0 &&
            failedIndexes + jobCtx.succeededIndexes.total() >= completionsOf(job)
          ) {
            jobCtx.finishedCondition = this.newFailureCondition(
              jobReasonFailedIndexes,
              'Job has failed indexes',
            );
          }
        }
        jobCtx.podsWithDelayedDeletionPerIndex = getPodsWithDelayedDeletionPerIndex(
          jobCtx,
          this.#logger,
        );
      }
      if (jobCtx.finishedCondition === undefined) {
        const [message, met] = matchSuccessPolicy(
          job.spec?.successPolicy,
          completionsOf(job),
          jobCtx.succeededIndexes,
          this.#logger,
        );
        if (met) {
          jobCtx.finishedCondition = newCondition(
            jobSuccessCriteriaMet,
            'True',
            jobReasonSuccessPolicy,
            message,
            now,
          );
        }
      }
    }

    let suspendCondChanged = false;
    if (jobCtx.finishedCondition !== undefined) {
      // Finishing: every active pod goes (keeping its finalizer, so it is counted).
      const [deletedReady, deleted, err] = await this.deleteActivePods(
        job,
        jobCtx.activePods,
        signal,
      );
      if (deleted !== active || !satisfiedExpectations) {
        // Not yet: some pods remain, or pods may exist that the cache does not show.
        jobCtx.finishedCondition = undefined;
      }
      active -= deleted;
      if (trackTerminatingPods(job)) jobCtx.terminating = (jobCtx.terminating ?? 0) + deleted;
      jobCtx.ready -= deletedReady;
      manageJobErr = err;
    } else {
      let manageJobCalled = false;
      if (satisfiedExpectations && !job.metadata?.deletionTimestamp) {
        const managed = await this.manageJob(job, jobCtx, signal);
        active = managed.active;
        state.action = managed.action;
        manageJobErr = managed.error;
        manageJobCalled = true;
      }
      //#region complete
      const completions = job.spec?.completions;
      // Without completions (a work queue), any success ends the Job once
      // the rest of its pods are done; with completions, that many successes do.
      const complete = isSet(completions)
        ? jobCtx.succeeded >= completions && active === 0
        : jobCtx.succeeded > 0 && active === 0;
      //#endregion complete
      if (complete) {
        jobCtx.finishedCondition = this.newSuccessCondition();
      } else if (manageJobCalled) {
        // Conditions and events only from a sync that managed the pods.
        const conditions = status.conditions;
        if (isJobSuspended(job)) {
          let updated: boolean;
          [status.conditions, updated] = ensureJobConditionStatus(
            conditions,
            jobSuspended,
            'True',
            'JobSuspended',
            'Job suspended',
            this.#clock.now(),
          );
          if (updated) {
            suspendCondChanged = true;
            this.#recorder.event(withKind(job), 'Normal', 'Suspended', 'Job suspended');
          }
        } else {
          let updated: boolean;
          [status.conditions, updated] = ensureJobConditionStatus(
            conditions,
            jobSuspended,
            'False',
            'JobResumed',
            'Job resumed',
            this.#clock.now(),
          );
          if (updated) {
            suspendCondChanged = true;
            this.#recorder.event(withKind(job), 'Normal', 'Resumed', 'Job resumed');
            // The deadline counts the time a Job is continuously active: a
            // resumed Job starts again, as one created suspended does.
            status.startTime = formatTime(this.#clock.now());
          }
        }
        if (status.conditions?.length === 0) delete status.conditions;
      }
    }

    const terminating = jobCtx.terminating;
    const needsStatusUpdate =
      suspendCondChanged ||
      active !== (status.active ?? 0) ||
      jobCtx.ready !== status.ready ||
      status.terminating !== terminating;
    status.active = active;
    status.ready = jobCtx.ready;
    if (terminating === undefined) delete status.terminating;
    else status.terminating = terminating;
    try {
      await this.trackJobStatusAndRemoveFinalizers(jobCtx, needsStatusUpdate, signal);
    } catch (err) {
      throw new Error(`tracking status: ${messageOf(err)}`, { cause: err });
    }
    if (manageJobErr !== undefined) throw manageJobErr;
  }

  /**
   * The condition of a Job that has failed: `FailureTarget` first (the
   * JobManagedBy and JobPodReplacementPolicy gates delay `Failed` until the
   * pods are gone). Go's `newFailureCondition`.
   */
  newFailureCondition(reason: string, message: string): JobCondition {
    return newCondition(jobFailureTarget, 'True', reason, message, this.#clock.now());
  }

  /**
   * The condition of a Job whose pods reached its completions:
   * `SuccessCriteriaMet` first (`Complete` follows once the pods are gone),
   * with the reason `CompletionsReached`. Go's `newSuccessCondition`.
   */
  newSuccessCondition(): JobCondition {
    return newCondition(
      jobSuccessCriteriaMet,
      'True',
      jobReasonCompletionsReached,
      'Reached expected number of succeeded pods',
      this.#clock.now(),
    );
  }

  /**
   * True when the Job has an active deadline, has started, is not
   * suspended, and has been active that long. Go's `pastActiveDeadline`.
   */
  pastActiveDeadline(job: Job): boolean {
    const deadline = job.spec?.activeDeadlineSeconds;
    const startTime = metaTime(job.status?.startTime);
    if (!isSet(deadline) || startTime === undefined || isJobSuspended(job)) return false;
    return this.#clock.since(startTime) >= deadline * 1000;
  }

  /**
   * Deletes the active pods of a finishing Job, keeping their finalizers so
   * that `trackJobStatusAndRemoveFinalizers` counts them
   * and lets them go. Resolves with the ready pods deleted, the pods
   * deleted (a pod already gone counts) and one error. Go's `deleteActivePods`.
   */
  async deleteActivePods(
    job: Job,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<[deletedReady: number, deleted: number, error: Error | undefined]> {
    let successfulDeletes = pods.length;
    let deletedReady = 0;
    let error: Error | undefined;
    const namespace = job.metadata?.namespace ?? '';
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.#podControl.deletePod(
            namespace,
            pod.metadata?.name ?? '',
            withKind(job),
            signal,
          );
        } catch (err) {
          if (!isNotFound(err)) {
            successfulDeletes--;
            error ??= asError(err);
            this.#logger.error(err, 'Deleting an active pod of a finishing Job');
          }
        }
        if (isPodReady(pod)) deletedReady++;
      }),
    );
    return [deletedReady, successfulDeletes, error];
  }

  /**
   * Deletes pods of a running Job (too many, or a suspended Job's), removing
   * their tracking finalizer first: such pods are not counted as failed.
   * Every failure also lowers the deletion expectations. Resolves with the
   * ready pods deleted, the pods deleted and one error. Go's `deleteJobPods`.
   */
  async deleteJobPods(
    job: Job,
    jobKey: string,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<[deletedReady: number, deleted: number, error: Error | undefined]> {
    let successfulDeletes = pods.length;
    let deletedReady = 0;
    let error: Error | undefined;
    const failDelete = (pod: Pod, err: unknown, notFound: boolean) => {
      // The informer will not report this deletion.
      this.expectations.deletionObserved(jobKey);
      if (!notFound) {
        this.#logger.v(2).info('Failed to delete Pod', {
          job: jobKey,
          pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
          err: messageOf(err),
        });
        successfulDeletes--;
        error ??= asError(err);
      }
    };
    await Promise.all(
      pods.map(async (pod) => {
        const patch = removeTrackingFinalizerPatch(pod);
        if (patch !== undefined) {
          try {
            await this.#podControl.patchPod(
              pod.metadata?.namespace ?? '',
              pod.metadata?.name ?? '',
              patch,
              signal,
            );
          } catch (err) {
            failDelete(
              pod,
              new Error(`removing completion finalizer: ${messageOf(err)}`, { cause: err }),
              isNotFound(err),
            );
            return;
          }
        }
        try {
          await this.#podControl.deletePod(
            job.metadata?.namespace ?? '',
            pod.metadata?.name ?? '',
            withKind(job),
            signal,
          );
        } catch (err) {
          failDelete(pod, err, isNotFound(err));
        }
        if (isPodReady(pod)) deletedReady++;
      }),
    );
    return [deletedReady, successfulDeletes, error];
  }

  /**
   * Writes what this sync learnt and lets counted pods go, in the order that
   * survives a crash at any point:
   *
   * 1. finished pods still carrying the tracking finalizer (and, when the
   *    Job finishes, all of them) are listed in
   *    `status.uncountedTerminatedPods`, or, for an Indexed Job, their
   *    indexes in `completedIndexes`;
   * 2. the status is written ({@link JobController.flushUncountedAndRemoveFinalizers});
   * 3. their finalizers are removed;
   * 4. the uids whose finalizer is gone move from the uncounted lists to the
   *    `succeeded` and `failed` counters;
   * 5. once nothing is uncounted and no pod is terminating, the final
   *    `Complete` or `Failed` condition is set, and the status written.
   *
   * At most {@link maxUncountedPods} pods are handled per sync. Go's
   * `trackJobStatusAndRemoveFinalizers`.
   *
   * @internal
   */
  async trackJobStatusAndRemoveFinalizers(
    jobCtx: SyncJobCtx,
    needsFlush: boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    const job = jobCtx.job;
    const status = (job.status ??= {});
    const isIndexed = isIndexedJob(job);
    const completions = completionsOf(job);
    const podsToRemoveFinalizer: Pod[] = [];
    const uncountedStatus = (status.uncountedTerminatedPods ??= {});
    const newSucceededIndexes: number[] = [];
    // Completed indexes go in in order.
    if (isIndexed) jobCtx.pods = [...jobCtx.pods].sort(byCompletionIndex);
    const uidsWithFinalizer = new Set<string>();
    for (const p of jobCtx.pods) {
      const uid = p.metadata?.uid ?? '';
      if (hasJobTrackingFinalizer(p) && jobCtx.expectedRmFinalizers?.has(uid) !== true) {
        uidsWithFinalizer.add(uid);
      }
    }

    const oldCounters = { value: countersOf(status) };
    if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
    const podFailureCountByPolicyAction = new Map<string, number>();
    let reachedMaxUncountedPods = false;
    for (const pod of jobCtx.pods) {
      const uid = pod.metadata?.uid ?? '';
      // Counted by an earlier sync.
      if (!hasJobTrackingFinalizer(pod) || jobCtx.expectedRmFinalizers?.has(uid) === true) continue;
      const considerPodFailed = isPodFailed(pod, job);
      if (!canRemoveFinalizer(jobCtx, pod, considerPodFailed, this.#logger)) continue;
      podsToRemoveFinalizer.push(pod);
      if (pod.status?.phase === 'Succeeded' && !jobCtx.uncounted.failed.has(uid)) {
        if (isIndexed) {
          // The index is enough to never count a success twice.
          const ix = getCompletionIndex(pod.metadata?.annotations);
          if (
            ix !== unknownCompletionIndex &&
            ix < completions &&
            !jobCtx.prevSucceededIndexes.has(ix)
          ) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!jobCtx.uncounted.succeeded.has(uid)) {
          needsFlush = true;
          uncountedStatus.succeeded = [...(uncountedStatus.succeeded ?? []), uid];
        }
      } else if (
        considerPodFailed ||
        (jobCtx.finishedCondition !== undefined &&
          !isSuccessCriteriaMetCondition(jobCtx.finishedCondition))
      ) {
        // A finishing Job counts every pod not terminated as failed.
        const ix = getCompletionIndex(pod.metadata?.annotations);
        if (
          !jobCtx.uncounted.failed.has(uid) &&
          (!isIndexed || (ix !== unknownCompletionIndex && ix < completions))
        ) {
          let countFailed = true;
          if (isSet(job.spec?.podFailurePolicy)) {
            const [, count, action] = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
            if (action !== undefined) {
              podFailureCountByPolicyAction.set(
                action,
                (podFailureCountByPolicyAction.get(action) ?? 0) + 1,
              );
            }
            countFailed = count;
          }
          if (countFailed) {
            needsFlush = true;
            uncountedStatus.failed = [...(uncountedStatus.failed ?? []), uid];
          }
        }
      }
      if (
        newSucceededIndexes.length +
          (uncountedStatus.succeeded?.length ?? 0) +
          (uncountedStatus.failed?.length ?? 0) >=
        maxUncountedPods
      ) {
        // Enough for one sync: the status stays small and other Jobs get
        // their turn. The status and pod updates bring this Job back.
        reachedMaxUncountedPods = true;
        break;
      }
    }
    if (isIndexed) {
      jobCtx.succeededIndexes = jobCtx.succeededIndexes.withOrderedIndexes(newSucceededIndexes);
      const succeededIndexesStr = jobCtx.succeededIndexes.toString();
      if (succeededIndexesStr !== (status.completedIndexes ?? '')) needsFlush = true;
      status.succeeded = jobCtx.succeededIndexes.total();
      status.completedIndexes = succeededIndexesStr;
      const failedIndexesStr = jobCtx.failedIndexes?.toString();
      if ((status.failedIndexes ?? undefined) !== failedIndexesStr) {
        if (failedIndexesStr === undefined) delete status.failedIndexes;
        else status.failedIndexes = failedIndexesStr;
        needsFlush = true;
      }
    }
    if (jobCtx.finishedCondition?.type === jobFailureTarget) {
      // The interim condition goes in before the finalizers go.
      status.conditions = [...(status.conditions ?? []), jobCtx.finishedCondition];
      needsFlush = true;
      // The final condition, set once the pods are gone.
      jobCtx.finishedCondition = newFailedConditionForFailureTarget(
        jobCtx.finishedCondition,
        this.#clock.now(),
      );
    }
    if (isSuccessCriteriaMetCondition(jobCtx.finishedCondition)) {
      const met = jobCtx.finishedCondition!;
      if (hasSuccessCriteriaMetCondition(job) === undefined) {
        status.conditions = [...(status.conditions ?? []), met];
        needsFlush = true;
      }
      jobCtx.finishedCondition = newCondition(
        jobComplete,
        'True',
        met.reason ?? '',
        met.message ?? '',
        this.#clock.now(),
      );
    }
    needsFlush = await this.flushUncountedAndRemoveFinalizers(
      jobCtx,
      podsToRemoveFinalizer,
      uidsWithFinalizer,
      oldCounters,
      podFailureCountByPolicyAction,
      needsFlush,
      signal,
    );
    const jobFinished = !reachedMaxUncountedPods && this.enactJobFinished(jobCtx);
    if (jobFinished) needsFlush = true;
    if (needsFlush) {
      try {
        await this.updateJobStatus(jobCtx.job, signal);
      } catch (err) {
        throw new Error(`removing uncounted pods from status: ${messageOf(err)}`, { cause: err });
      }
      if (jobFinished) {
        this.recordJobFinished(jobCtx.job, jobCtx.finishedCondition!);
        this.#finishedJobExpectations.add(jobCtx.job.metadata?.uid ?? '');
      }
      this.recordJobPodFinished(jobCtx.job, oldCounters.value);
    }
  }

  /**
   * Writes the status if it changed (the new uncounted pods, the interim
   * conditions), then removes the finalizers of `podsToRemoveFinalizer` and
   * moves those pods from the uncounted lists to the counters; if some
   * removals failed, writes the progress made and rejects with one of the
   * errors. Resolves with whether the status still needs writing. Replaces
   * `jobCtx.job` with the Job the server returned. Go's
   * `flushUncountedAndRemoveFinalizers`.
   *
   * @internal
   */
  async flushUncountedAndRemoveFinalizers(
    jobCtx: SyncJobCtx,
    podsToRemoveFinalizer: readonly Pod[],
    uidsWithFinalizer: Set<string>,
    oldCounters: { value: JobStatusCounters },
    podFailureCountByPolicyAction: ReadonlyMap<string, number>,
    needsFlush: boolean,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (needsFlush) {
      try {
        jobCtx.job = await this.updateJobStatus(jobCtx.job, signal);
      } catch (err) {
        throw new Error(`adding uncounted pods to status: ${messageOf(err)}`, { cause: err });
      }
      this.podBackoffStore.updateBackoffRecord(jobCtx.newBackoffRecord);
      this.recordJobPodFinished(jobCtx.job, oldCounters.value);
      oldCounters.value = countersOf(jobCtx.job.status);
      needsFlush = false;
    }
    for (const [action, count] of podFailureCountByPolicyAction) {
      this.metrics.podFailuresHandledByFailurePolicy.withLabelValues(action).add(count);
    }

    const jobKey = deletionHandlingMetaNamespaceKeyFunc(jobCtx.job);
    let rmErr: Error | undefined;
    if (podsToRemoveFinalizer.length > 0) {
      let removed: boolean[];
      [removed, rmErr] = await this.removeTrackingFinalizerFromPods(
        jobKey,
        podsToRemoveFinalizer,
        signal,
      );
      podsToRemoveFinalizer.forEach((p, i) => {
        if (removed[i]) uidsWithFinalizer.delete(p.metadata?.uid ?? '');
      });
    }
    // Some removals may have failed: write the progress made.
    const status = (jobCtx.job.status ??= {});
    if (cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer)) needsFlush = true;
    if (rmErr !== undefined) {
      if (needsFlush) {
        try {
          await this.updateJobStatus(jobCtx.job, signal);
        } catch (err) {
          throw new Error(`removing uncounted pods from status: ${messageOf(err)}`, {
            cause: err,
          });
        }
      }
      throw rmErr;
    }
    return needsFlush;
  }

  /**
   * Removes the tracking finalizer of each pod, concurrently, first
   * expecting the removals (so no sync counts these pods again before the
   * informer shows them). A pod already gone counts as removed; a failed
   * removal is no longer expected. Resolves with, per pod, whether its
   * finalizer is gone, and one of the errors. Go's
   * `removeTrackingFinalizerFromPods`.
   */
  async removeTrackingFinalizerFromPods(
    jobKey: string,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<[removed: boolean[], error: Error | undefined]> {
    const succeeded = pods.map(() => false);
    if (jobKey !== '') {
      this.finalizerExpectations.expectFinalizersRemoved(
        jobKey,
        pods.map((p) => p.metadata?.uid ?? ''),
      );
    }
    let error: Error | undefined;
    await Promise.all(
      pods.map(async (pod, i) => {
        const patch = removeTrackingFinalizerPatch(pod);
        if (patch === undefined) return;
        try {
          await this.#podControl.patchPod(
            pod.metadata?.namespace ?? '',
            pod.metadata?.name ?? '',
            patch,
            signal,
          );
        } catch (err) {
          // No update will show this removal.
          if (jobKey !== '') {
            this.finalizerExpectations.finalizerRemovalObserved(jobKey, pod.metadata?.uid ?? '');
          }
          if (!isNotFound(err)) {
            error ??= asError(err);
            this.#logger.error(err, 'removing tracking finalizer');
            return;
          }
        }
        succeeded[i] = true;
      }),
    );
    return [succeeded, error];
  }

  /**
   * Sets the final condition (`Complete`, with `completionTime`, or
   * `Failed`) once nothing is left uncounted and no pod is terminating.
   * Returns whether it did. Go's `enactJobFinished`.
   *
   * @internal
   */
  //#region enact-finished
  enactJobFinished(jobCtx: SyncJobCtx): boolean {
    const finished = jobCtx.finishedCondition;
    if (finished === undefined) return false;
    const job = jobCtx.job;
    const status = (job.status ??= {});
    const uncounted = status.uncountedTerminatedPods;
    const count = (uncounted?.succeeded?.length ?? 0) + (uncounted?.failed?.length ?? 0);
    const jobKey = deletionHandlingMetaNamespaceKeyFunc(job);
    if (count > 0) {
      this.#logger
        .v(4)
        .info('Delaying marking the Job as finished, because there are still uncounted pod(s)', {
          job: jobKey,
          condition: finished.type,
          count,
        });
      return false;
    }
    // JobManagedBy and JobPodReplacementPolicy: finished only once the pods are gone.
    if ((jobCtx.terminating ?? 0) > 0) {
      this.#logger
        .v(4)
        .info('Delaying marking the Job as finished, because there are still terminating pod(s)', {
          job: jobKey,
          condition: finished.type,
          count: jobCtx.terminating,
        });
      return false;
    }
    [status.conditions] = ensureJobConditionStatus(
      status.conditions,
      finished.type,
      'True',
      finished.reason ?? '',
      finished.message ?? '',
      this.#clock.now(),
    );
    if (finished.type === jobComplete) status.completionTime = finished.lastTransitionTime;
    return true;
  }
  //#endregion enact-finished

  /**
   * Records the events and the `jobs_finished_total` metric of a Job that
   * finished: `Normal Completed "Job completed"` (after `Warning
   * TooManySucceededPods` when more pods succeeded than `completions`), or
   * a `Warning` with the failure's reason and message. Go's `recordJobFinished`.
   */
  recordJobFinished(job: Job, finished: JobCondition): void {
    const mode = getCompletionMode(job);
    const completions = job.spec?.completions;
    if (finished.type === jobComplete) {
      if (isSet(completions) && (job.status?.succeeded ?? 0) > completions) {
        this.#recorder.event(
          withKind(job),
          'Warning',
          'TooManySucceededPods',
          'Too many succeeded pods running after completion count reached',
        );
      }
      this.#recorder.event(withKind(job), 'Normal', 'Completed', 'Job completed');
      this.metrics.jobFinishedNum
        .withLabelValues(mode, metricSucceeded, finished.reason ?? '')
        .inc();
    } else {
      this.#recorder.event(withKind(job), 'Warning', finished.reason ?? '', finished.message ?? '');
      this.metrics.jobFinishedNum.withLabelValues(mode, metricFailed, finished.reason ?? '').inc();
    }
  }

  /**
   * Counts, in `job_pods_finished_total` (and, for Indexed Jobs,
   * `job_finished_indexes_total`), the pods counted since `oldCounters`.
   * Go's `recordJobPodFinished`.
   *
   * @internal
   */
  recordJobPodFinished(job: Job, oldCounters: JobStatusCounters): void {
    const mode = completionModeStr(job);
    const status = job.status ?? {};
    let diff = 0;
    // Indexes beyond a shrunk completions (elastic Indexed Jobs) do not count.
    if (isIndexedJob(job)) {
      const completions = completionsOf(job);
      const count = (s: string | undefined) =>
        s === undefined ? 0 : parseIndexesFromString(s, completions, this.#logger).total();
      if ((status.completedIndexes ?? '') !== oldCounters.completedIndexes) {
        diff = count(status.completedIndexes ?? '') - count(oldCounters.completedIndexes);
      }
      const backoffLimitLabel = hasBackoffLimitPerIndex(job) ? 'perIndex' : 'global';
      this.metrics.jobFinishedIndexesTotal
        .withLabelValues(metricSucceeded, backoffLimitLabel)
        .add(diff);
      if (
        hasBackoffLimitPerIndex(job) &&
        (status.failedIndexes ?? undefined) !== oldCounters.failedIndexes
      ) {
        const failedDiff =
          count(status.failedIndexes ?? undefined) - count(oldCounters.failedIndexes);
        if (failedDiff > 0) {
          this.metrics.jobFinishedIndexesTotal
            .withLabelValues(metricFailed, backoffLimitLabel)
            .add(failedDiff);
        }
      }
    } else {
      diff = (status.succeeded ?? 0) - oldCounters.succeeded;
    }
    this.metrics.jobPodsFinished.withLabelValues(mode, metricSucceeded).add(diff);
    this.metrics.jobPodsFinished
      .withLabelValues(mode, metricFailed)
      .add((status.failed ?? 0) - oldCounters.failed);
  }

  /**
   * Creates or deletes pods so that `parallelism` pods run, no more than the
   * remaining completions need: all active pods go when the Job is
   * suspended; too many pods (and duplicate indexes) are deleted; missing
   * ones are created once the pod failure backoff allows, in slow-start
   * batches (Indexed Jobs: the first pending indexes, each with its
   * annotation, label, hostname and `JOB_COMPLETION_INDEX`). One sync either
   * deletes or creates, never both, and at most
   * {@link maxPodCreateDeletePerSync} pods. Expectations are raised before
   * any write and lowered for every write that failed or never happened.
   * Go's `manageJob`.
   *
   * @internal
   */
  async manageJob(job: Job, jobCtx: SyncJobCtx, signal?: AbortSignal): Promise<ManageJobResult> {
    let active = jobCtx.activePods.length;
    const parallelism = job.spec?.parallelism ?? 1;
    const jobKey = deletionHandlingMetaNamespaceKeyFunc(job);
    const log = this.#logger;

    if (isJobSuspended(job)) {
      log.v(4).info('Deleting all active pods in suspended job', { job: jobKey, active });
      const podsToDelete = activePodsForRemoval(job, jobCtx.activePods, active);
      this.expectations.expectDeletions(jobKey, podsToDelete.length);
      const [removedReady, removed, error] = await this.deleteJobPods(
        job,
        jobKey,
        podsToDelete,
        signal,
      );
      active -= removed;
      if (trackTerminatingPods(job)) jobCtx.terminating = (jobCtx.terminating ?? 0) + removed;
      jobCtx.ready -= removedReady;
      return { active, action: jobSyncActionPodsDeleted, error };
    }

    //#region want-active
    let wantActive: number;
    const completions = job.spec?.completions;
    if (!isSet(completions)) {
      // A work queue: parallelism pods, until one succeeds; then the rest finish.
      wantActive = jobCtx.succeeded > 0 ? active : parallelism;
    } else {
      // Never more than the completions still needed.
      wantActive = Math.max(0, Math.min(completions - jobCtx.succeeded, parallelism));
    }

    const rmAtLeast = Math.max(0, active - wantActive);
    //#endregion want-active
    const podsToDelete = activePodsForRemoval(job, jobCtx.activePods, rmAtLeast).slice(
      0,
      maxPodCreateDeletePerSync,
    );
    if (podsToDelete.length > 0) {
      this.expectations.expectDeletions(jobKey, podsToDelete.length);
      log.v(4).info('Too many pods running for job', {
        job: jobKey,
        deleted: podsToDelete.length,
        target: wantActive,
      });
      const [removedReady, removed, error] = await this.deleteJobPods(
        job,
        jobKey,
        podsToDelete,
        signal,
      );
      active -= removed;
      if (trackTerminatingPods(job)) jobCtx.terminating = (jobCtx.terminating ?? 0) + removed;
      jobCtx.ready -= removedReady;
      // Deletion first; creations wait for another sync (an Indexed Job may need both).
      return { active, action: jobSyncActionPodsDeleted, error };
    }

    // Under podReplacementPolicy Failed, terminating pods still hold their place.
    const terminating = onlyReplaceFailedPods(job) ? (jobCtx.terminating ?? 0) : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active, action: jobSyncActionTracking, error: undefined };

    //#region pod-backoff
    let remainingTime = 0;
    // The Job-wide backoff; with backoffLimitPerIndex each index has its own.
    if (!hasBackoffLimitPerIndex(job)) {
      remainingTime = getRemainingTime(
        jobCtx.newBackoffRecord,
        this.#clock,
        defaultJobPodFailureBackOff,
        maxJobPodFailureBackOff,
      );
    }
    if (remainingTime > 0) {
      this.enqueueSyncJobWithDelay(job, remainingTime);
      return { active: 0, action: jobSyncActionPodsCreated, error: undefined };
    }
    //#endregion pod-backoff
    diff = Math.min(diff, maxPodCreateDeletePerSync);

    let indexesToAdd: number[] = [];
    if (isIndexedJob(job)) {
      indexesToAdd = firstPendingIndexes(jobCtx, diff, completionsOf(job));
      if (hasBackoffLimitPerIndex(job)) {
        [indexesToAdd, remainingTime] = this.getPodCreationInfoForIndependentIndexes(
          indexesToAdd,
          jobCtx.podsWithDelayedDeletionPerIndex ?? new Map(),
        );
        if (remainingTime > 0) {
          this.enqueueSyncJobWithDelay(job, remainingTime);
          return { active: 0, action: jobSyncActionPodsCreated, error: undefined };
        }
      }
      diff = indexesToAdd.length;
    }

    // Before any request: the informer may report a new pod before the create returns.
    this.expectations.expectCreations(jobKey, diff);
    log.v(4).info('Too few pods running', { key: jobKey, need: wantActive, creating: diff });
    //#region pod-template
    const podTemplate: PodTemplateSpec = structuredClone(job.spec?.template ?? {});
    if (isIndexedJob(job)) addCompletionIndexEnvVariables(podTemplate);
    const meta = (podTemplate.metadata ??= {});
    meta.finalizers = appendJobCompletionFinalizerIfNotFound(meta.finalizers);
    //#endregion pod-template
    const namespace = job.metadata?.namespace ?? '';
    const jobName = job.metadata?.name ?? '';
    const owner = withKind(job);
    const controllerRef = newControllerRef(job, jobKind);
    let failures = 0;
    // Creations refused because the namespace is going away: not errors, not counted.
    let namespaceTerminating = 0;
    // Slow start: batches of 1, 2, 4, ... stop at the first failing batch,
    // so a quota that refuses every pod costs a request (and an event) or so.
    const { successes, error } = await slowStartBatch(diff, slowStartInitialBatchSize, async () => {
      const completionIndex = indexesToAdd.shift() ?? unknownCompletionIndex;
      let template = podTemplate;
      let generateName = '';
      //#region index-pod
      if (completionIndex !== unknownCompletionIndex) {
        template = structuredClone(podTemplate);
        addCompletionIndexAnnotation(template, completionIndex);
        addCompletionIndexLabel(template, completionIndex);
        (template.spec ??= { containers: [] }).hostname = `${jobName}-${completionIndex}`;
        generateName = podGenerateNameWithIndex(jobName, completionIndex);
        if (hasBackoffLimitPerIndex(job)) {
          addIndexFailureCountAnnotation(
            template,
            job,
            jobCtx.podsWithDelayedDeletionPerIndex?.get(completionIndex),
            log,
          );
        }
      }
      //#endregion index-pod
      try {
        await this.#podControl.createPodsWithGenerateName(
          namespace,
          template,
          owner,
          controllerRef,
          generateName,
          signal,
        );
      } catch (err) {
        // Every creation fails in a namespace being deleted: not an error.
        if (hasStatusCause(err, namespaceTerminatingCause)) {
          namespaceTerminating++;
          return;
        }
        log.v(2).info('Failed creation, decrementing expectations', { job: jobKey });
        this.expectations.creationObserved(jobKey);
        failures++;
        this.#logger.error(err, 'Creating a pod of a Job');
        throw err;
      }
    });
    // Pods never attempted will not show up either.
    const skipped = diff - successes - failures;
    if (skipped > 0) {
      log.v(2).info('Slow-start failure. Skipping creating pods, decrementing expectations', {
        skippedCount: skipped,
        job: jobKey,
      });
      for (let i = 0; i < skipped; i++) this.expectations.creationObserved(jobKey);
    }
    active += successes;
    // A failed creation counts once, as failed (upstream adds it to the
    // succeeded ones too).
    this.recordJobPodsCreationTotal(job, jobCtx, successes - namespaceTerminating, failures);
    return { active, action: jobSyncActionPodsCreated, error };
  }

  /**
   * Of `indexesToAdd`, those whose per-index backoff is over; when none is,
   * the shortest wait among them instead. Go's
   * `getPodCreationInfoForIndependentIndexes`.
   */
  getPodCreationInfoForIndependentIndexes(
    indexesToAdd: readonly number[],
    podsWithDelayedDeletionPerIndex: ReadonlyMap<number, Pod>,
  ): [indexesToAddNow: number[], remainingTime: number] {
    const now: number[] = [];
    let minRemaining: number | undefined;
    for (const ix of indexesToAdd) {
      const remaining = getRemainingTimePerIndex(
        this.#clock,
        defaultJobPodFailureBackOff,
        maxJobPodFailureBackOff,
        podsWithDelayedDeletionPerIndex.get(ix),
        this.#logger,
      );
      if (remaining === 0) now.push(ix);
      else if (minRemaining === undefined || remaining < minRemaining) minRemaining = remaining;
    }
    if (now.length > 0) return [now, 0];
    return [now, minRemaining ?? 0];
  }

  /**
   * Counts the pods created in `job_pods_creation_total`, by why they were
   * created: for the first time, or replacing failed (or terminating) pods.
   * Go's `recordJobPodsCreationTotal`.
   *
   * @internal
   */
  recordJobPodsCreationTotal(
    job: Job,
    jobCtx: Pick<SyncJobCtx, 'failed' | 'terminating'>,
    succeeded: number,
    failed: number,
  ): void {
    let reason = podCreateNew;
    if (
      (job.spec?.podReplacementPolicy ?? 'TerminatingOrFailed') === 'Failed' &&
      jobCtx.failed > 0
    ) {
      reason = podRecreateFailed;
    } else if (jobCtx.failed > 0 || (jobCtx.terminating ?? 0) > 0) {
      reason = podRecreateTerminatingOrFailed;
    }
    if (succeeded > 0) {
      this.metrics.jobPodsCreationTotal.withLabelValues(reason, metricSucceeded).add(succeeded);
    }
    if (failed > 0) {
      this.metrics.jobPodsCreationTotal.withLabelValues(reason, metricFailed).add(failed);
    }
  }

  /**
   * Writes the Job's status through the status subresource and resolves with
   * the Job as stored. Go's `updateJobStatus`.
   */
  async updateJobStatus(job: Job, signal?: AbortSignal): Promise<Job> {
    const body: Job = { ...withKind(job), status: wireStatus(job.status ?? {}) };
    return this.#client.jobs
      .inNamespace(job.metadata?.namespace ?? '')
      .updateStatus(body, signal ? { signal } : {});
  }
  //#endregion sync

  /**
   * The Jobs of the pod's namespace whose (valid) selector matches its
   * labels; none for a pod without labels. More than one is a user error,
   * logged. Go's `getPodJobs` and the lister's `GetPodJobs`.
   */
  getPodJobs(pod: Pod): Job[] {
    const labels = pod.metadata?.labels;
    if (labels === undefined || Object.keys(labels).length === 0) return [];
    const jobs = this.#jobLister
      .byNamespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((job) => {
        try {
          return labelSelectorAsSelector(job.spec?.selector).matches(labels);
        } catch {
          // An invalid selector matches no pod.
          return false;
        }
      });
    if (jobs.length > 1) {
      // Controller references keep this safe, but it is still a mistake.
      this.#logger.error(undefined, 'user error! more than one job is selecting pods with labels', {
        labels,
      });
    }
    return jobs;
  }

  /**
   * The Job a controller reference points at, if it is one, is in the cache
   * under that name, and has that uid. Go's `resolveControllerRef`.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): Job | undefined {
    if (ref.kind !== jobKind.kind) return undefined;
    const job = this.#jobLister.byNamespace(namespace).tryGet(ref.name);
    return job?.metadata?.uid === ref.uid ? job : undefined;
  }

  //#region handlers
  //#region enqueue
  /**
   * Syncs the Job at once: for Job events (creation, deletion, spec change).
   * Go's `enqueueSyncJobImmediately`.
   */
  enqueueSyncJobImmediately(job: Job | DeletedFinalStateUnknown<Job>): void {
    this.#enqueueSyncJobInternal(job, 0);
  }

  /**
   * Syncs the Job after {@link syncJobBatchPeriod}, gathering the pod events
   * and status updates that arrive meanwhile into one sync. Go's
   * `enqueueSyncJobBatched`.
   */
  enqueueSyncJobBatched(job: Job | DeletedFinalStateUnknown<Job>): void {
    this.#enqueueSyncJobInternal(job, syncJobBatchPeriod);
  }

  /**
   * Syncs the Job after `delay` ms (at least {@link syncJobBatchPeriod}):
   * when pod creations wait out the failure backoff. Go's
   * `enqueueSyncJobWithDelay`.
   */
  enqueueSyncJobWithDelay(job: Job, delay: number): void {
    this.#enqueueSyncJobInternal(job, Math.max(delay, syncJobBatchPeriod));
  }

  #enqueueSyncJobInternal(job: Job | DeletedFinalStateUnknown<Job>, delay: number): void {
    const key = deletionHandlingMetaNamespaceKeyFunc(job);
    this.#logger.v(2).info('enqueueing job', { key, delay: `${delay}ms` });
    this.queue.addAfter(key, delay);
  }
  //#endregion enqueue

  /** Queues the pod for the removal of its tracking finalizer. Go's `enqueueOrphanPod`. */
  enqueueOrphanPod(pod: Pod): void {
    this.orphanQueue.add(
      encodeOrphanPodKey({
        kind: 'name',
        namespace: pod.metadata?.namespace ?? '',
        value: pod.metadata?.name ?? '',
      }),
    );
  }

  /**
   * Queues every pod the Job's selector matches for the removal of its
   * tracking finalizer: once the Job is finished or deleted, none should
   * keep it. Go's `enqueueLabelSelector`.
   */
  enqueueLabelSelector(job: Job): void {
    let selector: Selector;
    try {
      selector = labelSelectorAsSelector(job.spec?.selector);
    } catch (err) {
      this.#logger.error(err, 'job has invalid label selector', {
        job: deletionHandlingMetaNamespaceKeyFunc(job),
      });
      return;
    }
    this.orphanQueue.add(
      encodeOrphanPodKey({
        kind: 'selector',
        namespace: job.metadata?.namespace ?? '',
        value: selector.string(),
      }),
    );
  }

  /**
   * A pod appeared. Already being deleted: handled as a deletion (a restart
   * may show it so), never as a creation. Owned by a Job: one expected
   * creation seen, the Job synced (batched). An orphan: its tracking
   * finalizer, if any, queued for removal, and every Job that may adopt it
   * synced. Go's `addPod`.
   */
  addPod(pod: Pod): void {
    recordFinishedPodWithTrackingFinalizer(this.metrics, undefined, pod);
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod, false);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      const job = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (job === undefined) return;
      this.expectations.creationObserved(deletionHandlingMetaNamespaceKeyFunc(job));
      this.enqueueSyncJobBatched(job);
      return;
    }
    if (hasJobTrackingFinalizer(pod)) this.enqueueOrphanPod(pod);
    // No Job waits for an orphan: no expectation changes.
    for (const job of this.getPodJobs(pod)) this.enqueueSyncJobBatched(job);
  }

  /**
   * A pod changed. Resyncs (same resourceVersion) are ignored. A pod being
   * deleted is handled as deleted now, so its replacement need not wait for
   * the grace period. A pod that lost its tracking finalizer is one expected
   * removal seen. A changed controller reference wakes the old Job too; an
   * orphan gets its finalizer queued for removal, and wakes the Jobs that
   * may adopt it when its labels or reference changed. Go's `updatePod`.
   */
  updatePod(oldPod: Pod, curPod: Pod): void {
    recordFinishedPodWithTrackingFinalizer(this.metrics, oldPod, curPod);
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    if (curPod.metadata?.deletionTimestamp) {
      this.deletePod(curPod, false);
      return;
    }
    // Only the current pod is checked: updates in an ownership transfer may
    // collapse into one event, the finalizer added and removed in between.
    const finalizerRemoved = !hasJobTrackingFinalizer(curPod);
    const uid = curPod.metadata?.uid ?? '';
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef !== undefined) {
      const job = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (job !== undefined) {
        if (finalizerRemoved) {
          this.finalizerExpectations.finalizerRemovalObserved(
            deletionHandlingMetaNamespaceKeyFunc(job),
            uid,
          );
        }
        this.enqueueSyncJobBatched(job);
      }
    }
    if (curRef !== undefined) {
      const job = this.resolveControllerRef(curPod.metadata?.namespace ?? '', curRef);
      if (job === undefined) return;
      if (finalizerRemoved) {
        this.finalizerExpectations.finalizerRemovalObserved(
          deletionHandlingMetaNamespaceKeyFunc(job),
          uid,
        );
      }
      this.enqueueSyncJobBatched(job);
      return;
    }
    if (hasJobTrackingFinalizer(curPod)) this.enqueueOrphanPod(curPod);
    const labelChanged = !deepEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    if (labelChanged || refChanged) {
      for (const job of this.getPodJobs(curPod)) this.enqueueSyncJobBatched(job);
    }
  }

  /**
   * A pod is gone (`final`), or being deleted, or a tombstone says so: one
   * expected deletion of its Job seen, and, when it is gone or its finalizer
   * is, one expected finalizer removal; the Job synced (batched). A pod of
   * no Job, or of a finished one, that still has the tracking finalizer is
   * queued for its removal (no sync would remove it). Go's `deletePod`.
   */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>, final: boolean): void {
    if (final && !isDeletedFinalStateUnknown(obj)) {
      recordFinishedPodWithTrackingFinalizer(this.metrics, obj, undefined);
    }
    const pod = this.#fromTombstone(obj, 'pod');
    if (pod === undefined) return;
    const ref = getControllerOf(pod);
    const hasFinalizer = hasJobTrackingFinalizer(pod);
    if (ref === undefined) {
      // The garbage collector may have removed a Job's reference.
      if (hasFinalizer) this.enqueueOrphanPod(pod);
      return;
    }
    const job = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (job === undefined || isJobFinished(job)) {
      if (hasFinalizer) this.enqueueOrphanPod(pod);
      return;
    }
    const jobKey = deletionHandlingMetaNamespaceKeyFunc(job);
    this.expectations.deletionObserved(jobKey);
    if (final || !hasFinalizer) {
      this.finalizerExpectations.finalizerRemovalObserved(jobKey, pod.metadata?.uid ?? '');
    }
    this.enqueueSyncJobBatched(job);
  }

  /**
   * A Job appeared: sync it at once. A Job managed by another controller is
   * counted in `jobs_by_external_controller_total`. Go's `addJob`.
   */
  addJob(job: Job): void {
    this.enqueueSyncJobImmediately(job);
    const controllerName = managedByExternalController(job);
    if (controllerName !== undefined) {
      this.metrics.jobByExternalControllerTotal.withLabelValues(controllerName).inc();
    }
  }

  /**
   * A Job changed. Finished: its pods' tracking finalizers are queued for
   * removal (a backstop), and it is not synced. Otherwise it is synced at
   * once for a spec change (new generation), batched for a status update;
   * and a changed `activeDeadlineSeconds` schedules a sync for the new
   * deadline. Go's `updateJob`.
   */
  updateJob(oldJob: Job, curJob: Job): void {
    const key = deletionHandlingMetaNamespaceKeyFunc(curJob);
    if (isJobFinished(curJob)) {
      this.enqueueLabelSelector(curJob);
      return;
    }
    if (curJob.metadata?.generation === oldJob.metadata?.generation) {
      this.enqueueSyncJobBatched(curJob);
    } else {
      this.enqueueSyncJobImmediately(curJob);
    }
    const startTime = metaTime(curJob.status?.startTime);
    if (startTime === undefined) return;
    const curADS = curJob.spec?.activeDeadlineSeconds;
    if (!isSet(curADS)) return;
    const oldADS = oldJob.spec?.activeDeadlineSeconds;
    if (!isSet(oldADS) || oldADS !== curADS) {
      const passed = this.#clock.since(startTime);
      const total = curADS * 1000;
      // A deadline already passed syncs at once.
      this.queue.addAfter(key, total - passed);
      this.#logger.v(4).info("job's ActiveDeadlineSeconds updated, will rsync", {
        key,
        interval: `${total - passed}ms`,
      });
    }
  }

  /**
   * A Job is gone (or a tombstone says so): sync its key at once (to drop
   * its expectations), forget that it finished and its backoff, and queue
   * its pods' tracking finalizers for removal. Go's `deleteJob`.
   */
  deleteJob(obj: Job | DeletedFinalStateUnknown<Job>): void {
    this.enqueueSyncJobImmediately(obj);
    const job = this.#fromTombstone(obj, 'job');
    if (job === undefined) return;
    this.#finishedJobExpectations.delete(job.metadata?.uid ?? '');
    this.enqueueLabelSelector(job);
    this.podBackoffStore.removeBackoffRecord(deletionHandlingMetaNamespaceKeyFunc(job));
  }
  //#endregion handlers

  /**
   * Runs an event handler, logging what it throws instead of letting it reach
   * the informer: Go's `HandleError`.
   */
  #handle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error(err, 'Failed to handle an informer notification');
    }
  }

  /** The object of a delete notification, or `undefined` (logged) for a tombstone without one. */
  #fromTombstone<T extends Job | Pod>(
    obj: T | DeletedFinalStateUnknown<T>,
    kind: string,
  ): T | undefined {
    if (!isDeletedFinalStateUnknown(obj)) return obj;
    const tombstone: DeletedFinalStateUnknown<T> = obj;
    const inner = tombstone.obj;
    if (inner === undefined || inner === null || typeof inner !== 'object') {
      this.#logger.error(undefined, `tombstone contained object that is not a ${kind}`, {
        key: tombstone.key,
      });
      return undefined;
    }
    return inner;
  }
}
