// How fast does our informer fill its cache and follow a watch, next to
// @kubernetes/client-node's makeInformer and next to the bare limit?
//
// One sandbox API server (in this process, over HTTPS) holds N pods; then M
// label changes are written, so its watch history holds M events.
//   (a) sync: each informer starts from nothing and lists the N pods into
//       its cache. The heap it keeps per cached object is the heap growth
//       over the sync, after a full GC both times, divided by N.
//   (b) events: each informer is given the list as it was before the M
//       changes, so its watch starts there and the server replays the M
//       events as fast as it can send them; timed from the start until the
//       handler has seen the last one. (Timing from the end of the list
//       would favour client-node, whose start() resolves only once the
//       watch request has been answered, after the server has done much of
//       the replay.)
// Baselines measured in the same run:
//   - stream: the same watch read as raw bytes over HTTPS, with no parsing:
//     what the server and the connection cost;
//   - bare: JSON.parse of the list body into a Map keyed by namespace/name,
//     and of each watch event line applied to that Map: the least any
//     informer must do once the bytes are in.
// The server runs in the same process, so its work is in the informer and
// stream rows; compare informers by their ratio to each other.
import * as k8s from '@kubernetes/client-node';
import type { ListerWatcher, ObjectList } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedIndexInformer } from '@kcm-ts/informer';
import { findResource, startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';

const pods = Number(process.env.BENCH_PODS ?? 10_000);
const events = Number(process.env.BENCH_EVENTS ?? 20_000);

interface Figures {
  syncMs: number;
  eventsMs: number;
  heapPerObject: number;
}

const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function heapUsed(): Promise<number> {
  // Let closed connections and finished requests go before collecting.
  await new Promise((r) => setTimeout(r, 300));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Resolves once `seen()` returns true, polling every millisecond. */
async function until(seen: () => boolean): Promise<void> {
  while (!seen()) await new Promise((r) => setTimeout(r, 1));
}

function pod(i: number): Pod {
  return {
    metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: 'bench', gen: '0' } },
    spec: {
      nodeName: 'node-1',
      containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
    },
  };
}

/** Writes `count` label changes round-robin over the pods, straight into the registry; returns the last resourceVersion. */
function writeEvents(sandbox: Sandbox, count: number): string {
  const info = findResource('', 'v1', 'pods');
  if (info === undefined) throw new Error('the sandbox serves no pods');
  let rv = '';
  for (let i = 0; i < count; i++) {
    const body = { metadata: { labels: { gen: String(i) } } };
    const written = sandbox.registry.patch(info, 'default', `pod-${i % pods}`, {
      type: 'merge',
      body,
    });
    rv = written.object.metadata?.resourceVersion ?? rv;
  }
  return rv;
}

/** Our informer over `lw`: resolves with the time to sync, the heap it keeps, and the time to see `target`. */
async function ours(lw: ListerWatcher<Pod>, target: string | undefined): Promise<Figures> {
  const before = await heapUsed();
  const informer = new SharedIndexInformer<Pod>(lw, { objectDescription: 'pods' });
  let lastRV = '';
  informer.addEventHandler({
    onUpdate: (_old, p) => {
      lastRV = p.metadata?.resourceVersion ?? '';
    },
  });
  const controller = new AbortController();
  const t0 = performance.now();
  const running = informer.run(controller.signal);
  await informer.whenSynced();
  const syncMs = performance.now() - t0;
  let heapPerObject = 0;
  let eventsMs = 0;
  if (target === undefined) heapPerObject = ((await heapUsed()) - before) / pods;
  else {
    await until(() => lastRV === target);
    eventsMs = performance.now() - t0;
  }
  if (informer.getStore().listKeys().length !== pods) throw new Error('ours: wrong cache size');
  controller.abort();
  await running;
  return { syncMs, eventsMs, heapPerObject };
}

/** client-node's informer with `list` as its list function; the same figures as {@link ours}. */
async function clientNode(
  kc: k8s.KubeConfig,
  list: () => Promise<k8s.V1PodList>,
  target: string | undefined,
): Promise<Figures> {
  const before = await heapUsed();
  const informer = k8s.makeInformer(kc, '/api/v1/pods', list);
  let lastRV = '';
  informer.on('update', (p) => {
    lastRV = p.metadata?.resourceVersion ?? '';
  });
  let stopping = false;
  informer.on('error', (err) => {
    if (!stopping) console.error('client-node informer error:', err);
  });
  const t0 = performance.now();
  await informer.start(); // resolves after the list, with the watch being set up
  const syncMs = performance.now() - t0;
  let heapPerObject = 0;
  let eventsMs = 0;
  if (target === undefined) heapPerObject = ((await heapUsed()) - before) / pods;
  else {
    await until(() => lastRV === target);
    eventsMs = performance.now() - t0;
  }
  if (informer.list().length !== pods) throw new Error('client-node: wrong cache size');
  stopping = true;
  await informer.stop();
  return { syncMs, eventsMs, heapPerObject };
}

/** GETs `path` from the sandbox; resolves with the body once it holds `stopAt` (or has ended). */
function get(sandbox: Sandbox, path: string, stopAt?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${sandbox.token}` };
    const req = request(`${sandbox.url}${path}`, { headers, ca: sandbox.caCert }, (res) => {
      const chunks: string[] = [];
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        chunks.push(chunk);
        // Look only at the new bytes (and enough before them to span a split).
        const window = tail + chunk;
        tail = window.slice(-(stopAt?.length ?? 0));
        if (stopAt !== undefined && window.includes(stopAt)) {
          req.destroy();
          resolve(chunks.join(''));
        }
      });
      res.on('end', () => resolve(chunks.join('')));
      res.on('error', reject);
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

async function main(): Promise<void> {
  if ((globalThis as { gc?: unknown }).gc === undefined) {
    console.warn('run with node --expose-gc for the heap figures (npm run bench does)');
  }
  const sandbox = await startSandbox({ historyWindow: 2 * events });
  try {
    const inProcess = sandbox.client<Pod>('', 'pods');
    for (let i = 0; i < pods; i++) await inProcess.create(pod(i));
    const client = createClient(sandbox.kubeconfig);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sandbox.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);

    // The lists before the changes, where the replaying watches start.
    const oursBefore: ObjectList<Pod> = await client.pods.list();
    const theirsBefore = await core.listPodForAllNamespaces();
    const listBody = await get(sandbox, '/api/v1/pods');
    const rv0 = oursBefore.metadata.resourceVersion ?? '';
    const target = writeEvents(sandbox, events);

    // (a) sync from scratch, and the heap kept.
    const a1 = await ours(client.pods, undefined);
    const b1 = await clientNode(kc, () => core.listPodForAllNamespaces(), undefined);

    // (b) replay the events from the list before them.
    const replay: ListerWatcher<Pod> = {
      list: () => Promise.resolve(oursBefore),
      watch: (opts) => client.pods.watch(opts),
    };
    const a2 = await ours(replay, target);
    const b2 = await clientNode(kc, () => Promise.resolve(theirsBefore), target);

    // Baselines: the raw stream, then the bare parse.
    const watchPath = `/api/v1/pods?watch=true&resourceVersion=${rv0}&allowWatchBookmarks=true`;
    const t0 = performance.now();
    const stream = await get(sandbox, watchPath, `"resourceVersion":"${target}"`);
    const streamMs = performance.now() - t0;
    const lines = stream.split('\n').filter((l) => l.endsWith('}'));

    const before = await heapUsed();
    const t1 = performance.now();
    const cache = new Map<string, Pod>();
    for (const p of (JSON.parse(listBody) as { items: Pod[] }).items) {
      cache.set(`${p.metadata?.namespace}/${p.metadata?.name}`, p);
    }
    const bareSyncMs = performance.now() - t1;
    const bareHeap = ((await heapUsed()) - before) / pods;
    const t2 = performance.now();
    for (const line of lines) {
      const ev = JSON.parse(line) as { type: string; object: Pod };
      const key = `${ev.object.metadata?.namespace}/${ev.object.metadata?.name}`;
      if (ev.type === 'DELETED') cache.delete(key);
      else if (ev.type !== 'BOOKMARK') cache.set(key, ev.object);
    }
    const bareEventsMs = performance.now() - t2;
    if (cache.size !== pods) throw new Error('bare: wrong cache size');

    const rate = (ms: number): number => (events / ms) * 1000;
    console.log(
      `\n${fmt(pods)} pods, ${fmt(events)} watch events; Node ${process.version}, client-node ${k8sVersion()}\n`,
    );
    console.log(
      '| reader               | sync ms | heap/object (bytes) | events/s | sync time vs client-node | events/s vs client-node |',
    );
    console.log(
      '| -------------------- | ------: | ------------------: | -------: | -----------------------: | ----------------------: |',
    );
    const row = (name: string, sync: number, heap: number, evMs: number): void => {
      const cells = [
        name.padEnd(20),
        sync > 0 ? fmt(sync).padStart(7) : '      –',
        heap > 0 ? fmt(heap).padStart(19) : '                  –',
        fmt(rate(evMs)).padStart(8),
        sync > 0 ? fmt(sync / b1.syncMs, 2).padStart(24) : '                       –',
        fmt(rate(evMs) / rate(b2.eventsMs), 2).padStart(23),
      ];
      console.log(`| ${cells.join(' | ')} |`);
    };
    row('@kcm-ts/informer', a1.syncMs, a1.heapPerObject, a2.eventsMs);
    row('client-node informer', b1.syncMs, b1.heapPerObject, b2.eventsMs);
    row('stream (bytes only)', 0, 0, streamMs);
    row('bare JSON.parse + Map', bareSyncMs, bareHeap, bareEventsMs);
  } finally {
    await sandbox.stop();
  }
}

function k8sVersion(): string {
  return (k8s as { version?: string }).version ?? '1.x';
}

await main();
