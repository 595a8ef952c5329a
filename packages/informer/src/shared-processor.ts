// Fans an informer's notifications out to its handlers, each with its own
// unbounded buffer and its own delivery loop: client-go tools/cache
// shared_informer.go (sharedProcessor, processorListener).
import {
  FifoBuffer,
  type Clock,
  type DeletedFinalStateUnknown,
  type Logger,
} from '@kcm-ts/apimachinery';
import { DoneSignal, type DoneChecker } from './done-checker.js';
import type { ResourceEventHandler } from './event-handler.js';
import { SingleFileTracker } from './synctrack.js';

/** One change to hand to a handler. */
export type Notification<T> =
  | { readonly kind: 'add'; readonly obj: T; readonly isInInitialList: boolean }
  | { readonly kind: 'update'; readonly oldObj: T; readonly newObj: T }
  | { readonly kind: 'delete'; readonly obj: T | DeletedFinalStateUnknown<T> };

/**
 * What {@link SharedIndexInformer.addEventHandler} returns: a handle to remove
 * the handler with, and its own sync state. Go's
 * `ResourceEventHandlerRegistration`.
 *
 * @category Shared informer
 */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and this handler has returned from
   * every `onAdd` of the initial list (or of the cache contents it was given
   * when added late).
   */
  hasSynced(): boolean;
  /** Resolves when {@link ResourceEventHandlerRegistration.hasSynced} turns true; never, if it does not. */
  whenSynced(): Promise<void>;
  /** Done when {@link ResourceEventHandlerRegistration.hasSynced} turns true. Go's `HasSyncedChecker`. */
  hasSyncedChecker(): DoneChecker;
}

// After this many handler calls in a row the loop lets the event loop run
// (timers, the watch's socket, other listeners) before going on.
const yieldEvery = 512;

// A macrotask: setImmediate where there is one (Node), else a timer.
const yieldToEventLoop: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);

/**
 * A handler with its buffer and delivery loop. The loop runs only while
 * there is something to deliver: it is started by a callback when a
 * notification arrives and ends when the buffer is empty, so a handler that
 * returns at once costs no promise per notification. One that returns a
 * promise is waited for before its next notification.
 */
export class ProcessorListener<T> implements ResourceEventHandlerRegistration {
  readonly handler: ResourceEventHandler<T>;
  /** The resync period the handler asked for. */
  readonly requestedResyncPeriod: number;
  /** The period in effect (see determineResyncPeriod). */
  resyncPeriod: number;
  /** Whether this listener is due the resync in progress (Go's `listeners` map value). */
  syncing = true;
  #nextResync = 0;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tracker: SingleFileTracker;
  // Go's pendingNotifications: unbounded, so adding never waits for the handler.
  readonly #buffer = new FifoBuffer<Notification<T>>();
  #started = false;
  #stopped = false;
  // A delivery run is queued, or the loop waits on a handler's promise or
  // the pause after a failure: either way, add need not start one.
  #scheduled = false;
  #busy = false;
  readonly #stop = new AbortController();
  readonly #ended = new DoneSignal('listener stopped');

  constructor(
    handler: ResourceEventHandler<T>,
    requestedResyncPeriod: number,
    resyncPeriod: number,
    clock: Clock,
    name: string,
    logger: Logger,
  ) {
    this.handler = handler;
    this.requestedResyncPeriod = requestedResyncPeriod;
    this.resyncPeriod = resyncPeriod;
    this.#clock = clock;
    this.#logger = logger;
    this.#tracker = new SingleFileTracker(name);
    this.determineNextResync(clock.now());
  }

  /** Where this handler's messages go. */
  get logger(): Logger {
    return this.#logger;
  }

  hasSynced(): boolean {
    return this.#tracker.hasSynced();
  }

  whenSynced(): Promise<void> {
    return this.#tracker.hasSyncedChecker().done();
  }

  hasSyncedChecker(): DoneChecker {
    return this.#tracker.hasSyncedChecker();
  }

  /** The informer has synced. */
  upstreamHasSynced(): void {
    this.#tracker.upstreamHasSynced();
  }

  /** Queues a notification; never blocks, whatever the handler's pace. */
  add(n: Notification<T>): void {
    if (this.#stopped) return;
    if (n.kind === 'add' && n.isInInitialList) this.#tracker.start();
    this.#buffer.push(n);
    this.#kick();
  }

  /** Starts delivering (once). */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#kick();
  }

  /**
   * Stops delivering; what is still buffered is dropped. A handler call in
   * progress finishes, and {@link ProcessorListener.done} waits for it.
   */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stop.abort();
    this.#buffer.clear();
    if (!this.#busy) this.#ended.close();
  }

  /** Resolves once stopped and no handler call is in progress (at once if it never started). */
  done(): Promise<void> {
    if (!this.#started) return Promise.resolve();
    return this.#ended.done();
  }

  /** True if a resync is due at `now`; if so, schedules the next one. */
  shouldResync(now: number): boolean {
    if (this.resyncPeriod <= 0 || now < this.#nextResync) return false;
    this.determineNextResync(now);
    return true;
  }

  determineNextResync(now: number): void {
    this.#nextResync = now + this.resyncPeriod;
  }

  // Handlers are never called from inside add, addEventHandler or start: a
  // run always begins on a later microtask.
  #kick(): void {
    if (!this.#started || this.#stopped || this.#scheduled || this.#busy) return;
    if (this.#buffer.length === 0) return;
    this.#scheduled = true;
    queueMicrotask(this.#run);
  }

  //#region listener-run
  // shared_informer.go, processorListener.run: one notification at a time,
  // in order. A run ends when the buffer is empty; add starts the next.
  readonly #run = (): void => {
    this.#scheduled = false;
    for (let delivered = 0; !this.#stopped; delivered++) {
      if (delivered === yieldEvery) {
        this.#scheduled = true;
        yieldToEventLoop(this.#run);
        return;
      }
      const n = this.#buffer.shift();
      if (n === undefined) return;
      let result: unknown;
      try {
        result = this.#deliver(n);
      } catch (err) {
        this.#failed(err);
        return;
      }
      if (isPromiseLike(result)) {
        // Its next notification waits for this one.
        this.#busy = true;
        result.then(
          () => this.#resume(n),
          (err: unknown) => this.#failed(err),
        );
        return;
      }
      this.#finished(n);
    }
  };
  //#endregion listener-run

  #resume(n: Notification<T>): void {
    this.#busy = false;
    this.#finished(n);
    if (this.#stopped) this.#ended.close();
    else this.#kick();
  }

  // shared_informer.go, processorListener.run: the item is skipped and
  // delivery pauses for a second. A failed initial add is never finished,
  // so this handler never reports synced.
  #failed(err: unknown): void {
    this.#logger.error(err, 'Observed a panic', { handler: this.#tracker.name });
    this.#busy = true;
    void this.#clock.sleep(1000, this.#stop.signal).then(() => {
      this.#busy = false;
      if (this.#stopped) this.#ended.close();
      else this.#kick();
    });
  }

  #finished(n: Notification<T>): void {
    if (n.kind === 'add' && n.isInInitialList) this.#tracker.finished();
  }

  #deliver(n: Notification<T>): unknown {
    switch (n.kind) {
      case 'add':
        return this.handler.onAdd?.(n.obj, n.isInInitialList);
      case 'update':
        return this.handler.onUpdate?.(n.oldObj, n.newObj);
      case 'delete':
        return this.handler.onDelete?.(n.obj);
    }
  }
}

/** The set of listeners of one informer. */
export class SharedProcessor<T> {
  // An array, walked on every notification: no iterator or entry per call.
  #listeners: ProcessorListener<T>[] = [];
  #started = false;
  #upstreamSynced = false;
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Adds a listener, queueing `initial` to it as initial-list adds first; it
   * starts delivering at once if the processor runs.
   */
  addListener(listener: ProcessorListener<T>, initial: readonly T[] = []): void {
    listener.syncing = true;
    this.#listeners = [...this.#listeners, listener];
    for (const obj of initial) listener.add({ kind: 'add', obj, isInInitialList: true });
    if (this.#started) listener.start();
    if (this.#upstreamSynced) listener.upstreamHasSynced();
  }

  /** Removes a listener; true if it was there. */
  removeListener(listener: ProcessorListener<T>): boolean {
    const i = this.#listeners.indexOf(listener);
    if (i < 0) return false;
    this.#listeners = this.#listeners.filter((l) => l !== listener);
    listener.stop();
    return true;
  }

  /** Hands a notification to every listener, or a resync only to those due one. */
  //#region distribute
  distribute(n: Notification<T>, isSync: boolean): void {
    for (const listener of this.#listeners) {
      if (!isSync || listener.syncing) listener.add(n);
    }
  }
  //#endregion distribute

  /** Starts every listener's delivery. */
  run(): void {
    this.#started = true;
    for (const listener of this.#listeners) listener.start();
  }

  /** The informer has synced: tell every listener, and later ones as they come. */
  upstreamHasSynced(): void {
    this.#upstreamSynced = true;
    for (const listener of this.#listeners) listener.upstreamHasSynced();
  }

  /** Stops every listener and waits for their loops; the listeners are forgotten. */
  async stop(): Promise<void> {
    const listeners = this.#listeners;
    this.#listeners = [];
    this.#started = false;
    for (const listener of listeners) listener.stop();
    await Promise.all(listeners.map((l) => l.done()));
  }

  /** Marks the listeners due a resync now; true if any is. */
  //#region should-resync
  shouldResync(): boolean {
    const now = this.#clock.now();
    let any = false;
    for (const listener of this.#listeners) {
      listener.syncing = listener.shouldResync(now);
      if (listener.syncing) any = true;
    }
    return any;
  }
  //#endregion should-resync

  /** Recomputes every listener's period after the informer's check period changed. */
  resyncCheckPeriodChanged(checkPeriod: number): void {
    for (const listener of this.#listeners) {
      listener.resyncPeriod = determineResyncPeriod(
        listener.requestedResyncPeriod,
        checkPeriod,
        listener.logger,
      );
    }
  }
}

/** shared_informer.go, determineResyncPeriod. */
export function determineResyncPeriod(desired: number, check: number, logger: Logger): number {
  if (desired === 0) return 0;
  if (check === 0) {
    logger.info(
      "Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing",
      { desired },
    );
    return 0;
  }
  if (desired < check) {
    logger.info(
      'Warning: the specified resyncPeriod is being increased to the minimum resyncCheckPeriod',
      { desired, resyncCheckPeriod: check },
    );
    return check;
  }
  return desired;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
