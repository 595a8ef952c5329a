// The low-level informer: client-go tools/cache controller.go (Config, New,
// controller.RunWithContext, processLoop, processDeltas and
// NewInformerWithOptions). A reflector fills a DeltaFIFO; one loop pops it and
// hands each key's deltas to a process function.
import {
  deletionHandlingMetaNamespaceKeyFunc,
  realClock,
  type Clock,
  type ListerWatcher,
} from '@kcm-ts/apimachinery';
import { newDeltaFIFO, type DeltaFIFO, type Deltas, type PopProcessFunc } from './delta-fifo.js';
import type { ResourceEventHandler } from './event-handler.js';
import type { Indexers } from './index-funcs.js';
import { Reflector, type ReflectorBackoff, type ReflectorStore } from './reflector.js';
import { newIndexer, type Indexer, type Store, type TransformFunc } from './store.js';

/**
 * What a {@link Controller} runs: Go's `cache.Config`.
 *
 * @category Controller
 */
export interface ControllerConfig<T> {
  /** The queue the reflector fills and the loop drains. */
  queue: DeltaFIFO<T>;
  /** Lists and watches the resource. */
  listerWatcher: ListerWatcher<T>;
  /**
   * Called with each key's deltas, oldest first. What it throws is dropped:
   * the deltas are not retried (as in client-go).
   */
  process: PopProcessFunc<T>;
  /** A name for messages (the reflector's name). */
  name?: string;
  /** How often the reflector resyncs the queue, in milliseconds; `0` (default) never. */
  resyncPeriod?: number;
  /** Asked before each resync; return `false` to skip it. */
  shouldResync?: () => boolean;
  /** See {@link ReflectorOptions.minWatchTimeout}. */
  minWatchTimeout?: number;
  /** Called with each list-and-watch failure; see {@link ReflectorOptions.watchErrorHandler}. */
  watchErrorHandler?: (reflector: Reflector<unknown>, err: unknown) => void;
  /** Items per list page; see {@link ReflectorOptions.pageSize}. */
  pageSize?: number;
  /** The reflector's backoff; see {@link ReflectorOptions.backoff}. */
  backoff?: ReflectorBackoff;
  /** The time source. Default the real clock. */
  clock?: Clock;
  /** Randomness for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
  /** Stream the initial state; see {@link ReflectorOptions.useWatchList}. */
  useWatchList?: boolean;
}

/**
 * Runs a {@link Reflector} into a {@link DeltaFIFO} and a loop that pops the
 * queue into a process function, until a signal aborts: Go's
 * `cache.Controller`. {@link SharedIndexInformer} is built on it; use it
 * directly through {@link newInformer}.
 *
 * @category Controller
 */
export class Controller<T> {
  readonly #config: ControllerConfig<T>;
  #reflector: Reflector<T> | undefined;
  #synced = false;
  readonly #syncedWaiters: (() => void)[] = [];

  /** @param config - what to run; see {@link ControllerConfig} */
  constructor(config: ControllerConfig<T>) {
    this.#config = config;
  }

  /**
   * Lists, watches and processes until `signal` aborts, then closes the
   * queue and resolves once the reflector and the loop have stopped. Call it
   * once.
   */
  async run(signal: AbortSignal): Promise<void> {
    const c = this.#config;
    const queue = c.queue;
    const closeQueue = (): void => queue.close();
    if (signal.aborted) closeQueue();
    else signal.addEventListener('abort', closeQueue, { once: true });
    const reflector = new Reflector<T>(c.listerWatcher, this.#watchedQueue(), {
      ...(c.name !== undefined && { name: c.name }),
      resyncPeriod: c.resyncPeriod ?? 0,
      ...(c.shouldResync && { shouldResync: c.shouldResync }),
      ...(c.minWatchTimeout !== undefined && { minWatchTimeout: c.minWatchTimeout }),
      ...(c.watchErrorHandler && { watchErrorHandler: c.watchErrorHandler }),
      ...(c.pageSize !== undefined && { pageSize: c.pageSize }),
      ...(c.backoff && { backoff: c.backoff }),
      ...(c.clock && { clock: c.clock }),
      ...(c.random && { random: c.random }),
      ...(c.useWatchList !== undefined && { useWatchList: c.useWatchList }),
    });
    this.#reflector = reflector;
    const reflecting = signal.aborted ? Promise.resolve() : reflector.run(signal);
    try {
      await this.#processLoop();
    } finally {
      signal.removeEventListener('abort', closeQueue);
      await reflecting;
    }
  }

  /** True once the first list has been processed (the queue's `hasSynced`). */
  hasSynced(): boolean {
    return this.#config.queue.hasSynced();
  }

  /** Resolves once {@link Controller.hasSynced} turns true; never, if it does not. */
  whenSynced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncedWaiters.push(resolve));
  }

  /** The resourceVersion the reflector last saw; `''` before {@link Controller.run}. */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  async #processLoop(): Promise<void> {
    // controller.go, processLoop: errors from process are dropped.
    const process: PopProcessFunc<T> = (deltas, isInInitialList) => {
      try {
        this.#config.process(deltas, isInInitialList);
      } catch {
        // As in client-go, a failed item is not retried.
      }
    };
    for (;;) {
      const [, closed] = await this.#config.queue.pop(process);
      this.#checkSynced();
      if (closed) return;
    }
  }

  // The queue's hasSynced can turn true on a replace with nothing to pop,
  // on a write before the first list, or on a pop; check after each.
  #watchedQueue(): ReflectorStore<T> {
    const queue = this.#config.queue;
    const after = <A extends unknown[]>(fn: (...args: A) => void) => {
      return (...args: A): void => {
        fn(...args);
        this.#checkSynced();
      };
    };
    return {
      add: after((obj: T) => queue.add(obj)),
      update: after((obj: T) => queue.update(obj)),
      delete: after((obj: T) => queue.delete(obj)),
      replace: after((list: readonly T[], rv: string) => queue.replace(list, rv)),
      resync: () => queue.resync(),
    };
  }

  #checkSynced(): void {
    if (this.#synced || !this.#config.queue.hasSynced()) return;
    this.#synced = true;
    for (const resolve of this.#syncedWaiters.splice(0)) resolve();
  }
}

/**
 * Applies one key's deltas to `store` and tells `handler`, oldest first: Go's
 * `processDeltas`. Whether an object is new is decided by the store, not by
 * the delta type: an `Added`, `Updated`, `Replaced` or `Sync` delta of an
 * object the store already holds is an update. A deletion is passed on even
 * if the store did not hold the object.
 *
 * @category Controller
 */
//#region process-deltas
export function processDeltas<T>(
  handler: ResourceEventHandler<T>,
  store: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
): void {
  for (const d of deltas) {
    if (d.type === 'Deleted') {
      store.delete(d.object as T);
      settle(handler.onDelete?.(d.object));
      continue;
    }
    const obj = d.object as T;
    const old = store.get(obj);
    if (old !== undefined) {
      store.update(obj);
      settle(handler.onUpdate?.(old, obj));
    } else {
      store.add(obj);
      settle(handler.onAdd?.(obj, isInInitialList));
    }
  }
  //#endregion process-deltas
}

// The process loop does not wait for a handler's promise; a rejection is
// reported rather than left unhandled (which would end the process).
function settle(result: unknown): void {
  if (result instanceof Promise) {
    result.catch((err: unknown) => console.error('informer: event handler failed:', err));
  }
}

/**
 * Options for {@link newInformer}: Go's `InformerOptions`.
 *
 * @category Controller
 */
export interface InformerOptions<T> {
  /** Lists and watches the resource. */
  listerWatcher: ListerWatcher<T>;
  /** Called synchronously, in the process loop, for every change. */
  handler: ResourceEventHandler<T>;
  /** How often every object is passed to `onUpdate` again, in milliseconds; `0` (default) never. */
  resyncPeriod?: number;
  /** Index functions for the returned indexer. */
  indexers?: Indexers<T>;
  /** Changes each object before it is stored, such as dropping `managedFields`. */
  transform?: TransformFunc<T>;
  /** A name for messages. */
  name?: string;
  /** The time source. Default the real clock. */
  clock?: Clock;
}

/**
 * What {@link newInformer} returns.
 *
 * @category Controller
 */
export interface Informer<T> {
  /** The cache the controller keeps up to date. */
  indexer: Indexer<T>;
  /** Run it to fill the cache and call the handler. */
  controller: Controller<T>;
}

/**
 * A cache and the {@link Controller} that fills it, calling one handler
 * synchronously for every change: Go's `NewInformerWithOptions`. Prefer a
 * {@link SharedIndexInformer} when several parts of a program watch the same
 * resource.
 *
 * @category Controller
 */
export function newInformer<T>(options: InformerOptions<T>): Informer<T> {
  const indexer = newIndexer<T>(deletionHandlingMetaNamespaceKeyFunc, options.indexers ?? {});
  const queue = newDeltaFIFO<T>({
    knownObjects: indexer,
    emitDeltaTypeReplaced: true,
    ...(options.transform && { transformer: options.transform }),
  });
  const controller = new Controller<T>({
    queue,
    listerWatcher: options.listerWatcher,
    process: (deltas, isInInitialList) =>
      processDeltas(options.handler, indexer, deltas, isInInitialList),
    resyncPeriod: options.resyncPeriod ?? 0,
    ...(options.name !== undefined && { name: options.name }),
    clock: options.clock ?? realClock,
  });
  return { indexer, controller };
}

// shared_informer.go, OnUpdate: both objects have metadata and the same
// resourceVersion, so this is a resync or an unchanged object of a relist.
export function isSyncUpdate(oldObj: unknown, newObj: unknown): boolean {
  const oldMeta = (oldObj as { metadata?: { resourceVersion?: string } } | null)?.metadata;
  const newMeta = (newObj as { metadata?: { resourceVersion?: string } } | null)?.metadata;
  if (typeof oldMeta !== 'object' || typeof newMeta !== 'object') return false;
  return (oldMeta.resourceVersion ?? '') === (newMeta.resourceVersion ?? '');
}
