// Port of pod_failure_policy_test.go's TestMatchPodFailurePolicy, with every
// feature gate on: the two "JobBackoffLimitPerIndex disabled" cases, which
// only show FailIndex being dropped with the gate off, are not ported.
import type { PodFailurePolicy, PodFailurePolicyRule } from 'kubernetes-types/batch/v1.js';
import type { ContainerStatus, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { matchOnExitCodes, matchOnPodConditions } from '../src/pod-failure-policy.js';
import { matchPodFailurePolicy, type PodFailurePolicyAction } from '../src/index.js';

const exitRule = (
  action: string,
  operator: string,
  values: number[],
  containerName?: string,
): PodFailurePolicyRule => ({
  action,
  onExitCodes: { operator, values, ...(containerName !== undefined && { containerName }) },
});
const condRule = (
  action: string,
  status: string,
  type = 'DisruptionTarget',
): PodFailurePolicyRule => ({
  action,
  onPodConditions: [{ type, status }],
});
const exited = (exitCode: number, name?: string): ContainerStatus =>
  ({ ...(name !== undefined && { name }), state: { terminated: { exitCode } } }) as ContainerStatus;
const failedPod = (status: {
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  conditions?: PodCondition[];
}): Pod => ({
  metadata: { namespace: 'default', name: 'mypod' },
  status: { phase: 'Failed', ...status },
});
const withCondition = (status: string): Pod =>
  failedPod({ conditions: [{ type: 'DisruptionTarget', status }] });
const withExit = (code: number, name?: string): Pod =>
  failedPod({ containerStatuses: [exited(code, name)] });

interface Case {
  policy?: PodFailurePolicy;
  pod: Pod;
  wantMessage?: string;
  wantCountFailed: boolean;
  wantAction?: PodFailurePolicyAction;
}

const cases: Record<string, Case> = {
  'unknown action for rule matching by exit codes - skip rule with unknown action': {
    policy: { rules: [exitRule('UnknownAction', 'In', [1, 2]), exitRule('FailJob', 'In', [2, 3])] },
    pod: withExit(2, 'main-container'),
    wantMessage:
      'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'unknown action for rule matching by pod conditions - skip rule with unknown action': {
    policy: { rules: [condRule('UnkonwnAction', 'True'), condRule('Ignore', 'True')] },
    pod: withCondition('True'),
    wantCountFailed: false,
    wantAction: 'Ignore',
  },
  'unknown operator - rule with unknown action is skipped for onExitCodes': {
    policy: {
      rules: [exitRule('Ignore', 'UnknownOperator', [1, 2]), exitRule('FailJob', 'In', [2, 3])],
    },
    pod: withExit(2, 'main-container'),
    wantMessage:
      'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'no policy rules': { pod: withExit(2), wantCountFailed: true },
  'ignore rule matched for exit codes': {
    policy: { rules: [exitRule('Ignore', 'In', [1, 2, 3])] },
    pod: withExit(2),
    wantCountFailed: false,
    wantAction: 'Ignore',
  },
  'FailJob rule matched for exit codes': {
    policy: { rules: [exitRule('FailJob', 'In', [1, 2, 3])] },
    pod: withExit(2, 'main-container'),
    wantMessage:
      'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 0',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'successful containers are skipped by the rules': {
    policy: { rules: [exitRule('FailJob', 'NotIn', [111])] },
    pod: failedPod({
      initContainerStatuses: [exited(0, 'init-container')],
      containerStatuses: [exited(111, 'main-container'), exited(0, 'suppport-container')],
    }),
    wantCountFailed: true,
  },
  'FailIndex rule matched for exit codes; JobBackoffLimitPerIndex enabled': {
    policy: { rules: [exitRule('FailIndex', 'In', [1, 2, 3])] },
    pod: withExit(2),
    wantCountFailed: true,
    wantAction: 'FailIndex',
  },
  'pod failure policy with NotIn operator and value 0': {
    policy: { rules: [exitRule('FailJob', 'NotIn', [0])] },
    pod: failedPod({
      containerStatuses: [exited(1, 'main-container'), exited(0, 'suppport-container')],
    }),
    wantMessage:
      'Container main-container for pod default/mypod failed with exit code 1 matching FailJob rule at index 0',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'second jobfail rule matched for exit codes': {
    policy: { rules: [exitRule('Count', 'In', [1, 2, 3]), exitRule('FailJob', 'In', [4, 5, 6])] },
    pod: withExit(6, 'main-container'),
    wantMessage:
      'Container main-container for pod default/mypod failed with exit code 6 matching FailJob rule at index 1',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'count rule matched for exit codes': {
    policy: { rules: [exitRule('Count', 'In', [1, 2, 3])] },
    pod: failedPod({ containerStatuses: [{ name: 'foo' } as ContainerStatus, exited(2, 'bar')] }),
    wantCountFailed: true,
    wantAction: 'Count',
  },
  'FailIndex rule matched for pod conditions; JobBackoffLimitPerIndex enabled': {
    policy: { rules: [condRule('FailIndex', 'True')] },
    pod: withCondition('True'),
    wantCountFailed: true,
    wantAction: 'FailIndex',
  },
  'ignore rule matched for pod conditions': {
    policy: { rules: [condRule('Ignore', 'True')] },
    pod: withCondition('True'),
    wantCountFailed: false,
    wantAction: 'Ignore',
  },
  'ignore rule matches by the status=False': {
    policy: { rules: [condRule('Ignore', 'False')] },
    pod: withCondition('False'),
    wantCountFailed: false,
    wantAction: 'Ignore',
  },
  'ignore rule matches by the status=Unknown': {
    policy: { rules: [condRule('Ignore', 'Unknown')] },
    pod: withCondition('Unknown'),
    wantCountFailed: false,
    wantAction: 'Ignore',
  },
  'ignore rule does not match when status for pattern is False, but actual True': {
    policy: { rules: [condRule('Ignore', 'False')] },
    pod: withCondition('True'),
    wantCountFailed: true,
  },
  'ignore rule does not match when status for pattern is True, but actual False': {
    policy: { rules: [condRule('Ignore', 'True')] },
    pod: withCondition('False'),
    wantCountFailed: true,
  },
  'default - do not match condition with status=False': {
    policy: { rules: [condRule('Ignore', 'True')] },
    pod: withCondition('False'),
    wantCountFailed: true,
  },
  'job fail rule matched for pod conditions': {
    policy: { rules: [condRule('FailJob', 'True')] },
    pod: withCondition('True'),
    wantMessage:
      'Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0',
    wantCountFailed: true,
    wantAction: 'FailJob',
  },
  'count rule matched for pod conditions': {
    policy: { rules: [condRule('Count', 'True')] },
    pod: withCondition('True'),
    wantCountFailed: true,
    wantAction: 'Count',
  },
  'no rule matched': {
    policy: {
      rules: [
        exitRule('Count', 'NotIn', [8]),
        exitRule('Ignore', 'In', [1, 2, 3]),
        exitRule('FailJob', 'NotIn', [5, 6, 7]),
        condRule('Count', 'True', 'ResourceLimitExceeded'),
        condRule('Ignore', 'True'),
      ],
    },
    pod: withExit(32),
    wantCountFailed: true,
    wantAction: 'Count',
  },
};

describe('TestMatchPodFailurePolicy', () => {
  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const [message, countFailed, action] = matchPodFailurePolicy(tc.policy, tc.pod);
    expect(message).toBe(tc.wantMessage);
    expect(countFailed).toBe(tc.wantCountFailed);
    expect(action).toBe(tc.wantAction);
  });
});

describe('the matchers', () => {
  it('match a named container only, and the app containers before the init containers', () => {
    const status = {
      initContainerStatuses: [exited(3, 'init')],
      containerStatuses: [exited(3, 'main'), exited(4, 'sidecar')],
    };
    expect(matchOnExitCodes(status, { operator: 'In', values: [3, 4] })?.name).toBe('main');
    expect(
      matchOnExitCodes(status, { operator: 'In', values: [3, 4], containerName: 'sidecar' })?.name,
    ).toBe('sidecar');
    expect(
      matchOnExitCodes(status, { operator: 'In', values: [3], containerName: 'init' })?.name,
    ).toBe('init');
    expect(matchOnExitCodes(status, { operator: 'In', values: [9] })).toBeUndefined();
  });

  it('never match a container still running', () => {
    const running = {
      containerStatuses: [{ name: 'main', state: { running: {} } } as ContainerStatus],
    };
    expect(matchOnExitCodes(running, { operator: 'NotIn', values: [1] })).toBeUndefined();
  });

  it('take the pod conditions in the pod order', () => {
    const status = {
      conditions: [
        { type: 'ResourceLimitExceeded', status: 'True' },
        { type: 'DisruptionTarget', status: 'True' },
      ],
    };
    const patterns = [
      { type: 'DisruptionTarget', status: 'True' },
      { type: 'ResourceLimitExceeded', status: 'True' },
    ];
    expect(matchOnPodConditions(status, patterns)?.type).toBe('ResourceLimitExceeded');
    expect(matchOnPodConditions(status, [{ type: 'Ready', status: 'True' }])).toBeUndefined();
  });

  it('a rule with neither exit codes nor conditions never matches', () => {
    expect(matchPodFailurePolicy({ rules: [{ action: 'FailJob' }] }, withExit(1))).toEqual([
      undefined,
      true,
      undefined,
    ]);
  });
});
