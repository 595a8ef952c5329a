// The helpers the disruption controller leans on:
// k8s.io/component-helpers/apps/poddisruptionbudget/helpers.go
// (UpdateDisruptionAllowedCondition, ConditionsAreUpToDate),
// apimachinery's api/meta/conditions.go (SetStatusCondition,
// FindStatusCondition), pkg/api/v1/pod/util.go (GetPodCondition,
// UpdatePodCondition, IsPodReady), client-go's PDB lister expansion
// (GetPodPodDisruptionBudgets) and the String() of metav1.LabelSelector
// that events print.
import type { Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import type { Condition, LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { formatTime, labelSelectorAsSelector } from '@kcm-ts/apimachinery';

/**
 * The PDB condition type: Go's `policy.DisruptionAllowedCondition`.
 *
 * @category Disruption controller
 */
export const disruptionAllowedCondition = 'DisruptionAllowed';

/**
 * The reasons of the `DisruptionAllowed` condition: Go's
 * `policy.SyncFailedReason`, `SufficientPodsReason`, `InsufficientPodsReason`.
 *
 * @category Disruption controller
 */
export const disruptionReasons = Object.freeze({
  /** The budget could not be computed; it allows no disruption (fail safe). */
  syncFailed: 'SyncFailed',
  /** Enough healthy pods: at least one disruption is allowed. */
  sufficientPods: 'SufficientPods',
  /** Too few healthy pods: no disruption is allowed. */
  insufficientPods: 'InsufficientPods',
} as const);

/**
 * The pod condition eviction and preemption set before a pod goes: Go's
 * `v1.DisruptionTarget`.
 *
 * @category Disruption controller
 */
export const disruptionTargetCondition = 'DisruptionTarget';

/** The time of a metav1.Time string in ms; `undefined` for none or a bad one. */
export function timeOf(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Sets `cond` in `conditions` as Go's `meta.SetStatusCondition` does: a new
 * one is appended with `lastTransitionTime` now (unless it carries one);
 * an existing one takes the new status (and a new transition time only when
 * the status changes), reason, message and observedGeneration. Returns
 * whether anything changed.
 */
export function setStatusCondition(
  conditions: Condition[],
  cond: Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string },
  now: number,
): boolean {
  const existing = conditions.find((c) => c.type === cond.type);
  if (existing === undefined) {
    conditions.push({ ...cond, lastTransitionTime: cond.lastTransitionTime || formatTime(now) });
    return true;
  }
  let changed = false;
  if (existing.status !== cond.status) {
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime || formatTime(now);
    changed = true;
  }
  if (existing.reason !== cond.reason) {
    existing.reason = cond.reason;
    changed = true;
  }
  if (existing.message !== cond.message) {
    existing.message = cond.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (cond.observedGeneration ?? 0)) {
    if (cond.observedGeneration) existing.observedGeneration = cond.observedGeneration;
    else delete existing.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * Sets the `DisruptionAllowed` condition from `status.disruptionsAllowed`:
 * True/SufficientPods when above 0, else False/InsufficientPods. Go's
 * `UpdateDisruptionAllowedCondition`.
 *
 * @category Disruption controller
 */
export function updateDisruptionAllowedCondition(pdb: PodDisruptionBudget, now: number): void {
  const status = (pdb.status ??= {
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
    disruptionsAllowed: 0,
  });
  const conditions = (status.conditions ??= []);
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    conditions,
    {
      type: disruptionAllowedCondition,
      status: allowed ? 'True' : 'False',
      reason: allowed ? disruptionReasons.sufficientPods : disruptionReasons.insufficientPods,
      message: '',
      ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
    },
    now,
  );
}

/**
 * Whether the `DisruptionAllowed` condition agrees with
 * `status.disruptionsAllowed` and the status is of the PDB's generation.
 * Go's `ConditionsAreUpToDate`.
 *
 * @category Disruption controller
 */
export function conditionsAreUpToDate(pdb: PodDisruptionBudget): boolean {
  const cond = pdb.status?.conditions?.find((c) => c.type === disruptionAllowedCondition);
  if (cond === undefined) return false;
  if ((pdb.status?.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  if ((pdb.status?.disruptionsAllowed ?? 0) > 0) {
    return cond.status === 'True' && cond.reason === disruptionReasons.sufficientPods;
  }
  return cond.status === 'False' && cond.reason === disruptionReasons.insufficientPods;
}

/** The pod's condition of `type`, if any: Go's `GetPodCondition`. */
export function getPodCondition(
  status: PodStatus | undefined,
  type: string,
): PodCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Ready condition True: Go's `IsPodReady`. */
export function isPodReady(pod: Pod): boolean {
  return getPodCondition(pod.status, 'Ready')?.status === 'True';
}

/** Succeeded or Failed: Go's `IsPodPhaseTerminal`. */
export function isPodPhaseTerminal(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Puts `cond` into `status` as Go's `UpdatePodCondition` does: the
 * transition time is now unless the status stays the same; returns whether
 * the condition changed (status, reason, message, probe or transition time).
 */
export function updatePodCondition(status: PodStatus, cond: PodCondition, now: number): boolean {
  const next: PodCondition = { ...cond, lastTransitionTime: formatTime(now) };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  if (i < 0) {
    conditions.push(next);
    return true;
  }
  const old = conditions[i]!;
  if (next.status === old.status) {
    if (old.lastTransitionTime) next.lastTransitionTime = old.lastTransitionTime;
    else delete next.lastTransitionTime;
  }
  const equal =
    next.status === old.status &&
    (next.reason ?? '') === (old.reason ?? '') &&
    (next.message ?? '') === (old.message ?? '') &&
    timeOf(next.lastProbeTime) === timeOf(old.lastProbeTime) &&
    timeOf(next.lastTransitionTime) === timeOf(old.lastTransitionTime);
  conditions[i] = next;
  return !equal;
}

/**
 * The PDBs among `pdbs` (those of the pod's namespace) whose selector
 * matches the pod's labels: an empty selector matches every pod, a missing
 * one none, an invalid one is skipped. Go's `GetPodPodDisruptionBudgets`,
 * which reports "none" as an error; here as an empty list.
 *
 * @category Disruption controller
 */
export function podDisruptionBudgetsForPod(
  pod: Pod,
  pdbs: readonly PodDisruptionBudget[],
): PodDisruptionBudget[] {
  return pdbs.filter((pdb) => {
    try {
      return labelSelectorAsSelector(pdb.spec?.selector).matches(pod.metadata?.labels ?? {});
    } catch {
      return false;
    }
  });
}

/**
 * A label selector as Go's `%v` prints a `*metav1.LabelSelector` (its
 * generated `String()`), as the `UnmanagedPods` event shows it.
 *
 * @category Disruption controller
 */
export function formatLabelSelector(ls: LabelSelector | null | undefined): string {
  if (ls === null || ls === undefined) return 'nil';
  const labels = ls.matchLabels ?? {};
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((k) => `${k}: ${labels[k]},`).join('')}}`;
  const exprs = (ls.matchExpressions ?? [])
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`,
    )
    .join('');
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
