// The names the DaemonSet controller writes: its kind (daemon_controller.go's
// controllerKind) and the reasons of its events (SelectingAllReason,
// FailedPlacementReason, FailedDaemonPodReason, SucceededDaemonPodReason),
// kept apart from daemon-controller.ts so that update.ts can use them
// without importing the controller.
import type { GroupVersionKind } from '@kcm-ts/apimachinery';

/**
 * apps/v1 DaemonSet: the kind the controller writes into the owner
 * references of its pods and ControllerRevisions. Go's `controllerKind`.
 *
 * @category DaemonSet controller
 */
export const daemonSetKind: GroupVersionKind = Object.freeze({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
});

/**
 * The component name of the controller's events (`daemonset-controller`).
 *
 * @category Events
 */
export const daemonSetControllerName = 'daemonset-controller';

/**
 * `Warning SelectingAll`: the DaemonSet's selector is empty, so it would
 * select every pod; it is not synced. Go's `SelectingAllReason`.
 *
 * @category Events
 */
export const selectingAllReason = 'SelectingAll';

/**
 * `Warning FailedPlacement`: a pod could not be placed on a node. Go's
 * `FailedPlacementReason` (declared upstream; no longer recorded since the
 * scheduler places DaemonSet pods).
 *
 * @category Events
 */
export const failedPlacementReason = 'FailedPlacement';

/**
 * `Warning FailedDaemonPod`: a daemon pod failed and is deleted, so that a
 * new one replaces it (no more often than the failed pods backoff allows).
 * Go's `FailedDaemonPodReason`.
 *
 * @category Events
 */
export const failedDaemonPodReason = 'FailedDaemonPod';

/**
 * `Normal SucceededDaemonPod`: a daemon pod exited successfully and is
 * deleted, so that a new one replaces it. Go's `SucceededDaemonPodReason`.
 *
 * @category Events
 */
export const succeededDaemonPodReason = 'SucceededDaemonPod';
