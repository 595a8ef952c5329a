// A cache of at most `size` entries, each with its own expiry: Go's
// k8s.io/utils/lru/... as apimachinery's pkg/util/cache/lruexpirecache.go
// (LRUExpireCache: Add with a TTL, Get that drops an expired entry, the
// least recently used entry evicted when full). A Map keeps insertion
// order, so moving an entry to the end on each use makes its first key the
// least recently used.
import type { PassiveClock } from '@kcm-ts/apimachinery';

/** An LRU cache whose entries also expire. Go's `LRUExpireCache`. */
export class LRUExpireCache<K, V> {
  readonly #entries = new Map<K, { value: V; expires: number }>();
  readonly #size: number;
  readonly #clock: PassiveClock;

  /** @param size - the most entries kept; `clock` tells expiry */
  constructor(size: number, clock: PassiveClock) {
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`cache size must be a positive integer, got ${size}`);
    }
    this.#size = size;
    this.#clock = clock;
  }

  /** The value under `key` unless it expired (then it is dropped). Marks it recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#clock.now() >= entry.expires) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `ttl` ms, evicting the least recently used entry when full. */
  add(key: K, value: V, ttl: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#clock.now() + ttl });
    while (this.#entries.size > this.#size) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** How many entries are held, expired ones included until they are read. */
  get length(): number {
    return this.#entries.size;
  }
}
