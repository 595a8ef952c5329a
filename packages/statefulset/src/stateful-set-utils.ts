// The StatefulSet's pure helpers: pkg/controller/statefulset/stateful_set_utils.go
// (overlappingStatefulSets, getParentNameAndOrdinal, getParentName,
// getOrdinal, getStartOrdinal, getEndOrdinal, podInOrdinalRange, getPodName,
// getPersistentVolumeClaimName, isMemberOf, identityMatches, storageMatches,
// getPersistentVolumeClaimRetentionPolicy, matchesRef,
// hasUnexpectedController, hasNonControllerOwner, removeRefs,
// isClaimOwnerUpToDate (formerly claimOwnerMatchesSetAndPod),
// updateClaimOwnerRefForSetAndPod, hasOwnerRef, hasStaleOwnerRef,
// addControllerRef, getPersistentVolumeClaims, updateStorage, initIdentity,
// updateIdentity, isRunningAndReady, isRunningAndAvailable, isCreated,
// isPending, isFailed, isSucceeded, isTerminating, isHealthy, allowsBurst,
// setPodRevision, getPodRevision, newStatefulSetPod,
// newVersionedStatefulSetPod, getPatch, newRevision, ApplyRevision,
// nextRevision, inconsistentStatus, completeRollingUpdate, ascendingOrdinal,
// descendingOrdinal, getStatefulSetMaxUnavailable), with
// k8s.io/apimachinery's intstr.GetScaledValueFromIntOrPercent for the last.
//
// The feature gates of the newest release are on: StatefulSetStartOrdinal,
// StatefulSetAutoDeletePVC, PodIndexLabel and MaxUnavailableStatefulSet.
import type {
  ControllerRevision,
  StatefulSet,
  StatefulSetPersistentVolumeClaimRetentionPolicy,
  StatefulSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  groupVersionString,
  newControllerRef,
  patchMetaForKind,
  strategicMergePatch,
  type GroupVersionKind,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import {
  getPodFromTemplate,
  isPodAvailable,
  isPodReady,
  newControllerRevision,
} from '@kcm-ts/controller';

/**
 * apps/v1 StatefulSet: the kind the controller writes into the references
 * of the pods, claims and revisions it owns. Go's `controllerKind`.
 *
 * @category StatefulSet controller
 */
export const statefulSetKind: GroupVersionKind = Object.freeze({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
});

/**
 * core/v1 Pod, the kind of a claim's owner reference to its pod. Go's `podKind`.
 *
 * @category StatefulSet controller
 */
export const podKind: GroupVersionKind = Object.freeze({ group: '', version: 'v1', kind: 'Pod' });

/**
 * The label naming each pod's own name, so a Service can select one pod.
 * Go's `apps.StatefulSetPodNameLabel`.
 *
 * @category Identity
 */
export const statefulSetPodNameLabel = 'statefulset.kubernetes.io/pod-name';

/**
 * The label holding each pod's ordinal. Go's `apps.PodIndexLabel`.
 *
 * @category Identity
 */
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

/**
 * The label holding the name of the ControllerRevision a pod was made from.
 * Go's `apps.StatefulSetRevisionLabel` (`ControllerRevisionHashLabelKey`).
 *
 * @category Revisions
 */
export const statefulSetRevisionLabel = 'controller-revision-hash';

/** The policy values of `persistentVolumeClaimRetentionPolicy`. */
const retain = 'Retain';
const del = 'Delete';

/**
 * Orders StatefulSets by creation time, older first, ties by name: the
 * order in which overlapping sets are reported. Go's `overlappingStatefulSets`.
 *
 * @category Identity
 */
export function overlappingStatefulSets(a: StatefulSet, b: StatefulSet): number {
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta === tb) {
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return Date.parse(ta) - Date.parse(tb) || (ta < tb ? -1 : 1);
}

const statefulPodRegex = /^(.*)-([0-9]+)$/s;

/**
 * The name of a pod's StatefulSet and its ordinal, read from its name
 * `<set>-<ordinal>`; `['', -1]` when the name has no such form, and ordinal
 * -1 when the number does not fit an int32. Go's `getParentNameAndOrdinal`.
 *
 * @category Identity
 */
export function getParentNameAndOrdinal(pod: Pod): [string, number] {
  const m = statefulPodRegex.exec(pod.metadata?.name ?? '');
  if (m === null) return ['', -1];
  const n = Number(m[2]);
  return [m[1]!, n <= 2147483647 ? n : -1];
}

/**
 * The name of the pod's StatefulSet, or `''`. Go's `getParentName`.
 *
 * @category Identity
 */
export function getParentName(pod: Pod): string {
  return getParentNameAndOrdinal(pod)[0];
}

/**
 * The pod's ordinal, or -1. Go's `getOrdinal`.
 *
 * @category Identity
 */
export function getOrdinal(pod: Pod): number {
  return getParentNameAndOrdinal(pod)[1];
}

/** `spec.replicas`, which the API server defaults to 1. */
export function replicasOf(set: StatefulSet): number {
  return set.spec?.replicas ?? 1;
}

/**
 * The first ordinal of the set: `spec.ordinals.start`, or 0. Go's `getStartOrdinal`.
 *
 * @category Identity
 */
export function getStartOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/**
 * The last ordinal of the set (inclusive). Go's `getEndOrdinal`.
 *
 * @category Identity
 */
export function getEndOrdinal(set: StatefulSet): number {
  return getStartOrdinal(set) + replicasOf(set) - 1;
}

/**
 * True when the pod's ordinal is one the set currently wants. Go's `podInOrdinalRange`.
 *
 * @category Identity
 */
export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const ordinal = getOrdinal(pod);
  return ordinal >= getStartOrdinal(set) && ordinal <= getEndOrdinal(set);
}

/**
 * `<set>-<ordinal>`. Go's `getPodName`.
 *
 * @category Identity
 */
export function getPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ''}-${ordinal}`;
}

/**
 * `<template>-<set>-<ordinal>`, the claim a pod gets from a volume claim
 * template. Go's `getPersistentVolumeClaimName`.
 *
 * @category Claims
 */
export function getPersistentVolumeClaimName(
  set: StatefulSet,
  claim: PersistentVolumeClaim,
  ordinal: number,
): string {
  return `${claim.metadata?.name ?? ''}-${set.metadata?.name ?? ''}-${ordinal}`;
}

/**
 * True when the pod's name says it belongs to the set. Go's `isMemberOf`.
 *
 * @category Identity
 */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return getParentName(pod) === set.metadata?.name;
}

/**
 * True when the pod has the name, namespace and pod-name label of a member
 * of the set. Go's `identityMatches`.
 *
 * @category Identity
 */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const [parent, ordinal] = getParentNameAndOrdinal(pod);
  const name = pod.metadata?.name ?? '';
  return (
    ordinal >= 0 &&
    set.metadata?.name === parent &&
    name === getPodName(set, ordinal) &&
    (pod.metadata?.namespace ?? '') === (set.metadata?.namespace ?? '') &&
    pod.metadata?.labels?.[statefulSetPodNameLabel] === name
  );
}

/**
 * True when the pod mounts, under each template's name, the claim that
 * template gives it. Go's `storageMatches`.
 *
 * @category Claims
 */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const claim of set.spec?.volumeClaimTemplates ?? []) {
    const volume = volumes.get(claim.metadata?.name ?? '');
    if (
      volume?.persistentVolumeClaim?.claimName !== getPersistentVolumeClaimName(set, claim, ordinal)
    ) {
      return false;
    }
  }
  return true;
}

/**
 * The set's claim retention policy, `Retain` for what it leaves out. Go's
 * `getPersistentVolumeClaimRetentionPolicy`.
 *
 * @category Claims
 */
export function getPersistentVolumeClaimRetentionPolicy(
  set: StatefulSet,
): Required<StatefulSetPersistentVolumeClaimRetentionPolicy> {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: policy?.whenDeleted ?? retain, whenScaled: policy?.whenScaled ?? retain };
}

/** True when `ref` names `obj` by kind, API version and name (not uid). Go's `matchesRef`. */
export function matchesRef(ref: OwnerReference, obj: KubeObject, gvk: GroupVersionKind): boolean {
  return (
    groupVersionString(gvk) === ref.apiVersion &&
    gvk.kind === ref.kind &&
    ref.name === (obj.metadata?.name ?? '')
  );
}

const uidOf = (obj: KubeObject): string => obj.metadata?.uid ?? '';

/**
 * True when the policy is not Retain/Retain and the claim has a controller
 * other than the set or pod, or a reference to an earlier set or pod of the
 * same name. Go's `hasUnexpectedController`.
 *
 * @category Claims
 */
export function hasUnexpectedController(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
): boolean {
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  if (policy.whenScaled === retain && policy.whenDeleted === retain) return false;
  for (const ref of claim.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, set, statefulSetKind)) {
      if (ref.uid !== uidOf(set)) return true;
      continue;
    }
    if (matchesRef(ref, pod, podKind)) {
      if (ref.uid !== uidOf(pod)) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

/**
 * True when the set or pod owns the claim without being its controller.
 * Go's `hasNonControllerOwner`.
 *
 * @category Claims
 */
export function hasNonControllerOwner(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
): boolean {
  return (claim.metadata?.ownerReferences ?? []).some(
    (ref) => (ref.uid === uidOf(set) || ref.uid === uidOf(pod)) && ref.controller !== true,
  );
}

/**
 * True when `target` has a reference to `owner`'s uid. Go's `hasOwnerRef`.
 *
 * @category Claims
 */
export function hasOwnerRef(target: KubeObject, owner: KubeObject): boolean {
  const uid = uidOf(owner);
  return (target.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid);
}

/**
 * True when the first reference of `target` naming `obj` carries another
 * uid: it names an earlier object of that name. Go's `hasStaleOwnerRef`.
 *
 * @category Claims
 */
export function hasStaleOwnerRef(
  target: PersistentVolumeClaim,
  obj: KubeObject,
  gvk: GroupVersionKind,
): boolean {
  for (const ref of target.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, obj, gvk)) return ref.uid !== uidOf(obj);
  }
  return false;
}

/** `refs` with a controller reference to `owner` unless one to its uid is there. Go's `addControllerRef`. */
function addControllerRef(
  refs: OwnerReference[],
  owner: KubeObject,
  gvk: GroupVersionKind,
): OwnerReference[] {
  if (refs.some((ref) => ref.uid === uidOf(owner))) return refs;
  return [...refs, newControllerRef(owner, gvk)];
}

/**
 * True when the claim's owner references agree with the set's retention
 * policy (or when the claim is in a state not to be touched: a stale
 * reference, or a foreign controller and none of ours):
 *
 * - Retain on scale-down and deletion: no reference to the set or pod;
 * - Retain on scale-down, Delete on deletion: the set only;
 * - Delete on scale-down, Retain on deletion: the pod, once it is scaled down;
 * - Delete on both: the pod once it is scaled down, the set before.
 *
 * Go's `isClaimOwnerUpToDate` (once `claimOwnerMatchesSetAndPod`).
 *
 * @category Claims
 */
export function isClaimOwnerUpToDate(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
): boolean {
  if (hasStaleOwnerRef(claim, set, statefulSetKind) || hasStaleOwnerRef(claim, pod, podKind)) {
    return true;
  }
  if (hasUnexpectedController(claim, set, pod)) {
    return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  }
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  const setRef = hasOwnerRef(claim, set);
  const podRef = hasOwnerRef(claim, pod);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (policy.whenScaled === retain && policy.whenDeleted === del) return setRef && !podRef;
  if (policy.whenScaled === del && policy.whenDeleted === retain) {
    return !setRef && scaledDown === podRef;
  }
  if (policy.whenScaled === del && policy.whenDeleted === del) {
    return scaledDown !== setRef && scaledDown === podRef;
  }
  // Retain/Retain, and any unknown policy, which counts as Retain.
  return !setRef && !podRef;
}

//#region claim-owner-refs
/**
 * Sets the claim's owner references (in place) to what the set's retention
 * policy asks for: first drops every reference to the set and pod (by
 * kind and name), then adds controller references as
 * {@link isClaimOwnerUpToDate} expects them; adds none when another
 * controller owns the claim. Go's `updateClaimOwnerRefForSetAndPod`.
 *
 * @category Claims
 */
export function updateClaimOwnerRefForSetAndPod(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let refs = (claim.metadata?.ownerReferences ?? []).filter(
    (ref) => !(matchesRef(ref, set, statefulSetKind) || matchesRef(ref, pod, podKind)),
  );
  if (!unexpected) {
    const policy = getPersistentVolumeClaimRetentionPolicy(set);
    const scaledDown = !podInOrdinalRange(pod, set);
    if (policy.whenScaled === retain && policy.whenDeleted === del) {
      refs = addControllerRef(refs, set, statefulSetKind);
    } else if (policy.whenScaled === del && policy.whenDeleted === retain) {
      if (scaledDown) refs = addControllerRef(refs, pod, podKind);
    } else if (policy.whenScaled === del && policy.whenDeleted === del) {
      refs = scaledDown
        ? addControllerRef(refs, pod, podKind)
        : addControllerRef(refs, set, statefulSetKind);
    }
  }
  claim.metadata ??= {};
  claim.metadata.ownerReferences = refs;
}
//#endregion claim-owner-refs

/**
 * The claims the pod gets, keyed by template name: each template named
 * {@link getPersistentVolumeClaimName}, in the set's namespace, labelled
 * with its own labels plus the set's `matchLabels`. Go's
 * `getPersistentVolumeClaims`.
 *
 * @category Claims
 */
export function getPersistentVolumeClaims(
  set: StatefulSet,
  pod: Pod,
): Map<string, PersistentVolumeClaim> {
  const ordinal = getOrdinal(pod);
  const claims = new Map<string, PersistentVolumeClaim>();
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const claim = structuredClone(template);
    claim.metadata = {
      ...claim.metadata,
      name: getPersistentVolumeClaimName(set, template, ordinal),
      namespace: set.metadata?.namespace ?? '',
      labels: { ...claim.metadata?.labels, ...set.spec?.selector.matchLabels },
    };
    claims.set(template.metadata?.name ?? '', claim);
  }
  return claims;
}

/**
 * Points the pod's volumes (in place) at its claims: one volume per
 * template, named after it, then the pod's other volumes. Go's `updateStorage`.
 *
 * @category Claims
 */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = getPersistentVolumeClaims(set, pod);
  const volumes: Volume[] = [];
  for (const [name, claim] of claims) {
    volumes.push({
      name,
      persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' },
    });
  }
  for (const volume of pod.spec?.volumes ?? []) {
    if (!claims.has(volume.name)) volumes.push(volume);
  }
  pod.spec ??= { containers: [] };
  pod.spec.volumes = volumes;
}

/**
 * Gives a new pod its identity and its fixed `hostname` and `subdomain`
 * (the set's `serviceName`). Go's `initIdentity`.
 *
 * @category Identity
 */
export function initIdentity(set: StatefulSet, pod: Pod): void {
  updateIdentity(set, pod);
  pod.spec ??= { containers: [] };
  pod.spec.hostname = pod.metadata!.name!;
  pod.spec.subdomain = set.spec?.serviceName ?? '';
}

/**
 * Sets the pod's name, namespace, pod-name label and pod-index label (in
 * place) from its ordinal. Go's `updateIdentity`.
 *
 * @category Identity
 */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = getOrdinal(pod);
  pod.metadata ??= {};
  pod.metadata.name = getPodName(set, ordinal);
  pod.metadata.namespace = set.metadata?.namespace ?? '';
  pod.metadata.labels = {
    ...pod.metadata.labels,
    [statefulSetPodNameLabel]: pod.metadata.name,
    [podIndexLabel]: String(ordinal),
  };
}

/**
 * Phase Running and the Ready condition True. Go's `isRunningAndReady`.
 *
 * @category Pod state
 */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

/**
 * Ready for at least `minReadySeconds` at `now` (ms). Go's `isRunningAndAvailable`.
 *
 * @category Pod state
 */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return isPodAvailable(pod, minReadySeconds, now);
}

/**
 * The API server has the pod (it has a phase). Go's `isCreated`.
 *
 * @category Pod state
 */
export function isCreated(pod: Pod): boolean {
  return (pod.status?.phase ?? '') !== '';
}

/** @category Pod state */
export function isPending(pod: Pod): boolean {
  return pod.status?.phase === 'Pending';
}

/** @category Pod state */
export function isFailed(pod: Pod): boolean {
  return pod.status?.phase === 'Failed';
}

/** @category Pod state */
export function isSucceeded(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded';
}

/**
 * The pod has a deletion timestamp. Go's `isTerminating`.
 *
 * @category Pod state
 */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/**
 * Running, Ready and not terminating. Go's `isHealthy`.
 *
 * @category Pod state
 */
export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}

/**
 * Not available, or terminating: what counts against `maxUnavailable`.
 * Go's `isUnavailable`.
 *
 * @category Pod state
 */
export function isUnavailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return !isRunningAndAvailable(pod, minReadySeconds, now) || isTerminating(pod);
}

/**
 * True for `podManagementPolicy: Parallel`. Go's `allowsBurst`.
 *
 * @category StatefulSet controller
 */
export function allowsBurst(set: StatefulSet): boolean {
  return set.spec?.podManagementPolicy === 'Parallel';
}

/**
 * Labels the pod (in place) with its revision. Go's `setPodRevision`.
 *
 * @category Revisions
 */
export function setPodRevision(pod: Pod, revision: string): void {
  pod.metadata ??= {};
  pod.metadata.labels = { ...pod.metadata.labels, [statefulSetRevisionLabel]: revision };
}

/**
 * The pod's revision label, or `''`. Go's `getPodRevision`.
 *
 * @category Revisions
 */
export function getPodRevision(pod: Pod): string {
  return pod.metadata?.labels?.[statefulSetRevisionLabel] ?? '';
}

//#region new-stateful-set-pod
/**
 * A new pod of the set at `ordinal`: the template, a controller reference
 * to the set, its identity, hostname and subdomain, and its claims as
 * volumes. Go's `newStatefulSetPod`.
 *
 * @category Identity
 */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const pod = getPodFromTemplate(
    set.spec?.template ?? {},
    set,
    newControllerRef(set, statefulSetKind),
  );
  pod.metadata!.name = getPodName(set, ordinal);
  initIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}
//#endregion new-stateful-set-pod

//#region versioned-pod
/**
 * A new pod at `ordinal`, from the current revision when the ordinal is
 * below the partition (or, with a RollingUpdate without parameters, below
 * the count of current replicas), else from the update revision; labelled
 * with that revision. Go's `newVersionedStatefulSetPod`, whose condition
 * this keeps exactly as Go's operator precedence reads it.
 *
 * @category Revisions
 */
export function newVersionedStatefulSetPod(
  currentSet: StatefulSet,
  updateSet: StatefulSet,
  currentRevision: string,
  updateRevision: string,
  ordinal: number,
): Pod {
  const strategy = currentSet.spec?.updateStrategy;
  const rollingUpdate = strategy?.rollingUpdate;
  const start = getStartOrdinal(currentSet);
  const isRolling = (strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  if (
    (isRolling &&
      rollingUpdate === undefined &&
      ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
    (rollingUpdate !== undefined && ordinal < start + (rollingUpdate.partition ?? 0))
  ) {
    const pod = newStatefulSetPod(currentSet, ordinal);
    setPodRevision(pod, currentRevision);
    return pod;
  }
  const pod = newStatefulSetPod(updateSet, ordinal);
  setPodRevision(pod, updateRevision);
  return pod;
}
//#endregion versioned-pod

/**
 * The data of the set's revision: a strategic merge patch
 * `{"spec":{"template":{...,"$patch":"replace"}}}` that puts the set's pod
 * template back when applied to the set. Go's `getPatch`.
 *
 * @category Revisions
 */
export function getPatch(set: StatefulSet): { spec: { template: Record<string, unknown> } } {
  const template = structuredClone(set.spec?.template ?? {}) as Record<string, unknown>;
  template['$patch'] = 'replace';
  return { spec: { template } };
}

/**
 * A ControllerRevision of the set at `revision`, holding {@link getPatch},
 * labelled with the template's labels and annotated with the set's
 * annotations; named after the hash of the data with `collisionCount`.
 * Go's `newRevision`.
 *
 * @category Revisions
 */
export function newRevision(
  set: StatefulSet,
  revision: number,
  collisionCount: number | null | undefined,
): ControllerRevision {
  const cr = newControllerRevision(
    set,
    statefulSetKind,
    set.spec?.template.metadata?.labels,
    getPatch(set),
    revision,
    collisionCount,
  );
  cr.metadata!.annotations = { ...cr.metadata!.annotations, ...set.metadata?.annotations };
  return cr;
}

/**
 * The set as it was at `revision`: the revision's patch applied to the set
 * with the apps/v1 StatefulSet's strategic merge rules. Go's `ApplyRevision`.
 *
 * @category Revisions
 */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const meta = patchMetaForKind('apps/v1', 'StatefulSet') ?? {};
  const original = { apiVersion: 'apps/v1', kind: 'StatefulSet', ...set };
  return strategicMergePatch(original, revision.data ?? {}, meta);
}

/**
 * The number after the highest of sorted `revisions`, or 1. Go's `nextRevision`.
 *
 * @category Revisions
 */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  const last = revisions.at(-1);
  return last === undefined ? 1 : last.revision + 1;
}

/**
 * True when `status` differs from the set's in a counter or revision, or
 * observes a newer generation. Go's `inconsistentStatus` (which ignores
 * `collisionCount`).
 *
 * @category Status
 */
export function inconsistentStatus(set: StatefulSet, status: StatefulSetStatus): boolean {
  const old = set.status;
  return (
    (status.observedGeneration ?? 0) > (old?.observedGeneration ?? 0) ||
    status.replicas !== (old?.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (old?.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (old?.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (old?.updatedReplicas ?? 0) ||
    (status.currentRevision ?? '') !== (old?.currentRevision ?? '') ||
    (status.availableReplicas ?? 0) !== (old?.availableReplicas ?? 0) ||
    (status.updateRevision ?? '') !== (old?.updateRevision ?? '')
  );
}

/**
 * Completes a RollingUpdate (in place) once every wanted replica is
 * updated and ready: the update revision becomes the current one. Go's
 * `completeRollingUpdate`.
 *
 * @category Status
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  const replicas = replicasOf(set);
  if (
    (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' &&
    (status.updatedReplicas ?? 0) === replicas &&
    (status.readyReplicas ?? 0) === replicas &&
    status.replicas === replicas
  ) {
    status.currentReplicas = status.updatedReplicas ?? 0;
    status.currentRevision = status.updateRevision ?? '';
  }
}

/**
 * Compares pods by ordinal, lowest first (pods without one first). Go's `ascendingOrdinal`.
 *
 * @category Identity
 */
export function ascendingOrdinal(a: Pod, b: Pod): number {
  return getOrdinal(a) - getOrdinal(b);
}

/**
 * Compares pods by ordinal, highest first (pods without one last). Go's `descendingOrdinal`.
 *
 * @category Identity
 */
export function descendingOrdinal(a: Pod, b: Pod): number {
  return getOrdinal(b) - getOrdinal(a);
}

/**
 * An int-or-percent scaled against `total`, as Go's
 * `intstr.GetScaledValueFromIntOrPercent`.
 *
 * @throws Error if a string is not a percentage
 */
export function getScaledValueFromIntOrPercent(
  value: number | string,
  total: number,
  roundUp: boolean,
): number {
  if (typeof value === 'number') return value;
  const m = /^(-?[0-9]+)%$/.exec(value);
  if (m === null) {
    throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  }
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * How many pods a RollingUpdate may take down at once: `maxUnavailable`
 * (default 1) against the replica count, a percentage rounded down, and
 * never below 1. Go's `getStatefulSetMaxUnavailable`.
 *
 * @throws Error if `maxUnavailable` is a string but not a percentage
 *
 * @category Rolling update
 */
export function getStatefulSetMaxUnavailable(
  maxUnavailable: number | string | undefined,
  replicaCount: number,
): number {
  const n = getScaledValueFromIntOrPercent(maxUnavailable ?? 1, replicaCount, false);
  return n < 1 ? 1 : n;
}
