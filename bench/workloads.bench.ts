// How close do the DaemonSet and StatefulSet controllers come to what the
// sandbox's simulated nodes allow, and how fast does its scheduler decide?
//
// Each case starts a sandbox in this process with simulated nodes on the
// real clock (containers start `podStartDelay` after their pod is bound,
// become ready `podReadyDelay` later, and stop `podStopDelay` after their
// pod is deleted) and runs the controller as its sandbox tests run it: a
// shared informer factory over the sandbox's in-process clients, the
// default number of workers, and an event broadcaster writing Events. The
// controller's clients are counted by the sandbox's fault lab (no fault is
// armed), so every request counted is the controller's; the bench watches
// the pods through a client of its own and times each case from the write
// that starts it to the moment the watch shows every pod where it should be.
//
// DaemonSet, 100 nodes (BENCH_NODES), tolerating the control plane's taint
// (beside a bare case: the bench creating one pinned pod per node itself):
//   - create: from the DaemonSet's creation until one Ready pod runs on
//     every node; bound: one wave, start + ready;
//   - rolling update, maxUnavailable 10%: from the new image until every
//     node runs a Ready pod of it and no old pod is left; bound:
//     ceil(100 / 10) waves of stop + start + ready (the old pod must be gone
//     before its node gets the new one).
// StatefulSet 0 → 50 (BENCH_REPLICAS):
//   - OrderedReady: each pod waits for the one before it to be Ready;
//     bound: 50 × (start + ready);
//   - Parallel: all at once; bound: one wave, start + ready.
// Printed for each: the time, the time ÷ the bound (goal ≤ 1.2), pods
// created and create requests per pod (goal 1.00), API requests per pod.
//
// Scheduler, 100 nodes and 5,000 pods (BENCH_PODS), in the same run:
//   - the sandbox's create rate: 5,000 pods created (16 in flight) in a
//     sandbox with no nodes, where they stay Pending;
//   - the SimulatedScheduler on that backlog: 100 Nodes registered, then a
//     scheduler started as the sandbox starts it (informers, queue, cache,
//     a binding through `pods/binding` and a `Scheduled` Event for each);
//     decisions per second from its start to the last binding (goal ≥ 1,000/s);
//   - live: a sandbox with 100 simulated nodes (kubelets included) whose
//     pods are created at the create rate: the time until the last is bound,
//     against the time the creates took;
//   - schedulePod alone (schedule-one.ts, pure): 5,000 decisions over 100
//     NodeInfos, each pod added to the node chosen for it; the same through
//     the scheduler's cache (which sorts the nodes for each decision); the
//     same without InterPodAffinity; and the cache's sort alone.
import { setMaxListeners } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import type { ControllerRevision, DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Binding, Node, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  EventSinkImpl,
  newBroadcaster,
  realClock,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { DaemonSetsController, concurrentDaemonSetSyncs } from '@kcm-ts/daemonset';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { StatefulSetController, concurrentStatefulSetSyncs } from '@kcm-ts/statefulset';
import { inProcessPodBinder } from '../packages/sandbox/src/client/in-process-client.js';
import { EventRecorder } from '../packages/sandbox/src/node/events.js';
import { SchedulerCache } from '../packages/sandbox/src/node/scheduler/cache.js';
import { NodeInfo, newPodInfo } from '../packages/sandbox/src/node/scheduler/framework.js';
import {
  defaultProfile,
  schedulePod,
} from '../packages/sandbox/src/node/scheduler/schedule-one.js';
import { SimulatedScheduler } from '../packages/sandbox/src/node/scheduler/scheduler.js';

const nodes = Number(process.env.BENCH_NODES ?? 100);
const replicas = Number(process.env.BENCH_REPLICAS ?? 50);
const schedulerPods = Number(process.env.BENCH_PODS ?? 5000);
const podStartDelay = Number(process.env.BENCH_START_MS ?? 1000);
const podReadyDelay = Number(process.env.BENCH_READY_MS ?? 1000);
const podStopDelay = Number(process.env.BENCH_STOP_MS ?? 500);
const maxUnavailablePercent = 10;
const only = (process.env.BENCH_CASES ?? 'daemonset,statefulset,scheduler').split(',');

const isReady = (p: Pod): boolean =>
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The pods of one namespace as a watch shows them, and waits for a condition on them. */
class PodWatch {
  readonly pods = new Map<string, Pod>();
  /** Every pod name in the order the watch first showed it. */
  readonly added: string[] = [];
  /** The most pods seen not Ready at once (deleted ones count) since the last reset. */
  mostUnready = 0;
  /** When each pod (by uid) was first seen, first seen bound, and first seen Ready, in performance.now() ms. */
  readonly times = new Map<string, { added: number; bound?: number; ready?: number }>();
  #waiters: { cond: () => boolean; resolve: () => void }[] = [];
  #done: Promise<void> = Promise.resolve();

  async start(client: ResourceClient<Pod>, signal: AbortSignal): Promise<void> {
    const list = await client.list();
    for (const p of list.items) this.pods.set(p.metadata?.name ?? '', p);
    const events = await client.watch({ resourceVersion: list.metadata.resourceVersion, signal });
    this.#done = (async () => {
      for await (const e of events) {
        if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') continue;
        const name = e.object.metadata?.name ?? '';
        if (e.type === 'ADDED') {
          this.added.push(name);
          this.pods.set(name, e.object);
        } else if (e.type === 'MODIFIED') this.pods.set(name, e.object);
        else this.pods.delete(name);
        const uid = e.object.metadata?.uid ?? name;
        const now = performance.now();
        let t = this.times.get(uid);
        if (t === undefined && e.type !== 'DELETED') this.times.set(uid, (t = { added: now }));
        if (t !== undefined) {
          if (t.bound === undefined && e.object.spec?.nodeName) t.bound = now;
          if (t.ready === undefined && isReady(e.object)) t.ready = now;
        }
        this.mostUnready = Math.max(
          this.mostUnready,
          [...this.pods.values()].filter((p) => !isReady(p) || p.metadata?.deletionTimestamp)
            .length,
        );
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.cond()) return true;
          w.resolve();
          return false;
        });
      }
    })().catch(() => {});
  }

  /** How many pods were created since `start` (by uid, as the watch first showed them). */
  createdSince(start: number): number {
    return [...this.times.values()].filter((t) => t.added >= start).length;
  }

  /**
   * For the pods first seen since `start`: when the first and the last of
   * them were created, the last bound, the first and the last Ready, in
   * seconds after `start`: where a case's time went.
   */
  timeline(start: number): string {
    const ts = [...this.times.values()].filter((t) => t.added >= start);
    const at = (pick: (t: (typeof ts)[number]) => number | undefined, last: boolean) => {
      const v = ts.map(pick).filter((x): x is number => x !== undefined);
      if (v.length === 0) return '-';
      return `${(((last ? Math.max : Math.min)(...v) - start) / 1000).toFixed(2)} s`;
    };
    return [
      `first pod created at ${at((t) => t.added, false)}`,
      `last created ${at((t) => t.added, true)}`,
      `last bound ${at((t) => t.bound, true)}`,
      `first Ready ${at((t) => t.ready, false)}`,
      `last Ready ${at((t) => t.ready, true)}`,
    ].join(', ');
  }

  until(cond: (pods: Pod[]) => boolean): Promise<void> {
    const check = () => cond([...this.pods.values()]);
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ cond: check, resolve }));
  }

  async stopped(): Promise<void> {
    await this.#done;
  }
}

/** What one timed case measured. */
interface Timed {
  name: string;
  ms: number;
  boundMs: number;
  boundText: string;
  pods: number;
  /** Pods the watch saw created during the case. */
  created: number;
  requests: Record<string, number>;
  note?: string;
}

/** A sandbox with simulated nodes on the real clock, a counted client source, a pod watch and an event broadcaster. */
async function harness(nodeCount: number): Promise<{
  sandbox: Sandbox;
  factory: SharedInformerFactory;
  counted: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  watch: PodWatch;
  broadcaster: ReturnType<typeof newBroadcaster>;
  stop: AbortController;
  close(): Promise<void>;
}> {
  const sandbox = await startSandbox({
    insecureHttp: true,
    nodes: nodeCount,
    podStartDelay,
    podReadyDelay,
    podStopDelay,
  });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const counted = <T extends KubeObject>(group: string, resource: string) =>
    sandbox.client<T>(group, resource, { faults: true });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      counted<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0);
  const broadcaster = newBroadcaster({ signal: stop.signal });
  broadcaster.startRecordingToSink(new EventSinkImpl(counted('', 'events')));
  const watch = new PodWatch();
  await watch.start(sandbox.client<Pod>('', 'pods').inNamespace('default'), stop.signal);
  return {
    sandbox,
    factory,
    counted,
    watch,
    broadcaster,
    stop,
    async close() {
      stop.abort();
      await factory.shutdown();
      broadcaster.shutdown();
      await watch.stopped();
      await sandbox.stop();
    },
  };
}

/** Waits until the controller's informers have listed, then clears the request counts. */
async function ready(h: Awaited<ReturnType<typeof harness>>): Promise<void> {
  await h.factory.waitForCacheSync(h.stop.signal);
  await new Promise((r) => setTimeout(r, 200));
  h.sandbox.faults.resetCounts();
}

/**
 * The DaemonSet create case without a controller: the bench creates one pod
 * per node itself, pinned as a daemon pod is (required node affinity on the
 * node's name), 16 requests in flight: what the sandbox's scheduler and
 * kubelets take for the same pods.
 */
async function bareDaemonPods(): Promise<Timed> {
  const h = await harness(nodes);
  try {
    h.sandbox.faults.resetCounts();
    const pods = h.counted<Pod>('', 'pods').inNamespace('default');
    const start = performance.now();
    let next = 1;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next <= nodes) {
          const node = `node-${next++}`;
          await pods.create({
            metadata: { generateName: 'bare-', labels: { app: 'bare' } },
            spec: {
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                      {
                        matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }],
                      },
                    ],
                  },
                },
              },
              tolerations: [{ operator: 'Exists' }],
              containers: [{ name: 'agent', image: 'agent:1' }],
            },
          });
        }
      }),
    );
    await h.watch.until(
      (all) =>
        all.length === nodes &&
        all.every(isReady) &&
        new Set(all.map((p) => p.spec?.nodeName)).size === nodes,
    );
    const ms = performance.now() - start;
    process.stderr.write(`bare daemon pods: ${ms.toFixed(0)} ms\n`);
    return {
      name: `bare: ${nodes} pods, one per node, no controller`,
      ms,
      boundMs: podStartDelay + podReadyDelay,
      boundText: 'start + ready',
      pods: nodes,
      created: h.watch.createdSince(start),
      requests: h.sandbox.faults.counts(),
      note: h.watch.timeline(start),
    };
  } finally {
    await h.close();
  }
}

async function daemonSetCases(): Promise<Timed[]> {
  const h = await harness(nodes);
  try {
    const controller = new DaemonSetsController({
      daemonSets: h.factory.daemonSets(),
      controllerRevisions: h.factory.controllerRevisions(),
      pods: h.factory.pods(),
      nodes: h.factory.nodes(),
      client: {
        daemonSets: h.counted<DaemonSet>('apps', 'daemonsets'),
        controllerRevisions: h.counted<ControllerRevision>('apps', 'controllerrevisions'),
        pods: h.counted<Pod>('', 'pods'),
      },
      recorder: h.broadcaster.newRecorder({ component: 'daemonset-controller' }),
    });
    h.factory.start(h.stop.signal);
    const running = controller.run(concurrentDaemonSetSyncs, h.stop.signal);
    await ready(h);
    const sets = h.sandbox.client<DaemonSet>('apps', 'daemonsets').inNamespace('default');
    const image = (tag: string) => (p: Pod) => p.spec?.containers[0]?.image === `agent:${tag}`;
    const everywhere = (tag: string) => (pods: Pod[]) => {
      if (pods.length !== nodes) return false;
      const on = new Set<string>();
      for (const p of pods) {
        if (!image(tag)(p) || !isReady(p) || p.metadata?.deletionTimestamp) return false;
        on.add(p.spec?.nodeName ?? '');
      }
      return on.size === nodes;
    };
    const statusCaughtUp = async () => {
      for (;;) {
        const ds = await sets.get('agent');
        const s = ds.status;
        if (
          s?.observedGeneration === ds.metadata?.generation &&
          s?.updatedNumberScheduled === nodes &&
          s?.numberAvailable === nodes &&
          s?.numberReady === nodes
        )
          return;
        await new Promise((r) => setTimeout(r, 5));
      }
    };

    const results: Timed[] = [];
    let start = performance.now();
    await sets.create({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: `${maxUnavailablePercent}%` },
        },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: {
            tolerations: [
              {
                key: 'node-role.kubernetes.io/control-plane',
                operator: 'Exists',
                effect: 'NoSchedule',
              },
            ],
            containers: [{ name: 'agent', image: 'agent:1' }],
          },
        },
      },
    });
    await h.watch.until(everywhere('1'));
    let ms = performance.now() - start;
    await statusCaughtUp();
    const createStatusMs = performance.now() - start;
    results.push({
      name: `DaemonSet create, ${nodes} nodes`,
      ms,
      boundMs: podStartDelay + podReadyDelay,
      boundText: 'start + ready',
      pods: nodes,
      created: h.watch.createdSince(start),
      requests: h.sandbox.faults.counts(),
      note: `${h.watch.timeline(start)}; status caught up at ${(createStatusMs / 1000).toFixed(2)} s`,
    });
    process.stderr.write(`DaemonSet create: ${ms.toFixed(0)} ms\n`);

    await new Promise((r) => setTimeout(r, 500));
    h.sandbox.faults.resetCounts();
    h.watch.mostUnready = 0;
    const waves = Math.ceil(nodes / Math.floor((nodes * maxUnavailablePercent) / 100));
    start = performance.now();
    const ds = await sets.get('agent');
    ds.spec!.template.spec!.containers[0]!.image = 'agent:2';
    await sets.update(ds);
    await h.watch.until(everywhere('2'));
    ms = performance.now() - start;
    await statusCaughtUp();
    const updateStatusMs = performance.now() - start;
    results.push({
      name: `DaemonSet rolling update, maxUnavailable ${maxUnavailablePercent}%`,
      ms,
      boundMs: waves * (podStopDelay + podStartDelay + podReadyDelay),
      boundText: `${waves} × (stop + start + ready)`,
      pods: nodes,
      created: h.watch.createdSince(start),
      requests: h.sandbox.faults.counts(),
      note: `${h.watch.timeline(start)}; at most ${h.watch.mostUnready} pods not Ready at once; status caught up at ${(updateStatusMs / 1000).toFixed(2)} s`,
    });
    process.stderr.write(`DaemonSet rolling update: ${ms.toFixed(0)} ms\n`);
    h.stop.abort();
    await running;
    return results;
  } finally {
    await h.close();
  }
}

async function statefulSetCase(policy: 'OrderedReady' | 'Parallel'): Promise<Timed> {
  const h = await harness(nodes);
  try {
    const controller = new StatefulSetController({
      pods: h.factory.pods(),
      statefulSets: h.factory.statefulSets(),
      controllerRevisions: h.factory.controllerRevisions(),
      client: {
        statefulSets: h.counted<StatefulSet>('apps', 'statefulsets'),
        pods: h.counted<Pod>('', 'pods'),
        persistentVolumeClaims: h.counted<PersistentVolumeClaim>('', 'persistentvolumeclaims'),
        controllerRevisions: h.counted<ControllerRevision>('apps', 'controllerrevisions'),
      },
      recorder: h.broadcaster.newRecorder({ component: 'statefulset-controller' }),
    });
    h.factory.start(h.stop.signal);
    const running = controller.run(concurrentStatefulSetSyncs, h.stop.signal);
    await ready(h);
    const sets = h.sandbox.client<StatefulSet>('apps', 'statefulsets').inNamespace('default');
    const start = performance.now();
    await sets.create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web' },
      spec: {
        replicas,
        serviceName: 'web',
        podManagementPolicy: policy,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    await h.watch.until(
      (pods) => pods.length === replicas && pods.every((p) => isReady(p) && p.spec?.nodeName),
    );
    const ms = performance.now() - start;
    const ordinals = h.watch.added.map((n) => Number(n.split('-').at(-1)));
    const inOrder = ordinals.every((o, i) => o === i);
    process.stderr.write(`StatefulSet ${policy}: ${ms.toFixed(0)} ms\n`);
    const result: Timed = {
      name: `StatefulSet 0 → ${replicas}, ${policy}`,
      ms,
      boundMs: (policy === 'OrderedReady' ? replicas : 1) * (podStartDelay + podReadyDelay),
      boundText: policy === 'OrderedReady' ? `${replicas} × (start + ready)` : 'start + ready',
      pods: replicas,
      created: h.watch.createdSince(start),
      requests: h.sandbox.faults.counts(),
      note: `${h.watch.timeline(start)}; pods created in ordinal order: ${inOrder ? 'yes' : 'no'}`,
    };
    h.stop.abort();
    await running;
    return result;
  } finally {
    await h.close();
  }
}

/** A Node as a simulated node registers it (4 CPUs, 16 GiB, 110 pods), Ready. */
function nodeObject(i: number): Node {
  const name = `node-${i}`;
  const capacity = { cpu: '4', memory: '16777216Ki', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
    spec: {},
    status: {
      capacity,
      allocatable: capacity,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    },
  };
}

/** A pod of the scheduler cases: one container with small requests, so that scores differ. */
function pendingPod(i: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, namespace: 'default', labels: { app: 'load' } },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'busybox:1.36',
          resources: { requests: { cpu: `${10 + (i % 5) * 10}m`, memory: '32Mi' } },
        },
      ],
    },
  };
}

/** Creates `count` pods, `inFlight` at a time; the time it took. */
async function createPods(client: ResourceClient<Pod>, count: number, inFlight = 16) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await client.create(pendingPod(next++));
    }),
  );
  return performance.now() - start;
}

interface SchedulerRun {
  createMs: number;
  backlogMs: number;
  backlogFirstToLastMs: number;
  liveCreateMs: number;
  liveBoundMs: number;
  pureMs: number;
  pureWithoutInterPodMs: number;
  cacheMs: number;
  nodeInfosMs: number;
}

async function schedulerCases(): Promise<SchedulerRun> {
  // The create rate, and the backlog: a sandbox without nodes, then a scheduler of our own.
  const sandbox = await startSandbox({ insecureHttp: true });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  let createMs: number;
  let backlogMs: number;
  let backlogFirstToLastMs: number;
  try {
    const pods = sandbox.client<Pod>('', 'pods');
    createMs = await createPods(pods.inNamespace('default'), schedulerPods);
    process.stderr.write(`create rate: ${schedulerPods} pods in ${createMs.toFixed(0)} ms\n`);
    const nodeClient = sandbox.client<Node>('', 'nodes');
    for (let i = 1; i <= nodes; i++) await nodeClient.create(nodeObject(i));
    const binder = inProcessPodBinder(sandbox.registry);
    let bound = 0;
    let first = 0;
    let last = 0;
    let allBound: () => void = () => {};
    const done = new Promise<void>((r) => (allBound = r));
    const scheduler = new SimulatedScheduler({
      pods,
      nodes: nodeClient,
      binder: {
        async bind(b: Binding) {
          await binder.bind(b);
          last = performance.now();
          if (bound++ === 0) first = last;
          if (bound === schedulerPods) allBound();
        },
      },
      events: new EventRecorder(sandbox.client('', 'events'), realClock),
      clock: realClock,
    });
    const start = performance.now();
    const running = scheduler.run(stop.signal);
    await done;
    backlogMs = last - start;
    backlogFirstToLastMs = last - first;
    process.stderr.write(`scheduler on a backlog: ${backlogMs.toFixed(0)} ms\n`);
    stop.abort();
    await running;
  } finally {
    stop.abort();
    await sandbox.stop();
  }

  // Live: 100 simulated nodes, pods created at the create rate.
  const live = await startSandbox({
    insecureHttp: true,
    nodes,
    podStartDelay: 3_600_000,
    podReadyDelay,
  });
  const liveStop = new AbortController();
  let liveCreateMs: number;
  let liveBoundMs: number;
  try {
    const pods = live.client<Pod>('', 'pods').inNamespace('default');
    let bound = 0;
    let allBound: () => void = () => {};
    const done = new Promise<void>((r) => (allBound = r));
    const seen = new Set<string>();
    const events = await pods.watch({ resourceVersion: '0', signal: liveStop.signal });
    const watching = (async () => {
      for await (const e of events) {
        if (e.type !== 'ADDED' && e.type !== 'MODIFIED') continue;
        const name = e.object.metadata?.name ?? '';
        if (e.object.spec?.nodeName && !seen.has(name)) {
          seen.add(name);
          if (++bound === schedulerPods) allBound();
        }
      }
    })().catch(() => {});
    const start = performance.now();
    liveCreateMs = await createPods(pods, schedulerPods);
    await done;
    liveBoundMs = performance.now() - start;
    process.stderr.write(
      `live: created in ${liveCreateMs.toFixed(0)} ms, bound in ${liveBoundMs.toFixed(0)} ms\n`,
    );
    liveStop.abort();
    await watching;
  } finally {
    liveStop.abort();
    await live.stop();
  }

  // schedulePod alone over NodeInfos, and through the scheduler's cache.
  const profile = defaultProfile();
  const podsToPlace = Array.from({ length: schedulerPods }, (_, i) => {
    const p = pendingPod(i);
    return { ...p, metadata: { ...p.metadata, uid: `uid-${i}` } };
  });
  const time = (run: () => void) => {
    const start = performance.now();
    run();
    return performance.now() - start;
  };
  // The same without InterPodAffinity, whose PreFilter reads every pod on every node.
  const withoutInterPod = {
    filters: profile.filters.filter((f) => f.name !== 'InterPodAffinity'),
    scores: profile.scores,
  };
  const pure = (use = profile) => {
    const infos = Array.from({ length: nodes }, (_, i) => new NodeInfo(nodeObject(i + 1)));
    const byName = new Map(infos.map((n) => [n.name, n]));
    return time(() => {
      for (const pod of podsToPlace) {
        const r = schedulePod(pod, infos, { profile: use });
        if (!('node' in r)) throw new Error('a pod did not fit');
        byName
          .get(r.node)!
          .addPod(newPodInfo({ ...pod, spec: { ...pod.spec!, nodeName: r.node } }));
      }
    });
  };
  const cached = () => {
    const cache = new SchedulerCache();
    for (let i = 1; i <= nodes; i++) cache.setNode(nodeObject(i));
    return time(() => {
      for (const pod of podsToPlace) {
        const r = schedulePod(pod, cache.nodeInfos(), { profile });
        if (!('node' in r)) throw new Error('a pod did not fit');
        cache.assumePod(pod, r.node);
      }
    });
  };
  // The cache's nodeInfos() alone, as often as the decisions call it.
  const sortOnly = () => {
    const cache = new SchedulerCache();
    for (let i = 1; i <= nodes; i++) cache.setNode(nodeObject(i));
    return time(() => {
      for (let i = 0; i < schedulerPods; i++) cache.nodeInfos();
    });
  };
  pure();
  cached(); // warm-up
  const best = (f: () => number) => Math.min(f(), f(), f());
  return {
    createMs,
    backlogMs,
    backlogFirstToLastMs,
    liveCreateMs,
    liveBoundMs,
    pureMs: best(() => pure()),
    pureWithoutInterPodMs: best(() => pure(withoutInterPod)),
    cacheMs: best(cached),
    nodeInfosMs: best(sortOnly),
  };
}

// ---- run and print ----

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadBefore = load();
const timed: Timed[] = [];
if (only.includes('daemonset')) {
  timed.push(await bareDaemonPods());
  timed.push(...(await daemonSetCases()));
}
if (only.includes('statefulset')) {
  timed.push(await statefulSetCase('OrderedReady'));
  timed.push(await statefulSetCase('Parallel'));
}
const sched = only.includes('scheduler') ? await schedulerCases() : undefined;

const total = (r: Record<string, number>, match: (k: string) => boolean = () => true) =>
  Object.entries(r)
    .filter(([k]) => match(k))
    .reduce((n, [, v]) => n + v, 0);
console.log(
  `Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadBefore} before the run and ${load()} after it.`,
);
console.log('');
if (timed.length > 0) {
  console.log(
    `Pods start ${podStartDelay} ms after they are bound, are Ready ${podReadyDelay} ms later, and stop ${podStopDelay} ms after they are deleted; ${nodes} simulated nodes.`,
  );
  console.log('');
  console.log(
    '| case | time | bound | ÷ bound | pods created/pod | create requests/pod | API requests/pod |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of timed) {
    console.log(
      `| ${[
        r.name,
        `${(r.ms / 1000).toFixed(2)} s`,
        `${r.boundText} = ${(r.boundMs / 1000).toFixed(2)} s`,
        (r.ms / r.boundMs).toFixed(2),
        (r.created / r.pods).toFixed(2),
        (total(r.requests, (k) => k === 'create pods') / r.pods).toFixed(2),
        (
          total(r.requests, (k) => !k.startsWith('watch') && !k.startsWith('list')) / r.pods
        ).toFixed(2),
      ].join(' | ')} |`,
    );
  }
  console.log('');
  for (const r of timed) {
    const byKind = Object.entries(r.requests)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`);
    console.log(`${r.name}: ${r.note ?? ''}; requests: ${byKind.join(', ')}`);
  }
}
if (sched !== undefined) {
  const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString('en-US');
  console.log('');
  console.log(`Scheduler, ${nodes} nodes, ${schedulerPods} pods:`);
  console.log('');
  console.log('| case | time | pods/s | ÷ create rate |');
  console.log('|---|---|---|---|');
  const row = (name: string, ms: number) =>
    console.log(
      `| ${name} | ${(ms / 1000).toFixed(2)} s | ${rate(schedulerPods, ms)} | ${(sched.createMs / ms).toFixed(2)} |`,
    );
  row('sandbox create rate (no nodes, 16 in flight)', sched.createMs);
  row('SimulatedScheduler on the backlog, start to last binding', sched.backlogMs);
  row('SimulatedScheduler on the backlog, first to last binding', sched.backlogFirstToLastMs);
  row(`live: ${nodes} simulated nodes, creates`, sched.liveCreateMs);
  row(`live: ${nodes} simulated nodes, first create to last bound`, sched.liveBoundMs);
  row('schedulePod alone over NodeInfos', sched.pureMs);
  row('schedulePod through SchedulerCache.nodeInfos()', sched.cacheMs);
  row('schedulePod alone, InterPodAffinity left out', sched.pureWithoutInterPodMs);
  row('SchedulerCache.nodeInfos() alone, once per pod', sched.nodeInfosMs);
}
