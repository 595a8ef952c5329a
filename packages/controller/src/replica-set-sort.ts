// ReplicaSet orders for Array.prototype.sort: pkg/controller/controller_utils.go
// (ReplicaSetsByCreationTimestamp, ReplicaSetsBySizeOlder,
// ReplicaSetsBySizeNewer), used by the Deployment controller to pick which
// ReplicaSets to scale.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { metaTime } from './pod-util.js';
import { specReplicas } from './pod-activity.js';

// Go's zero time sorts before every other time.
const created = (rs: ReplicaSet): number =>
  metaTime(rs.metadata?.creationTimestamp) ?? Number.NEGATIVE_INFINITY;
const nameOf = (rs: ReplicaSet): string => rs.metadata?.name ?? '';

/** Go's `ReplicaSetsByCreationTimestamp.Less`. */
function byCreationLess(a: ReplicaSet, b: ReplicaSet): boolean {
  const ta = created(a);
  const tb = created(b);
  if (ta === tb) return nameOf(a) < nameOf(b);
  return ta < tb;
}

const toComparator =
  (less: (a: ReplicaSet, b: ReplicaSet) => boolean) =>
  (a: ReplicaSet, b: ReplicaSet): number =>
    less(a, b) ? -1 : less(b, a) ? 1 : 0;

/**
 * Older ReplicaSets first; equal creation times by name. Go's
 * `ReplicaSetsByCreationTimestamp`.
 *
 * @example
 * ```ts
 * const oldestFirst = [...replicaSets].sort(replicaSetsByCreationTimestamp);
 * ```
 *
 * @category ReplicaSets
 */
export const replicaSetsByCreationTimestamp: (a: ReplicaSet, b: ReplicaSet) => number =
  toComparator(byCreationLess);

/**
 * Larger `spec.replicas` first; equal sizes older first (as
 * {@link replicaSetsByCreationTimestamp}). Go's `ReplicaSetsBySizeOlder`.
 *
 * @category ReplicaSets
 */
export const replicaSetsBySizeOlder: (a: ReplicaSet, b: ReplicaSet) => number = toComparator(
  (a, b) => {
    if (specReplicas(a) === specReplicas(b)) return byCreationLess(a, b);
    return specReplicas(a) > specReplicas(b);
  },
);

/**
 * Larger `spec.replicas` first; equal sizes newer first (the reverse of
 * {@link replicaSetsByCreationTimestamp}, so equal times go by name,
 * descending). Go's `ReplicaSetsBySizeNewer`.
 *
 * @category ReplicaSets
 */
export const replicaSetsBySizeNewer: (a: ReplicaSet, b: ReplicaSet) => number = toComparator(
  (a, b) => {
    if (specReplicas(a) === specReplicas(b)) return byCreationLess(b, a);
    return specReplicas(a) > specReplicas(b);
  },
);
