// Which pods to delete first: pkg/controller/controller_utils.go (ActivePods,
// ActivePodsWithRanks and their Less, afterOrZero, logarithmicRankDiff,
// podReadyTime, maxContainerRestarts, compareMaxContainerRestarts) and
// pkg/apis/core/helper/helpers.go (GetDeletionCostFromPodAnnotations). Both
// orders put the pod a controller should delete first at the front. Feature
// gates as kube-controller-manager ships them: PodDeletionCost (beta, on) and
// LogarithmicScaleDown (GA) are on.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodReady, metaTime } from './pod-util.js';

/**
 * The annotation that ranks a pod for deletion: pods with a lower cost go
 * first; missing or invalid means 0. Go's `PodDeletionCost`.
 *
 * @category Pod ranking
 */
export const podDeletionCost = 'controller.kubernetes.io/pod-deletion-cost';

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

/**
 * The pod deletion cost in `annotations` ({@link podDeletionCost}): 0 when it
 * is missing; throws when it is not a plain int32 (a sign other than `-`, or
 * a leading zero, is refused, as the API server's validation refuses it).
 * Go's `GetDeletionCostFromPodAnnotations`.
 *
 * @category Pod ranking
 */
export function getDeletionCostFromPodAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): number {
  const value = annotations?.[podDeletionCost];
  if (value === undefined) return 0;
  if (!/^(0|-[0-9]+|[1-9][0-9]*)$/.test(value)) {
    throw new Error(`invalid value ${JSON.stringify(value)}`);
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < int32Min || n > int32Max) {
    throw new Error(`invalid value ${JSON.stringify(value)}: out of range for an int32`);
  }
  return n;
}

/** The cost a sort uses: an invalid annotation counts as 0, as in Go. */
function deletionCost(pod: Pod): number {
  try {
    return getDeletionCostFromPodAnnotations(pod.metadata?.annotations);
  } catch {
    return 0;
  }
}

// Pending before Unknown before Running; other phases count as Pending.
const podPhaseToOrdinal: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };
const phaseOrdinal = (pod: Pod): number => podPhaseToOrdinal[pod.status?.phase ?? ''] ?? 0;

/** When the pod became ready, or `undefined` (zero) if it is not ready. Go's `podReadyTime`. */
function podReadyTime(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  const c = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  return metaTime(c?.lastTransitionTime);
}

const creationTime = (pod: Pod): number | undefined => metaTime(pod.metadata?.creationTimestamp);

/** True when t1 is after t2, a zero time counting as after any other. Go's `afterOrZero`. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/**
 * The difference of floor(log2) of the two ages at `now`, ages in
 * nanoseconds as Go measures them; an age of 0 or less is bucket -1.
 * Go's `logarithmicRankDiff`.
 */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const bucket = (t: number): number => {
    const ns = (now - t) * 1e6;
    return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
  };
  return bucket(t1) - bucket(t2);
}

/** The highest restart count of a regular container, then of a sidecar. Go's `maxContainerRestarts`. */
function maxContainerRestarts(pod: Pod): [regular: number, sidecar: number] {
  let regular = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount);
  const sidecars = new Set(
    (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
  let sidecar = 0;
  for (const c of pod.status?.initContainerStatuses ?? []) {
    if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount);
  }
  return [regular, sidecar];
}

/**
 * True when `a` restarted more, false when `b` did, `undefined` when equal:
 * regular containers first, then sidecars. Go's `compareMaxContainerRestarts`.
 */
function compareMaxContainerRestarts(a: Pod, b: Pod): boolean | undefined {
  const [regularA, sidecarA] = maxContainerRestarts(a);
  const [regularB, sidecarB] = maxContainerRestarts(b);
  if (regularA !== regularB) return regularA > regularB;
  if (sidecarA !== sidecarB) return sidecarA > sidecarB;
  return undefined;
}

const isUnassigned = (pod: Pod): boolean => !pod.spec?.nodeName;

/** Go's `ActivePods.Less`: true when `a` should be deleted before `b`. */
function activePodsLess(a: Pod, b: Pod): boolean {
  // 1. Unassigned before assigned.
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  // 2. Pending before Unknown before Running.
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) < phaseOrdinal(b);
  // 3. Not ready before ready.
  const readyA = isPodReady(a);
  if (readyA !== isPodReady(b)) return !readyA;
  // 4. Ready for less time before ready for longer, zero first.
  if (readyA) {
    const t1 = podReadyTime(a);
    const t2 = podReadyTime(b);
    if (t1 !== t2) return afterOrZero(t1, t2);
  }
  // 5. More restarts first.
  const restarts = compareMaxContainerRestarts(a, b);
  if (restarts !== undefined) return restarts;
  // 6. Newer before older, zero first.
  const c1 = creationTime(a);
  const c2 = creationTime(b);
  if (c1 !== c2) return afterOrZero(c1, c2);
  return false;
}

const comparator =
  <T>(less: (a: T, b: T) => boolean) =>
  (a: T, b: T): number =>
    less(a, b) ? -1 : less(b, a) ? 1 : 0;

/**
 * Orders pods for deletion, for `Array.prototype.sort`: the pod to delete
 * first comes first. Unassigned before assigned; Pending before Unknown
 * before Running; not ready before ready; ready for less time before ready
 * for longer; more container restarts before fewer; newer before older (a
 * missing time counts as the newest). Go's `ActivePods` (its `Less`).
 *
 * @example
 * ```ts
 * const victims = filterActivePods(pods).sort(activePods).slice(0, 2);
 * ```
 *
 * @category Pod ranking
 */
export const activePods: (a: Pod, b: Pod) => number = comparator(activePodsLess);

/**
 * A pod and its rank for {@link activePodsWithRanks}: the number of active
 * pods of the same owner family on its node (higher ranks go first).
 *
 * @category Pod ranking
 */
export interface RankedPod {
  /** The pod. */
  readonly pod: Pod;
  /** Its rank. */
  readonly rank: number;
}

/**
 * Go's `ActivePodsWithRanks.Less`: true when `a` should be deleted before
 * `b`. `now` (ms) enables the logarithmic comparison of times; `undefined`
 * compares them directly.
 *
 * @category Pod ranking
 */
export function activePodsWithRanksLess(
  a: RankedPod,
  b: RankedPod,
  now: number | undefined,
): boolean {
  const [p, q] = [a.pod, b.pod];
  // 1. Unassigned before assigned.
  const nodeA = p.spec?.nodeName ?? '';
  const nodeB = q.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (isUnassigned(p) || isUnassigned(q))) return nodeA === '';
  // 2. Pending before Unknown before Running.
  if (phaseOrdinal(p) !== phaseOrdinal(q)) return phaseOrdinal(p) < phaseOrdinal(q);
  // 3. Not ready before ready.
  const readyP = isPodReady(p);
  if (readyP !== isPodReady(q)) return !readyP;
  // 4. Lower deletion cost first.
  const costP = deletionCost(p);
  const costQ = deletionCost(q);
  if (costP !== costQ) return costP < costQ;
  // 5. More colocated pods of the same family first.
  if (a.rank !== b.rank) return a.rank > b.rank;
  // 6. Ready for less time first, compared in log2 buckets of age; equal
  // buckets are ordered by uid, so that equivalent pods are picked at random.
  if (readyP) {
    const t1 = podReadyTime(p);
    const t2 = podReadyTime(q);
    if (t1 !== t2) {
      if (!now || t1 === undefined || t2 === undefined) return afterOrZero(t1, t2);
      const diff = logarithmicRankDiff(t1, t2, now);
      if (diff === 0) return uidOfPod(p) < uidOfPod(q);
      return diff < 0;
    }
  }
  // 7. More restarts first.
  const restarts = compareMaxContainerRestarts(p, q);
  if (restarts !== undefined) return restarts;
  // 8. Newer first, with the same buckets and uid order as 6.
  const c1 = creationTime(p);
  const c2 = creationTime(q);
  if (c1 !== c2) {
    if (!now || c1 === undefined || c2 === undefined) return afterOrZero(c1, c2);
    const diff = logarithmicRankDiff(c1, c2, now);
    if (diff === 0) return uidOfPod(p) < uidOfPod(q);
    return diff < 0;
  }
  return false;
}

const uidOfPod = (pod: Pod): string => pod.metadata?.uid ?? '';

/**
 * Orders ranked pods for deletion, for `Array.prototype.sort`; the pod to
 * delete first comes first. After the rules of {@link activePods} on
 * assignment, phase and readiness: a lower {@link podDeletionCost}, then a
 * higher rank (more pods of the same family on the node), then times
 * compared in logarithmic buckets of their age at `now` (pods of the same
 * bucket ordered by uid, a pseudo-random pick). Go's `ActivePodsWithRanks`.
 *
 * @param now - the reference time in ms; `undefined` or 0 compares times
 *   directly, as Go does with a zero `Now`
 *
 * @example
 * ```ts
 * const ranked = pods.map((pod) => ({ pod, rank: podsOnNode(pod) }));
 * ranked.sort(activePodsWithRanks(clock.now()));
 * ```
 *
 * @category Pod ranking
 */
export function activePodsWithRanks(now?: number): (a: RankedPod, b: RankedPod) => number {
  return comparator((a: RankedPod, b: RankedPod) => activePodsWithRanksLess(a, b, now));
}
