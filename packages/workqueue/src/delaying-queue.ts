// The delaying queue: client-go util/workqueue/delaying_queue.go.
import { realClock, type Clock, type Timer } from '@kcm-ts/apimachinery';
import {
  globalMetricsProvider,
  newRetryMetric,
  type CounterMetric,
  type MetricsProvider,
} from './metrics.js';
import { newQueue, shutDownOnAbort, type GetResult, type Queue } from './queue.js';

/**
 * A {@link Queue} that can also add an item after a delay: Go's
 * `TypedDelayingInterface[T]`.
 *
 * @category Queue
 */
export interface DelayingQueue<T> extends Queue<T> {
  /**
   * Adds `item` once `ms` milliseconds have passed (at once if `ms <= 0`).
   * If the item is already waiting for a delay, the earlier of the two
   * ready times wins. Ignored once the queue is shutting down.
   */
  addAfter(item: T, ms: number): void;
}

/**
 * Options for {@link newDelayingQueue}: Go's `TypedDelayingQueueConfig[T]`.
 *
 * @category Queue
 */
export interface DelayingQueueConfig<T> {
  /** Names the queue in its metrics (including `workqueue_retries_total`). */
  name?: string;
  /** Overrides the provider set with {@link setProvider}. */
  metricsProvider?: MetricsProvider;
  /** Defaults to the real clock. */
  clock?: Clock;
  /** The queue that ready items go into; by default a new {@link newQueue} with the same name, provider and clock. */
  queue?: Queue<T>;
  /** Shuts the queue down when it aborts (at once if it has), as a Go controller's `defer queue.ShutDown()` does. */
  signal?: AbortSignal;
}

/**
 * Creates a delaying queue: Go's `NewTypedDelayingQueueWithConfig`.
 *
 * @category Queue
 */
export function newDelayingQueue<T>(config: DelayingQueueConfig<T> = {}): DelayingQueue<T> {
  const clock = config.clock ?? realClock;
  const provider = config.metricsProvider ?? globalMetricsProvider();
  const name = config.name ?? '';
  const queue = config.queue ?? newQueue<T>({ name, metricsProvider: provider, clock });
  const delaying = new DelayingQueueImpl(queue, clock, newRetryMetric(provider, name));
  const release = shutDownOnAbort(config.signal, () => delaying.shutDown());
  // Forget the signal however the queue is shut down.
  delaying.onShutDown = release;
  return delaying;
}

//#region wait-for
/** An item waiting for its time (Go's `waitFor`), placed in a min-heap by `readyAt`. */
interface WaitFor<T> {
  item: T;
  readyAt: number;
  /** Breaks ties between equal `readyAt`s in insertion order. */
  seq: number;
  /** The entry's position in the heap, kept up to date so its time can be lowered in place. */
  index: number;
}
//#endregion wait-for

class DelayingQueueImpl<T> implements DelayingQueue<T> {
  readonly #queue: Queue<T>;
  readonly #clock: Clock;
  readonly #retries: CounterMetric;
  readonly #heap: WaitFor<T>[] = [];
  readonly #waiting = new Map<T, WaitFor<T>>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Infinity;
  #stopped = false;
  /** Called on shutdown. */
  onShutDown: () => void = () => {};

  constructor(queue: Queue<T>, clock: Clock, retries: CounterMetric) {
    this.#queue = queue;
    this.#clock = clock;
    this.#retries = retries;
  }

  add(item: T): void {
    this.#queue.add(item);
  }
  len(): number {
    return this.#queue.len();
  }
  get(): Promise<GetResult<T>> {
    return this.#queue.get();
  }
  done(item: T): void {
    this.#queue.done(item);
  }
  shuttingDown(): boolean {
    return this.#queue.shuttingDown();
  }

  shutDown(): void {
    this.onShutDown();
    this.#stop();
    this.#queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    this.onShutDown();
    this.#stop();
    return this.#queue.shutDownWithDrain();
  }

  //#region add-after
  addAfter(item: T, ms: number): void {
    if (this.#queue.shuttingDown()) return;
    this.#retries.inc();
    if (!(ms > 0)) {
      this.#queue.add(item);
      return;
    }
    const readyAt = this.#clock.now() + ms;
    const existing = this.#waiting.get(item);
    if (existing) {
      // Only an earlier time moves a waiting item; a later one is ignored.
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#siftUp(existing.index);
      }
    } else {
      const entry: WaitFor<T> = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
      this.#heap.push(entry);
      this.#waiting.set(item, entry);
      this.#siftUp(entry.index);
    }
    this.#arm();
  }
  //#endregion add-after

  //#region waiting-loop
  /** Moves every entry whose time has come into the queue, then re-arms the timer. */
  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    if (this.#queue.shuttingDown()) {
      this.#stop();
      return;
    }
    const now = this.#clock.now();
    while (this.#heap.length > 0 && this.#heap[0]!.readyAt <= now) {
      const entry = this.#popHead();
      this.#waiting.delete(entry.item);
      this.#queue.add(entry.item);
    }
    this.#arm();
  }

  /** Keeps exactly one timer, set for the earliest entry; none when nothing waits. */
  #arm(): void {
    if (this.#stopped) return;
    const head = this.#heap[0];
    if (head === undefined) {
      this.#timer?.stop();
      this.#timer = undefined;
      this.#timerAt = Infinity;
      return;
    }
    if (this.#timer !== undefined && this.#timerAt === head.readyAt) return;
    this.#timer?.stop();
    this.#timerAt = head.readyAt;
    this.#timer = this.#clock.afterFunc(head.readyAt - this.#clock.now(), () => this.#fire());
  }
  //#endregion waiting-loop

  #stop(): void {
    this.#stopped = true;
    this.#timer?.stop();
    this.#timer = undefined;
    this.#heap.length = 0;
    this.#waiting.clear();
  }

  // A binary min-heap ordered by (readyAt, seq).

  #less(a: WaitFor<T>, b: WaitFor<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const a = this.#heap[i]!;
    const b = this.#heap[j]!;
    this.#heap[i] = b;
    this.#heap[j] = a;
    a.index = j;
    b.index = i;
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#heap[i]!, this.#heap[parent]!)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(i: number): void {
    const n = this.#heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.#less(this.#heap[right]!, this.#heap[left]!) ? right : left;
      if (!this.#less(this.#heap[child]!, this.#heap[i]!)) return;
      this.#swap(i, child);
      i = child;
    }
  }

  #popHead(): WaitFor<T> {
    const last = this.#heap.length - 1;
    this.#swap(0, last);
    const head = this.#heap.pop()!;
    if (this.#heap.length > 0) this.#siftDown(0);
    return head;
  }
}
