// The legacy rollback through the `deprecated.deployment.rollback.to`
// annotation: pkg/controller/deployment/rollback.go (rollback,
// rollbackToTemplate, updateDeploymentAndClearRollbackTo; getRollbackTo and
// setRollbackTo are in rollback-to.ts). kubectl's `rollout undo` instead edits the template, which
// needs nothing here: the old ReplicaSet simply becomes the new one again.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { nameOf, namespaceOf } from '@kcm-ts/apimachinery';
import { deploymentReference, type DeploymentSyncContext } from './sync-context.js';
import { getRollbackTo, setRollbackTo } from './rollback-to.js';
import { getAllReplicaSetsAndSyncRevision } from './sync.js';
import {
  equalIgnoreHash,
  lastRevision,
  revision,
  rollbackDone,
  rollbackRevisionNotFound,
  rollbackTemplateUnchanged,
  setDeploymentAnnotationsTo,
  setFromReplicaSetTemplate,
} from './util/deployment-util.js';

//#region rollback
/**
 * Rolls the Deployment back to the revision its rollback annotation names
 * (0: the one before the current) by copying that ReplicaSet's template into
 * it, then clears the request; the next sync rolls out that template, whose
 * ReplicaSet becomes the new one with the next revision number. Go's `rollback`.
 */
export async function rollback(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const [newRS, allOldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
  const allRSs = [...allOldRSs, newRS];
  const rollbackTo = getRollbackTo(d)!;
  if (rollbackTo.revision === 0) {
    rollbackTo.revision = lastRevision(allRSs, dc.logger);
    if (rollbackTo.revision === 0) {
      emitRollbackWarningEvent(dc, d, rollbackRevisionNotFound, 'Unable to find last revision.');
      await updateDeploymentAndClearRollbackTo(dc, d);
      return;
    }
  }
  for (const rs of allRSs) {
    if (!rs) continue;
    let v: number;
    try {
      v = revision(rs);
    } catch (err) {
      dc.logger.v(4).info('Skipping a replica set whose revision annotation does not parse', {
        replicaSet: `${namespaceOf(rs)}/${nameOf(rs)}`,
        err: String(err),
      });
      continue;
    }
    if (v === rollbackTo.revision) {
      dc.logger.v(4).info('Found replica set with desired revision', {
        replicaSet: `${namespaceOf(rs)}/${nameOf(rs)}`,
        revision: v,
      });
      // The revision number goes up on the next getAllReplicaSetsAndSyncRevision.
      const performedRollback = await rollbackToTemplate(dc, d, rs);
      if (performedRollback) {
        dc.recorder.event(
          deploymentReference(d),
          'Normal',
          rollbackDone,
          `Rolled back deployment ${JSON.stringify(nameOf(d))} to revision ${rollbackTo.revision}`,
        );
      }
      return;
    }
  }
  emitRollbackWarningEvent(
    dc,
    d,
    rollbackRevisionNotFound,
    'Unable to find the revision to rollback to.',
  );
  await updateDeploymentAndClearRollbackTo(dc, d);
}
//#endregion rollback

/**
 * Copies `rs`'s template and annotations into the Deployment unless the
 * template is already the same (then only warns), and clears the rollback
 * request. The annotations are copied too, so that the ReplicaSet, about to
 * become new again, keeps its own change-cause. Go's `rollbackToTemplate`.
 *
 * @returns whether the template was changed
 */
async function rollbackToTemplate(
  dc: DeploymentSyncContext,
  d: Deployment,
  rs: ReplicaSet,
): Promise<boolean> {
  let performedRollback = false;
  if (!equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
    dc.logger.v(4).info('Rolling back deployment to old template spec', {
      deployment: `${namespaceOf(d)}/${nameOf(d)}`,
    });
    setFromReplicaSetTemplate(d, rs.spec?.template ?? {});
    setDeploymentAnnotationsTo(d, rs);
    performedRollback = true;
  } else {
    dc.logger.v(4).info('The rollback target has the current template: nothing to roll back', {
      deployment: `${namespaceOf(d)}/${nameOf(d)}`,
    });
    emitRollbackWarningEvent(
      dc,
      d,
      rollbackTemplateUnchanged,
      `The rollback revision contains the same template as current deployment ${JSON.stringify(nameOf(d))}`,
    );
  }
  await updateDeploymentAndClearRollbackTo(dc, d);
  return performedRollback;
}

function emitRollbackWarningEvent(
  dc: DeploymentSyncContext,
  d: Deployment,
  reason: string,
  message: string,
): void {
  dc.recorder.event(deploymentReference(d), 'Warning', reason, message);
}

/**
 * Clears the rollback request and writes the Deployment (its template too, if
 * the caller changed it). Go's `updateDeploymentAndClearRollbackTo`.
 */
async function updateDeploymentAndClearRollbackTo(
  dc: DeploymentSyncContext,
  d: Deployment,
): Promise<void> {
  dc.logger.v(4).info('Clearing the rollback request', {
    deployment: `${namespaceOf(d)}/${nameOf(d)}`,
  });
  setRollbackTo(d, undefined);
  await dc.client.deployments.inNamespace(namespaceOf(d)).update(d, { signal: dc.signal });
}
