// How fast does our informer fill its cache and follow a watch, next to
// @kubernetes/client-node's makeInformer and next to the bare limit, with
// the server in a process of its own and realistic pods?
//
// The parent process only orchestrates. It starts a sandbox API server in a
// child process (plain HTTP on 127.0.0.1) holding N pods of about 5.9 KB of
// JSON each (labels, annotations, an ownerReference, two managedFields
// entries, volumes, two containers, status). Then, run after run, it starts
// one reader at a time, each in a fresh process, and collects what each
// measured:
//   (a) sync: from nothing to a full cache of the N pods, over HTTP. The heap
//       kept per cached object is the growth over the sync, after a full GC
//       both times, divided by N.
//   (b) events: the reader lists and starts watching; then, segment after
//       segment, the server writes S label changes at once and the reader
//       is timed from the first change it sees to the last. The first
//       segment only warms the reader up. A segment (S × 5.9 KB) stays
//       under the 8 MiB the sandbox lets wait for a slow watcher before
//       cutting it off, as kube-apiserver's watch cache does; the server
//       hands each segment to the connection at once, so the reader, not
//       the server, sets the pace.
// Readers:
//   - ours: a SharedIndexInformer with its defaults (client-go 1.36's:
//     RealFIFO, atomic, batches) over @kcm-ts/client, with one handler;
//   - ours+trim: the same with trimManagedFields, as kube-controller-manager
//     runs its informers;
//   - ours+trim+share: the same with shareUnchanged too, as our controller
//     manager runs its informers;
//   - client-node: makeInformer from @kubernetes/client-node, one listener;
//   - bare: the same requests read with node:http, the list body and each
//     watch line put through JSON.parse and into a Map by namespace/name:
//     the least any informer must do with the same bytes;
//   - stream (events only): the watch read as bytes, not parsed: what the
//     server and the connection cost;
//   - client stream (events only): @kcm-ts/client's watch iterated with
//     nothing behind it: what our transport costs.
// Promises per event are counted in separate runs (promise hooks slow
// everything down), over one segment, with v8.promiseHooks, from the ask to
// the last change seen, with none of the bench's own promises in the count.
//
// Run: npm run bench:informer -w bench
// (BENCH_PODS, BENCH_SEGMENT, BENCH_SEGMENTS, BENCH_RUNS, BENCH_READERS, BENCH_CPU_PROF)
import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { promiseHooks } from 'node:v8';
import * as k8s from '@kubernetes/client-node';
import type { ObjectList } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedIndexInformer, trimManagedFields } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import type { Pod } from 'kubernetes-types/core/v1.js';

const pods = Number(process.env.BENCH_PODS ?? 10_000);
const segmentEvents = Number(process.env.BENCH_SEGMENT ?? 1200);
const segments = Number(process.env.BENCH_SEGMENTS ?? 8);
const runs = Number(process.env.BENCH_RUNS ?? 5);
// The measured events of one reader: every segment but the warm-up.
const events = segments * segmentEvents;

/** What the server child tells the parent once its pods are written. */
interface ServerInfo {
  url: string;
  token: string;
  kubeconfig: string;
  /** The mean size of a pod as JSON, in bytes. */
  podBytes: number;
}

type Phase = 'sync' | 'events' | 'promises';
type ReaderName =
  'ours' | 'ours+trim' | 'ours+trim+share' | 'client-node' | 'bare' | 'stream' | 'client stream';

/** What a reader child sends back. */
interface Measured {
  /** Wall time: a sync from start to a full cache; events from first to last, summed. */
  ms: number;
  /** CPU time the reader's process used over the same span (from the ask, for events). */
  cpuMs: number;
  heapPerObject?: number;
  promisesPerEvent?: number;
}

/** Messages between a reader, the parent and the server. */
type Ask = { ask: 'segment' };
type Written = { written: string }; // the resourceVersion of the segment's last change

// ---- realistic pods --------------------------------------------------------

const hex = (i: number, len: number): string =>
  (i.toString(16) + 'a3f9c07be1d2486f5a3c9e0b7d1f2468ace13579bdf02468').repeat(4).slice(0, len);
const uid = (i: number): string =>
  `${hex(i, 8)}-${hex(i + 1, 4)}-4${hex(i + 2, 3)}-8${hex(i + 3, 3)}-${hex(i + 4, 12)}`;
const at = (s: number): string =>
  new Date(Date.UTC(2026, 6, 1, 12, 0, s % 60)).toISOString().replace('.000', '');

/** A pod as a ReplicaSet's pod looks on a real cluster, with managedFields. */
function makePod(i: number, gen: number): Pod {
  const name = `web-7d4b9c8f6d-${hex(i, 5)}`;
  const f = (keys: string[]): Record<string, object> =>
    Object.fromEntries(keys.map((k) => [k, {}]));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: 'web-7d4b9c8f6d-',
      namespace: 'default',
      uid: uid(i),
      creationTimestamp: at(i),
      labels: {
        app: 'web',
        tier: 'frontend',
        release: 'stable',
        'pod-template-hash': '7d4b9c8f6d',
        gen: String(gen),
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': '2026-07-01T11:58:00Z',
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9102',
        'checksum/config': hex(i, 64),
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d4b9c8f6d',
          uid: uid(7),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: at(i),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': f(['.', 'f:app', 'f:pod-template-hash', 'f:release', 'f:tier']),
              'f:annotations': f(['.', 'f:checksum/config', 'f:prometheus.io/port']),
              'f:ownerReferences': { '.': {}, [`k:{"uid":"${uid(7)}"}`]: {} },
            },
            'f:spec': {
              'f:containers': {
                'k:{"name":"web"}': {
                  '.': {},
                  ...f(['f:image', 'f:imagePullPolicy', 'f:name', 'f:resources', 'f:volumeMounts']),
                  'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': {} },
                  'f:env': { '.': {}, 'k:{"name":"LOG_LEVEL"}': {}, 'k:{"name":"POD_IP"}': {} },
                },
              },
              ...f(['f:dnsPolicy', 'f:enableServiceLinks', 'f:restartPolicy', 'f:schedulerName']),
              'f:volumes': { '.': {}, 'k:{"name":"config"}': {} },
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: at(i + 5),
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"ContainersReady"}': f(['.', 'f:lastProbeTime', 'f:status', 'f:type']),
                'k:{"type":"Initialized"}': f(['.', 'f:lastProbeTime', 'f:status', 'f:type']),
                'k:{"type":"Ready"}': f(['.', 'f:lastProbeTime', 'f:status', 'f:type']),
              },
              ...f(['f:containerStatuses', 'f:hostIP', 'f:phase', 'f:podIP', 'f:startTime']),
              'f:podIPs': { '.': {}, [`k:{"ip":"10.244.${i % 250}.${i % 200}"}`]: {} },
            },
          },
        },
      ],
    },
    spec: {
      volumes: [
        { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
        {
          name: `kube-api-access-${hex(i, 5)}`,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              {
                configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
              },
              {
                downwardAPI: {
                  items: [
                    {
                      path: 'namespace',
                      fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
                    },
                  ],
                },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            {
              name: 'POD_IP',
              valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } },
            },
          ],
          resources: {
            limits: { cpu: '500m', memory: '256Mi' },
            requests: { cpu: '100m', memory: '128Mi' },
          },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            {
              name: `kube-api-access-${hex(i, 5)}`,
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
          readinessProbe: {
            httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
            timeoutSeconds: 1,
            periodSeconds: 10,
            successThreshold: 1,
            failureThreshold: 3,
          },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
        {
          name: 'log-shipper',
          image: 'registry.example.com/platform/log-shipper:3.4.1',
          args: ['--input=/var/log/web', '--output=collector.logging.svc:24224'],
          resources: { limits: { memory: '64Mi' }, requests: { cpu: '10m', memory: '32Mi' } },
          volumeMounts: [
            {
              name: `kube-api-access-${hex(i, 5)}`,
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      nodeName: `node-${(i % 50) + 1}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        {
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
        {
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: [
        'PodReadyToStartContainers',
        'Initialized',
        'Ready',
        'ContainersReady',
        'PodScheduled',
      ].map((type, k) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: at(i + k),
      })) as unknown as NonNullable<Pod['status']>['conditions'],
      hostIP: `10.0.0.${(i % 50) + 1}`,
      hostIPs: [{ ip: `10.0.0.${(i % 50) + 1}` }],
      podIP: `10.244.${i % 250}.${i % 200}`,
      podIPs: [{ ip: `10.244.${i % 250}.${i % 200}` }],
      startTime: at(i + 1),
      containerStatuses: [
        {
          name: 'web',
          state: { running: { startedAt: at(i + 3) } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/team/web:1.27.3',
          imageID: `registry.example.com/team/web@sha256:${hex(i + 9, 64)}`,
          containerID: `containerd://${hex(i + 11, 64)}`,
          started: true,
        },
        {
          name: 'log-shipper',
          state: { running: { startedAt: at(i + 3) } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/platform/log-shipper:3.4.1',
          imageID: `registry.example.com/platform/log-shipper@sha256:${hex(i + 13, 64)}`,
          containerID: `containerd://${hex(i + 17, 64)}`,
          started: true,
        },
      ],
      qosClass: 'Burstable',
    },
  };
}

// ---- the server child ------------------------------------------------------

async function serve(): Promise<void> {
  // A short history: a watch only ever starts from the newest version.
  const sandbox = await startSandbox({ insecureHttp: true, historyWindow: 3 * segmentEvents });
  const storage = sandbox.registry.storage;
  // The sandbox keeps no managedFields (it drops them on every write), so the
  // pods go straight into its storage, which keeps what it is given.
  let bytes = 0;
  for (let i = 0; i < pods; i++) {
    const pod = makePod(i, 0);
    bytes += JSON.stringify(pod).length;
    storage.commit('pods', `default/${pod.metadata?.name ?? ''}`, 'ADDED', pod);
  }
  process.send?.({
    url: sandbox.url,
    token: sandbox.token,
    kubeconfig: sandbox.kubeconfig,
    podBytes: bytes / pods,
  } satisfies ServerInfo);
  let changed = 0;
  process.on('message', (m: Ask | 'stop') => {
    if (m === 'stop') {
      void sandbox.stop().then(() => process.exit(0));
      return;
    }
    // A segment: S label changes, written at once, round-robin over the pods.
    for (let k = 0; k < segmentEvents; k++, changed++) {
      const pod = makePod(changed % pods, Math.floor(changed / pods) + 1);
      storage.commit('pods', `default/${pod.metadata?.name ?? ''}`, 'MODIFIED', pod);
    }
    process.send?.({ written: String(storage.currentRevision()) } satisfies Written);
  });
}

// ---- helpers for readers ---------------------------------------------------

async function heapUsed(): Promise<number> {
  // Let closed connections and finished requests go before collecting.
  await new Promise((r) => setTimeout(r, 200));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * GETs `path` from the server with node:http and hands each chunk to
 * `onData`. Resolves when the response ends; `stop()` ends it early.
 */
function get(
  info: ServerInfo,
  path: string,
  onData: (chunk: Buffer) => void,
): { done: Promise<void>; stop: () => void } {
  let stop = (): void => {};
  const done = new Promise<void>((resolve, reject) => {
    const req = request(
      `${info.url}${path}`,
      { headers: { authorization: `Bearer ${info.token}` } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${String(res.statusCode)}`));
        res.on('data', onData);
        res.on('end', () => resolve());
        // Destroyed by stop(), or cut off by the server: either way, over.
        res.on('error', () => resolve());
      },
    );
    stop = () => {
      req.destroy();
      resolve();
    };
    req.on('error', (err) => (req.destroyed ? resolve() : reject(err)));
    req.end();
  });
  return { done, stop };
}

const listPath = '/api/v1/pods?resourceVersion=0&limit=500';
const watchPath = (rv: string): string =>
  `/api/v1/pods?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`;

/** The list body, read before any timing. */
async function listBody(info: ServerInfo): Promise<string> {
  const chunks: Buffer[] = [];
  await get(info, listPath, (c) => chunks.push(c)).done;
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks the server, through the parent, for a segment; resolves with its last resourceVersion. */
function askSegment(): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (m: Written): void => {
      process.off('message', onMessage);
      resolve(m.written);
    };
    process.on('message', onMessage);
    process.send?.({ ask: 'segment' } satisfies Ask);
  });
}

// BENCH_PROMISE_SITES=1: the promises run also prints, per reader, where
// the counted promises were made (the first frame outside node's own code).
const promiseSites = process.env.BENCH_PROMISE_SITES === '1';

/** Starts counting the promises made; `stop()` gives the count (and, with BENCH_PROMISE_SITES, prints where). */
function countPromises(): { stop: () => number } {
  let made = 0;
  const sites = new Map<string, number>();
  // Node's own typings give the stop function as a bare Function.
  const stopHook = promiseHooks.onInit(() => {
    made++;
    if (promiseSites) {
      const frames = (new Error().stack ?? '').split('\n').slice(2);
      const frame = frames.find((f) => !f.includes('node:internal')) ?? '(node internals)';
      const site = frame
        .trim()
        .replace(/^at /, '')
        .replace(/\S*\/(packages|bench)\//, '$1/');
      sites.set(site, (sites.get(site) ?? 0) + 1);
    }
  }) as () => void;
  return {
    stop: () => {
      stopHook();
      if (promiseSites) {
        const top = [...sites].sort((x, y) => y[1] - x[1]).slice(0, 12);
        const lines = top.map(([site, n]) => `  ${String(n).padStart(7)}  ${site}`);
        process.stderr.write(
          `promises of ${process.env.BENCH_READER ?? ''}: ${made}\n${lines.join('\n')}\n`,
        );
      }
      return made;
    },
  };
}

/**
 * One segment with the promises counted from the ask to the last change the
 * reader sees. The bench's own waiting is set up before the count starts
 * (the `await` on the returned promise is made first, the count starts in
 * the next turn), the ask and the answer go through callbacks, and the count
 * stops synchronously as the last change is seen: only the reader's
 * promises are in it.
 */
function countedSegment(tracker: Tracker): Promise<number> {
  return new Promise((resolve) => {
    setImmediate(() => {
      tracker.firstSeen = 0;
      const counter = countPromises();
      process.once('message', (m: Written) => {
        tracker.onReach(m.written, () => resolve(counter.stop()));
      });
      process.send?.({ ask: 'segment' } satisfies Ask);
    });
  });
}

/** The CPU time this process has used since `since` (all its threads, GC included), in ms. */
function cpuMs(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/**
 * Times a reader that is already watching, segment after segment (the
 * first only warms up): asks the server for a segment, then measures the
 * wall time from the first change the reader sees to the last, and the CPU
 * time the reader's process spent until it had seen the last.
 */
async function following(phase: Phase, tracker: Tracker): Promise<Measured> {
  const segment = async (): Promise<{ ms: number; cpuMs: number }> => {
    tracker.firstSeen = 0;
    const cpu0 = process.cpuUsage();
    const target = await askSegment();
    await tracker.reach(target);
    const cpu = cpuMs(cpu0);
    // n changes take n - 1 gaps; scale to n so segments add up.
    const ms = ((tracker.lastSeen - tracker.firstSeen) * segmentEvents) / (segmentEvents - 1);
    return { ms, cpuMs: cpu };
  };
  await segment();
  if (phase === 'promises') {
    const made = await countedSegment(tracker);
    return { ms: 0, cpuMs: 0, promisesPerEvent: made / segmentEvents };
  }
  const total = { ms: 0, cpuMs: 0 };
  for (let j = 0; j < segments; j++) {
    const m = await segment();
    total.ms += m.ms;
    total.cpuMs += m.cpuMs;
  }
  return total;
}

/**
 * What a reader has seen: `seen(rv)` for each change; `reach(rv)` resolves
 * once a change at or after `rv` has been seen, and starts a new timing.
 */
class Tracker {
  firstSeen = 0;
  lastSeen = 0;
  #latest = 0;
  #target = Infinity;
  #reached: (() => void) | undefined;

  seen(rv: string | undefined): void {
    this.lastSeen = performance.now();
    if (this.firstSeen === 0) this.firstSeen = this.lastSeen;
    this.#latest = Number(rv);
    if (this.#latest >= this.#target) {
      this.#target = Infinity;
      this.#reached?.();
    }
  }

  reach(rv: string): Promise<void> {
    return new Promise((resolve) => this.onReach(rv, resolve));
  }

  /** Calls `then` once a change at or after `rv` has been seen: at once, or from `seen`. */
  onReach(rv: string, then: () => void): void {
    // The sandbox hands out resourceVersions as increasing integers.
    if (this.#latest >= Number(rv)) {
      then();
      return;
    }
    this.#target = Number(rv);
    this.#reached = then;
  }
}

// ---- the readers -----------------------------------------------------------

/** Our informer: a sync from the server, or following the watch. */
async function ours(
  info: ServerInfo,
  phase: Phase,
  trim: boolean,
  share = false,
): Promise<Measured> {
  const client = createClient(info.kubeconfig);
  const before = phase === 'sync' ? await heapUsed() : 0;
  const informer = new SharedIndexInformer<Pod>(client.pods, {
    objectDescription: 'pods',
    ...(trim ? { transform: trimManagedFields } : {}),
    shareUnchanged: share,
  });
  const tracker = new Tracker();
  informer.addEventHandler({
    onUpdate: (_old, p) => tracker.seen(p.metadata?.resourceVersion),
  });
  const controller = new AbortController();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const running = informer.run(controller.signal);
  await informer.whenSynced();
  const sync = { ms: performance.now() - t0, cpuMs: cpuMs(cpu0) };
  let out: Measured;
  if (phase === 'sync') out = { ...sync, heapPerObject: ((await heapUsed()) - before) / pods };
  else {
    await new Promise((r) => setTimeout(r, 200)); // the watch is open
    out = await following(phase, tracker);
  }
  if (informer.getStore().listKeys().length !== pods) throw new Error('ours: wrong cache size');
  controller.abort();
  await running;
  return out;
}

/** @kubernetes/client-node's informer; the same figures as {@link ours}. */
async function clientNode(info: ServerInfo, phase: Phase): Promise<Measured> {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(info.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const before = phase === 'sync' ? await heapUsed() : 0;
  const informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  const tracker = new Tracker();
  informer.on('update', (p) => tracker.seen(p.metadata?.resourceVersion));
  informer.on('error', () => {});
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await informer.start(); // resolves once the list is in the cache
  const sync = { ms: performance.now() - t0, cpuMs: cpuMs(cpu0) };
  let out: Measured;
  if (phase === 'sync') out = { ...sync, heapPerObject: ((await heapUsed()) - before) / pods };
  else {
    await new Promise((r) => setTimeout(r, 200)); // the watch is open
    out = await following(phase, tracker);
  }
  if (informer.list().length !== pods) throw new Error('client-node: wrong cache size');
  await informer.stop();
  return out;
}

/** JSON.parse and a Map, on the same bytes. */
async function bare(info: ServerInfo, phase: Phase): Promise<Measured> {
  const keyOf = (p: Pod): string => `${p.metadata?.namespace}/${p.metadata?.name}`;
  const cache = new Map<string, Pod>();
  const before = phase === 'sync' ? await heapUsed() : 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const list = JSON.parse(await listBody(info)) as ObjectList<Pod>;
  for (const p of list.items) cache.set(keyOf(p), p);
  const sync = { ms: performance.now() - t0, cpuMs: cpuMs(cpu0) };
  if (cache.size !== pods) throw new Error('bare: wrong cache size');
  if (phase === 'sync') {
    list.items = [];
    return { ...sync, heapPerObject: ((await heapUsed()) - before) / pods };
  }
  const tracker = new Tracker();
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const watch = get(info, watchPath(list.metadata.resourceVersion ?? ''), (chunk) => {
    pending += decoder.write(chunk);
    let from = 0;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', from)) {
      const ev = JSON.parse(pending.slice(from, nl)) as { type: string; object: Pod };
      from = nl + 1;
      if (ev.type === 'BOOKMARK') continue;
      const key = keyOf(ev.object);
      if (ev.type === 'DELETED') cache.delete(key);
      else cache.set(key, ev.object);
      tracker.seen(ev.object.metadata?.resourceVersion);
    }
    pending = pending.slice(from);
  });
  await new Promise((r) => setTimeout(r, 200)); // the watch is open
  const out = await following(phase, tracker);
  watch.stop();
  return out;
}

/** The watch read as bytes, not parsed: each chunk's last resourceVersion is what it saw. */
async function stream(info: ServerInfo, phase: Phase): Promise<Measured> {
  const list = JSON.parse(await listBody(info)) as ObjectList<Pod>;
  const tracker = new Tracker();
  const marker = Buffer.from('"resourceVersion":"');
  let tail: Buffer = Buffer.alloc(0);
  const watch = get(info, watchPath(list.metadata.resourceVersion ?? ''), (chunk) => {
    // The last resourceVersion in the new bytes (and enough before them to span a split).
    const window = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
    tail = window.subarray(Math.max(0, window.length - 64));
    const at = window.lastIndexOf(marker);
    if (at < 0) return;
    const end = window.indexOf(0x22, at + marker.length);
    if (end > 0) tracker.seen(window.toString('latin1', at + marker.length, end));
  });
  await new Promise((r) => setTimeout(r, 200)); // the watch is open
  const out = await following(phase, tracker);
  watch.stop();
  return out;
}

/** @kcm-ts/client's watch iterated with nothing behind it. */
async function clientStream(info: ServerInfo, phase: Phase): Promise<Measured> {
  const client = createClient(info.kubeconfig);
  const list = await client.pods.list({ resourceVersion: '0' });
  const tracker = new Tracker();
  const controller = new AbortController();
  const watch = await client.pods.watch({
    resourceVersion: list.metadata.resourceVersion ?? '',
    allowWatchBookmarks: true,
    signal: controller.signal,
  });
  void (async () => {
    for await (const ev of watch) {
      if (ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
        tracker.seen(ev.object.metadata?.resourceVersion);
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 200)); // the watch is open
  const out = await following(phase, tracker);
  controller.abort();
  return out;
}

async function read(info: ServerInfo, reader: ReaderName, phase: Phase): Promise<Measured> {
  switch (reader) {
    case 'ours':
      return ours(info, phase, false);
    case 'ours+trim':
      return ours(info, phase, true);
    case 'ours+trim+share':
      return ours(info, phase, true, true);
    case 'client-node':
      return clientNode(info, phase);
    case 'bare':
      return bare(info, phase);
    case 'stream':
      return stream(info, phase);
    case 'client stream':
      return clientStream(info, phase);
  }
}

// ---- the parent ------------------------------------------------------------

const self = fileURLToPath(import.meta.url);

// BENCH_CPU_PROF=<dir>: each reader writes a V8 CPU profile there, named
// after the reader and the phase (the profiler slows it: figures of such a
// run are not comparable).
const profileDir = process.env.BENCH_CPU_PROF;

function child(role: string, env: Record<string, string> = {}): ChildProcess {
  const profile =
    profileDir !== undefined && role === 'reader'
      ? [
          '--cpu-prof',
          // A directory per reader and phase: the module loader's thread
          // writes a profile of its own beside the main thread's, whose
          // file name has thread id 0.
          `--cpu-prof-dir=${profileDir}/${(env['BENCH_READER'] ?? '').replace(/\W/g, '_')}-${env['BENCH_PHASE'] ?? ''}-${Date.now()}`,
        ]
      : [];
  return fork(self, [], {
    env: { ...process.env, BENCH_ROLE: role, ...env },
    execArgv: ['--expose-gc', '--conditions=@kcm-ts/source', '--import', 'tsx', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** Runs one reader in a fresh process, relaying its asks for segments to the server. */
function measure(
  server: ChildProcess,
  info: ServerInfo,
  reader: ReaderName,
  phase: Phase,
): Promise<Measured> {
  const proc = child('reader', {
    BENCH_INFO: JSON.stringify(info),
    BENCH_READER: reader,
    BENCH_PHASE: phase,
  });
  const relay = (m: Written): void => void proc.send(m);
  server.on('message', relay);
  return new Promise<Measured>((resolve, reject) => {
    let result: Measured | undefined;
    proc.on('message', (m: Ask | Measured) => {
      if ('ask' in m) server.send(m);
      else result = m;
    });
    proc.once('exit', (code) => {
      server.off('message', relay);
      if (result !== undefined) resolve(result);
      else reject(new Error(`reader ${reader} (${phase}) exited with ${String(code)}`));
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** `median (min–max)`, all formatted alike. */
const spread = (xs: number[], digits = 0): string =>
  xs.length === 0
    ? '–'
    : `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;

// BENCH_READERS=a,b,...: only these readers (and no promise count).
const only = process.env.BENCH_READERS?.split(',');
const chosen = (readers: ReaderName[]): ReaderName[] =>
  only === undefined ? readers : readers.filter((r) => only.includes(r));
const syncReaders = chosen(['bare', 'ours', 'ours+trim', 'ours+trim+share', 'client-node']);
const eventReaders = chosen([
  'stream',
  'client stream',
  'bare',
  'ours',
  'ours+trim',
  'ours+trim+share',
  'client-node',
]);

async function main(): Promise<void> {
  const server = child('server');
  const info = await new Promise<ServerInfo>((resolve) => server.once('message', resolve));
  const sync = new Map<ReaderName, Measured[]>();
  const ev = new Map<ReaderName, Measured[]>();
  const record = (into: Map<ReaderName, Measured[]>, r: ReaderName, m: Measured): void => {
    into.set(r, [...(into.get(r) ?? []), m]);
  };
  try {
    // Warm the server up (its JIT, its caches) before anything is recorded.
    await measure(server, info, 'bare', 'sync');
    await measure(server, info, 'bare', 'events');
    for (let r = 0; r < runs; r++) {
      // Each run starts with another reader, so none is always first.
      const rot = <T>(xs: T[]): T[] => [...xs.slice(r % xs.length), ...xs.slice(0, r % xs.length)];
      for (const reader of rot(syncReaders))
        record(sync, reader, await measure(server, info, reader, 'sync'));
      for (const reader of rot(eventReaders))
        record(ev, reader, await measure(server, info, reader, 'events'));
      process.stderr.write(`run ${r + 1}/${runs} done\n`);
      // The figures so far, so that a long run that fails later still leaves them.
      if (r + 1 < runs) report(info, sync, ev, new Map());
    }
    const promises = new Map<ReaderName, number>();
    const counted: ReaderName[] =
      only === undefined
        ? ['bare', 'client stream', 'ours', 'ours+trim', 'ours+trim+share', 'client-node']
        : [];
    for (const reader of counted) {
      promises.set(reader, (await measure(server, info, reader, 'promises')).promisesPerEvent ?? 0);
    }
    report(info, sync, ev, promises);
  } finally {
    server.send('stop');
    await new Promise((r) => server.once('exit', r));
  }
}

function report(
  info: ServerInfo,
  sync: Map<ReaderName, Measured[]>,
  ev: Map<ReaderName, Measured[]>,
  promises: Map<ReaderName, number>,
): void {
  const wall = (m: Measured[] | undefined): number[] => (m ?? []).map((x) => x.ms);
  const cpu = (m: Measured[] | undefined): number[] => (m ?? []).map((x) => x.cpuMs);
  const perSecond = (ms: number[]): number[] => ms.map((t) => (events / t) * 1000);
  const heap = (m: Measured[] | undefined): number[] => (m ?? []).map((x) => x.heapPerObject ?? 0);
  // Ratios are taken run by run: each run's reader against the same run's baseline.
  const ratio = (a: number[], b: number[]): number[] => a.map((x, i) => x / (b[i] as number));

  console.log(
    `\n${fmt(pods)} pods of ${fmt(info.podBytes)} bytes of JSON; events: ${segments} segments of ${fmt(segmentEvents)} changes` +
      ` after one to warm up; ${ev.get('bare')?.length ?? 0} runs, each reader in a fresh process; Node ${process.version},` +
      ` client-node ${(k8s as { version?: string }).version ?? '1.4'}. Figures: median (min–max) over the runs;` +
      " ratios run by run. CPU: the reader process's own CPU time.\n",
  );
  console.log('Sync (a list of all the pods into an empty cache):\n');
  console.log(
    '| reader | wall ms | CPU ms | CPU × bare | CPU × client-node | heap/object (bytes) | heap × bare | heap × client-node |',
  );
  console.log('| --- | --: | --: | --: | --: | --: | --: | --: |');
  for (const reader of syncReaders) {
    const m = sync.get(reader);
    const cells = [
      reader,
      spread(wall(m)),
      spread(cpu(m)),
      spread(ratio(cpu(m), cpu(sync.get('bare'))), 2),
      spread(ratio(cpu(m), cpu(sync.get('client-node'))), 2),
      spread(heap(m)),
      spread(ratio(heap(m), heap(sync.get('bare'))), 2),
      spread(ratio(heap(m), heap(sync.get('client-node'))), 2),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  console.log('\nEvents (following the watch):\n');
  console.log(
    '| reader | events/s (wall) | events per CPU-second | × bare | × client-node | promises/event |',
  );
  console.log('| --- | --: | --: | --: | --: | --: |');
  for (const reader of eventReaders) {
    const m = ev.get(reader);
    const p = promises.get(reader);
    const rate = perSecond(cpu(m));
    const cells = [
      reader,
      spread(perSecond(wall(m))),
      spread(rate),
      spread(ratio(rate, perSecond(cpu(ev.get('bare')))), 2),
      spread(ratio(rate, perSecond(cpu(ev.get('client-node')))), 2),
      p === undefined ? '–' : fmt(p, 3),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
  const transport = promises.get('client stream');
  if (transport !== undefined) {
    const own = (r: ReaderName): string => fmt((promises.get(r) ?? 0) - transport, 3);
    console.log(
      `\nPromises per event our informer adds to its transport (the reader − client stream): ${own('ours')}; with trim, ${own('ours+trim')}.`,
    );
  }
}

// ---- roles -----------------------------------------------------------------

const role = process.env.BENCH_ROLE;
if (role === 'server') {
  await serve();
} else if (role === 'reader') {
  const info = JSON.parse(process.env.BENCH_INFO ?? '{}') as ServerInfo;
  const result = await read(
    info,
    process.env.BENCH_READER as ReaderName,
    process.env.BENCH_PHASE as Phase,
  );
  process.send?.(result, () => process.exit(0));
} else {
  await main();
}
