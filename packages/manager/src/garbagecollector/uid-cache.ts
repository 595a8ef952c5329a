// The absent-owner cache: Go's pkg/controller/garbagecollector/uid_cache.go
// (ReferenceCache over groupcache's lru.Cache). Owners the API server said
// do not exist are remembered, so that many dependents of one deleted owner
// cost one GET, not one each.
import { referenceKey, type ObjectReference } from './graph.js';

/** A least-recently-used set of object references. Go's `ReferenceCache`. */
export class ReferenceCache {
  readonly #max: number;
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  readonly #entries = new Map<string, ObjectReference>();

  /** @param maxCacheEntries - how many references it keeps; the least recently used go first */
  constructor(maxCacheEntries: number) {
    this.#max = maxCacheEntries;
  }

  /** Adds `reference`, or marks it used if present. */
  add(reference: ObjectReference): void {
    const key = referenceKey(reference);
    this.#entries.delete(key);
    this.#entries.set(key, reference);
    while (this.#max > 0 && this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** True when `reference` is cached; a hit counts as a use, as in Go's `Get`. */
  has(reference: ObjectReference): boolean {
    const key = referenceKey(reference);
    const found = this.#entries.get(key);
    if (found === undefined) return false;
    this.#entries.delete(key);
    this.#entries.set(key, found);
    return true;
  }

  /** How many references are cached. */
  get size(): number {
    return this.#entries.size;
  }
}
