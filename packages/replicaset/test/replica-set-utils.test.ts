// Ports of replica_set_utils_test.go's TestCalculateStatus and
// TestCalculateStatusConditions, and of replica_set_test.go's
// TestControllerUpdateStatusWithFailure, plus the condition helpers.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import {
  formatTime,
  newConflict,
  newInternalError,
  optimisticLockErrorMsg,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  calculateStatus,
  getCondition,
  newReplicaSetCondition,
  removeCondition,
  setCondition,
  updateReplicaSetStatus,
} from '../src/index.js';
import { creatable, epoch, faultyClient, newPod, newReplicaSet } from './helpers.js';

const now = epoch + 3_600_000;

describe('calculateStatus (TestCalculateStatus)', () => {
  const rs = newReplicaSet('rs', 1, { labels: { name: 'rs' } });
  // Template labels beyond the selector's: the "fully labeled" test.
  const longRS: ReplicaSet = {
    ...rs,
    spec: {
      ...rs.spec!,
      template: { ...rs.spec!.template, metadata: { labels: { name: 'rs', type: 'production' } } },
    },
  };
  const full = { name: 'rs', type: 'production' };
  const partial = { name: 'rs' };
  const ready = (name: string, labels: Record<string, string>) =>
    newPod(name, rs, { labels, ready: true, readySince: epoch });

  it.each([
    ['1 fully labelled pod', longRS, [ready('p1', full)], [1, 1, 1, 1]],
    ['1 not fully labelled pod', longRS, [ready('p1', partial)], [1, 0, 1, 1]],
    ['2 fully labelled pods', longRS, [ready('p1', full), ready('p2', full)], [2, 2, 2, 2]],
    [
      '2 not fully labelled pods',
      longRS,
      [ready('p1', partial), ready('p2', partial)],
      [2, 0, 2, 2],
    ],
    [
      '1 fully + 1 not fully labelled pod',
      longRS,
      [ready('p1', partial), ready('p2', full)],
      [2, 1, 2, 2],
    ],
    ['1 non-ready pod', longRS, [newPod('p1', rs, { labels: full, ready: false })], [1, 1, 0, 0]],
    [
      '1 ready but non-available pod',
      { ...longRS, spec: { ...longRS.spec!, minReadySeconds: 3600 } },
      [ready('p1', full)],
      [1, 1, 1, 0],
    ],
  ] as const)('%s', (_name, owner, pods, [replicas, fullyLabeled, readyN, available]) => {
    const status = calculateStatus(owner, pods, undefined, now);
    expect(status.replicas).toBe(replicas);
    expect(status.fullyLabeledReplicas ?? 0).toBe(fullyLabeled);
    expect(status.readyReplicas ?? 0).toBe(readyN);
    expect(status.availableReplicas ?? 0).toBe(available);
  });

  it('leaves zero counts out, as the wire form does', () => {
    expect(calculateStatus(newReplicaSet('rs', 0), [], undefined, now)).toEqual({ replicas: 0 });
  });
});

describe('calculateStatus conditions (TestCalculateStatusConditions)', () => {
  const rs = newReplicaSet('rs', 2);
  const pods = (n: number) => Array.from({ length: n }, (_, i) => newPod(`p${i}`, rs));
  const failure = newReplicaSetCondition(
    'ReplicaFailure',
    'True',
    'FailedCreate',
    'fake manageReplicasErr',
    epoch,
  );
  const withFailure: ReplicaSet = { ...rs, status: { replicas: 1, conditions: [failure] } };

  it('adds FailedCreate with too few pods', () => {
    const status = calculateStatus(rs, pods(1), new Error('fake manageReplicasErr'), now);
    expect(status.conditions).toEqual([
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'fake manageReplicasErr',
        lastTransitionTime: formatTime(now),
      },
    ]);
  });

  it('adds FailedDelete with too many pods, and no reason with the right count', () => {
    expect(calculateStatus(rs, pods(3), new Error('x'), now).conditions?.[0]?.reason).toBe(
      'FailedDelete',
    );
    const even = calculateStatus(rs, pods(2), new Error('x'), now).conditions?.[0];
    expect(even).toEqual({
      type: 'ReplicaFailure',
      status: 'True',
      message: 'x',
      lastTransitionTime: formatTime(now),
    });
  });

  it('removes the condition once manageReplicas succeeds', () => {
    expect(calculateStatus(withFailure, pods(2), undefined, now).conditions).toBeUndefined();
  });

  it('leaves an existing condition alone while manageReplicas keeps failing', () => {
    const status = calculateStatus(withFailure, pods(1), new Error('another error'), now);
    expect(status.conditions).toEqual([failure]);
  });

  it('adds nothing when all is well', () => {
    expect(calculateStatus(rs, pods(2), undefined, now).conditions).toBeUndefined();
  });
});

describe('condition helpers', () => {
  it('setCondition replaces a condition unless status and reason are the same', () => {
    const status = {
      replicas: 0,
      conditions: [newReplicaSetCondition('Other', 'True', 'R', '', epoch)],
    };
    const first = newReplicaSetCondition('ReplicaFailure', 'True', 'FailedCreate', 'a', epoch);
    setCondition(status, first);
    setCondition(
      status,
      newReplicaSetCondition('ReplicaFailure', 'True', 'FailedCreate', 'b', now),
    );
    expect(getCondition(status, 'ReplicaFailure')).toBe(first);
    const changed = newReplicaSetCondition('ReplicaFailure', 'True', 'FailedDelete', 'c', now);
    setCondition(status, changed);
    expect(status.conditions.map((c) => c.type)).toEqual(['Other', 'ReplicaFailure']);
    expect(getCondition(status, 'ReplicaFailure')).toBe(changed);
    removeCondition(status, 'ReplicaFailure');
    removeCondition(status, 'Other');
    expect(status).toEqual({ replicas: 0 });
  });
});

describe('updateReplicaSetStatus', () => {
  let sandbox: Sandbox;
  afterEach(async () => {
    await sandbox.stop();
  });

  async function stored() {
    sandbox = await startSandbox({ insecureHttp: true });
    const raw = sandbox.client<ReplicaSet>('apps', 'replicasets');
    const rs = await raw.inNamespace('default').create(creatable(newReplicaSet('rs', 2)));
    return { client: faultyClient(raw), rs, raw };
  }

  it('writes nothing when counts, conditions and observedGeneration are current', async () => {
    const { client, rs } = await stored();
    const current = await client.client.inNamespace('default').updateStatus({
      ...rs,
      status: { replicas: 2, observedGeneration: rs.metadata!.generation! },
    });
    client.counts.clear();
    const got = await updateReplicaSetStatus(client.client, current, { replicas: 2 });
    expect(got).toBe(current);
    expect(client.counts.size).toBe(0);
  });

  it('writes the status and the observed generation through the status subresource', async () => {
    const { client, rs } = await stored();
    const got = await updateReplicaSetStatus(client.client, rs, { replicas: 1, readyReplicas: 1 });
    expect(got.status).toEqual({ replicas: 1, readyReplicas: 1, observedGeneration: 1 });
    expect([...client.counts]).toEqual([['updateStatus', 1]]);
  });

  it('retries once after a fresh GET (TestControllerUpdateStatusWithFailure)', async () => {
    const { client, rs, raw } = await stored();
    // Someone else wrote meanwhile: our copy is stale and gets a 409.
    await raw
      .inNamespace('default')
      .patch('rs', { type: 'merge', body: { metadata: { labels: { x: 'y' } } } });
    const got = await updateReplicaSetStatus(client.client, rs, { replicas: 1 });
    expect(got.status?.replicas).toBe(1);
    expect(Object.fromEntries(client.counts)).toEqual({ updateStatus: 2, get: 1 });
  });

  it('gives up after the one retry with the update error, or with the GET error', async () => {
    const { client, rs } = await stored();
    client.failNext('updateStatus', 2, () =>
      newConflict({ group: 'apps', resource: 'replicasets' }, 'rs', optimisticLockErrorMsg),
    );
    await expect(updateReplicaSetStatus(client.client, rs, { replicas: 1 })).rejects.toThrow(
      /Operation cannot be fulfilled/,
    );
    expect(Object.fromEntries(client.counts)).toEqual({ updateStatus: 2, get: 1 });

    client.counts.clear();
    client.failNext('updateStatus', 1, () => newInternalError('update failed'));
    client.failNext('get', 1, () => newInternalError('get failed'));
    await expect(updateReplicaSetStatus(client.client, rs, { replicas: 1 })).rejects.toThrow(
      /get failed/,
    );
  });
});
