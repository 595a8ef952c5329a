/**
 * kube-controller-manager's ReplicaSet controller (`pkg/controller/replicaset`)
 * in TypeScript: {@link ReplicaSetController} and the status helpers of
 * `replica_set_utils.go`. It stands on the shared machinery of Go's
 * `pkg/controller`, which is `@kcm-ts/controller`. Names follow Go's, in
 * camelCase.
 *
 * @packageDocumentation
 */

// The ReplicaSet controller (replica_set.go, replica_set_utils.go)
export {
  ReplicaSetController,
  burstReplicas,
  concurrentRSSyncs,
  controllerUIDIndex,
  getPodKeys,
  getPodsRankedByRelatedPodsOnSameNode,
  getPodsToDelete,
  replicaSetKind,
} from './replica-set.js';
export type { ReplicaSetControllerClients, ReplicaSetControllerOptions } from './replica-set.js';
export {
  calculateStatus,
  getCondition,
  newReplicaSetCondition,
  removeCondition,
  replicaSetReplicaFailure,
  setCondition,
  statusUpdateRetries,
  updateReplicaSetStatus,
} from './replica-set-utils.js';
