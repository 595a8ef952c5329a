// Which pods and ReplicaSets count: pkg/controller/controller_utils.go
// (IsPodActive, IsPodTerminating, FilterActivePods, FilterTerminatingPods,
// CountTerminatingPods, FilterClaimedPods, FilterActiveReplicaSets,
// FilterReplicaSets, PodKey).
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isControlledBy, type KubeObject, type Selector } from '@kcm-ts/apimachinery';
import { isPodTerminal } from './pod-util.js';

/**
 * True when the pod counts towards its controller's replicas: it has not
 * finished (phase neither `Succeeded` nor `Failed`; an empty phase counts as
 * active) and is not being deleted. Go's `IsPodActive`.
 *
 * @category Pods
 */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/**
 * True when the pod is being deleted but has not finished yet. Go's
 * `IsPodTerminating`.
 *
 * @category Pods
 */
export function isPodTerminating(pod: Pod): boolean {
  return !isPodTerminal(pod) && !!pod.metadata?.deletionTimestamp;
}

/**
 * The pods that are active ({@link isPodActive}), in their order. Go's
 * `FilterActivePods`.
 *
 * @category Pods
 */
export function filterActivePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}

/**
 * The pods that are terminating ({@link isPodTerminating}), in their order.
 * Go's `FilterTerminatingPods`.
 *
 * @category Pods
 */
export function filterTerminatingPods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodTerminating);
}

/**
 * How many of the pods are terminating. Go's `CountTerminatingPods`.
 *
 * @category Pods
 */
export function countTerminatingPods(pods: readonly Pod[]): number {
  return pods.filter(isPodTerminating).length;
}

/**
 * The pods whose controller reference points at `controller` and whose
 * labels `selector` matches. Go's `FilterClaimedPods`.
 *
 * @category Pods
 */
export function filterClaimedPods(
  controller: KubeObject,
  selector: Selector,
  pods: readonly Pod[],
): Pod[] {
  return pods.filter(
    (pod) => isControlledBy(pod, controller) && selector.matches(pod.metadata?.labels),
  );
}

/**
 * The `namespace/name` key of a pod, as expectations track deletions. Go's
 * `PodKey`.
 *
 * @category Pods
 */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/**
 * `spec.replicas` of a ReplicaSet, with the API server's default of 1 when it
 * is missing (objects read from a server always have it).
 */
export function specReplicas(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/**
 * The ReplicaSets `filterFn` accepts, in their order. Go's `FilterReplicaSets`.
 *
 * @category ReplicaSets
 */
export function filterReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
  filterFn: (rs: ReplicaSet | null | undefined) => boolean,
): ReplicaSet[] {
  return replicaSets.filter(filterFn) as ReplicaSet[];
}

/**
 * The ReplicaSets that have, or ought to have, pods: present and with
 * `spec.replicas` above 0. Go's `FilterActiveReplicaSets`.
 *
 * @category ReplicaSets
 */
export function filterActiveReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
): ReplicaSet[] {
  return filterReplicaSets(
    replicaSets,
    (rs) => rs !== null && rs !== undefined && specReplicas(rs) > 0,
  );
}
