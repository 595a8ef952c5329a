// Ports of pkg/controller/deployment/recreate_test.go, and rolloutRecreate's
// "never old and new together" order.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  oldPodsRunning,
  rolloutRecreate,
  scaleDownOldReplicaSetsForRecreate,
} from '../src/recreate.js';
import { revisionAnnotation, setReplicasAnnotations } from '../src/index.js';
import {
  describeActions,
  fakeContext,
  newDeployment,
  newReplicaSet,
  newRSWithStatus,
  podOf,
  withStatus,
  meta,
  withPodStatus,
} from './helpers/fixtures.js';

describe('scaleDownOldReplicaSetsForRecreate', () => {
  it('scales every old ReplicaSet to 0 and puts the updated ones in the list', async () => {
    const { ctx, clients } = fakeContext();
    const d = newDeployment('foo', 3, undefined, undefined, undefined, { foo: 'bar' });
    const oldRSs = [newReplicaSet(d, 'foo-0', 3), newReplicaSet(d, 'foo-1', 0)];
    clients.replicaSets.seed(...oldRSs);
    expect(await scaleDownOldReplicaSetsForRecreate(ctx, oldRSs, d)).toBe(true);
    expect(oldRSs.map((r) => r.spec?.replicas)).toEqual([0, 0]);
    expect(describeActions(clients.actions)).toEqual(['update replicasets foo-0']);
  });
});

describe('oldPodsRunning', () => {
  const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
  const rsWithUID = (uid: string) => {
    const r = newReplicaSet(d, `foo-${uid}`, 0);
    meta(r).uid = uid;
    return r;
  };
  const pod = (phase?: string): Pod => ({ metadata: {}, status: phase ? { phase } : {} });
  it.each([
    ['no old RSs', undefined, [], undefined, false],
    [
      'old RSs with running pods',
      undefined,
      [rsWithUID('some-uid'), rsWithUID('other-uid')],
      new Map([
        ['some-uid', [pod(), pod()]],
        ['other-uid', [pod(), pod()]],
      ]),
      true,
    ],
    [
      'old RSs without pods but with non-zero status replicas',
      undefined,
      [newRSWithStatus('rs-1', 0, 1)],
      undefined,
      true,
    ],
    [
      'old RSs without pods or non-zero status replicas',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      undefined,
      false,
    ],
    [
      'pods in terminal state only',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([['uid-1', [pod('Failed'), pod('Succeeded')]]]),
      false,
    ],
    [
      'a pod in the Unknown phase',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([['uid-1', [pod('Unknown')]]]),
      true,
    ],
    [
      'a pending pod',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([['uid-1', [pod('Pending')]]]),
      true,
    ],
    [
      'a running pod',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([['uid-1', [pod('Running')]]]),
      true,
    ],
    [
      'terminal pods and a pending one',
      undefined,
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([
        ['uid-1', [pod('Failed'), pod('Succeeded')]],
        ['uid-2', []],
        ['uid-3', [pod('Pending')]],
      ]),
      true,
    ],
    [
      'only the new ReplicaSet has pods',
      rsWithUID('new'),
      [newRSWithStatus('rs-1', 0, 0)],
      new Map([['new', [pod('Running')]]]),
      false,
    ],
  ] as const)('%s', (_n, newRS, oldRSs, podMap, expected) => {
    expect(oldPodsRunning(newRS, oldRSs, podMap)).toBe(expected);
  });
});

describe('rolloutRecreate', () => {
  const setup = () => {
    const fx = fakeContext();
    const d = newDeployment('foo', 2, undefined, undefined, undefined, { app: 'foo' });
    d.spec!.strategy = { type: 'Recreate' };
    d.spec!.progressDeadlineSeconds = 600;
    d.spec!.template.spec!.containers[0]!.image = 'v2';
    d.metadata!.annotations![revisionAnnotation] = '1';
    const old = newReplicaSet(d, 'foo-old', 2);
    old.spec!.template!.spec!.containers[0]!.image = 'v1';
    old.metadata!.annotations = { [revisionAnnotation]: '1' };
    setReplicasAnnotations(old, 2, 2);
    fx.clients.replicaSets.seed(old);
    return { ...fx, d, old };
  };

  it('first scales the old ReplicaSets down, creating nothing', async () => {
    const { ctx, clients, d, old } = setup();
    withStatus(old, { replicas: 2, availableReplicas: 2 });
    await rolloutRecreate(ctx, d, [old], new Map([[old.metadata!.uid!, [podOf(old)]]]));
    expect(describeActions(clients.actions)).toEqual([
      'update replicasets foo-old',
      'update deployments/status foo',
    ]);
  });

  it('waits while an old pod still runs', async () => {
    const { ctx, clients, d, old } = setup();
    old.spec!.replicas = 0;
    withStatus(old, { replicas: 0 });
    const terminating = podOf(old);
    meta(terminating).deletionTimestamp = '2026-01-01T00:00:00Z';
    withPodStatus(terminating, { phase: 'Running' });
    await rolloutRecreate(ctx, d, [old], new Map([[old.metadata!.uid!, [terminating]]]));
    expect(describeActions(clients.actions, ['create', 'update'])).toEqual([
      'update deployments/status foo',
    ]);
  });

  it('creates the new ReplicaSet at full size once the old pods are gone', async () => {
    const { ctx, clients, d, old, recorder } = setup();
    old.spec!.replicas = 0;
    withStatus(old, { replicas: 0 });
    await rolloutRecreate(ctx, d, [old], new Map([[old.metadata!.uid!, []]]));
    const create = clients.actions.find((a) => a.verb === 'create');
    expect((create?.object as { spec: { replicas: number } }).spec.replicas).toBe(2);
    expect(recorder.events).toEqual([
      expect.stringMatching(/^Normal ScalingReplicaSet Scaled up replica set foo-\w+ from 0 to 2$/),
    ]);
  });
});
