// Indexed Jobs: pkg/controller/job/indexed_job_utils.go (isIndexedJob,
// hasBackoffLimitPerIndex, orderedIntervals with withOrderedIndexes, merge,
// total, String and has; calculateSucceededIndexes, calculateFailedIndexes,
// isIndexFailed, parseIndexesFromString, firstPendingIndexes, getIndexes,
// appendDuplicatedIndexPodsForRemoval,
// appendPodsWithSameIndexForRemovalAndRemaining,
// getPodsWithDelayedDeletionPerIndex, addIndexFailureCountAnnotation,
// getNewIndexFailureCounts, getCompletionIndex, getIndexFailureCount,
// getIndexAbsoluteFailureCount, parseIndexFailureCountAnnotation,
// parseIndexFailureIgnoreCountAnnotation, parseInt32,
// addCompletionIndexEnvVariables, addCompletionIndexEnvVariable,
// addCompletionIndexAnnotation, addCompletionIndexLabel,
// podGenerateNameWithIndex, byCompletionIndex, completionModeStr), with
// backoff_utils.go's getRemainingTimePerIndex and job_controller.go's
// getValidPodsWithFilter, which read the same per-pod annotations (kept
// here so that the files form no import cycle).
//
// Each pod of an Indexed Job carries its completion index, 0 to
// completions-1. The succeeded (and failed) indexes are kept in the status
// compressed, as "1,3-5,7".
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Container, Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { noopLogger, type Logger, type PassiveClock } from '@kcm-ts/apimachinery';
import { activePods, filterTerminatingPods } from '@kcm-ts/controller';
import { getFinishedTime, getRemainingTimeForFailuresCount } from './backoff-utils.js';
import { matchPodFailurePolicy, podFailurePolicyActionFailIndex } from './pod-failure-policy.js';
import { isPodFailed, isSet, onlyReplaceFailedPods, type SyncJobCtx } from './sync-job-ctx.js';
import { hasJobTrackingFinalizer } from './tracking-utils.js';
import {
  jobCompletionIndexAnnotation,
  jobIndexFailureCountAnnotation,
  jobIndexIgnoredFailureCountAnnotation,
} from './types.js';

/**
 * The environment variable every container of an Indexed Job's pods gets,
 * holding the pod's completion index. Go's `completionIndexEnvName`.
 *
 * @category Indexed Jobs
 */
export const completionIndexEnvName = 'JOB_COMPLETION_INDEX';

/**
 * The index of a pod without a valid completion index. Go's
 * `unknownCompletionIndex`.
 *
 * @category Indexed Jobs
 */
export const unknownCompletionIndex = -1;

/**
 * The longest `generateName` the API server keeps whole (63 less the 5
 * random characters it appends). Go's `names.MaxGeneratedNameLength`.
 *
 * @category Indexed Jobs
 */
export const maxGeneratedNameLength = 58;

const maxInt32 = 2 ** 31 - 1;

/**
 * True for a Job with `completionMode: Indexed`. Go's `isIndexedJob`.
 *
 * @category Indexed Jobs
 */
export function isIndexedJob(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

/**
 * True for a Job with `backoffLimitPerIndex` (the JobBackoffLimitPerIndex
 * feature gate is on). Go's `hasBackoffLimitPerIndex`.
 *
 * @category Indexed Jobs
 */
export function hasBackoffLimitPerIndex(job: Job): boolean {
  return isSet(job.spec?.backoffLimitPerIndex);
}

/**
 * `spec.completions` of an Indexed Job (validation requires it; 0 when missing).
 *
 * @category Indexed Jobs
 */
export function completionsOf(job: Job): number {
  return job.spec?.completions ?? 0;
}

/**
 * A run of indexes, `first` to `last` inclusive. Go's `interval`.
 *
 * @category Indexed Jobs
 */
export interface Interval {
  /** The first index. */
  readonly first: number;
  /** The last index (≥ first). */
  readonly last: number;
}

/**
 * A set of indexes as sorted, disjoint, non-adjacent intervals: how the
 * status keeps completed and failed indexes. Go's `orderedIntervals`, whose
 * methods become these. Immutable.
 *
 * @example
 * ```ts
 * const done = new OrderedIntervals([{ first: 0, last: 2 }]).withOrderedIndexes([3, 5]);
 * done.toString(); // '0-3,5'
 * done.total(); // 5
 * done.has(4); // false
 * ```
 *
 * @category Indexed Jobs
 */
export class OrderedIntervals {
  /** The intervals, in increasing order. */
  readonly intervals: readonly Interval[];

  /** @param intervals - sorted, disjoint intervals (not checked) */
  constructor(intervals: readonly Interval[] = []) {
    this.intervals = intervals;
  }

  /**
   * These intervals with the indexes of `newIndexes` (in increasing order)
   * added. Go's `withOrderedIndexes`.
   */
  withOrderedIndexes(newIndexes: readonly number[]): OrderedIntervals {
    return this.merge(new OrderedIntervals(newIndexes.map((ix) => ({ first: ix, last: ix }))));
  }

  /** The union of these intervals and `other`'s, adjacent runs joined. Go's `merge`. */
  merge(other: OrderedIntervals): OrderedIntervals {
    const result: Interval[] = [];
    const add = (iv: Interval) => {
      const last = result[result.length - 1];
      if (last === undefined || iv.first > last.last + 1) result.push(iv);
      else if (last.last < iv.last)
        result[result.length - 1] = { first: last.first, last: iv.last };
    };
    const a = this.intervals;
    const b = other.intervals;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i]!.first < b[j]!.first) add(a[i++]!);
      else add(b[j++]!);
    }
    while (i < a.length) add(a[i++]!);
    while (j < b.length) add(b[j++]!);
    return new OrderedIntervals(result);
  }

  /** The number of indexes. Go's `total`. */
  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  /** True when `ix` is one of the indexes. Go's `has`. */
  has(ix: number): boolean {
    let lo = 0;
    let hi = this.intervals.length;
    // The first interval ending at or after ix.
    while (hi > lo) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.intervals[mid]!.last >= ix) hi = mid;
      else lo = mid + 1;
    }
    return hi < this.intervals.length && this.intervals[hi]!.first <= ix;
  }

  //#region intervals-string
  /**
   * The status form: single indexes and pairs listed with commas, runs of
   * three or more as `first-last`, such as `1,3-5,7`. Go's `String`.
   */
  toString(): string {
    return this.intervals
      .map((iv) => {
        if (iv.last === iv.first) return String(iv.first);
        return `${iv.first}${iv.last === iv.first + 1 ? ',' : '-'}${iv.last}`;
      })
      .join(',');
  }
  //#endregion intervals-string
}

/** Go's strconv.Atoi for the values we read: an optionally signed decimal integer. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Parses the status form of a set of indexes (`0-2,5`), keeping only those
 * below `completions`: an interval crossing it is cut, and parsing stops at
 * the first one starting at or beyond it. Malformed intervals are logged
 * and skipped. Go's `parseIndexesFromString`.
 *
 * @category Indexed Jobs
 */
export function parseIndexesFromString(
  indexesStr: string,
  completions: number,
  logger: Logger = noopLogger,
): OrderedIntervals {
  const result: Interval[] = [];
  if (indexesStr === '') return new OrderedIntervals(result);
  for (const intervalStr of indexesStr.split(',')) {
    const limits = intervalStr.split('-');
    const first = atoi(limits[0]!);
    if (first === undefined) {
      logger.info('Corrupted indexes interval, ignoring', { interval: intervalStr });
      continue;
    }
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const parsed = atoi(limits[1]!);
      if (parsed === undefined) {
        logger.info('Corrupted indexes interval, ignoring', { interval: intervalStr });
        continue;
      }
      last = Math.min(parsed, completions - 1);
    }
    const prev = result[result.length - 1];
    if (prev !== undefined && prev.last === first - 1) {
      result[result.length - 1] = { first: prev.first, last };
    } else {
      result.push({ first, last });
    }
  }
  return new OrderedIntervals(result);
}

/**
 * The succeeded indexes before and after this sync: those of
 * `status.completedIndexes` (within `completions`), and those plus the
 * indexes of succeeded pods that still carry the tracking finalizer (not
 * counted yet). Go's `calculateSucceededIndexes`.
 *
 * @category Indexed Jobs
 */
export function calculateSucceededIndexes(
  job: Job,
  pods: readonly Pod[],
  logger: Logger = noopLogger,
): [prev: OrderedIntervals, current: OrderedIntervals] {
  const completions = completionsOf(job);
  const prev = parseIndexesFromString(job.status?.completedIndexes ?? '', completions, logger);
  const newSucceeded = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (
      p.status?.phase === 'Succeeded' &&
      ix !== unknownCompletionIndex &&
      ix < completions &&
      hasJobTrackingFinalizer(p)
    ) {
      newSucceeded.add(ix);
    }
  }
  return [prev, prev.withOrderedIndexes([...newSucceeded].sort((a, b) => a - b))];
}

/**
 * The failed indexes: those of `status.failedIndexes` plus the indexes of
 * pods not yet counted that failed them ({@link isIndexFailed}). Go's
 * `calculateFailedIndexes`.
 *
 * @category Indexed Jobs
 */
export function calculateFailedIndexes(
  job: Job,
  pods: readonly Pod[],
  logger: Logger = noopLogger,
): OrderedIntervals {
  const completions = completionsOf(job);
  const failedIndexes = job.status?.failedIndexes;
  const prev = isSet(failedIndexes)
    ? parseIndexesFromString(failedIndexes, completions, logger)
    : new OrderedIntervals();
  const newFailed = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (
      ix !== unknownCompletionIndex &&
      ix < completions &&
      hasJobTrackingFinalizer(p) &&
      isIndexFailed(job, p, logger)
    ) {
      newFailed.add(ix);
    }
  }
  return prev.withOrderedIndexes([...newFailed].sort((a, b) => a - b));
}

/**
 * True when the pod's failure fails its index: a `FailIndex` rule matched
 * it, or it failed (and counts) with its index's failure count already at
 * `backoffLimitPerIndex`. Go's `isIndexFailed`.
 *
 * @category Indexed Jobs
 */
export function isIndexFailed(job: Job, pod: Pod, logger: Logger = noopLogger): boolean {
  let counted = false;
  if (isPodFailed(pod, job)) {
    if (isSet(job.spec?.podFailurePolicy)) {
      const [, countFailed, action] = matchPodFailurePolicy(job.spec.podFailurePolicy, pod);
      if (action === podFailurePolicyActionFailIndex) return true;
      counted = countFailed;
    } else {
      counted = true;
    }
  }
  return counted && getIndexFailureCount(pod, logger) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

/**
 * The first `count` indexes below `completions` that no active pod holds and
 * that have neither succeeded nor failed; under `podReplacementPolicy:
 * Failed`, indexes of terminating pods are taken too. Go's
 * `firstPendingIndexes`.
 *
 * @category Indexed Jobs
 */
export function firstPendingIndexes(
  jobCtx: Pick<SyncJobCtx, 'job' | 'pods' | 'activePods' | 'succeededIndexes' | 'failedIndexes'>,
  count: number,
  completions: number,
): number[] {
  if (count === 0) return [];
  const result: number[] = [];
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);
  let nonPending = jobCtx.succeededIndexes.withOrderedIndexes(
    sorted(getIndexes(jobCtx.activePods)),
  );
  if (onlyReplaceFailedPods(jobCtx.job)) {
    const terminating = getIndexes(filterTerminatingPods(jobCtx.pods));
    nonPending = nonPending.withOrderedIndexes(sorted(terminating));
  }
  if (jobCtx.failedIndexes !== undefined) nonPending = nonPending.merge(jobCtx.failedIndexes);
  let candidate = 0;
  for (const iv of nonPending.intervals) {
    for (; candidate < completions && result.length < count && candidate < iv.first; candidate++) {
      result.push(candidate);
    }
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && result.length < count; candidate++) result.push(candidate);
  return result;
}

/**
 * The valid completion indexes of `pods`. Go's `getIndexes`.
 *
 * @category Indexed Jobs
 */
export function getIndexes(pods: readonly Pod[]): Set<number> {
  const result = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (ix !== unknownCompletionIndex) result.add(ix);
  }
  return result;
}

/**
 * Splits active `pods` into those to remove and those to keep: for every
 * index held by n pods, n-1 of them (the ones {@link "@kcm-ts/controller"!activePods}
 * sorts first) are removed, and so are pods without a valid index or with
 * an index at or beyond `completions`. Appends to copies of `rm` and `left`
 * and returns them. Go's `appendDuplicatedIndexPodsForRemoval`.
 *
 * @category Indexed Jobs
 */
export function appendDuplicatedIndexPodsForRemoval(
  rm: readonly Pod[],
  left: readonly Pod[],
  pods: readonly Pod[],
  completions: number,
): [rm: Pod[], left: Pod[]] {
  let toRemove = [...rm];
  let toKeep = [...left];
  const sorted = [...pods].sort(byCompletionIndex);
  let lastIndex = unknownCompletionIndex;
  let firstRepeatPos = 0;
  let countLooped = 0;
  for (const [i, p] of sorted.entries()) {
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (ix >= completions) {
      toRemove.push(...sorted.slice(i));
      break;
    }
    if (ix !== lastIndex) {
      [toRemove, toKeep] = appendPodsWithSameIndexForRemovalAndRemaining(
        toRemove,
        toKeep,
        sorted.slice(firstRepeatPos, i),
        lastIndex,
      );
      firstRepeatPos = i;
      lastIndex = ix;
    }
    countLooped++;
  }
  return appendPodsWithSameIndexForRemovalAndRemaining(
    toRemove,
    toKeep,
    sorted.slice(firstRepeatPos, countLooped),
    lastIndex,
  );
}

/**
 * Pods sharing index `ix`: all removed if the index is unknown, else all but
 * the last in {@link "@kcm-ts/controller"!activePods} order. Go's
 * `appendPodsWithSameIndexForRemovalAndRemaining`.
 */
function appendPodsWithSameIndexForRemovalAndRemaining(
  rm: Pod[],
  left: Pod[],
  pods: readonly Pod[],
  ix: number,
): [Pod[], Pod[]] {
  if (ix === unknownCompletionIndex) return [[...rm, ...pods], left];
  if (pods.length === 1) return [rm, [...left, pods[0]!]];
  const sorted = [...pods].sort(activePods);
  return [
    [...rm, ...sorted.slice(0, -1)],
    [...left, ...sorted.slice(-1)],
  ];
}

/**
 * The pods of `jobCtx.pods` still to be counted (tracking finalizer on, uid
 * neither in `uncounted` nor expected to lose its finalizer) that `filter`
 * accepts; for an Indexed Job only those with a valid index below
 * `completions`. Go's `getValidPodsWithFilter` (job_controller.go).
 *
 * @category Job controller
 */
export function getValidPodsWithFilter(
  jobCtx: Pick<SyncJobCtx, 'job' | 'pods' | 'expectedRmFinalizers'>,
  uncounted: ReadonlySet<string> | undefined,
  filter: (pod: Pod) => boolean,
): Pod[] {
  const result: Pod[] = [];
  const indexed = isIndexedJob(jobCtx.job);
  const completions = completionsOf(jobCtx.job);
  for (const p of jobCtx.pods) {
    const uid = p.metadata?.uid ?? '';
    // Without the finalizer, the pod is in the uncounted set or already counted.
    if (
      !hasJobTrackingFinalizer(p) ||
      uncounted?.has(uid) === true ||
      jobCtx.expectedRmFinalizers?.has(uid) === true
    ) {
      continue;
    }
    if (indexed) {
      const ix = getCompletionIndex(p.metadata?.annotations);
      if (ix === unknownCompletionIndex || ix >= completions) continue;
    }
    if (filter(p)) result.push(p);
  }
  return result;
}

/**
 * Per index, the failed pod whose deletion waits for its replacement, so
 * that the replacement can carry on its failure count: the failed pod
 * (still to be counted) with the highest absolute failure count, the latest
 * to finish among equals, of every index that has no active pod and has
 * neither succeeded nor failed. Go's `getPodsWithDelayedDeletionPerIndex`.
 *
 * @category Indexed Jobs
 */
export function getPodsWithDelayedDeletionPerIndex(
  jobCtx: Pick<
    SyncJobCtx,
    'job' | 'pods' | 'expectedRmFinalizers' | 'activePods' | 'succeededIndexes' | 'failedIndexes'
  >,
  logger: Logger = noopLogger,
): Map<number, Pod> {
  // A failed pod of an active index can go: its replacement already carries the count.
  const activeIndexes = getIndexes(jobCtx.activePods);
  const completions = completionsOf(jobCtx.job);
  const result = new Map<number, Pod>();
  getValidPodsWithFilter(jobCtx, undefined, (p) => {
    if (!isPodFailed(p, jobCtx.job)) return false;
    const ix = getCompletionIndex(p.metadata?.annotations);
    if (ix === unknownCompletionIndex || ix >= completions) return false;
    if (
      jobCtx.succeededIndexes.has(ix) ||
      jobCtx.failedIndexes?.has(ix) === true ||
      activeIndexes.has(ix)
    ) {
      return false;
    }
    const kept = result.get(ix);
    if (
      kept === undefined ||
      (getIndexAbsoluteFailureCount(kept, logger) <= getIndexAbsoluteFailureCount(p, logger) &&
        getFinishedTime(p) >= getFinishedTime(kept))
    ) {
      result.set(ix, p);
    }
    return false;
  });
  return result;
}

/**
 * Sets the failure count annotations of a pod about to replace
 * `podBeingReplaced` in its index (see {@link getNewIndexFailureCounts});
 * the ignored count only when not zero. Go's `addIndexFailureCountAnnotation`.
 *
 * @category Indexed Jobs
 */
export function addIndexFailureCountAnnotation(
  template: PodTemplateSpec,
  job: Job,
  podBeingReplaced: Pod | undefined,
  logger: Logger = noopLogger,
): void {
  const [failures, ignored] = getNewIndexFailureCounts(job, podBeingReplaced, logger);
  const meta = (template.metadata ??= {});
  const annotations = (meta.annotations ??= {});
  annotations[jobIndexFailureCountAnnotation] = String(failures);
  if (ignored > 0) annotations[jobIndexIgnoredFailureCountAnnotation] = String(ignored);
}

/**
 * The failure counts a replacement pod starts with: those of the pod it
 * replaces plus that pod's own failure (counted, or ignored by an `Ignore`
 * rule); zeros for the first pod of an index. Go's `getNewIndexFailureCounts`.
 *
 * @category Indexed Jobs
 */
export function getNewIndexFailureCounts(
  job: Job,
  podBeingReplaced: Pod | undefined,
  logger: Logger = noopLogger,
): [failureCount: number, ignoredFailureCount: number] {
  if (podBeingReplaced === undefined) return [0, 0];
  let failures = parseIndexFailureCountAnnotation(podBeingReplaced, logger);
  let ignored = parseIndexFailureIgnoreCountAnnotation(podBeingReplaced, logger);
  if (isSet(job.spec?.podFailurePolicy)) {
    const [, countFailed] = matchPodFailurePolicy(job.spec.podFailurePolicy, podBeingReplaced);
    if (countFailed) failures++;
    else ignored++;
  } else {
    failures++;
  }
  return [failures, ignored];
}

/**
 * The completion index in the annotations, or `unknownCompletionIndex` (-1)
 * when it is missing, not an integer or negative. Go's `getCompletionIndex`.
 *
 * @category Indexed Jobs
 */
export function getCompletionIndex(
  annotations: Readonly<Record<string, string>> | undefined,
): number {
  const value = annotations?.[jobCompletionIndexAnnotation];
  if (value === undefined) return unknownCompletionIndex;
  const ix = atoi(value);
  if (ix === undefined || ix < 0) return unknownCompletionIndex;
  return ix;
}

/**
 * The counted failures of the pod's index before it (its
 * `job-index-failure-count` annotation); 0 when missing or invalid. Go's
 * `getIndexFailureCount`.
 *
 * @category Indexed Jobs
 */
export function getIndexFailureCount(pod: Pod, logger: Logger = noopLogger): number {
  return parseIndexFailureCountAnnotation(pod, logger);
}

/**
 * All failures of the pod's index before it, counted and ignored. Go's
 * `getIndexAbsoluteFailureCount`.
 *
 * @category Indexed Jobs
 */
export function getIndexAbsoluteFailureCount(pod: Pod, logger: Logger = noopLogger): number {
  return (
    parseIndexFailureCountAnnotation(pod, logger) +
    parseIndexFailureIgnoreCountAnnotation(pod, logger)
  );
}

function parseIndexFailureCountAnnotation(pod: Pod, logger: Logger): number {
  const value = pod.metadata?.annotations?.[jobIndexFailureCountAnnotation];
  if (value !== undefined) return parseInt32(value, logger);
  logger.v(3).info('There is no expected annotation', {
    annotationKey: jobIndexFailureCountAnnotation,
    pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
    podUID: pod.metadata?.uid,
  });
  return 0;
}

function parseIndexFailureIgnoreCountAnnotation(pod: Pod, logger: Logger): number {
  const value = pod.metadata?.annotations?.[jobIndexIgnoredFailureCountAnnotation];
  return value === undefined ? 0 : parseInt32(value, logger);
}

/** A non-negative int32 from the string, else 0 (logged). Go's `parseInt32`. */
function parseInt32(value: string, logger: Logger): number {
  const n = atoi(value);
  if (n === undefined) {
    logger.error(
      new Error(`invalid integer ${JSON.stringify(value)}`),
      'Failed to parse the value',
      {
        value,
      },
    );
    return 0;
  }
  if (n < 0 || n > maxInt32) {
    logger.info('The value is invalid', { value: n });
    return 0;
  }
  return n;
}

/**
 * How long, in ms, the replacement of `lastFailedPod` in its index must
 * still wait: the backoff after its absolute failure count plus its own
 * failure, from its finish time; 0 without a failed pod. Go's
 * `getRemainingTimePerIndex` (backoff_utils.go).
 *
 * @category Backoff
 */
export function getRemainingTimePerIndex(
  clock: PassiveClock,
  defaultBackoff: number,
  maxBackoff: number,
  lastFailedPod: Pod | undefined,
  logger: Logger = noopLogger,
): number {
  if (lastFailedPod === undefined) return 0;
  const failureCount = getIndexAbsoluteFailureCount(lastFailedPod, logger) + 1;
  const lastFailureTime = getFinishedTime(lastFailedPod);
  return getRemainingTimeForFailuresCount(
    clock,
    defaultBackoff,
    maxBackoff,
    failureCount,
    lastFailureTime,
  );
}

/**
 * Gives every container and init container of the template the
 * {@link completionIndexEnvName} variable (unless it has one), read from
 * the pod's completion index label. Go's `addCompletionIndexEnvVariables`.
 *
 * @category Indexed Jobs
 */
export function addCompletionIndexEnvVariables(template: PodTemplateSpec): void {
  for (const c of template.spec?.initContainers ?? []) addCompletionIndexEnvVariable(c);
  for (const c of template.spec?.containers ?? []) addCompletionIndexEnvVariable(c);
}

/**
 * Adds the {@link completionIndexEnvName} variable to one container, read
 * through the downward API from the completion index label (the PodIndexLabel
 * feature gate is on). Go's `addCompletionIndexEnvVariable`.
 */
function addCompletionIndexEnvVariable(container: Container): void {
  if ((container.env ?? []).some((v) => v.name === completionIndexEnvName)) return;
  container.env = [
    ...(container.env ?? []),
    {
      name: completionIndexEnvName,
      valueFrom: {
        fieldRef: { fieldPath: `metadata.labels['${jobCompletionIndexAnnotation}']` },
      },
    },
  ];
}

/**
 * Sets the completion index annotation of the template. Go's
 * `addCompletionIndexAnnotation`.
 *
 * @category Indexed Jobs
 */
export function addCompletionIndexAnnotation(template: PodTemplateSpec, index: number): void {
  const meta = (template.metadata ??= {});
  (meta.annotations ??= {})[jobCompletionIndexAnnotation] = String(index);
}

/**
 * Sets the completion index label of the template (named like the
 * annotation). Go's `addCompletionIndexLabel`.
 *
 * @category Indexed Jobs
 */
export function addCompletionIndexLabel(template: PodTemplateSpec, index: number): void {
  const meta = (template.metadata ??= {});
  (meta.labels ??= {})[jobCompletionIndexAnnotation] = String(index);
}

/**
 * The `generateName` of the pods of an index: `<job>-<index>-`, the Job's
 * name cut so that it stays within {@link maxGeneratedNameLength}. Go's
 * `podGenerateNameWithIndex`.
 *
 * @category Indexed Jobs
 */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const appendIndex = `-${index}-`;
  const prefix = jobName + appendIndex;
  if (prefix.length <= maxGeneratedNameLength) return prefix;
  return prefix.slice(0, maxGeneratedNameLength - appendIndex.length) + appendIndex;
}

/**
 * Orders pods by completion index, those without one first. Go's
 * `byCompletionIndex`.
 *
 * @category Indexed Jobs
 */
export function byCompletionIndex(a: Pod, b: Pod): number {
  return getCompletionIndex(a.metadata?.annotations) - getCompletionIndex(b.metadata?.annotations);
}

/**
 * The completion mode, `NonIndexed` when unset: a metric label. Go's
 * `completionModeStr`.
 *
 * @category Indexed Jobs
 */
export function completionModeStr(job: Job): string {
  return job.spec?.completionMode ?? 'NonIndexed';
}
