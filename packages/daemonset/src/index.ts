/**
 * kube-controller-manager's DaemonSet controller (`pkg/controller/daemon`)
 * in TypeScript: {@link DaemonSetsController} runs one pod of each
 * DaemonSet on every node its template fits, deciding as upstream does
 * from the node selector, required node affinity and taints with the
 * tolerations every daemon pod gets ({@link nodeShouldRunDaemonPod}); pins
 * each pod to its node through required node affinity; replaces failed
 * pods with a per-node backoff; rolls template changes out with
 * `RollingUpdate` (`maxUnavailable`, `maxSurge`, `minReadySeconds`) or
 * `OnDelete`; and keeps each template as a ControllerRevision so that
 * `kubectl rollout undo daemonset` works. It stands on the shared
 * machinery of Go's `pkg/controller`, which is `@kcm-ts/controller`. Names
 * follow Go's, in camelCase.
 *
 * @packageDocumentation
 */

// The controller (daemon_controller.go)
export {
  DaemonSetsController,
  backoffGCInterval,
  burstReplicas,
  concurrentDaemonSetSyncs,
  failedPodsBackoffInitial,
  failedPodsBackoffMax,
  newPod,
  nodeShouldRunDaemonPod,
  predicates,
  statusUpdateRetries,
} from './daemon-controller.js';
export type {
  DaemonSetsControllerClients,
  DaemonSetsControllerOptions,
  PodsOnNode,
  PredicatesResult,
} from './daemon-controller.js';
export { Backoff } from './backoff.js';

// Names it writes (daemon_controller.go)
export {
  daemonSetControllerName,
  daemonSetKind,
  failedDaemonPodReason,
  failedPlacementReason,
  selectingAllReason,
  succeededDaemonPodReason,
} from './types.js';

// Revision history (update.go)
export { getPatch, match } from './update.js';
export type { DaemonSetTemplatePatch } from './update.js';

// Pod templates and revisions (util/daemonset_util.go)
export {
  addOrUpdateDaemonPodTolerations,
  allowsSurge,
  controllerRevisionHashLabelKey,
  createPodTemplate,
  daemonSetTemplateGenerationKey,
  deprecatedTemplateGenerationAnnotation,
  getTargetNodeName,
  getTemplateGeneration,
  isPodUpdated,
  replaceDaemonSetPodNodeNameNodeAffinity,
  surgeCount,
  unavailableCount,
} from './daemonset-util.js';
