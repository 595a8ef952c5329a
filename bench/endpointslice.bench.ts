// How many EndpointSlice writes does the EndpointSlice controller spend on a
// pod's change, and how soon after the last change are the slices right?
//
// Each run starts a sandbox in this process with no simulated nodes: the
// bench registers the Nodes itself (ten, over three zones), creates the
// pods already bound to them, and writes every pod status itself through
// the API (an IP, phase Running, the Ready condition), so nothing but the
// bench changes a pod. The controller of `@kcm-ts/endpointslice` runs as
// kube-controller-manager runs it: its default 5 workers, a shared
// informer factory over the sandbox's in-process clients, and an event
// broadcaster. Its clients are counted by the sandbox's fault lab (no
// fault is armed), so every request counted is the controller's. The bench
// watches the slices through a client of its own, and a case's slices are
// right when every pod has exactly one endpoint, in a slice of its own
// Service, with the readiness the bench last wrote, and no slice holds more
// than 100 endpoints.
//
// Two shapes, 5,000 pods each (BENCH_PODS):
//   - one Service over all of them: 50 slices of 100;
//   - 1,000 Services of 5 pods (BENCH_SERVICES): 1,000 slices of 5.
// For each: the Service(s) are created and timed until the slices are right
// (slice creates per slice, goal 1.00); then 1,000 readiness flips
// (BENCH_FLIPS), Ready true → false on 1,000 pods spread over the slices,
// written 16 at a time: slice writes per flip (goal ≤ 1.00: never more
// than one slice written for one pod's change) and the time from the last
// flip's write to the slices being right; then 100 of those pods
// (BENCH_PACED) flipped back one at a time, each waited for on the slice
// watch: slice writes per flip (goal 1.00: each change alone costs exactly
// one slice write) and each flip's time from its write to the slice
// showing it.
//
// The yardstick, in the same run, is a bare relay: a fresh sandbox with the
// same pods, no controller, and a client that creates the same slices
// itself and, for each pod change its pod watch shows, rewrites the one
// slice holding that pod: what the sandbox allows with the least work a
// slice writer must do (one watch event in, one write out, nothing
// recomputed).
import { setMaxListeners } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import type { Event as CoreEvent, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import {
  EventSinkImpl,
  newBroadcaster,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { EndpointSliceController, concurrentServiceEndpointSyncs } from '@kcm-ts/endpointslice';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

const podCount = Number(process.env.BENCH_PODS ?? 5000);
const serviceCount = Number(process.env.BENCH_SERVICES ?? 1000);
const flipCount = Number(process.env.BENCH_FLIPS ?? 1000);
const pacedCount = Number(process.env.BENCH_PACED ?? 100);
const nodeCount = 10;
const maxPerSlice = 100;
const inFlight = 16;
const serviceNameLabel = 'kubernetes.io/service-name';
const zones = ['zone-a', 'zone-b', 'zone-c'];

/** One shape of the bench: how the pods are grouped into Services. */
interface Shape {
  name: string;
  services: number;
  /** The Service a pod belongs to, by the pod's index. */
  serviceOf: (i: number) => number;
  /** The slices the Services need. */
  slices: number;
}

const shapes: Shape[] = [
  {
    name: `1 Service of ${podCount.toLocaleString('en-US')} pods`,
    services: 1,
    serviceOf: () => 0,
    slices: Math.ceil(podCount / maxPerSlice),
  },
  {
    name: `${serviceCount.toLocaleString('en-US')} Services of ${podCount / serviceCount} pods`,
    services: serviceCount,
    serviceOf: (i) => i % serviceCount,
    slices: serviceCount * Math.ceil(podCount / serviceCount / maxPerSlice),
  },
];

const podName = (i: number) => `pod-${i}`;
const svcName = (s: number) => `svc-${s}`;
const podIP = (i: number) => `10.1.${(i >> 8) & 255}.${i & 255}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` pod indices spread evenly over `from` (and so over the slices and Services). */
function spread(from: readonly number[], count: number): number[] {
  const n = Math.min(count, from.length);
  return Array.from({ length: n }, (_, k) => from[Math.floor((k * from.length) / n)]!);
}

/** The pods the burst flips. */
const flipped = () =>
  spread(
    Array.from({ length: podCount }, (_, i) => i),
    flipCount,
  );

/** The pods flipped back one at a time: some of the burst's. */
const flippedBack = () => spread(flipped(), pacedCount);

/**
 * The slices of one namespace as a watch shows them, indexed by address:
 * for each IP, the slices that hold it, with the Service they are for and
 * the endpoint's readiness.
 */
class SliceWatch {
  readonly slices = new Map<string, EndpointSlice>();
  /** The highest `metadata.generation` any slice showed. */
  maxGeneration = 0;
  readonly #where = new Map<string, Map<string, { service: string; ready: boolean }>>();
  #waiters: { cond: () => boolean; resolve: () => void }[] = [];
  #done: Promise<void> = Promise.resolve();

  async start(client: ResourceClient<EndpointSlice>, signal: AbortSignal): Promise<void> {
    const list = await client.list();
    for (const s of list.items) this.#put(s);
    const events = await client.watch({ resourceVersion: list.metadata.resourceVersion, signal });
    this.#done = (async () => {
      for await (const e of events) {
        if (e.type === 'ADDED' || e.type === 'MODIFIED') this.#put(e.object);
        else if (e.type === 'DELETED') this.#remove(e.object.metadata?.name ?? '');
        else continue;
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.cond()) return true;
          w.resolve();
          return false;
        });
      }
    })().catch(() => {});
  }

  #remove(name: string): void {
    const old = this.slices.get(name);
    if (old === undefined) return;
    this.slices.delete(name);
    for (const ep of old.endpoints ?? []) {
      for (const ip of ep.addresses) this.#where.get(ip)?.delete(name);
    }
  }

  #put(slice: EndpointSlice): void {
    // The API server's own slice for the `kubernetes` Service is not the bench's.
    if (slice.metadata?.labels?.[serviceNameLabel] === 'kubernetes') return;
    const name = slice.metadata?.name ?? '';
    this.#remove(name);
    this.slices.set(name, slice);
    this.maxGeneration = Math.max(this.maxGeneration, slice.metadata?.generation ?? 0);
    const service = slice.metadata?.labels?.[serviceNameLabel] ?? '';
    for (const ep of slice.endpoints ?? []) {
      for (const ip of ep.addresses) {
        let at = this.#where.get(ip);
        if (at === undefined)
          this.#where.set(ip, (at = new Map<string, { service: string; ready: boolean }>()));
        at.set(name, { service, ready: ep.conditions?.ready === true });
      }
    }
  }

  /** True when the pod's IP is in exactly one slice, of `service`, with readiness `ready`. */
  shows(ip: string, service: string, ready: boolean): boolean {
    const at = this.#where.get(ip);
    if (at === undefined || at.size !== 1) return false;
    const [only] = at.values();
    return only!.service === service && only!.ready === ready;
  }

  /** True when every pod shows as `expected` says and there are `slices` slices of at most 100 endpoints. */
  right(shape: Shape, ready: readonly boolean[], slices: number): boolean {
    if (this.slices.size !== slices) return false;
    for (const s of this.slices.values())
      if ((s.endpoints ?? []).length > maxPerSlice) return false;
    for (let i = 0; i < podCount; i++) {
      if (!this.shows(podIP(i), svcName(shape.serviceOf(i)), ready[i]!)) return false;
    }
    return true;
  }

  until(cond: () => boolean): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ cond, resolve }));
  }

  async stopped(): Promise<void> {
    await this.#done;
  }
}

/** Runs `work` for each item, `inFlight` at a time. */
async function pool<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const readyCondition = (ready: boolean) => ({
  type: 'Ready',
  status: ready ? 'True' : 'False',
});

/** A sandbox with the shape's Nodes and pods, every pod Running and Ready, and a slice watch. */
async function harness(shape: Shape): Promise<{
  sandbox: Sandbox;
  stop: AbortController;
  watch: SliceWatch;
  /** The latest version of each pod, as its last status write returned it. */
  pods: Pod[];
  /** The readiness the bench last wrote, per pod. */
  ready: boolean[];
  /** Writes pod `i`'s readiness. */
  setReady(i: number, ready: boolean): Promise<void>;
  close(): Promise<void>;
}> {
  const sandbox = await startSandbox({ insecureHttp: true });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const nodes = sandbox.client<Node>('', 'nodes');
  for (let n = 1; n <= nodeCount; n++) {
    await nodes.create({
      metadata: {
        name: `node-${n}`,
        labels: { 'topology.kubernetes.io/zone': zones[n % zones.length]! },
      },
    });
  }
  const podClient = sandbox.client<Pod>('', 'pods').inNamespace('default');
  const pods: Pod[] = new Array<Pod>(podCount);
  const ready: boolean[] = new Array<boolean>(podCount).fill(true);
  const indices = Array.from({ length: podCount }, (_, i) => i);
  await pool(indices, async (i) => {
    const created = await podClient.create({
      metadata: { name: podName(i), labels: { app: svcName(shape.serviceOf(i)) } },
      spec: {
        nodeName: `node-${(i % nodeCount) + 1}`,
        containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }] }],
      },
    });
    pods[i] = await podClient.updateStatus({
      ...created,
      status: {
        phase: 'Running',
        podIP: podIP(i),
        podIPs: [{ ip: podIP(i) }],
        conditions: [readyCondition(true)],
      },
    });
  });
  const watch = new SliceWatch();
  await watch.start(
    sandbox.client<EndpointSlice>('discovery.k8s.io', 'endpointslices').inNamespace('default'),
    stop.signal,
  );
  return {
    sandbox,
    stop,
    watch,
    pods,
    ready,
    async setReady(i, to) {
      const pod = pods[i]!;
      ready[i] = to;
      pods[i] = await podClient.updateStatus({
        ...pod,
        status: { ...pod.status, conditions: [readyCondition(to)] },
      });
    },
    async close() {
      stop.abort();
      await watch.stopped();
      await sandbox.stop();
    },
  };
}

/** What one run of a shape measured. */
interface Measured {
  /** From the first Service's creation to the slices being right. */
  setupMs: number;
  /** Slice creates (and all slice writes) while setting up. */
  setupCreates: number;
  setupWrites: number;
  /** The burst: from the first flip's write to the last one's answer, and from there to the slices being right. */
  burstWriteMs: number;
  burstSettleMs: number;
  burstWrites: number;
  /** One at a time: each flip's time from its write to the slice showing it. */
  pacedMs: number[];
  pacedWrites: number;
  /** The highest `metadata.generation` the slice watch showed. */
  maxGeneration: number;
  /** The controller's requests by kind, over the whole run. */
  requests: Record<string, number>;
  /** The Events of the run, counted by type, reason and the gist of their message. */
  events?: string[];
}

/** Counts slice writes (create, update, patch, delete) in the fault lab's counts. */
const sliceWrites = (counts: Record<string, number>, verb?: string) =>
  Object.entries(counts)
    .filter(
      ([k]) =>
        k.endsWith(' endpointslices') &&
        (verb === undefined ? /^(create|update|patch|delete) /.test(k) : k.startsWith(`${verb} `)),
    )
    .reduce((n, [, v]) => n + v, 0);

/**
 * The phases every run goes through, whoever writes the slices: the
 * Services, the burst of flips, the flips back one at a time. `writes()`
 * reads the slice writes made so far.
 */
async function phases(
  h: Awaited<ReturnType<typeof harness>>,
  shape: Shape,
  createServices: () => Promise<void>,
  writes: () => { all: number; creates: number },
): Promise<Omit<Measured, 'requests'>> {
  let start = performance.now();
  let before = writes();
  await createServices();
  await h.watch.until(() => h.watch.right(shape, h.ready, shape.slices));
  const setupMs = performance.now() - start;
  let after = writes();
  const setupCreates = after.creates - before.creates;
  const setupWrites = after.all - before.all;

  const flips = flipped();
  before = writes();
  start = performance.now();
  await pool(flips, (i) => h.setReady(i, false));
  const lastWrite = performance.now();
  await h.watch.until(() => h.watch.right(shape, h.ready, shape.slices));
  const settled = performance.now();
  // Writes that come late would count against the next phase: let them land.
  await sleep(200);
  after = writes();
  const burstWrites = after.all - before.all;

  before = writes();
  const pacedMs: number[] = [];
  for (const i of flippedBack()) {
    const t = performance.now();
    await h.setReady(i, true);
    await h.watch.until(() => h.watch.shows(podIP(i), svcName(shape.serviceOf(i)), true));
    pacedMs.push(performance.now() - t);
  }
  await h.watch.until(() => h.watch.right(shape, h.ready, shape.slices));
  await sleep(200);
  after = writes();
  return {
    setupMs,
    setupCreates,
    setupWrites,
    burstWriteMs: lastWrite - start,
    burstSettleMs: settled - lastWrite,
    burstWrites,
    pacedMs,
    pacedWrites: after.all - before.all,
    maxGeneration: h.watch.maxGeneration,
  };
}

/** The Service of index `s`: a selector on its pods' label, port 80 to 8080. */
const service = (s: number): Service => ({
  metadata: { name: svcName(s) },
  spec: { selector: { app: svcName(s) }, ports: [{ port: 80, targetPort: 8080 }] },
});

async function createServices(sandbox: Sandbox, shape: Shape): Promise<void> {
  const services = sandbox.client<Service>('', 'services').inNamespace('default');
  await pool(
    Array.from({ length: shape.services }, (_, s) => s),
    async (s) => {
      await services.create(service(s));
    },
  );
}

/** The EndpointSlice controller on a fresh sandbox of the shape. */
async function withController(shape: Shape): Promise<Measured> {
  const h = await harness(shape);
  try {
    const counted = <T extends KubeObject>(group: string, resource: string) =>
      h.sandbox.client<T>(group, resource, { faults: true });
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        counted<T>(gvr.group, gvr.resource),
    };
    const factory = new SharedInformerFactory(source, 0);
    const broadcaster = newBroadcaster({ signal: h.stop.signal });
    broadcaster.startRecordingToSink(new EventSinkImpl(counted('', 'events')));
    const controller = new EndpointSliceController({
      pods: factory.pods(),
      services: factory.services(),
      endpointSlices: factory.endpointSlices(),
      nodes: factory.nodes(),
      client: { endpointSlices: counted<EndpointSlice>('discovery.k8s.io', 'endpointslices') },
      recorder: broadcaster.newRecorder({ component: 'endpointslice-controller' }),
    });
    factory.start(h.stop.signal);
    const running = controller.run(concurrentServiceEndpointSyncs, h.stop.signal);
    await factory.waitForCacheSync(h.stop.signal);
    await sleep(200);
    h.sandbox.faults.resetCounts();
    const writes = () => {
      const c = h.sandbox.faults.counts();
      return { all: sliceWrites(c), creates: sliceWrites(c, 'create') };
    };
    const measured = await phases(h, shape, () => createServices(h.sandbox, shape), writes);
    const requests = h.sandbox.faults.counts();
    await sleep(100);
    const reasons = new Map<string, number>();
    for (const e of (await h.sandbox.client<CoreEvent>('', 'events').inNamespace('default').list())
      .items) {
      // The reason and the message's gist (up to the object it names).
      const gist = (e.message ?? '').replace(/^\(combined from similar events\): /, '');
      const key = `${e.type ?? ''} ${e.reason ?? ''} (${gist.replace(/ "[^"]*".*$/, '').replace(/svc-[0-9]+-[a-z0-9]+/g, '<slice>')})`;
      reasons.set(key, (reasons.get(key) ?? 0) + (e.count ?? 1));
    }
    h.stop.abort();
    await running;
    await factory.shutdown();
    broadcaster.shutdown();
    return { ...measured, requests, events: [...reasons].map(([k, n]) => `${n} × ${k}`) };
  } finally {
    await h.close();
  }
}

/**
 * The bare relay on a fresh sandbox of the shape: it creates the slices
 * itself once the Services exist (each pod's endpoint in slot order, 100 a
 * slice), then follows a pod watch and, for each change, rewrites the one
 * slice holding the pod from its own copy, one write at a time.
 */
async function bareRelay(shape: Shape): Promise<Measured> {
  const h = await harness(shape);
  let writesAll = 0;
  let writesCreate = 0;
  try {
    const sliceClient = h.sandbox
      .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
      .inNamespace('default');
    const slices = new Map<string, EndpointSlice>();
    const slot = new Map<string, { slice: string; index: number }>();
    const podClient = h.sandbox.client<Pod>('', 'pods').inNamespace('default');
    const list = await podClient.list();
    const endpoint = (p: Pod): Endpoint => {
      const ready = (p.status?.conditions ?? []).some(
        (c) => c.type === 'Ready' && c.status === 'True',
      );
      return {
        addresses: [p.status?.podIP ?? ''],
        conditions: { ready, serving: ready, terminating: false },
        nodeName: p.spec?.nodeName ?? '',
        targetRef: {
          kind: 'Pod',
          namespace: 'default',
          name: p.metadata?.name ?? '',
          uid: p.metadata?.uid ?? '',
        },
      };
    };
    let chain = Promise.resolve();
    const events = await podClient.watch({
      resourceVersion: list.metadata.resourceVersion,
      signal: h.stop.signal,
    });
    const following = (async () => {
      for await (const e of events) {
        if (e.type !== 'MODIFIED') continue;
        const at = slot.get(e.object.metadata?.name ?? '');
        if (at === undefined) continue;
        const pod = e.object;
        chain = chain.then(async () => {
          const slice = slices.get(at.slice)!;
          const endpoints = [...slice.endpoints];
          endpoints[at.index] = endpoint(pod);
          writesAll++;
          slices.set(at.slice, await sliceClient.update({ ...slice, endpoints }));
        });
      }
    })().catch(() => {});
    const makeSlices = async () => {
      await createServices(h.sandbox, shape);
      const bySvc = new Map<number, Pod[]>();
      for (let i = 0; i < podCount; i++) {
        const s = shape.serviceOf(i);
        let ps = bySvc.get(s);
        if (ps === undefined) bySvc.set(s, (ps = []));
        ps.push(h.pods[i]!);
      }
      const toCreate: EndpointSlice[] = [];
      for (const [s, ps] of bySvc) {
        for (let k = 0; k * maxPerSlice < ps.length; k++) {
          const part = ps.slice(k * maxPerSlice, (k + 1) * maxPerSlice);
          const name = `${svcName(s)}-${k}`;
          part.forEach((p, index) => slot.set(p.metadata?.name ?? '', { slice: name, index }));
          toCreate.push({
            metadata: { name, labels: { [serviceNameLabel]: svcName(s) } },
            addressType: 'IPv4',
            endpoints: part.map(endpoint),
            ports: [{ name: '', port: 8080, protocol: 'TCP' }],
          });
        }
      }
      await pool(toCreate, async (slice) => {
        writesAll++;
        writesCreate++;
        slices.set(slice.metadata!.name!, await sliceClient.create(slice));
      });
    };
    const measured = await phases(h, shape, makeSlices, () => ({
      all: writesAll,
      creates: writesCreate,
    }));
    h.stop.abort();
    await following;
    await chain;
    return { ...measured, requests: {} };
  } finally {
    await h.close();
  }
}

// ---- run and print ----

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadBefore = load();
const results: { shape: Shape; bare: Measured; controller: Measured }[] = [];
for (const shape of shapes) {
  const bare = await bareRelay(shape);
  process.stderr.write(`${shape.name}: bare relay done\n`);
  const controller = await withController(shape);
  process.stderr.write(`${shape.name}: controller done\n`);
  results.push({ shape, bare, controller });
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const msText = (ms: number) => `${ms.toFixed(1)} ms`;
const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const flips = flipped().length;
const flipsBack = flippedBack().length;
console.log(
  `Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadBefore} before the run and ${load()} after it.`,
);
console.log('');
console.log(
  `${podCount.toLocaleString('en-US')} pods on ${nodeCount} Nodes; ${flips.toLocaleString('en-US')} readiness flips at once, then ${flipsBack.toLocaleString('en-US')} of them back one at a time.`,
);
console.log('');
console.log(
  '| shape | writer | Services → slices right | ÷ bare | slice creates/slice | slice writes/flip, burst | last flip → right, burst | ÷ bare | slice writes/flip, one at a time | flip → slice, median | p99 | ÷ bare (median) |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const { shape, bare, controller } of results) {
  for (const [who, m] of [
    ['bare relay', bare],
    ['EndpointSlice controller', controller],
  ] as const) {
    console.log(
      `| ${[
        shape.name,
        who,
        s(m.setupMs),
        (m.setupMs / bare.setupMs).toFixed(2),
        (m.setupCreates / shape.slices).toFixed(2),
        (m.burstWrites / flips).toFixed(2),
        msText(m.burstSettleMs),
        (m.burstSettleMs / bare.burstSettleMs).toFixed(2),
        (m.pacedWrites / flipsBack).toFixed(2),
        msText(pct(m.pacedMs, 50)),
        msText(pct(m.pacedMs, 99)),
        (pct(m.pacedMs, 50) / pct(bare.pacedMs, 50)).toFixed(2),
      ].join(' | ')} |`,
    );
  }
}
console.log('');
for (const { shape, bare, controller } of results) {
  for (const [who, m] of [
    ['bare relay', bare],
    ['controller', controller],
  ] as const) {
    const byKind = Object.entries(m.requests)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`);
    console.log(
      `${shape.name}, ${who}: setup ${m.setupWrites} slice writes (${m.setupCreates} creates); burst of ${flips} flips written in ${s(m.burstWriteMs)}, ${m.burstWrites} slice writes; one at a time ${m.pacedWrites} slice writes, total ${s(m.pacedMs.reduce((a, b) => a + b, 0))}; highest slice generation ${m.maxGeneration}${byKind.length > 0 ? `; requests: ${byKind.join(', ')}` : ''}${m.events?.length ? `; events: ${m.events.join('; ')}` : ''}`,
    );
  }
}
