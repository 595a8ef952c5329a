/**
 * kube-controller-manager's shared controller machinery (Go's
 * `pkg/controller`) in TypeScript: what every controller that owns pods or
 * other objects stands on. {@link ControllerExpectations} and
 * {@link UIDTrackingControllerExpectations}, {@link PodControl} and
 * {@link RealPodControl}, the controller reference managers
 * ({@link PodControllerRefManager}, {@link ReplicaSetControllerRefManager}),
 * the pod informer's index by controller uid ({@link filterPodsByOwner}),
 * pod activity and deletion ranking ({@link activePodsWithRanks}),
 * {@link slowStartBatch}, the ReplicaSet sort orders, {@link computeHash},
 * and the ControllerRevision history of DaemonSets and StatefulSets
 * ({@link RealHistory}, {@link newControllerRevision},
 * {@link ControllerRevisionControllerRefManager}). Names follow Go's, in
 * camelCase.
 *
 * @packageDocumentation
 */

// Expectations (controller_utils.go)
export {
  ControlleeExpectations,
  ControllerExpectations,
  UIDTrackingControllerExpectations,
  expectationsTimeout,
} from './expectations.js';
export type {
  ControllerExpectationsInterface,
  ControllerExpectationsOptions,
} from './expectations.js';

// Pod control (controller_utils.go)
export {
  FakePodControl,
  RealControllerRevisionControl,
  RealPodControl,
  RealRSControl,
  failedCreatePodReason,
  failedDeletePodReason,
  getPodFromTemplate,
  namespaceTerminatingCause,
  successfulCreatePodReason,
  successfulDeletePodReason,
} from './pod-control.js';
export type {
  ControllerRevisionControl,
  PodControl,
  RSControl,
  RealPodControlOptions,
} from './pod-control.js';

// Controller references (controller_ref_manager.go)
export {
  BaseControllerRefManager,
  ControllerRevisionControllerRefManager,
  PodControllerRefManager,
  ReplicaSetControllerRefManager,
  recheckDeletionTimestamp,
} from './controller-ref-manager.js';
export type { CanAdoptFunc } from './controller-ref-manager.js';

// The pod informer's index by controller uid (controller_utils.go)
export {
  addPodControllerUIDIndexer,
  filterPodsByOwner,
  orphanPodIndexKey,
  orphanPodIndexKeyForNamespace,
  podControllerUIDIndex,
  podControllerUIDIndexFunc,
} from './pod-index.js';

// Pod activity, readiness and ranking (controller_utils.go, api/v1/pod/util.go)
export {
  countTerminatingPods,
  filterActivePods,
  filterActiveReplicaSets,
  filterClaimedPods,
  filterReplicaSets,
  filterTerminatingPods,
  isPodActive,
  isPodTerminating,
  podKey,
} from './pod-activity.js';
export { getPodReadyCondition, isPodAvailable, isPodReady, isPodTerminal } from './pod-util.js';
export {
  activePods,
  activePodsWithRanks,
  activePodsWithRanksLess,
  getDeletionCostFromPodAnnotations,
  podDeletionCost,
} from './pod-ranking.js';
export type { RankedPod } from './pod-ranking.js';
export {
  replicaSetsByCreationTimestamp,
  replicaSetsBySizeNewer,
  replicaSetsBySizeOlder,
} from './replica-set-sort.js';

// Slow start (replica_set.go, controller_utils.go)
export { slowStartBatch, slowStartInitialBatchSize } from './slow-start.js';
export type { SlowStartResult } from './slow-start.js';

// Pod template hash (controller_utils.go)
export { computeHash, defaultDeploymentUniqueLabelKey } from './hash.js';

// ControllerRevision history (history/controller_history.go)
export {
  controllerRevisionHashLabel,
  controllerRevisionName,
  equalRevision,
  findEqualRevisions,
  hashControllerRevision,
  newControllerRevision,
  sortControllerRevisions,
} from './history/revision.js';
export {
  FakeHistory,
  RealHistory,
  addControllerRevisionControllerIndexer,
  controllerRevisionControllerIndex,
  controllerRevisionControllerIndexFunc,
} from './history/history.js';
export type { CollisionCount, History, RealHistoryOptions } from './history/history.js';
