// Matching a failed pod against a Job's pod failure policy:
// pkg/controller/job/pod_failure_policy.go (matchPodFailurePolicy,
// matchOnExitCodes, matchOnPodConditions, getMatchingContainerFromList,
// isOnExitCodesOperatorMatching). The feature gates JobPodFailurePolicy and
// JobBackoffLimitPerIndex are on, as in the newest releases, so FailIndex
// rules apply.
import type {
  PodFailurePolicy,
  PodFailurePolicyOnExitCodesRequirement,
  PodFailurePolicyOnPodConditionsPattern,
} from 'kubernetes-types/batch/v1.js';
import type { ContainerStatus, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';

/**
 * What a pod failure policy rule does with a pod it matches: fail the whole
 * Job, fail the pod's index (Indexed Jobs with `backoffLimitPerIndex`), not
 * count the failure, or count it as usual. Go's `PodFailurePolicyAction`.
 *
 * @category Pod failure policy
 */
export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/**
 * The action that fails the Job: Go's `PodFailurePolicyActionFailJob`.
 *
 * @category Pod failure policy
 */
export const podFailurePolicyActionFailJob = 'FailJob';
/**
 * The action that fails the pod's index: Go's `PodFailurePolicyActionFailIndex`.
 *
 * @category Pod failure policy
 */
export const podFailurePolicyActionFailIndex = 'FailIndex';
/**
 * The action that does not count the failure: Go's `PodFailurePolicyActionIgnore`.
 *
 * @category Pod failure policy
 */
export const podFailurePolicyActionIgnore = 'Ignore';
/**
 * The action that counts the failure as usual: Go's `PodFailurePolicyActionCount`.
 *
 * @category Pod failure policy
 */
export const podFailurePolicyActionCount = 'Count';

/**
 * The pod condition the API server or the kubelet adds to a pod about to be
 * disrupted (preemption, eviction, node pressure, taint manager): the usual
 * subject of an `onPodConditions` rule. Go's `v1.DisruptionTarget`.
 *
 * @category Pod failure policy
 */
export const disruptionTarget = 'DisruptionTarget';

/**
 * What {@link matchPodFailurePolicy} found for a failed pod, as Go returns
 * it: the Job failure message (set when a `FailJob` rule matched), whether
 * the failure counts towards `backoffLimit` (and `backoffLimitPerIndex`;
 * false only for an `Ignore` rule), and the action of the rule that
 * matched, if any.
 *
 * @category Pod failure policy
 */
export type PodFailurePolicyMatch = [
  jobFailureMessage: string | undefined,
  countFailed: boolean,
  action: PodFailurePolicyAction | undefined,
];

//#region match-pod-failure-policy
/**
 * Matches a failed pod against the rules of `podFailurePolicy`, in order;
 * the first rule that matches decides. A rule matches by the exit codes of
 * a terminated container (app containers first, then init containers;
 * exit code 0 never matches) or by a pod condition of the given type and
 * status. A rule with an unknown action is skipped. With no policy, or no
 * rule matching, the failure simply counts. Go's `matchPodFailurePolicy`.
 *
 * @category Pod failure policy
 */
export function matchPodFailurePolicy(
  podFailurePolicy: PodFailurePolicy | null | undefined,
  failedPod: Pod,
): PodFailurePolicyMatch {
  if (podFailurePolicy === null || podFailurePolicy === undefined) {
    return [undefined, true, undefined];
  }
  const status = failedPod.status ?? {};
  const podName = `${failedPod.metadata?.namespace ?? ''}/${failedPod.metadata?.name ?? ''}`;
  for (const [index, rule] of (podFailurePolicy.rules ?? []).entries()) {
    let jobFailureMessage: string;
    if (rule.onExitCodes !== undefined && rule.onExitCodes !== null) {
      const container = matchOnExitCodes(status, rule.onExitCodes);
      if (container === undefined) continue;
      const exitCode = container.state?.terminated?.exitCode ?? 0;
      jobFailureMessage = `Container ${container.name ?? ''} for pod ${podName} failed with exit code ${exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions !== undefined && rule.onPodConditions !== null) {
      const condition = matchOnPodConditions(status, rule.onPodConditions);
      if (condition === undefined) continue;
      jobFailureMessage = `Pod ${podName} has condition ${condition.type} matching ${rule.action} rule at index ${index}`;
    } else {
      continue;
    }
    switch (rule.action) {
      case podFailurePolicyActionIgnore:
        return [undefined, false, podFailurePolicyActionIgnore];
      case podFailurePolicyActionFailIndex:
        return [undefined, true, podFailurePolicyActionFailIndex];
      case podFailurePolicyActionCount:
        return [undefined, true, podFailurePolicyActionCount];
      case podFailurePolicyActionFailJob:
        return [jobFailureMessage, true, podFailurePolicyActionFailJob];
      default:
        // An action this controller does not know: the rule is skipped.
        continue;
    }
  }
  return [undefined, true, undefined];
}
//#endregion match-pod-failure-policy

/**
 * The first terminated container whose exit code meets `requirement`: the
 * app containers first, then the init containers. Go's `matchOnExitCodes`.
 *
 * @category Pod failure policy
 */
export function matchOnExitCodes(
  podStatus: PodStatus,
  requirement: PodFailurePolicyOnExitCodesRequirement,
): ContainerStatus | undefined {
  return (
    getMatchingContainerFromList(podStatus.containerStatuses, requirement) ??
    getMatchingContainerFromList(podStatus.initContainerStatuses, requirement)
  );
}

/**
 * The first pod condition (in the pod's order) that one of the patterns
 * matches by type and status. Go's `matchOnPodConditions`.
 *
 * @category Pod failure policy
 */
export function matchOnPodConditions(
  podStatus: PodStatus,
  requirement: readonly PodFailurePolicyOnPodConditionsPattern[],
): PodCondition | undefined {
  for (const condition of podStatus.conditions ?? []) {
    for (const pattern of requirement) {
      if (condition.type === pattern.type && condition.status === pattern.status) return condition;
    }
  }
  return undefined;
}

/**
 * The first terminated container of the list, with a non-zero exit code,
 * named as the requirement asks (any name when it names none), whose exit
 * code the operator matches. Go's `getMatchingContainerFromList`.
 */
function getMatchingContainerFromList(
  containerStatuses: readonly ContainerStatus[] | undefined,
  requirement: PodFailurePolicyOnExitCodesRequirement,
): ContainerStatus | undefined {
  for (const status of containerStatuses ?? []) {
    const terminated = status.state?.terminated;
    // Still running, or terminating: no exit code to match yet.
    if (terminated === undefined || terminated === null) continue;
    const name = requirement.containerName;
    if (name !== undefined && name !== null && name !== status.name) continue;
    const exitCode = terminated.exitCode ?? 0;
    if (exitCode !== 0 && isOnExitCodesOperatorMatching(exitCode, requirement)) return status;
  }
  return undefined;
}

/** True when `In` lists the exit code or `NotIn` does not; false for any other operator. */
function isOnExitCodesOperatorMatching(
  exitCode: number,
  requirement: PodFailurePolicyOnExitCodesRequirement,
): boolean {
  switch (requirement.operator) {
    case 'In':
      return requirement.values.includes(exitCode);
    case 'NotIn':
      return !requirement.values.includes(exitCode);
    default:
      return false;
  }
}
