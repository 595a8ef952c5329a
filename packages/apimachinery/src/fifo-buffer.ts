// The first-in, first-out buffer under every queue of kcm-ts: the slice FIFO
// of client-go util/workqueue/queue.go (queue), the key queue of
// tools/cache/delta_fifo.go, the item list of tools/cache/the_real_fifo.go
// and the growing ring buffer of k8s.io/utils/buffer/ring_growing.go that a
// shared informer's processorListener keeps per handler.

const minCapacity = 16;

/**
 * An unbounded first-in, first-out buffer: a ring that doubles when full, so
 * `push` and `shift` are O(1) and a steady flow allocates nothing. Taken
 * slots are cleared at once, so the buffer never keeps an item alive; once
 * emptied, a ring grown large by a burst is let go. Go's
 * `buffer.RingGrowing`, and the slice every client-go queue is built on.
 *
 * @example
 * ```ts
 * const keys = new FifoBuffer<string>();
 * keys.push('default/web');
 * keys.push('default/db');
 * keys.shift(); // 'default/web'
 * keys.length; // 1
 * ```
 *
 * @category Queues
 */
export class FifoBuffer<T> implements Iterable<T> {
  #ring: (T | undefined)[] = new Array<T | undefined>(minCapacity);
  #mask = minCapacity - 1;
  #head = 0;
  #length = 0;

  /** The number of items in the buffer. */
  get length(): number {
    return this.#length;
  }

  /** Appends `item` at the end. */
  push(item: T): void {
    if (this.#length > this.#mask) this.#grow();
    this.#ring[(this.#head + this.#length) & this.#mask] = item;
    this.#length++;
  }

  /** Removes and returns the first item; `undefined` when the buffer is empty. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const ring = this.#ring;
    const item = ring[this.#head];
    ring[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    if (--this.#length === 0) this.#emptied();
    return item;
  }

  /** The first item, left in place; `undefined` when the buffer is empty. */
  peek(): T | undefined {
    return this.#length === 0 ? undefined : this.#ring[this.#head];
  }

  /** The item `index` places from the front, left in place; `undefined` out of range. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    return this.#ring[(this.#head + index) & this.#mask];
  }

  /** Removes every item and returns them, first to last. */
  drain(): T[] {
    const items = new Array<T>(this.#length);
    for (let i = 0; i < this.#length; i++)
      items[i] = this.#ring[(this.#head + i) & this.#mask] as T;
    this.clear();
    return items;
  }

  /** Removes every item. */
  clear(): void {
    this.#ring = new Array<T | undefined>(minCapacity);
    this.#mask = minCapacity - 1;
    this.#head = 0;
    this.#length = 0;
  }

  /** The items, first to last. Do not push or shift while iterating. */
  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.#length; i++) yield this.#ring[(this.#head + i) & this.#mask] as T;
  }

  // Doubles the ring, unrolling it so the first item lands at index 0.
  #grow(): void {
    const old = this.#ring;
    const capacity = old.length * 2;
    const ring = new Array<T | undefined>(capacity);
    for (let i = 0; i < this.#length; i++) ring[i] = old[(this.#head + i) & this.#mask];
    this.#ring = ring;
    this.#mask = capacity - 1;
    this.#head = 0;
  }

  // A burst may have grown the ring far beyond what is needed now.
  #emptied(): void {
    this.#head = 0;
    if (this.#ring.length > 1024) this.clear();
  }
}
