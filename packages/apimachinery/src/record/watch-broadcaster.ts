// The fan-out under the event broadcaster: apimachinery pkg/watch/mux.go
// (Broadcaster, NewLongQueueBroadcaster with DropIfChannelFull, ActionOrDrop,
// Watch, Shutdown, broadcasterWatcher). Channels become bounded FIFO buffers, and
// the distributing goroutine a microtask.
import { FifoBuffer } from '../fifo-buffer.js';

/** One subscriber: a bounded queue of its own, read with {@link BroadcastWatcher.next}. */
export class BroadcastWatcher<T> {
  readonly #queue = new FifoBuffer<T>();
  readonly #queueLength: number;
  readonly #onStop: () => void;
  #waiting: ((item: T | undefined) => void) | undefined;
  #stopped = false;

  constructor(queueLength: number, onStop: () => void) {
    this.#queueLength = queueLength;
    this.#onStop = onStop;
  }

  /** Queues `item`, or drops it when the queue is full (Go's `DropIfChannelFull`). */
  offer(item: T): void {
    if (this.#stopped) return;
    if (this.#waiting !== undefined) {
      const wake = this.#waiting;
      this.#waiting = undefined;
      wake(item);
      return;
    }
    if (this.#queue.length < this.#queueLength) this.#queue.push(item);
  }

  /** The next item, waiting for one if needed; `undefined` once stopped. */
  next(): Promise<T | undefined> {
    if (this.#stopped) return Promise.resolve(undefined);
    if (this.#queue.length > 0) return Promise.resolve(this.#queue.shift());
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Unsubscribes and drops whatever is queued; a pending `next` resolves with `undefined`. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue.clear();
    const wake = this.#waiting;
    this.#waiting = undefined;
    wake?.(undefined);
    this.#onStop();
  }
}

/**
 * Distributes each item to every watcher without ever blocking the sender:
 * an incoming queue of `queueLength` items that drops when full, emptied on a
 * microtask into each watcher's queue of the same length, which drops too.
 */
export class Broadcaster<T> {
  readonly #queueLength: number;
  readonly #incoming = new FifoBuffer<T>();
  readonly #watchers = new Set<BroadcastWatcher<T>>();
  #scheduled = false;
  #stopped = false;

  constructor(queueLength: number) {
    this.#queueLength = queueLength;
  }

  /** A new watcher that receives every item sent from now on. Throws once shut down. */
  watch(): BroadcastWatcher<T> {
    if (this.#stopped) throw new Error('broadcaster already stopped');
    const watcher: BroadcastWatcher<T> = new BroadcastWatcher<T>(this.#queueLength, () =>
      this.#watchers.delete(watcher),
    );
    this.#watchers.add(watcher);
    return watcher;
  }

  /**
   * Queues `item` for distribution: true if queued, false if dropped because
   * the incoming queue is full. Throws once shut down. Go's `ActionOrDrop`.
   */
  actionOrDrop(item: T): boolean {
    if (this.#stopped) throw new Error('broadcaster already stopped');
    if (this.#incoming.length >= this.#queueLength) return false;
    this.#incoming.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#distribute());
    }
    return true;
  }

  /** Stops accepting items and stops every watcher; queued items are dropped. */
  shutdown(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#incoming.clear();
    for (const w of [...this.#watchers]) w.stop();
  }

  #distribute(): void {
    this.#scheduled = false;
    const items = this.#incoming.drain();
    for (const item of items) {
      for (const w of this.#watchers) w.offer(item);
    }
  }
}
