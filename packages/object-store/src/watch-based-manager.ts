// The watch-based store and manager:
// pkg/kubelet/util/manager/watch_based_manager.go (objectCache,
// objectCacheItem, cacheStore, NewObjectCache, NewWatchBasedManager).
import {
  metaNamespaceKeyFunc,
  newNotFound,
  realClock,
  type Clock,
  type GroupResource,
  type ListOptions,
  type ObjectList,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { ListWatch, Reflector, newStore, type Store as KeyedStore } from '@kcm-ts/informer';
import { CacheBasedManager, type GetReferencedObjects } from './cache-based-manager.js';
import { NotRegisteredError, type Manager, type Store } from './manager.js';

/**
 * The shortest idle time after which an unused watch is stopped, in
 * milliseconds: Go's `minIdleTime`.
 *
 * @category Watch-based store
 */
export const minIdleTime = 60_000;

/** How long `get` waits for a new watch's first list, as Go's poll of one second. */
const syncTimeout = 1_000;

/** A keyed store that knows whether a full list has reached it: Go's `cacheStore`. */
class CacheStore<T> {
  readonly store: KeyedStore<T> = newStore<T>(metaNamespaceKeyFunc);
  #initialized = false;
  #waiters = new Set<() => void>();

  add = (obj: T): void => this.store.add(obj);
  update = (obj: T): void => this.store.update(obj);
  delete = (obj: T): void => this.store.delete(obj);
  resync = (): void => {};
  replace = (list: readonly T[], resourceVersion: string): void => {
    this.store.replace(list, resourceVersion);
    this.#initialized = true;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  };

  hasSynced(): boolean {
    return this.#initialized;
  }

  unsetInitialized(): void {
    this.#initialized = false;
  }

  /** Resolves `true` once synced, or `false` after `timeoutMs` on `clock`. */
  async waitSynced(clock: Clock, timeoutMs: number): Promise<boolean> {
    if (this.#initialized) return true;
    const timeout = new AbortController();
    const synced = new Promise<void>((resolve) => {
      const wake = (): void => {
        timeout.abort();
        resolve();
      };
      this.#waiters.add(wake);
      timeout.signal.addEventListener('abort', () => this.#waiters.delete(wake), { once: true });
    });
    await Promise.race([synced, clock.sleep(timeoutMs, timeout.signal)]);
    timeout.abort();
    return this.#initialized;
  }
}

/** One watched object: Go's `objectCacheItem`. */
class ObjectCacheItem<T> {
  /** References by referencing pod uid; never holds a count of 0. */
  readonly refMap = new Map<string, number>();
  lastAccessTime = 0;
  immutable = false;
  #stopped = false;
  #stop = new AbortController();
  #running: Promise<void> = Promise.resolve();

  constructor(
    readonly store: CacheStore<T>,
    readonly reflector: Reflector<T>,
    readonly parent: AbortSignal,
    readonly track: (running: Promise<void>) => void,
  ) {
    this.#startReflector();
  }

  /** Stops the watch; returns whether it was running. */
  stop(): boolean {
    if (this.#stopped) return false;
    this.#stopped = true;
    this.#stop.abort();
    // An immutable object's last state stays valid; anything else must be relisted.
    if (!this.immutable) this.store.unsetInitialized();
    return true;
  }

  stopIfIdle(now: number, maxIdleTime: number): boolean {
    // Never stop a watch whose first list is still coming: that work would be lost.
    if (!this.#stopped && this.store.hasSynced() && now > this.lastAccessTime + maxIdleTime) {
      return this.stop();
    }
    return false;
  }

  restartReflectorIfNeeded(): void {
    if (this.immutable || !this.#stopped) return;
    this.#stopped = false;
    this.#stop = new AbortController();
    this.#startReflector();
  }

  // One run at a time: a restarted reflector waits for the stopped run to end.
  #startReflector(): void {
    if (this.parent.aborted) return;
    const stop = this.#stop;
    this.#running = this.#running.then(() => this.reflector.run(stop.signal));
    this.track(this.#running);
  }
}

/**
 * Options for {@link ObjectCache}.
 *
 * @category Watch-based store
 */
export interface ObjectCacheOptions<T> {
  /** Lists objects of the kind in a namespace (the field selector picks one). */
  listObject: (namespace: string, opts: ListOptions) => Promise<ObjectList<T>>;
  /** Watches objects of the kind in a namespace. */
  watchObject: (namespace: string, opts: ListOptions) => Promise<AsyncIterable<WatchEvent<T>>>;
  /** Whether an object can never change, so its watch may stop for good. */
  isImmutable: (obj: T) => boolean;
  /** The resource, for error messages: `{ group: '', resource: 'secrets' }`. */
  groupResource: GroupResource;
  /** Stops every watch and the idle check when it aborts. */
  signal: AbortSignal;
  /** How long a watch may go unread before it is stopped; at least {@link minIdleTime}. */
  maxIdleTime: number;
  /** The clock for idleness and the sync wait; defaults to the real clock. */
  clock?: Clock | undefined;
}

/**
 * A reference-counted store that keeps each referenced object up to date
 * with its own watch: Go's `objectCache`, the store behind the kubelet's
 * `Watch` strategy (its default).
 *
 * - The first reference to an object starts a reflector that lists and
 *   watches just that object (a `metadata.name` field selector); the last
 *   reference stops it.
 * - `get` waits up to one second for the first list, then answers from the
 *   local store, never from the API server. An object that does not exist
 *   gets a NotFound error.
 * - An object found to be immutable stops being watched: it cannot change.
 * - Every minute, watches not read for `maxIdleTime` are stopped (objects
 *   read only at pod start, such as environment variables, need no watch);
 *   the next `get` restarts the watch and waits for its list again.
 *
 * @category Watch-based store
 */
export class ObjectCache<T> implements Store<T> {
  readonly #opts: ObjectCacheOptions<T>;
  readonly #clock: Clock;
  readonly #maxIdleTime: number;
  readonly #items = new Map<string, ObjectCacheItem<T>>();
  readonly #running = new Set<Promise<void>>();

  constructor(opts: ObjectCacheOptions<T>) {
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#maxIdleTime = Math.max(opts.maxIdleTime, minIdleTime);
    if (opts.signal.aborted) return;
    const ticker = this.#clock.newTicker(60_000, () => this.#recycleIdleWatches());
    // One listener for the whole cache, however many objects it watches.
    opts.signal.addEventListener(
      'abort',
      () => {
        ticker.stop();
        for (const item of this.#items.values()) item.stop();
      },
      { once: true },
    );
  }

  addReference(namespace: string, name: string, referencedFrom: string): void {
    const key = `${namespace}/${name}`;
    let item = this.#items.get(key);
    if (item === undefined) {
      item = this.#newItem(namespace, name);
      this.#items.set(key, item);
    }
    item.refMap.set(referencedFrom, (item.refMap.get(referencedFrom) ?? 0) + 1);
  }

  deleteReference(namespace: string, name: string, referencedFrom: string): void {
    const key = `${namespace}/${name}`;
    const item = this.#items.get(key);
    const count = item?.refMap.get(referencedFrom);
    // A pod that holds no reference has none to give back.
    if (item === undefined || count === undefined) return;
    if (count > 1) item.refMap.set(referencedFrom, count - 1);
    else item.refMap.delete(referencedFrom);
    if (item.refMap.size === 0) {
      item.stop();
      this.#items.delete(key);
    }
  }

  //#region watch-get
  async get(namespace: string, name: string): Promise<T> {
    const item = this.#items.get(`${namespace}/${name}`);
    if (item === undefined) throw new NotRegisteredError(namespace, name);
    // Counted as a read whatever happens next, so the idle check leaves it alone.
    item.lastAccessTime = this.#clock.now();
    item.restartReflectorIfNeeded();
    if (!(await item.store.waitSynced(this.#clock, syncTimeout))) {
      const { group, resource } = this.#opts.groupResource;
      const gr = group === '' ? resource : `${resource}.${group}`;
      throw new Error(`failed to sync ${gr} cache: timed out waiting for the condition`);
    }
    const obj = item.store.store.getByKey(namespace === '' ? name : `${namespace}/${name}`);
    if (obj === undefined) throw newNotFound(this.#opts.groupResource, name);
    if (this.#opts.isImmutable(obj)) {
      item.immutable = true;
      item.stop();
    }
    return obj;
  }
  //#endregion watch-get

  /** Resolves once every watch this cache started has stopped (after its signal aborts). */
  async stopped(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  #newItem(namespace: string, name: string): ObjectCacheItem<T> {
    const onlyThis = (opts: ListOptions): void => {
      opts.fieldSelector = `metadata.name=${name}`;
    };
    const lw = new ListWatch<T>(
      (opts) => this.#opts.listObject(namespace, opts),
      (opts) => this.#opts.watchObject(namespace, opts),
      onlyThis,
    );
    const store = new CacheStore<T>();
    const reflector = new Reflector<T>(lw, store, {
      name: `object-"${namespace}"/"${name}"`,
      // Longer watches than the default 5 minutes: fewer requests per object.
      minWatchTimeout: 30 * 60_000,
      clock: this.#clock,
    });
    return new ObjectCacheItem(store, reflector, this.#opts.signal, (running) => {
      const settled = running.catch(() => {});
      this.#running.add(settled);
      void settled.then(() => this.#running.delete(settled));
    });
  }

  #recycleIdleWatches(): void {
    const now = this.#clock.now();
    for (const item of this.#items.values()) item.stopIfIdle(now, this.#maxIdleTime);
  }
}

/**
 * Options for {@link newWatchBasedManager}: those of {@link ObjectCache},
 * with the kubelet's resync interval in place of the idle time.
 *
 * @category Watch-based store
 */
export interface WatchBasedManagerOptions<T> extends Omit<ObjectCacheOptions<T>, 'maxIdleTime'> {
  /**
   * The kubelet's sync frequency (default one minute). Volumes re-read their
   * objects every interval, so a watch unread for five intervals serves only
   * environment variables and can stop.
   */
  resyncInterval: number;
  /** The names of the objects a pod references. */
  getReferencedObjects: GetReferencedObjects;
}

/**
 * A {@link Manager} whose background work (watches, timers) ends when its
 * signal aborts; `stopped()` resolves once it has.
 *
 * @category Manager
 */
export interface StoppableManager<T> extends Manager<T> {
  /** Resolves once every watch has stopped, after the signal aborted. */
  stopped(): Promise<void>;
}

/**
 * A manager that keeps every object the registered pods reference current
 * through one watch each: Go's `NewWatchBasedManager`.
 *
 * @category Watch-based store
 */
export function newWatchBasedManager<T>(opts: WatchBasedManagerOptions<T>): StoppableManager<T> {
  const { resyncInterval, getReferencedObjects, ...cacheOpts } = opts;
  const cache = new ObjectCache<T>({ ...cacheOpts, maxIdleTime: resyncInterval * 5 });
  const manager = new CacheBasedManager(cache, getReferencedObjects);
  return {
    getObject: (namespace, name) => manager.getObject(namespace, name),
    registerPod: (pod) => manager.registerPod(pod),
    unregisterPod: (pod) => manager.unregisterPod(pod),
    stopped: () => cache.stopped(),
  };
}
