// The queue between a reflector and an informer that keeps every change, in
// order: client-go tools/cache the_real_fifo.go (RealFIFO, reconcileReplacement).
import {
  DeletedFinalStateUnknown,
  FifoBuffer,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  noopLogger,
  type KeyFunc,
  type Logger,
} from '@kcm-ts/apimachinery';
import type { KeyListerGetter } from './delta-fifo.js';
import { errZeroLengthDeltasObject } from './delta-fifo.js';
import { DoneSignal, type DoneChecker } from './done-checker.js';
import { KeyError, keyOrThrow } from './keys.js';
import type {
  Delta,
  Deltas,
  DrainableQueue,
  KeyedPopProcessFunc,
  KeyedProcessBatchFunc,
  PopOutcome,
  PopProcessFunc,
  PopResult,
  ProcessBatchFunc,
  QueueWithBatch,
} from './queue.js';
import type { TransformFunc } from './store.js';

/**
 * Options for {@link newRealFIFO}: Go's `RealFIFOOptions`.
 *
 * @category RealFIFO
 */
export interface RealFIFOOptions<T> {
  /** Names the queue in messages; defaults to `RealFIFO`. */
  name?: string;
  /** Defaults to `metaNamespaceKeyFunc` from `@kcm-ts/apimachinery`. */
  keyFunction?: KeyFunc;
  /**
   * The objects the consumer already has: needed, and only allowed, without
   * `atomicEvents`, to find what a relist no longer lists and to resync.
   */
  knownObjects?: KeyListerGetter<T>;
  /** Applied to objects as they are queued, except to tombstones and resync's `Sync` deltas. */
  transformer?: TransformFunc<T>;
  /**
   * Queue a whole relist as one `ReplacedAll` change and a whole resync as
   * one `SyncAll`, leaving the comparison with the cache to the consumer.
   * Default `false`, as in Go; informers set it (the `AtomicFIFO` gate).
   */
  atomicEvents?: boolean;
  /** Queue a `Bookmark` change for each bookmark; only with `atomicEvents`. Default `false`. */
  emitDeltaTypeBookmark?: boolean;
  /** Where messages go. Default: nowhere. */
  logger?: Logger;
  /** The most changes {@link RealFIFO.popBatch} takes at once. Default 1000, fixed in client-go. */
  batchSize?: number;
}

/**
 * A queue that hands out every change it is given, one at a time, in the
 * order they came: Go's `cache.RealFIFO`, what informers use since client-go
 * 1.33. Unlike a {@link DeltaFIFO}, it keeps no per-object lists: changes to
 * one object are not merged, a deletion of an object the consumer never saw
 * is still queued, and an object listed twice is handed out twice.
 *
 * @category RealFIFO
 */
export interface RealFIFO<T> extends QueueWithBatch<T> {
  /** Queues an `Added` change. Throws a {@link KeyError} for an object without a key. */
  add(obj: T): void;
  /** Queues an `Updated` change. */
  update(obj: T): void;
  /** Queues a `Deleted` change, known object or not. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /**
   * With atomic events, queues one `ReplacedAll` change with the transformed
   * list. Otherwise queues, first, a `Deleted` tombstone for each object with
   * changes in the queue or in the known objects that the list lacks, then a
   * `Replaced` change per listed object, in list order.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /**
   * With atomic events, queues one `SyncAll` change. Otherwise queues a
   * `Sync` change for every known object with no change in the queue.
   */
  resync(): void;
  /** Queues a `Bookmark` change when bookmarks are emitted; otherwise does nothing. */
  bookmark(resourceVersion: string): void;
  /**
   * Waits for a change, removes it and calls `process` with it (a one-change
   * {@link Deltas}) before resolving. The first relist counts as handed out
   * only once `process` has returned.
   */
  pop(process: PopProcessFunc<T>): Promise<PopResult<T>>;
  /** The key of an object, a tombstone or a {@link Deltas} (its newest object). Throws a {@link KeyError}. */
  keyOf(obj: unknown): string;
  /** The transformer objects are queued through. Go's `TransformingStore`. */
  transformer(): TransformFunc<T> | undefined;
  /** A copy of the queued changes, oldest first. */
  queued(): Deltas<T>;
}

/**
 * Creates a {@link RealFIFO}: Go's `NewRealFIFOWithOptions`. Throws, as Go
 * panics, for the combinations client-go refuses: atomic events with known
 * objects, non-atomic events without them, and bookmarks without atomic
 * events.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#real-fifo}
 *
 * @category RealFIFO
 */
export function newRealFIFO<T>(options: RealFIFOOptions<T> = {}): RealFIFO<T> {
  return new RealFIFOImpl<T>(options);
}

// the_real_fifo.go, defaultBatchSize
const defaultBatchSize = 1000;

// The change types a batch may hold (the_real_fifo.go, batchable).
const batchable = new Set(['Sync', 'Replaced', 'Added', 'Updated', 'Deleted']);

// the_real_fifo.go, reconcileReplacement: queues a deletion for every object
// that the consumer may hold (a change of it is queued, or it is known) and
// that the new list lacks, queued ones first. Deletions already queued are
// left alone.
export function reconcileReplacement<T>(
  queued: Iterable<readonly [key: string, delta: Delta<T>]>,
  knownObjects: KeyListerGetter<T>,
  newKeys: ReadonlySet<string>,
  onDelete: (key: string, tombstone: DeletedFinalStateUnknown<T>) => void,
  logger: Logger,
): void {
  const lastQueued = new Map<string, Delta<T>>();
  for (const [key, delta] of queued) lastQueued.set(key, delta);
  for (const [key, last] of lastQueued) {
    if (newKeys.has(key) || last.type === 'Deleted') continue;
    onDelete(key, new DeletedFinalStateUnknown(key, last.object as T));
  }
  for (const key of knownObjects.listKeys()) {
    if (newKeys.has(key) || lastQueued.has(key)) continue;
    let known: T | undefined;
    try {
      known = knownObjects.getByKey(key);
      if (known === undefined) {
        logger.error(
          undefined,
          'Key does not exist in known objects store, placing DeleteFinalStateUnknown marker without object',
          { key },
        );
      }
    } catch (err) {
      logger.error(
        err,
        'Error during lookup, placing DeleteFinalStateUnknown marker without object',
        { key },
      );
    }
    onDelete(key, new DeletedFinalStateUnknown(key, known));
  }
}

class RealFIFOImpl<T> implements RealFIFO<T>, DrainableQueue<T> {
  readonly #name: string;
  readonly #keyFunc: KeyFunc;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #transformer: TransformFunc<T> | undefined;
  readonly #atomic: boolean;
  readonly #emitBookmarks: boolean;
  readonly #logger: Logger;
  readonly #batchSize: number;
  // The changes, oldest first, and beside each its key ('' for the atomic
  // types): computed once when it is queued.
  readonly #items = new FifoBuffer<Delta<T>>();
  readonly #keys = new FifoBuffer<string>();
  #populated = false;
  #initialPopulationCount = 0;
  readonly #synced: DoneSignal;
  #closed = false;
  /** Pops and drains waiting for a change, oldest first. */
  readonly #waiters = new FifoBuffer<() => void>();
  #wakeScheduled = false;

  constructor(options: RealFIFOOptions<T>) {
    // the_real_fifo.go, NewRealFIFOWithOptions: the same refusals, in Go's words.
    if (options.atomicEvents === true) {
      if (options.knownObjects !== undefined) {
        throw new Error(
          'coding error: knownObjects must not be provided when AtomicEvents is true',
        );
      }
    } else {
      if (options.knownObjects === undefined) {
        throw new Error('coding error: knownObjects must be provided when AtomicEvents is false');
      }
      if (options.emitDeltaTypeBookmark === true) {
        throw new Error(
          'coding error: EmitDeltaTypeBookmark must be false when AtomicEvents is false',
        );
      }
    }
    this.#name = options.name ?? 'RealFIFO';
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#transformer = options.transformer;
    this.#atomic = options.atomicEvents ?? false;
    this.#emitBookmarks = options.emitDeltaTypeBookmark ?? false;
    this.#logger = options.logger ?? noopLogger;
    this.#batchSize = options.batchSize ?? defaultBatchSize;
    this.#synced = new DoneSignal(this.#name);
  }

  keyOf(obj: unknown): string {
    // the_real_fifo.go, keyOf
    if (Array.isArray(obj)) {
      const newest = (obj as Deltas<T>).at(-1);
      if (!newest) throw new KeyError(obj, errZeroLengthDeltasObject);
      obj = newest.object;
    }
    if (isDeletedFinalStateUnknown(obj)) return obj.key;
    return keyOrThrow(this.#keyFunc, obj);
  }

  transformer(): TransformFunc<T> | undefined {
    return this.#transformer;
  }

  add(obj: T): void {
    this.#populate();
    this.#queue('Added', false, obj);
  }

  update(obj: T): void {
    this.#populate();
    this.#queue('Updated', false, obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#populate();
    this.#queue('Deleted', false, obj);
  }

  //#region real-fifo-replace
  replace(list: readonly T[], resourceVersion: string): void {
    // the_real_fifo.go, Replace
    if (this.#atomic) {
      const t = this.#transformer;
      // The list is the queue's now (Go's store takes ownership): no copy.
      const objects = t === undefined ? list : list.map((obj) => t(obj));
      this.#push({ type: 'ReplacedAll', object: { resourceVersion, objects } }, '');
    } else {
      // Every key first: one that cannot be computed changes nothing.
      const keys = list.map((obj) => this.keyOf(obj));
      reconcileReplacement(
        this.#queuedWithKeys(),
        this.#knownObjects as KeyListerGetter<T>,
        new Set(keys),
        (key, tombstone) => this.#push({ type: 'Deleted', object: tombstone }, key),
        this.#logger,
      );
      // Deletions first, then the list: the opposite of DeltaFIFO.
      for (let i = 0; i < list.length; i++) {
        this.#push(
          { type: 'Replaced', object: this.#transformed(list[i] as T) },
          keys[i] as string,
        );
      }
    }
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = this.#items.length;
      this.#checkSynced();
    }
  }
  //#endregion real-fifo-replace

  resync(): void {
    // the_real_fifo.go, Resync
    if (this.#atomic) {
      this.#push({ type: 'SyncAll', object: {} }, '');
      return;
    }
    const known = this.#knownObjects;
    if (known === undefined) return;
    const inQueue = new Set(this.#keys);
    for (const key of known.listKeys()) {
      // A queued change is newer than the known object: leave it be.
      if (inQueue.has(key)) continue;
      let obj: T | undefined;
      try {
        obj = known.getByKey(key);
      } catch (err) {
        this.#logger.error(err, 'Unable to queue object for sync', { key });
        continue;
      }
      if (obj === undefined) {
        this.#logger.error(
          undefined,
          'Key does not exist in known objects store, unable to queue object for sync',
          { key },
        );
        continue;
      }
      this.#push({ type: 'Sync', object: obj }, key);
    }
  }

  bookmark(resourceVersion: string): void {
    if (!this.#emitBookmarks) return;
    this.#push({ type: 'Bookmark', object: { resourceVersion } }, '');
  }

  pop(process: PopProcessFunc<T>): Promise<PopResult<T>> {
    return new Promise((resolve, reject) => {
      // The key goes along as a third argument, as to the controller's loop.
      const keyed: KeyedPopProcessFunc<T> = process;
      const attempt = (): void => {
        let popped: Deltas<T> = [];
        try {
          const outcome = this.#popOne((deltas, initial, key) => {
            popped = deltas;
            keyed(deltas, initial, key);
          });
          resolve(outcome === 'closed' ? [undefined, true] : [popped, false]);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      this.#whenReady(attempt);
    });
  }

  popBatch(processBatch: ProcessBatchFunc<T>, processSingle: PopProcessFunc<T>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        try {
          resolve(this.popNow(processSingle, processBatch) === 'closed');
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      this.#whenReady(attempt);
    });
  }

  popNow(
    processSingle: KeyedPopProcessFunc<T>,
    processBatch: KeyedProcessBatchFunc<T> | undefined,
  ): PopOutcome {
    if (processBatch === undefined) return this.#popOne(processSingle);
    // the_real_fifo.go, PopBatch
    const items = this.#items;
    if (items.length === 0) return this.#closed ? 'closed' : 'empty';
    // One change alone needs no batch: the common case while following a watch.
    if (items.length === 1) return this.#popOne(processSingle);
    const isInInitialList = !this.hasSynced();
    const limit = Math.min(this.#batchSize, items.length);
    const boundary = this.#initialPopulationCount > 0 ? this.#initialPopulationCount : limit;
    let n = 0;
    let unique: Set<string> | undefined;
    for (; n < limit && n < boundary; n++) {
      const delta = items.at(n) as Delta<T>;
      if (!batchable.has(delta.type)) {
        // An atomic change goes alone.
        if (n === 0) n = 1;
        break;
      }
      if (n === 0) continue;
      // Keys in a batch are unique: a second change of an object waits.
      unique ??= new Set([this.#keys.at(0) as string]);
      const key = this.#keys.at(n) as string;
      if (unique.has(key)) break;
      unique.add(key);
    }
    if (n === 1) return this.#popOne(processSingle);
    const deltas: Deltas<T> = new Array<Delta<T>>(n);
    const keys: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      deltas[i] = items.shift() as Delta<T>;
      keys[i] = this.#keys.shift() as string;
    }
    try {
      processBatch(deltas, isInInitialList, keys);
    } finally {
      // Counted only once processed, so hasSynced means handled, not just taken.
      if (this.#initialPopulationCount > 0) {
        this.#initialPopulationCount -= n;
        this.#checkSynced();
      }
    }
    return 'popped';
  }

  onReady(ready: () => void): void {
    this.#whenReady(ready);
  }

  hasSynced(): boolean {
    return this.#synced.isDone();
  }

  hasSyncedChecker(): DoneChecker {
    return this.#synced;
  }

  close(): void {
    this.#closed = true;
    this.#scheduleWake();
  }

  isClosed(): boolean {
    return this.#closed;
  }

  queued(): Deltas<T> {
    return [...this.#items];
  }

  // the_real_fifo.go, Pop: one change, counted after it is processed.
  #popOne(process: KeyedPopProcessFunc<T>): PopOutcome {
    const delta = this.#items.shift();
    if (delta === undefined) return this.#closed ? 'closed' : 'empty';
    const key = this.#keys.shift() as string;
    const isInInitialList = !this.hasSynced();
    try {
      process([delta], isInInitialList, key);
    } finally {
      if (this.#initialPopulationCount > 0) {
        this.#initialPopulationCount--;
        this.#checkSynced();
      }
    }
    return 'popped';
  }

  #populate(): void {
    this.#populated = true;
    this.#checkSynced();
  }

  // the_real_fifo.go, checkSynced_locked
  #checkSynced(): void {
    if (this.#populated && this.#initialPopulationCount === 0) this.#synced.close();
  }

  // the_real_fifo.go, addToItems_locked
  #queue(
    type: 'Added' | 'Updated' | 'Deleted',
    skipTransform: boolean,
    obj: T | DeletedFinalStateUnknown<T>,
  ): void {
    const key = this.keyOf(obj);
    if (!skipTransform && !isDeletedFinalStateUnknown(obj)) obj = this.#transformed(obj);
    this.#push({ type, object: obj }, key);
  }

  #transformed(obj: T): T {
    return this.#transformer === undefined ? obj : this.#transformer(obj);
  }

  #push(delta: Delta<T>, key: string): void {
    this.#items.push(delta);
    this.#keys.push(key);
    this.#scheduleWake();
  }

  *#queuedWithKeys(): Generator<readonly [string, Delta<T>]> {
    for (let i = 0; i < this.#items.length; i++) {
      yield [this.#keys.at(i) as string, this.#items.at(i) as Delta<T>];
    }
  }

  #whenReady(callback: () => void): void {
    this.#waiters.push(callback);
    this.#scheduleWake();
  }

  /** Wakes waiters on a later microtask, never inside add or close. */
  #scheduleWake(): void {
    if (this.#wakeScheduled || this.#waiters.length === 0) return;
    if (this.#items.length === 0 && !this.#closed) return;
    this.#wakeScheduled = true;
    queueMicrotask(this.#wake);
  }

  // One function for every wake-up: nothing is allocated per change.
  readonly #wake = (): void => {
    this.#wakeScheduled = false;
    while (this.#waiters.length > 0 && (this.#items.length > 0 || this.#closed)) {
      (this.#waiters.shift() as () => void)();
    }
  };
}
