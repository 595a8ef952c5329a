// How close does the ReplicaSet controller come to what the API server allows?
//
// The sandbox runs in this process over HTTPS with simulated nodes whose pods
// start and become ready after short delays; the controller (with its
// informers and its event broadcaster) talks to it over HTTPS through
// @kcm-ts/client, as kube-controller-manager talks to kube-apiserver. The
// bench's own reads and writes go through the sandbox's in-process client,
// so every HTTP request counted is the controller's.
//
// Baselines, in the same run. A bare client creates the same number of
// pods as fast as the API server takes them (up to 200 in flight,
// kube-apiserver's default cap on mutating requests), first in a sandbox
// without nodes (the API server's own create rate, R0), then in a sandbox
// set up like the controller's (same nodes, same delays: the rate R it
// sustains while its nodes run the pods). The bound for N pods to be ready
// is N / R + podStartDelay + podReadyDelay: the last pod cannot be created
// sooner, nor be ready sooner after it. The simulated nodes share the
// process with the API server, so R is well under R0; the bound with R0 is
// printed too, and cannot be reached while the nodes take their share.
//
// Cases:
//   - one ReplicaSet scaled 0 → 1,000 (BENCH_PODS);
//   - 100 ReplicaSets of 10 created at once (BENCH_SETS × BENCH_SET_SIZE).
// Printed per case: creates per pod (goal 1.00), API requests per pod, the
// slow-start batches the API server saw, and the time to all ready against
// the bound (goal ≤ 1.2×).
import { setMaxListeners } from 'node:events';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { EventSinkImpl, newBroadcaster, type ResourceClient } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { ReplicaSetController, concurrentRSSyncs } from '@kcm-ts/replicaset';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

const pods = Number(process.env.BENCH_PODS ?? 1000);
const sets = Number(process.env.BENCH_SETS ?? 100);
const setSize = Number(process.env.BENCH_SET_SIZE ?? 10);
const nodes = Number(process.env.BENCH_NODES ?? 10);
const workers = Number(process.env.BENCH_WORKERS ?? concurrentRSSyncs); // kube-controller-manager's 5
const podStartDelay = 100;
const podReadyDelay = 100;
const mutatingInFlight = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
});

/** A bare pod labelled `app`, named or with a generated name. */
const barePod = (app: string, meta: { name?: string; generateName?: string }): Pod => ({
  metadata: { ...meta, labels: { app } },
  spec: podTemplate(app).spec,
});

const replicaSet = (name: string, replicas: number): ReplicaSet => ({
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name) },
});

/** What a bare client gets from a sandbox: its create rate, and the time until all pods are ready. */
interface Bare {
  createsPerSecond: number;
  readyMs: number;
}

/**
 * Creates `n` pods with a bare client, at most `mutatingInFlight` in flight,
 * in a sandbox with `withNodes` nodes, and times the creates and, with
 * nodes, the time until every pod is ready.
 */
async function bare(n: number, withNodes: number): Promise<Bare> {
  const sandbox = await startSandbox({ nodes: withNodes, podStartDelay, podReadyDelay });
  const stop = new AbortController();
  try {
    const client = createClient(sandbox.kubeconfigObject).pods.inNamespace('default');
    // Warm the connections and the code paths first.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.create(barePod('warm', { name: `warm-${i}` }))),
    );
    // Count the bare pods that become ready from an in-process watch: cheaper
    // than listing a thousand pods again and again.
    const local = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const list = await local.list({ labelSelector: 'app=bare' });
    const events = await local.watch({
      labelSelector: 'app=bare',
      resourceVersion: list.metadata.resourceVersion,
      signal: stop.signal,
    });
    const allReady = (async () => {
      const ready = new Set<string>();
      for await (const e of events) {
        if (e.type === 'MODIFIED' && isReady(e.object)) ready.add(e.object.metadata?.name ?? '');
        if (ready.size === n) return performance.now();
      }
      return NaN;
    })();
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: mutatingInFlight }, async () => {
        while (next < n) {
          next++;
          await client.create(barePod('bare', { generateName: 'bare-' }));
        }
      }),
    );
    const createMs = performance.now() - start;
    const readyAt = withNodes > 0 ? await allReady : NaN;
    return { createsPerSecond: n / (createMs / 1000), readyMs: readyAt - start };
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

const isReady = (p: Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** One slow-start batch: the creates of one ReplicaSet in flight together. */
interface Batch {
  owner: string;
  size: number;
  failed: number;
}

/** Wraps the controller's pods client so that its creates are grouped into batches, per owner. */
function batching(inner: ResourceClient<Pod>, batches: Batch[]): ResourceClient<Pod> {
  const open = new Map<string, { batch: Batch; inFlight: number }>();
  const wrap = (target: ResourceClient<Pod>): ResourceClient<Pod> =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, prop);
        if (prop !== 'create' || typeof value !== 'function') return value;
        return async (pod: Pod, ...rest: unknown[]) => {
          const owner = pod.metadata?.ownerReferences?.[0]?.name ?? '';
          let o = open.get(owner);
          if (o === undefined || o.inFlight === 0) {
            o = { batch: { owner, size: 0, failed: 0 }, inFlight: 0 };
            open.set(owner, o);
            batches.push(o.batch);
          }
          const mine = o;
          mine.batch.size++;
          mine.inFlight++;
          try {
            return await (value as (...a: unknown[]) => Promise<Pod>).apply(t, [pod, ...rest]);
          } catch (err) {
            mine.batch.failed++;
            throw err;
          } finally {
            mine.inFlight--;
          }
        };
      },
    });
  return wrap(inner);
}

interface Run {
  ms: number;
  requests: Map<string, number>;
  batches: Batch[];
}

/** Starts a sandbox and the controller, runs `scenario`, and measures it until `done` holds. */
async function measure(
  setup: (s: Sandbox) => Promise<void>,
  scenario: (s: Sandbox) => Promise<void>,
  done: (s: Sandbox) => Promise<boolean>,
): Promise<Run> {
  let counting = false;
  const requests = new Map<string, number>();
  const sandbox = await startSandbox({
    nodes,
    podStartDelay,
    podReadyDelay,
    onRequest: (method, url, code) => {
      if (!counting) return;
      const path = url.split('?')[0] ?? '';
      const watch = /[?&]watch=(true|1)/.test(url);
      const resource = /\/(pods|replicasets|events)(\/[^/]+)?(\/status)?$/.exec(path);
      const failed = code >= 300 ? ` (${code})` : '';
      const key = `${watch ? 'WATCH' : method} ${resource ? `${resource[1]}${resource[3] ?? ''}` : path}${failed}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
    },
  });
  const stop = new AbortController();
  const batches: Batch[] = [];
  try {
    const client = createClient(sandbox.kubeconfigObject);
    // Every request of a sync listens to this signal: hundreds at once, by design.
    setMaxListeners(0, stop.signal);
    const broadcaster = newBroadcaster({ signal: stop.signal });
    broadcaster.startRecordingToSink(new EventSinkImpl(client.events));
    const factory = new SharedInformerFactory(client, 0);
    const controller = new ReplicaSetController({
      replicaSets: factory.replicaSets(),
      pods: factory.pods(),
      client: { replicaSets: client.replicaSets, pods: batching(client.pods, batches) },
      recorder: broadcaster.newRecorder({ component: 'replicaset-controller' }),
    });
    factory.start(stop.signal);
    const running = controller.run(workers, stop.signal);
    await setup(sandbox);
    batches.length = 0;
    counting = true;
    const start = performance.now();
    await scenario(sandbox);
    while (!(await done(sandbox))) await sleep(10);
    const ms = performance.now() - start;
    counting = false;
    stop.abort();
    await running;
    await factory.shutdown();
    broadcaster.shutdown();
    return { ms, requests, batches };
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

const rsClient = (s: Sandbox) => s.client<ReplicaSet>('apps', 'replicasets').inNamespace('default');
const ready = (rs: ReplicaSet | undefined, n: number) =>
  rs?.status?.readyReplicas === n && rs.status.replicas === n;

/** `1 2 4 8 ... (3 refused)` for the batches of one ReplicaSet, syncs apart by `|`. */
function shapes(batches: Batch[]): string[] {
  const out: string[] = [];
  let line: number[] = [];
  for (const b of batches) {
    if (line.length > 0 && b.size <= (line.at(-1) ?? 0) && b.size === 1) {
      out.push(line.join(' '));
      line = [];
    }
    line.push(b.size);
  }
  if (line.length > 0) out.push(line.join(' '));
  return out;
}

const apiOnly = await bare(pods, 0);
process.stderr.write(`bare, no nodes: ${apiOnly.createsPerSecond.toFixed(0)} creates/s\n`);
const baseline = await bare(pods, nodes);
process.stderr.write(
  `bare, ${nodes} nodes: ${baseline.createsPerSecond.toFixed(0)} creates/s, all ready in ${baseline.readyMs.toFixed(0)} ms\n`,
);
/** The bound for `n` pods: created at the bare rate `perSecond`, the last one then started and ready. */
const bound = (n: number, perSecond = baseline.createsPerSecond) =>
  (n / perSecond) * 1000 + podStartDelay + podReadyDelay;

const one = await measure(
  async (s) => {
    await rsClient(s).create(replicaSet('web', 0));
    while (!(await rsClient(s).get('web')).status?.observedGeneration) await sleep(10);
  },
  async (s) => {
    await rsClient(s).patch('web', { type: 'merge', body: { spec: { replicas: pods } } });
  },
  async (s) => ready(await rsClient(s).get('web'), pods),
);
process.stderr.write(`one ReplicaSet of ${pods}: ${one.ms.toFixed(0)} ms\n`);

const many = await measure(
  async () => {},
  async (s) => {
    await Promise.all(
      Array.from({ length: sets }, (_, i) => rsClient(s).create(replicaSet(`web-${i}`, setSize))),
    );
  },
  async (s) => (await rsClient(s).list()).items.every((rs) => ready(rs, setSize)),
);
process.stderr.write(`${sets} ReplicaSets of ${setSize}: ${many.ms.toFixed(0)} ms\n`);

const total = (r: Run, match: (k: string) => boolean = () => true) =>
  [...r.requests].filter(([k]) => match(k)).reduce((n, [, v]) => n + v, 0);
const row = (name: string, n: number, r: Run, batchText: string) => {
  const creates = total(r, (k) => k.startsWith('POST pods'));
  const refused = r.batches.reduce((k, b) => k + b.failed, 0);
  const withNodes = bound(n);
  const apiAlone = bound(n, apiOnly.createsPerSecond);
  return [
    name,
    `${(creates / n).toFixed(2)}${refused > 0 ? ` (${refused} refused)` : ''}`,
    (total(r) / n).toFixed(2),
    batchText,
    `${(r.ms / 1000).toFixed(2)} s`,
    `${(withNodes / 1000).toFixed(2)} s`,
    (r.ms / withNodes).toFixed(2),
    `${(apiAlone / 1000).toFixed(2)} s`,
    (r.ms / apiAlone).toFixed(2),
  ].join(' | ');
};

const manyShapes = new Map<string, number>();
for (const owner of new Set(many.batches.map((b) => b.owner))) {
  const s = shapes(many.batches.filter((b) => b.owner === owner)).join(' | ');
  manyShapes.set(s, (manyShapes.get(s) ?? 0) + 1);
}
console.log(
  `bare client, ${pods} pods, up to ${mutatingInFlight} creates in flight: ${apiOnly.createsPerSecond.toFixed(0)} creates/s without nodes; ` +
    `${baseline.createsPerSecond.toFixed(0)} creates/s with ${nodes} nodes running them, all ready ${(baseline.readyMs / 1000).toFixed(2)} s after the first create`,
);
console.log(
  `pods start ${podStartDelay} ms after they are scheduled and are ready ${podReadyDelay} ms later; bound = pods / creates/s + ${podStartDelay + podReadyDelay} ms`,
);
console.log('');
console.log(
  '| case | creates/pod | API requests/pod | slow-start batches | all ready | bound (R, with nodes) | ratio | bound (R0, API alone) | ratio |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
const oneBatches = shapes(one.batches).join(' \\| ');
const manyBatches = [...manyShapes].map(([s, k]) => `${k} × ${s}`).join('; ');
console.log(`| ${row(`1 ReplicaSet, 0 → ${pods}`, pods, one, oneBatches)} |`);
console.log(`| ${row(`${sets} ReplicaSets × ${setSize}`, sets * setSize, many, manyBatches)} |`);
console.log('');
for (const [name, r] of [
  ['1 ReplicaSet', one],
  [`${sets} ReplicaSets`, many],
] as const) {
  const byKind = [...r.requests].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
  console.log(`${name}, requests: ${byKind.join(', ')}`);
}
