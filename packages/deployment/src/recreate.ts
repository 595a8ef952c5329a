// The Recreate strategy: pkg/controller/deployment/recreate.go
// (rolloutRecreate, scaleDownOldReplicaSetsForRecreate, oldPodsRunning,
// scaleUpNewReplicaSetForRecreate).
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { uidOf } from '@kcm-ts/apimachinery';
import { filterActiveReplicaSets } from '@kcm-ts/controller';
import type { DeploymentSyncContext } from './sync-context.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  getAllReplicaSetsAndSyncRevision,
  scaleReplicaSetAndRecordEvent,
} from './sync.js';
import {
  deploymentComplete,
  getActualReplicaCountForReplicaSets,
  specReplicas,
} from './util/deployment-util.js';

//#region rollout-recreate
/**
 * One step of a Recreate rollout: scale every old ReplicaSet to 0, wait
 * until none of their pods runs, and only then create (or scale up) the new
 * ReplicaSet, so old and new pods never run together. Go's `rolloutRecreate`.
 */
export async function rolloutRecreate(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
  podMap: ReadonlyMap<string, readonly Pod[]>,
): Promise<void> {
  // Do not create the new ReplicaSet yet: that would scale up before scaling down.
  let [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  let allRSs = [...oldRSs, newRS];
  const activeOldRSs = filterActiveReplicaSets(oldRSs);

  if (await scaleDownOldReplicaSetsForRecreate(dc, activeOldRSs, d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  // Wait while old pods are still running.
  if (oldPodsRunning(newRS, oldRSs, podMap)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  if (newRS === undefined) {
    [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
    allRSs = [...oldRSs, newRS];
  }
  await scaleUpNewReplicaSetForRecreate(dc, newRS!, d);
  if (deploymentComplete(d, d.status ?? {})) {
    await cleanupDeployment(dc, oldRSs, d);
  }
  await syncRolloutStatus(dc, allRSs, newRS, d);
}
//#endregion rollout-recreate

/**
 * Scales every given ReplicaSet to 0, replacing the scaled ones in `oldRSs`.
 * Go's `scaleDownOldReplicaSetsForRecreate`.
 *
 * @returns whether any was scaled
 */
export async function scaleDownOldReplicaSetsForRecreate(
  dc: DeploymentSyncContext,
  oldRSs: ReplicaSet[],
  deployment: Deployment,
): Promise<boolean> {
  let scaled = false;
  for (let i = 0; i < oldRSs.length; i++) {
    const rs = oldRSs[i]!;
    if (specReplicas(rs) === 0) continue;
    const result = await scaleReplicaSetAndRecordEvent(dc, rs, 0, deployment);
    if (result.scaled) {
      oldRSs[i] = result.rs;
      scaled = true;
    }
  }
  return scaled;
}

/**
 * True while any old ReplicaSet reports pods, or any pod not of the new
 * ReplicaSet is in a phase other than Succeeded or Failed (terminating pods
 * and pods in the deprecated Unknown phase included: they may still run).
 * Go's `oldPodsRunning`.
 */
export function oldPodsRunning(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  podMap: ReadonlyMap<string, readonly Pod[]> | undefined,
): boolean {
  if (getActualReplicaCountForReplicaSets(oldRSs) > 0) return true;
  for (const [rsUID, pods] of podMap ?? []) {
    if (newRS !== undefined && uidOf(newRS) === rsUID) continue;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') continue;
      return true;
    }
  }
  return false;
}

/** Scales the new ReplicaSet to `spec.replicas`. Go's `scaleUpNewReplicaSetForRecreate`. */
export async function scaleUpNewReplicaSetForRecreate(
  dc: DeploymentSyncContext,
  newRS: ReplicaSet,
  deployment: Deployment,
): Promise<boolean> {
  return (await scaleReplicaSetAndRecordEvent(dc, newRS, specReplicas(deployment), deployment))
    .scaled;
}
