// A fixed-size least-recently-used cache: k8s.io/utils/lru/lru.go (Cache,
// New, Get, Add), the cache behind every table of the event correlator.

/**
 * A map that holds at most `maxEntries` keys and forgets the least recently
 * used one when full. Reading a key with {@link LruCache.get} counts as a use.
 */
export class LruCache<K, V> {
  readonly #maxEntries: number;
  // A Map iterates in insertion order: re-inserting a key makes it the newest,
  // so the first key is always the least recently used.
  readonly #entries = new Map<K, V>();

  /** @param maxEntries - the capacity; `0` means no limit, as in Go */
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The value under `key`, marking it as the most recently used. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value` under `key` as the most recently used, evicting the oldest key if full. */
  add(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#maxEntries > 0 && this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** The number of keys held. */
  len(): number {
    return this.#entries.size;
  }
}
