// The keyed cache: client-go tools/cache store.go (Store, cache, NewStore,
// NewIndexer) and the Indexer interface of index.go.
import type { KeyFunc } from '@kcm-ts/apimachinery';
import type { Indexers } from './index-funcs.js';
import { keyOrThrow } from './keys.js';
import { newThreadSafeStore, type ThreadSafeStore } from './thread-safe-store.js';

/**
 * A keyed collection of objects: Go's `cache.Store`. The key of each object
 * comes from the store's key function; when that throws, the method throws a
 * {@link KeyError} and the store is unchanged.
 *
 * @category Store
 */
export interface Store<T> {
  /** Stores `obj` under its key. */
  add(obj: T): void;
  /** Stores `obj` under its key, replacing what was there. */
  update(obj: T): void;
  /** Removes the object stored under `obj`'s key, if any. */
  delete(obj: T): void;
  /** A snapshot of all objects, in no particular order. */
  list(): T[];
  /** A snapshot of all keys, in no particular order. */
  listKeys(): string[];
  /** The stored object with the same key as `obj`, or `undefined`. */
  get(obj: T): T | undefined;
  /** The object stored under `key`, or `undefined`. Never throws. */
  getByKey(key: string): T | undefined;
  /**
   * Replaces the whole contents with `list`. If any key cannot be computed it
   * throws a {@link KeyError} and leaves the store unchanged; of two objects
   * with the same key, the later wins.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Does nothing for a plain store; kept for parity with Go's interface. */
  resync(): void;
  /**
   * The resourceVersion of the last write (see
   * {@link ThreadSafeStore.lastStoreSyncResourceVersion}); `''` at first.
   * Go's `LastStoreSyncResourceVersion`.
   */
  lastStoreSyncResourceVersion(): string;
  /** Records a resourceVersion the store has caught up with, with no object. Go's `Bookmark`. */
  bookmark(resourceVersion: string): void;
}

/**
 * A {@link Store} with indices: Go's `cache.Indexer`. See
 * {@link ThreadSafeStore} for what each index method returns and throws.
 *
 * @category Store
 */
export interface Indexer<T> extends Store<T> {
  /** The objects that share an indexed value with `obj` under `indexName`. */
  index(indexName: string, obj: T): T[];
  /** The storage keys of the objects indexed under `indexedValue`, sorted. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value currently present in the index; empty for an unknown index. */
  listIndexFuncValues(indexName: string): string[];
  /** The objects indexed under `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The index functions, by name. */
  getIndexers(): Indexers<T>;
  /** Adds index functions and indexes the objects already stored under them. */
  addIndexers(newIndexers: Indexers<T>): void;
}

/**
 * Rewrites an object before a store keeps it, for instance to drop fields
 * nobody reads. Go's `cache.TransformFunc`; it throws where Go returns an error.
 *
 * @category Store
 */
export type TransformFunc<T> = (obj: T) => T;

/**
 * Options for {@link newStore} and {@link newIndexer}.
 *
 * @category Store
 */
export interface StoreOptions<T> {
  /**
   * Applied on add, update and replace, after the key has been computed (not on
   * delete): Go's `WithTransformer`. What it throws is rethrown as
   * `transforming: <message>`.
   */
  transform?: TransformFunc<T>;
}

/**
 * Creates a {@link Store} keyed by `keyFunc`, usually
 * `metaNamespaceKeyFunc` from `@kcm-ts/apimachinery`. Go's `cache.NewStore`.
 *
 * @category Store
 */
export function newStore<T>(keyFunc: KeyFunc, options: StoreOptions<T> = {}): Store<T> {
  return new Cache<T>(newThreadSafeStore<T>(), keyFunc, options.transform);
}

/**
 * Creates an {@link Indexer} keyed by `keyFunc` with the given index
 * functions. Go's `cache.NewIndexer`.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#indexer}
 *
 * @category Store
 */
export function newIndexer<T>(
  keyFunc: KeyFunc,
  indexers: Indexers<T>,
  options: StoreOptions<T> = {},
): Indexer<T> {
  return new Cache<T>(newThreadSafeStore<T>(indexers), keyFunc, options.transform);
}

/**
 * The store operations this package's informers use when the queue has
 * already computed each object's key with the same key function, so a
 * change is keyed once. Internal: not exported from the package.
 */
export interface KeyedStore<T> extends Indexer<T> {
  /** The store's key function. */
  readonly keyFunc: KeyFunc;
  /** {@link Store.add} with the key given. */
  addKeyed(key: string, obj: T): void;
  /** {@link Store.update} with the key given. */
  updateKeyed(key: string, obj: T): void;
  /** {@link Store.delete} with the key given. */
  deleteKeyed(key: string, obj: T): void;
  /** {@link Store.replace} with the keys given, one per object. */
  replaceKeyed(keys: readonly string[], list: readonly T[], resourceVersion: string): void;
}

/** The store as a {@link KeyedStore} when it is one made by {@link newStore} or {@link newIndexer}. */
export function keyedStoreOf<T>(store: Store<T>): KeyedStore<T> | undefined {
  return store instanceof Cache ? (store as Cache<T>) : undefined;
}

class Cache<T> implements KeyedStore<T> {
  readonly #store: ThreadSafeStore<T>;
  readonly #keyFunc: KeyFunc;
  readonly #transform: TransformFunc<T> | undefined;

  constructor(
    store: ThreadSafeStore<T>,
    keyFunc: KeyFunc,
    transform: TransformFunc<T> | undefined,
  ) {
    this.#store = store;
    this.#keyFunc = keyFunc;
    this.#transform = transform;
  }

  get keyFunc(): KeyFunc {
    return this.#keyFunc;
  }

  addKeyed(key: string, obj: T): void {
    this.#store.add(key, this.#transformed(obj));
  }

  updateKeyed(key: string, obj: T): void {
    this.#store.update(key, this.#transformed(obj));
  }

  deleteKeyed(key: string, obj: T): void {
    this.#store.deleteWithObject(key, obj);
  }

  replaceKeyed(keys: readonly string[], list: readonly T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (let i = 0; i < list.length; i++) {
      items.set(keys[i] as string, this.#transformed(list[i] as T));
    }
    this.#store.replace(items, resourceVersion);
  }

  //#region cache-writes
  add(obj: T): void {
    const key = keyOrThrow(this.#keyFunc, obj);
    this.#store.add(key, this.#transformed(obj));
  }

  update(obj: T): void {
    const key = keyOrThrow(this.#keyFunc, obj);
    this.#store.update(key, this.#transformed(obj));
  }

  delete(obj: T): void {
    this.#store.deleteWithObject(keyOrThrow(this.#keyFunc, obj), obj);
  }
  //#endregion cache-writes

  list(): T[] {
    return this.#store.list();
  }

  listKeys(): string[] {
    return this.#store.listKeys();
  }

  get(obj: T): T | undefined {
    return this.#store.get(keyOrThrow(this.#keyFunc, obj));
  }

  getByKey(key: string): T | undefined {
    return this.#store.get(key);
  }

  replace(list: readonly T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(keyOrThrow(this.#keyFunc, obj), obj);
    if (this.#transform) {
      for (const [key, obj] of items) items.set(key, this.#transformed(obj));
    }
    this.#store.replace(items, resourceVersion);
  }

  resync(): void {
    // Nothing to do: kept for parity with Go's interface.
  }

  lastStoreSyncResourceVersion(): string {
    return this.#store.lastStoreSyncResourceVersion();
  }

  bookmark(resourceVersion: string): void {
    this.#store.bookmark(resourceVersion);
  }

  index(indexName: string, obj: T): T[] {
    return this.#store.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#store.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#store.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#store.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers<T> {
    return this.#store.getIndexers();
  }

  addIndexers(newIndexers: Indexers<T>): void {
    this.#store.addIndexers(newIndexers);
  }

  #transformed(obj: T): T {
    if (!this.#transform) return obj;
    try {
      return this.#transform(obj);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`transforming: ${reason}`, { cause: err });
    }
  }
}
