// How close does a rollout come to the time its strategy allows, what does
// it write, and what memory do the controllers keep?
//
// The sandbox API server (in this process, no HTTP: in-process clients) with
// one simulated node, one informer factory, and the Deployment and ReplicaSet
// controllers with kube-controller-manager's 5 workers each, on the real
// clock. Each pod takes START_MS to start and READY_MS more to become ready
// (the sandbox's podStartDelay and podReadyDelay). N Deployments of 10
// replicas (default strategy: maxSurge 25% → 3, maxUnavailable 25% → 2) are
// rolled out, then all changed to a new image at once.
//
//   - time: from the image changes until every Deployment reports the
//     rollout complete, as a ratio to the bound the strategy allows. Pods are
//     replaced in waves of maxSurge + maxUnavailable, each lasting one pod's
//     time to Ready, so the bound is ceil(10 / (3 + 2)) = 2 waves of
//     START_MS + READY_MS; the Deployments roll in parallel, so it does not
//     grow with N. (tutorials/06-deployment, examples/03-arithmetic.ts,
//     checks on a fake clock that one rollout meets it exactly.)
//   - writes: every create, update and delete the two controllers send,
//     counted by a wrapper around their clients, per replaced pod.
//   - memory: heap used after a full GC with the controllers running and
//     after they and their informers are stopped (the difference is what
//     they keep), and the peak heap sampled every 20 ms during the rollout,
//     over the heap after GC just before it. The server shares the process,
//     so the peak includes its garbage too.
// Run with --expose-gc (npm run bench:deployment -w bench).
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { DeploymentController } from '@kcm-ts/deployment';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { ReplicaSetController } from '@kcm-ts/replicaset';
import { startSandbox } from '@kcm-ts/sandbox';
import { performance } from 'node:perf_hooks';

const deploymentsCount = Number(process.env.BENCH_DEPLOYMENTS ?? 100);
const startMs = Number(process.env.START_MS ?? 500);
const readyMs = Number(process.env.READY_MS ?? 500);
const replicas = 10;
const waves = Math.ceil(replicas / (3 + 2));
const bound = waves * (startMs + readyMs);

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number): string => `${fmt(bytes / 1024 / 1024, 1)} MB`;

async function heapAfterGC(): Promise<number> {
  await new Promise((r) => setTimeout(r, 200));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Counts every write made through a client, by `verb resource`. */
function counting<T extends KubeObject>(
  inner: ResourceClient<T>,
  resource: string,
  counts: Map<string, number>,
): ResourceClient<T> {
  const writes = new Set(['create', 'update', 'updateStatus', 'patch', 'patchStatus', 'delete']);
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, verb) {
        if (verb === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, verb);
        if (typeof value !== 'function' || typeof verb !== 'string') return value;
        return (...args: unknown[]) => {
          if (writes.has(verb)) {
            const key = `${verb} ${resource}`;
            counts.set(key, (counts.get(key) ?? 0) + 1);
            const p = (value as (...a: unknown[]) => Promise<unknown>).apply(t, args);
            p.catch((e: { code?: number }) => {
              const k = `${key} (${e.code === 409 ? '409 Conflict' : `failed: ${e.code ?? '?'}`})`;
              counts.set(k, (counts.get(k) ?? 0) + 1);
            });
            return p;
          }
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return wrap(inner);
}

function deployment(i: number): Deployment {
  const app = `web-${i}`;
  return {
    metadata: { name: app, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2' }] },
      },
    },
  };
}

const complete = (d: Deployment): boolean => {
  const s = d.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    s.updatedReplicas === replicas &&
    s.replicas === replicas &&
    s.availableReplicas === replicas
  );
};

interface Result {
  n: number;
  ms: number;
  /** CPU time this process used during the rollout (user + system). */
  cpuMs: number;
  writes: Map<string, number>;
  heap?: { before: number; peak: number; withControllers: number; withoutControllers: number };
}

async function rollout(n: number, measureMemory: boolean): Promise<Result> {
  const sandbox = await startSandbox({
    insecureHttp: true,
    nodes: 1,
    podStartDelay: startMs,
    podReadyDelay: readyMs,
  });
  const counts = new Map<string, number>();
  const factory = new SharedInformerFactory(
    {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    },
    0,
  );
  const deployments = counting(
    sandbox.client<Deployment>('apps', 'deployments'),
    'deployments',
    counts,
  );
  const replicaSets = counting(
    sandbox.client<ReplicaSet>('apps', 'replicasets'),
    'replicasets',
    counts,
  );
  const pods = counting(sandbox.client<Pod>('', 'pods'), 'pods', counts);
  const dc = new DeploymentController({
    deployments: factory.deployments(),
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { deployments, replicaSets },
  });
  const rsc = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets, pods },
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const running = Promise.all([dc.run(5, stop.signal), rsc.run(5, stop.signal)]);
  const store = sandbox.registry.storage;
  const allComplete = () => {
    const ds = store.list('deployments.apps') as Deployment[];
    return ds.length === n && ds.every(complete);
  };
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    const client = sandbox.client<Deployment>('apps', 'deployments').inNamespace('default');
    await Promise.all(Array.from({ length: n }, (_, i) => client.create(deployment(i))));
    await until(allComplete);
    // Let the first rollout's last writes land before counting.
    await new Promise((r) => setTimeout(r, 1000));
    const before = measureMemory ? await heapAfterGC() : 0;
    counts.clear();

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 20);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.patch(`web-${i}`, {
          type: 'strategic',
          body: {
            spec: {
              template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.16.1' }] } },
            },
          },
        }),
      ),
    );
    await until(allComplete);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    clearInterval(sampler);
    // The old ReplicaSets' pods finish terminating; their deletes were sent already.
    await new Promise((r) => setTimeout(r, startMs + readyMs + 1000));
    const writes = new Map(counts);

    if (!measureMemory) return { n, ms, cpuMs, writes };
    const withControllers = await heapAfterGC();
    stop.abort();
    await running;
    await factory.shutdown();
    const withoutControllers = await heapAfterGC();
    return { n, ms, cpuMs, writes, heap: { before, peak, withControllers, withoutControllers } };
  } finally {
    stop.abort();
    await running;
    await factory.shutdown();
    await sandbox.stop();
  }
}

const results: Result[] = [];
for (const [n, memory] of [
  [1, false],
  [deploymentsCount, true],
] as const) {
  const r = await rollout(n, memory);
  results.push(r);
  process.stderr.write(`${n} × ${replicas}: ${fmt(r.ms)} ms\n`);
}

console.log(
  `Pods start in ${startMs} ms and are ready ${readyMs} ms later; ${replicas} replicas, maxSurge 3, maxUnavailable 2: bound ${waves} waves × ${startMs + readyMs} ms = ${bound} ms.\n`,
);
console.log(
  '| Deployments | pods replaced | rollout time | bound | time / bound | CPU time of the process |',
);
console.log('|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.n} | ${fmt(r.n * replicas)} | ${fmt(r.ms)} ms | ${fmt(bound)} ms | ${fmt(r.ms / bound, 2)} | ${fmt(r.cpuMs)} ms |`,
  );
}

// The writes the two controllers sent, per replaced pod; the fewest possible
// are 1 create and 1 delete per pod, and for 10 replicas in 2 waves 1 create
// and 5 resizes of ReplicaSets per Deployment (0.6 per pod).
const rows: [string, string, string][] = [
  ['create pods', 'pods: create', 'ReplicaSet'],
  ['delete pods', 'pods: delete', 'ReplicaSet'],
  ['create replicasets', 'ReplicaSets: create', 'Deployment'],
  ['update replicasets', 'ReplicaSets: resize (update)', 'Deployment'],
  ['updateStatus replicasets', 'ReplicaSets: status', 'ReplicaSet'],
  ['updateStatus deployments', 'Deployments: status', 'Deployment'],
];
const known = new Set(rows.map(([key]) => key));
for (const key of new Set(results.flatMap((r) => [...r.writes.keys()]))) {
  if (known.has(key)) continue;
  // Refused writes, such as `updateStatus deployments (409 Conflict)`.
  const base = rows.find(([k]) => key.startsWith(`${k} (`));
  rows.push([
    key,
    base ? `${base[1]}, ${key.slice(base[0].length + 2, -1)}` : key,
    base?.[2] ?? '',
  ]);
}
console.log(
  `\n| writes per replaced pod | by the … controller | 1 Deployment | ${deploymentsCount} Deployments |`,
);
console.log('|---|---|---|---|');
for (const [key, label, by] of rows) {
  const cells = results.map((r) => fmt((r.writes.get(key) ?? 0) / (r.n * replicas), 2));
  console.log(`| ${label} | ${by} | ${cells.join(' | ')} |`);
}
const heap = results.at(-1)?.heap;
if (heap) {
  console.log(
    `\n| heap (${deploymentsCount} Deployments, ${fmt(deploymentsCount * replicas)} pods) | |`,
  );
  console.log('|---|---|');
  console.log(`| after GC, before the rollout | ${mb(heap.before)} |`);
  console.log(`| peak during the rollout | ${mb(heap.peak)} (+${mb(heap.peak - heap.before)}) |`);
  console.log(`| after GC, controllers running | ${mb(heap.withControllers)} |`);
  console.log(`| after GC, controllers and informers stopped | ${mb(heap.withoutControllers)} |`);
  console.log(
    `| kept by the controllers and their informers | ${mb(heap.withControllers - heap.withoutControllers)} |`,
  );
}
