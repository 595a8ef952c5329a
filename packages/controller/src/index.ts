/**
 * kube-controller-manager's shared controller machinery (Go's
 * `pkg/controller`) in TypeScript: what every controller that owns pods or
 * other objects stands on. {@link ControllerExpectations} and
 * {@link UIDTrackingControllerExpectations}, {@link PodControl} and
 * {@link RealPodControl}, the controller reference managers
 * ({@link PodControllerRefManager}, {@link ReplicaSetControllerRefManager}),
 * the pod informer's index by controller uid ({@link filterPodsByOwner}),
 * pod activity and deletion ranking ({@link activePodsWithRanks}),
 * {@link slowStartBatch}, the ReplicaSet sort orders and
 * {@link computeHash}. Names follow Go's, in camelCase.
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
  RealPodControl,
  RealRSControl,
  failedCreatePodReason,
  failedDeletePodReason,
  getPodFromTemplate,
  namespaceTerminatingCause,
  successfulCreatePodReason,
  successfulDeletePodReason,
} from './pod-control.js';
export type { PodControl, RSControl, RealPodControlOptions } from './pod-control.js';

// Controller references (controller_ref_manager.go)
export {
  BaseControllerRefManager,
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
