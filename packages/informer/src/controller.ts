// The low-level informer: client-go tools/cache controller.go (Config, New,
// controller.RunWithContext, processLoop, processDeltas,
// processDeltasInBatch, processReplacedAllInfo, newQueueFIFO and
// NewInformerWithOptions). A reflector fills a queue; one loop pops it and
// hands the changes to a process function.
import {
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceKeyFunc,
  noopLogger,
  type DeletedFinalStateUnknown,
  type ListerWatcher,
  type Logger,
} from '@kcm-ts/apimachinery';
import { newDeltaFIFO } from './delta-fifo.js';
import type { DoneChecker } from './done-checker.js';
import type { ResourceEventHandler } from './event-handler.js';
import { resolveFeatureGates, type InformerFeatureGates } from './feature-gates.js';
import type { Indexers } from './index-funcs.js';
import { keyOrThrow } from './keys.js';
import {
  isDrainable,
  type Deltas,
  type DrainableQueue,
  type KeyedPopProcessFunc,
  type KeyedProcessBatchFunc,
  type PopProcessFunc,
  type ProcessBatchFunc,
  type Queue,
  type QueueWithBatch,
  type ReplacedAllInfo,
} from './queue.js';
import { newRealFIFO, reconcileReplacement } from './real-fifo.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import { keyedStoreOf, newIndexer, type Indexer, type Store, type TransformFunc } from './store.js';

/**
 * What a {@link Controller} runs: Go's `cache.Config`. The reflector's
 * options ({@link ReflectorOptions}) are passed on to it as they are.
 *
 * @category Controller
 */
export interface ControllerConfig<T> extends ReflectorOptions {
  /** The queue the reflector fills and the loop drains: a {@link RealFIFO} or a {@link DeltaFIFO}. */
  queue: Queue<T>;
  /** Lists and watches the resource. */
  listerWatcher: ListerWatcher<T>;
  /**
   * Called with what each pop takes, oldest first. What it throws is
   * dropped: the deltas are not retried (as in client-go).
   */
  process: PopProcessFunc<T>;
  /**
   * Called with a batch of changes of distinct objects, when the queue can
   * pop batches and `InOrderInformersBatchProcess` is on. Go's `ProcessBatch`.
   */
  processBatch?: ProcessBatchFunc<T>;
  /** The gates in force; only `InOrderInformersBatchProcess` matters here. */
  featureGates?: InformerFeatureGates;
}

/**
 * Runs a {@link Reflector} into a queue and a loop that pops the queue into
 * a process function, until a signal aborts: Go's `cache.Controller`.
 * {@link SharedIndexInformer} is built on it; use it directly through
 * {@link newInformer}.
 *
 * @category Controller
 */
export class Controller<T> {
  readonly #config: ControllerConfig<T>;
  #reflector: Reflector<T> | undefined;

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
    // controller.go, RunWithContext
    const c = this.#config;
    const queue = c.queue;
    const closeQueue = (): void => queue.close();
    if (signal.aborted) closeQueue();
    else signal.addEventListener('abort', closeQueue, { once: true });
    // The config is the reflector's options: handed over as it is.
    const reflector = new Reflector<T>(c.listerWatcher, queue, c);
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

  /** Done once {@link Controller.hasSynced} turns true: the queue's checker. */
  hasSyncedChecker(): DoneChecker {
    return this.#config.queue.hasSyncedChecker();
  }

  /** Resolves once {@link Controller.hasSynced} turns true; never, if it does not. */
  whenSynced(): Promise<void> {
    return this.#config.queue.hasSyncedChecker().done();
  }

  /** The resourceVersion the reflector last saw; `''` before {@link Controller.run}. */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  // controller.go, processLoop: pops until the queue is closed and empty.
  // What process throws is dropped; the change is not retried.
  #processLoop(): Promise<void> {
    const c = this.#config;
    const queue = c.queue;
    // The queues of this package pass each change's key as a third argument.
    const process: KeyedPopProcessFunc<T> = c.process;
    const single: KeyedPopProcessFunc<T> = (deltas, isInInitialList, key) => {
      try {
        process(deltas, isInInitialList, key);
      } catch {
        // As in client-go, a failed item is not retried.
      }
    };
    let batch: KeyedProcessBatchFunc<T> | undefined;
    const processBatch: KeyedProcessBatchFunc<T> | undefined = c.processBatch;
    const gates = resolveFeatureGates(c.featureGates);
    if (processBatch !== undefined && gates.InOrderInformersBatchProcess && 'popBatch' in queue) {
      batch = (deltas, isInInitialList, keys) => {
        try {
          processBatch(deltas, isInInitialList, keys);
        } catch {
          // Dropped, as a single change's error is.
        }
      };
    }
    if (isDrainable<T>(queue)) return drain(queue, single, batch);
    return popLoop(queue, single, batch);
  }
}

// The queues of this package are drained synchronously whenever they have
// something, and waited on with a callback when empty: no promise per change.
function drain<T>(
  queue: DrainableQueue<T>,
  single: KeyedPopProcessFunc<T>,
  batch: KeyedProcessBatchFunc<T> | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    const step = (): void => {
      for (;;) {
        const outcome = queue.popNow(single, batch);
        if (outcome === 'closed') return resolve();
        if (outcome === 'empty') return queue.onReady(step);
      }
    };
    queue.onReady(step);
  });
}

// Any other queue, through its promises.
async function popLoop<T>(
  queue: Queue<T>,
  single: KeyedPopProcessFunc<T>,
  batch: KeyedProcessBatchFunc<T> | undefined,
): Promise<void> {
  for (;;) {
    const closed =
      batch === undefined
        ? (await queue.pop(single))[1]
        : await (queue as QueueWithBatch<T>).popBatch(batch, single);
    if (closed) return;
  }
}

/**
 * Applies popped changes to `store` and tells `handler`, oldest first: Go's
 * `processDeltas`. Whether an object is new is decided by the store, not by
 * the change type: an `Added`, `Updated`, `Replaced` or `Sync` change of an
 * object the store already holds is an update. A deletion is passed on even
 * if the store did not hold the object. A `ReplacedAll` replaces the whole
 * store, then tells of every deletion, then of every listed object; a
 * `SyncAll` passes every stored object to `onUpdate`; a `Bookmark` only
 * moves the store's resourceVersion.
 *
 * @param key - the key every change's object has in `store`, when the
 *   caller knows it (the queues of this package pass it), so it is not
 *   computed again
 *
 * @category Controller
 */
//#region process-deltas
export function processDeltas<T>(
  handler: ResourceEventHandler<T>,
  store: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
  logger: Logger = noopLogger,
  key?: string,
): void {
  const keyed = key === undefined ? undefined : keyedStoreOf(store);
  for (const d of deltas) {
    switch (d.type) {
      case 'ReplacedAll':
        processReplacedAllInfo(handler, store, d.object, isInInitialList, logger);
        break;
      case 'SyncAll':
        for (const obj of store.list()) settle(handler.onUpdate?.(obj, obj), logger);
        return; // As in Go: nothing after a SyncAll in the same pop.
      case 'Bookmark':
        store.bookmark(d.object.resourceVersion);
        break;
      case 'Deleted': {
        const obj = d.object as T;
        if (keyed) keyed.deleteKeyed(key as string, obj);
        else store.delete(obj);
        settle(handler.onDelete?.(d.object), logger);
        break;
      }
      default: {
        const obj = d.object as T;
        const old = keyed ? keyed.getByKey(key as string) : store.get(obj);
        if (old !== undefined) {
          if (keyed) keyed.updateKeyed(key as string, obj);
          else store.update(obj);
          settle(handler.onUpdate?.(old, obj), logger);
        } else {
          if (keyed) keyed.addKeyed(key as string, obj);
          else store.add(obj);
          settle(handler.onAdd?.(obj, isInInitialList), logger);
        }
      }
    }
  }
}
//#endregion process-deltas

/**
 * Applies a batch of changes of distinct objects to `store`, all of them
 * first, then tells `handler` of each in order: Go's `processDeltasInBatch`
 * with a store that supports transactions. A store that is not one of this
 * package's (or no keys) gets the changes one by one, as in Go.
 *
 * @param keys - each change's key in `store`, when the caller knows them
 *
 * @category Controller
 */
export function processDeltasInBatch<T>(
  handler: ResourceEventHandler<T>,
  store: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
  keys?: readonly string[],
  logger: Logger = noopLogger,
): void {
  const keyed = keys === undefined ? undefined : keyedStoreOf(store);
  if (keyed === undefined || keys === undefined) {
    for (const d of deltas) processDeltas(handler, store, [d], isInInitialList, logger);
    return;
  }
  for (const d of deltas) {
    if (
      d.type !== 'Deleted' &&
      d.type !== 'Added' &&
      d.type !== 'Updated' &&
      d.type !== 'Replaced' &&
      d.type !== 'Sync'
    ) {
      throw new Error(`Delta type ${d.type} is not supported in batch processing`);
    }
  }
  // The store takes the whole batch before any handler hears of it.
  const olds = new Array<T | undefined>(deltas.length);
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i] as Deltas<T>[number];
    const key = keys[i] as string;
    const obj = d.object as T;
    if (d.type === 'Deleted') {
      keyed.deleteKeyed(key, obj);
      continue;
    }
    const old = keyed.getByKey(key);
    olds[i] = old;
    if (old !== undefined) keyed.updateKeyed(key, obj);
    else keyed.addKeyed(key, obj);
  }
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i] as Deltas<T>[number];
    const old = olds[i];
    if (d.type === 'Deleted') settle(handler.onDelete?.(d.object), logger);
    else if (old !== undefined) settle(handler.onUpdate?.(old, d.object as T), logger);
    else settle(handler.onAdd?.(d.object as T, isInInitialList), logger);
  }
}

// controller.go, processReplacedAllInfo: the store is replaced first, so it
// holds what handlers are then told; deletions come before the list, in
// list order, as a non-atomic RealFIFO queues them.
function processReplacedAllInfo<T>(
  handler: ResourceEventHandler<T>,
  store: Store<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
  logger: Logger,
): void {
  const keyed = keyedStoreOf(store);
  const keyFunc = keyed?.keyFunc ?? deletionHandlingMetaNamespaceKeyFunc;
  const objects = info.objects;
  const keys = objects.map((obj) => keyOrThrow(keyFunc, obj));
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  reconcileReplacement<T>(
    [],
    store,
    new Set(keys),
    (_key, tombstone) => deletions.push(tombstone),
    logger,
  );
  const olds = keys.map((key) => store.getByKey(key));
  if (keyed) keyed.replaceKeyed(keys, objects, info.resourceVersion);
  else store.replace(objects, info.resourceVersion);
  for (const tombstone of deletions) settle(handler.onDelete?.(tombstone), logger);
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i] as T;
    const old = olds[i];
    if (old !== undefined) settle(handler.onUpdate?.(old, obj), logger);
    else settle(handler.onAdd?.(obj, isInInitialList), logger);
  }
}

// The process loop does not wait for a handler's promise; a rejection is
// logged as client-go logs a handler's panic, rather than left unhandled
// (which would end the process).
function settle(result: unknown, logger: Logger): void {
  if (result instanceof Promise) {
    result.catch((err: unknown) => logger.error(err, 'Observed a panic'));
  }
}

/**
 * The queue an informer runs on, as the gates choose it: Go's
 * `newQueueFIFO`. A {@link RealFIFO} with `InOrderInformers` (atomic, with
 * bookmarks, under `AtomicFIFO`; otherwise over the informer's store), else
 * a {@link DeltaFIFO} over the store.
 */
export function newQueueFIFO<T>(
  store: Indexer<T>,
  transform: TransformFunc<T> | undefined,
  description: string,
  featureGates: InformerFeatureGates | undefined,
  logger: Logger,
): Queue<T> {
  const gates = resolveFeatureGates(featureGates);
  if (!gates.InOrderInformers) {
    return newDeltaFIFO<T>({
      name: `DeltaFIFO ${description}`,
      knownObjects: store,
      emitDeltaTypeReplaced: true,
      transformer: transform,
    });
  }
  const atomic = gates.AtomicFIFO;
  return newRealFIFO<T>({
    name: `RealFIFO ${description}`,
    keyFunction: metaNamespaceKeyFunc,
    transformer: transform,
    logger,
    atomicEvents: atomic,
    emitDeltaTypeBookmark: atomic,
    knownObjects: atomic ? undefined : store,
  });
}

/**
 * Options for {@link newInformer}: Go's `InformerOptions`, with the
 * reflector's options passed on as they are.
 *
 * @category Controller
 */
export interface InformerOptions<T> extends Omit<ReflectorOptions, 'shouldResync'> {
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
  /** Which queue and processing to use; default client-go 1.36's ({@link defaultInformerFeatureGates}). */
  featureGates?: InformerFeatureGates;
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
  const logger = options.logger ?? noopLogger;
  const queue = newQueueFIFO(
    indexer,
    options.transform,
    options.typeDescription ?? options.name ?? 'objects',
    options.featureGates,
    logger,
  );
  const handler = options.handler;
  const process: KeyedPopProcessFunc<T> = (deltas, isInInitialList, key) =>
    processDeltas(handler, indexer, deltas, isInInitialList, logger, key);
  const processBatch: KeyedProcessBatchFunc<T> = (deltas, isInInitialList, keys) =>
    processDeltasInBatch(handler, indexer, deltas, isInInitialList, keys, logger);
  const controller = new Controller<T>({ ...options, queue, process, processBatch });
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
