// The simulated scheduler against a registry, on the fake clock: it sees the
// cluster through clients, binds through pods/binding, counts the pods it
// has just bound, reports a pod that fits nowhere as kube-scheduler does
// (the FailedScheduling event, the PodScheduled condition), and tries it
// again when the cluster changes (a pod deleted, a node added, uncordoned,
// untainted), after the pod's backoff.
import { newInternalError, type KubeObject } from '@kcm-ts/apimachinery';
import type { Binding, Event as CoreEvent, Node, Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcessClient, inProcessPodBinder } from '../src/client/in-process-client.js';
import { EventRecorder } from '../src/node/events.js';
import { SimulatedScheduler, type PodBinder } from '../src/node/scheduler/scheduler.js';
import type { VolumeBinding } from '../src/node/scheduler/plugins/volume-binding.js';
import { newRegistry } from './helpers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** Lets in-process I/O (informers, bindings, status writes) run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};

const node = (
  name: string,
  extra: Partial<Node['spec']> = {},
  labels: Record<string, string> = {},
): Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec: extra,
  status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } },
});

const controlPlane = (): Node =>
  node(
    'node-1',
    { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
    { 'node-role.kubernetes.io/control-plane': '' },
  );

async function cluster(
  nodes: Node[],
  opts: {
    binder?: (real: PodBinder) => PodBinder;
    volumes?: VolumeBinding;
    random?: () => number;
  } = {},
) {
  const { registry, clock } = newRegistry();
  const client = <T extends KubeObject>(resource: string) =>
    inProcessClient<T>(registry, registry.resource('', resource));
  const nodeClient = client<Node>('nodes');
  for (const n of nodes) await nodeClient.create(n);
  const real = inProcessPodBinder(registry);
  const scheduler = new SimulatedScheduler({
    pods: client<Pod>('pods'),
    nodes: nodeClient,
    binder: opts.binder ? opts.binder(real) : real,
    events: new EventRecorder(client('events'), clock),
    clock,
    volumes: opts.volumes,
    random: opts.random,
  });
  const abort = new AbortController();
  const running = scheduler.run(abort.signal);
  stops.push(async () => {
    abort.abort();
    await running;
    expect(clock.hasWaiters()).toBe(false);
  });
  const pods = client<Pod>('pods').inNamespace('default');
  const create = (name: string, cpu?: string, spec: Partial<Pod['spec']> = {}) =>
    pods.create({
      metadata: { name },
      spec: {
        containers: [
          { name: 'c', image: 'nginx', ...(cpu ? { resources: { requests: { cpu } } } : {}) },
        ],
        ...spec,
      },
    });
  const nodeOf = async (name: string) => (await pods.get(name)).spec?.nodeName;
  const scheduled = async (name: string) =>
    (await pods.get(name)).status?.conditions?.find((c) => c.type === 'PodScheduled');
  const events = async (name: string) =>
    (await client<CoreEvent>('events').inNamespace('default').list()).items
      .filter((e) => e.involvedObject.name === name)
      .map((e) => `${e.type} ${e.reason} x${e.count}: ${e.message}`);
  const step = async (ms: number) => {
    await clock.advance(ms);
    await settle();
  };
  await settle();
  return { clock, pods, nodes: nodeClient, create, nodeOf, scheduled, events, step };
}

const mixedReasons =
  '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
  'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';

describe('the simulated scheduler', () => {
  it('binds pods created together to different nodes, counting its own bindings', async () => {
    const c = await cluster([node('node-1'), node('node-2')]);
    await Promise.all([c.create('a'), c.create('b')]);
    await settle();
    expect(new Set([await c.nodeOf('a'), await c.nodeOf('b')])).toEqual(
      new Set(['node-1', 'node-2']),
    );
    expect(await c.events('a')).toEqual([
      `Normal Scheduled x1: Successfully assigned default/a to ${await c.nodeOf('a')}`,
    ]);
    expect(await c.scheduled('a')).toMatchObject({ status: 'True' });
  });

  it('retries a failed binding after its backoff on the fake clock', async () => {
    const attempts: string[] = [];
    const c = await cluster([node('node-1')], {
      binder: (real) => ({
        bind: (binding: Binding) => {
          attempts.push(binding.metadata?.name ?? '');
          if (attempts.length === 1) return Promise.reject(newInternalError(new Error('etcd')));
          return real.bind(binding);
        },
      }),
    });
    await c.create('a');
    await settle();
    expect(attempts).toEqual(['a']);
    expect(await c.nodeOf('a')).toBeUndefined();
    expect(await c.scheduled('a')).toMatchObject({
      status: 'False',
      reason: 'SchedulerError',
      message: 'running Bind plugin "DefaultBinder": Internal error occurred: etcd',
    });
    await c.step(999);
    expect(attempts).toEqual(['a']);
    await c.step(1);
    expect(attempts).toEqual(['a', 'a']);
    expect(await c.nodeOf('a')).toBe('node-1');
  });

  it('reports a pod that fits nowhere: FailedScheduling and PodScheduled=False with the mixed reasons', async () => {
    const c = await cluster([controlPlane(), node('node-2'), node('node-3')]);
    await c.create('big-2', '3');
    await c.create('big-3', '3');
    await settle();
    expect([await c.nodeOf('big-2'), await c.nodeOf('big-3')].sort()).toEqual(['node-2', 'node-3']);
    await c.create('third', '3');
    await settle();
    expect(await c.nodeOf('third')).toBeUndefined();
    expect((await c.pods.get('third')).status?.phase).toBe('Pending');
    expect(await c.scheduled('third')).toEqual({
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: mixedReasons,
      lastProbeTime: null,
      lastTransitionTime: expect.stringMatching(/^2026-01-02T03:04:05Z$/),
    });
    expect(await c.events('third')).toEqual([`Warning FailedScheduling x1: ${mixedReasons}`]);
  });

  it("schedules a pending pod once a pod frees its node, after the pod's backoff", async () => {
    const c = await cluster([node('node-1')]);
    await c.create('holder', '3');
    await settle();
    await c.create('waiting', '3');
    await settle();
    expect(await c.nodeOf('waiting')).toBeUndefined();
    const message =
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.';
    expect(await c.scheduled('waiting')).toMatchObject({ reason: 'Unschedulable', message });
    // Nothing changes: no retry, however long (short of the 5 min flush).
    await c.step(60_000);
    expect(await c.events('waiting')).toEqual([`Warning FailedScheduling x1: ${message}`]);
    await c.pods.delete('holder', { gracePeriodSeconds: 0 });
    await settle();
    expect(await c.nodeOf('waiting')).toBe('node-1');
    expect(await c.scheduled('waiting')).toMatchObject({ status: 'True' });
  });

  it('waits out the backoff when the cluster changes right after a failure', async () => {
    const c = await cluster([node('node-1')]);
    await c.create('holder', '3');
    await settle();
    await c.create('waiting', '3');
    await settle();
    // At once: the first attempt's backoff (1 s) is not over.
    await c.pods.delete('holder', { gracePeriodSeconds: 0 });
    await settle();
    expect(await c.nodeOf('waiting')).toBeUndefined();
    await c.step(999);
    expect(await c.nodeOf('waiting')).toBeUndefined();
    await c.step(1);
    expect(await c.nodeOf('waiting')).toBe('node-1');
  });

  it('tries an unschedulable pod again after 5 minutes, counting the repeated event', async () => {
    const c = await cluster([node('node-1')]);
    await c.create('huge', '8');
    await settle();
    const message =
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
    expect(await c.events('huge')).toEqual([`Warning FailedScheduling x1: ${message}`]);
    await c.step(5 * 60_000);
    await c.step(5 * 60_000);
    expect(await c.events('huge')).toEqual([`Warning FailedScheduling x3: ${message}`]);
  });

  it('skips a cordoned node, and schedules there once it is uncordoned', async () => {
    const c = await cluster([node('node-1')]);
    await c.nodes.patch('node-1', { type: 'strategic', body: { spec: { unschedulable: true } } });
    await settle();
    await c.create('a');
    await settle();
    expect(await c.nodeOf('a')).toBeUndefined();
    expect(await c.scheduled('a')).toMatchObject({
      message:
        '0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    });
    await c.nodes.patch('node-1', { type: 'strategic', body: { spec: { unschedulable: null } } });
    await c.step(1_000);
    expect(await c.nodeOf('a')).toBe('node-1');
  });

  it('schedules a pending pod on a node added later, or when a taint is removed', async () => {
    const c = await cluster([controlPlane()]);
    await c.create('a');
    await settle();
    expect(await c.nodeOf('a')).toBeUndefined();
    expect(await c.scheduled('a')).toMatchObject({
      message:
        '0/1 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    });
    await c.nodes.create(node('node-2'));
    await c.step(1_000);
    expect(await c.nodeOf('a')).toBe('node-2');

    await c.create('b', undefined, {
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
    });
    await c.step(100);
    expect(await c.nodeOf('b')).toBeUndefined();
    await c.nodes.patch('node-1', { type: 'merge', body: { spec: { taints: null } } });
    await c.step(1_000);
    expect(await c.nodeOf('b')).toBe('node-1');
  });

  it("ignores a node's heartbeats, but not a new label", async () => {
    const c = await cluster([node('node-1')]);
    await c.create('a', undefined, { nodeSelector: { disk: 'ssd' } });
    await settle();
    await c.step(2_000);
    const before = (await c.events('a')).length;
    await c.nodes.patchStatus('node-1', {
      type: 'merge',
      body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } },
    });
    await c.step(2_000);
    expect(await c.events('a')).toHaveLength(before);
    expect(await c.events('a')).toEqual([expect.stringMatching(/^Warning FailedScheduling x1: /)]);
    await c.nodes.patch('node-1', {
      type: 'merge',
      body: { metadata: { labels: { disk: 'ssd' } } },
    });
    await settle();
    expect(await c.nodeOf('a')).toBe('node-1');
  });

  it('spreads pods over the nodes by least allocated, with their requests', async () => {
    const c = await cluster([controlPlane(), node('node-2'), node('node-3')]);
    await c.create('large', '1');
    await settle();
    for (const name of ['s1', 's2', 's3']) {
      await c.create(name, '500m');
      await settle();
    }
    const placed = Object.fromEntries(
      await Promise.all(['large', 's1', 's2', 's3'].map(async (n) => [n, await c.nodeOf(n)])),
    );
    // large takes node-2 (the first of equals); the small ones go where the
    // most stays free: node-3 (3.5 CPUs free after, against 2.5), node-3
    // again (3 against 2.5), then node-2: both would have 2.5 CPUs free,
    // and node-2 has more memory free (each pod without a memory request
    // counts as 200 MiB).
    expect(placed).toEqual({ large: 'node-2', s1: 'node-3', s2: 'node-3', s3: 'node-2' });
  });

  it('keeps a pod with required anti-affinity off the nodes where its kind runs', async () => {
    const c = await cluster([node('node-1'), node('node-2')]);
    const spec = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchLabels: { app: 'db' } },
              topologyKey: 'kubernetes.io/hostname',
            },
          ],
        },
      },
    };
    for (const name of ['db-0', 'db-1', 'db-2']) {
      await c.pods.create({
        metadata: { name, labels: { app: 'db' } },
        spec: { containers: [{ name: 'c', image: 'postgres' }], ...spec },
      });
    }
    await settle();
    expect([await c.nodeOf('db-0'), await c.nodeOf('db-1')].sort()).toEqual(['node-1', 'node-2']);
    expect(await c.nodeOf('db-2')).toBeUndefined();
    expect(await c.scheduled('db-2')).toMatchObject({
      message:
        "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
    });
  });

  it('leaves pods of another scheduler, and gated pods, alone', async () => {
    const c = await cluster([node('node-1')]);
    await c.create('other', undefined, { schedulerName: 'my-scheduler' });
    await c.create('gated', undefined, { schedulingGates: [{ name: 'example.com/wait' }] });
    await settle();
    expect(await c.nodeOf('other')).toBeUndefined();
    expect(await c.nodeOf('gated')).toBeUndefined();
    expect(await c.events('gated')).toEqual([]);
    await c.pods.patch('gated', { type: 'merge', body: { spec: { schedulingGates: null } } });
    await settle();
    expect(await c.nodeOf('gated')).toBe('node-1');
  });

  it("waits for a pod's claims through the VolumeBinding hook, and retries when they change", async () => {
    let bound = false;
    let changed: (() => void) | undefined;
    const volumes: VolumeBinding = {
      check: (pod) =>
        (pod.spec?.volumes ?? []).length > 0 && !bound
          ? {
              code: 'UnschedulableAndUnresolvable',
              reasons: ['pod has unbound immediate PersistentVolumeClaims'],
            }
          : undefined,
      onChange(listener) {
        changed = listener;
        return () => (changed = undefined);
      },
    };
    const c = await cluster([node('node-1')], { volumes });
    await c.create('app', undefined, {
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    });
    await settle();
    expect(await c.scheduled('app')).toMatchObject({
      message:
        '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    });
    bound = true;
    changed?.();
    await c.step(1_000);
    expect(await c.nodeOf('app')).toBe('node-1');
  });

  it('breaks ties with the injected random', async () => {
    const c = await cluster([node('node-1'), node('node-2')], { random: () => 0 });
    await c.create('a');
    await settle();
    // Reservoir sampling with random() = 0: the last of the equals wins.
    expect(await c.nodeOf('a')).toBe('node-2');
  });
});
