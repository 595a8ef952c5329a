// A small in-memory API server for tests that run the controller through
// real informers: list and watch (with the events since a resourceVersion
// replayed), get, create (generateName, uid, creationTimestamp), update,
// delete, per resource and namespace, on a fake clock. EndpointSlices keep
// kube-apiserver's generation rule. No field selectors, no patches.
import {
  formatTime,
  newAlreadyExists,
  newNotFound,
  type FakeClock,
  type GroupVersionResource,
  type KubeObject,
  type ListOptions,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';

interface Stored {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  rv: number;
  obj: KubeObject;
}

class Resource {
  readonly objects = new Map<string, KubeObject>();
  readonly log: Stored[] = [];
  readonly listeners = new Set<(e: Stored) => void>();
  constructor(
    readonly api: MemoryAPI,
    readonly gvr: GroupVersionResource,
  ) {}

  emit(type: Stored['type'], obj: KubeObject, rv: number): void {
    const e = { type, rv, obj: structuredClone(obj) };
    this.log.push(e);
    for (const l of this.listeners) l(e);
  }
}

const keyOf = (ns: string, name: string) => `${ns}/${name}`;

/** Generation as kube-apiserver keeps it for EndpointSlices: anything but metadata, or the labels. */
function sliceChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata, ...rest } = o as KubeObject & Record<string, unknown>;
    return JSON.stringify([rest, metadata?.labels ?? {}]);
  };
  return strip(a) !== strip(b);
}

export class MemoryAPI {
  #rv = 1;
  #uid = 0;
  readonly #resources = new Map<string, Resource>();
  /** Every write, in order, as `verb resource namespace/name`. */
  readonly writes: string[] = [];

  constructor(readonly clock: FakeClock) {}

  #resource(gvr: GroupVersionResource): Resource {
    const key = `${gvr.group}/${gvr.resource}`;
    let r = this.#resources.get(key);
    if (!r) {
      r = new Resource(this, gvr);
      this.#resources.set(key, r);
    }
    return r;
  }

  /** The informer factory's source. */
  readonly source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      this.client<T>(gvr.group, gvr.resource),
  };

  /** A client of one resource, unscoped. */
  client<T extends KubeObject>(group: string, resource: string): ResourceClient<T> {
    const r = this.#resource({ group, version: 'v1', resource });
    const gr = { group, resource };
    const make = (ns: string): ResourceClient<T> =>
      ({
        inNamespace: (n: string) => make(n),
        list: (_opts?: ListOptions) =>
          Promise.resolve({
            apiVersion: 'v1',
            kind: 'List',
            metadata: { resourceVersion: String(this.#rv) },
            items: [...r.objects.values()]
              .filter((o) => ns === '' || o.metadata?.namespace === ns)
              .map((o) => structuredClone(o)),
          }),
        watch: (opts?: ListOptions) => Promise.resolve(this.#watch(r, ns, opts)),
        get: (name: string) => {
          const o = r.objects.get(keyOf(ns, name));
          return o ? Promise.resolve(structuredClone(o)) : Promise.reject(newNotFound(gr, name));
        },
        create: (obj: T) => {
          const copy = structuredClone(obj) as KubeObject;
          const meta = (copy.metadata ??= {}) as Record<string, unknown>;
          const name =
            (meta.name as string | undefined) ??
            `${(meta.generateName as string | undefined) ?? 'obj-'}${(++this.#uid).toString(36).padStart(5, '0')}`;
          if (r.objects.has(keyOf(ns, name))) return Promise.reject(newAlreadyExists(gr, name));
          const rv = ++this.#rv;
          Object.assign(meta, {
            name,
            namespace: ns,
            uid: `uid-${++this.#uid}`,
            resourceVersion: String(rv),
            creationTimestamp: formatTime(this.clock.now()),
            generation: 1,
          });
          r.objects.set(keyOf(ns, name), copy);
          this.writes.push(`create ${resource} ${ns}/${name}`);
          r.emit('ADDED', copy, rv);
          return Promise.resolve(structuredClone(copy) as unknown as T);
        },
        update: (obj: T) => this.#update(r, ns, obj, gr),
        updateStatus: (obj: T) => this.#update(r, ns, obj, gr),
        delete: (name: string) => {
          const old = r.objects.get(keyOf(ns, name));
          if (!old) return Promise.reject(newNotFound(gr, name));
          r.objects.delete(keyOf(ns, name));
          const rv = ++this.#rv;
          const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
          this.writes.push(`delete ${resource} ${ns}/${name}`);
          r.emit('DELETED', gone, rv);
          return Promise.resolve(structuredClone(gone) as T);
        },
      }) as unknown as ResourceClient<T>;
    return make('');
  }

  #update<T extends KubeObject>(
    r: Resource,
    ns: string,
    obj: T,
    gr: { group: string; resource: string },
  ): Promise<T> {
    const name = obj.metadata?.name ?? '';
    const old = r.objects.get(keyOf(ns, name));
    if (!old) return Promise.reject(newNotFound(gr, name));
    const rv = ++this.#rv;
    const copy = structuredClone(obj) as KubeObject;
    const generation =
      (old.metadata?.generation ?? 1) +
      (gr.resource === 'endpointslices' && sliceChanged(old, copy) ? 1 : 0);
    copy.metadata = {
      ...copy.metadata,
      namespace: ns,
      uid: old.metadata?.uid,
      creationTimestamp: old.metadata?.creationTimestamp,
      resourceVersion: String(rv),
      generation,
    };
    r.objects.set(keyOf(ns, name), copy);
    this.writes.push(`update ${gr.resource} ${ns}/${name}`);
    r.emit('MODIFIED', copy, rv);
    return Promise.resolve(structuredClone(copy) as T);
  }

  #watch(r: Resource, ns: string, opts?: ListOptions): AsyncIterable<WatchEvent<KubeObject>> {
    const since = Number(opts?.resourceVersion ?? '0');
    const signal = opts?.signal;
    const queue: Stored[] = r.log.filter((e) => e.rv > since);
    let wake: (() => void) | undefined;
    const listener = (e: Stored) => {
      queue.push(e);
      wake?.();
    };
    r.listeners.add(listener);
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    const matches = (e: Stored) => ns === '' || e.obj.metadata?.namespace === ns;
    return {
      async *[Symbol.asyncIterator]() {
        try {
          while (!signal?.aborted) {
            const e = queue.shift();
            if (e) {
              if (matches(e)) yield { type: e.type, object: structuredClone(e.obj) };
              continue;
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          r.listeners.delete(listener);
          signal?.removeEventListener('abort', onAbort);
        }
      },
    };
  }
}
