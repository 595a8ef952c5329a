// Syncing a Deployment's ReplicaSets and status outside a rollout, and the
// building blocks rollouts share: pkg/controller/deployment/sync.go
// (syncStatusOnly, sync, checkPausedConditions, getAllReplicaSetsAndSyncRevision,
// getNewReplicaSet, scale, scaleReplicaSetAndRecordEvent, scaleReplicaSet,
// cleanupDeployment, syncDeploymentStatus, calculateStatus, isScalingEvent).
import type { Deployment, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import {
  getControllerOf,
  hasStatusCause,
  isAlreadyExists,
  isNotFound,
  nameOf,
  namespaceOf,
  newControllerRef,
  uidOf,
} from '@kcm-ts/apimachinery';
import {
  computeHash,
  defaultDeploymentUniqueLabelKey,
  filterActiveReplicaSets,
  replicaSetsBySizeNewer,
  replicaSetsBySizeOlder,
} from '@kcm-ts/controller';
import { deploymentReference, type DeploymentSyncContext } from './sync-context.js';
import { getRollbackTo } from './rollback-to.js';
import {
  equalIgnoreHash,
  failedRSCreateReason,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  foundNewRSReason,
  getAvailableReplicaCountForReplicaSets,
  getActualReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDesiredReplicasAnnotation,
  getProportion,
  getReadyReplicaCountForReplicaSets,
  getReplicaCountForReplicaSets,
  hasProgressDeadline,
  hasRevisionHistoryLimit,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  minimumReplicasAvailable,
  minimumReplicasUnavailable,
  newDeploymentCondition,
  newReplicaSetReason,
  newRSNewReplicas,
  pausedDeployReason,
  replicaSetNameFor,
  replicaSetsByRevision,
  replicasAnnotationsNeedUpdate,
  resumedDeployReason,
  revisionAnnotation,
  setDeploymentCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specReplicas,
  timedOutReason,
  timeOf,
} from './util/deployment-util.js';
import { deepCopy } from './util/semantic.js';

/** How long the revision-history annotation may grow. Go's `maxRevHistoryLengthInChars`. */
export const maxRevHistoryLengthInChars = 2000;

const controllerKind = { group: 'apps', version: 'v1', kind: 'Deployment' } as const;

/** An error's message, as Go's `%v` prints an error. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Writes the Deployment's status; the answer is dropped, as upstream does. */
export async function updateDeploymentStatus(
  dc: DeploymentSyncContext,
  d: Deployment,
): Promise<void> {
  await dc.client.deployments.inNamespace(namespaceOf(d)).updateStatus(d, { signal: dc.signal });
}

/**
 * Recalculates the status of a Deployment being deleted, and nothing else.
 * Go's `syncStatusOnly`.
 */
export async function syncStatusOnly(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

/**
 * Handles a paused Deployment or a scaling event: scales the ReplicaSets
 * (proportionally if several are active), trims the history of a paused one,
 * and updates the status without touching Progressing. Go's `sync`.
 */
export async function sync(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await scale(dc, d, newRS, oldRSs);
  // Clean up only while paused: cleaning up during a scaling event could
  // delete a ReplicaSet a rollout is still using.
  if (d.spec?.paused && getRollbackTo(d) === undefined) {
    await cleanupDeployment(dc, oldRSs, d);
  }
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

/**
 * Records pausing and resuming in the Progressing condition (Unknown,
 * `DeploymentPaused` / `DeploymentResumed`), so that time spent paused never
 * counts against the progress deadline. A timed-out Deployment keeps its
 * condition. Go's `checkPausedConditions`.
 */
export async function checkPausedConditions(
  dc: DeploymentSyncContext,
  d: Deployment,
): Promise<void> {
  if (!hasProgressDeadline(d)) return;
  const cond = getDeploymentCondition(d.status, 'Progressing');
  if (cond?.reason === timedOutReason) {
    // Paused or not, a timed-out rollout stays timed out.
    return;
  }
  const pausedCondExists = cond?.reason === pausedDeployReason;
  const now = dc.clock.now();
  let needsUpdate = false;
  if (d.spec?.paused && !pausedCondExists) {
    const condition = newDeploymentCondition(
      'Progressing',
      'Unknown',
      pausedDeployReason,
      'Deployment is paused',
      now,
    );
    setDeploymentCondition((d.status ??= {}), condition);
    needsUpdate = true;
  } else if (!d.spec?.paused && pausedCondExists) {
    const condition = newDeploymentCondition(
      'Progressing',
      'Unknown',
      resumedDeployReason,
      'Deployment is resumed',
      now,
    );
    setDeploymentCondition((d.status ??= {}), condition);
    needsUpdate = true;
  }
  if (!needsUpdate) return;
  await updateDeploymentStatus(dc, d);
}

/**
 * The new ReplicaSet (created if `createIfNotExisted` and missing) and all the
 * old ones, with the new one's annotations and the Deployment's revision
 * brought up to date. Go's `getAllReplicaSetsAndSyncRevision`.
 *
 * @returns `[newRS, allOldRSs]`
 */
export async function getAllReplicaSetsAndSyncRevision(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<[newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]]> {
  const [, allOldRSs] = findOldReplicaSets(d, rsList);
  const newRS = await getNewReplicaSet(dc, d, rsList, allOldRSs, createIfNotExisted);
  return [newRS, allOldRSs];
}

/** A copy of `selector` that also requires `key=value`. Go's `labelsutil.CloneSelectorAndAddLabel`. */
function cloneSelectorAndAddLabel(
  selector: LabelSelector | undefined,
  key: string,
  value: string,
): LabelSelector {
  const out: LabelSelector = { matchLabels: { ...(selector?.matchLabels ?? {}), [key]: value } };
  if (selector?.matchExpressions) out.matchExpressions = deepCopy(selector.matchExpressions);
  return out;
}

//#region get-new-replica-set
/**
 * The Deployment's new ReplicaSet, its annotations synced (copied
 * annotations, revision = max old revision + 1, minReadySeconds), and the
 * Deployment's revision annotation synced from it. Without one, and with
 * `createIfNotExisted`, creates it: named `<deployment>-<hash>` with the hash
 * of the template and `status.collisionCount` added to its labels and
 * selector. A name taken by a ReplicaSet this Deployment does not own with
 * this template is a hash collision: `collisionCount` goes up and the error
 * is returned, so the next sync tries another name. Go's `getNewReplicaSet`.
 */
export async function getNewReplicaSet(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
  oldRSs: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSet | undefined> {
  const logger = dc.logger;
  const existingNewRS = findNewReplicaSet(d, rsList);
  const newRevision = String(maxRevision(oldRSs, logger) + 1);
  const now = dc.clock.now();

  if (existingNewRS !== undefined) {
    const rsCopy = deepCopy(existingNewRS);
    // Sync its annotations (and the Deployment's revision from them).
    const annotationsUpdated = setNewReplicaSetAnnotations(
      d,
      rsCopy,
      newRevision,
      true,
      maxRevHistoryLengthInChars,
      logger,
    );
    const minReadySeconds = d.spec?.minReadySeconds ?? 0;
    const minReadySecondsNeedsUpdate = (rsCopy.spec?.minReadySeconds ?? 0) !== minReadySeconds;
    if (annotationsUpdated || minReadySecondsNeedsUpdate) {
      (rsCopy.spec ??= { selector: {} }).minReadySeconds = minReadySeconds;
      return dc.client.replicaSets
        .inNamespace(namespaceOf(rsCopy))
        .update(rsCopy, { signal: dc.signal });
    }
    // The ReplicaSet's revision is the reliable one: the Deployment mirrors it.
    let needsUpdate = setDeploymentRevision(
      d,
      rsCopy.metadata?.annotations?.[revisionAnnotation] ?? '',
    );
    // A Deployment that never had a Progressing condition starts measuring
    // progress from the moment its new ReplicaSet is noticed.
    const cond = getDeploymentCondition(d.status, 'Progressing');
    if (hasProgressDeadline(d) && cond === undefined) {
      const msg = `Found new replica set ${JSON.stringify(nameOf(rsCopy))}`;
      const condition = newDeploymentCondition('Progressing', 'True', foundNewRSReason, msg, now);
      setDeploymentCondition((d.status ??= {}), condition);
      needsUpdate = true;
    }
    if (needsUpdate) await updateDeploymentStatus(dc, d);
    return rsCopy;
  }

  if (!createIfNotExisted) return undefined;

  // A new ReplicaSet: the template with the hash label.
  const newRSTemplate = deepCopy(d.spec?.template ?? {});
  const podTemplateSpecHash = computeHash(newRSTemplate, d.status?.collisionCount);
  newRSTemplate.metadata = {
    ...(newRSTemplate.metadata ?? {}),
    labels: {
      ...(d.spec?.template?.metadata?.labels ?? {}),
      [defaultDeploymentUniqueLabelKey]: podTemplateSpecHash,
    },
  };
  const newRSSelector = cloneSelectorAndAddLabel(
    d.spec?.selector,
    defaultDeploymentUniqueLabelKey,
    podTemplateSpecHash,
  );
  const newRS: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      // A name derived from the template makes creation idempotent.
      name: replicaSetNameFor(nameOf(d), podTemplateSpecHash),
      namespace: namespaceOf(d),
      ownerReferences: [newControllerRef(d, controllerKind)],
      labels: { ...newRSTemplate.metadata.labels },
    },
    spec: {
      replicas: 0,
      ...(d.spec?.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
      selector: newRSSelector,
      template: newRSTemplate,
    },
  };
  const newReplicasCount = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  newRS.spec!.replicas = newReplicasCount;
  setNewReplicaSetAnnotations(d, newRS, newRevision, false, maxRevHistoryLengthInChars, logger);

  let alreadyExists = false;
  let createdRS: ReplicaSet;
  try {
    createdRS = await dc.client.replicaSets
      .inNamespace(namespaceOf(d))
      .create(newRS, { signal: dc.signal });
  } catch (err) {
    if (isAlreadyExists(err)) {
      // A slow cache or a quick resync may bring us here.
      alreadyExists = true;
      const rs = dc.rsLister.byNamespace(namespaceOf(d)).get(nameOf(newRS));
      // Ours, with our template: it is the new ReplicaSet after all.
      const ref = getControllerOf(rs);
      if (
        ref !== undefined &&
        ref.uid === uidOf(d) &&
        equalIgnoreHash(d.spec?.template, rs.spec?.template)
      ) {
        createdRS = rs;
      } else {
        // A hash collision: count it, so the next sync hashes differently.
        const status = (d.status ??= {});
        const preCollisionCount = status.collisionCount ?? 0;
        status.collisionCount = preCollisionCount + 1;
        try {
          await updateDeploymentStatus(dc, d);
          logger.v(2).info('Hash collision: raised collisionCount', {
            deployment: `${namespaceOf(d)}/${nameOf(d)}`,
            oldCollisionCount: preCollisionCount,
            newCollisionCount: status.collisionCount,
          });
        } catch {
          // The AlreadyExists error below requeues us anyway.
        }
        throw err;
      }
    } else if (hasStatusCause(err, 'NamespaceTerminating')) {
      // Every later create would fail too: do nothing.
      throw err;
    } else {
      const msg = `Failed to create new replica set ${JSON.stringify(nameOf(newRS))}: ${errorMessage(err)}`;
      if (hasProgressDeadline(d)) {
        const cond = newDeploymentCondition('Progressing', 'False', failedRSCreateReason, msg, now);
        setDeploymentCondition((d.status ??= {}), cond);
        // The create error is the bigger problem to report.
        await updateDeploymentStatus(dc, d).catch(() => undefined);
      }
      dc.recorder.event(deploymentReference(d), 'Warning', failedRSCreateReason, msg);
      throw err;
    }
  }
  if (!alreadyExists && newReplicasCount > 0) {
    dc.recorder.event(
      deploymentReference(d),
      'Normal',
      'ScalingReplicaSet',
      `Scaled up replica set ${nameOf(createdRS)} from 0 to ${newReplicasCount}`,
    );
  }
  let needsUpdate = setDeploymentRevision(d, newRevision);
  if (!alreadyExists && hasProgressDeadline(d)) {
    const msg = `Created new replica set ${JSON.stringify(nameOf(createdRS))}`;
    const condition = newDeploymentCondition('Progressing', 'True', newReplicaSetReason, msg, now);
    setDeploymentCondition((d.status ??= {}), condition);
    needsUpdate = true;
  }
  if (needsUpdate) await updateDeploymentStatus(dc, d);
  return createdRS;
}
//#endregion get-new-replica-set

//#region scale
/**
 * Sizes the ReplicaSets for `spec.replicas` outside a rollout step. One
 * active ReplicaSet (or none: then the newest) simply gets `spec.replicas`; a
 * saturated new one means every old one goes to 0; otherwise, for
 * RollingUpdate, the difference between `replicas + maxSurge` and the current
 * total is spread over the active ReplicaSets in proportion to their size,
 * largest first, leftovers to the first. Go's `scale`.
 */
export async function scale(
  dc: DeploymentSyncContext,
  deployment: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): Promise<void> {
  const replicas = specReplicas(deployment);
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest !== undefined) {
    if (specReplicas(activeOrLatest) === replicas) return;
    await scaleReplicaSetAndRecordEvent(dc, activeOrLatest, replicas, deployment);
    return;
  }

  // A saturated new ReplicaSet (say, just adopted) leaves nothing to the old ones.
  if (isSaturated(deployment, newRS)) {
    for (const old of filterActiveReplicaSets(oldRSs)) {
      await scaleReplicaSetAndRecordEvent(dc, old, 0, deployment);
    }
    return;
  }

  // Old ReplicaSets with pods and a new one not saturated: scale them all in
  // proportion, for a rolling Deployment.
  if (isRollingUpdate(deployment)) {
    const allRSs = filterActiveReplicaSets([...oldRSs, newRS]);
    const allRSsReplicas = getReplicaCountForReplicaSets(allRSs);
    const allowedSize = replicas > 0 ? replicas + maxSurge(deployment) : 0;
    // Replicas to add (or, negative, remove) across the active ReplicaSets.
    const deploymentReplicasToAdd = allowedSize - allRSsReplicas;

    // Largest first; among equals, newer first when growing and older first
    // when shrinking.
    let scalingOperation = '';
    if (deploymentReplicasToAdd > 0) {
      allRSs.sort(replicaSetsBySizeNewer);
      scalingOperation = 'up';
    } else if (deploymentReplicasToAdd < 0) {
      allRSs.sort(replicaSetsBySizeOlder);
      scalingOperation = 'down';
    }

    // |added| never exceeds |toAdd|.
    let deploymentReplicasAdded = 0;
    const nameToSize = new Map<string, number>();
    for (const rs of allRSs) {
      if (deploymentReplicasToAdd !== 0) {
        const proportion = getProportion(
          rs,
          deployment,
          deploymentReplicasToAdd,
          deploymentReplicasAdded,
          dc.logger,
        );
        nameToSize.set(nameOf(rs), specReplicas(rs) + proportion);
        deploymentReplicasAdded += proportion;
      } else {
        nameToSize.set(nameOf(rs), specReplicas(rs));
      }
    }

    for (let i = 0; i < allRSs.length; i++) {
      const rs = allRSs[i]!;
      // Leftovers go to the largest ReplicaSet.
      if (i === 0 && deploymentReplicasToAdd !== 0) {
        const leftover = deploymentReplicasToAdd - deploymentReplicasAdded;
        nameToSize.set(nameOf(rs), Math.max(0, nameToSize.get(nameOf(rs))! + leftover));
      }
      // Stop at the first failure; the Deployment is requeued.
      await scaleReplicaSet(dc, rs, nameToSize.get(nameOf(rs))!, deployment, scalingOperation);
    }
  }
}
//#endregion scale

/**
 * Scales `rs` to `newScale` if its size differs, with a `ScalingReplicaSet`
 * event. Go's `scaleReplicaSetAndRecordEvent`.
 *
 * @returns whether it was scaled, and the ReplicaSet as it now is
 */
export async function scaleReplicaSetAndRecordEvent(
  dc: DeploymentSyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  if (specReplicas(rs) === newScale) return { scaled: false, rs };
  const scalingOperation = specReplicas(rs) < newScale ? 'up' : 'down';
  return scaleReplicaSet(dc, rs, newScale, deployment, scalingOperation);
}

/**
 * Writes `rs` with size `newScale` and the Deployment's current desired and
 * max replica annotations, if either differs; a size change is reported as
 * `Scaled <op> replica set <name> from <old> to <new>`. Go's `scaleReplicaSet`.
 */
export async function scaleReplicaSet(
  dc: DeploymentSyncContext,
  rs: ReplicaSet,
  newScale: number,
  deployment: Deployment,
  scalingOperation: string,
): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  const replicas = specReplicas(deployment);
  const maxReplicas = replicas + maxSurge(deployment);
  const sizeNeedsUpdate = specReplicas(rs) !== newScale;
  const annotationsNeedUpdate = replicasAnnotationsNeedUpdate(rs, replicas, maxReplicas);
  if (!sizeNeedsUpdate && !annotationsNeedUpdate) return { scaled: false, rs };
  const oldScale = specReplicas(rs);
  const rsCopy = deepCopy(rs);
  (rsCopy.spec ??= { selector: {} }).replicas = newScale;
  setReplicasAnnotations(rsCopy, replicas, maxReplicas);
  const updated = await dc.client.replicaSets
    .inNamespace(namespaceOf(rsCopy))
    .update(rsCopy, { signal: dc.signal });
  if (sizeNeedsUpdate) {
    dc.recorder.event(
      deploymentReference(deployment),
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${scalingOperation} replica set ${nameOf(updated)} from ${oldScale} to ${newScale}`,
    );
  }
  return { scaled: sizeNeedsUpdate, rs: updated };
}

//#region cleanup
/**
 * Deletes the oldest old ReplicaSets beyond `revisionHistoryLimit`: of the
 * first `count − limit` by revision, those with no replicas wanted or
 * running and a status that has caught up with their spec. The others are
 * skipped, not replaced. Go's `cleanupDeployment`.
 */
export async function cleanupDeployment(
  dc: DeploymentSyncContext,
  oldRSs: readonly ReplicaSet[],
  deployment: Deployment,
): Promise<void> {
  if (!hasRevisionHistoryLimit(deployment)) return;
  // ReplicaSets already being deleted do not count.
  const cleanableRSes = oldRSs.filter((rs) => rs && !rs.metadata?.deletionTimestamp);
  const diff = cleanableRSes.length - deployment.spec!.revisionHistoryLimit!;
  if (diff <= 0) return;
  cleanableRSes.sort(replicaSetsByRevision);
  dc.logger.v(4).info('Cleaning up old replica sets', {
    deployment: `${namespaceOf(deployment)}/${nameOf(deployment)}`,
  });
  for (let i = 0; i < diff; i++) {
    const rs = cleanableRSes[i]!;
    // Never a ReplicaSet with pods, or whose status lags its spec.
    if (
      (rs.status?.replicas ?? 0) !== 0 ||
      specReplicas(rs) !== 0 ||
      (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0) ||
      rs.metadata?.deletionTimestamp
    ) {
      continue;
    }
    dc.logger.v(4).info('Deleting old replica set', {
      replicaSet: `${namespaceOf(rs)}/${nameOf(rs)}`,
    });
    try {
      await dc.client.replicaSets
        .inNamespace(namespaceOf(rs))
        .delete(nameOf(rs), { signal: dc.signal });
    } catch (err) {
      // Stop at the first failure rather than pile on a struggling server.
      if (!isNotFound(err)) throw err;
    }
  }
}
//#endregion cleanup

/**
 * Writes the status {@link calculateStatus} gives, if it differs from the
 * current one. Go's `syncDeploymentStatus`.
 */
export async function syncDeploymentStatus(
  dc: DeploymentSyncContext,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const newStatus = calculateStatus(allRSs, newRS, d, dc.clock.now());
  if (deploymentStatusEqual(d.status, newStatus)) return;
  d.status = newStatus;
  await updateDeploymentStatus(dc, d);
}

//#region calculate-status
/**
 * The Deployment's status from its ReplicaSets: counts summed over all of
 * them (updated = the new one's pods), the generation observed, the
 * collision count and conditions carried over, and `Available` set by
 * whether `replicas − maxUnavailable` pods are available. Zero counts are
 * left out, as on the wire. Go's `calculateStatus`.
 *
 * @param now - the current time in milliseconds, for a new Available condition
 */
export function calculateStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
  now: number,
): DeploymentStatus {
  const availableReplicas = getAvailableReplicaCountForReplicaSets(allRSs);
  const totalReplicas = getReplicaCountForReplicaSets(allRSs);
  // More available than wanted happens while scaling down: not negative.
  const unavailableReplicas = Math.max(0, totalReplicas - availableReplicas);
  const counts: [keyof DeploymentStatus, number][] = [
    ['observedGeneration', deployment.metadata?.generation ?? 0],
    ['replicas', getActualReplicaCountForReplicaSets(allRSs)],
    ['updatedReplicas', getActualReplicaCountForReplicaSets([newRS])],
    ['readyReplicas', getReadyReplicaCountForReplicaSets(allRSs)],
    ['availableReplicas', availableReplicas],
    ['unavailableReplicas', unavailableReplicas],
  ];
  const status: DeploymentStatus = {};
  for (const [field, value] of counts) {
    if (value !== 0) (status as Record<string, number>)[field] = value;
  }
  const collisionCount = deployment.status?.collisionCount;
  if (collisionCount !== undefined && collisionCount !== null)
    status.collisionCount = collisionCount;
  // Copy the conditions one by one, leaving the Deployment's own alone.
  const conditions = deployment.status?.conditions;
  if (conditions && conditions.length > 0) status.conditions = conditions.map((c) => ({ ...c }));

  if (availableReplicas >= specReplicas(deployment) - maxUnavailable(deployment)) {
    const minAvailability = newDeploymentCondition(
      'Available',
      'True',
      minimumReplicasAvailable,
      'Deployment has minimum availability.',
      now,
    );
    setDeploymentCondition(status, minAvailability);
  } else {
    const noMinAvailability = newDeploymentCondition(
      'Available',
      'False',
      minimumReplicasUnavailable,
      'Deployment does not have minimum availability.',
      now,
    );
    setDeploymentCondition(status, noMinAvailability);
  }
  return status;
}
//#endregion calculate-status

/**
 * Go's `reflect.DeepEqual` of two Deployment statuses, reading absent counts
 * as 0 (Go's zero values) and timestamps as instants.
 */
export function deploymentStatusEqual(
  a: DeploymentStatus | undefined,
  b: DeploymentStatus | undefined,
): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const counts = [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
  ] as const;
  for (const f of counts) if ((x[f] ?? 0) !== (y[f] ?? 0)) return false;
  if ((x.collisionCount ?? undefined) !== (y.collisionCount ?? undefined)) return false;
  const cx = x.conditions ?? [];
  const cy = y.conditions ?? [];
  if (cx.length !== cy.length) return false;
  return cx.every((c, i) => {
    const o = cy[i]!;
    return (
      c.type === o.type &&
      c.status === o.status &&
      (c.reason ?? '') === (o.reason ?? '') &&
      (c.message ?? '') === (o.message ?? '') &&
      timeOf(c.lastUpdateTime) === timeOf(o.lastUpdateTime) &&
      timeOf(c.lastTransitionTime) === timeOf(o.lastTransitionTime)
    );
  });
}

/**
 * True if `spec.replicas` changed since the active ReplicaSets were last
 * sized: a scaling event, to be handled by {@link sync} rather than a rollout
 * step. Syncs the new ReplicaSet's annotations as a side effect, as upstream.
 * Go's `isScalingEvent`.
 */
export async function isScalingEvent(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<boolean> {
  const [newRS, oldRSs] = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  for (const rs of filterActiveReplicaSets([...oldRSs, newRS])) {
    const desired = getDesiredReplicasAnnotation(rs, dc.logger);
    if (desired === undefined) continue;
    if (desired !== specReplicas(d)) return true;
  }
  return false;
}
