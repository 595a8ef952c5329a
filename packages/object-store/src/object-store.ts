// The TTL-based store: pkg/kubelet/util/manager/cache_based_manager.go
// (objectStore, NewObjectStore, GetObjectTTLFromNodeFunc, isObjectOlder).
import {
  isNotFound,
  realClock,
  resourceVersionOf,
  type Clock,
  type GetOptions,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import type { Node } from 'kubernetes-types/core/v1.js';
import { NotRegisteredError, type GetObjectFunc, type Store } from './manager.js';

/**
 * The Node annotation that sets, in whole seconds, how long the kubelet may
 * serve a cached Secret or ConfigMap: Go's `v1.ObjectTTLAnnotationKey`. The
 * TTL controller in kube-controller-manager writes it, longer on bigger
 * clusters.
 *
 * @category TTL store
 */
export const objectTTLAnnotationKey = 'node.alpha.kubernetes.io/ttl';

/**
 * The TTL to use now, in milliseconds, or `undefined` for the store's
 * default: Go's `GetObjectTTLFunc`.
 *
 * @category TTL store
 */
export type GetObjectTTLFunc = () => number | undefined;

/**
 * A {@link GetObjectTTLFunc} that reads {@link objectTTLAnnotationKey} from
 * the node `getNode` returns. A missing node, a missing annotation, or a value
 * that is not an integer means the default. Go's `GetObjectTTLFromNodeFunc`.
 *
 * @category TTL store
 */
export function getObjectTTLFromNodeFunc(getNode: () => Node | undefined): GetObjectTTLFunc {
  return () => {
    let node: Node | undefined;
    try {
      node = getNode();
    } catch {
      return undefined;
    }
    const value = node?.metadata?.annotations?.[objectTTLAnnotationKey];
    // strconv.Atoi: an optional sign and decimal digits, nothing else.
    if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
    return Number(value) * 1000;
  };
}

/** The resourceVersion as a number, as the API server's versioner parses it; 0 if it cannot. */
function parsedResourceVersion(obj: unknown): bigint {
  const rv = resourceVersionOf(obj as KubeObject);
  return /^\d+$/.test(rv) ? BigInt(rv) : 0n;
}

/** Whether `newer` has a lower resourceVersion than `older`: Go's `isObjectOlder`. */
function isObjectOlder(newer: unknown, older: unknown): boolean {
  if (newer === undefined || older === undefined) return false;
  return parsedResourceVersion(newer) < parsedResourceVersion(older);
}

/** What the store knows of one object, and the lock that serialises its fetches. */
class ObjectData<T> {
  object: T | undefined;
  err: Error | undefined;
  lastUpdateTime = -Infinity;
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` once every earlier call has finished: Go's `data.Lock()`. */
  locked<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => {});
    return run;
  }
}

interface Item<T> {
  refCount: number;
  data: ObjectData<T> | undefined;
}

/**
 * Options for {@link ObjectStore}.
 *
 * @category TTL store
 */
export interface ObjectStoreOptions<T> {
  /** Fetches an object from the API server. */
  getObject: GetObjectFunc<T>;
  /** The TTL when `getTTL` gives none, in milliseconds. The kubelet uses one minute. */
  defaultTTL: number;
  /** The TTL to use now; by default always `defaultTTL`. */
  getTTL?: GetObjectTTLFunc | undefined;
  /** The clock for freshness; defaults to the real clock. */
  clock?: Clock | undefined;
}

/**
 * A reference-counted cache whose entries expire after a TTL: Go's
 * `objectStore`, the store behind the kubelet's `Cache` strategy.
 *
 * - `addReference` drops the cached data, so the next `get` fetches: a pod
 *   that was just created or updated sees the current object.
 * - `get` serves from the cache while the entry is younger than the TTL.
 *   Otherwise it fetches, one fetch at a time per object (concurrent callers
 *   wait for it and share the result). A refresh of an object it already has
 *   asks for `resourceVersion: "0"`, which the API server may answer from its
 *   watch cache.
 * - A fetched object older than the cached one (lower resourceVersion) is
 *   ignored. A NotFound answer replaces the entry (the object is gone), and an
 *   entry holding an error is fetched again on every get. Other errors
 *   change nothing: they are returned when there is nothing cached yet, and
 *   otherwise the cached entry is served as it was.
 *
 * @category TTL store
 */
export class ObjectStore<T> implements Store<T> {
  readonly #getObject: GetObjectFunc<T>;
  readonly #clock: Clock;
  readonly #defaultTTL: number;
  readonly #getTTL: GetObjectTTLFunc;
  readonly #items = new Map<string, Item<T>>();

  constructor(opts: ObjectStoreOptions<T>) {
    this.#getObject = opts.getObject;
    this.#clock = opts.clock ?? realClock;
    this.#defaultTTL = opts.defaultTTL;
    this.#getTTL = opts.getTTL ?? (() => undefined);
  }

  // The TTL store counts references, whoever makes them, as Go's objectStore does.
  addReference(namespace: string, name: string, _referencedFrom: string): void {
    const key = `${namespace}/${name}`;
    let item = this.#items.get(key);
    if (item === undefined) {
      item = { refCount: 0, data: undefined };
      this.#items.set(key, item);
    }
    item.refCount++;
    // Fetch afresh on the next get. A fetch already running keeps its own data.
    item.data = undefined;
  }

  deleteReference(namespace: string, name: string, _referencedFrom: string): void {
    const key = `${namespace}/${name}`;
    const item = this.#items.get(key);
    if (item === undefined) return;
    item.refCount--;
    if (item.refCount === 0) this.#items.delete(key);
  }

  //#region ttl-get
  get(namespace: string, name: string): Promise<T> {
    const item = this.#items.get(`${namespace}/${name}`);
    if (item === undefined) return Promise.reject(new NotRegisteredError(namespace, name));
    const data = (item.data ??= new ObjectData<T>());
    return data.locked(async () => {
      if (data.err !== undefined || !this.#isFresh(data)) {
        const opts: GetOptions = {};
        // A periodic refresh of what we already have: the API server's cache will do.
        if (data.object !== undefined && data.err === undefined) opts.resourceVersion = '0';
        let object: T | undefined;
        let err: Error | undefined;
        try {
          object = await this.#getObject(namespace, name, opts);
        } catch (e) {
          err = e instanceof Error ? e : new Error(`fetching ${namespace}/${name}: ${String(e)}`);
        }
        const notFound = err !== undefined && isNotFound(err);
        if (err !== undefined && !notFound && data.object === undefined && data.err === undefined) {
          throw err; // nothing cached to fall back on
        }
        if ((err === undefined && !isObjectOlder(object, data.object)) || notFound) {
          data.object = object;
          data.err = err;
          data.lastUpdateTime = this.#clock.now();
        }
      }
      if (data.err !== undefined) throw data.err;
      return data.object as T;
    });
  }
  //#endregion ttl-get

  #isFresh(data: ObjectData<T>): boolean {
    const ttl = this.#getTTL() ?? this.#defaultTTL;
    return this.#clock.now() < data.lastUpdateTime + ttl;
  }
}
