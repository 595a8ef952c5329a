// The state of one sync of a Job, and the small helpers of
// pkg/controller/job/job_controller.go that every other file of the
// controller needs: syncJobCtx, uncountedTerminatedPods with
// newUncountedTerminatedPods, isPodFailed, onlyReplaceFailedPods,
// trackTerminatingPods, jobSuspended, newCondition, findConditionByType,
// ensureJobConditionStatus. They sit apart from job-controller.ts so that
// indexed-job-utils.ts and success-policy.ts can use them without an import
// cycle (in Go they are all one package).
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatTime } from '@kcm-ts/apimachinery';
import type { BackoffRecord } from './backoff-utils.js';
import type { OrderedIntervals } from './indexed-job-utils.js';

/**
 * The pod uids listed in a Job's `status.uncountedTerminatedPods`, as sets:
 * pods that finished and whose finalizer the controller is removing, not
 * yet added to `succeeded` or `failed`. Go's `uncountedTerminatedPods`.
 *
 * @category Job status
 */
export class UncountedTerminatedPods {
  /** Uids of succeeded pods not yet counted. */
  readonly succeeded: Set<string>;
  /** Uids of failed pods not yet counted. */
  readonly failed: Set<string>;

  /**
   * From the status field. Go's `newUncountedTerminatedPods`.
   *
   * @param uncounted - `status.uncountedTerminatedPods`
   */
  constructor(uncounted: { succeeded?: readonly string[]; failed?: readonly string[] } = {}) {
    this.succeeded = new Set(uncounted.succeeded ?? []);
    this.failed = new Set(uncounted.failed ?? []);
  }
}

/**
 * What one sync of a Job knows: the Job being written, its pods, the counts
 * so far and the finished condition it is heading for. Go's `syncJobCtx`.
 *
 * @category Job controller
 */
export interface SyncJobCtx {
  /** The Job (a copy of the cached one), whose status the sync writes. */
  job: Job;
  /** Every pod the Job owns, active or not. */
  pods: Pod[];
  /**
   * The condition the Job will finish with (`Complete` or `Failed`, or the
   * interim `SuccessCriteriaMet` or `FailureTarget`), once decided.
   */
  finishedCondition: JobCondition | undefined;
  /** The owned pods that are active (neither terminal nor being deleted). */
  activePods: Pod[];
  /** Succeeded pods (or indexes), counted and not yet counted. */
  succeeded: number;
  /** Failed pods, counted and not yet counted, less those a policy ignores. */
  failed: number;
  /** Indexed Jobs: the succeeded indexes already in the status. */
  prevSucceededIndexes: OrderedIntervals;
  /** Indexed Jobs: every succeeded index, new ones included. */
  succeededIndexes: OrderedIntervals;
  /** Indexed Jobs with `backoffLimitPerIndex`: the failed indexes. */
  failedIndexes: OrderedIntervals | undefined;
  /** The pod failure backoff after this sync. */
  newBackoffRecord: BackoffRecord;
  /** Uids of pods whose finalizer removal is under way. */
  expectedRmFinalizers: ReadonlySet<string> | undefined;
  /** `status.uncountedTerminatedPods` as it was read. */
  uncounted: UncountedTerminatedPods;
  /**
   * Indexed Jobs with `backoffLimitPerIndex`: per index, the failed pod kept
   * (finalizer on) until its replacement exists, so the replacement can take
   * over its failure count.
   */
  podsWithDelayedDeletionPerIndex: Map<number, Pod> | undefined;
  /** Pods being deleted that have not reached a terminal phase. */
  terminating: number | undefined;
  /** Active pods that are ready. */
  ready: number;
}

/**
 * True when `spec.suspend` is set. Go's `jobSuspended` (renamed here: the
 * condition type {@link jobSuspended} has that name).
 *
 * @category Job controller
 */
export function isJobSuspended(job: Job): boolean {
  return job.spec?.suspend === true;
}

/**
 * True when a failed or terminating pod is replaced only once it is
 * terminal: `podReplacementPolicy: Failed`, which a pod failure policy
 * implies. Go's `onlyReplaceFailedPods`.
 *
 * @category Job controller
 */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === 'Failed' || isSet(job.spec?.podFailurePolicy);
}

/**
 * True when the controller counts terminating pods: always, as the
 * JobPodReplacementPolicy and JobManagedBy feature gates are on (they report
 * `status.terminating` and wait for terminating pods before the final
 * condition). Go's `trackTerminatingPods`.
 *
 * @category Job controller
 */
export function trackTerminatingPods(_job: Job): boolean {
  return true;
}

/**
 * True when the pod counts as failed: its phase is `Failed`, or, unless
 * only failed pods are replaced ({@link onlyReplaceFailedPods}), it is
 * being deleted without having succeeded (an orphan or evicted pod may
 * never reach the `Failed` phase). Go's `isPodFailed`.
 *
 * @category Job controller
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

/**
 * A Job condition stamped `now` (ms), both probe and transition time; an
 * empty reason or message is left out, as the wire form omits it. Go's
 * `newCondition`.
 *
 * @category Job status
 */
export function newCondition(
  conditionType: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: number,
): JobCondition {
  const time = formatTime(now);
  return {
    type: conditionType,
    status,
    lastProbeTime: time,
    lastTransitionTime: time,
    ...(reason !== '' && { reason }),
    ...(message !== '' && { message }),
  };
}

/**
 * The first condition of type `conditionType` in `list`, if any. Go's
 * `findConditionByType`.
 *
 * @category Job status
 */
export function findConditionByType(
  list: readonly JobCondition[] | undefined,
  conditionType: string,
): JobCondition | undefined {
  return list?.find((c) => c.type === conditionType);
}

/**
 * Makes `list` hold a condition of `conditionType` with this status, reason
 * and message: a condition of the type that differs in any of them is
 * replaced (stamped `now`); a missing one is appended unless its status is
 * `False` (from nothing to false says nothing). Returns the list (the same
 * array, or a longer copy) and whether it changed. Go's
 * `ensureJobConditionStatus`.
 *
 * @category Job status
 */
export function ensureJobConditionStatus(
  list: JobCondition[] | undefined,
  conditionType: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: number,
): [conditions: JobCondition[], updated: boolean] {
  const conditions = list ?? [];
  const i = conditions.findIndex((c) => c.type === conditionType);
  if (i >= 0) {
    const c = conditions[i]!;
    if (c.status !== status || (c.reason ?? '') !== reason || (c.message ?? '') !== message) {
      conditions[i] = newCondition(conditionType, status, reason, message, now);
      return [conditions, true];
    }
    return [conditions, false];
  }
  if (status !== 'False') {
    return [[...conditions, newCondition(conditionType, status, reason, message, now)], true];
  }
  return [conditions, false];
}

/**
 * True for a value that is neither `undefined` nor `null` (Go's non-nil pointer).
 *
 * @category Job status
 */
export function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
