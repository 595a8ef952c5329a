// Ports of pkg/controller/deployment/sync_test.go (TestScale,
// cleanupDeployment, cleanupDeploymentOrder), and the rest of sync.go:
// getNewReplicaSet with hash collisions, calculateStatus,
// checkPausedConditions, isScalingEvent, sync.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { FakeClock, isAlreadyExists, newInternalError, StatusError } from '@kcm-ts/apimachinery';
import { computeHash } from '@kcm-ts/controller';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calculateStatus,
  checkPausedConditions,
  cleanupDeployment,
  getNewReplicaSet,
  isScalingEvent,
  scale,
  sync,
} from '../src/sync.js';
import { maxSurge, revisionAnnotation, setReplicasAnnotations } from '../src/index.js';
import {
  describeActions,
  fakeContext,
  newDeployment,
  newReplicaSet,
  newRSWithStatus,
  rs,
  withStatus,
  meta,
} from './helpers/fixtures.js';

const newTimestamp = '2016-05-20T02:00:00Z';
const oldTimestamp = '2016-05-20T01:00:00Z';
const olderTimestamp = '2016-05-20T00:00:00Z';

describe('scale (TestScale)', () => {
  const updatedTemplate = (replicas: number) => {
    const d = newDeployment('foo', replicas, undefined, undefined, undefined, { foo: 'bar' });
    d.spec!.template.metadata!.labels!.another = 'label';
    return d;
  };
  interface Case {
    name: string;
    deployment: Deployment;
    oldDeployment: Deployment;
    newRS?: ReplicaSet;
    oldRSs: ReplicaSet[];
    expectedNew?: number;
    expectedOld: number[];
    wasntUpdated?: string[];
    desiredReplicasAnnotations?: Record<string, number>;
  }
  const d = (replicas: number, surge?: number, unavailable?: number) =>
    newDeployment('foo', replicas, undefined, surge, unavailable);
  const cases: Case[] = [
    {
      name: 'normal scaling event: 10 -> 12',
      deployment: d(12),
      oldDeployment: d(10),
      newRS: rs('foo-v1', 10, undefined, newTimestamp),
      oldRSs: [],
      expectedNew: 12,
      expectedOld: [],
    },
    {
      name: 'normal scaling event: 10 -> 5',
      deployment: d(5),
      oldDeployment: d(10),
      newRS: rs('foo-v1', 10, undefined, newTimestamp),
      oldRSs: [],
      expectedNew: 5,
      expectedOld: [],
    },
    {
      name: 'proportional scaling: 5 -> 10',
      deployment: d(10),
      oldDeployment: d(5),
      newRS: rs('foo-v2', 2, undefined, newTimestamp),
      oldRSs: [rs('foo-v1', 3, undefined, oldTimestamp)],
      expectedNew: 4,
      expectedOld: [6],
    },
    {
      name: 'proportional scaling: 5 -> 3',
      deployment: d(3),
      oldDeployment: d(5),
      newRS: rs('foo-v2', 2, undefined, newTimestamp),
      oldRSs: [rs('foo-v1', 3, undefined, oldTimestamp)],
      expectedNew: 1,
      expectedOld: [2],
    },
    {
      name: 'proportional scaling: 9 -> 4',
      deployment: d(4),
      oldDeployment: d(9),
      newRS: rs('foo-v2', 8, undefined, newTimestamp),
      oldRSs: [rs('foo-v1', 1, undefined, oldTimestamp)],
      expectedNew: 4,
      expectedOld: [0],
    },
    {
      name: 'proportional scaling: 7 -> 10',
      deployment: d(10),
      oldDeployment: d(7),
      newRS: rs('foo-v3', 2, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 3, undefined, oldTimestamp),
        rs('foo-v1', 2, undefined, olderTimestamp),
      ],
      expectedNew: 3,
      expectedOld: [4, 3],
    },
    {
      name: 'proportional scaling: 13 -> 8',
      deployment: d(8),
      oldDeployment: d(13),
      newRS: rs('foo-v3', 2, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 8, undefined, oldTimestamp),
        rs('foo-v1', 3, undefined, olderTimestamp),
      ],
      expectedNew: 1,
      expectedOld: [5, 2],
    },
    // Scales up the new replica set.
    {
      name: 'leftover distribution: 3 -> 4',
      deployment: d(4),
      oldDeployment: d(3),
      newRS: rs('foo-v3', 1, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 1, undefined, oldTimestamp),
        rs('foo-v1', 1, undefined, olderTimestamp),
      ],
      expectedNew: 2,
      expectedOld: [1, 1],
    },
    // Scales down the older replica set.
    {
      name: 'leftover distribution: 3 -> 2',
      deployment: d(2),
      oldDeployment: d(3),
      newRS: rs('foo-v3', 1, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 1, undefined, oldTimestamp),
        rs('foo-v1', 1, undefined, olderTimestamp),
      ],
      expectedNew: 1,
      expectedOld: [1, 0],
    },
    // Scales up the latest replica set first.
    {
      name: 'proportional scaling (no new rs): 4 -> 5',
      deployment: d(5),
      oldDeployment: d(4),
      oldRSs: [
        rs('foo-v2', 2, undefined, oldTimestamp),
        rs('foo-v1', 2, undefined, olderTimestamp),
      ],
      expectedOld: [3, 2],
    },
    {
      name: 'proportional scaling: 6 -> 0',
      deployment: d(0),
      oldDeployment: d(6),
      newRS: rs('foo-v3', 3, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 2, undefined, oldTimestamp),
        rs('foo-v1', 1, undefined, olderTimestamp),
      ],
      expectedNew: 0,
      expectedOld: [0, 0],
    },
    {
      name: 'proportional scaling: 0 -> 6',
      deployment: d(6),
      oldDeployment: d(6),
      newRS: rs('foo-v3', 0, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 0, undefined, oldTimestamp),
        rs('foo-v1', 0, undefined, olderTimestamp),
      ],
      expectedNew: 6,
      expectedOld: [0, 0],
      wasntUpdated: ['foo-v2', 'foo-v1'],
    },
    // foo-v2 was sized for 3, the others for 5: only foo-v2 grows.
    {
      name: 'failed rs update',
      deployment: d(5),
      oldDeployment: d(5),
      newRS: rs('foo-v3', 2, undefined, newTimestamp),
      oldRSs: [
        rs('foo-v2', 1, undefined, oldTimestamp),
        rs('foo-v1', 1, undefined, olderTimestamp),
      ],
      expectedNew: 2,
      expectedOld: [2, 1],
      wasntUpdated: ['foo-v3', 'foo-v1'],
      desiredReplicasAnnotations: { 'foo-v2': 3 },
    },
    {
      name: 'deployment with surge pods',
      deployment: d(20, 2),
      oldDeployment: d(10, 2),
      newRS: rs('foo-v2', 6, undefined, newTimestamp),
      oldRSs: [rs('foo-v1', 6, undefined, oldTimestamp)],
      expectedNew: 11,
      expectedOld: [11],
    },
    {
      name: 'change both surge and size',
      deployment: d(50, 6),
      oldDeployment: d(10, 3),
      newRS: rs('foo-v2', 5, undefined, newTimestamp),
      oldRSs: [rs('foo-v1', 8, undefined, oldTimestamp)],
      expectedNew: 22,
      expectedOld: [34],
    },
    {
      name: 'change both size and template',
      deployment: updatedTemplate(14),
      oldDeployment: newDeployment('foo', 10, undefined, undefined, undefined, { foo: 'bar' }),
      oldRSs: [rs('foo-v2', 7, undefined, newTimestamp), rs('foo-v1', 3, undefined, oldTimestamp)],
      expectedOld: [10, 4],
    },
    {
      name: 'saturated but broken new replica set does not affect old pods',
      deployment: d(2, 1, 1),
      oldDeployment: d(2, 1, 1),
      newRS: withStatus(rs('foo-v2', 2, undefined, newTimestamp), {
        replicas: 2,
        availableReplicas: 0,
      }),
      oldRSs: [rs('foo-v1', 1, undefined, oldTimestamp)],
      expectedNew: 2,
      expectedOld: [1],
    },
  ];

  it.each(cases)('$name', async (test) => {
    const { ctx, clients } = fakeContext();
    const annotate = (r: ReplicaSet) => {
      const desired =
        test.desiredReplicasAnnotations?.[r.metadata!.name!] ?? test.oldDeployment.spec!.replicas!;
      setReplicasAnnotations(r, desired, desired + maxSurge(test.oldDeployment));
    };
    if (test.newRS) annotate(test.newRS);
    test.oldRSs.forEach(annotate);
    const original = test.oldRSs.map((r) => r.metadata!.name!);

    await scale(ctx, test.deployment, test.newRS, test.oldRSs);

    const nameToSize = new Map<string, number>();
    if (test.newRS) nameToSize.set(test.newRS.metadata!.name!, test.newRS.spec!.replicas!);
    for (const r of test.oldRSs) nameToSize.set(r.metadata!.name!, r.spec!.replicas!);
    for (const a of clients.actions) {
      expect(a.verb).toBe('update');
      const r = a.object as ReplicaSet;
      if (!test.wasntUpdated?.includes(r.metadata!.name!))
        nameToSize.set(r.metadata!.name!, r.spec!.replicas!);
    }
    if (test.expectedNew !== undefined && test.newRS) {
      expect(nameToSize.get(test.newRS.metadata!.name!)).toBe(test.expectedNew);
    }
    expect(original.map((n) => nameToSize.get(n))).toEqual(test.expectedOld);
  });

  it('records a ScalingReplicaSet event per size change, with the new message form', async () => {
    const { ctx, recorder } = fakeContext();
    const newRS = rs('foo-v2', 2, undefined, newTimestamp);
    const oldRS = rs('foo-v1', 3, undefined, oldTimestamp);
    for (const r of [newRS, oldRS]) setReplicasAnnotations(r, 5, 5);
    await scale(ctx, d(10), newRS, [oldRS]);
    expect(recorder.events).toEqual([
      'Normal ScalingReplicaSet Scaled up replica set foo-v1 from 3 to 6',
      'Normal ScalingReplicaSet Scaled up replica set foo-v2 from 2 to 4',
    ]);
  });

  it('spreads any scaling event so the active total is replicas + maxSurge, none negative', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 5 }),
        async (sizes, replicas, surge) => {
          const before = sizes.reduce((a, b) => a + b, 0);
          const oldD = d(Math.max(1, before - surge), surge, 1);
          const sets = sizes.map((n, i) =>
            rs(`foo-v${i}`, n, undefined, `2016-05-20T0${i}:00:00Z`),
          );
          sets.forEach((r) => setReplicasAnnotations(r, oldD.spec!.replicas!, before));
          const { ctx, clients } = fakeContext();
          const newRS = sets.pop()!;
          await scale(ctx, d(replicas, surge, 1), newRS, sets);
          const final = new Map(
            [...sets, newRS].map((r) => [r.metadata!.name!, r.spec!.replicas!]),
          );
          for (const a of clients.actions) {
            const r = a.object as ReplicaSet;
            final.set(r.metadata!.name!, r.spec!.replicas!);
          }
          const total = [...final.values()].reduce((a, b) => a + b, 0);
          for (const n of final.values()) expect(n).toBeGreaterThanOrEqual(0);
          expect(total).toBe(replicas > 0 ? replicas + surge : 0);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('cleanupDeployment', () => {
  const selector = { foo: 'bar' };
  const deleting = () => {
    const r = newRSWithStatus('foo-1', 0, 0, selector);
    meta(r).deletionTimestamp = '2026-01-01T00:00:00Z';
    return r;
  };
  it.each([
    [
      [
        newRSWithStatus('foo-1', 0, 0, selector),
        newRSWithStatus('foo-2', 0, 0, selector),
        newRSWithStatus('foo-3', 0, 0, selector),
      ],
      1,
      2,
    ],
    // Only ReplicaSets with spec and status replicas of 0.
    [
      [
        newRSWithStatus('foo-1', 0, 0, selector),
        newRSWithStatus('foo-2', 0, 1, selector),
        newRSWithStatus('foo-3', 1, 0, selector),
        newRSWithStatus('foo-4', 1, 1, selector),
      ],
      0,
      1,
    ],
    [[newRSWithStatus('foo-1', 0, 0, selector), newRSWithStatus('foo-2', 0, 0, selector)], 0, 2],
    [[newRSWithStatus('foo-1', 1, 1, selector), newRSWithStatus('foo-2', 1, 1, selector)], 0, 0],
    [[deleting()], 0, 0],
    [
      [
        newRSWithStatus('foo-1', 0, 0, selector),
        newRSWithStatus('foo-2', 0, 0, selector),
        newRSWithStatus('foo-3', 0, 0, selector),
      ],
      2147483647,
      0,
    ],
  ] as [ReplicaSet[], number, number][])(
    'limit %#: deletes the expected number',
    async (oldRSs, limit, expected) => {
      const { ctx, clients } = fakeContext();
      clients.replicaSets.seed(...oldRSs);
      await cleanupDeployment(
        ctx,
        oldRSs,
        newDeployment('foo', 1, limit, undefined, undefined, selector),
      );
      expect(clients.actions.filter((a) => a.verb === 'delete')).toHaveLength(expected);
    },
  );

  it('skips a ReplicaSet whose status lags its generation', async () => {
    const { ctx, clients } = fakeContext();
    const lagging = newRSWithStatus('foo-1', 0, 0, selector);
    meta(lagging).generation = 2;
    withStatus(lagging, { replicas: 0, observedGeneration: 1 });
    await cleanupDeployment(ctx, [lagging], newDeployment('foo', 1, 0));
    expect(clients.actions).toEqual([]);
  });

  const at = (min: number) =>
    new Date(Date.UTC(2026, 0, 1, 0, 10 + min)).toISOString().replace('.000', '');
  const withRev = (name: string, replicas: number, ts: string, rev: string) => {
    const r = rs(name, replicas, selector, ts);
    if (rev !== '') r.metadata!.annotations = { [revisionAnnotation]: rev };
    return withStatus(r, { replicas });
  };
  // Creation time order is always foo-1 < foo-2 < foo-3 < foo-4.
  it.each([
    [
      'revision order 1 < 2: delete 1',
      [withRev('foo-1', 0, at(-1), '1'), withRev('foo-2', 0, at(0), '2')],
      1,
      ['foo-1'],
    ],
    [
      'revision order 2 < 1: delete 2',
      [withRev('foo-1', 0, at(-1), '2'), withRev('foo-2', 0, at(0), '1')],
      1,
      ['foo-2'],
    ],
    [
      'no revision on 2: delete 2',
      [withRev('foo-1', 0, at(-1), '1'), withRev('foo-2', 0, at(0), '')],
      1,
      ['foo-2'],
    ],
    [
      'no revision on 1: delete 1',
      [withRev('foo-1', 0, at(-1), ''), withRev('foo-2', 0, at(0), '2')],
      1,
      ['foo-1'],
    ],
    [
      '1 has replicas: delete 2',
      [
        withRev('foo-1', 1, at(-1), '1'),
        withRev('foo-2', 0, at(0), '2'),
        withRev('foo-3', 0, at(1), '3'),
      ],
      1,
      ['foo-2'],
    ],
    [
      '1 and 2 have replicas: delete none',
      [
        withRev('foo-1', 1, at(-1), '1'),
        withRev('foo-2', 1, at(0), '2'),
        withRev('foo-3', 0, at(1), '3'),
      ],
      1,
      [],
    ],
    [
      'order 2 < 4 < 1 < 3: delete 2 and 4',
      [
        withRev('foo-1', 0, at(-1), '3'),
        withRev('foo-2', 0, at(0), '1'),
        withRev('foo-3', 0, at(1), '4'),
        withRev('foo-4', 0, at(2), '2'),
      ],
      2,
      ['foo-2', 'foo-4'],
    ],
  ] as [string, ReplicaSet[], number, string[]][])('%s', async (_n, oldRSs, limit, expected) => {
    const { ctx, clients } = fakeContext();
    clients.replicaSets.seed(...oldRSs);
    await cleanupDeployment(
      ctx,
      oldRSs,
      newDeployment('foo', 1, limit, undefined, undefined, selector),
    );
    expect(
      clients.actions
        .filter((a) => a.verb === 'delete')
        .map((a) => a.name)
        .sort(),
    ).toEqual(expected);
  });

  it('ignores NotFound but stops at another delete error', async () => {
    const { ctx, clients } = fakeContext();
    const sets = [newRSWithStatus('foo-1', 0, 0), newRSWithStatus('foo-2', 0, 0)];
    await cleanupDeployment(ctx, sets, newDeployment('foo', 1, 0)); // neither was seeded: NotFound
    expect(clients.actions.filter((a) => a.verb === 'delete')).toHaveLength(2);
    clients.replicaSets.failOn('delete', newInternalError('etcd down'));
    await expect(cleanupDeployment(ctx, sets, newDeployment('foo', 1, 0))).rejects.toThrow(
      'etcd down',
    );
    expect(clients.actions.filter((a) => a.verb === 'delete')).toHaveLength(3);
  });
});

describe('getNewReplicaSet', () => {
  const deployment = () => {
    const d = newDeployment('foo', 3, undefined, 1, 0, { app: 'foo' });
    d.spec!.progressDeadlineSeconds = 600;
    return d;
  };
  const hashOf = (d: Deployment) => computeHash(d.spec!.template, d.status?.collisionCount);

  it('creates the new ReplicaSet with the hash label, revision and replica annotations', async () => {
    const { ctx, clients, recorder } = fakeContext();
    const d = deployment();
    const old = newReplicaSet(d, 'foo-old', 0);
    old.spec!.template!.spec!.containers[0]!.image = 'old';
    old.metadata!.annotations = { [revisionAnnotation]: '4' };
    const created = await getNewReplicaSet(ctx, d, [old], [old], true);
    const hash = hashOf(d);
    expect(created?.metadata?.name).toBe(`foo-${hash}`);
    expect(created?.metadata?.labels).toEqual({ app: 'foo', 'pod-template-hash': hash });
    expect(created?.spec?.selector).toEqual({
      matchLabels: { app: 'foo', 'pod-template-hash': hash },
    });
    expect(created?.spec?.template?.metadata?.labels).toEqual({
      app: 'foo',
      'pod-template-hash': hash,
    });
    expect(created?.spec?.replicas).toBe(3);
    expect(created?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'foo',
        uid: d.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(created?.metadata?.annotations).toEqual({
      [revisionAnnotation]: '5',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    // The Deployment's template is untouched.
    expect(d.spec?.template.metadata?.labels).toEqual({ app: 'foo' });
    expect(describeActions(clients.actions)).toEqual([
      `create replicasets foo-${hash}`,
      'update deployments/status foo',
    ]);
    expect(recorder.events).toEqual([
      `Normal ScalingReplicaSet Scaled up replica set foo-${hash} from 0 to 3`,
    ]);
    const written = clients.actions[1]!.object as Deployment;
    expect(written.metadata?.annotations?.[revisionAnnotation]).toBe('5');
    expect(written.status?.conditions).toEqual([
      {
        type: 'Progressing',
        status: 'True',
        reason: 'NewReplicaSetCreated',
        message: `Created new replica set "foo-${hash}"`,
        lastUpdateTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('creates nothing when not asked to', async () => {
    const { ctx, clients } = fakeContext();
    expect(await getNewReplicaSet(ctx, deployment(), [], [], false)).toBeUndefined();
    expect(clients.actions).toEqual([]);
  });

  it('updates an existing new ReplicaSet whose annotations or minReadySeconds lag, and returns at once', async () => {
    const { ctx, clients } = fakeContext();
    const d = deployment();
    d.spec!.minReadySeconds = 5;
    d.metadata!.annotations!['kubernetes.io/change-cause'] = 'v2';
    const existing = newReplicaSet(d, 'foo-abc', 3);
    existing.metadata!.annotations = { [revisionAnnotation]: '1' };
    const got = await getNewReplicaSet(ctx, d, [existing], [], true);
    expect(describeActions(clients.actions)).toEqual(['update replicasets foo-abc']);
    expect(got?.spec?.minReadySeconds).toBe(5);
    expect(got?.metadata?.annotations).toEqual({
      [revisionAnnotation]: '1',
      'kubernetes.io/change-cause': 'v2',
    });
  });

  it('records FoundNewReplicaSet and the revision when the new ReplicaSet is in sync but the Deployment has no Progressing condition', async () => {
    const { ctx, clients } = fakeContext();
    const d = deployment();
    const existing = newReplicaSet(d, 'foo-abc', 3);
    existing.metadata!.annotations = { [revisionAnnotation]: '1' };
    await getNewReplicaSet(ctx, d, [existing], [], true);
    expect(describeActions(clients.actions)).toEqual(['update deployments/status foo']);
    expect(d.metadata?.annotations?.[revisionAnnotation]).toBe('1');
    expect(d.status?.conditions?.[0]).toMatchObject({
      reason: 'FoundNewReplicaSet',
      message: 'Found new replica set "foo-abc"',
    });
    // Nothing to do the second time.
    await getNewReplicaSet(ctx, d, [existing], [], true);
    expect(clients.actions).toHaveLength(1);
  });

  it('takes an existing ReplicaSet of the same name, owner and template as created, silently', async () => {
    const { ctx, clients, recorder, rsInformer } = fakeContext();
    const d = deployment();
    const mine = newReplicaSet(d, `foo-${hashOf(d)}`, 3);
    mine.spec!.template!.metadata!.labels!['pod-template-hash'] = hashOf(d);
    mine.spec!.template!.spec!.containers[0]!.image = 'different';
    clients.replicaSets.seed(mine);
    // The cache has it with our template (the list given was stale).
    const cached = structuredClone(mine);
    cached.spec!.template!.spec!.containers[0]!.image = 'foo/bar';
    rsInformer.add(cached);
    const got = await getNewReplicaSet(ctx, d, [], [], true);
    expect(got).toBe(
      rsInformer.resource
        .lister()
        .byNamespace('default')
        .get(`foo-${hashOf(d)}`),
    );
    expect(recorder.events).toEqual([]);
    expect(d.status?.conditions).toBeUndefined();
    expect(describeActions(clients.actions)).toEqual([
      `create replicasets foo-${hashOf(d)}`,
      'update deployments/status foo',
    ]);
  });

  it('counts a hash collision and fails, so the next sync uses another name', async () => {
    const { ctx, clients, rsInformer } = fakeContext();
    const d = deployment();
    const name = `foo-${hashOf(d)}`;
    const stranger = newReplicaSet(
      newDeployment('other', 1, undefined, 0, 1, { app: 'foo' }),
      name,
      1,
    );
    clients.replicaSets.seed(stranger);
    rsInformer.add(stranger);
    const err = await getNewReplicaSet(ctx, d, [], [], true).catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(d.status?.collisionCount).toBe(1);
    expect(describeActions(clients.actions)).toEqual([
      `create replicasets ${name}`,
      'update deployments/status foo',
    ]);
    // With the new count the hash, and so the name, differ.
    const second = await getNewReplicaSet(ctx, d, [], [], true);
    expect(second?.metadata?.name).not.toBe(name);
    expect(second?.metadata?.name).toBe(`foo-${computeHash(d.spec!.template, 1)}`);
  });

  it('reports a failed create in the Progressing condition and an event', async () => {
    const { ctx, clients, recorder } = fakeContext();
    clients.replicaSets.failOn('create', newInternalError('quota'));
    const d = deployment();
    await expect(getNewReplicaSet(ctx, d, [], [], true)).rejects.toThrow('quota');
    const msg = `Failed to create new replica set "foo-${hashOf(d)}": Internal error occurred: quota`;
    expect(recorder.events).toEqual([`Warning ReplicaSetCreateError ${msg}`]);
    expect(d.status?.conditions?.[0]).toMatchObject({
      type: 'Progressing',
      status: 'False',
      reason: 'ReplicaSetCreateError',
      message: msg,
    });
    expect(describeActions(clients.actions)).toEqual([
      `create replicasets foo-${hashOf(d)}`,
      'update deployments/status foo',
    ]);
  });

  it('does nothing more when the namespace is terminating', async () => {
    const { ctx, clients, recorder } = fakeContext();
    clients.replicaSets.failOn(
      'create',
      new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: 'namespace default is being terminated',
        details: { causes: [{ reason: 'NamespaceTerminating' }] },
      }),
    );
    const d = deployment();
    await expect(getNewReplicaSet(ctx, d, [], [], true)).rejects.toThrow('being terminated');
    expect(recorder.events).toEqual([]);
    expect(d.status).toBeUndefined();
    expect(clients.actions).toHaveLength(1);
  });
});

describe('calculateStatus', () => {
  const now = Date.UTC(2026, 0, 1);
  it('sums the ReplicaSets, leaves zero counts out, and sets Available', () => {
    const d = newDeployment('foo', 3, undefined, 1, 1);
    meta(d).generation = 4;
    d.status = {
      collisionCount: 0,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'X' }],
    };
    const newRS = withStatus(rs('new', 2, undefined), {
      replicas: 2,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    const oldRS = withStatus(rs('old', 1, undefined), {
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    const status = calculateStatus([oldRS, newRS], newRS, d, now);
    expect(status).toEqual({
      observedGeneration: 4,
      replicas: 3,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
      collisionCount: 0,
      conditions: [
        { type: 'Progressing', status: 'True', reason: 'X' },
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
          lastUpdateTime: '2026-01-01T00:00:00Z',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    // The Deployment's own conditions are not changed.
    expect(d.status.conditions).toHaveLength(1);
  });

  it('says MinimumReplicasUnavailable below replicas − maxUnavailable, and Recreate needs them all', () => {
    const rolling = newDeployment('foo', 4, undefined, 1, 1);
    const recreate = newDeployment('foo', 4);
    recreate.spec!.strategy = { type: 'Recreate' };
    const three = withStatus(rs('a', 4, undefined), { replicas: 4, availableReplicas: 3 });
    expect(calculateStatus([three], three, rolling, now).conditions?.[0]?.reason).toBe(
      'MinimumReplicasAvailable',
    );
    const available = calculateStatus([three], three, recreate, now).conditions?.[0];
    expect(available).toMatchObject({
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    });
    const two = withStatus(rs('a', 4, undefined), { replicas: 4, availableReplicas: 2 });
    expect(calculateStatus([two], two, rolling, now).conditions?.[0]?.status).toBe('False');
  });

  it('never reports negative unavailable replicas', () => {
    const d = newDeployment('foo', 1, undefined, 1, 1);
    const r = withStatus(rs('a', 1, undefined), { replicas: 3, availableReplicas: 3 });
    expect(calculateStatus([r], undefined, d, now).unavailableReplicas).toBeUndefined();
  });
});

describe('checkPausedConditions', () => {
  const paused = (isPaused: boolean, reason?: string, pds = 600) => {
    const d = newDeployment('foo', 1);
    d.spec!.paused = isPaused;
    d.spec!.progressDeadlineSeconds = pds;
    if (reason) d.status = { conditions: [{ type: 'Progressing', status: 'Unknown', reason }] };
    return d;
  };
  it('marks a paused Deployment DeploymentPaused', async () => {
    const { ctx, clients } = fakeContext();
    const d = paused(true);
    await checkPausedConditions(ctx, d);
    expect(d.status?.conditions?.[0]).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
    });
    expect(describeActions(clients.actions)).toEqual(['update deployments/status foo']);
  });
  it('marks a resumed one DeploymentResumed', async () => {
    const { ctx } = fakeContext();
    const d = paused(false, 'DeploymentPaused');
    await checkPausedConditions(ctx, d);
    expect(d.status?.conditions?.[0]).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentResumed',
      message: 'Deployment is resumed',
    });
  });
  it.each([
    ['already paused', paused(true, 'DeploymentPaused')],
    ['timed out', paused(true, 'ProgressDeadlineExceeded')],
    ['no deadline', paused(true, undefined, 2147483647)],
    ['running and never paused', paused(false)],
  ])('does nothing when %s', async (_n, d) => {
    const { ctx, clients } = fakeContext();
    const before = structuredClone(d.status);
    await checkPausedConditions(ctx, d);
    expect(clients.actions).toEqual([]);
    expect(d.status).toEqual(before);
  });
});

describe('isScalingEvent and sync', () => {
  const sized = (d: Deployment, name: string, replicas: number, desired?: number) => {
    const r = newReplicaSet(d, name, replicas);
    if (desired !== undefined) setReplicasAnnotations(r, desired, desired);
    (r.metadata!.annotations ??= {})[revisionAnnotation] = '1';
    return r;
  };
  it('sees a scaling event in an active ReplicaSet sized for another replica count', async () => {
    const { ctx } = fakeContext();
    const d = newDeployment('foo', 5, undefined, 0, 1, { app: 'foo' });
    d.metadata!.annotations![revisionAnnotation] = '1';
    d.status = { conditions: [{ type: 'Progressing', status: 'True', reason: 'x' }] };
    expect(await isScalingEvent(ctx, d, [sized(d, 'a', 3, 3)])).toBe(true);
    expect(await isScalingEvent(ctx, d, [sized(d, 'a', 5, 5)])).toBe(false);
    expect(await isScalingEvent(ctx, d, [sized(d, 'a', 3)])).toBe(false);
    // An inactive ReplicaSet does not count.
    expect(await isScalingEvent(ctx, d, [sized(d, 'a', 0, 3)])).toBe(false);
  });

  it('scales a paused Deployment, trims its history, and leaves Progressing alone', async () => {
    const clock = new FakeClock();
    const { ctx, clients } = fakeContext({ clock });
    const d = newDeployment('foo', 4, 0, 0, 1, { app: 'foo' });
    d.spec!.paused = true;
    d.metadata!.annotations![revisionAnnotation] = '2';
    const progressing = {
      type: 'Progressing',
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
    };
    d.status = { conditions: [progressing] };
    const current = sized(d, 'foo-new', 2, 2);
    current.metadata!.annotations![revisionAnnotation] = '2';
    const old = withStatus(sized(d, 'foo-old', 0, 2), { replicas: 0 });
    old.spec!.template!.spec!.containers[0]!.image = 'old';
    clients.replicaSets.seed(current, old);
    await sync(ctx, d, [current, old]);
    expect(describeActions(clients.actions)).toEqual([
      'update replicasets foo-new',
      'delete replicasets foo-old',
      'update deployments/status foo',
    ]);
    expect((clients.actions[0]!.object as ReplicaSet).spec?.replicas).toBe(4);
    expect(d.status.conditions?.[0]).toEqual(progressing);
  });
});
