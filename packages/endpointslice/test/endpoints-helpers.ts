// Fixtures for the Endpoints and mirroring controllers, shaped like the
// upstream tests' (testPod, addPods and newController in
// endpoints_controller_test.go; newController and the fake clientset of
// endpointslicemirroring_controller_test.go): controllers over caches filled
// by hand, writing through the in-memory API server of test/memory-api.ts,
// whose writes come back into the caches and handlers as a watch would
// bring them (at once, or held back to play a lagging cache).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
  type StatusError,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { EndpointSliceMirroringController, EndpointsController } from '../src/index.js';
import { settle } from './helpers.js';
import { MemoryAPI } from './memory-api.js';

export const dummySource = {
  resource: <T extends KubeObject>(_gvr: GroupVersionResource) =>
    ({}) as unknown as ResourceClient<T>,
};

export type IPFamily = 'IPv4' | 'IPv6';
export const ipv4only: IPFamily[] = ['IPv4'];
export const ipv6only: IPFamily[] = ['IPv6'];
export const ipv4ipv6: IPFamily[] = ['IPv4', 'IPv6'];
export const ipv6ipv4: IPFamily[] = ['IPv6', 'IPv4'];

/** Go's `testPod`: `pod<id>` labelled foo=bar with `nPorts` named ports from 8080, 1.2.3.<4+id>. */
export function testPod(
  ns: string,
  id: number,
  nPorts: number,
  isReady: boolean,
  ipFamilies: IPFamily[] = ipv4only,
): Pod {
  const podIPs = ipFamilies.map((f) => ({
    ip: f === 'IPv4' ? `1.2.3.${4 + id}` : `2000::${4 + id}`,
  }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: ns,
      name: `pod${id}`,
      labels: { foo: 'bar' },
      resourceVersion: String(id),
    },
    spec: {
      containers: [
        {
          name: 'c',
          ports: Array.from({ length: nPorts }, (_, j) => ({
            name: `port${j}`,
            containerPort: 8080 + j,
          })),
        },
      ],
    },
    status: {
      conditions: [{ type: 'Ready', status: isReady ? 'True' : 'False' }],
      podIPs,
      podIP: podIPs[0]?.ip,
    },
  };
}

/** Go's `addPods`: `nPods` ready pods then `nNotReady` not-ready ones. */
export function addPods(
  indexer: Indexer<Pod>,
  ns: string,
  nPods: number,
  nPorts: number,
  nNotReady: number,
  ipFamilies: IPFamily[] = ipv4only,
): void {
  for (let i = 0; i < nPods + nNotReady; i++) {
    indexer.add(testPod(ns, i, nPorts, i < nPods, ipFamilies));
  }
}

/** A write the fake watch will deliver (possibly later). */
type Delivery = () => void;

/**
 * A client over the in-memory API whose writes are then delivered to a
 * cache and a handler, as a watch would; `failNext` makes the next request
 * of a verb fail.
 */
function watchedClient<T extends KubeObject>(
  base: ResourceClient<T>,
  deliver: (d: Delivery) => void,
  onWrite: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T, old?: T) => void,
  failNext: Map<string, StatusError | Error>,
  getOld: (ns: string, name: string) => T | undefined,
): ResourceClient<T> {
  const fail = (verb: string) => {
    const err = failNext.get(verb);
    if (err) {
      failNext.delete(verb);
      throw err;
    }
  };
  const make = (ns: string): ResourceClient<T> => {
    const scoped: ResourceClient<T> = {
      ...base.inNamespace(ns),
      inNamespace: (n: string) => make(n),
      get: (name: string) => base.inNamespace(ns).get(name),
      list: (o?: object) => base.inNamespace(ns).list(o),
      create: async (obj: T) => {
        fail('create');
        const created = await base.inNamespace(ns).create(obj);
        const copy = structuredClone(created);
        deliver(() => onWrite('ADDED', copy));
        return created;
      },
      update: async (obj: T) => {
        fail('update');
        const old = getOld(ns, obj.metadata?.name ?? '');
        const updated = await base.inNamespace(ns).update(obj);
        const copy = structuredClone(updated);
        deliver(() => onWrite('MODIFIED', copy, old));
        return updated;
      },
      delete: async (name: string) => {
        fail('delete');
        const gone = (await base.inNamespace(ns).delete(name)) as T;
        const copy = structuredClone(gone);
        deliver(() => onWrite('DELETED', copy));
        return gone;
      },
    };
    return scoped;
  };
  return make('');
}

/** The Endpoints controller over hand-filled caches; its writes reach its cache. */
export interface EndpointsFixture {
  controller: EndpointsController;
  clock: FakeClock;
  api: MemoryAPI;
  recorder: FakeRecorder;
  podIndexer: Indexer<Pod>;
  serviceIndexer: Indexer<Service>;
  endpointsIndexer: Indexer<Endpoints>;
  /** The client the controller writes through. */
  client: ResourceClient<Endpoints>;
  /** Makes the next request of this verb fail. */
  failNext: Map<string, StatusError | Error>;
  /** Writes so far, as `verb endpoints ns/name`. */
  writes(): string[];
  /** Puts an Endpoints object in the API and the cache without counting it as a write. */
  seed(ep: Endpoints): Promise<Endpoints>;
  /** The stored Endpoints object. */
  get(ns: string, name: string): Promise<Endpoints>;
  /** With `watch: 'lag'`: hands the controller the writes held back so far. */
  deliver(): void;
  /** Syncs queued Services, moving the clock past queued delays, until nothing is left. */
  quiesce(maxRounds?: number): Promise<void>;
}

export function endpointsFixture(
  opts: { batchPeriod?: number; watch?: boolean | 'lag' } = {},
): EndpointsFixture {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const api = new MemoryAPI(clock);
  const factory = new SharedInformerFactory(dummySource, 0, { clock });
  const recorder = new FakeRecorder();
  const podIndexer = factory.pods().informer().getIndexer();
  const serviceIndexer = factory.services().informer().getIndexer();
  const endpointsIndexer = factory.endpoints().informer().getIndexer();
  const held: Delivery[] = [];
  const failNext = new Map<string, StatusError | Error>();
  const watch = opts.watch ?? true;
  const ref: { controller?: EndpointsController } = {};
  const client = watchedClient<Endpoints>(
    api.client<Endpoints>('', 'endpoints'),
    (d) => {
      if (watch === 'lag') held.push(d);
      else if (watch) d();
    },
    (type, obj) => {
      if (type === 'ADDED') endpointsIndexer.add(obj);
      else if (type === 'MODIFIED') endpointsIndexer.update(obj);
      else {
        endpointsIndexer.delete(obj);
        ref.controller?.onEndpointsDelete(obj);
      }
    },
    failNext,
    (ns, name) => endpointsIndexer.getByKey(`${ns}/${name}`),
  );
  const c = new EndpointsController({
    pods: factory.pods(),
    services: factory.services(),
    endpoints: factory.endpoints(),
    client: { endpoints: client },
    endpointUpdatesBatchPeriod: opts.batchPeriod,
    recorder,
    clock,
  });
  ref.controller = c;
  const fx: EndpointsFixture = {
    controller: c,
    clock,
    api,
    recorder,
    podIndexer,
    serviceIndexer,
    endpointsIndexer,
    client,
    failNext,
    writes: () => api.writes.filter((w) => w.includes(' endpoints ')),
    async seed(ep) {
      const ns = ep.metadata?.namespace ?? 'default';
      const created = await api.client<Endpoints>('', 'endpoints').inNamespace(ns).create(ep);
      endpointsIndexer.add(structuredClone(created));
      api.writes.length = 0;
      return created;
    },
    get: (ns, name) => api.client<Endpoints>('', 'endpoints').inNamespace(ns).get(name),
    deliver() {
      for (const d of held.splice(0)) d();
    },
    async quiesce(maxRounds = 100) {
      for (let round = 0; round < maxRounds; round++) {
        while (c.queue.len() > 0) await c.processNextWorkItem();
        if (!clock.hasWaiters()) return;
        await clock.advance(1000);
        await settle(2);
      }
      throw new Error('did not quiesce');
    },
  };
  return fx;
}

/** The mirroring controller over hand-filled caches; its slice writes reach its cache and handlers. */
export interface MirroringFixture {
  controller: EndpointSliceMirroringController;
  clock: FakeClock;
  api: MemoryAPI;
  recorder: FakeRecorder;
  endpointsIndexer: Indexer<Endpoints>;
  serviceIndexer: Indexer<Service>;
  sliceIndexer: Indexer<EndpointSlice>;
  failNext: Map<string, StatusError | Error>;
  /** Slice writes so far, as `verb endpointslices ns/name`. */
  writes(): string[];
  /** The stored slices of a namespace. */
  slices(ns?: string): Promise<EndpointSlice[]>;
  /** Puts a slice in the API and the cache without counting it as a write. */
  seedSlice(slice: EndpointSlice): Promise<EndpointSlice>;
  /** With `watch: 'lag'`: hands the controller the writes held back so far. */
  deliver(): void;
  /** Syncs queued keys, moving the clock past queued delays, until nothing is left. */
  quiesce(maxRounds?: number): Promise<void>;
}

export function mirroringFixture(
  opts: { maxEndpointsPerSubset?: number; batchPeriod?: number; watch?: boolean | 'lag' } = {},
): MirroringFixture {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const api = new MemoryAPI(clock);
  const factory = new SharedInformerFactory(dummySource, 0, { clock });
  const recorder = new FakeRecorder();
  const endpointsIndexer = factory.endpoints().informer().getIndexer();
  const serviceIndexer = factory.services().informer().getIndexer();
  const sliceIndexer = factory.endpointSlices().informer().getIndexer();
  const held: Delivery[] = [];
  const failNext = new Map<string, StatusError | Error>();
  const watch = opts.watch ?? true;
  const ref: { controller?: EndpointSliceMirroringController } = {};
  const base = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
  const client = watchedClient<EndpointSlice>(
    base,
    (d) => {
      if (watch === 'lag') held.push(d);
      else if (watch) d();
    },
    (type, obj, old) => {
      if (type === 'ADDED') {
        sliceIndexer.add(obj);
        ref.controller?.onEndpointSliceAdd(obj);
      } else if (type === 'MODIFIED') {
        sliceIndexer.update(obj);
        ref.controller?.onEndpointSliceUpdate(old ?? obj, obj);
      } else {
        sliceIndexer.delete(obj);
        ref.controller?.onEndpointSliceDelete(obj);
      }
    },
    failNext,
    (ns, name) => sliceIndexer.getByKey(`${ns}/${name}`),
  );
  const c = new EndpointSliceMirroringController({
    endpoints: factory.endpoints(),
    endpointSlices: factory.endpointSlices(),
    services: factory.services(),
    client: { endpointSlices: client },
    maxEndpointsPerSubset: opts.maxEndpointsPerSubset,
    endpointUpdatesBatchPeriod: opts.batchPeriod,
    recorder,
    clock,
  });
  ref.controller = c;
  return {
    controller: c,
    clock,
    api,
    recorder,
    endpointsIndexer,
    serviceIndexer,
    sliceIndexer,
    failNext,
    writes: () => api.writes.filter((w) => w.includes(' endpointslices ')),
    slices: async (ns = 'default') => (await base.inNamespace(ns).list()).items,
    async seedSlice(slice) {
      const ns = slice.metadata?.namespace ?? 'default';
      const created = await base.inNamespace(ns).create(slice);
      sliceIndexer.add(structuredClone(created));
      api.writes.length = 0;
      return created;
    },
    deliver() {
      for (const d of held.splice(0)) d();
    },
    async quiesce(maxRounds = 100) {
      for (let round = 0; round < maxRounds; round++) {
        while (c.queue.len() > 0) await c.processNextWorkItem();
        if (!clock.hasWaiters()) return;
        await clock.advance(1000);
        await settle(2);
      }
      throw new Error('did not quiesce');
    },
  };
}
