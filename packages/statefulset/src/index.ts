/**
 * kube-controller-manager's StatefulSet controller
 * (`pkg/controller/statefulset`) in TypeScript: {@link StatefulSetController}
 * gives each pod of a StatefulSet a stable identity (`web-0`, `web-1`, ...,
 * hostname and subdomain, `ordinals.start`) and its own
 * PersistentVolumeClaims from the volume claim templates, created before
 * the pod; creates and deletes pods in ordinal order (OrderedReady) or all
 * at once (Parallel); rolls them onto a new revision from the top down to
 * the partition, `maxUnavailable` at a time, or as they are deleted
 * (OnDelete); keeps the revision history as ControllerRevisions; applies
 * `persistentVolumeClaimRetentionPolicy`; and never makes two pods of one
 * identity. It stands on the shared machinery of Go's `pkg/controller`,
 * which is `@kcm-ts/controller`. Names follow Go's, in camelCase.
 *
 * @packageDocumentation
 */

// The controller (stateful_set.go)
export { StatefulSetController, concurrentStatefulSetSyncs } from './stateful-set.js';
export type { StatefulSetControllerClients, StatefulSetControllerOptions } from './stateful-set.js';

// The claims client it writes through (stateful_pod_control.go)
export { claimsClientFor } from './stateful-pod-control.js';
export type { PersistentVolumeClaimsClient } from './stateful-pod-control.js';

// The apps/v1 API's names and the identity of a StatefulSet's pods (stateful_set_utils.go)
export {
  getOrdinal,
  getParentNameAndOrdinal,
  getPersistentVolumeClaimName,
  getPodName,
  getPodRevision,
  podIndexLabel,
  statefulSetKind,
  statefulSetPodNameLabel,
  statefulSetRevisionLabel,
} from './stateful-set-utils.js';
