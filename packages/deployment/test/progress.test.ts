// Ports of pkg/controller/deployment/progress_test.go (TestRequeueStuckDeployment,
// TestSyncRolloutStatus), and ReplicaFailure surfacing.
import type {
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  ReplicaSet,
} from 'kubernetes-types/apps/v1.js';
import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { getReplicaFailures, requeueStuckDeployment, syncRolloutStatus } from '../src/progress.js';
import { getDeploymentCondition } from '../src/index.js';
import { describeActions, fakeContext, rs, withStatus } from './helpers/fixtures.js';

const status = (
  replicas: number,
  updatedReplicas: number,
  availableReplicas: number,
): DeploymentStatus => ({
  replicas,
  updatedReplicas,
  availableReplicas,
});

function currentDeployment(
  pds: number | undefined,
  replicas: number,
  statusReplicas: number,
  updated: number,
  available: number,
  conditions?: DeploymentCondition[],
): Deployment {
  return {
    metadata: { name: 'progress-test', namespace: 'default' },
    spec: {
      ...(pds !== undefined ? { progressDeadlineSeconds: pds } : {}),
      replicas,
      strategy: { type: 'Recreate' },
      selector: {},
      template: {},
    },
    status: {
      ...status(statusReplicas, updated, available),
      ...(conditions ? { conditions } : {}),
    },
  };
}

const newRSWithAvailable = (
  name: string,
  spec: number,
  statusReplicas: number,
  available: number,
) =>
  withStatus(rs(name, spec, undefined), { replicas: statusReplicas, availableReplicas: available });

describe('requeueStuckDeployment', () => {
  const failed = [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }];
  const stuck = [{ type: 'Progressing', status: 'True', lastUpdateTime: '2017-02-15T18:49:00Z' }];
  const at = (t: string) => Date.parse(t);
  it.each([
    [
      'nil progressDeadlineSeconds',
      currentDeployment(undefined, 4, 3, 3, 2),
      status(3, 3, 2),
      undefined,
      -1,
    ],
    [
      'infinite progressDeadlineSeconds',
      currentDeployment(2147483647, 4, 3, 3, 2),
      status(3, 3, 2),
      undefined,
      -1,
    ],
    [
      'no progressing condition found',
      currentDeployment(60, 4, 3, 3, 2),
      status(3, 3, 2),
      undefined,
      -1,
    ],
    [
      'complete deployment does not need to be requeued',
      currentDeployment(60, 3, 3, 3, 3),
      status(3, 3, 3),
      undefined,
      -1,
    ],
    [
      'already failed deployment does not need to be requeued',
      currentDeployment(60, 3, 3, 3, 0, failed),
      status(3, 3, 0),
      undefined,
      -1,
    ],
    [
      'stuck deployment - 30s',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:49:30Z',
      30_000,
    ],
    [
      'stuck deployment - 1s',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:49:59Z',
      1_000,
    ],
    [
      'less than a second => now',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:49:59.001Z',
      0,
    ],
    [
      'failed deployment - now',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:50:00Z',
      0,
    ],
    [
      'failed deployment - 1s after deadline',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:50:01Z',
      0,
    ],
    [
      'failed deployment - 60s after deadline',
      currentDeployment(60, 3, 3, 3, 1, stuck),
      status(3, 3, 1),
      '2017-02-15T18:51:00Z',
      0,
    ],
  ] as [string, Deployment, DeploymentStatus, string | undefined, number][])(
    '%s',
    (_n, d, st, now, expected) => {
      const { ctx, enqueued } = fakeContext({
        clock: new FakeClock(now ? at(now) : Date.UTC(2017, 1, 15)),
      });
      expect(requeueStuckDeployment(ctx, d, st)).toBe(expected);
      if (expected < 0) expect(enqueued).toEqual([]);
      else if (expected === 0)
        expect(enqueued).toEqual([{ key: 'default/progress-test', rateLimited: true }]);
      // A second more than the wait, against timer skew.
      else expect(enqueued).toEqual([{ key: 'default/progress-test', after: expected + 1000 }]);
    },
  );
});

describe('syncRolloutStatus', () => {
  const testTime = '2017-02-15T18:49:00Z';
  const failedTimedOut = {
    type: 'Progressing',
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  };
  const newRSAvailable = {
    type: 'Progressing',
    status: 'True',
    reason: 'NewReplicaSetAvailable',
    lastUpdateTime: testTime,
    lastTransitionTime: testTime,
  };
  const replicaSetUpdated = {
    type: 'Progressing',
    status: 'True',
    reason: 'ReplicaSetUpdated',
    lastUpdateTime: testTime,
    lastTransitionTime: testTime,
  };

  interface Case {
    d: Deployment;
    allRSs: ReplicaSet[];
    newRS?: ReplicaSet;
    status?: string;
    reason?: string;
    lastUpdate?: string;
    lastTransition?: string;
  }
  it.each<[string, Case]>([
    [
      'no deadline: the Progressing condition goes and no progress is estimated',
      {
        d: currentDeployment(undefined, 3, 2, 2, 2, [replicaSetUpdated]),
        allRSs: [newRSWithAvailable('bar', 0, 1, 1)],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
      },
    ],
    [
      'one active ReplicaSet: progress is not estimated',
      {
        d: currentDeployment(60, 3, 3, 3, 3, [newRSAvailable]),
        allRSs: [newRSWithAvailable('bar', 3, 3, 3)],
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        lastUpdate: testTime,
        lastTransition: testTime,
      },
    ],
    [
      'progressing: keeps lastTransitionTime of a Progressing=True',
      {
        d: currentDeployment(60, 3, 2, 2, 2, [replicaSetUpdated]),
        allRSs: [newRSWithAvailable('bar', 0, 1, 1)],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
        status: 'True',
        reason: 'ReplicaSetUpdated',
        lastTransition: testTime,
      },
    ],
    [
      'progressing: updates everything of a Progressing=False',
      {
        d: currentDeployment(60, 3, 2, 2, 2, [failedTimedOut]),
        allRSs: [newRSWithAvailable('bar', 0, 1, 1)],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
        status: 'True',
        reason: 'ReplicaSetUpdated',
      },
    ],
    [
      'progressing: creates the condition',
      {
        d: currentDeployment(60, 3, 2, 2, 2, []),
        allRSs: [newRSWithAvailable('bar', 0, 1, 1)],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
        status: 'True',
        reason: 'ReplicaSetUpdated',
      },
    ],
    [
      'complete: keeps lastTransitionTime of a Progressing=True',
      {
        d: currentDeployment(60, 3, 3, 3, 3, [replicaSetUpdated]),
        allRSs: [],
        newRS: newRSWithAvailable('foo', 3, 3, 3),
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        lastTransition: testTime,
      },
    ],
    [
      'complete: updates everything of a Progressing=False',
      {
        d: currentDeployment(60, 3, 3, 3, 3, [failedTimedOut]),
        allRSs: [],
        newRS: newRSWithAvailable('foo', 3, 3, 3),
        status: 'True',
        reason: 'NewReplicaSetAvailable',
      },
    ],
    [
      'complete: creates the condition',
      {
        d: currentDeployment(60, 3, 3, 3, 3, []),
        allRSs: [],
        newRS: newRSWithAvailable('foo', 3, 3, 3),
        status: 'True',
        reason: 'NewReplicaSetAvailable',
      },
    ],
    [
      'complete without a new ReplicaSet',
      {
        d: currentDeployment(60, 0, 3, 3, 3, [replicaSetUpdated]),
        allRSs: [newRSWithAvailable('foo', 0, 0, 0)],
        status: 'True',
        reason: 'NewReplicaSetAvailable',
      },
    ],
    [
      'timed out: past the deadline',
      {
        d: currentDeployment(60, 3, 2, 2, 2, [replicaSetUpdated]),
        allRSs: [],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
      },
    ],
    [
      'timed out already: left as it is',
      {
        d: currentDeployment(60, 3, 2, 2, 2, [
          { ...failedTimedOut, lastUpdateTime: testTime, lastTransitionTime: testTime },
        ]),
        allRSs: [],
        newRS: newRSWithAvailable('foo', 3, 2, 2),
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        lastUpdate: testTime,
        lastTransition: testTime,
      },
    ],
  ])('%s', async (_n, test) => {
    const { ctx } = fakeContext({ clock: new FakeClock(Date.parse('2017-02-15T19:00:00Z')) });
    const allRSs = test.newRS ? [...test.allRSs, test.newRS] : test.allRSs;
    await syncRolloutStatus(ctx, allRSs, test.newRS, test.d);
    const cond = getDeploymentCondition(test.d.status, 'Progressing');
    if (test.status === undefined) {
      expect(cond).toBeUndefined();
      return;
    }
    expect(cond).toMatchObject({ status: test.status, reason: test.reason });
    if (test.lastUpdate) expect(cond?.lastUpdateTime).toBe(test.lastUpdate);
    else expect(cond?.lastUpdateTime).toBe('2017-02-15T19:00:00Z');
    if (test.lastTransition) expect(cond?.lastTransitionTime).toBe(test.lastTransition);
  });

  it('uses upstream’s messages, naming the new ReplicaSet', async () => {
    const { ctx, clients } = fakeContext();
    const d = currentDeployment(60, 3, 2, 2, 2, [
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        lastUpdateTime: '2020-01-01T00:00:00Z',
      },
    ]);
    const foo1 = newRSWithAvailable('foo-1', 3, 2, 2);
    await syncRolloutStatus(ctx, [foo1], foo1, d);
    expect(getDeploymentCondition(d.status, 'Progressing')?.message).toBe(
      'ReplicaSet "foo-1" has timed out progressing.',
    );
    expect(describeActions(clients.actions)).toEqual(['update deployments/status progress-test']);
  });

  it('writes nothing, and schedules the progress check, when nothing changed', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:10Z'));
    const { ctx, clients, enqueued } = fakeContext({ clock });
    const d = currentDeployment(60, 3, 3, 3, 1, [
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: 'ReplicaSet "foo" is progressing.',
        lastUpdateTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Available',
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
        message: 'Deployment does not have minimum availability.',
        lastUpdateTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
    d.status!.unavailableReplicas = 2;
    await syncRolloutStatus(
      ctx,
      [newRSWithAvailable('foo', 3, 3, 1)],
      newRSWithAvailable('foo', 3, 3, 1),
      d,
    );
    expect(clients.actions).toEqual([]);
    expect(enqueued).toEqual([{ key: 'default/progress-test', after: 51_000 }]);
  });
});

describe('ReplicaFailure', () => {
  const failure = (reason: string) => ({
    type: 'ReplicaFailure',
    status: 'True',
    reason,
    message: reason,
    lastTransitionTime: '2026-01-01T00:00:01Z',
  });
  it('prefers the new ReplicaSet’s failures, then any old one’s', () => {
    const a = withStatus(rs('a', 1, undefined), {
      replicas: 0,
      conditions: [failure('FailedCreate')],
    });
    const b = withStatus(rs('b', 1, undefined), {
      replicas: 0,
      conditions: [failure('FailedDelete')],
    });
    expect(getReplicaFailures([a, b], b).map((c) => c.reason)).toEqual(['FailedDelete']);
    expect(getReplicaFailures([a, b], undefined).map((c) => c.reason)).toEqual([
      'FailedCreate',
      'FailedDelete',
    ]);
    expect(getReplicaFailures([rs('c', 1, undefined)], undefined)).toEqual([]);
  });
  it('is surfaced on the Deployment and removed once gone', async () => {
    const { ctx } = fakeContext();
    const d = currentDeployment(undefined, 1, 0, 0, 0);
    const failing = withStatus(rs('a', 1, undefined), {
      replicas: 0,
      conditions: [failure('FailedCreate')],
    });
    await syncRolloutStatus(ctx, [failing], failing, d);
    expect(getDeploymentCondition(d.status, 'ReplicaFailure')).toEqual({
      type: 'ReplicaFailure',
      status: 'True',
      reason: 'FailedCreate',
      message: 'FailedCreate',
      lastTransitionTime: '2026-01-01T00:00:01Z',
      lastUpdateTime: '2026-01-01T00:00:01Z',
    });
    const healed = withStatus(rs('a', 1, undefined), { replicas: 1 });
    await syncRolloutStatus(ctx, [healed], healed, d);
    expect(getDeploymentCondition(d.status, 'ReplicaFailure')).toBeUndefined();
  });
});
