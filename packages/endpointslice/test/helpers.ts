// Shared test fixtures: pods, Services and slices shaped like the ones the
// upstream tests build (newPod, newServiceAndEndpointMeta,
// newEmptyEndpointSlice in reconciler_test.go and the controller's tests),
// an in-memory EndpointSlice client that keeps kube-apiserver's generation
// rule and logs every action (Go's fake clientset with its Actions()), and a
// controller over caches filled by hand whose slice writes come back through
// its handlers, as a watch would bring them.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  newAlreadyExists,
  newControllerRef,
  newNotFound,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
  type StatusError,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer, type Lister } from '@kcm-ts/informer';
import {
  EndpointSliceController,
  controllerQualifiedName,
  labelManagedBy,
  labelServiceName,
  type AddressType,
} from '../src/index.js';

/** `T` with its read-only fields writable, for a test to set server-set fields. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
export const mut = <T>(x: T): Writable<T> => x;

/** Lets promise chains run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

export const namespace = 'test';
const resource = { group: 'discovery.k8s.io', resource: 'endpointslices' };

/** A unique IPv4 address for pod `n`. */
export const podIP = (n: number): string => `10.0.${Math.floor(n / 256)}.${n % 256}`;

/** Go's `newPod`: `pod<n>` labelled foo=bar on node-1, ready or not, terminating or not. */
export function newPod(
  n: number,
  ns = namespace,
  ready = true,
  nPorts = 1,
  terminating = false,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: ns,
      name: `pod${n}`,
      uid: `pod-uid-${n}`,
      labels: { foo: 'bar' },
      resourceVersion: String(n),
      ...(terminating && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
    },
    spec: {
      nodeName: 'node-1',
      containers: [
        {
          name: 'container-1',
          ports: Array.from({ length: nPorts }, (_, i) => ({
            name: `port-${i}`,
            containerPort: 8080 + i,
            protocol: 'TCP',
          })),
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: podIP(n),
      podIPs: [{ ip: podIP(n) }],
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

/** Go's `newServiceAndEndpointMeta`: Service `name` on port 80 selecting foo=bar, IPv4. */
export function newService(name = 'foo', ns = namespace): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, uid: `svc-uid-${name}`, resourceVersion: '1' },
    spec: {
      ports: [{ name: 'foo', port: 80, targetPort: 80, protocol: 'TCP' }],
      selector: { foo: 'bar' },
      ipFamilies: ['IPv4'],
    },
  };
}

/** The ports and address type `newService`'s pods give. */
export const endpointMeta = (): { ports: EndpointSlice['ports']; addressType: AddressType } => ({
  ports: [{ name: 'foo', port: 80, protocol: 'TCP' }],
  addressType: 'IPv4',
});

/** Go's `newEmptyEndpointSlice`: `<svc>-<n>`, owned by and labelled for `svc`. */
export function newEmptyEndpointSlice(n: number, svc: Service): EndpointSlice {
  const meta = endpointMeta();
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${svc.metadata!.name!}-${n}`,
      namespace: svc.metadata!.namespace!,
      labels: {
        [labelServiceName]: svc.metadata!.name!,
        [labelManagedBy]: controllerQualifiedName,
      },
      ownerReferences: [newControllerRef(svc, { group: '', version: 'v1', kind: 'Service' })],
    },
    ports: meta.ports,
    addressType: meta.addressType,
    endpoints: [],
  };
}

/** One request the fake client served. */
export interface Action {
  verb: 'create' | 'update' | 'delete';
  name: string;
}

type Watcher = (
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  obj: EndpointSlice,
  old?: EndpointSlice,
) => void;

/** What kube-apiserver's EndpointSlice strategy counts as a change: anything but metadata, or the labels. */
function specChanged(a: EndpointSlice, b: EndpointSlice): boolean {
  const strip = (s: EndpointSlice) =>
    JSON.stringify([s.addressType, s.endpoints ?? [], s.ports ?? [], s.metadata?.labels ?? {}]);
  return strip(a) !== strip(b);
}

/**
 * An in-memory discovery.k8s.io/v1 endpointslices API: generated names,
 * uids, resource versions, generations as kube-apiserver keeps them (1 at
 * creation, one more for every change other than metadata but labels);
 * every action logged; writes told to the watchers.
 */
export class FakeSliceAPI {
  readonly objects = new Map<string, EndpointSlice>();
  readonly actions: Action[] = [];
  readonly watchers: Watcher[] = [];
  /** Makes the next request of this verb fail with this error. */
  readonly failNext = new Map<Action['verb'], StatusError | Error>();
  #seq = 0;
  #rv = 1000;

  constructor(readonly clock: FakeClock) {}

  /** Slices of a namespace, oldest first. */
  list(ns = namespace): EndpointSlice[] {
    return [...this.objects.values()].filter((s) => s.metadata?.namespace === ns);
  }

  /** Puts slices in place without logging actions, as a test's setup. */
  seed(...slices: EndpointSlice[]): EndpointSlice[] {
    return slices.map((s) => this.#store(structuredClone(s), s.metadata?.namespace ?? namespace));
  }

  #store(copy: EndpointSlice, ns: string): EndpointSlice {
    const meta = (copy.metadata ??= {});
    meta.namespace = ns;
    meta.name ??= `${meta.generateName ?? 'slice-'}${(++this.#seq).toString(36).padStart(5, 'x')}`;
    const key = `${ns}/${meta.name}`;
    if (this.objects.has(key)) throw newAlreadyExists(resource, meta.name);
    Object.assign(meta, {
      uid: `slice-uid-${++this.#seq}`,
      resourceVersion: String(++this.#rv),
      generation: 1,
      creationTimestamp: formatTime(this.clock.now()),
    });
    this.objects.set(key, copy);
    for (const w of this.watchers) w('ADDED', structuredClone(copy));
    return structuredClone(copy);
  }

  #fail(verb: Action['verb']): void {
    const err = this.failNext.get(verb);
    if (err) {
      this.failNext.delete(verb);
      throw err;
    }
  }

  /** The client the code under test writes through. */
  client(): ResourceClient<EndpointSlice> {
    const make = (ns: string): ResourceClient<EndpointSlice> =>
      ({
        inNamespace: (n: string) => make(n),
        get: (name: string) => {
          const found = this.objects.get(`${ns}/${name}`);
          return found
            ? Promise.resolve(structuredClone(found))
            : Promise.reject(newNotFound(resource, name));
        },
        create: (obj: EndpointSlice) => {
          try {
            this.#fail('create');
            const created = this.#store(structuredClone(obj), ns);
            this.actions.push({ verb: 'create', name: created.metadata!.name! });
            return Promise.resolve(created);
          } catch (err) {
            return Promise.reject(err instanceof Error ? err : new Error(String(err)));
          }
        },
        update: (obj: EndpointSlice) => {
          const name = obj.metadata?.name ?? '';
          try {
            this.#fail('update');
          } catch (err) {
            return Promise.reject(err instanceof Error ? err : new Error(String(err)));
          }
          const old = this.objects.get(`${ns}/${name}`);
          if (!old) return Promise.reject(newNotFound(resource, name));
          const copy = structuredClone(obj);
          copy.metadata = {
            ...copy.metadata,
            namespace: ns,
            uid: old.metadata!.uid!,
            creationTimestamp: old.metadata!.creationTimestamp!,
            resourceVersion: String(++this.#rv),
            generation: (old.metadata!.generation ?? 1) + (specChanged(old, copy) ? 1 : 0),
          };
          this.objects.set(`${ns}/${name}`, copy);
          this.actions.push({ verb: 'update', name });
          for (const w of this.watchers) w('MODIFIED', structuredClone(copy), old);
          return Promise.resolve(structuredClone(copy));
        },
        delete: (name: string) => {
          try {
            this.#fail('delete');
          } catch (err) {
            return Promise.reject(err instanceof Error ? err : new Error(String(err)));
          }
          const old = this.objects.get(`${ns}/${name}`);
          if (!old) return Promise.reject(newNotFound(resource, name));
          this.objects.delete(`${ns}/${name}`);
          this.actions.push({ verb: 'delete', name });
          for (const w of this.watchers) w('DELETED', old);
          return Promise.resolve(old);
        },
      }) as unknown as ResourceClient<EndpointSlice>;
    return make('');
  }
}

/** A lister of nodes holding `nodes` (Go's test reconcilers know node-1). */
export function nodeLister(...nodes: Node[]): {
  lister: Lister<Node>;
  indexer: Indexer<Node>;
  clock: FakeClock;
} {
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(dummySource, 0, { clock });
  const informer = factory.nodes();
  const indexer = informer.informer().getIndexer();
  for (const n of nodes.length > 0 ? nodes : [newNode('node-1')]) indexer.add(n);
  return { lister: informer.lister(), indexer, clock };
}

export function newNode(name: string, zone?: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      resourceVersion: '1',
      labels: zone ? { 'topology.kubernetes.io/zone': zone } : {},
    },
  };
}

const dummySource = {
  resource: <T extends KubeObject>(_gvr: GroupVersionResource) =>
    ({}) as unknown as ResourceClient<T>,
};

/** A controller over caches filled by hand; its slice writes reach its cache and handlers at once. */
export interface Fixture {
  controller: EndpointSliceController;
  clock: FakeClock;
  api: FakeSliceAPI;
  recorder: FakeRecorder;
  podIndexer: Indexer<Pod>;
  serviceIndexer: Indexer<Service>;
  sliceIndexer: Indexer<EndpointSlice>;
  nodeIndexer: Indexer<Node>;
  /** Adds a Service to the cache and tells the controller. */
  addService(svc: Service): void;
  /** Adds a pod to the cache and tells the controller. */
  addPod(pod: Pod): void;
  /** Replaces a pod in the cache (bumping its resourceVersion) and tells the controller. */
  updatePod(pod: Pod): void;
  /** Removes a pod from the cache and tells the controller. */
  deletePod(pod: Pod): void;
  /** Syncs queued Services, moving the clock past queued delays, until nothing is left. */
  quiesce(maxRounds?: number): Promise<void>;
  /** With `watch: 'lag'`: hands the controller the slice events held back so far. */
  deliver(): void;
  /** Syncs the Services queued now, once each, without moving the clock or delivering events. */
  syncQueued(): Promise<void>;
}

export function fixture(
  opts: { maxEndpointsPerSlice?: number; batchPeriod?: number; watch?: boolean | 'lag' } = {},
): Fixture {
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(dummySource, 0, { clock });
  const recorder = new FakeRecorder();
  const api = new FakeSliceAPI(clock);
  const podIndexer = factory.pods().informer().getIndexer();
  const serviceIndexer = factory.services().informer().getIndexer();
  const sliceIndexer = factory.endpointSlices().informer().getIndexer();
  const nodeIndexer = factory.nodes().informer().getIndexer();
  nodeIndexer.add(newNode('node-1'));
  const controller = new EndpointSliceController({
    pods: factory.pods(),
    services: factory.services(),
    endpointSlices: factory.endpointSlices(),
    nodes: factory.nodes(),
    client: { endpointSlices: api.client() },
    maxEndpointsPerSlice: opts.maxEndpointsPerSlice,
    endpointUpdatesBatchPeriod: opts.batchPeriod,
    recorder,
    clock,
  });
  const held: (() => void)[] = [];
  if (opts.watch ?? true) {
    const watcher: Watcher = (type, obj, old) => {
      if (type === 'ADDED') {
        sliceIndexer.add(obj);
        controller.onEndpointSliceAdd(obj);
      } else if (type === 'MODIFIED') {
        sliceIndexer.update(obj);
        controller.onEndpointSliceUpdate(old!, obj);
      } else {
        sliceIndexer.delete(obj);
        controller.onEndpointSliceDelete(obj);
      }
    };
    api.watchers.push(
      opts.watch === 'lag' ? (type, obj, old) => held.push(() => watcher(type, obj, old)) : watcher,
    );
  }
  let rv = 100;
  const fx: Fixture = {
    controller,
    clock,
    api,
    recorder,
    podIndexer,
    serviceIndexer,
    sliceIndexer,
    nodeIndexer,
    addService(svc) {
      serviceIndexer.add(svc);
      controller.onServiceUpdate(svc);
    },
    addPod(pod) {
      podIndexer.add(pod);
      controller.addPod(pod);
    },
    updatePod(pod) {
      const key = `${pod.metadata!.namespace!}/${pod.metadata!.name!}`;
      const old = podIndexer.getByKey(key)!;
      const cur = { ...pod, metadata: { ...pod.metadata, resourceVersion: String(++rv) } };
      podIndexer.update(cur);
      controller.updatePod(old, cur);
    },
    deletePod(pod) {
      const key = `${pod.metadata!.namespace!}/${pod.metadata!.name!}`;
      const old = podIndexer.getByKey(key)!;
      podIndexer.delete(old);
      controller.deletePod(old);
    },
    deliver() {
      for (const h of held.splice(0)) h();
    },
    async syncQueued() {
      for (let n = controller.serviceQueue.len(); n > 0; n--) {
        await controller.processNextServiceWorkItem();
      }
    },
    async quiesce(maxRounds = 100) {
      for (let round = 0; round < maxRounds; round++) {
        fx.deliver();
        while (controller.serviceQueue.len() > 0) {
          await controller.processNextServiceWorkItem();
        }
        if (held.length > 0) continue;
        if (!clock.hasWaiters()) return;
        await clock.advance(1000);
        await settle(2);
      }
      throw new Error('did not quiesce');
    },
  };
  return fx;
}
