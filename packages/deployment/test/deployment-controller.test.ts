// Ports of pkg/controller/deployment/deployment_controller_test.go: what one
// syncDeployment writes, claiming ReplicaSets, the pod map, the event
// handlers, and the retry policy of the queue.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  DeletedFinalStateUnknown,
  FakeClock,
  FakeRecorder,
  newInternalError,
  StatusError,
} from '@kcm-ts/apimachinery';
import { addPodControllerUIDIndexer, podControllerUIDIndex } from '@kcm-ts/controller';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeploymentController, maxRetries } from '../src/index.js';
import {
  describeActions,
  fakeClients,
  fakeInformer,
  newDeployment,
  newReplicaSet,
  podOf,
  meta,
} from './helpers/fixtures.js';

function fixture(
  objects: { deployments?: Deployment[]; replicaSets?: ReplicaSet[]; pods?: Pod[] } = {},
) {
  const clock = new FakeClock();
  const clients = fakeClients();
  const recorder = new FakeRecorder();
  const dInformer = fakeInformer<Deployment>('deployment');
  const rsInformer = fakeInformer<ReplicaSet>('replicaset');
  const podInformer = fakeInformer<Pod>('pod', '');
  dInformer.add(...(objects.deployments ?? []));
  rsInformer.add(...(objects.replicaSets ?? []));
  podInformer.add(...(objects.pods ?? []));
  const dc = new DeploymentController({
    deployments: dInformer.resource,
    replicaSets: rsInformer.resource,
    pods: podInformer.resource,
    client: clients,
    recorder,
    clock,
  });
  /** The keys in the queue, taken out of it. */
  const drain = async (): Promise<string[]> => {
    const keys: string[] = [];
    while (dc.queue.len() > 0) {
      const [key] = await dc.queue.get();
      keys.push(key!);
      dc.queue.done(key!);
    }
    return keys.sort();
  };
  return { clock, clients, recorder, dInformer, rsInformer, podInformer, dc, drain };
}

describe('syncDeployment', () => {
  it('creates the ReplicaSet of a new Deployment and writes its status', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const { dc, clients } = fixture({ deployments: [d] });
    clients.deployments.seed(d);
    await dc.syncDeployment('default/foo');
    expect(describeActions(clients.actions)).toEqual([
      expect.stringMatching(/^create replicasets foo-\w+$/),
      'update deployments/status foo',
      'update deployments/status foo',
    ]);
  });

  it('only updates the status of a Deployment being deleted', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    meta(d).deletionTimestamp = '2026-01-01T00:00:00Z';
    const { dc, clients } = fixture({ deployments: [d] });
    await dc.syncDeployment('default/foo');
    expect(describeActions(clients.actions)).toEqual(['update deployments/status foo']);
  });

  it('does not adopt for a Deployment the server says is being deleted, and fails to be retried', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const deleted = structuredClone(d);
    meta(deleted).deletionTimestamp = '2026-01-01T00:00:00Z';
    // The recheck only happens when there is an orphan to adopt.
    const orphan = newReplicaSet(d, 'rs1', 1);
    orphan.metadata!.ownerReferences = [];
    const { dc, clients } = fixture({ deployments: [d], replicaSets: [orphan] });
    clients.deployments.seed(deleted);
    clients.replicaSets.seed(orphan);
    await expect(dc.syncDeployment('default/foo')).rejects.toThrow(/has just been deleted/);
    expect(describeActions(clients.actions)).toEqual(['get deployments foo']);
  });

  it('refuses an empty selector with a warning, recording only the observed generation', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    d.spec!.selector = {};
    const { dc, clients, recorder } = fixture({ deployments: [d] });
    await dc.syncDeployment('default/foo');
    expect(clients.actions).toEqual([]);
    expect(recorder.events).toEqual([
      'Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required.',
    ]);
    meta(d).generation = 2;
    await dc.syncDeployment('default/foo');
    expect(describeActions(clients.actions)).toEqual(['update deployments/status foo']);
    expect((clients.actions[0]!.object as Deployment).status?.observedGeneration).toBe(2);
  });

  it('does nothing for a Deployment that is gone', async () => {
    const { dc, clients } = fixture();
    await expect(dc.syncDeployment('default/gone')).resolves.toBeUndefined();
    expect(clients.actions).toEqual([]);
  });

  it('rolls back before anything else, without touching ReplicaSets (TestReentrantRollback)', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    d.metadata!.annotations = {
      'deployment.kubernetes.io/revision': '2',
      'deprecated.deployment.rollback.to': '0',
    };
    const rs1 = newReplicaSet(d, 'deploymentrs-old', 0);
    rs1.metadata!.annotations = { 'deployment.kubernetes.io/revision': '1' };
    rs1.spec!.template!.spec!.terminationGracePeriodSeconds = 1;
    rs1.spec!.selector.matchLabels!['pod-template-hash'] = 'hash';
    const rs2 = newReplicaSet(d, 'deploymentrs-new', 1);
    rs2.metadata!.annotations = { 'deployment.kubernetes.io/revision': '2' };
    rs2.spec!.selector.matchLabels!['pod-template-hash'] = 'hash';
    const { dc, clients } = fixture({ deployments: [d], replicaSets: [rs1, rs2] });
    await dc.syncDeployment('default/foo');
    expect(describeActions(clients.actions)).toEqual(['update deployments foo']);
  });

  it('treats a changed replica count as a scaling event, not a rollout', async () => {
    const d = newDeployment('foo', 5, undefined, 1, 1, { foo: 'bar' });
    d.metadata!.annotations = { 'deployment.kubernetes.io/revision': '1' };
    const current = newReplicaSet(d, 'foo-1', 3);
    current.metadata!.annotations = {
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    };
    const { dc, clients, recorder } = fixture({ deployments: [d], replicaSets: [current] });
    await dc.syncDeployment('default/foo');
    expect(describeActions(clients.actions)).toEqual([
      'update replicasets foo-1',
      'update deployments/status foo',
    ]);
    expect(recorder.events).toEqual([
      'Normal ScalingReplicaSet Scaled up replica set foo-1 from 3 to 5',
    ]);
  });

  it('rejects an unknown strategy', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    d.spec!.strategy = { type: 'BlueGreen' };
    const { dc } = fixture({ deployments: [d] });
    await expect(dc.syncDeployment('default/foo')).rejects.toThrow(
      'unexpected deployment strategy type: BlueGreen',
    );
  });
});

describe('getReplicaSetsForDeployment and getPodMapForDeployment', () => {
  it('claims its own ReplicaSets and not those of another Deployment', async () => {
    const d1 = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const d2 = newDeployment('bar', 1, undefined, undefined, undefined, { foo: 'bar' });
    const rs1 = newReplicaSet(d1, 'rs1', 1);
    const rs2 = newReplicaSet(d2, 'rs2', 1);
    const { dc } = fixture({ deployments: [d1, d2], replicaSets: [rs1, rs2] });
    expect((await dc.getReplicaSetsForDeployment(d1)).map((r) => r.metadata?.name)).toEqual([
      'rs1',
    ]);
    expect((await dc.getReplicaSetsForDeployment(d2)).map((r) => r.metadata?.name)).toEqual([
      'rs2',
    ]);
  });

  it('adopts a matching orphan and releases an owned ReplicaSet that no longer matches', async () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const orphan = newReplicaSet(d, 'orphan', 1);
    orphan.metadata!.ownerReferences = [];
    const strayed = newReplicaSet(d, 'strayed', 1);
    strayed.metadata!.labels = { foo: 'notbar' };
    const { dc, clients } = fixture({ deployments: [d], replicaSets: [orphan, strayed] });
    clients.deployments.seed(d);
    clients.replicaSets.seed(orphan, strayed);
    const claimed = await dc.getReplicaSetsForDeployment(d);
    expect(claimed.map((r) => r.metadata?.name)).toEqual(['orphan']);
    expect(describeActions(clients.actions).sort()).toEqual([
      'get deployments foo',
      'patch replicasets orphan',
      'patch replicasets strayed',
    ]);
    expect(
      clients.replicaSets.objects.get('default/orphan')?.metadata?.ownerReferences?.[0]?.uid,
    ).toBe(d.metadata?.uid);
    expect(
      clients.replicaSets.objects.get('default/strayed')?.metadata?.ownerReferences ?? [],
    ).toEqual([]);
  });

  it('groups the pods of each claimed ReplicaSet, keeping empty groups and dropping other pods', () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const rs1 = newReplicaSet(d, 'rs1', 1);
    const rs2 = newReplicaSet(d, 'rs2', 1);
    const empty = newReplicaSet(d, 'rs3', 0);
    const stranger = newReplicaSet(d, 'stranger', 1);
    const pods = [podOf(rs1, 'p1'), podOf(rs2, 'p2'), podOf(rs2, 'p3'), podOf(stranger, 'p4')];
    const orphanPod = podOf(rs1, 'p5');
    orphanPod.metadata!.ownerReferences = [];
    const { dc } = fixture({ pods: [...pods, orphanPod] });
    const podMap = dc.getPodMapForDeployment(d, [rs1, rs2, empty]);
    const names = (uid: string) =>
      podMap
        .get(uid)
        ?.map((p) => p.metadata?.name)
        .sort();
    expect(podMap.size).toBe(3);
    expect(names(rs1.metadata!.uid!)).toEqual(['p1']);
    expect(names(rs2.metadata!.uid!)).toEqual(['p2', 'p3']);
    expect(names(empty.metadata!.uid!)).toEqual([]);
  });
});

describe('the pod index', () => {
  it('registers podControllerUID on the pod informer and reads the pod map from it, one lookup per ReplicaSet', () => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const rs1 = newReplicaSet(d, 'rs1', 1);
    const rs2 = newReplicaSet(d, 'rs2', 1);
    const other = newDeployment('other', 1, undefined, undefined, undefined, { app: 'other' });
    const otherRS = newReplicaSet(other, 'other-rs', 100);
    const strayed = podOf(rs2, 'strayed');
    strayed.metadata!.labels = { foo: 'notbar' };
    const elsewhere = podOf(rs1, 'elsewhere');
    elsewhere.metadata!.namespace = 'ns2';
    const pods = [
      podOf(rs1, 'p1'),
      podOf(rs2, 'p2'),
      strayed,
      elsewhere,
      ...Array.from({ length: 100 }, (_, i) => podOf(otherRS, `other-${i}`)),
    ];
    const { dc, podInformer } = fixture({ pods });
    expect(podInformer.indexer.getIndexers()[podControllerUIDIndex]).toBeDefined();
    const byIndex = vi.spyOn(podInformer.indexer, 'byIndex');
    const list = vi.spyOn(podInformer.indexer, 'list');
    const podMap = dc.getPodMapForDeployment(d, [rs1, rs2]);
    expect(byIndex.mock.calls).toEqual([
      [podControllerUIDIndex, rs1.metadata!.uid],
      [podControllerUIDIndex, rs2.metadata!.uid],
    ]);
    expect(list).not.toHaveBeenCalled();
    // The same pods as a scan: the Deployment's namespace, its selector.
    expect(podMap.get(rs1.metadata!.uid!)?.map((p) => p.metadata?.name)).toEqual(['p1']);
    expect(podMap.get(rs2.metadata!.uid!)?.map((p) => p.metadata?.name)).toEqual(['p2']);
  });

  it('shares the index with a ReplicaSet controller on the same informer', () => {
    const { podInformer } = fixture();
    const before = podInformer.indexer.getIndexers()[podControllerUIDIndex];
    expect(() => addPodControllerUIDIndexer(podInformer.resource.informer())).not.toThrow();
    expect(podInformer.indexer.getIndexers()[podControllerUIDIndex]).toBe(before);
  });
});

describe('event handlers', () => {
  const two = () => {
    const d1 = newDeployment('d1', 1, undefined, undefined, undefined, { foo: 'bar' });
    const d2 = newDeployment('d2', 1, undefined, undefined, undefined, { foo: 'bar' });
    return { d1, d2 };
  };

  it('enqueues Deployments on add, update and delete, tombstones included', async () => {
    const { d1 } = two();
    const { dInformer, drain } = fixture();
    const h = dInformer.handlers[0]!;
    h.onAdd!(d1, false);
    expect(await drain()).toEqual(['default/d1']);
    h.onUpdate!(d1, d1);
    expect(await drain()).toEqual(['default/d1']);
    h.onDelete!(new DeletedFinalStateUnknown('default/d1', d1));
    expect(await drain()).toEqual(['default/d1']);
  });

  it('enqueues the owner of an added ReplicaSet, or every Deployment that could adopt an orphan', async () => {
    const { d1, d2 } = two();
    const { rsInformer, drain } = fixture({ deployments: [d1, d2] });
    const h = rsInformer.handlers[0]!;
    h.onAdd!(newReplicaSet(d1, 'rs1', 1), false);
    expect(await drain()).toEqual(['default/d1']);
    const orphan = newReplicaSet(d1, 'rs3', 1);
    orphan.metadata!.ownerReferences = [];
    h.onAdd!(orphan, false);
    expect(await drain()).toEqual(['default/d1', 'default/d2']);
    // An owner that is gone (or another uid) enqueues nothing.
    const stale = newReplicaSet(d1, 'rs4', 1);
    stale.metadata!.ownerReferences![0]!.uid = 'other';
    h.onAdd!(stale, false);
    expect(await drain()).toEqual([]);
  });

  it('treats an added ReplicaSet that is being deleted as deleted', async () => {
    const { d1, d2 } = two();
    const { rsInformer, drain } = fixture({ deployments: [d1, d2] });
    const orphan = newReplicaSet(d1, 'rs', 1);
    orphan.metadata!.ownerReferences = [];
    meta(orphan).deletionTimestamp = '2026-01-01T00:00:00Z';
    rsInformer.handlers[0]!.onAdd!(orphan, false);
    expect(await drain()).toEqual([]);
  });

  it('on update: ignores resyncs, enqueues the owner, and for orphans the candidates when labels change', async () => {
    const { d1, d2 } = two();
    const { rsInformer, drain } = fixture({ deployments: [d1, d2] });
    const h = rsInformer.handlers[0]!;
    const owned = newReplicaSet(d1, 'rs1', 1);
    meta(owned).resourceVersion = '1';
    h.onUpdate!(owned, owned);
    expect(await drain()).toEqual([]);
    h.onUpdate!(owned, { ...owned, metadata: { ...owned.metadata, resourceVersion: '2' } });
    expect(await drain()).toEqual(['default/d1']);

    const orphan = newReplicaSet(d1, 'rs2', 1);
    orphan.metadata!.ownerReferences = [];
    meta(orphan).resourceVersion = '1';
    const relabelled = structuredClone(orphan);
    meta(relabelled).resourceVersion = '2';
    h.onUpdate!(orphan, relabelled);
    expect(await drain()).toEqual([]);
    orphan.metadata!.labels = { foo: 'notbar' };
    h.onUpdate!(orphan, relabelled);
    expect(await drain()).toEqual(['default/d1', 'default/d2']);
  });

  it('on update: a changed controller reference wakes the old owner and the new one; a release wakes the candidates', async () => {
    const { d1, d2 } = two();
    const { rsInformer, drain } = fixture({ deployments: [d1, d2] });
    const h = rsInformer.handlers[0]!;
    const prev = newReplicaSet(d1, 'rs1', 1);
    meta(prev).resourceVersion = '1';
    const moved = newReplicaSet(d2, 'rs1', 1);
    meta(moved).resourceVersion = '2';
    h.onUpdate!(prev, moved);
    expect(await drain()).toEqual(['default/d1', 'default/d2']);

    const released = structuredClone(prev);
    released.metadata!.ownerReferences = [];
    meta(released).resourceVersion = '3';
    h.onUpdate!(prev, released);
    expect(await drain()).toEqual(['default/d1', 'default/d2']);
  });

  it('on delete: enqueues the owner, tombstones included; deleted orphans wake nobody', async () => {
    const { d1, d2 } = two();
    const { rsInformer, drain } = fixture({ deployments: [d1, d2] });
    const h = rsInformer.handlers[0]!;
    const owned = newReplicaSet(d1, 'rs1', 1);
    h.onDelete!(owned);
    expect(await drain()).toEqual(['default/d1']);
    h.onDelete!(new DeletedFinalStateUnknown('default/rs1', owned));
    expect(await drain()).toEqual(['default/d1']);
    const orphan = newReplicaSet(d1, 'rs2', 1);
    orphan.metadata!.ownerReferences = [];
    h.onDelete!(orphan);
    expect(await drain()).toEqual([]);
  });

  describe('pod deletion (Recreate only)', () => {
    const recreate = () => {
      const foo = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
      foo.spec!.strategy = { type: 'Recreate' };
      return foo;
    };

    it('enqueues a Recreate Deployment once its last pod is gone', async () => {
      const foo = recreate();
      const rs = newReplicaSet(foo, 'foo-1', 1);
      const { podInformer, clients, drain } = fixture({ deployments: [foo], replicaSets: [rs] });
      clients.replicaSets.seed(rs);
      await podInformer.handlers[0]!.onDelete!(podOf(rs));
      expect(await drain()).toEqual(['default/foo']);
      // The ReplicaSets were listed live.
      expect(describeActions(clients.actions)).toEqual(['list replicasets ']);
    });

    it('waits while other pods remain', async () => {
      const foo = recreate();
      const rs1 = newReplicaSet(foo, 'foo-1', 1);
      const rs2 = newReplicaSet(foo, 'foo-2', 2);
      rs2.metadata!.ownerReferences = [];
      const { podInformer, clients, drain } = fixture({
        deployments: [foo],
        replicaSets: [rs1, rs2],
        pods: [podOf(rs1, 'left')],
      });
      clients.replicaSets.seed(rs1, rs2);
      await podInformer.handlers[0]!.onDelete!(podOf(rs1));
      expect(await drain()).toEqual([]);
    });

    it('counts only pods of ReplicaSets the Deployment controls', async () => {
      const foo = recreate();
      const rs1 = newReplicaSet(foo, 'foo-1', 1);
      const rs2 = newReplicaSet(foo, 'foo-2', 2);
      rs2.metadata!.ownerReferences = [];
      const { podInformer, clients, drain } = fixture({
        deployments: [foo],
        replicaSets: [rs1, rs2],
        pods: [podOf(rs2, 'unowned')],
      });
      clients.replicaSets.seed(rs1, rs2);
      await podInformer.handlers[0]!.onDelete!(
        new DeletedFinalStateUnknown('default/p', podOf(rs1)),
      );
      expect(await drain()).toEqual(['default/foo']);
    });

    it('ignores RollingUpdate Deployments and pods of unknown ReplicaSets', async () => {
      const rolling = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
      const rs = newReplicaSet(rolling, 'foo-1', 1);
      const { podInformer, clients, drain } = fixture({
        deployments: [rolling],
        replicaSets: [rs],
      });
      await podInformer.handlers[0]!.onDelete!(podOf(rs));
      await podInformer.handlers[0]!.onDelete!(podOf(newReplicaSet(rolling, 'unknown', 1)));
      expect(await drain()).toEqual([]);
      expect(clients.actions).toEqual([]);
    });
  });
});

describe('run and the retry policy', () => {
  let stop: AbortController | undefined;
  afterEach(() => stop?.abort());

  const failing = (err: unknown) => {
    const d = newDeployment('foo', 1, undefined, undefined, undefined, { foo: 'bar' });
    const fx = fixture({ deployments: [d] });
    fx.clients.replicaSets.failOn('create', err);
    return fx;
  };
  const creates = (fx: ReturnType<typeof fixture>) =>
    fx.clients.actions.filter((a) => a.verb === 'create').length;

  it(`retries a failing Deployment ${maxRetries} times with backoff, then drops it`, async () => {
    const fx = failing(newInternalError('etcd down'));
    stop = new AbortController();
    const running = fx.dc.run(1, stop.signal);
    fx.dc.queue.add('default/foo');
    // 5 ms doubling: the 15th retry comes after about 82 s, the whole series
    // within 164 s.
    for (let i = 0; i < 400; i++) await fx.clock.advance(1000);
    expect(creates(fx)).toBe(1 + maxRetries);
    expect(fx.dc.queue.numRequeues('default/foo')).toBe(0);
    stop.abort();
    await running;
    expect(fx.clock.hasWaiters()).toBe(false);
  });

  it('does not retry when the namespace is terminating', async () => {
    const fx = failing(
      new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: 'terminating',
        details: { causes: [{ reason: 'NamespaceTerminating' }] },
      }),
    );
    stop = new AbortController();
    const running = fx.dc.run(1, stop.signal);
    fx.dc.queue.add('default/foo');
    for (let i = 0; i < 10; i++) await fx.clock.advance(1000);
    expect(creates(fx)).toBe(1);
    stop.abort();
    await running;
  });

  it('resolves once stopped, with the queue shut down and no timer left', async () => {
    const fx = fixture();
    stop = new AbortController();
    const running = fx.dc.run(5, stop.signal);
    await fx.clock.advance(10);
    stop.abort();
    await running;
    expect(fx.dc.queue.shuttingDown()).toBe(true);
    expect(fx.clock.hasWaiters()).toBe(false);
    await expect(fx.dc.run(1, new AbortController().signal)).rejects.toThrow('already running');
  });
});
