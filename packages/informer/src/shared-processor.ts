// Fans an informer's notifications out to its handlers, each with its own
// unbounded buffer and its own delivery loop: client-go tools/cache
// shared_informer.go (sharedProcessor, processorListener).
import type { Clock, DeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
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
}

// Notifications are delivered in batches; after this many synchronous
// handler calls the loop yields so other listeners and the watch can run.
const yieldEvery = 512;

/** A handler with its buffer and delivery loop. */
export class ProcessorListener<T> implements ResourceEventHandlerRegistration {
  readonly handler: ResourceEventHandler<T>;
  /** The resync period the handler asked for. */
  readonly requestedResyncPeriod: number;
  /** The period in effect (see determineResyncPeriod). */
  resyncPeriod: number;
  #nextResync = 0;
  readonly #clock: Clock;
  readonly #tracker: SingleFileTracker;
  readonly #syncedWaiters: (() => void)[] = [];
  // A growing queue: an array with a moving head, compacted now and then.
  #buffer: (Notification<T> | undefined)[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #running: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(
    handler: ResourceEventHandler<T>,
    requestedResyncPeriod: number,
    resyncPeriod: number,
    clock: Clock,
    name: string,
  ) {
    this.handler = handler;
    this.requestedResyncPeriod = requestedResyncPeriod;
    this.resyncPeriod = resyncPeriod;
    this.#clock = clock;
    this.#tracker = new SingleFileTracker(name, () => {
      for (const resolve of this.#syncedWaiters.splice(0)) resolve();
    });
    this.determineNextResync(clock.now());
  }

  hasSynced(): boolean {
    return this.#tracker.hasSynced();
  }

  whenSynced(): Promise<void> {
    if (this.#tracker.hasSynced()) return Promise.resolve();
    return new Promise((resolve) => this.#syncedWaiters.push(resolve));
  }

  /** The informer has synced. */
  upstreamHasSynced(): void {
    this.#tracker.upstreamHasSynced();
  }

  /** Queues a notification; never blocks, whatever the handler's pace. */
  add(n: Notification<T>): void {
    if (this.#stop.signal.aborted) return;
    if (n.kind === 'add' && n.isInInitialList) this.#tracker.start();
    this.#buffer.push(n);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Starts delivering (once). */
  start(): void {
    this.#running ??= this.#run();
  }

  /**
   * Stops delivering; what is still buffered is dropped. A handler call in
   * progress finishes, and {@link ProcessorListener.done} waits for it.
   */
  stop(): void {
    this.#stop.abort();
    this.#buffer = [];
    this.#head = 0;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Resolves once the delivery loop has ended (at once if it never started). */
  done(): Promise<void> {
    return this.#running ?? Promise.resolve();
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

  //#region listener-run
  async #run(): Promise<void> {
    const stopped = this.#stop.signal;
    // Handlers are never called from inside addEventHandler or start.
    await Promise.resolve();
    let sinceYield = 0;
    while (!stopped.aborted) {
      if (this.#head >= this.#buffer.length) {
        this.#buffer = [];
        this.#head = 0;
        sinceYield = 0;
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      const n = this.#buffer[this.#head] as Notification<T>;
      this.#buffer[this.#head++] = undefined;
      if (this.#head > 4096 && this.#head * 2 > this.#buffer.length) {
        this.#buffer = this.#buffer.slice(this.#head);
        this.#head = 0;
      }
      try {
        const result = this.#deliver(n);
        if (isPromiseLike(result)) {
          await result;
          sinceYield = 0;
        } else if (++sinceYield >= yieldEvery) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (n.kind === 'add' && n.isInInitialList) this.#tracker.finished();
      } catch (err) {
        // shared_informer.go, processorListener.run: the item is skipped and
        // delivery pauses for a second. A failed initial add is never
        // finished, so this handler never reports synced.
        console.error(`informer: handler ${this.#tracker.name} failed:`, err);
        await this.#clock.sleep(1000, stopped);
      }
    }
    //#endregion listener-run
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
  // Each listener with its "syncing" flag: whether it is due the resync in progress.
  readonly #listeners = new Map<ProcessorListener<T>, boolean>();
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
    this.#listeners.set(listener, true);
    for (const obj of initial) listener.add({ kind: 'add', obj, isInInitialList: true });
    if (this.#started) listener.start();
    if (this.#upstreamSynced) listener.upstreamHasSynced();
  }

  /** Removes a listener; true if it was there. */
  removeListener(listener: ProcessorListener<T>): boolean {
    if (!this.#listeners.delete(listener)) return false;
    listener.stop();
    return true;
  }

  /** Hands a notification to every listener, or a resync only to those due one. */
  //#region distribute
  distribute(n: Notification<T>, isSync: boolean): void {
    for (const [listener, syncing] of this.#listeners) {
      if (!isSync || syncing) listener.add(n);
    }
    //#endregion distribute
  }

  /** Starts every listener's delivery. */
  run(): void {
    this.#started = true;
    for (const listener of this.#listeners.keys()) listener.start();
  }

  /** The informer has synced: tell every listener, and later ones as they come. */
  upstreamHasSynced(): void {
    this.#upstreamSynced = true;
    for (const listener of this.#listeners.keys()) listener.upstreamHasSynced();
  }

  /** Stops every listener and waits for their loops; the listeners are forgotten. */
  async stop(): Promise<void> {
    const listeners = [...this.#listeners.keys()];
    this.#listeners.clear();
    this.#started = false;
    for (const listener of listeners) listener.stop();
    await Promise.all(listeners.map((l) => l.done()));
  }

  /** Marks the listeners due a resync now; true if any is. */
  //#region should-resync
  shouldResync(): boolean {
    const now = this.#clock.now();
    let any = false;
    for (const listener of this.#listeners.keys()) {
      const due = listener.shouldResync(now);
      this.#listeners.set(listener, due);
      if (due) any = true;
    }
    return any;
    //#endregion should-resync
  }

  /** Recomputes every listener's period after the informer's check period changed. */
  resyncCheckPeriodChanged(checkPeriod: number): void {
    for (const listener of this.#listeners.keys()) {
      listener.resyncPeriod = determineResyncPeriod(listener.requestedResyncPeriod, checkPeriod);
    }
  }
}

/** shared_informer.go, determineResyncPeriod. */
export function determineResyncPeriod(desired: number, check: number): number {
  if (desired === 0) return 0;
  if (check === 0) return 0; // the informer never resyncs
  return desired < check ? check : desired;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
