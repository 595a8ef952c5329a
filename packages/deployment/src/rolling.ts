// The RollingUpdate strategy: pkg/controller/deployment/rolling.go
// (rolloutRolling, reconcileNewReplicaSet, reconcileOldReplicaSets,
// cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate).
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { nameOf, namespaceOf } from '@kcm-ts/apimachinery';
import { filterActiveReplicaSets, replicaSetsByCreationTimestamp } from '@kcm-ts/controller';
import type { DeploymentSyncContext } from './sync-context.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  getAllReplicaSetsAndSyncRevision,
  scaleReplicaSetAndRecordEvent,
} from './sync.js';
import {
  deploymentComplete,
  getAvailableReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  maxUnavailable,
  newRSNewReplicas,
  specReplicas,
} from './util/deployment-util.js';

//#region rollout-rolling
/**
 * One step of a rolling update: create the new ReplicaSet if needed, then
 * either scale it up (within maxSurge) or scale old ones down (within
 * maxUnavailable), one of the two per sync; once complete, trim the history;
 * always report progress. Go's `rolloutRolling`.
 */
export async function rolloutRolling(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
  const allRSs = [...oldRSs, newRS!];

  // Scale up, if we can.
  if (await reconcileNewReplicaSet(dc, allRSs, newRS!, d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  // Scale down, if we can.
  if (await reconcileOldReplicaSets(dc, allRSs, filterActiveReplicaSets(oldRSs), newRS!, d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  // The status as read at the start of this sync.
  if (deploymentComplete(d, d.status ?? {})) {
    await cleanupDeployment(dc, oldRSs, d);
  }
  await syncRolloutStatus(dc, allRSs, newRS, d);
}
//#endregion rollout-rolling

/**
 * Grows the new ReplicaSet as far as maxSurge allows (or shrinks it back to
 * `replicas` if it is larger). Go's `reconcileNewReplicaSet`.
 *
 * @returns whether it was scaled
 */
export async function reconcileNewReplicaSet(
  dc: DeploymentSyncContext,
  allRSs: readonly ReplicaSet[],
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  const replicas = specReplicas(deployment);
  if (specReplicas(newRS) === replicas) return false;
  if (specReplicas(newRS) > replicas) {
    return (await scaleReplicaSetAndRecordEvent(dc, newRS, replicas, deployment)).scaled;
  }
  const newReplicasCount = newRSNewReplicas(deployment, allRSs, newRS);
  return (await scaleReplicaSetAndRecordEvent(dc, newRS, newReplicasCount, deployment)).scaled;
}

//#region reconcile-old
/**
 * Shrinks old ReplicaSets as far as maxUnavailable allows. The budget is
 * every pod wanted (`allPodsCount`) minus those that must stay available and
 * minus the new ReplicaSet's pods that are not available yet, so a new
 * ReplicaSet that never becomes ready blocks the old ones from shrinking.
 * Unhealthy old pods go first; errors are logged and swallowed, as upstream.
 * Go's `reconcileOldReplicaSets`.
 *
 * @returns whether any old ReplicaSet was scaled down
 */
export async function reconcileOldReplicaSets(
  dc: DeploymentSyncContext,
  allRSs: readonly ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  const logger = dc.logger;
  const oldPodsCount = getReplicaCountForReplicaSets(oldRSs);
  if (oldPodsCount === 0) return false; // nothing left to scale down
  const allPodsCount = getReplicaCountForReplicaSets(allRSs);
  logger.v(4).info('New replica set', {
    replicaSet: `${namespaceOf(newRS)}/${nameOf(newRS)}`,
    availableReplicas: newRS.status?.availableReplicas ?? 0,
  });
  const minAvailable = specReplicas(deployment) - maxUnavailable(deployment);
  const newRSUnavailablePodCount = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPodsCount - minAvailable - newRSUnavailablePodCount;
  if (maxScaledDown <= 0) return false;

  // Unhealthy replicas first: they would otherwise block the rollout until
  // it times out (kubernetes#16737).
  let cleaned: { oldRSs: ReplicaSet[]; count: number };
  try {
    cleaned = await cleanupUnhealthyReplicas(dc, oldRSs, deployment, maxScaledDown);
  } catch {
    return false;
  }
  logger.v(4).info('Removed unhealthy replicas of old replica sets', { count: cleaned.count });

  const all = [...cleaned.oldRSs, newRS];
  let scaledDownCount: number;
  try {
    scaledDownCount = await scaleDownOldReplicaSetsForRollingUpdate(
      dc,
      all,
      cleaned.oldRSs,
      deployment,
    );
  } catch {
    return false;
  }
  logger.v(4).info('Scaled down old replica sets', {
    deployment: `${namespaceOf(deployment)}/${nameOf(deployment)}`,
    count: scaledDownCount,
  });
  return cleaned.count + scaledDownCount > 0;
}
//#endregion reconcile-old

/**
 * Removes old ReplicaSets' unavailable replicas, oldest ReplicaSet first, up
 * to `maxCleanupCount` in all. The ReplicaSet controller deletes its
 * not-ready pods first, so this costs no availability. Sorts `oldRSs` oldest
 * first and replaces the scaled ones in it. Go's `cleanupUnhealthyReplicas`.
 */
export async function cleanupUnhealthyReplicas(
  dc: DeploymentSyncContext,
  oldRSs: ReplicaSet[],
  deployment: Deployment,
  maxCleanupCount: number,
): Promise<{ oldRSs: ReplicaSet[]; count: number }> {
  oldRSs.sort(replicaSetsByCreationTimestamp);
  let totalScaledDown = 0;
  for (let i = 0; i < oldRSs.length; i++) {
    if (totalScaledDown >= maxCleanupCount) break;
    const targetRS = oldRSs[i]!;
    const replicas = specReplicas(targetRS);
    if (replicas === 0) continue; // cannot scale down this one
    const available = targetRS.status?.availableReplicas ?? 0;
    dc.logger.v(4).info('Old replica set', {
      replicaSet: `${namespaceOf(targetRS)}/${nameOf(targetRS)}`,
      availableReplicas: available,
    });
    if (replicas === available) continue; // no unhealthy replicas
    const scaledDownCount = Math.min(maxCleanupCount - totalScaledDown, replicas - available);
    const newReplicasCount = replicas - scaledDownCount;
    if (newReplicasCount > replicas) {
      throw new Error(
        `when cleaning up unhealthy replicas, got invalid request to scale down ${namespaceOf(targetRS)}/${nameOf(targetRS)} ${replicas} -> ${newReplicasCount}`,
      );
    }
    const { rs } = await scaleReplicaSetAndRecordEvent(dc, targetRS, newReplicasCount, deployment);
    totalScaledDown += scaledDownCount;
    oldRSs[i] = rs;
  }
  return { oldRSs, count: totalScaledDown };
}

/**
 * Scales old ReplicaSets down, oldest first, by as many pods as are available
 * above `replicas − maxUnavailable` (counting the new ReplicaSet's available
 * pods too). Go's `scaleDownOldReplicaSetsForRollingUpdate`.
 *
 * @returns how many replicas were removed
 */
export async function scaleDownOldReplicaSetsForRollingUpdate(
  dc: DeploymentSyncContext,
  allRSs: readonly ReplicaSet[],
  oldRSs: ReplicaSet[],
  deployment: Deployment,
): Promise<number> {
  const minAvailable = specReplicas(deployment) - maxUnavailable(deployment);
  const availablePodCount = getAvailableReplicaCountForReplicaSets(allRSs);
  if (availablePodCount <= minAvailable) return 0;
  dc.logger.v(4).info('Scaling down old replica sets', {
    deployment: `${namespaceOf(deployment)}/${nameOf(deployment)}`,
    availableReplicas: availablePodCount,
  });
  oldRSs.sort(replicaSetsByCreationTimestamp);
  let totalScaledDown = 0;
  const totalScaleDownCount = availablePodCount - minAvailable;
  for (const targetRS of oldRSs) {
    if (totalScaledDown >= totalScaleDownCount) break;
    const replicas = specReplicas(targetRS);
    if (replicas === 0) continue;
    const scaleDownCount = Math.min(replicas, totalScaleDownCount - totalScaledDown);
    const newReplicasCount = replicas - scaleDownCount;
    if (newReplicasCount > replicas) {
      throw new Error(
        `when scaling down old RS, got invalid request to scale down ${namespaceOf(targetRS)}/${nameOf(targetRS)} ${replicas} -> ${newReplicasCount}`,
      );
    }
    await scaleReplicaSetAndRecordEvent(dc, targetRS, newReplicasCount, deployment);
    totalScaledDown += scaleDownCount;
  }
  return totalScaledDown;
}
