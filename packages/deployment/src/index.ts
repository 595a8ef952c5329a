/**
 * kube-controller-manager's Deployment controller (`pkg/controller/deployment`)
 * in TypeScript: the {@link DeploymentController} that turns a Deployment
 * into ReplicaSets (rolling update and recreate, rollback, pause and resume,
 * proportional scaling, progress conditions, revision history), and the
 * helpers of `deployment/util/deployment_util.go` it is built from, under
 * Go's names in camelCase. Chapter 6 of the course walks through it.
 *
 * @packageDocumentation
 */

// The controller (deployment_controller.go)
export { DeploymentController, maxRetries } from './deployment-controller.js';
export type { DeploymentControllerOptions } from './deployment-controller.js';
export type { DeploymentControllerClients } from './sync-context.js';

// Legacy rollback (rollback.go)
export { getRollbackTo, setRollbackTo } from './rollback-to.js';
export type { RollbackConfig } from './rollback-to.js';

// Helpers (util/deployment_util.go)
export {
  annotationsToSkip,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  deprecatedRollbackTo,
  desiredReplicasAnnotation,
  equalIgnoreHash,
  failedRSCreateReason,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  foundNewRSReason,
  getActualReplicaCountForReplicaSets,
  getAvailableReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDeploymentsForReplicaSet,
  getDesiredReplicasAnnotation,
  getProportion,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  getReplicaSetFraction,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isRollingUpdate,
  isSaturated,
  lastAppliedConfigAnnotation,
  lastRevision,
  listReplicaSets,
  maxReplicasAnnotation,
  maxRevision,
  maxSurge,
  maxUnavailable,
  minAvailable,
  minimumReplicasAvailable,
  minimumReplicasUnavailable,
  newDeploymentCondition,
  newReplicaSetReason,
  newRSAvailableReason,
  newRSNewReplicas,
  pausedDeployReason,
  recreateDeploymentStrategyType,
  removeDeploymentCondition,
  replicaSetNameFor,
  replicaSetsByRevision,
  replicaSetToDeploymentCondition,
  replicaSetUpdatedReason,
  replicasAnnotationsNeedUpdate,
  resolveFenceposts,
  resumedDeployReason,
  revision,
  revisionAnnotation,
  revisionHistoryAnnotation,
  rollbackDone,
  rollbackRevisionNotFound,
  rollbackTemplateUnchanged,
  rollingUpdateDeploymentStrategyType,
  rsListFromClient,
  setDeploymentAnnotationsTo,
  setDeploymentCondition,
  setDeploymentRevision,
  setFromReplicaSetTemplate,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  timedOutReason,
} from './util/deployment-util.js';
export type { DeploymentConditionType, RsListFunc } from './util/deployment-util.js';
export { getScaledValueFromIntOrPercent } from './util/int-or-string.js';
export type { IntOrString } from './util/int-or-string.js';
