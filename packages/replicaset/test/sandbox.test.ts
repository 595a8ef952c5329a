// The controller against the sandbox's API server and simulated node, on a
// fake clock: scaling, replacing, adopting and releasing, failures that back
// off through slow start, and two workers with a lagging informer.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newAlreadyExists, newForbidden, newInternalError, newInvalid } from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import { namespaceTerminatingCause } from '@kcm-ts/controller';
import { creatable, newReplicaSet, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  if (h === undefined) return;
  const clock = h.clock;
  await h.stop();
  // The controller, informers and nodes leave no timer behind.
  expect(clock.hasWaiters()).toBe(false);
  h = undefined;
});

const scale = (rs: Harness['rsIn'], name: string, replicas: number) =>
  rs.patch(name, { type: 'merge', body: { spec: { replicas } } });

const podNames = (pods: Pod[]) => pods.map((p) => p.metadata?.name).sort();

describe('the ReplicaSet controller on the sandbox', () => {
  it('scales 0 → 3 → 0, with Ready pods, status and events', async () => {
    h = await startHarness({ nodes: 1, podStartDelay: 500, podReadyDelay: 500 });
    const { rsIn, podsIn } = h;
    await rsIn.create(creatable(newReplicaSet('web', 0)));
    await h.step(500);
    expect((await rsIn.get('web')).status).toMatchObject({ replicas: 0, observedGeneration: 1 });

    await scale(rsIn, 'web', 3);
    await h.until(async () => (await rsIn.get('web')).status?.readyReplicas === 3);
    const rs = await rsIn.get('web');
    expect(rs.status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 2,
    });
    const pods = (await podsIn.list()).items;
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    expect(h.pods.counts.get('create')).toBe(3);
    const created = h.recorder.events.filter((e) =>
      e.startsWith('Normal SuccessfulCreate Created pod: web-'),
    );
    expect(created).toHaveLength(3);

    await scale(rsIn, 'web', 0);
    await h.until(async () => (await rsIn.get('web')).status?.replicas === 0);
    expect(
      h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulDelete Deleted pod: web-')),
    ).toHaveLength(3);
    // Terminating pods finish their grace period on the node, then go.
    await h.until(async () => (await podsIn.list()).items.length === 0, 60_000);
    expect(h.pods.counts.get('create')).toBe(3);
  });

  it('replaces pods deleted behind its back, at once (a terminating pod is not active)', async () => {
    h = await startHarness({ nodes: 1 });
    const { rsIn, podsIn } = h;
    await rsIn.create(creatable(newReplicaSet('web', 2)));
    await h.until(async () => (await rsIn.get('web')).status?.readyReplicas === 2);
    const [victim] = (await podsIn.list()).items;
    await podsIn.delete(victim!.metadata!.name!);
    await h.step(300);
    // The victim is still terminating (30 s grace period) but already replaced.
    const active = await h.ownedActive('web');
    expect(active).toHaveLength(2);
    expect(podNames(active)).not.toContain(victim!.metadata!.name);
    expect((await podsIn.get(victim!.metadata!.name!)).metadata?.deletionTimestamp).toBeDefined();
    expect(h.pods.counts.get('create')).toBe(3);
    await h.until(async () => (await rsIn.get('web')).status?.readyReplicas === 2);
  });

  it('adopts orphans instead of creating, and releases a relabelled pod and replaces it', async () => {
    h = await startHarness();
    const { rsIn, podsIn } = h;
    for (const name of ['orphan-1', 'orphan-2']) {
      await podsIn.create({
        metadata: { name, labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
    }
    const rs = await rsIn.create(creatable(newReplicaSet('web', 3)));
    await h.until(async () => (await h!.ownedActive('web')).length === 3);
    expect(h.pods.counts.get('create')).toBe(1);
    const adopted = await podsIn.get('orphan-1');
    expect(adopted.metadata?.ownerReferences?.[0]).toMatchObject({
      uid: rs.metadata?.uid,
      controller: true,
    });

    await podsIn.patch('orphan-1', {
      type: 'merge',
      body: { metadata: { labels: { app: 'debug' } } },
    });
    await h.until(async () => {
      const owned = await h!.ownedActive('web');
      return owned.length === 3 && !podNames(owned).includes('orphan-1');
    });
    expect((await podsIn.get('orphan-1')).metadata?.ownerReferences ?? []).toEqual([]);
    expect(h.pods.counts.get('create')).toBe(2);
    expect((await rsIn.get('web')).status?.replicas).toBe(3);
  });

  it.each([
    ['500', () => newInternalError('etcdserver: request timed out')],
    [
      '403 (quota)',
      () =>
        newForbidden(
          { group: '', resource: 'pods' },
          'web-x',
          new Error('exceeded quota: compute-resources'),
        ),
    ],
    ['409', () => newAlreadyExists({ group: '', resource: 'pods' }, 'web-x')],
    [
      '422 (a template the server rejects)',
      () =>
        newInvalid({ group: '', kind: 'Pod' }, 'web-x', [
          {
            reason: 'FieldValueForbidden',
            field: 'spec.containers[0].securityContext.privileged',
            message: 'Forbidden: disallowed by cluster policy',
          },
        ]),
    ],
  ])(
    'backs off creation failures (%s) through slow start without creating more than asked',
    async (_code, err) => {
      h = await startHarness();
      const { rsIn } = h;
      h.pods.failAlways('create', err);
      await rsIn.create(creatable(newReplicaSet('web', 8)));
      await h.step(200);
      // One doomed request per sync: the first slow-start batch only.
      const attempts = () => h!.pods.counts.get('create') ?? 0;
      const syncs = attempts();
      expect(syncs).toBeGreaterThanOrEqual(1);
      const status = (await rsIn.get('web')).status;
      expect(status?.conditions?.[0]).toMatchObject({
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
      });
      expect(status?.conditions?.[0]?.message).toBe(err().message);
      expect(
        h.recorder.events.filter((e) => e.startsWith('Warning FailedCreate Error creating: ')),
      ).toHaveLength(syncs);

      // Retries back off exponentially: 5 ms, 10 ms, ... per failure.
      await h.step(2_000);
      const afterTwoSeconds = attempts();
      expect(afterTwoSeconds).toBeLessThanOrEqual(12);
      expect(h.controller.queue.numRequeues('default/web')).toBeGreaterThan(3);

      h.pods.clear();
      await h.until(async () => (await h!.ownedActive('web')).length === 8);
      await h.until(async () => (await rsIn.get('web')).status?.conditions === undefined);
      const stored = (await h.podsIn.list()).items.length;
      expect(stored).toBe(8);
      // Every successful create made one of the 8 pods.
      expect(attempts() - afterTwoSeconds).toBeGreaterThanOrEqual(8);
      expect(h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(
        8,
      );
    },
  );

  it('never creates more than spec.replicas with two workers and a lagging informer', async () => {
    h = await startHarness({ workers: 2 });
    const { rsIn } = h;
    let creates = 0;
    h.pods.onCall = (verb) => {
      if (verb === 'create') creates++;
    };
    // The pod informer lags: the controller hears of the ReplicaSet at once,
    // of its new pods only later.
    h.podGate.hold();
    await rsIn.create(creatable(newReplicaSet('web', 5)));
    await h.step(300);
    expect(creates).toBe(5);
    // Every ReplicaSet change is a sync, on either worker; none may create
    // again while its 5 creations are still unseen.
    for (let i = 0; i < 10; i++) {
      await rsIn.patch('web', { type: 'merge', body: { metadata: { labels: { poke: `${i}` } } } });
      await h.step(200);
    }
    await scale(rsIn, 'web', 6);
    await h.step(5_000);
    expect(creates).toBe(5);
    h.podGate.release();
    await h.until(async () => (await h!.ownedActive('web')).length === 6);
    await h.step(2_000);
    expect(creates).toBe(6);
    expect((await h.podsIn.list()).items).toHaveLength(6);
  });

  it('stops creating quietly while the namespace terminates', async () => {
    h = await startHarness();
    // kube-apiserver's namespace lifecycle admission refuses with this cause.
    h.pods.failAlways('create', () => {
      const err = newForbidden(
        { group: '', resource: 'pods' },
        '',
        new Error(
          'unable to create new content in namespace default because it is being terminated',
        ),
      );
      err.details!.causes = [
        { reason: namespaceTerminatingCause, message: 'namespace default is being terminated' },
      ];
      return err;
    });
    await h.rsIn.create(creatable(newReplicaSet('web', 4)));
    await h.step(60_000);
    // One round of attempts, counted as done: no events, no condition, no retries.
    expect(h.pods.counts.get('create')).toBe(4);
    expect(h.recorder.events).toEqual([]);
    expect((await h.rsIn.get('web')).status?.conditions).toBeUndefined();
    expect(h.controller.queue.numRequeues('default/web')).toBe(0);
  });

  it('stops promptly: run resolves after the signal, the queue is shut down', async () => {
    h = await startHarness();
    await h.rsIn.create(creatable(newReplicaSet('web', 2)));
    await h.until(async () => (await h!.ownedActive('web')).length === 2);
    const { controller } = h;
    await h.stop();
    expect(controller.queue.shuttingDown()).toBe(true);
    expect(h.clock.hasWaiters()).toBe(false);
    h = undefined;
  });
});
