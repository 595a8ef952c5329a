// ReplicationManager with the fake pod control and caches filled by hand
// (the informers do not run, as in the Go unit tests), against the
// in-memory replicationcontrollers server: the ReplicaSet scenarios of
// replica_set_test.go that the RC adapters touch (sync that does nothing,
// creation, deletion, failures, the burst), and the RC cases of
// test/integration/replicationcontroller (TestAdoption,
// TestPodOrphaningAndAdoptionWhenLabelsChange, TestGeneralPodAdoption):
// owner references say ReplicationController, adoption and release follow
// the RC's map selector, and the status written is an RC status.
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  newControllerRef,
  newInternalError,
  type KubeObject,
  type Logger,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { FakePodControl, type PodControl } from '@kcm-ts/controller';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ReplicaSetController,
  ReplicationManager,
  convertRCtoRS,
  replicaSetKind,
  replicationControllerKind,
} from '../../src/index.js';
import { creatable, newPod, newReplicaSet } from '../helpers.js';
import { RCServer, newRCPod, newReplicationController, rcSource } from './helpers.js';

interface Fixture {
  sandbox: Sandbox;
  clock: FakeClock;
  rcs: RCServer;
  controller: ReplicationManager;
  podControl: FakePodControl;
  logs: string[];
  addRC(rc: ReplicationController): Promise<ReplicationController>;
  addPods(...pods: Pod[]): void;
  drain(): Promise<string[]>;
  stored(name: string): ReplicationController;
  rcIndexer: Indexer<ReplicationController>;
}

let current: Fixture | undefined;
afterEach(async () => {
  current?.controller.queue.shutDown();
  await current?.sandbox.stop();
  current = undefined;
});

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

async function fixture(
  opts: { burstReplicas?: number; podControl?: PodControl } = {},
): Promise<Fixture> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const rcs = new RCServer();
  const factory = new SharedInformerFactory(rcSource(sandbox, rcs), 0, { clock });
  const podControl = new FakePodControl();
  const logs: string[] = [];
  const controller = new ReplicationManager({
    replicationControllers: factory.replicationControllers(),
    pods: factory.pods(),
    client: { replicationControllers: rcs.client, pods: sandbox.client<Pod>('', 'pods') },
    clock,
    podControl: opts.podControl ?? podControl,
    logger: capturing(logs),
    ...(opts.burstReplicas !== undefined && { burstReplicas: opts.burstReplicas }),
  });
  const rcIndexer = factory.replicationControllers().informer().getIndexer();
  const podIndexer = factory.pods().informer().getIndexer();
  const f: Fixture = {
    sandbox,
    clock,
    rcs,
    controller,
    podControl,
    logs,
    rcIndexer,
    async addRC(rc) {
      const created = await rcs.client.inNamespace('default').create(creatable(rc));
      rcIndexer.add(created);
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
    stored: (name) => rcs.get('default', name),
  };
  current = f;
  return f;
}

const podsOf = (rc: ReplicationController, n: number, prefix = 'pod'): Pod[] =>
  Array.from({ length: n }, (_, i) =>
    newRCPod(`${prefix}-${i}`, rc, {
      ready: true,
      nodeName: 'node-1',
      readySince: Date.UTC(2025, 0, 1),
    }),
  );

describe('ReplicationManager', () => {
  it('is the ReplicaSet controller built for v1 ReplicationController', async () => {
    const f = await fixture();
    expect(f.controller).toBeInstanceOf(ReplicaSetController);
    expect(f.controller.groupVersionKind).toEqual({
      group: '',
      version: 'v1',
      kind: 'ReplicationController',
    });
  });

  it('leaves ReplicaSetController on apps/v1 ReplicaSet by default and checks a given kind', async () => {
    const f = await fixture();
    const factory = new SharedInformerFactory(rcSource(f.sandbox, f.rcs), 0, { clock: f.clock });
    const options = {
      replicaSets: factory.replicaSets(),
      pods: factory.pods(),
      client: {
        replicaSets: f.sandbox.client<never>('apps', 'replicasets'),
        pods: f.sandbox.client<Pod>('', 'pods'),
      },
    };
    const rsc = new ReplicaSetController(options);
    expect(rsc.groupVersionKind).toBe(replicaSetKind);
    rsc.queue.shutDown();
    expect(
      () => new ReplicaSetController({ ...options, kind: { group: '', version: '', kind: 'X' } }),
    ).toThrow('kind must name a version and a kind');
  });

  it('rejects missing informers and clients with a clear error', () => {
    expect(() => new ReplicationManager(undefined as never)).toThrow('options are required');
    expect(
      () =>
        new ReplicationManager({
          pods: {} as never,
          replicationControllers: undefined as never,
          client: {} as never,
        }),
    ).toThrow('options.replicationControllers must be an informer of ReplicationControllers');
  });
});

describe('syncReplicaSet on ReplicationControllers', () => {
  it('writes an RC status and nothing else when the pods match (TestSyncReplicaSetDoesNothing)', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 2));
    f.addPods(...podsOf(rc, 2));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.deletePodName).toEqual([]);
    const stored = f.stored('foo');
    expect(stored.status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });
    // The write went through the RC status subresource, in RC shape.
    expect(f.rcs.counts.get('updateStatus')).toBe(1);
    expect(stored.spec?.selector).toEqual({ app: 'foo' });
    // Nothing changed: the next sync (from the updated cache) writes nothing.
    f.rcIndexer.update(stored);
    f.rcs.counts.clear();
    await f.controller.syncReplicaSet('default/foo');
    expect(f.rcs.counts.size).toBe(0);
  });

  it('creates the missing pods owned by the ReplicationController (apiVersion v1)', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 3));
    f.addPods(...podsOf(rc, 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(2);
    expect(f.podControl.templates[0]?.metadata?.labels).toEqual({ app: 'foo' });
    const ref = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      name: 'foo',
      uid: rc.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    expect(f.podControl.controllerRefs).toEqual([ref, ref]);
    expect(f.controller.expectations.getExpectations('default/foo')?.getExpectations()).toEqual([
      2, 0,
    ]);
  });

  it('creates at most burstReplicas per sync (TestControllerBurstReplicas)', async () => {
    const f = await fixture({ burstReplicas: 5 });
    await f.addRC(newReplicationController('foo', 12));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.templates).toHaveLength(5);
  });

  it('deletes the extra pods and expects them by key', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 1));
    const ready = newRCPod('ready', rc, {
      nodeName: 'n',
      ready: true,
      readySince: Date.UTC(2025, 0, 1),
    });
    const pending = newRCPod('pending', rc, { nodeName: 'n', phase: 'Pending' });
    f.addPods(ready, pending);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.deletePodName).toEqual(['pending']);
    expect([...(f.controller.expectations.getUIDs('default/foo') ?? [])]).toEqual([
      'default/pending',
    ]);
    expect(f.stored('foo').status?.replicas).toBe(2);
  });

  it('writes the ReplicaFailure condition into the RC status when creations fail (TestSyncReplicaSetCreateFailures)', async () => {
    const f = await fixture();
    await f.addRC(newReplicationController('foo', 2));
    f.podControl.err = newInternalError('fake error');
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow('fake error');
    const status = f.stored('foo').status;
    expect(status?.replicas).toBe(0);
    expect(status?.conditions).toEqual([
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: expect.stringContaining('fake error') as unknown,
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('retries a conflicting status write once after a fresh read of the RC', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 0));
    // The cache is one version behind the server.
    await f.rcs.client
      .inNamespace('default')
      .update({ ...rc, metadata: { ...rc.metadata, labels: { x: 'y' } } });
    await f.controller.syncReplicaSet('default/foo');
    expect(f.rcs.counts.get('updateStatus')).toBe(2);
    expect(f.stored('foo').status).toEqual({ replicas: 0, observedGeneration: 1 });
    expect(f.stored('foo').metadata?.labels).toEqual({ x: 'y' });
  });

  it('adopts a matching orphan with a ReplicationController reference, after a fresh read (TestAdoption)', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 1));
    const orphan = newRCPod('orphan', undefined, { labels: { app: 'foo', extra: 'x' } });
    f.addPods(orphan);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.patches).toEqual([
      {
        metadata: {
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ReplicationController',
              name: 'foo',
              uid: rc.metadata?.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
          uid: 'uid-orphan',
        },
      },
    ]);
    expect(f.rcs.counts.get('get')).toBe(1);
    // The adopted pod counts: nothing created.
    expect(f.podControl.templates).toEqual([]);
  });

  it('refuses to adopt when the fresh read of the RC fails, and retries the key', async () => {
    const f = await fixture();
    await f.addRC(newReplicationController('foo', 1));
    f.addPods(newRCPod('orphan', undefined, { labels: { app: 'foo' } }));
    f.rcs.failNext.set('get', newInternalError('etcd is down'));
    await expect(f.controller.syncReplicaSet('default/foo')).rejects.toThrow('etcd is down');
    expect(f.podControl.patches).toEqual([]);
  });

  it('does not adopt pods its map selector does not match, nor pods of another controller', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 2));
    const rs = newReplicaSet('foo', 1, { uid: rc.metadata?.uid ?? '' });
    // Same labels, same name and uid, but the controller is a ReplicaSet.
    const rsPod = newPod('rs-pod', rs);
    const other = newRCPod('other', undefined, { labels: { app: 'bar' } });
    f.addPods(rsPod, other);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.patches).toEqual([]);
    expect(f.podControl.templates).toHaveLength(2);
  });

  it('releases an owned pod whose labels no longer match (TestPodOrphaningAndAdoptionWhenLabelsChange)', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 1));
    const relabelled = newRCPod('moved', rc, { labels: { app: 'elsewhere' } });
    f.addPods(relabelled);
    await f.controller.syncReplicaSet('default/foo');
    expect(f.podControl.patches).toEqual([
      {
        metadata: {
          ownerReferences: [{ $patch: 'delete', uid: rc.metadata?.uid }],
          uid: 'uid-moved',
        },
      },
    ]);
    // Released, so not counted: one created.
    expect(f.podControl.templates).toHaveLength(1);
  });

  it('hands the pod control the ReplicationController itself (podControlAdapter)', async () => {
    const seen: KubeObject[] = [];
    const inner = new FakePodControl();
    const recording: PodControl = {
      createPods: (ns, t, obj, ref) => {
        seen.push(obj);
        return inner.createPods(ns, t, obj, ref);
      },
      createPodsWithGenerateName: (ns, t, obj, ref, name) =>
        inner.createPodsWithGenerateName(ns, t, obj, ref, name),
      deletePod: (ns, name, obj) => {
        seen.push(obj);
        return inner.deletePod(ns, name);
      },
      patchPod: (ns, name, patch) => inner.patchPod(ns, name, patch),
    };
    const f = await fixture({ podControl: recording });
    await f.addRC(newReplicationController('foo', 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'foo' },
      spec: { selector: { app: 'foo' } },
    });
  });

  it('finds no related siblings for an RC with a controller, as upstream (controllerUID index)', async () => {
    const f = await fixture();
    const owner = {
      apiVersion: 'apps.openshift.io/v1',
      kind: 'DeploymentConfig',
      name: 'dc',
      uid: 'dc-uid',
      controller: true,
    };
    const a = await f.addRC(newReplicationController('a', 1, { owner, labels: { app: 'a' } }));
    await f.addRC(newReplicationController('b', 1, { owner, labels: { app: 'b' } }));
    const rs = f.controller.getReplicaSetsWithSameController(
      // What the controller sees of `a`.
      convertRCtoRS(a),
    );
    expect(rs).toEqual([]);
  });
});

describe('event handlers on ReplicationControllers', () => {
  it('counts a pod of the RC as an observed creation; ignores a ReplicaSet pod of the same name', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 1));
    await f.controller.syncReplicaSet('default/foo');
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(false);

    const rsOwned = newPod('rs-pod', newReplicaSet('foo', 1, { uid: rc.metadata?.uid ?? '' }));
    expect(rsOwned.metadata?.ownerReferences?.[0]).toEqual(
      newControllerRef(newReplicaSet('foo', 1, { uid: rc.metadata?.uid ?? '' }), replicaSetKind),
    );
    f.controller.addPod(rsOwned);
    expect(await f.drain()).toEqual([]);
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(false);

    f.controller.addPod(newRCPod('pod-new', rc));
    expect(await f.drain()).toEqual(['default/foo']);
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
  });

  it('wakes the RC whose map selector matches an orphan whose labels changed', async () => {
    const f = await fixture();
    await f.addRC(newReplicationController('foo', 1));
    await f.addRC(newReplicationController('bar', 1));
    const before = newRCPod('p', undefined, { labels: { app: 'none' } });
    const after = newRCPod('p', undefined, { labels: { app: 'bar' }, resourceVersion: '19' });
    f.controller.updatePod(before, after);
    expect(await f.drain()).toEqual(['default/bar']);
  });

  it('resolves only ReplicationController references (resolveControllerRef)', async () => {
    const f = await fixture();
    const rc = await f.addRC(newReplicationController('foo', 1));
    const ref = newControllerRef(rc, replicationControllerKind);
    expect(f.controller.resolveControllerRef('default', ref)?.metadata?.uid).toBe(rc.metadata?.uid);
    expect(f.controller.resolveControllerRef('default', { ...ref, kind: 'ReplicaSet' })).toBe(
      undefined,
    );
    expect(f.controller.resolveControllerRef('default', { ...ref, uid: 'other' })).toBe(undefined);
  });
});

describe('run', () => {
  it('names the controller and the cache sync after ReplicationController', async () => {
    const f = await fixture();
    const lines: string[] = [];
    const logger: Logger = {
      info: (msg, values) => lines.push(`${msg} ${JSON.stringify(values ?? {})}`),
      error: () => {},
      v: () => logger,
      enabled: () => true,
      withValues: () => logger,
      withName: () => logger,
    };
    const factory = new SharedInformerFactory(rcSource(f.sandbox, f.rcs), 0, { clock: f.clock });
    const rm = new ReplicationManager({
      replicationControllers: factory.replicationControllers(),
      pods: factory.pods(),
      client: { replicationControllers: f.rcs.client, pods: f.sandbox.client<Pod>('', 'pods') },
      clock: f.clock,
      logger,
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = rm.run(1, abort.signal);
    for (let i = 0; i < 20 && !lines.some((l) => l.startsWith('Caches are synced')); i++) {
      await f.clock.advance(100);
      await new Promise<void>((r) => setImmediate(r));
    }
    abort.abort();
    await running;
    await factory.shutdown();
    expect(lines).toContain('Starting controller {"name":"replicationcontroller"}');
    expect(lines.some((l) => l.includes('ReplicationController'))).toBe(true);
    expect(lines).toContain('Shutting down controller {"name":"replicationcontroller"}');
  });
});
