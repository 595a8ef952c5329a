// Pod readiness and availability: pkg/api/v1/pod/util.go (IsPodReady,
// IsPodReadyConditionTrue, GetPodReadyCondition, IsPodAvailable,
// IsPodTerminal), and metav1.Time as controllers compare it.
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { parseMicroTime } from '@kcm-ts/apimachinery';

/**
 * A `metav1.Time` read from the wire, in ms since the epoch, or `undefined`
 * for Go's zero time (the field is missing or empty). Servers never send a
 * malformed time; one would count as zero here rather than break a sort.
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
 * The pod's `Ready` condition, if it has one (the first, as Go reads it).
 * Go's `GetPodReadyCondition`.
 *
 * @category Pods
 */
export function getPodReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * True when the pod's `Ready` condition is `True`. Go's `IsPodReady`.
 *
 * @category Pods
 */
export function isPodReady(pod: Pod): boolean {
  return getPodReadyCondition(pod)?.status === 'True';
}

/**
 * True when the pod has finished for good: phase `Succeeded` or `Failed`.
 * Go's `IsPodTerminal`.
 *
 * @category Pods
 */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * True when the pod is ready and has been for more than `minReadySeconds`:
 * its Ready condition's `lastTransitionTime` plus `minReadySeconds` is
 * strictly before `now`. With `minReadySeconds` 0 a ready pod is available at
 * once; with more, a ready pod without a transition time never is. Go's
 * `IsPodAvailable`.
 *
 * @param now - the current time, in ms since the epoch
 *
 * @category Pods
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = metaTime(getPodReadyCondition(pod)?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}
