// The basic work queue: client-go util/workqueue/queue.go.
import { FifoBuffer, realClock, type Clock, type Ticker } from '@kcm-ts/apimachinery';
import {
  globalMetricsProvider,
  newQueueMetrics,
  type MetricsProvider,
  type QueueMetrics,
} from './metrics.js';

/**
 * What {@link Queue.get} resolves to, shaped like Go's `(item, shutdown)`:
 * destructure it and stop when `shutdown` is true.
 *
 * @category Queue
 */
export type GetResult<T> =
  readonly [item: T, shutdown: false] | readonly [item: undefined, shutdown: true];

/**
 * A work queue: Go's `workqueue.TypedInterface[T]`.
 *
 * Items are compared as `Map` keys, so use strings (controllers queue
 * `namespace/name` keys) or other primitives. The queue guarantees:
 *
 * - an item added several times before a worker takes it is handed out once;
 * - an item is never handed to two workers at once: re-added while being
 *   processed, it comes back only after {@link Queue.done};
 * - after {@link Queue.shutDown}, new adds are ignored but items already queued
 *   are still handed out; `get` reports shutdown once the queue is empty.
 *
 * @category Queue
 */
export interface Queue<T> {
  /** Marks `item` as needing processing. Ignored once the queue is shutting down. */
  add(item: T): void;
  /** The number of items waiting to be handed out (not those in processing). */
  len(): number;
  /**
   * Resolves with the next item as soon as there is one, or with
   * `[undefined, true]` once the queue is shut down and empty. The caller
   * must call {@link Queue.done} with the item when it has finished with it.
   */
  get(): Promise<GetResult<T>>;
  /** Marks `item` as processed; if it was added again meanwhile, it is queued again. */
  done(item: T): void;
  /** Stops accepting items and tells waiting workers to exit, without waiting for work in flight. */
  shutDown(): void;
  /**
   * Stops accepting items, then resolves once every item in processing has
   * been marked done (items still waiting in the queue are not waited for).
   * A later {@link Queue.shutDown} resolves it at once. Workers that never
   * call `done` keep it pending forever.
   */
  shutDownWithDrain(): Promise<void>;
  /** True once `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean;
}

/**
 * The storage that decides the order in which waiting items are handed out:
 * Go's `workqueue.Queue[T]`. The queue calls it only for items that are not
 * already waiting, so implementations need no deduplication.
 *
 * @category Queue
 */
export interface PendingQueue<T> {
  /** Called when an item that is already waiting is added again (a hook for priority queues). */
  touch(item: T): void;
  /** Appends a new item. */
  push(item: T): void;
  /** The number of waiting items. */
  len(): number;
  /** Removes and returns the next item. Only called when `len() > 0`. */
  pop(): T;
}

/**
 * A FIFO {@link PendingQueue}: items come out in the order they were first
 * added. Go's `DefaultQueue`.
 *
 * @category Queue
 */
export function defaultPendingQueue<T>(): PendingQueue<T> {
  return new FifoPendingQueue<T>();
}

// Go's slice queue, on the shared FIFO buffer (which never keeps a popped
// item alive).
class FifoPendingQueue<T> implements PendingQueue<T> {
  readonly #items = new FifoBuffer<T>();

  touch(_item: T): void {}

  push(item: T): void {
    this.#items.push(item);
  }

  len(): number {
    return this.#items.length;
  }

  pop(): T {
    return this.#items.shift() as T;
  }
}

/**
 * Options for {@link newQueue}: Go's `TypedQueueConfig[T]`.
 *
 * @category Queue
 */
export interface QueueConfig<T> {
  /** Names the queue in its metrics. An unnamed queue reports no metrics. */
  name?: string;
  /** Overrides the provider set with {@link setProvider}. */
  metricsProvider?: MetricsProvider;
  /** Defaults to the real clock; tests pass a `FakeClock`. */
  clock?: Clock;
  /** The ordering of waiting items; defaults to {@link defaultPendingQueue}. */
  queue?: PendingQueue<T>;
  /**
   * Shuts the queue down (as {@link Queue.shutDown}) when it aborts, as a Go
   * controller's `defer queue.ShutDown()` does when its context ends: the
   * lifecycle of the factory and the informers. At once if already aborted.
   */
  signal?: AbortSignal;
}

/**
 * Calls `shutDown` once `signal` aborts (at once if it has); returns a
 * function that forgets the signal, for a queue shut down another way.
 */
export function shutDownOnAbort(signal: AbortSignal | undefined, shutDown: () => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    shutDown();
    return () => {};
  }
  signal.addEventListener('abort', shutDown, { once: true });
  return () => signal.removeEventListener('abort', shutDown);
}

/** How often the unfinished-work gauges are refreshed (client-go's `defaultUnfinishedWorkUpdatePeriod`). */
export const unfinishedWorkUpdatePeriod = 500;

/**
 * Creates a work queue: Go's `NewTypedWithConfig`.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#queue-basics}
 *
 * @category Queue
 */
export function newQueue<T>(config: QueueConfig<T> = {}): Queue<T> {
  const clock = config.clock ?? realClock;
  const metrics = newQueueMetrics<T>(
    config.metricsProvider ?? globalMetricsProvider(),
    config.name ?? '',
    clock,
  );
  const queue = new BasicQueue(clock, config.queue ?? defaultPendingQueue<T>(), metrics);
  queue.releaseSignal = shutDownOnAbort(config.signal, () => queue.shutDown());
  return queue;
}

//#region queue-state
class BasicQueue<T> implements Queue<T> {
  /** The order of the items waiting to be handed out; each is also in `dirty`, and none is in `processing`. */
  readonly #queue: PendingQueue<T>;
  /** Every item that needs processing. */
  readonly #dirty = new Set<T>();
  /** Items handed out by `get` and not yet `done`; an item may be here and in `dirty` at once. */
  readonly #processing = new Set<T>();
  #shuttingDown = false;
  #drain = false;
  //#endregion queue-state
  /** Workers blocked in `get`, oldest first. They only wait while the queue is empty. */
  readonly #getters = new FifoBuffer<(result: GetResult<T>) => void>();
  /** Callers blocked in `shutDownWithDrain`. */
  #drainers: (() => void)[] = [];
  readonly #metrics: QueueMetrics<T>;
  #metricsTicker: Ticker | undefined;
  /** Forgets the config's signal once shut down. */
  releaseSignal: () => void = () => {};

  constructor(clock: Clock, queue: PendingQueue<T>, metrics: QueueMetrics<T>) {
    this.#queue = queue;
    this.#metrics = metrics;
    if (metrics.enabled) {
      this.#metricsTicker = clock.newTicker(unfinishedWorkUpdatePeriod, () => {
        if (!this.#shuttingDown) this.#metrics.updateUnfinishedWork();
      });
    }
  }

  //#region queue-add
  add(item: T): void {
    if (this.#shuttingDown) return;
    if (this.#dirty.has(item)) {
      // Already waiting, or parked behind its own processing: nothing to do
      // but give a priority queue the chance to react.
      if (!this.#processing.has(item)) this.#queue.touch(item);
      return;
    }
    this.#metrics.add(item);
    this.#dirty.add(item);
    // A worker holds this item: it goes back in line when that worker calls done.
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#wakeGetter();
  }
  //#endregion queue-add

  len(): number {
    return this.#queue.len();
  }

  //#region queue-get
  get(): Promise<GetResult<T>> {
    if (this.#queue.len() > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve([undefined, true]);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  #take(): GetResult<T> {
    const item = this.#queue.pop();
    this.#metrics.get(item);
    this.#processing.add(item);
    this.#dirty.delete(item);
    return [item, false];
  }

  /** Hands the head of the queue to the longest-waiting worker, if any. */
  #wakeGetter(): void {
    const getter = this.#getters.shift();
    if (getter) getter(this.#take());
  }
  //#endregion queue-get

  //#region queue-done
  done(item: T): void {
    this.#metrics.done(item);
    this.#processing.delete(item);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#wakeGetter();
    }
    // Go signals on both branches: a drain waits only for processing to empty,
    // so a dirty item put back in the queue must not keep it blocked.
    if (this.#processing.size === 0) this.#wakeDrainers();
  }
  //#endregion queue-done

  shutDown(): void {
    this.#drain = false;
    this.#beginShutdown();
  }

  shutDownWithDrain(): Promise<void> {
    this.#drain = true;
    this.#beginShutdown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #beginShutdown(): void {
    this.#shuttingDown = true;
    this.releaseSignal();
    this.#metricsTicker?.stop();
    this.#metricsTicker = undefined;
    // Waiting workers only exist while the queue is empty, so all of them learn it is over.
    for (const getter of this.#getters.drain()) getter([undefined, true]);
    this.#wakeDrainers();
  }

  #wakeDrainers(): void {
    if (this.#drainers.length === 0) return;
    if (this.#drain && this.#processing.size > 0) return;
    const drainers = this.#drainers;
    this.#drainers = [];
    for (const resolve of drainers) resolve();
  }
}
