// Progress reporting: pkg/controller/deployment/progress.go (syncRolloutStatus,
// getReplicaFailures, requeueStuckDeployment).
import type { Deployment, DeploymentCondition, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { nameOf, namespaceOf } from '@kcm-ts/apimachinery';
import type { DeploymentSyncContext } from './sync-context.js';
import { calculateStatus, deploymentStatusEqual, updateDeploymentStatus } from './sync.js';
import {
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getDeploymentCondition,
  hasProgressDeadline,
  newDeploymentCondition,
  newRSAvailableReason,
  removeDeploymentCondition,
  replicaSetToDeploymentCondition,
  replicaSetUpdatedReason,
  setDeploymentCondition,
  timedOutReason,
  timeOf,
} from './util/deployment-util.js';

//#region sync-rollout-status
/**
 * Updates the status after a rollout step, including the Progressing
 * condition: `NewReplicaSetAvailable` once complete, `ReplicaSetUpdated`
 * (its lastUpdateTime renewed) on any progress, `ProgressDeadlineExceeded`
 * once the deadline passed without progress; a completed rollout is not
 * re-evaluated. ReplicaSets' `ReplicaFailure` is surfaced. With no change,
 * schedules the progress check instead. Go's `syncRolloutStatus`.
 */
export async function syncRolloutStatus(
  dc: DeploymentSyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const now = dc.clock.now();
  const newStatus = calculateStatus(allRSs, newRS, d, now);

  // Without a deadline there is no Progressing condition.
  if (!hasProgressDeadline(d)) removeDeploymentCondition(newStatus, 'Progressing');

  // A completed rollout needs no estimate until a new one starts.
  const currentCond = getDeploymentCondition(d.status, 'Progressing');
  const isCompleteDeployment =
    (newStatus.replicas ?? 0) === (newStatus.updatedReplicas ?? 0) &&
    currentCond?.reason === newRSAvailableReason;
  if (hasProgressDeadline(d) && !isCompleteDeployment) {
    if (deploymentComplete(d, newStatus)) {
      // Left alone if already there.
      const msg =
        newRS !== undefined
          ? `ReplicaSet ${JSON.stringify(nameOf(newRS))} has successfully progressed.`
          : `Deployment ${JSON.stringify(nameOf(d))} has successfully progressed.`;
      const condition = newDeploymentCondition(
        'Progressing',
        'True',
        newRSAvailableReason,
        msg,
        now,
      );
      setDeploymentCondition(newStatus, condition);
    } else if (deploymentProgressing(d, newStatus)) {
      // Progress: no timeout check. Unlike other conditions, this one is
      // rewritten with the same reason so that lastUpdateTime moves.
      const msg =
        newRS !== undefined
          ? `ReplicaSet ${JSON.stringify(nameOf(newRS))} is progressing.`
          : `Deployment ${JSON.stringify(nameOf(d))} is progressing.`;
      const condition = newDeploymentCondition(
        'Progressing',
        'True',
        replicaSetUpdatedReason,
        msg,
        now,
      );
      if (currentCond !== undefined) {
        if (currentCond.status === 'True') {
          condition.lastTransitionTime = currentCond.lastTransitionTime;
        }
        removeDeploymentCondition(newStatus, 'Progressing');
      }
      setDeploymentCondition(newStatus, condition);
    } else if (deploymentTimedOut(d, newStatus, now, dc.logger)) {
      // Left alone if already there.
      const msg =
        newRS !== undefined
          ? `ReplicaSet ${JSON.stringify(nameOf(newRS))} has timed out progressing.`
          : `Deployment ${JSON.stringify(nameOf(d))} has timed out progressing.`;
      const condition = newDeploymentCondition('Progressing', 'False', timedOutReason, msg, now);
      setDeploymentCondition(newStatus, condition);
    }
  }

  // Only one ReplicaFailure condition is surfaced.
  const replicaFailureCond = getReplicaFailures(allRSs, newRS);
  if (replicaFailureCond.length > 0) {
    setDeploymentCondition(newStatus, replicaFailureCond[0]!);
  } else {
    removeDeploymentCondition(newStatus, 'ReplicaFailure');
  }

  if (deploymentStatusEqual(d.status, newStatus)) {
    requeueStuckDeployment(dc, d, newStatus);
    return;
  }
  d.status = newStatus;
  await updateDeploymentStatus(dc, d);
}
//#endregion sync-rollout-status

/**
 * The ReplicaFailure conditions of the new ReplicaSet, or failing that of all
 * of them, as Deployment conditions. Go's `getReplicaFailures`.
 */
export function getReplicaFailures(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
): DeploymentCondition[] {
  const fromNew = (newRS?.status?.conditions ?? [])
    .filter((c) => c.type === 'ReplicaFailure')
    .map(replicaSetToDeploymentCondition);
  // The new ReplicaSet's failures win over the old ones'.
  if (fromNew.length > 0) return fromNew;
  const conditions: DeploymentCondition[] = [];
  for (const rs of allRSs) {
    if (!rs) continue;
    for (const c of rs.status?.conditions ?? []) {
      if (c.type === 'ReplicaFailure') conditions.push(replicaSetToDeploymentCondition(c));
    }
  }
  return conditions;
}

//#region requeue-stuck
/**
 * Schedules a progress check for a rollout that made no progress, at the
 * moment its deadline passes (plus a second against timer skew), or at once,
 * with backoff, if that is less than a second away. Without this, a stuck
 * rollout would only be noticed at the next resync (kubernetes#34458). Go's
 * `requeueStuckDeployment`.
 *
 * @returns the wait in milliseconds until the deadline, 0 for "now", −1 when
 *   there is nothing to check (no deadline or condition, complete, or timed out)
 */
export function requeueStuckDeployment(
  dc: DeploymentSyncContext,
  d: Deployment,
  newStatus: NonNullable<Deployment['status']>,
): number {
  const currentCond = getDeploymentCondition(d.status, 'Progressing');
  if (!hasProgressDeadline(d) || currentCond === undefined) return -1;
  if (deploymentComplete(d, newStatus) || currentCond.reason === timedOutReason) return -1;
  // lastUpdateTime + progressDeadlineSeconds − now.
  const after =
    timeOf(currentCond.lastUpdateTime) + d.spec!.progressDeadlineSeconds! * 1000 - dc.clock.now();
  if (after < 1000) {
    dc.logger.v(4).info('Queueing up deployment for a progress check now', {
      deployment: `${namespaceOf(d)}/${nameOf(d)}`,
    });
    dc.enqueueRateLimited(d);
    return 0;
  }
  dc.logger.v(4).info('Queueing up deployment for a progress check', {
    deployment: `${namespaceOf(d)}/${nameOf(d)}`,
    queueAfter: Math.trunc(after / 1000),
  });
  dc.enqueueAfter(d, after + 1000);
  return after;
}
//#endregion requeue-stuck
