// ReplicationManager running for real on a fake clock: informers on the
// sandbox's pods (with a simulated node) and on the in-memory
// replicationcontrollers server, the real pod control and a recorder. The
// cases of test/integration/replicationcontroller/replicationcontroller_test.go
// that need no API server feature the sandbox lacks: TestSpecReplicasChange,
// TestDeletingAndFailedPods, TestReadyAndAvailableReplicas (status written
// as an RC status), with every pod owned by a `v1 ReplicationController`
// reference and every pod event naming the ReplicationController.
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder, type ResourceClient } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplicationManager, concurrentRCSyncs } from '../../src/index.js';
import { settle } from '../helpers.js';
import { RCServer, rcSource } from './helpers.js';

interface Running {
  sandbox: Sandbox;
  clock: FakeClock;
  rcs: RCServer;
  recorder: FakeRecorder;
  rcIn: ResourceClient<ReplicationController>;
  podsIn: ResourceClient<Pod>;
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

let current: Running | undefined;
afterEach(async () => {
  if (current === undefined) return;
  const clock = current.clock;
  await current.stop();
  // The manager and informers leave no timer behind.
  expect(clock.hasWaiters()).toBe(false);
  current = undefined;
});

async function start(): Promise<Running> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 1,
    podStartDelay: 1000,
    podReadyDelay: 1000,
  });
  const rcs = new RCServer();
  const factory = new SharedInformerFactory(rcSource(sandbox, rcs), 0, { clock });
  const recorder = new FakeRecorder({ includeObject: true });
  const rm = new ReplicationManager({
    replicationControllers: factory.replicationControllers(),
    pods: factory.pods(),
    client: { replicationControllers: rcs.client, pods: sandbox.client<Pod>('', 'pods') },
    recorder,
    clock,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = rm.run(concurrentRCSyncs, abort.signal);
  const step = async (): Promise<void> => {
    await clock.advance(100);
    await settle();
  };
  const r: Running = {
    sandbox,
    clock,
    rcs,
    recorder,
    rcIn: rcs.client.inNamespace('default'),
    podsIn: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    async until(cond, maxMs = 60_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await step();
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    async stop() {
      abort.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  current = r;
  await step();
  return r;
}

const web = (replicas: number): ReplicationController => ({
  metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { app: 'web' },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    },
  },
});

async function activePods(r: Running): Promise<Pod[]> {
  return (await r.podsIn.list()).items.filter((p) => !p.metadata?.deletionTimestamp);
}

describe('ReplicationManager, running', () => {
  it('creates the pods, owned by the RC, and reports them ready in the RC status (TestReadyAndAvailableReplicas)', async () => {
    const r = await start();
    const rc = await r.rcIn.create(web(3));
    await r.until(() => r.rcs.peek('default', 'web')?.status?.availableReplicas === 3);
    const pods = await activePods(r);
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'v1',
          kind: 'ReplicationController',
          name: 'web',
          uid: rc.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    expect(r.rcs.peek('default', 'web')?.status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const created = r.recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'));
    expect(created).toHaveLength(3);
    for (const e of created) {
      expect(e).toMatch(/involvedObject\{kind=ReplicationController,apiVersion=v1\}$/);
    }
  });

  it('follows spec.replicas up and down (TestSpecReplicasChange)', async () => {
    const r = await start();
    await r.rcIn.create(web(2));
    await r.until(async () => (await activePods(r)).length === 2);
    const stored = await r.rcIn.get('web');
    await r.rcIn.update({ ...stored, spec: { ...stored.spec, replicas: 4 } });
    await r.until(async () => (await activePods(r)).length === 4);
    const again = await r.rcIn.get('web');
    await r.rcIn.update({ ...again, spec: { ...again.spec, replicas: 1 } });
    await r.until(
      async () =>
        (await activePods(r)).length === 1 &&
        r.rcs.peek('default', 'web')?.status?.observedGeneration === 3,
    );
    expect(r.rcs.peek('default', 'web')?.status?.replicas).toBe(1);
    const deleted = r.recorder.events.filter((e) => e.startsWith('Normal SuccessfulDelete'));
    expect(deleted).toHaveLength(3);
    expect(deleted[0]).toMatch(/involvedObject\{kind=ReplicationController,apiVersion=v1\}$/);
  });

  it('replaces a deleted pod (TestDeletingAndFailedPods)', async () => {
    const r = await start();
    await r.rcIn.create(web(2));
    await r.until(async () => (await activePods(r)).length === 2);
    const [victim] = await activePods(r);
    await r.podsIn.delete(victim?.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    await r.until(async () => {
      const pods = await activePods(r);
      return pods.length === 2 && !pods.some((p) => p.metadata?.uid === victim?.metadata?.uid);
    });
  });

  it('adopts an orphan its selector matches, writing a ReplicationController reference (TestAdoption)', async () => {
    const r = await start();
    const orphan = await r.podsIn.create({
      metadata: { name: 'orphan', labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    });
    const rc = await r.rcIn.create(web(1));
    await r.until(async () => {
      const pod = await r.podsIn.get('orphan');
      return pod.metadata?.ownerReferences?.[0]?.uid === rc.metadata?.uid;
    });
    const pod = await r.podsIn.get('orphan');
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        name: 'web',
        uid: rc.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(pod.metadata?.uid).toBe(orphan.metadata?.uid);
    // Adopted, so counted: no second pod.
    await r.until(() => r.rcs.peek('default', 'web')?.status?.replicas === 1);
    expect(await activePods(r)).toHaveLength(1);
  });
});
