// Ports of replica_set_test.go's scenarios with the fake pod control and
// caches filled by hand (the informers do not run, as in the Go tests):
// syncs that do nothing, create, delete, respect expectations and the burst,
// fail, meet a terminating namespace or a bad selector; and the event
// handlers, tombstones included.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  DeletedFinalStateUnknown,
  FakeClock,
  formatTime,
  newControllerRef,
  newForbidden,
  newInternalError,
  newNotFound,
  type Logger,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FakePodControl,
  expectationsTimeout,
  namespaceTerminatingCause,
  podControllerUIDIndex,
} from '@kcm-ts/controller';
import { ReplicaSetController, getCondition, replicaSetKind } from '../src/index.js';
import {
  creatable,
  faultyClient,
  newPod,
  newReplicaSet,
  sandboxSource,
  settle,
} from './helpers.js';

interface Fixture {
  sandbox: Sandbox;
  clock: FakeClock;
  controller: ReplicaSetController;
  podControl: FakePodControl;
  rsWrites: ReturnType<typeof faultyClient<ReplicaSet>>;
  logs: string[];
  /** Creates `rs` on the server and puts the stored object in the cache. */
  addRS(rs: ReplicaSet): Promise<ReplicaSet>;
  /** Puts pods in the cache (not on the server: the pod control is fake). */
  addPods(...pods: Pod[]): void;
  /** The keys waiting in the queue, taken out. */
  drain(): Promise<string[]>;
  /** The stored ReplicaSet. */
  stored(name: string): Promise<ReplicaSet>;
  rsIndexer: Indexer<ReplicaSet>;
  podIndexer: Indexer<Pod>;
}

let current: Fixture | undefined;
afterEach(async () => {
  current?.controller.queue.shutDown();
  await current?.sandbox.stop();
  current = undefined;
});

/** A logger that keeps error lines. */
function capturing(lines: string[]): Logger {
  const make = (): Logger => ({
    info: () => {},
    error: (err, msg, values) => lines.push(`${msg}: ${String(err)} ${JSON.stringify(values)}`),
    v: () => make(),
    enabled: () => true,
    withValues: () => make(),
    withName: () => make(),
  });
  return make();
}

async function fixture(burstReplicas?: number): Promise<Fixture> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
  const podControl = new FakePodControl();
  const rsWrites = faultyClient(sandbox.client<ReplicaSet>('apps', 'replicasets'));
  const logs: string[] = [];
  const controller = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets: rsWrites.client, pods: sandbox.client<Pod>('', 'pods') },
    clock,
    podControl,
    logger: capturing(logs),
    ...(burstReplicas !== undefined && { burstReplicas }),
  });
  const rsIndexer = factory.replicaSets().informer().getIndexer();
  const podIndexer = factory.pods().informer().getIndexer();
  const f: Fixture = {
    sandbox,
    clock,
    controller,
    podControl,
    rsWrites,
    logs,
    async addRS(rs) {
      const created = await rsWrites.client.inNamespace('default').create(creatable(rs));
      rsIndexer.add(created);
      return created;
    },
    addPods(...pods) {
      for (const p of pods) podIndexer.add(p);
    },
    async drain() {
      const keys: string[] = [];
      while (controller.queue.len() > 0) {
        const [key] = await controller.queue.get();
        if (key === undefined) break;
        keys.push(key);
        controller.queue.done(key);
      }
      return keys;
    },
    stored: (name) =>
      sandbox.client<ReplicaSet>('apps', 'replicasets').inNamespace('default').get(name),
    rsIndexer,
    podIndexer,
  };
  current = f;
  return f;
}

/** `n` running, ready pods owned by `rs`. */
const podsOf = (rs: ReplicaSet, n: number, prefix = 'pod'): Pod[] =>
  Array.from({ length: n }, (_, i) =>
    newPod(`${prefix}-${i}`, rs, {
      ready: true,
      nodeName: 'node-1',
      readySince: Date.UTC(2025, 0, 1),
    }),
  );

describe('syncReplicaSet', () => {
  it('does nothing but write the status when the pods match (TestSyncReplicaSetDoesNothing)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 2));
    f.addPods(...podsOf(rs, 2));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.deletePodName).toEqual([]);
    expect((await f.stored('foo')).status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });
    // Nothing changed: the next sync (from the updated cache) writes nothing.
    f.rsIndexer.update(await f.stored('foo'));
    f.rsWrites.counts.clear();
    await f.controller.syncReplicaSet('default/foo');
    expect(f.rsWrites.counts.size).toBe(0);
  });

  it('creates the missing pods from the template, owned by the ReplicaSet', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 3));
    f.addPods(...podsOf(rs, 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(2);
    expect(f.podControl.templates[0]?.metadata?.labels).toEqual({ app: 'foo' });
    expect(f.podControl.controllerRefs).toEqual([
      newControllerRef(rs, replicaSetKind),
      newControllerRef(rs, replicaSetKind),
    ]);
    expect(f.controller.expectations.getExpectations('default/foo')?.getExpectations()).toEqual([
      2, 0,
    ]);
  });

  it('waits for its creations to be seen before creating more (TestSyncReplicaSetDormancy)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 2));
    f.addPods(...podsOf(rs, 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(1);

    // The informer has not shown the new pod yet: no second creation.
    f.podControl.clear();
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(0);

    // The creation is seen, then the pod is deleted behind our back: create again.
    const created = newPod('pod-new', rs, { nodeName: 'node-1' });
    f.controller.addPod(created);
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(1);

    // That creation fails: expectations drop back, so the next sync tries again.
    f.podControl.clear();
    f.podControl.err = newInternalError('fake error');
    f.controller.expectations.deleteExpectations('default/foo');
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow('fake error');
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    f.podControl.err = undefined;
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(2); // the failed call, then the retry
  });

  it('syncs anyway once expectations are 5 minutes old', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('foo', 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(1);
    f.clock.step(expectationsTimeout);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(1);
    f.clock.step(1);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(2);
  });

  it.each([
    [30, 5],
    [12, 5],
    [2, 3],
  ])(
    'creates %i pods at most %i per sync (TestControllerBurstReplicas)',
    async (replicas, burst) => {
      const f = await fixture(burst);
      const rs = await f.addRS(newReplicaSet('foo', replicas));
      let seen = 0;
      for (let round = 0; seen < replicas; round++) {
        f.podControl.clear();
        await f.controller.syncReplicaSet('default/foo');
        const made = f.podControl.templates.length;
        expect(made).toBe(Math.min(burst, replicas - seen));
        // A sync before the informer reports them creates nothing more.
        f.podControl.clear();
        await f.controller.syncReplicaSet('default/foo');
        expect(f.podControl.templates).toHaveLength(0);
        for (let i = 0; i < made; i++) {
          const pod = newPod(`pod-${round}-${i}`, rs);
          f.addPods(pod);
          f.controller.addPod(pod);
        }
        seen += made;
      }
      f.podControl.clear();
      await f.controller.syncReplicaSet('default/foo');
      expect(f.podControl.templates).toHaveLength(0);
    },
  );

  it('deletes the extra pods, lowest ranked first, and expects them by key', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    const ready = newPod('ready', rs, {
      nodeName: 'n',
      ready: true,
      readySince: Date.UTC(2025, 0, 1),
    });
    const pending = newPod('pending', rs, { nodeName: 'n', phase: 'Pending' });
    const unscheduled = newPod('unscheduled', rs, { phase: 'Pending' });
    f.addPods(ready, pending, unscheduled);
    await f.controller.syncReplicaSet('default/foo');
    expect([...f.podControl.deletePodName].sort()).toEqual(['pending', 'unscheduled']);
    expect([...(f.controller.expectations.getUIDs('default/foo') ?? [])].sort()).toEqual([
      'default/pending',
      'default/unscheduled',
    ]);
    // Seen terminating, then gone: counted once each.
    const terminating = {
      ...pending,
      metadata: { ...pending.metadata, resourceVersion: '19', deletionTimestamp: formatTime(0) },
    };
    f.controller.updatePod(pending, terminating);
    f.controller.deletePod(terminating);
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(false);
    f.controller.deletePod(new DeletedFinalStateUnknown('default/unscheduled', unscheduled));
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
  });

  it('lowers expectations for failed deletions; a pod already gone is no error', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 0));
    f.addPods(...podsOf(rs, 2));
    f.podControl.err = newNotFound({ group: '', resource: 'pods' }, 'pod-0');
    await f.controller.syncReplicaSet('default/foo');
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);

    f.podControl.clear();
    f.podControl.err = new Error('unable to delete pods: boom');
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow('boom');
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    const failure = getCondition((await f.stored('foo')).status, 'ReplicaFailure');
    expect(failure).toMatchObject({
      status: 'True',
      reason: 'FailedDelete',
      message: 'unable to delete pods: boom',
    });
  });

  it('tries one creation after a failure and reports ReplicaFailure (TestSyncReplicaSetCreateFailures)', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('foo', 10));
    f.podControl.err = newForbidden(
      { group: '', resource: 'pods' },
      '',
      new Error('exceeded quota'),
    );
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow(/exceeded quota/);
    expect(f.podControl.createCallCount).toBe(1); // slow start: the first batch only
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    const failure = getCondition((await f.stored('foo')).status, 'ReplicaFailure');
    expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
    expect(failure?.message).toMatch(/exceeded quota/);

    // Once creations work the condition goes.
    f.podControl.err = undefined;
    await f.controller.syncReplicaSet('default/foo');
    expect(getCondition((await f.stored('foo')).status, 'ReplicaFailure')).toBeUndefined();
  });

  it('stops quietly in a namespace being deleted: no error, no condition, no retry storm', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('foo', 3));
    const err = newForbidden({ group: '', resource: 'pods' }, '', new Error('being terminated'));
    err.details!.causes = [{ reason: namespaceTerminatingCause }];
    f.podControl.err = err;
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.createCallCount).toBe(3);
    expect(getCondition((await f.stored('foo')).status, 'ReplicaFailure')).toBeUndefined();
    // The creations count as done: nothing more until the expectations expire.
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.createCallCount).toBe(3);
  });

  it('neither creates nor adopts for a ReplicaSet being deleted, but writes its status', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 3));
    f.rsIndexer.update({ ...rs, metadata: { ...rs.metadata, deletionTimestamp: formatTime(0) } });
    f.addPods(newPod('orphan', undefined, { labels: { app: 'foo' } }), ...podsOf(rs, 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.patches).toEqual([]);
    expect((await f.stored('foo')).status?.replicas).toBe(1);
  });

  it('adopts a matching orphan and counts it', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('foo', 1));
    f.addPods(newPod('orphan', undefined, { labels: { app: 'foo' } }));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.patches).toHaveLength(1);
    expect(f.podControl.templates).toEqual([]);
    expect((await f.stored('foo')).status?.replicas).toBe(1);
  });

  it('reports a bad selector once per version and does not retry it', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    const bad: ReplicaSet = {
      ...rs,
      spec: {
        ...rs.spec!,
        selector: { matchExpressions: [{ key: 'app', operator: 'Sometimes' }] },
      },
    };
    f.rsIndexer.update(bad);
    await f.controller.syncReplicaSet('default/foo');
    await f.controller.syncReplicaSet('default/foo');
    expect(f.logs).toHaveLength(1);
    expect(f.logs[0]).toMatch(
      /^Error converting pod selector to selector: Error: "Sometimes" is not a valid label selector operator/,
    );
    expect(f.podControl.templates).toEqual([]);
    f.rsIndexer.update({ ...bad, metadata: { ...bad.metadata, resourceVersion: '99' } });
    await f.controller.syncReplicaSet('default/foo');
    expect(f.logs).toHaveLength(2);
  });

  it("reads only its own pods and its namespace's orphans, through the controller-uid index", async () => {
    const f = await fixture();
    expect(f.podIndexer.getIndexers()[podControllerUIDIndex]).toBeDefined();
    const rs = await f.addRS(newReplicaSet('foo', 3));
    const bar = await f.addRS(newReplicaSet('bar', 50, { labels: { app: 'bar' } }));
    f.addPods(
      ...podsOf(rs, 2),
      ...podsOf(bar, 50, 'bar'),
      newPod('orphan', undefined, { labels: { app: 'foo' } }),
      newPod('orphan-elsewhere', undefined, { labels: { app: 'foo' }, namespace: 'other' }),
    );
    const byIndex = vi.spyOn(f.podIndexer, 'byIndex');
    const list = vi.spyOn(f.podIndexer, 'list');
    await f.controller.syncReplicaSet('default/foo');
    expect(byIndex.mock.calls).toEqual([
      [podControllerUIDIndex, rs.metadata!.uid],
      [podControllerUIDIndex, '_ORPHAN_POD/default'],
    ]);
    expect(list).not.toHaveBeenCalled();
    // The orphan was adopted and counted; nothing was created.
    expect(f.podControl.patches).toHaveLength(1);
    expect(f.podControl.templates).toEqual([]);
    expect((await f.stored('foo')).status?.replicas).toBe(3);
  });

  it('forgets the expectations of a ReplicaSet that is gone', async () => {
    const f = await fixture();
    f.controller.expectations.expectCreations('default/gone', 3);
    await f.controller.syncReplicaSet('default/gone');
    expect(f.controller.expectations.getExpectations('default/gone')).toBeUndefined();
  });

  it('rejects when the status cannot be written (TestControllerUpdateRequeue)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    f.addPods(...podsOf(rs, 1));
    f.rsWrites.failAlways('updateStatus', () => newInternalError('status write failed'));
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow('status write failed');
    expect(Object.fromEntries(f.rsWrites.counts)).toMatchObject({ updateStatus: 2, get: 1 });
  });

  it('looks again after minReadySeconds when every pod is ready but not yet available', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1, { minReadySeconds: 10 }));
    f.addPods(newPod('p', rs, { ready: true, readySince: f.clock.now(), nodeName: 'n' }));
    await f.controller.syncReplicaSet('default/foo');
    expect(await f.drain()).toEqual([]);
    await f.clock.advance(10_000);
    expect(await f.drain()).toEqual(['default/foo']);
  });
});

describe('event handlers', () => {
  it('observes a created pod for its owner and queues the owner', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    f.controller.expectations.expectCreations('default/foo', 1);
    f.controller.addPod(newPod('p', rs));
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    expect(await f.drain()).toEqual(['default/foo']);
  });

  it('counts a pod that appears already being deleted as a deletion, never a creation', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    f.controller.expectations.expectDeletions('default/foo', ['default/p']);
    f.controller.expectations.raiseExpectations('default/foo', 1, 0);
    f.controller.addPod(newPod('p', rs, { deleting: true }));
    expect(f.controller.expectations.getExpectations('default/foo')?.getExpectations()).toEqual([
      1, 0,
    ]);
  });

  it('queues every ReplicaSet that may adopt an orphan, but none with an empty selector', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('a', 1, { labels: { app: 'x' } }));
    await f.addRS(newReplicaSet('b', 1, { labels: { app: 'x' } }));
    await f.addRS(newReplicaSet('c', 1, { labels: { app: 'y' } }));
    // The API server refuses an empty selector; one that creeps into a cache anyway matches nothing.
    f.rsIndexer.add(newReplicaSet('all', 1, { labels: {} }));
    f.controller.addPod(newPod('orphan', undefined, { labels: { app: 'x' } }));
    expect((await f.drain()).sort()).toEqual(['default/a', 'default/b']);
    expect(f.logs.some((l) => l.startsWith('More than one ReplicaSet is selecting pods'))).toBe(
      true,
    );
    f.controller.addPod(newPod('bare', undefined, { labels: {} }));
    expect(await f.drain()).toEqual([]);
  });

  it('ignores resyncs, and wakes the old and the new owner when the controller reference changes', async () => {
    const f = await fixture();
    const a = await f.addRS(newReplicaSet('a', 1));
    const b = await f.addRS(newReplicaSet('b', 1));
    const old = newPod('p', a, { resourceVersion: '1' });
    f.controller.updatePod(old, old);
    expect(await f.drain()).toEqual([]);
    const moved = newPod('p', b, { resourceVersion: '2', labels: old.metadata!.labels! });
    f.controller.updatePod(old, moved);
    expect((await f.drain()).sort()).toEqual(['default/a', 'default/b']);
  });

  it('wakes the matching ReplicaSets when an orphan changes labels', async () => {
    const f = await fixture();
    await f.addRS(newReplicaSet('web', 1));
    const old = newPod('p', undefined, { labels: { app: 'db' }, resourceVersion: '1' });
    const cur = newPod('p', undefined, { labels: { app: 'web' }, resourceVersion: '2' });
    f.controller.updatePod(old, cur);
    expect(await f.drain()).toEqual(['default/web']);
  });

  it('requeues the owner minReadySeconds + 1 s after a pod becomes ready', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1, { minReadySeconds: 5 }));
    const old = newPod('p', rs, { ready: false, resourceVersion: '1' });
    const cur = newPod('p', rs, { ready: true, readySince: f.clock.now(), resourceVersion: '2' });
    f.controller.updatePod(old, cur);
    expect(await f.drain()).toEqual(['default/foo']);
    await f.clock.advance(5_999);
    expect(await f.drain()).toEqual([]);
    await f.clock.advance(1);
    expect(await f.drain()).toEqual(['default/foo']);
  });

  it('counts a pod turning terminating as deleted, for its old labels too', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 0));
    f.controller.expectations.expectDeletions('default/foo', ['default/p']);
    const old = newPod('p', rs, { resourceVersion: '1' });
    const cur = newPod('p', rs, {
      resourceVersion: '2',
      deleting: true,
      labels: { app: 'foo', more: 'x' },
    });
    f.controller.updatePod(old, cur);
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    expect(await f.drain()).toEqual(['default/foo']);
  });

  it('handles a pod tombstone and ignores a deleted orphan (TestDeleteFinalStateUnknown)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    f.controller.deletePod(new DeletedFinalStateUnknown('default/p', newPod('p', rs)));
    expect(await f.drain()).toEqual(['default/foo']);
    f.controller.deletePod(newPod('orphan', undefined, { labels: { app: 'foo' } }));
    f.controller.deletePod(new DeletedFinalStateUnknown<Pod>('default/nothing'));
    expect(await f.drain()).toEqual([]);
    expect(f.logs.some((l) => l.startsWith('Tombstone contained object that is not a Pod'))).toBe(
      true,
    );
  });

  it('ignores pods whose controller is not this ReplicaSet (TestPodControllerLookup)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    const ref = newControllerRef(rs, replicaSetKind);
    expect(f.controller.resolveControllerRef('default', ref)?.metadata?.name).toBe('foo');
    expect(
      f.controller.resolveControllerRef('default', { ...ref, kind: 'Deployment' }),
    ).toBeUndefined();
    expect(
      f.controller.resolveControllerRef('default', { ...ref, uid: 'someone-else' }),
    ).toBeUndefined();
    expect(f.controller.resolveControllerRef('other', ref)).toBeUndefined();
  });

  it('drops the expectations of a deleted or re-created ReplicaSet (TestExpectationsOnRecreate)', async () => {
    const f = await fixture();
    const rs = await f.addRS(newReplicaSet('foo', 1));
    f.controller.expectations.expectCreations('default/foo', 1);
    f.controller.updateRS(rs, { ...rs, metadata: { ...rs.metadata, uid: 'new-uid' } });
    expect(f.controller.expectations.getExpectations('default/foo')).toBeUndefined();
    expect(await f.drain()).toEqual(['default/foo']);
    f.controller.expectations.expectCreations('default/foo', 1);
    f.controller.deleteRS(new DeletedFinalStateUnknown('default/foo', rs));
    expect(f.controller.expectations.getExpectations('default/foo')).toBeUndefined();
    expect(await f.drain()).toEqual(['default/foo']);
  });
});

describe('related ReplicaSets and pods', () => {
  it('finds siblings through the controllerUID index and their pods once each (TestRelatedPodsLookup)', async () => {
    const f = await fixture();
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'd',
      uid: 'uid-d',
      controller: true,
      blockOwnerDeletion: true,
    };
    const a = await f.addRS(newReplicaSet('a', 1, { labels: { app: 'x' }, owner }));
    const b = await f.addRS(newReplicaSet('b', 1, { labels: { app: 'x' }, owner }));
    await f.addRS(newReplicaSet('loner', 1, { labels: { app: 'x' } }));
    f.addPods(newPod('pa', a), newPod('pb', b));
    expect(
      f.controller
        .getReplicaSetsWithSameController(a)
        .map((r) => r.metadata?.name)
        .sort(),
    ).toEqual(['a', 'b']);
    // Both selectors match both pods: still one each.
    expect(
      f.controller
        .getIndirectlyRelatedPods(a)
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['pa', 'pb']);
    const loner = f.rsIndexer.getByKey('default/loner')!;
    expect(f.controller.getReplicaSetsWithSameController(loner)).toEqual([]);
  });

  it('deletes the pod on the most crowded node of the family first', async () => {
    const f = await fixture();
    const owner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'd',
      uid: 'uid-d',
      controller: true,
      blockOwnerDeletion: true,
    };
    const a = await f.addRS(newReplicaSet('a', 1, { labels: { app: 'a' }, owner }));
    const b = await f.addRS(newReplicaSet('b', 1, { labels: { app: 'b' }, owner }));
    const since = Date.UTC(2025, 0, 1);
    f.addPods(
      newPod('a-on-1', a, { nodeName: 'node-1', ready: true, readySince: since }),
      newPod('a-on-2', a, { nodeName: 'node-2', ready: true, readySince: since }),
      newPod('b-on-2', b, { nodeName: 'node-2', ready: true, readySince: since }),
    );
    await f.controller.syncReplicaSet('default/a');
    expect(f.podControl.deletePodName).toEqual(['a-on-2']);
  });
});

describe('construction and run', () => {
  it('refuses a bad burst size or worker count', async () => {
    const f = await fixture();
    const factory = new SharedInformerFactory(sandboxSource(f.sandbox), 0);
    const opts = {
      replicaSets: factory.replicaSets(),
      pods: factory.pods(),
      client: {
        replicaSets: f.sandbox.client<ReplicaSet>('apps', 'replicasets'),
        pods: f.sandbox.client<Pod>('', 'pods'),
      },
    };
    expect(() => new ReplicaSetController({ ...opts, burstReplicas: 0 })).toThrow(
      /burstReplicas must be an integer >= 1/,
    );
    await expect(f.controller.run(-1, new AbortController().signal)).rejects.toThrow(
      /workers must be/,
    );
  });

  it('returns at once when the signal has already aborted, leaving no timer', async () => {
    const f = await fixture();
    const abort = new AbortController();
    abort.abort();
    await f.controller.run(2, abort.signal);
    expect(f.controller.queue.shuttingDown()).toBe(true);
    await expect(f.controller.run(2, new AbortController().signal)).rejects.toThrow(
      /this controller has stopped; make a new one/,
    );
    await settle();
    await f.sandbox.stop();
    expect(f.clock.hasWaiters()).toBe(false);
  });
});
