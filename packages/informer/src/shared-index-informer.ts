// One watch and one cache of a resource, shared by every handler that cares
// about it: client-go tools/cache shared_informer.go (sharedIndexInformer).
import {
  deletionHandlingMetaNamespaceKeyFunc,
  noopLogger,
  realClock,
  type Clock,
  type DeletedFinalStateUnknown,
  type ListerWatcher,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  Controller,
  isSyncUpdate,
  newQueueFIFO,
  processDeltas,
  processDeltasInBatch,
} from './controller.js';
import { DoneSignal, type DoneChecker } from './done-checker.js';
import type { ResourceEventHandler } from './event-handler.js';
import type { InformerFeatureGates } from './feature-gates.js';
import type { Deltas } from './queue.js';
import type { Indexers } from './index-funcs.js';
import { Reflector, type ReflectorOptions, type WatchErrorHandler } from './reflector.js';
import {
  determineResyncPeriod,
  ProcessorListener,
  SharedProcessor,
  type ResourceEventHandlerRegistration,
} from './shared-processor.js';
import { shareWithCached } from './share-unchanged.js';
import { newIndexer, type Indexer, type TransformFunc } from './store.js';
import { withTrimDecodeHint } from './trim-managed-fields.js';

/**
 * The shortest resync period a handler can ask for, in milliseconds (one
 * second); shorter ones are raised to it. Go's `minimumResyncPeriod`.
 *
 * @category Shared informer
 */
export const minimumResyncPeriod = 1000;

/**
 * Options for a {@link SharedIndexInformer}: Go's
 * `SharedIndexInformerOptions` and the settings of `sharedIndexInformer`,
 * with the reflector's options ({@link ReflectorOptions}), passed on to its
 * reflector as they are.
 *
 * @category Shared informer
 */
export interface SharedIndexInformerOptions<T> extends Omit<
  ReflectorOptions,
  'name' | 'typeDescription' | 'shouldResync'
> {
  /**
   * The default resync period of handlers, in milliseconds, and the
   * informer's resync check period. `0` (default) means no handler is ever
   * resynced, whatever it asks for.
   */
  resyncPeriod?: number;
  /** Index functions for the cache, in addition to none. */
  indexers?: Indexers<T>;
  /** What the informer watches, for messages (such as `pods`). */
  objectDescription?: string;
  /** Changes each object before the cache or any handler sees it. See {@link SharedIndexInformer.setTransform}. */
  transform?: TransformFunc<T>;
  /**
   * Before an object replaces an older version in the cache, make its
   * unchanged parts the older version's own ({@link shareUnchanged}), so
   * that only what changed stays in memory. This lightens the garbage
   * collector's work for a cache of many objects that change a little at a
   * time. Handlers then see an `onUpdate` whose old and new objects share
   * their unchanged parts (`oldObj.spec === newObj.spec` when the spec did
   * not change): as in client-go, objects from an informer must not be
   * changed. Default `false`; the controller manager sets it. Not in
   * client-go.
   */
  shareUnchanged?: boolean;
  /**
   * Which queue and processing to use, by client-go's gate names; default
   * client-go 1.36's ({@link defaultInformerFeatureGates}): a
   * {@link RealFIFO} with atomic relists and batches. `{ InOrderInformers:
   * false }` selects the {@link DeltaFIFO}.
   */
  featureGates?: InformerFeatureGates;
}

/**
 * Options for {@link SharedIndexInformer.addEventHandler}: Go's `HandlerOptions`.
 *
 * @category Shared informer
 */
export interface HandlerOptions {
  /**
   * How often this handler is passed every object again through `onUpdate`,
   * in milliseconds. Default the informer's resync period; see
   * {@link SharedIndexInformer.addEventHandler} for how it is adjusted.
   */
  resyncPeriod?: number;
  /** Where this handler's messages go. Default the informer's logger. */
  logger?: Logger;
}

/**
 * A watch of one resource, a cache of it with indexes, and any number of
 * event handlers: Go's `SharedIndexInformer`. One reflector lists and watches
 * into a {@link DeltaFIFO}; each popped change is applied to the cache and
 * then handed to every handler, each through its own unbounded buffer and
 * delivery loop, so a slow handler delays only itself and loses nothing.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#shared-informer}
 *
 * @category Shared informer
 */
export class SharedIndexInformer<T> {
  readonly #lw: ListerWatcher<T>;
  readonly #options: SharedIndexInformerOptions<T>;
  readonly #indexer: Indexer<T>;
  readonly #processor: SharedProcessor<T>;
  readonly #clock: Clock;
  readonly #name: string;
  #resyncCheckPeriod: number;
  readonly #defaultEventHandlerResyncPeriod: number;
  readonly #logger: Logger;
  #transform: TransformFunc<T> | undefined;
  #watchErrorHandler: WatchErrorHandler | undefined;
  readonly #errorListeners = new Set<(err: unknown) => void>();
  #controller: Controller<T> | undefined;
  #started = false;
  #stopped = false;
  readonly #synced: DoneSignal;
  readonly #handler: ResourceEventHandler<T>;

  /**
   * @param lw - lists and watches the resource (a resource client, or a {@link ListWatch})
   * @param options - see {@link SharedIndexInformerOptions}
   */
  constructor(lw: ListerWatcher<T>, options: SharedIndexInformerOptions<T> = {}) {
    this.#lw = lw;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#name = options.objectDescription ?? 'objects';
    this.#synced = new DoneSignal(`SharedIndexInformer ${this.#name}`);
    this.#indexer = newIndexer<T>(deletionHandlingMetaNamespaceKeyFunc, options.indexers ?? {});
    this.#processor = new SharedProcessor<T>(this.#clock);
    this.#resyncCheckPeriod = options.resyncPeriod ?? 0;
    this.#defaultEventHandlerResyncPeriod = options.resyncPeriod ?? 0;
    this.#transform = options.transform;
    this.#watchErrorHandler = options.watchErrorHandler;
    this.#logger = options.logger ?? noopLogger;
    // The informer is the handler of its own delta processing; it passes
    // each change on to the listeners (shared_informer.go, OnAdd/OnUpdate/OnDelete).
    //#region informer-handler
    const processor = this.#processor;
    this.#handler = {
      onAdd: (obj, isInInitialList) =>
        processor.distribute({ kind: 'add', obj, isInInitialList }, false),
      onUpdate: (oldObj, newObj) =>
        processor.distribute({ kind: 'update', oldObj, newObj }, isSyncUpdate(oldObj, newObj)),
      onDelete: (obj: T | DeletedFinalStateUnknown<T>) =>
        processor.distribute({ kind: 'delete', obj }, false),
    };
    //#endregion informer-handler
  }

  /**
   * Adds a handler and returns its registration. Before the informer runs,
   * the handler simply waits for the first list. While it runs, the handler
   * is first given every object already in the cache as an initial-list
   * `onAdd`, then the changes that follow. The same handler object may be
   * added several times; each registration is independent.
   *
   * The resync period defaults to the informer's. A positive period under
   * one second is raised to {@link minimumResyncPeriod}. One shorter than the
   * informer's check period lowers the check period if the informer has not
   * started, and is raised to it otherwise. An informer made with no resync
   * period never resyncs any handler.
   *
   * @throws Error if the informer has stopped
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options: HandlerOptions = {},
  ): ResourceEventHandlerRegistration {
    // shared_informer.go, AddEventHandlerWithOptions
    if (this.#stopped) {
      throw new Error(
        `handler was not added to shared informer ${this.#name} because it has stopped already`,
      );
    }
    //#region add-event-handler
    const logger = options.logger ?? this.#logger;
    let resyncPeriod = options.resyncPeriod ?? this.#defaultEventHandlerResyncPeriod;
    if (resyncPeriod > 0) {
      if (resyncPeriod < minimumResyncPeriod) {
        logger.info(
          'Warning: resync period is too small. Changing it to the minimum allowed value',
          {
            resyncPeriod,
            minimumResyncPeriod,
          },
        );
        resyncPeriod = minimumResyncPeriod;
      }
      if (resyncPeriod < this.#resyncCheckPeriod) {
        if (this.#started) {
          logger.info(
            'Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period',
            { resyncPeriod, resyncCheckPeriod: this.#resyncCheckPeriod },
          );
          resyncPeriod = this.#resyncCheckPeriod;
        } else {
          this.#resyncCheckPeriod = resyncPeriod;
          this.#processor.resyncCheckPeriodChanged(resyncPeriod);
        }
      }
    }
    const listener = new ProcessorListener<T>(
      handler,
      resyncPeriod,
      determineResyncPeriod(resyncPeriod, this.#resyncCheckPeriod, logger),
      this.#clock,
      `${this.#name} event handler`,
      logger,
    );
    // Synchronous code runs between deltas, so the cache cannot change while
    // its contents are queued to the new handler (Go holds blockDeltas).
    this.#processor.addListener(listener, this.#started ? this.#indexer.list() : []);
    return listener;
    //#endregion add-event-handler
  }

  /**
   * Removes a handler: it is given nothing more, though a call already
   * running finishes. Removing an unknown or already removed registration
   * does nothing. Works on a stopped informer too.
   */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (registration instanceof ProcessorListener) {
      this.#processor.removeListener(registration as ProcessorListener<T>);
    }
  }

  /**
   * Removes a handler like {@link SharedIndexInformer.removeEventHandler},
   * then resolves once its delivery loop has ended (so its running call has
   * returned). Do not await it from inside that handler. Go's
   * `ShutDownEventHandler`.
   */
  async shutDownEventHandler(registration: ResourceEventHandlerRegistration): Promise<void> {
    if (!(registration instanceof ProcessorListener)) return;
    this.#processor.removeListener(registration as ProcessorListener<T>);
    await (registration as ProcessorListener<T>).done();
  }

  /**
   * Lists, watches and delivers until `signal` aborts, then stops every
   * handler's delivery and resolves. An informer runs once: a second call
   * only warns.
   */
  async run(signal: AbortSignal): Promise<void> {
    // shared_informer.go, RunWithContext
    if (this.#started) {
      this.#logger.info(
        'Warning: the sharedIndexInformer has started, run more than once is not allowed',
      );
      return;
    }
    const queue = newQueueFIFO(
      this.#indexer,
      this.#transform,
      this.#name,
      this.#options.featureGates,
      this.#logger,
    );
    const share = this.#options.shareUnchanged === true;
    // The reflector's options pass through; the informer fills in its own.
    const controller = new Controller<T>({
      ...this.#options,
      queue,
      listerWatcher: withTrimDecodeHint(this.#lw, this.#transform),
      process: (deltas: Deltas<T>, isInInitialList: boolean, key?: string) => {
        if (share) shareWithCached(this.#indexer, deltas, key);
        processDeltas(this.#handler, this.#indexer, deltas, isInInitialList, this.#logger, key);
      },
      processBatch: (deltas: Deltas<T>, isInInitialList: boolean, keys?: readonly string[]) => {
        if (share) shareWithCached(this.#indexer, deltas, keys);
        processDeltasInBatch(
          this.#handler,
          this.#indexer,
          deltas,
          isInInitialList,
          keys,
          this.#logger,
        );
      },
      name: this.#name,
      typeDescription: this.#name,
      resyncPeriod: this.#resyncCheckPeriod,
      shouldResync: () => this.#processor.shouldResync(),
      clock: this.#clock,
      watchErrorHandler: (reflector, err) => {
        for (const listener of this.#errorListeners) listener(err);
        (this.#watchErrorHandler ?? Reflector.defaultWatchErrorHandler)(reflector, err);
      },
    });
    this.#controller = controller;
    this.#started = true;
    this.#processor.run();
    // shared_informer.go, RunWithContext: close synced once the controller has.
    void controller
      .hasSyncedChecker()
      .done()
      .then(() => {
        if (this.#stopped) return;
        this.#synced.close();
        this.#processor.upstreamHasSynced();
      });
    try {
      await controller.run(signal);
    } finally {
      this.#stopped = true;
      await this.#processor.stop();
    }
  }

  /**
   * True once the first list has been applied to the cache and handed to
   * the handlers (not that every handler has processed it: ask each
   * registration for that).
   */
  hasSynced(): boolean {
    return this.#controller?.hasSynced() ?? false;
  }

  /** Resolves once the informer has synced; never, if it stops first. */
  whenSynced(): Promise<void> {
    return this.#synced.done();
  }

  /** Done once the informer has synced: Go's `HasSyncedChecker`. */
  hasSyncedChecker(): DoneChecker {
    return this.#synced;
  }

  /** True once {@link SharedIndexInformer.run} has returned. */
  isStopped(): boolean {
    return this.#stopped;
  }

  /** The resourceVersion last seen from the server; `''` before the informer runs. */
  lastSyncResourceVersion(): string {
    return this.#controller?.lastSyncResourceVersion() ?? '';
  }

  /** The cache (the same object as {@link SharedIndexInformer.getIndexer}). */
  getStore(): Indexer<T> {
    return this.#indexer;
  }

  /** The cache, with its indexes. Treat the objects in it as read-only. */
  getIndexer(): Indexer<T> {
    return this.#indexer;
  }

  /**
   * Adds index functions, indexing what the cache holds already.
   *
   * @throws Error if the informer has stopped, or a name is already taken
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#stopped)
      throw new Error(`informer ${this.#name} has stopped; no indexers can be added`);
    this.#indexer.addIndexers(indexers);
  }

  /**
   * Sets the function called with every list-and-watch failure (Go's
   * `SetWatchErrorHandler`); the default logs it (`Failed to watch`).
   *
   * @throws Error if the informer has started
   */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.#started) throw new Error('informer has already started');
    this.#watchErrorHandler = handler;
  }

  /**
   * Calls `listener` with every list-and-watch failure, besides the watch
   * error handler; returns a function that removes it. Not in client-go: it
   * lets {@link SharedInformerFactory.waitForCacheSync} stop waiting on an
   * error that retrying will not fix.
   */
  onWatchError(listener: (err: unknown) => void): () => void {
    const own = (err: unknown): void => listener(err);
    this.#errorListeners.add(own);
    return () => this.#errorListeners.delete(own);
  }

  /**
   * Sets a function that changes each object before the cache or any handler
   * sees it, such as one that drops `metadata.managedFields` to save memory.
   * It must return quickly and may change the object in place.
   *
   * @throws Error if the informer has started
   */
  setTransform(transform: TransformFunc<T>): void {
    if (this.#started) throw new Error('informer has already started');
    this.#transform = transform;
  }
}
