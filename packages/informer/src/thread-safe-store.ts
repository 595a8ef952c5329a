// The indexed, in-memory map under every cache: client-go tools/cache
// thread_safe_store.go. JavaScript runs one task at a time, so "thread safe"
// only means that each method leaves the items and indices consistent.
import type { Index, IndexFunc, Indexers } from './index-funcs.js';

/**
 * A key-to-object map that keeps any number of indices up to date: Go's
 * `cache.ThreadSafeStore`. Callers supply the keys; {@link newStore} and
 * {@link newIndexer} wrap it with a key function.
 *
 * Objects are stored as given: treat them as read-only.
 *
 * @category Store
 */
export interface ThreadSafeStore<T> {
  /** Stores `obj` under `key` and indexes it. */
  add(key: string, obj: T): void;
  /** Same as {@link ThreadSafeStore.add}: replaces the object under `key` and re-indexes it. */
  update(key: string, obj: T): void;
  /** Removes the object under `key` and its index entries; a missing key is a no-op. */
  delete(key: string): void;
  /**
   * Like {@link ThreadSafeStore.delete}, and takes the store's
   * resourceVersion from `obj`, the deleted object's last state. Go's
   * `DeleteWithObject`.
   */
  deleteWithObject(key: string, obj: T): void;
  /** The object under `key`, or `undefined` when there is none. */
  get(key: string): T | undefined;
  /** A snapshot of all objects, in no particular order. */
  list(): T[];
  /** A snapshot of all keys, in no particular order. */
  listKeys(): string[];
  /**
   * Replaces every object with those in `items` and rebuilds the indices.
   * The store takes `items` over: do not change the map afterwards.
   */
  replace(items: Map<string, T>, resourceVersion: string): void;
  /**
   * The resourceVersion of the last write: the object last added, updated
   * or deleted with its object (when it has metadata), the version given to
   * the last replace, or the last bookmark, whichever came last; `''` at
   * first. Not the highest version seen. Go's `LastStoreSyncResourceVersion`.
   */
  lastStoreSyncResourceVersion(): string;
  /** Records a resourceVersion the store has caught up with, with no object. Go's `Bookmark`. */
  bookmark(resourceVersion: string): void;
  /**
   * The objects that share at least one indexed value with `obj` under
   * `indexName`. Throws `Index with name <name> does not exist` for an unknown
   * index, and rethrows what the index function throws.
   */
  index(indexName: string, obj: T): T[];
  /** The storage keys of the objects indexed under `indexedValue`, sorted. Throws for an unknown index. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value currently present in the index; empty for an unknown index. */
  listIndexFuncValues(indexName: string): string[];
  /** The objects indexed under `indexedValue`; empty for an unknown value. Throws for an unknown index. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The index functions, by name. */
  getIndexers(): Indexers<T>;
  /**
   * Adds index functions and indexes the objects already stored under them.
   * Throws `indexer conflict: <names>` when a name is already taken, adding none.
   */
  addIndexers(newIndexers: Indexers<T>): void;
  /** Does nothing; kept for parity with Go's interface. */
  resync(): void;
}

/**
 * Creates an empty {@link ThreadSafeStore} with the given index functions:
 * Go's `cache.NewThreadSafeStore`.
 *
 * @category Store
 */
export function newThreadSafeStore<T>(indexers: Indexers<T> = {}): ThreadSafeStore<T> {
  return new ThreadSafeMap<T>(indexers);
}

// thread_safe_store.go, rvFromObject: objects without metadata have none.
function metaResourceVersion(obj: unknown): string | undefined {
  const meta = (obj as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
}

function indexValues<T>(name: string, fn: IndexFunc<T>, key: string, obj: T): string[] {
  try {
    return fn(obj);
  } catch (err) {
    // Go panics here: an index function that fails is a programming error.
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `unable to calculate an index entry for key "${key}" on index "${name}": ${reason}`,
      {
        cause: err,
      },
    );
  }
}

class ThreadSafeMap<T> implements ThreadSafeStore<T> {
  #items = new Map<string, T>();
  #rv = '';
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** Index name to index; an index never holds an empty key set. */
  #indices = new Map<string, Index>();

  constructor(indexers: Indexers<T>) {
    for (const [name, fn] of Object.entries(indexers)) this.#indexers.set(name, fn);
  }

  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  //#region thread-safe-update
  update(key: string, obj: T): void {
    const items = this.#items;
    if (this.#indexers.size === 0) {
      items.set(key, obj);
    } else {
      const hadOld = items.has(key);
      const old = hadOld ? items.get(key) : undefined;
      items.set(key, obj);
      this.#updateIndices(old, hadOld, obj, true, key);
    }
    const rv = metaResourceVersion(obj);
    if (rv !== undefined) this.#rv = rv;
  }
  //#endregion thread-safe-update

  delete(key: string): void {
    const items = this.#items;
    if (!items.has(key)) return;
    if (this.#indexers.size > 0) this.#updateIndices(items.get(key), true, undefined, false, key);
    items.delete(key);
  }

  deleteWithObject(key: string, obj: T): void {
    this.delete(key);
    const rv = metaResourceVersion(obj);
    if (rv !== undefined) this.#rv = rv;
  }

  lastStoreSyncResourceVersion(): string {
    return this.#rv;
  }

  bookmark(resourceVersion: string): void {
    this.#rv = resourceVersion;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  replace(items: Map<string, T>, resourceVersion: string): void {
    this.#items = items;
    this.#rv = resourceVersion;
    this.#indices = new Map();
    if (this.#indexers.size === 0) return;
    for (const [key, obj] of items) this.#updateIndices(undefined, false, obj, true, key);
  }

  index(indexName: string, obj: T): T[] {
    const fn = this.#indexFunc(indexName);
    const values = fn(obj);
    const index = this.#indices.get(indexName);
    const keys = new Set<string>();
    for (const value of values) {
      for (const key of index?.get(value) ?? []) keys.add(key);
    }
    return this.#objects(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.#indexFunc(indexName);
    const set = this.#indices.get(indexName)?.get(indexedValue);
    return set ? [...set].sort() : [];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.#indices.get(indexName)?.keys() ?? [])];
  }

  //#region by-index
  byIndex(indexName: string, indexedValue: string): T[] {
    this.#indexFunc(indexName);
    return this.#objects(this.#indices.get(indexName)?.get(indexedValue) ?? new Set());
  }
  //#endregion by-index

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.#indexers);
  }

  addIndexers(newIndexers: Indexers<T>): void {
    const conflicts = Object.keys(newIndexers).filter((name) => this.#indexers.has(name));
    if (conflicts.length > 0) throw new Error(`indexer conflict: ${conflicts.sort().join(', ')}`);
    for (const [name, fn] of Object.entries(newIndexers)) {
      this.#indexers.set(name, fn);
      for (const [key, obj] of this.#items)
        this.#indexOne(name, fn, undefined, false, obj, true, key);
    }
  }

  resync(): void {
    // Nothing to do: kept for parity with Go's interface.
  }

  #indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.#indexers.get(indexName);
    if (!fn) throw new Error(`Index with name ${indexName} does not exist`);
    return fn;
  }

  #objects(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      if (this.#items.has(key)) out.push(this.#items.get(key) as T);
    }
    return out;
  }

  #updateIndices(
    oldObj: T | undefined,
    hasOld: boolean,
    newObj: T | undefined,
    hasNew: boolean,
    key: string,
  ): void {
    // thread_safe_store.go, updateIndices
    for (const [name, fn] of this.#indexers) {
      this.#indexOne(name, fn, oldObj, hasOld, newObj, hasNew, key);
    }
  }

  //#region index-one
  #indexOne(
    name: string,
    fn: IndexFunc<T>,
    oldObj: T | undefined,
    hasOld: boolean,
    newObj: T | undefined,
    hasNew: boolean,
    key: string,
  ): void {
    const oldValues = hasOld ? indexValues(name, fn, key, oldObj as T) : [];
    const newValues = hasNew ? indexValues(name, fn, key, newObj as T) : [];
    // The common case of one unchanged value leaves the index alone.
    if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) return;
    let index = this.#indices.get(name);
    if (!index) {
      index = new Map();
      this.#indices.set(name, index);
    }
    for (const value of oldValues) {
      const set = index.get(value);
      if (!set) continue;
      set.delete(key);
      // An empty set would leak: drop it.
      if (set.size === 0) index.delete(value);
    }
    for (const value of newValues) {
      let set = index.get(value);
      if (!set) {
        set = new Set();
        index.set(value, set);
      }
      set.add(key);
    }
  }
  //#endregion index-one
}
