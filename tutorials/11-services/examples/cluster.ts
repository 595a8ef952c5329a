// The cluster every example of chapter 11 runs on: the sandbox API server
// with simulated nodes on a fake clock (node-1 is the control plane, tainted
// NoSchedule as in kind; the others are workers, 110 pods each), its
// scheduler and kubelets, and the EndpointSlice controller started the way
// kube-controller-manager's `startEndpointSliceController` starts it: the
// pod, Service, EndpointSlice and node informers of one shared factory, the
// client to write slices through, `--max-endpoints-per-slice` and
// `--endpointslice-updates-batch-period`, then the workers. Every slice the
// API server commits, and every sync the controller ends, is recorded with
// its time, so that the transcripts read as timelines. With `endpoints`,
// the Endpoints controller and the EndpointSlice mirroring controller run
// beside it, on the same factory, as kube-controller-manager starts them
// (`startEndpointsController`, `startEndpointSliceMirroringController`).
import { setMaxListeners } from 'node:events';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import {
  FakeClock,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  EndpointSliceController,
  EndpointSliceMirroringController,
  EndpointsController,
  concurrentEndpointSyncs,
  concurrentServiceEndpointSyncs,
  defaultEndpointUpdatesBatchPeriod,
  defaultEndpointsUpdatesBatchPeriod,
  defaultMaxEndpointsPerSlice,
  defaultMirroringEndpointUpdatesBatchPeriod,
  defaultMirroringMaxEndpointsPerSubset,
  mirroringConcurrentServiceEndpointSyncs,
} from '@kcm-ts/endpointslice';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

/** One change the API server committed to an EndpointSlice, an Endpoints object or a pod. */
export interface Change {
  /** ms since the timer started. */
  t: number;
  kind: 'EndpointSlice' | 'Endpoints' | 'Pod';
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  prev: KubeObject | undefined;
}

/** One sync of a Service that the controller finished. */
export interface Sync {
  /** ms since the timer started. */
  t: number;
  result: 'success' | 'stale' | 'error';
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Simulated nodes, node-1 the control plane; default 3. */
  nodes?: number;
  /** `--max-endpoints-per-slice`; default 100. */
  maxEndpointsPerSlice?: number;
  /** `--endpointslice-updates-batch-period` in ms; default 0. */
  endpointUpdatesBatchPeriod?: number;
  /** Also run the Endpoints controller and the EndpointSlice mirroring controller; default false. */
  endpoints?: boolean;
}

/** A running cluster; every namespaced client works in `default`. */
export interface Cluster {
  sandbox: Sandbox;
  clock: FakeClock;
  controller: EndpointSliceController;
  services: ResourceClient<Service>;
  pods: ResourceClient<Pod>;
  slices: ResourceClient<EndpointSlice>;
  endpoints: ResourceClient<Endpoints>;
  /** Every change to a slice, an Endpoints object or a pod since the timer started, in commit order. */
  changes: Change[];
  /** Every sync the controller finished since the timer started. */
  syncs: Sync[];
  /** Seconds since the timer started, as `t= 1.0s`. */
  at(t?: number): string;
  /** ms since the timer started. */
  now(): number;
  /** Waits for the next whole second, then counts time from there and forgets what was seen so far. */
  startTimer(): Promise<void>;
  /** Moves the fake clock `ms` forward, 100 ms at a time, letting everything run. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The slice's name with its random suffix shown as a letter: web-a, web-b, ... in order of creation. */
  mask(name: string | undefined): string;
  stop(): Promise<void>;
}

const kinds: Record<string, Change['kind']> = {
  pods: 'Pod',
  endpoints: 'Endpoints',
  'endpointslices.discovery.k8s.io': 'EndpointSlice',
};

/** Starts the sandbox with its nodes and the EndpointSlice controller. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: opts.nodes ?? 3 });
  let start = clock.now();
  // The time since the timer started, on the 100 ms grid the clock steps on.
  const elapsed = (): number => Math.ceil((clock.now() - start) / 100) * 100;
  const at = (t = elapsed()): string => `t=${(t / 1000).toFixed(1).padStart(5)}s`;
  // Generated slice names, masked as web-a, web-b, ... in the order they appear.
  const generated = new Map<string, string>();
  const mask = (name: string | undefined): string => generated.get(name ?? '') ?? name ?? '';
  const changes: Change[] = [];
  const syncs: Sync[] = [];
  const unsubscribe = sandbox.registry.storage.subscribe((e) => {
    const kind = kinds[e.storage];
    if (kind === undefined) return;
    const meta = e.object.metadata;
    if (kind === 'EndpointSlice' && meta?.generateName && meta.name && !generated.has(meta.name)) {
      const letter = String.fromCharCode(97 + generated.size);
      generated.set(meta.name, `${meta.generateName}${letter}`);
    }
    changes.push({ t: elapsed(), kind, type: e.type, object: e.object, prev: e.prev });
  });

  // The informers read through clients that meet the fault lab's faults,
  // as kube-controller-manager's requests over HTTPS would.
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource, { faults: true }),
  };
  const abort = new AbortController();
  // Every request of a sync listens to this signal.
  setMaxListeners(0, abort.signal);

  //#region start-controller
  // startEndpointSliceController: the informers of one shared factory, the
  // client to write slices through, and the two flags of the controller.
  const factory = new SharedInformerFactory(source, 0, { clock });
  const controller = new EndpointSliceController({
    pods: factory.pods(),
    services: factory.services(),
    endpointSlices: factory.endpointSlices(),
    nodes: factory.nodes(),
    client: {
      endpointSlices: sandbox.client<EndpointSlice>('discovery.k8s.io', 'endpointslices', {
        faults: true,
      }),
    },
    maxEndpointsPerSlice: opts.maxEndpointsPerSlice ?? defaultMaxEndpointsPerSlice, // 100
    endpointUpdatesBatchPeriod:
      opts.endpointUpdatesBatchPeriod ?? defaultEndpointUpdatesBatchPeriod, // 0
    observer: { onSync: (result) => syncs.push({ t: elapsed(), result }) },
    clock,
  });
  factory.start(abort.signal); // after the controller has asked for its informers
  const running = controller.run(concurrentServiceEndpointSyncs, abort.signal); // 5 workers
  //#endregion start-controller
  const others: Promise<void>[] = [];
  if (opts.endpoints === true) {
    //#region start-endpoints-controllers
    // startEndpointsController and startEndpointSliceMirroringController: the
    // same factory's informers, and the defaults of their flags.
    const endpointsController = new EndpointsController({
      pods: factory.pods(),
      services: factory.services(),
      endpoints: factory.endpoints(),
      client: { endpoints: sandbox.client<Endpoints>('', 'endpoints', { faults: true }) },
      endpointUpdatesBatchPeriod: defaultEndpointsUpdatesBatchPeriod, // 0
      clock,
    });
    const mirroringController = new EndpointSliceMirroringController({
      endpoints: factory.endpoints(),
      endpointSlices: factory.endpointSlices(),
      services: factory.services(),
      client: {
        endpointSlices: sandbox.client<EndpointSlice>('discovery.k8s.io', 'endpointslices', {
          faults: true,
        }),
      },
      maxEndpointsPerSubset: defaultMirroringMaxEndpointsPerSubset, // 1000
      endpointUpdatesBatchPeriod: defaultMirroringEndpointUpdatesBatchPeriod, // 0
      clock,
    });
    factory.start(abort.signal); // starts the one informer new here, the Endpoints'
    others.push(
      endpointsController.run(concurrentEndpointSyncs, abort.signal), // 5 workers
      mirroringController.run(mirroringConcurrentServiceEndpointSyncs, abort.signal), // 5 workers
    );
    //#endregion start-endpoints-controllers
  }

  const settle = async (): Promise<void> => {
    for (let i = 0; i < 4; i++) await new Promise<void>((r) => setImmediate(r));
  };
  const step = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      await clock.advance(Math.min(100, ms - t));
      await settle();
    }
  };
  await settle();
  await step(100);

  return {
    sandbox,
    clock,
    controller,
    services: sandbox.client<Service>('', 'services').inNamespace('default'),
    pods: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    slices: sandbox
      .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
      .inNamespace('default'),
    endpoints: sandbox.client<Endpoints>('', 'endpoints').inNamespace('default'),
    changes,
    syncs,
    at,
    now: elapsed,
    async startTimer() {
      const rest = clock.now() % 1000;
      if (rest !== 0) await step(1000 - rest);
      start = clock.now();
      changes.length = 0;
      syncs.length = 0;
    },
    step,
    async until(cond, maxMs = 300_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await step(100);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    mask,
    async stop() {
      unsubscribe();
      abort.abort();
      await running;
      await Promise.all(others);
      await factory.shutdown();
      await sandbox.stop();
    },
  };
}

/** True when the pod's Ready condition is True. */
export const isReady = (p: Pod | undefined): boolean =>
  (p?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The slices of the Service `name`, by the label the controller puts on them. */
export async function slicesOf(c: Cluster, name: string): Promise<EndpointSlice[]> {
  const list = await c.slices.list({ labelSelector: `kubernetes.io/service-name=${name}` });
  return list.items.sort((a, b) =>
    c.mask(a.metadata?.name).localeCompare(c.mask(b.metadata?.name)),
  );
}

/** The number of endpoints of the Service `name` whose `ready` condition is true. */
export async function readyEndpoints(c: Cluster, name: string): Promise<number> {
  return (await slicesOf(c, name))
    .flatMap((s) => s.endpoints ?? [])
    .filter((e) => e.conditions?.ready === true).length;
}
