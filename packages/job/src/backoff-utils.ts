// The delay before a failed Job pod is replaced:
// pkg/controller/job/backoff_utils.go (backoffRecord, backoffStore with
// updateBackoffRecord, removeBackoffRecord and newBackoffRecord,
// sortByFinishedTime, getFinishedTime, getFinishTimeFromContainers with its
// latestFinishTime (init containers count, for the sidecars),
// getFinishTimeFromPodReadyFalseCondition,
// getFinishTimeFromDeletionTimestamp, getRemainingTime,
// getRemainingTimeForFailuresCount). getRemainingTimePerIndex, which reads
// the per-index failure annotations, lives in indexed-job-utils.ts beside them.
//
// The controller remembers, per Job, how many pods failed since the last
// success and when the last one failed; a new pod waits 10s after one
// failure, 20s after two, doubling up to the cap (see the constants in
// job-controller.ts).
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { parseMicroTime, type PassiveClock } from '@kcm-ts/apimachinery';

/**
 * Go's zero `time.Time` (0001-01-01T00:00:00Z) in ms since the epoch: the
 * time of a pod that reports none.
 *
 * @category Backoff
 */
export const zeroTime = -62_135_596_800_000;

/**
 * The failures of one Job's pods since its last success: Go's
 * `backoffRecord`. Times are ms since the epoch.
 *
 * @category Backoff
 */
export interface BackoffRecord {
  /** The Job's key, `namespace/name`. */
  key: string;
  /** Pods failed since the last pod succeeded. */
  failuresAfterLastSuccess: number;
  /** When the last of them failed; `undefined` when none did. */
  lastFailureTime: number | undefined;
}

/**
 * A wire time in ms, or `undefined` for a missing, empty or malformed one (Go's zero time).
 *
 * @category Backoff
 */
export function metaTime(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  try {
    return parseMicroTime(value);
  } catch {
    return undefined;
  }
}

/**
 * The backoff records of every Job, by key: Go's `backoffStore` (a
 * `cache.Store` keyed by the record's key).
 *
 * @category Backoff
 */
export class BackoffStore {
  readonly #records = new Map<string, BackoffRecord>();

  /** The record of `key`, if any (a copy). */
  getBackoffRecord(key: string): BackoffRecord | undefined {
    const record = this.#records.get(key);
    return record === undefined ? undefined : { ...record };
  }

  /** Stores `record` under its key, replacing the failures and time kept there. Go's `updateBackoffRecord`. */
  updateBackoffRecord(record: BackoffRecord): void {
    this.#records.set(record.key, { ...record });
  }

  /** Forgets the record of `key` (a finished or deleted Job). Go's `removeBackoffRecord`. */
  removeBackoffRecord(key: string): void {
    this.#records.delete(key);
  }

  //#region new-backoff-record
  /**
   * The record of `key` updated with the pods that finished since the last
   * sync (without storing it): a success resets the failures, and only the
   * failures after the last success (by finish time) count, the latest of
   * them giving the last failure time. Go's `newBackoffRecord`.
   */
  newBackoffRecord(
    key: string,
    newSucceededPods: readonly Pod[],
    newFailedPods: readonly Pod[],
  ): BackoffRecord {
    const old = this.#records.get(key);
    const backoff: BackoffRecord = old
      ? { ...old }
      : { key, failuresAfterLastSuccess: 0, lastFailureTime: undefined };
    const succeeded = sortByFinishedTime(newSucceededPods);
    const failed = sortByFinishedTime(newFailedPods);
    if (succeeded.length === 0) {
      if (failed.length === 0) return backoff;
      backoff.failuresAfterLastSuccess += failed.length;
      backoff.lastFailureTime = getFinishedTime(failed[failed.length - 1]!);
      return backoff;
    }
    backoff.failuresAfterLastSuccess = 0;
    backoff.lastFailureTime = undefined;
    if (failed.length === 0) return backoff;
    const lastSuccessTime = getFinishedTime(succeeded[succeeded.length - 1]!);
    for (let i = failed.length - 1; i >= 0; i--) {
      const failedTime = getFinishedTime(failed[i]!);
      if (failedTime <= lastSuccessTime) break;
      backoff.lastFailureTime ??= failedTime;
      backoff.failuresAfterLastSuccess += 1;
    }
    return backoff;
  }
  //#endregion new-backoff-record
}

/** The pods sorted by finish time, earliest first (a new array). Go's `sortByFinishedTime`. */
function sortByFinishedTime(pods: readonly Pod[]): Pod[] {
  return pods
    .map((pod) => ({ pod, at: getFinishedTime(pod) }))
    .sort((a, b) => a.at - b.at)
    .map((x) => x.pod);
}

/**
 * When a pod finished, in ms since the epoch, from the first of:
 *
 * 1. the latest `finishedAt` of its containers (app and init containers:
 *    sidecars stop last), if all of them terminated;
 * 2. the `lastTransitionTime` of a `Ready=False` condition (the kubelet
 *    sets one when the pod turns terminal);
 * 3. its `deletionTimestamp` less its grace period (a deleted pod that never
 *    reached a terminal phase);
 * 4. its `creationTimestamp`.
 *
 * Go's `getFinishedTime`.
 *
 * @category Backoff
 */
export function getFinishedTime(pod: Pod): number {
  return (
    getFinishTimeFromContainers(pod) ??
    getFinishTimeFromPodReadyFalseCondition(pod) ??
    getFinishTimeFromDeletionTimestamp(pod) ??
    metaTime(pod.metadata?.creationTimestamp) ??
    zeroTime
  );
}

/**
 * The latest finish time of the app containers and then the init
 * containers, or `undefined` if one of them has not terminated (or has no
 * finish time). A sidecar (an init container with `restartPolicy: Always`)
 * stops after the app containers, so the init containers count too; the
 * SidecarContainers feature gate, which upstream checks first, is locked
 * on. Go's `getFinishTimeFromContainers`.
 */
function getFinishTimeFromContainers(pod: Pod): number | undefined {
  const finishTime = latestFinishTime(undefined, pod.status?.containerStatuses);
  if (finishTime === null) return undefined;
  return latestFinishTime(finishTime, pod.status?.initContainerStatuses) ?? undefined;
}

/**
 * The later of `prev` and the latest finish time of `statuses`; `null`
 * when one of them has not terminated. Go's `latestFinishTime`.
 */
function latestFinishTime(
  prev: number | undefined,
  statuses: readonly ContainerStatus[] | undefined,
): number | undefined | null {
  let finishTime = prev;
  for (const status of statuses ?? []) {
    const at = metaTime(status.state?.terminated?.finishedAt);
    // Not terminated, or no finish time (Go's zero time counts as none).
    if (at === undefined || at === zeroTime) return null;
    if (finishTime === undefined || finishTime < at) finishTime = at;
  }
  return finishTime;
}

/** The transition time of a `Ready=False` condition, if set. */
function getFinishTimeFromPodReadyFalseCondition(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False') return undefined;
  const at = metaTime(ready.lastTransitionTime);
  return at === zeroTime ? undefined : at;
}

/** The deletion timestamp less the grace period, for a pod being deleted. */
function getFinishTimeFromDeletionTimestamp(pod: Pod): number | undefined {
  const at = metaTime(pod.metadata?.deletionTimestamp);
  if (at === undefined) return undefined;
  return at - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
}

/**
 * How long, in ms, a replacement pod must still wait after the failures of
 * `backoff`. Go's `backoffRecord.getRemainingTime`.
 *
 * @category Backoff
 */
export function getRemainingTime(
  backoff: BackoffRecord,
  clock: PassiveClock,
  defaultBackoff: number,
  maxBackoff: number,
): number {
  return getRemainingTimeForFailuresCount(
    clock,
    defaultBackoff,
    maxBackoff,
    backoff.failuresAfterLastSuccess,
    backoff.lastFailureTime,
  );
}

//#region remaining-time
/**
 * How long, in ms, to wait after `failuresCount` failures, the last at
 * `lastFailureTime`: `defaultBackoff` doubled for each failure after the
 * first, capped at `maxBackoff`, less the time already passed; 0 when there
 * is no failure or the wait is over. Go's `getRemainingTimeForFailuresCount`.
 *
 * @category Backoff
 */
export function getRemainingTimeForFailuresCount(
  clock: PassiveClock,
  defaultBackoff: number,
  maxBackoff: number,
  failuresCount: number,
  lastFailureTime: number | undefined,
): number {
  if (failuresCount === 0) return 0;
  let backoffDuration = defaultBackoff;
  for (let i = 1; i < failuresCount; i++) {
    backoffDuration *= 2;
    if (backoffDuration >= maxBackoff) {
      backoffDuration = maxBackoff;
      break;
    }
  }
  const elapsed = clock.since(lastFailureTime ?? zeroTime);
  if (backoffDuration < elapsed) return 0;
  return backoffDuration - elapsed;
}
//#endregion remaining-time
