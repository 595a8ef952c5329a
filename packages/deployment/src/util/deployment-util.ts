// The Deployment controller's helpers: pkg/controller/deployment/util/deployment_util.go
// (revision and replica annotations, conditions, finding the new and old
// ReplicaSets, the surge and unavailability arithmetic, proportions, progress
// checks), plus GetDeploymentsForReplicaSet from client-go's
// listers/apps/v1/deployment_expansion.go.
import type {
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  ReplicaSet,
  ReplicaSetCondition,
} from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isControlledBy,
  labelSelectorAsSelector,
  nameOf,
  namespaceOf,
  noopLogger,
  type KubeObject,
  type ListOptions,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';
import {
  defaultDeploymentUniqueLabelKey,
  filterActiveReplicaSets,
  replicaSetsByCreationTimestamp,
} from '@kcm-ts/controller';
import { getScaledValueFromIntOrPercent, type IntOrString } from './int-or-string.js';
import { deepCopy, semanticDeepEqual } from './semantic.js';
import { parseGoInt, parseUint } from './strconv.js';

//#region annotations
/**
 * On a ReplicaSet: its place in the rollout sequence. On a Deployment: a copy
 * of its new ReplicaSet's revision. Go's `RevisionAnnotation`.
 *
 * @category Annotations
 */
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
/**
 * On a ReplicaSet: the earlier revisions it served, comma-separated, when a
 * rollback made it new again. Go's `RevisionHistoryAnnotation`.
 *
 * @category Annotations
 */
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
/**
 * On a ReplicaSet: the Deployment's `spec.replicas` when the ReplicaSet was last
 * sized; a different value marks a scaling event. Go's `DesiredReplicasAnnotation`.
 *
 * @category Annotations
 */
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
/**
 * On a ReplicaSet: `spec.replicas + maxSurge` of the Deployment at that time,
 * the base of proportional scaling. Go's `MaxReplicasAnnotation`.
 *
 * @category Annotations
 */
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
/**
 * On a Deployment: the legacy rollback request (a revision number, `0` for
 * the previous one) that `extensions/v1beta1` clients stored in
 * `spec.rollbackTo`. Go's `apps.DeprecatedRollbackTo`.
 *
 * @category Annotations
 */
export const deprecatedRollbackTo = 'deprecated.deployment.rollback.to';
/**
 * kubectl's record of the last applied manifest. Go's `v1.LastAppliedConfigAnnotation`.
 *
 * @category Annotations
 */
export const lastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The Deployment annotations never copied to its ReplicaSets, and kept on the
 * Deployment when a rollback copies a ReplicaSet's annotations back. Every
 * other annotation, such as `kubernetes.io/change-cause`, is copied. Go's
 * `annotationsToSkip`.
 *
 * @category Annotations
 */
export const annotationsToSkip: ReadonlySet<string> = new Set([
  lastAppliedConfigAnnotation,
  revisionAnnotation,
  revisionHistoryAnnotation,
  desiredReplicasAnnotation,
  maxReplicasAnnotation,
  deprecatedRollbackTo,
]);
//#endregion annotations

/**
 * Event reason when a rollback finds no revision to go to. Go's `RollbackRevisionNotFound`.
 *
 * @category Reasons
 */
export const rollbackRevisionNotFound = 'DeploymentRollbackRevisionNotFound';
/**
 * Event reason when the revision asked for has the current template. Go's `RollbackTemplateUnchanged`.
 *
 * @category Reasons
 */
export const rollbackTemplateUnchanged = 'DeploymentRollbackTemplateUnchanged';
/**
 * Event reason of a rollback done. Go's `RollbackDone`.
 *
 * @category Reasons
 */
export const rollbackDone = 'DeploymentRollback';

//#region reasons
/**
 * Progressing: a ReplicaSet of the rollout was updated. Go's `ReplicaSetUpdatedReason`.
 *
 * @category Reasons
 */
export const replicaSetUpdatedReason = 'ReplicaSetUpdated';
/**
 * Progressing (False): the new ReplicaSet could not be created. Go's `FailedRSCreateReason`.
 *
 * @category Reasons
 */
export const failedRSCreateReason = 'ReplicaSetCreateError';
/**
 * Progressing: a new ReplicaSet was created. Go's `NewReplicaSetReason`.
 *
 * @category Reasons
 */
export const newReplicaSetReason = 'NewReplicaSetCreated';
/**
 * Progressing: an existing new ReplicaSet was found. Go's `FoundNewRSReason`.
 *
 * @category Reasons
 */
export const foundNewRSReason = 'FoundNewReplicaSet';
/**
 * Progressing: the rollout is complete. Go's `NewRSAvailableReason`.
 *
 * @category Reasons
 */
export const newRSAvailableReason = 'NewReplicaSetAvailable';
/**
 * Progressing (False): no progress within `progressDeadlineSeconds`. Go's `TimedOutReason`.
 *
 * @category Reasons
 */
export const timedOutReason = 'ProgressDeadlineExceeded';
/**
 * Progressing (Unknown): the Deployment is paused. Go's `PausedDeployReason`.
 *
 * @category Reasons
 */
export const pausedDeployReason = 'DeploymentPaused';
/**
 * Progressing (Unknown): the Deployment was resumed. Go's `ResumedDeployReason`.
 *
 * @category Reasons
 */
export const resumedDeployReason = 'DeploymentResumed';
/**
 * Available (True): at least `replicas − maxUnavailable` pods are available.
 * Go's `MinimumReplicasAvailable`.
 *
 * @category Reasons
 */
export const minimumReplicasAvailable = 'MinimumReplicasAvailable';
/**
 * Available (False): fewer pods than that are available. Go's `MinimumReplicasUnavailable`.
 *
 * @category Reasons
 */
export const minimumReplicasUnavailable = 'MinimumReplicasUnavailable';
//#endregion reasons

/**
 * The Deployment condition types: `Available`, `Progressing` and
 * `ReplicaFailure` (Go's `apps.DeploymentAvailable` and friends).
 *
 * @category Conditions
 */
export type DeploymentConditionType = 'Available' | 'Progressing' | 'ReplicaFailure';

/**
 * The strategy that replaces pods gradually. Go's `apps.RollingUpdateDeploymentStrategyType`.
 *
 * @category Surge and unavailability
 */
export const rollingUpdateDeploymentStrategyType = 'RollingUpdate';
/**
 * The strategy that stops every old pod before starting new ones. Go's
 * `apps.RecreateDeploymentStrategyType`.
 *
 * @category Surge and unavailability
 */
export const recreateDeploymentStrategyType = 'Recreate';

/** `math.MaxInt32`: "no limit" for progressDeadlineSeconds and revisionHistoryLimit. */
const maxInt32 = 2147483647;

/** The zero `metav1.Time` (0001-01-01T00:00:00Z): what a missing timestamp reads as in Go. */
const goZeroTime = ((): number => {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return d.getTime();
})();

/** Reads a `metav1.Time` as milliseconds, a missing one as Go's zero time. */
export function timeOf(value: string | undefined | null): number {
  if (!value) return goZeroTime;
  return Date.parse(value);
}

/** `spec.replicas` of a Deployment or ReplicaSet, with the API default of 1 when unset. */
export function specReplicas(obj: Deployment | ReplicaSet | null | undefined): number {
  return obj?.spec?.replicas ?? 1;
}

/** The annotations of `obj`, created empty if it has none (Go code writes into a made map). */
function annotationsOf(obj: KubeObject): Record<string, string> {
  const meta = (obj.metadata ??= {});
  return (meta.annotations ??= {});
}

//#region conditions
/**
 * A new condition with both timestamps set to `now`. Go's `NewDeploymentCondition`.
 *
 * @param now - the current time in milliseconds, from the controller's clock
 *
 * @category Conditions
 */
export function newDeploymentCondition(
  condType: DeploymentConditionType,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: number,
): DeploymentCondition {
  const t = formatTime(now);
  return { type: condType, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/**
 * A copy of the condition of type `condType`, or `undefined`. Go's `GetDeploymentCondition`.
 *
 * @category Conditions
 */
export function getDeploymentCondition(
  status: DeploymentStatus | undefined,
  condType: string,
): DeploymentCondition | undefined {
  const c = status?.conditions?.find((x) => x.type === condType);
  return c === undefined ? undefined : { ...c };
}

/**
 * Puts `condition` into `status`. A condition of the same type with the same
 * status and reason is left exactly as it is (message and times included);
 * otherwise the old one is removed, keeping its lastTransitionTime when the
 * status is unchanged, and the new one is appended. Go's `SetDeploymentCondition`.
 *
 * @category Conditions
 */
export function setDeploymentCondition(
  status: DeploymentStatus,
  condition: DeploymentCondition,
): void {
  const current = getDeploymentCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) {
    return;
  }
  const next = { ...condition };
  if (current && current.status === condition.status) {
    next.lastTransitionTime = current.lastTransitionTime;
  }
  status.conditions = [...filterOutCondition(status.conditions, condition.type), next];
}

/**
 * Removes the condition of type `condType` from `status`. Go's `RemoveDeploymentCondition`.
 *
 * @category Conditions
 */
export function removeDeploymentCondition(status: DeploymentStatus, condType: string): void {
  const rest = filterOutCondition(status.conditions, condType);
  // Go leaves a nil slice behind, which is absent on the wire.
  if (rest.length === 0) delete status.conditions;
  else status.conditions = rest;
}

function filterOutCondition(
  conditions: DeploymentCondition[] | undefined,
  condType: string,
): DeploymentCondition[] {
  return (conditions ?? []).filter((c) => c.type !== condType);
}

/**
 * A ReplicaSet condition as a Deployment condition, both timestamps taken from
 * its lastTransitionTime: how `ReplicaFailure` reaches the Deployment. Go's
 * `ReplicaSetToDeploymentCondition`.
 *
 * @category Conditions
 */
export function replicaSetToDeploymentCondition(cond: ReplicaSetCondition): DeploymentCondition {
  const out: DeploymentCondition = { type: cond.type, status: cond.status };
  if (cond.lastTransitionTime !== undefined) {
    out.lastTransitionTime = cond.lastTransitionTime;
    out.lastUpdateTime = cond.lastTransitionTime;
  }
  if (cond.reason !== undefined) out.reason = cond.reason;
  if (cond.message !== undefined) out.message = cond.message;
  return out;
}
//#endregion conditions

//#region revisions
/**
 * Sets the Deployment's revision annotation; true if it changed. Go's
 * `SetDeploymentRevision`.
 *
 * @category Revisions
 */
export function setDeploymentRevision(deployment: Deployment, revision: string): boolean {
  const annotations = annotationsOf(deployment);
  if (annotations[revisionAnnotation] === revision) return false;
  annotations[revisionAnnotation] = revision;
  return true;
}

/**
 * The revision number of `obj` (a ReplicaSet or a Deployment): 0 without the
 * annotation. Go's `Revision`.
 *
 * @throws Error `strconv.ParseInt: parsing "x": invalid syntax` for a value that is not an int64
 *
 * @category Revisions
 */
export function revision(obj: KubeObject): number {
  const v = obj.metadata?.annotations?.[revisionAnnotation];
  if (v === undefined) return 0;
  return parseGoInt(v, 64);
}

/**
 * The highest revision among `allRSs`, skipping unparsable ones; 0 if none.
 * Go's `MaxRevision`.
 *
 * @category Revisions
 */
export function maxRevision(
  allRSs: readonly (ReplicaSet | null | undefined)[],
  logger: Logger = noopLogger,
): number {
  let max = 0;
  for (const rs of allRSs) {
    if (!rs) continue;
    try {
      const v = revision(rs);
      if (v > max) max = v;
    } catch (err) {
      logger.v(4).info('Skipping a replica set whose revision annotation does not parse', {
        replicaSet: nameOf(rs),
        err: String(err),
      });
    }
  }
  return max;
}

/**
 * The second highest revision among `allRSs`: the one before the current.
 * An equal maximum seen again pushes the previous maximum down. Go's `LastRevision`.
 *
 * @category Revisions
 */
export function lastRevision(
  allRSs: readonly (ReplicaSet | null | undefined)[],
  logger: Logger = noopLogger,
): number {
  let max = 0;
  let secMax = 0;
  for (const rs of allRSs) {
    if (!rs) continue;
    let v: number;
    try {
      v = revision(rs);
    } catch (err) {
      logger.v(4).info('Skipping a replica set whose revision annotation does not parse', {
        replicaSet: nameOf(rs),
        err: String(err),
      });
      continue;
    }
    if (v >= max) {
      secMax = max;
      max = v;
    } else if (v > secMax) {
      secMax = v;
    }
  }
  return secMax;
}

/**
 * Brings the annotations of the Deployment's new ReplicaSet up to date: copies
 * the Deployment's annotations (except {@link annotationsToSkip}), raises the
 * revision to `newRevision` if it is lower, recording the old one in the
 * revision history (trimmed from the front to `revHistoryLimitInChars`), and,
 * for a ReplicaSet about to be created (`exists` false), sets the desired and
 * max replica annotations. Returns whether anything changed. Go's
 * `SetNewReplicaSetAnnotations`.
 *
 * @category Revisions
 */
export function setNewReplicaSetAnnotations(
  deployment: Deployment,
  newRS: ReplicaSet,
  newRevision: string,
  exists: boolean,
  revHistoryLimitInChars: number,
  logger: Logger = noopLogger,
): boolean {
  let annotationChanged = copyDeploymentAnnotationsToReplicaSet(deployment, newRS);
  const annotations = annotationsOf(newRS);
  const oldRevision = annotations[revisionAnnotation];
  const ok = oldRevision !== undefined;
  let oldRevisionInt = 0;
  if (ok && oldRevision !== '') {
    try {
      oldRevisionInt = parseGoInt(oldRevision, 64);
    } catch (err) {
      logger.info('Replica set revision is not an integer: annotations left as they are', {
        err: String(err),
      });
      return false;
    }
  }
  let newRevisionInt: number;
  try {
    newRevisionInt = parseGoInt(newRevision, 64);
  } catch (err) {
    logger.info('New revision is not an integer: annotations left as they are', {
      err: String(err),
    });
    return false;
  }
  if (oldRevisionInt < newRevisionInt) {
    annotations[revisionAnnotation] = newRevision;
    annotationChanged = true;
    logger.v(4).info('Updating replica set revision', { replicaSet: nameOf(newRS), newRevision });
  }
  // A ReplicaSet that had a revision and gets a higher one is being rolled
  // back to: keep what it was before.
  if (ok && oldRevisionInt < newRevisionInt) {
    const history = annotations[revisionHistoryAnnotation] ?? '';
    const oldRevisions = history.split(',');
    if (oldRevisions[0] === '') {
      annotations[revisionHistoryAnnotation] = oldRevision;
    } else {
      let totalLen = history.length + oldRevision.length + 1;
      let start = 0;
      while (totalLen > revHistoryLimitInChars && start < oldRevisions.length) {
        totalLen -= oldRevisions[start]!.length + 1;
        start++;
      }
      if (totalLen <= revHistoryLimitInChars) {
        annotations[revisionHistoryAnnotation] = [...oldRevisions.slice(start), oldRevision].join(
          ',',
        );
      } else {
        logger.info('Revision history annotation is full: old revision not recorded', {
          revisionHistoryLimit: revHistoryLimitInChars,
        });
      }
    }
  }
  if (!exists) {
    const replicas = specReplicas(deployment);
    if (setReplicasAnnotations(newRS, replicas, replicas + maxSurge(deployment))) {
      annotationChanged = true;
    }
  }
  return annotationChanged;
}

function copyDeploymentAnnotationsToReplicaSet(deployment: Deployment, rs: ReplicaSet): boolean {
  let changed = false;
  const rsAnnotations = annotationsOf(rs);
  for (const [k, v] of Object.entries(deployment.metadata?.annotations ?? {})) {
    // The revision is the ReplicaSet's own: the Deployment only mirrors it,
    // and its copy may be stale if writing it failed.
    if (annotationsToSkip.has(k) || rsAnnotations[k] === v) continue;
    rsAnnotations[k] = v;
    changed = true;
  }
  return changed;
}

/**
 * Replaces the Deployment's annotations with those of the ReplicaSet being
 * rolled back to, keeping the Deployment's own {@link annotationsToSkip}.
 * Go's `SetDeploymentAnnotationsTo`.
 *
 * @category Revisions
 */
export function setDeploymentAnnotationsTo(deployment: Deployment, rollbackToRS: ReplicaSet): void {
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(deployment.metadata?.annotations ?? {})) {
    if (annotationsToSkip.has(k)) next[k] = v;
  }
  for (const [k, v] of Object.entries(rollbackToRS.metadata?.annotations ?? {})) {
    if (!annotationsToSkip.has(k)) next[k] = v;
  }
  (deployment.metadata ??= {}).annotations = next;
}
//#endregion revisions

/**
 * The only active ReplicaSet, or the newest one if none is active; `undefined`
 * when two or more are active (they must be scaled proportionally). Sorts
 * `oldRSs` newest first, in place, as Go does. Go's `FindActiveOrLatest`.
 *
 * @category ReplicaSets
 */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  oldRSs.sort((a, b) => replicaSetsByCreationTimestamp(b, a));
  const active = filterActiveReplicaSets([...oldRSs, newRS]);
  switch (active.length) {
    case 0:
      return newRS ?? oldRSs[0];
    case 1:
      return active[0];
    default:
      return undefined;
  }
}

//#region replica-annotations
/**
 * Reads a non-negative int32 annotation: `undefined` without it, an error for
 * anything else than 0..2147483647 (so `-1` is a syntax error, as
 * `strconv.ParseUint` says). Go's `getNonNegativeInt32FromAnnotation`.
 */
function getNonNegativeInt32FromAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const value = rs.metadata?.annotations?.[key];
  if (value === undefined) return undefined;
  return parseUint(value, 31);
}

function getNonNegativeInt32FromAnnotationVerbose(
  logger: Logger,
  rs: ReplicaSet,
  key: string,
): number | undefined {
  try {
    return getNonNegativeInt32FromAnnotation(rs, key);
  } catch (err) {
    logger.v(2).info('Replica set annotation is not a non-negative int32', {
      annotationValue: rs.metadata?.annotations?.[key],
      annotationKey: key,
      replicaSet: nameOf(rs),
      err: String(err),
    });
    return undefined;
  }
}

/**
 * The desired-replicas annotation of `rs`, or `undefined` if it is missing or
 * not a non-negative int32. Go's `GetDesiredReplicasAnnotation`.
 *
 * @category Annotations
 */
export function getDesiredReplicasAnnotation(
  rs: ReplicaSet,
  logger: Logger = noopLogger,
): number | undefined {
  return getNonNegativeInt32FromAnnotationVerbose(logger, rs, desiredReplicasAnnotation);
}

function getMaxReplicasAnnotation(rs: ReplicaSet, logger: Logger): number | undefined {
  return getNonNegativeInt32FromAnnotationVerbose(logger, rs, maxReplicasAnnotation);
}

/**
 * Sets the desired and max replica annotations; true if either changed. Go's
 * `SetReplicasAnnotations`.
 *
 * @category Annotations
 */
export function setReplicasAnnotations(
  rs: ReplicaSet,
  desiredReplicas: number,
  maxReplicas: number,
): boolean {
  const annotations = annotationsOf(rs);
  let updated = false;
  if (annotations[desiredReplicasAnnotation] !== String(desiredReplicas)) {
    annotations[desiredReplicasAnnotation] = String(desiredReplicas);
    updated = true;
  }
  if (annotations[maxReplicasAnnotation] !== String(maxReplicas)) {
    annotations[maxReplicasAnnotation] = String(maxReplicas);
    updated = true;
  }
  return updated;
}

/**
 * True if the desired and max replica annotations are missing or differ from
 * these values. Go's `ReplicasAnnotationsNeedUpdate`.
 *
 * @category Annotations
 */
export function replicasAnnotationsNeedUpdate(
  rs: ReplicaSet,
  desiredReplicas: number,
  maxReplicas: number,
): boolean {
  const annotations = rs.metadata?.annotations;
  if (annotations === undefined) return true;
  return (
    annotations[desiredReplicasAnnotation] !== String(desiredReplicas) ||
    annotations[maxReplicasAnnotation] !== String(maxReplicas)
  );
}
//#endregion replica-annotations

//#region surge
/**
 * True for the `RollingUpdate` strategy. Go's `IsRollingUpdate`.
 *
 * @category Surge and unavailability
 */
export function isRollingUpdate(deployment: Deployment): boolean {
  return deployment.spec?.strategy?.type === rollingUpdateDeploymentStrategyType;
}

/**
 * Resolves maxSurge (rounded up) and maxUnavailable (rounded down) against
 * `desired`, a missing one counting as 0. If both come to 0, maxUnavailable
 * becomes 1, or the rollout could never move. Go's `ResolveFenceposts`.
 *
 * @returns `[surge, unavailable]`
 * @throws Error from {@link getScaledValueFromIntOrPercent} for a malformed value
 *
 * @category Surge and unavailability
 */
export function resolveFenceposts(
  maxSurgeValue: IntOrString | null | undefined,
  maxUnavailableValue: IntOrString | null | undefined,
  desired: number,
): [surge: number, unavailable: number] {
  const surge = getScaledValueFromIntOrPercent(maxSurgeValue ?? 0, desired, true);
  let unavailable = getScaledValueFromIntOrPercent(maxUnavailableValue ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) {
    // Rounding down may make both zero, which validation forbids users to
    // write; allow one unavailable pod rather than surge, which quota may block.
    unavailable = 1;
  }
  return [surge, unavailable];
}

function fenceposts(deployment: Deployment): [number, number] {
  const ru = deployment.spec?.strategy?.rollingUpdate;
  try {
    return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, specReplicas(deployment));
  } catch {
    // Validation rejects malformed values; Go ignores the error and reads 0, 0.
    return [0, 0];
  }
}

/**
 * How many pods a rolling Deployment may be short of `spec.replicas`: 0 for
 * Recreate or 0 replicas, never more than the replicas. Go's `MaxUnavailable`.
 *
 * @category Surge and unavailability
 */
export function maxUnavailable(deployment: Deployment): number {
  const replicas = specReplicas(deployment);
  if (!isRollingUpdate(deployment) || replicas === 0) return 0;
  const [, unavailable] = fenceposts(deployment);
  return Math.min(unavailable, replicas);
}

/**
 * `spec.replicas − maxUnavailable` for a rolling Deployment, else 0. Go's `MinAvailable`.
 *
 * @category Surge and unavailability
 */
export function minAvailable(deployment: Deployment): number {
  if (!isRollingUpdate(deployment)) return 0;
  return specReplicas(deployment) - maxUnavailable(deployment);
}

/**
 * How many pods a rolling Deployment may run above `spec.replicas`; 0 for
 * Recreate. Go's `MaxSurge`.
 *
 * @category Surge and unavailability
 */
export function maxSurge(deployment: Deployment): number {
  if (!isRollingUpdate(deployment)) return 0;
  return fenceposts(deployment)[0];
}
//#endregion surge

//#region proportions
/**
 * How many replicas `rs` gets of the `deploymentReplicasToAdd` (negative when
 * scaling down) that a scaling event spreads over the active ReplicaSets,
 * `deploymentReplicasAdded` having been handed out already: its fraction,
 * clamped so the total never overshoots. Go's `GetProportion`.
 *
 * @category Proportional scaling
 */
export function getProportion(
  rs: ReplicaSet | undefined,
  deployment: Deployment,
  deploymentReplicasToAdd: number,
  deploymentReplicasAdded: number,
  logger: Logger = noopLogger,
): number {
  if (
    rs === undefined ||
    specReplicas(rs) === 0 ||
    deploymentReplicasToAdd === 0 ||
    deploymentReplicasToAdd === deploymentReplicasAdded
  ) {
    return 0;
  }
  const rsFraction = getReplicaSetFraction(rs, deployment, logger);
  const allowed = deploymentReplicasToAdd - deploymentReplicasAdded;
  return deploymentReplicasToAdd > 0
    ? Math.min(rsFraction, allowed)
    : Math.max(rsFraction, allowed);
}

/**
 * The change in size `rs` should see when the Deployment's `replicas +
 * maxSurge` moves from what its max-replicas annotation recorded (or, if that
 * is missing, invalid or 0, the Deployment's `status.replicas`) to the current
 * value, rounded half away from zero; the whole size (negative) when scaling
 * to 0, and 0 when nothing is known. Go's `getReplicaSetFraction`.
 *
 * @category Proportional scaling
 */
export function getReplicaSetFraction(
  rs: ReplicaSet,
  deployment: Deployment,
  logger: Logger = noopLogger,
): number {
  const rsReplicas = specReplicas(rs);
  if (specReplicas(deployment) === 0) return -rsReplicas;
  const deploymentMaxReplicas = specReplicas(deployment) + maxSurge(deployment);
  let before = getMaxReplicasAnnotation(rs, logger);
  if (before === undefined || before === 0) {
    // The annotation was tampered with: fall back to the current size. Not an
    // exact proportion if other ReplicaSets differ, but getProportion's
    // clamping keeps the total within bounds.
    before = deployment.status?.replicas ?? 0;
    if (before === 0) return 0;
  }
  const scaled = (rsReplicas * deploymentMaxReplicas) / before;
  return roundHalfAwayFromZero(scaled) - rsReplicas;
}

/** Go's `math.Round` (k8s.io/utils/integer.RoundToInt32): halves go away from zero. */
function roundHalfAwayFromZero(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
//#endregion proportions

/**
 * A function listing ReplicaSets of a namespace: Go's `RsListFunc`.
 *
 * @category ReplicaSets
 */
export type RsListFunc = (namespace: string, options: ListOptions) => Promise<ReplicaSet[]>;

/**
 * An {@link RsListFunc} that lists live from the API server. Go's `RsListFromClient`.
 *
 * @category ReplicaSets
 */
export function rsListFromClient(client: ResourceClient<ReplicaSet>): RsListFunc {
  return async (namespace, options) => (await client.inNamespace(namespace).list(options)).items;
}

/**
 * The ReplicaSets matching the Deployment's selector and controlled by it,
 * without adopting or releasing anything. Go's `ListReplicaSets`.
 *
 * @category ReplicaSets
 */
export async function listReplicaSets(
  deployment: Deployment,
  getRSList: RsListFunc,
): Promise<ReplicaSet[]> {
  const selector = labelSelectorAsSelector(deployment.spec?.selector);
  const all = await getRSList(namespaceOf(deployment), { labelSelector: selector.string() });
  return all.filter((rs) => isControlledBy(rs, deployment));
}

/**
 * True if two pod templates are semantically equal once the
 * `pod-template-hash` label is ignored: how the new ReplicaSet is recognised
 * (hashes change between versions, and the Deployment's template has none).
 * Neither argument is changed. Go's `EqualIgnoreHash`.
 *
 * @category ReplicaSets
 */
export function equalIgnoreHash(
  template1: PodTemplateSpec | undefined,
  template2: PodTemplateSpec | undefined,
): boolean {
  const t1 = deepCopy(template1 ?? {});
  const t2 = deepCopy(template2 ?? {});
  delete t1.metadata?.labels?.[defaultDeploymentUniqueLabelKey];
  delete t2.metadata?.labels?.[defaultDeploymentUniqueLabelKey];
  return semanticDeepEqual(t1, t2);
}

/**
 * The Deployment's new ReplicaSet: the oldest whose template equals the
 * Deployment's (ignoring the hash label), or `undefined`. Sorts `rsList`
 * oldest first, in place. Go's `FindNewReplicaSet`.
 *
 * @category ReplicaSets
 */
export function findNewReplicaSet(
  deployment: Deployment,
  rsList: ReplicaSet[],
): ReplicaSet | undefined {
  rsList.sort(replicaSetsByCreationTimestamp);
  // More than one may match (after an upgrade changed hashes): the oldest wins.
  return rsList.find((rs) => equalIgnoreHash(rs.spec?.template, deployment.spec?.template));
}

/**
 * The old ReplicaSets: those with replicas (`required`), and all of them
 * (`all`), that is every ReplicaSet but the new one. Go's `FindOldReplicaSets`.
 *
 * @category ReplicaSets
 */
export function findOldReplicaSets(
  deployment: Deployment,
  rsList: ReplicaSet[],
): [required: ReplicaSet[], all: ReplicaSet[]] {
  const required: ReplicaSet[] = [];
  const all: ReplicaSet[] = [];
  const newRS = findNewReplicaSet(deployment, rsList);
  for (const rs of rsList) {
    if (newRS !== undefined && rs.metadata?.uid === newRS.metadata?.uid) continue;
    all.push(rs);
    if (specReplicas(rs) !== 0) required.push(rs);
  }
  return [required, all];
}

/**
 * Copies a ReplicaSet's template into the Deployment, without the
 * `pod-template-hash` label: the legacy rollback. Go's `SetFromReplicaSetTemplate`.
 *
 * @category Rollback
 */
export function setFromReplicaSetTemplate(
  deployment: Deployment,
  template: PodTemplateSpec,
): Deployment {
  const copy = deepCopy(template);
  const spec = (deployment.spec ??= { selector: {}, template: {} });
  spec.template = {
    ...(copy.metadata && { metadata: copy.metadata }),
    ...(copy.spec && { spec: copy.spec }),
  };
  const labels = spec.template.metadata?.labels;
  if (labels) delete labels[defaultDeploymentUniqueLabelKey];
  return deployment;
}

//#region counts
/**
 * Σ `spec.replicas`. Go's `GetReplicaCountForReplicaSets`.
 *
 * @category Replica counts
 */
export function getReplicaCountForReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
): number {
  return replicaSets.reduce((n, rs) => (rs ? n + specReplicas(rs) : n), 0);
}

/**
 * Σ `status.replicas`: the pods that exist. Go's `GetActualReplicaCountForReplicaSets`.
 *
 * @category Replica counts
 */
export function getActualReplicaCountForReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
): number {
  return replicaSets.reduce((n, rs) => (rs ? n + (rs.status?.replicas ?? 0) : n), 0);
}

/**
 * Σ `status.readyReplicas`. Go's `GetReadyReplicaCountForReplicaSets`.
 *
 * @category Replica counts
 */
export function getReadyReplicaCountForReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
): number {
  return replicaSets.reduce((n, rs) => (rs ? n + (rs.status?.readyReplicas ?? 0) : n), 0);
}

/**
 * Σ `status.availableReplicas`. Go's `GetAvailableReplicaCountForReplicaSets`.
 *
 * @category Replica counts
 */
export function getAvailableReplicaCountForReplicaSets(
  replicaSets: readonly (ReplicaSet | null | undefined)[],
): number {
  return replicaSets.reduce((n, rs) => (rs ? n + (rs.status?.availableReplicas ?? 0) : n), 0);
}
//#endregion counts

//#region progress
/**
 * True once every desired replica is updated and available, no old pod is
 * left, and the status describes the current generation. Go's `DeploymentComplete`.
 *
 * @category Progress
 */
export function deploymentComplete(deployment: Deployment, newStatus: DeploymentStatus): boolean {
  const replicas = specReplicas(deployment);
  return (
    (newStatus.updatedReplicas ?? 0) === replicas &&
    (newStatus.replicas ?? 0) === replicas &&
    (newStatus.availableReplicas ?? 0) === replicas &&
    (newStatus.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  );
}

/**
 * True if `newStatus` shows progress over the Deployment's current status:
 * more updated, ready or available pods, or fewer old ones. Go's
 * `DeploymentProgressing`.
 *
 * @category Progress
 */
export function deploymentProgressing(
  deployment: Deployment,
  newStatus: DeploymentStatus,
): boolean {
  const old = deployment.status ?? {};
  const oldStatusOldReplicas = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newStatusOldReplicas = (newStatus.replicas ?? 0) - (newStatus.updatedReplicas ?? 0);
  return (
    (newStatus.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newStatusOldReplicas < oldStatusOldReplicas ||
    (newStatus.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (newStatus.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/**
 * True if the rollout has made no progress for `progressDeadlineSeconds`
 * since the Progressing condition of `newStatus` was last updated (strictly
 * after the deadline), or already carries `ProgressDeadlineExceeded`; never
 * without a deadline, without a Progressing condition, or after a completed
 * rollout. Go's `DeploymentTimedOut`.
 *
 * @param now - the current time in milliseconds
 *
 * @category Progress
 */
export function deploymentTimedOut(
  deployment: Deployment,
  newStatus: DeploymentStatus,
  now: number,
  logger: Logger = noopLogger,
): boolean {
  if (!hasProgressDeadline(deployment)) return false;
  const condition = getDeploymentCondition(newStatus, 'Progressing');
  if (condition === undefined) return false;
  // After a completed rollout a resync may come before the status records
  // the new ReplicaSet; do not call that a timeout.
  if (condition.reason === newRSAvailableReason) return false;
  if (condition.reason === timedOutReason) return true;
  const from = timeOf(condition.lastUpdateTime);
  const deadline = from + deployment.spec!.progressDeadlineSeconds! * 1000;
  const timedOut = deadline < now;
  logger.v(4).info('Progress deadline check', {
    deployment: nameOf(deployment),
    timeout: timedOut,
    from: condition.lastUpdateTime,
    now: formatTime(now),
  });
  return timedOut;
}
//#endregion progress

/**
 * The size the new ReplicaSet should have now. RollingUpdate: grow it as far
 * as `replicas + maxSurge` over the sum of every ReplicaSet's `spec.replicas`
 * allows, never past `replicas` (maxSurge resolved alone, without the
 * fencepost rule); Recreate: `replicas`. Go's `NewRSNewReplicas`.
 *
 * @throws Error `deployment type X isn't supported` for another strategy, or a malformed maxSurge
 *
 * @category Surge and unavailability
 */
export function newRSNewReplicas(
  deployment: Deployment,
  allRSs: readonly (ReplicaSet | null | undefined)[],
  newRS: ReplicaSet,
): number {
  const replicas = specReplicas(deployment);
  const type = deployment.spec?.strategy?.type;
  switch (type) {
    case rollingUpdateDeploymentStrategyType: {
      const surge = getScaledValueFromIntOrPercent(
        deployment.spec?.strategy?.rollingUpdate?.maxSurge,
        replicas,
        true,
      );
      const currentPodCount = getReplicaCountForReplicaSets(allRSs);
      const maxTotalPods = replicas + surge;
      if (currentPodCount >= maxTotalPods) return specReplicas(newRS);
      const scaleUpCount = Math.min(maxTotalPods - currentPodCount, replicas - specReplicas(newRS));
      return specReplicas(newRS) + scaleUpCount;
    }
    case recreateDeploymentStrategyType:
      return replicas;
    default:
      throw new Error(`deployment type ${type ?? ''} isn't supported`);
  }
}

/**
 * True if `rs` holds all of the Deployment: its size, its desired-replicas
 * annotation and its available pods all equal `spec.replicas`. Go's `IsSaturated`.
 *
 * @category Surge and unavailability
 */
export function isSaturated(deployment: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const desired = getDesiredReplicasAnnotation(rs);
  if (desired === undefined) return false;
  const replicas = specReplicas(deployment);
  return (
    specReplicas(rs) === replicas &&
    desired === replicas &&
    (rs.status?.availableReplicas ?? 0) === replicas
  );
}

/**
 * True if the Deployment has a progress deadline (set, and not 2147483647).
 * Go's `HasProgressDeadline`.
 *
 * @category Progress
 */
export function hasProgressDeadline(deployment: Deployment): boolean {
  const pds = deployment.spec?.progressDeadlineSeconds;
  return pds !== undefined && pds !== null && pds !== maxInt32;
}

/**
 * True if the Deployment limits its revision history (set, and not
 * 2147483647). Go's `HasRevisionHistoryLimit`.
 *
 * @category Revisions
 */
export function hasRevisionHistoryLimit(deployment: Deployment): boolean {
  const limit = deployment.spec?.revisionHistoryLimit;
  return limit !== undefined && limit !== null && limit !== maxInt32;
}

/**
 * Orders ReplicaSets by revision, oldest first; on a tie or an unparsable
 * revision, by creation time and then name. A comparator for
 * `Array.prototype.sort`. Go's `ReplicaSetsByRevision`.
 *
 * @category ReplicaSets
 */
export function replicaSetsByRevision(a: ReplicaSet, b: ReplicaSet): number {
  let r1: number;
  let r2: number;
  try {
    r1 = revision(a);
    r2 = revision(b);
  } catch {
    return replicaSetsByCreationTimestamp(a, b);
  }
  if (r1 === r2) return replicaSetsByCreationTimestamp(a, b);
  return r1 < r2 ? -1 : 1;
}

/**
 * The Deployments whose selector matches the ReplicaSet's labels (an empty
 * selector matches nothing here). Go's `GetDeploymentsForReplicaSet` (the
 * lister expansion in client-go).
 *
 * @throws Error if the ReplicaSet has no labels or no Deployment matches
 *
 * @category ReplicaSets
 */
export function getDeploymentsForReplicaSet(
  deployments: Pick<Lister<Deployment>, 'byNamespace'>,
  rs: ReplicaSet,
): Deployment[] {
  const labels = rs.metadata?.labels ?? {};
  if (Object.keys(labels).length === 0) {
    throw new Error(`no deployments found for ReplicaSet ${nameOf(rs)} because it has no labels`);
  }
  const matching: Deployment[] = [];
  for (const d of deployments.byNamespace(namespaceOf(rs)).list()) {
    let selector;
    try {
      selector = labelSelectorAsSelector(d.spec?.selector);
    } catch {
      continue; // an invalid selector matches nothing
    }
    if (selector.empty() || !selector.matches(labels)) continue;
    matching.push(d);
  }
  if (matching.length === 0) {
    throw new Error(
      `could not find deployments set for ReplicaSet ${nameOf(rs)} in namespace ${namespaceOf(rs)} with labels: ${goMap(labels)}`,
    );
  }
  return matching;
}

/** A string map as Go's `%v` prints it: `map[a:1 b:2]`, keys sorted. */
export function goMap(m: Readonly<Record<string, string>>): string {
  const keys = Object.keys(m).sort();
  return `map[${keys.map((k) => `${k}:${m[k]}`).join(' ')}]`;
}

/**
 * The name of the ReplicaSet a Deployment creates for a template hash:
 * `<deployment>-<hash>`. Newer releases shorten the Deployment's part so the
 * name stays within the 253 characters of a DNS subdomain, unless the hash
 * alone would not leave room for it.
 *
 * @category ReplicaSets
 */
export function replicaSetNameFor(deploymentName: string, podTemplateHash: string): string {
  const name = `${deploymentName}-${podTemplateHash}`;
  if (name.length <= 253) return name;
  const keep = 253 - podTemplateHash.length - 1;
  if (keep <= 0) return name;
  return `${deploymentName.slice(0, keep)}-${podTemplateHash}`;
}
