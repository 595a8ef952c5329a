// ReplicationManager against the sandbox's own core/v1 replicationcontrollers
// (defaulting, validation, the status subresource) and its simulated node,
// on a fake clock, as test/sandbox.test.ts runs the ReplicaSet controller:
// scaling with RC status and events, defaulting of the selector from the
// template, adoption and release by the RC's map selector
// (test/integration/replicationcontroller: TestSpecReplicasChange,
// TestPodOrphaningAndAdoptionWhenLabelsChange).
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplicationManager, concurrentRCSyncs } from '../../src/index.js';
import { settle } from '../helpers.js';

interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  recorder: FakeRecorder;
  rcIn: ResourceClient<ReplicationController>;
  podsIn: ResourceClient<Pod>;
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

let h: Harness | undefined;
afterEach(async () => {
  if (h === undefined) return;
  const clock = h.clock;
  await h.stop();
  // The manager, informers and node leave no timer behind.
  expect(clock.hasWaiters()).toBe(false);
  h = undefined;
});

async function start(): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 1,
    podStartDelay: 500,
    podReadyDelay: 500,
  });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const recorder = new FakeRecorder({ includeObject: true });
  const rm = new ReplicationManager({
    replicationControllers: factory.replicationControllers(),
    pods: factory.pods(),
    client: {
      replicationControllers: sandbox.client<ReplicationController>('', 'replicationcontrollers'),
      pods: sandbox.client<Pod>('', 'pods'),
    },
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
  await step();
  const harness: Harness = {
    sandbox,
    clock,
    recorder,
    rcIn: sandbox
      .client<ReplicationController>('', 'replicationcontrollers')
      .inNamespace('default'),
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
  return harness;
}

const scale = (rc: ResourceClient<ReplicationController>, name: string, replicas: number) =>
  rc.patch(name, { type: 'merge', body: { spec: { replicas } } });

const active = async (pods: ResourceClient<Pod>): Promise<Pod[]> =>
  (await pods.list()).items.filter((p) => !p.metadata?.deletionTimestamp);

describe('ReplicationManager on the sandbox', () => {
  it('scales 0 → 3 → 0 with an RC status, RC owner references and RC events', async () => {
    h = await start();
    const { rcIn, podsIn } = h;
    // No selector: the server defaults it (and the labels) from the template.
    await rcIn.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    await h.until(async () => (await rcIn.get('web')).status?.observedGeneration === 1);
    expect((await rcIn.get('web')).spec?.selector).toEqual({ app: 'web' });

    await scale(rcIn, 'web', 3);
    await h.until(async () => (await rcIn.get('web')).status?.availableReplicas === 3);
    const rc = await rcIn.get('web');
    expect(rc.status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 2,
    });
    const pods = await active(podsIn);
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
    const created = h.recorder.events.filter((e) =>
      e.startsWith('Normal SuccessfulCreate Created pod: web-'),
    );
    expect(created).toHaveLength(3);
    for (const e of created) {
      expect(e).toMatch(/involvedObject\{kind=ReplicationController,apiVersion=v1\}$/);
    }

    await scale(rcIn, 'web', 0);
    await h.until(async () => (await rcIn.get('web')).status?.replicas === 0);
    expect(
      h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulDelete Deleted pod: web-')),
    ).toHaveLength(3);
    await h.until(async () => (await podsIn.list()).items.length === 0);
  });

  it('adopts an orphan by its map selector and releases it when its labels change', async () => {
    h = await start();
    const { rcIn, podsIn } = h;
    await podsIn.create({
      metadata: { name: 'orphan', labels: { app: 'web', tier: 'x' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    });
    const rc = await rcIn.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { app: 'web' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    await h.until(
      async () => (await podsIn.get('orphan')).metadata?.ownerReferences?.[0]?.kind !== undefined,
    );
    expect((await podsIn.get('orphan')).metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        name: 'web',
        uid: rc.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await h.until(async () => (await rcIn.get('web')).status?.replicas === 1);
    expect(await active(podsIn)).toHaveLength(1);

    // Relabelled out of the selector: released, and replaced.
    await podsIn.patch('orphan', {
      type: 'merge',
      body: { metadata: { labels: { app: 'gone' } } },
    });
    await h.until(async () => {
      const pods = await active(podsIn);
      return pods.length === 2 && !(await podsIn.get('orphan')).metadata?.ownerReferences?.length;
    });
    const replacement = (await active(podsIn)).find((p) => p.metadata?.name !== 'orphan');
    expect(replacement?.metadata?.ownerReferences?.[0]?.kind).toBe('ReplicationController');
  });
});
