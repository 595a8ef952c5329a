/**
 * kube-controller-manager's ReplicaSet controller (`pkg/controller/replicaset`)
 * in TypeScript: {@link ReplicaSetController} and the status helpers of
 * `replica_set_utils.go`; and its ReplicationController manager
 * (`pkg/controller/replication`): {@link ReplicationManager}, the same
 * controller run on ReplicationControllers through the adapters of
 * `conversion.go`. It stands on the shared machinery of Go's
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
export type {
  ReplicaSetControllerClients,
  ReplicaSetControllerOptions,
  ReplicaSetInformer,
  ReplicaSetLister,
  ReplicaSetSharedInformer,
} from './replica-set.js';
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

// The ReplicationController manager (replication/replication_controller.go, conversion.go)
export {
  ReplicationManager,
  concurrentRCSyncs,
  replicationControllerKind,
  replicationManagerEventSource,
} from './replication/replication-controller.js';
export type {
  ReplicationManagerClients,
  ReplicationManagerOptions,
} from './replication/replication-controller.js';
export {
  conversionClient,
  convertRCtoRS,
  convertRStoRC,
  informerAdapter,
  podControlAdapter,
} from './replication/conversion.js';
