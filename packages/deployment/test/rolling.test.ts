// Ports of pkg/controller/deployment/rolling_test.go, and rolloutRolling's step order.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { newInternalError } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  cleanupUnhealthyReplicas,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  rolloutRolling,
  scaleDownOldReplicaSetsForRollingUpdate,
} from '../src/rolling.js';
import { revisionAnnotation, setReplicasAnnotations } from '../src/index.js';
import {
  describeActions,
  fakeContext,
  newDeployment,
  newReplicaSet,
  rs,
  withStatus,
} from './helpers/fixtures.js';

describe('reconcileNewReplicaSet', () => {
  it.each([
    // deployment replicas, maxSurge, old, new, scale expected, expected new
    [10, 0, 10, 0, false, 0],
    [10, 2, 10, 0, true, 2],
    [10, 2, 5, 0, true, 7],
    [10, 2, 10, 2, false, 0],
    [10, 2, 2, 11, true, 10], // scale down
  ])(
    '%i replicas, surge %i, old %i, new %i',
    async (replicas, surge, oldReplicas, newReplicas, scaleExpected, expected) => {
      const { ctx, clients } = fakeContext();
      const newRS = rs('foo-v2', newReplicas, undefined);
      const oldRS = rs('foo-v2', oldReplicas, undefined);
      const d = newDeployment('foo', replicas, undefined, surge, 0, { foo: 'bar' });
      const scaled = await reconcileNewReplicaSet(ctx, [newRS, oldRS], newRS, d);
      expect(scaled).toBe(scaleExpected);
      if (!scaleExpected) {
        expect(clients.actions).toEqual([]);
        return;
      }
      expect(clients.actions).toHaveLength(1);
      expect((clients.actions[0]!.object as ReplicaSet).spec?.replicas).toBe(expected);
    },
  );
});

describe('reconcileOldReplicaSets', () => {
  it.each([
    // replicas, maxUnavailable, old, new, ready old, ready new, scale expected, expected old
    [10, 0, 10, 0, 10, 0, true, 9],
    [10, 2, 10, 0, 10, 0, true, 8],
    // unhealthy old replicas are cleaned up
    [10, 2, 10, 0, 8, 0, true, 8],
    // one unhealthy cleaned up and one ready scaled down
    [10, 2, 10, 0, 9, 0, true, 8],
    // the new ReplicaSet's unavailable pods stop a further scale-down
    [10, 2, 8, 2, 8, 0, false, 8],
  ])(
    '%i replicas, maxUnavailable %i, old %i, new %i, ready old %i, ready new %i',
    async (
      replicas,
      maxUnavail,
      oldReplicas,
      newReplicas,
      readyOld,
      readyNew,
      scaleExpected,
      expectedOld,
    ) => {
      const { ctx, clients } = fakeContext();
      const newRS = withStatus(rs('foo-new', newReplicas, { foo: 'new' }), {
        replicas: newReplicas,
        availableReplicas: readyNew,
      });
      const oldRS = withStatus(rs('foo-old', oldReplicas, { foo: 'old' }), {
        replicas: oldReplicas,
        availableReplicas: readyOld,
      });
      const d = newDeployment('foo', replicas, undefined, 0, maxUnavail, { foo: 'new' });
      const scaled = await reconcileOldReplicaSets(ctx, [oldRS, newRS], [oldRS], newRS, d);
      expect(scaled).toBe(scaleExpected);
      const last = clients.actions.at(-1)?.object as ReplicaSet | undefined;
      expect(last?.spec?.replicas ?? oldReplicas).toBe(expectedOld);
    },
  );

  it('swallows errors: nothing scaled, no error', async () => {
    const { ctx, clients } = fakeContext();
    clients.replicaSets.failOn('update', newInternalError('boom'));
    const newRS = withStatus(rs('foo-new', 0, undefined), { replicas: 0 });
    const oldRS = withStatus(rs('foo-old', 10, undefined), { replicas: 10, availableReplicas: 8 });
    const d = newDeployment('foo', 10, undefined, 0, 2);
    await expect(reconcileOldReplicaSets(ctx, [oldRS, newRS], [oldRS], newRS, d)).resolves.toBe(
      false,
    );
  });

  it('works the spec’s example: a crash-looping new ReplicaSet blocks old scale-down', async () => {
    // 10 replicas, surge 3, unavailable 2: 13 pods, 8 must stay available,
    // 5 new ones unavailable: 13 − 8 − 5 = 0.
    const { ctx, clients } = fakeContext();
    const newRS = withStatus(rs('foo-new', 5, undefined), { replicas: 5, availableReplicas: 0 });
    const oldRS = withStatus(rs('foo-old', 8, undefined), { replicas: 8, availableReplicas: 8 });
    const d = newDeployment('foo', 10, undefined, 3, 2);
    expect(await reconcileOldReplicaSets(ctx, [oldRS, newRS], [oldRS], newRS, d)).toBe(false);
    expect(clients.actions).toEqual([]);
  });
});

describe('cleanupUnhealthyReplicas', () => {
  it.each([
    [10, 8, 1, 1],
    [10, 8, 3, 2],
    [10, 8, 0, 0],
    [10, 10, 3, 0],
  ])(
    'old %i, available %i, budget %i: removes %i',
    async (oldReplicas, ready, maxCleanup, expected) => {
      const { ctx } = fakeContext();
      const oldRS = withStatus(rs('foo-v2', oldReplicas, undefined), {
        replicas: oldReplicas,
        availableReplicas: ready,
      });
      const d = newDeployment('foo', 10, undefined, 2, 2);
      const { count, oldRSs } = await cleanupUnhealthyReplicas(ctx, [oldRS], d, maxCleanup);
      expect(count).toBe(expected);
      expect(oldRSs[0]?.spec?.replicas).toBe(oldReplicas - expected);
    },
  );

  it('goes oldest first and stops when the budget is spent', async () => {
    const { ctx, clients } = fakeContext();
    const newer = withStatus(rs('b', 3, undefined, '2026-01-01T00:00:02Z'), {
      replicas: 3,
      availableReplicas: 0,
    });
    const older = withStatus(rs('a', 3, undefined, '2026-01-01T00:00:01Z'), {
      replicas: 3,
      availableReplicas: 1,
    });
    const { count } = await cleanupUnhealthyReplicas(
      ctx,
      [newer, older],
      newDeployment('foo', 6, undefined, 0, 1),
      3,
    );
    expect(count).toBe(3);
    expect(
      clients.actions.map((a) => `${a.name}=${(a.object as ReplicaSet).spec?.replicas}`),
    ).toEqual(['a=1', 'b=2']);
  });
});

describe('scaleDownOldReplicaSetsForRollingUpdate', () => {
  it.each([
    // replicas, maxUnavailable, available, old, scale expected, expected old
    [10, 0, 10, 10, true, 9],
    [10, 2, 10, 10, true, 8],
    [10, 2, 8, 10, false, 10],
    [10, 2, 10, 0, false, 0],
    [10, 2, 1, 10, false, 10],
  ])(
    '%i replicas, maxUnavailable %i, available %i, old %i',
    async (replicas, maxUnavail, ready, oldReplicas, scaleExpected, expected) => {
      const { ctx, clients } = fakeContext();
      const oldRS = withStatus(rs('foo-v2', oldReplicas, undefined), {
        replicas: oldReplicas,
        availableReplicas: ready,
      });
      const d = newDeployment('foo', replicas, undefined, 0, maxUnavail, { foo: 'bar' });
      const scaled = await scaleDownOldReplicaSetsForRollingUpdate(ctx, [oldRS], [oldRS], d);
      expect(scaled > 0).toBe(scaleExpected);
      const updates = clients.actions.filter((a) => a.verb === 'update');
      expect(updates).toHaveLength(scaleExpected ? 1 : 0);
      expect((updates[0]?.object as ReplicaSet | undefined)?.spec?.replicas ?? oldReplicas).toBe(
        expected,
      );
    },
  );
});

describe('rolloutRolling', () => {
  const setup = () => {
    const { ctx, clients, recorder } = fakeContext();
    const d = newDeployment('foo', 4, undefined, 1, 1, { app: 'foo' });
    d.spec!.progressDeadlineSeconds = 600;
    d.metadata!.annotations![revisionAnnotation] = '2';
    d.status = {
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetCreated',
          lastUpdateTime: '2026-01-01T00:00:00Z',
        },
      ],
    };
    const newRS = newReplicaSet(d, 'foo-new', 1);
    newRS.metadata!.annotations = { [revisionAnnotation]: '2' };
    setReplicasAnnotations(newRS, 4, 5);
    const oldRS = newReplicaSet(d, 'foo-old', 4);
    oldRS.spec!.template!.spec!.containers[0]!.image = 'old';
    oldRS.metadata!.annotations = { [revisionAnnotation]: '1' };
    setReplicasAnnotations(oldRS, 4, 5);
    return { ctx, clients, recorder, d, newRS, oldRS };
  };

  it('scales old ones down when the surge is used up, and reports progress', async () => {
    const { ctx, clients, recorder, d, newRS, oldRS } = setup();
    withStatus(oldRS, { replicas: 4, availableReplicas: 4 });
    await rolloutRolling(ctx, d, [newRS, oldRS]);
    // 1 new + 4 old = 4 + 1 surge: no room to grow. 4 available − 3 that
    // must stay = 1 old pod can go.
    expect(describeActions(clients.actions)).toEqual([
      'update replicasets foo-old',
      'update deployments/status foo',
    ]);
    expect(recorder.events).toEqual([
      'Normal ScalingReplicaSet Scaled down replica set foo-old from 4 to 3',
    ]);
  });

  it('scales the new ReplicaSet up while the surge allows it', async () => {
    const { ctx, clients, recorder, d, newRS, oldRS } = setup();
    oldRS.spec!.replicas = 3;
    withStatus(oldRS, { replicas: 3, availableReplicas: 3 });
    await rolloutRolling(ctx, d, [newRS, oldRS]);
    expect(recorder.events).toEqual([
      'Normal ScalingReplicaSet Scaled up replica set foo-new from 1 to 2',
    ]);
    expect(describeActions(clients.actions)).toEqual([
      'update replicasets foo-new',
      'update deployments/status foo',
    ]);
  });
});
