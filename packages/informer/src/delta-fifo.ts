// The queue between a reflector and an informer that merges changes per
// object: client-go tools/cache delta_fifo.go (DeltaFIFO).
import {
  DeletedFinalStateUnknown,
  FifoBuffer,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  type KeyFunc,
} from '@kcm-ts/apimachinery';
import { DoneSignal, type DoneChecker } from './done-checker.js';
import { KeyError, keyOrThrow } from './keys.js';
import type {
  Delta,
  Deltas,
  DrainableQueue,
  KeyedPopProcessFunc,
  PopOutcome,
  PopProcessFunc,
  PopResult,
  Queue,
} from './queue.js';
import type { TransformFunc } from './store.js';

// The delta types a DeltaFIFO queues: the atomic ones belong to RealFIFO.
type DeltaFIFOType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/**
 * What a {@link DeltaFIFO} needs from the store an informer keeps: Go's
 * `cache.KeyListerGetter`. Usually the informer's {@link Indexer}.
 *
 * @category DeltaFIFO
 */
export interface KeyListerGetter<T> {
  /** Every key in the store. */
  listKeys(): string[];
  /** The object under `key`, or `undefined`; it may throw for a failed lookup. */
  getByKey(key: string): T | undefined;
}

/**
 * Options for {@link newDeltaFIFO}: Go's `DeltaFIFOOptions`.
 *
 * @category DeltaFIFO
 */
export interface DeltaFIFOOptions<T> {
  /** Names the queue in messages; defaults to `DeltaFIFO`. */
  name?: string;
  /** Defaults to `metaNamespaceKeyFunc` from `@kcm-ts/apimachinery`. */
  keyFunction?: KeyFunc;
  /**
   * The objects the consumer already has. With it, deletions of objects missing
   * from a relist are detected, and {@link DeltaFIFO.resync} works.
   */
  knownObjects?: KeyListerGetter<T>;
  /**
   * Emit `Replaced` instead of `Sync` for objects listed by
   * {@link DeltaFIFO.replace}. Defaults to false, as in Go; informers set it.
   */
  emitDeltaTypeReplaced?: boolean;
  /** Applied to objects as they are queued, except to tombstones and resync's `Sync` deltas. */
  transformer?: TransformFunc<T>;
}

/**
 * The error wrapped in a {@link KeyError} when asked for the key of an empty
 * {@link Deltas}: Go's `ErrZeroLengthDeltasObject`.
 *
 * @category DeltaFIFO
 */
export const errZeroLengthDeltasObject = new Error("0 length Deltas object; can't get key");

/**
 * A queue of per-key change lists: Go's `cache.DeltaFIFO`. A reflector adds
 * objects (and relists with {@link DeltaFIFO.replace}); an informer pops one
 * key's deltas at a time and applies them to its store. Each key appears in
 * the queue at most once; changes to a queued key are appended to its deltas
 * without moving it. Two consecutive deletions of a key collapse into one.
 * Informers use a {@link RealFIFO} by default, as client-go does since 1.33;
 * this one is what they used before, and stays selectable.
 *
 * @category DeltaFIFO
 */
export interface DeltaFIFO<T> extends Queue<T> {
  /** Queues an `Added` delta. */
  add(obj: T): void;
  /** Queues an `Updated` delta. */
  update(obj: T): void;
  /**
   * Queues a `Deleted` delta, unless the key is neither queued nor (when there
   * are known objects) known, in which case the deletion is ignored.
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /**
   * Queues a `Sync` (or `Replaced`) delta for each listed object, and a
   * `Deleted` tombstone for each queued or known key the list lacks. The
   * resource version is ignored.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Queues a `Sync` delta for every known object that has no pending deltas. */
  resync(): void;
  /** The newest object of each queued key. */
  list(): (T | DeletedFinalStateUnknown<T>)[];
  /** The queued keys. */
  listKeys(): string[];
  /** A copy of the deltas queued under `obj`'s key, or `undefined`. */
  get(obj: T): Deltas<T> | undefined;
  /** A copy of the deltas queued under `key`, or `undefined`. */
  getByKey(key: string): Deltas<T> | undefined;
  /**
   * Waits for a key, removes it with its deltas and calls `process` with them
   * before resolving. What `process` throws rejects the promise; the deltas
   * are not queued again. Resolves `[undefined, true]` once the queue is
   * closed and empty; items queued before closing are still handed out.
   */
  pop(process: PopProcessFunc<T>): Promise<PopResult<T>>;
  /** The key of an object, a tombstone or a {@link Deltas} (its newest object). Throws a {@link KeyError}. */
  keyOf(obj: unknown): string;
}

/**
 * Creates a {@link DeltaFIFO}: Go's `NewDeltaFIFOWithOptions`.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#delta-fifo}
 *
 * @category DeltaFIFO
 */
export function newDeltaFIFO<T>(options: DeltaFIFOOptions<T> = {}): DeltaFIFO<T> {
  return new DeltaFIFOImpl<T>(options);
}

function isDeltas(obj: unknown): obj is Deltas<unknown> {
  return Array.isArray(obj);
}

/**
 * Collapses the last two deltas when both are deletions, in place
 * (delta_fifo.go, dedupDeltas): a key's deltas are never copied per change.
 */
//#region dedup
function dedupDeltas<T>(deltas: Deltas<T>): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 1] as Delta<T>;
  const b = deltas[n - 2] as Delta<T>;
  const out = isDuplicate(a, b);
  if (out === undefined) return;
  deltas.length = n - 2;
  deltas.push(out);
}
//#endregion dedup

/** The delta to keep when `a` (newer) and `b` (older) are duplicates (isDup, isDeletionDup). */
function isDuplicate<T>(a: Delta<T>, b: Delta<T>): Delta<T> | undefined {
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return undefined;
  // Prefer the delta that carries the real object over a tombstone.
  return isDeletedFinalStateUnknown(b.object) ? a : b;
}

class DeltaFIFOImpl<T> implements DeltaFIFO<T>, DrainableQueue<T> {
  readonly #items = new Map<string, Deltas<T>>();
  /** Keys in FIFO order; a key is here iff it is in #items. */
  readonly #queue = new FifoBuffer<string>();
  #populated = false;
  #initialPopulationCount = 0;
  readonly #synced: DoneSignal;
  #closed = false;
  /** Pops and drains waiting for an item, oldest first. */
  readonly #waiters = new FifoBuffer<() => void>();
  #wakeScheduled = false;
  readonly #keyFunc: KeyFunc;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #emitDeltaTypeReplaced: boolean;
  readonly #transformer: TransformFunc<T> | undefined;

  constructor(options: DeltaFIFOOptions<T>) {
    this.#synced = new DoneSignal(options.name ?? 'DeltaFIFO');
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? false;
    this.#transformer = options.transformer;
  }

  keyOf(obj: unknown): string {
    // delta_fifo.go, KeyOf
    if (isDeltas(obj)) {
      const newest = obj.at(-1);
      if (!newest) throw new KeyError(obj, errZeroLengthDeltasObject);
      obj = newest.object;
    }
    if (isDeletedFinalStateUnknown(obj)) return obj.key;
    return keyOrThrow(this.#keyFunc, obj);
  }

  add(obj: T): void {
    this.#populated = true;
    this.#checkSynced();
    this.#queueAction('Added', 'Added', obj);
  }

  update(obj: T): void {
    this.#populated = true;
    this.#checkSynced();
    this.#queueAction('Updated', 'Updated', obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.#populated = true;
    this.#checkSynced();
    if (!this.#items.has(id)) {
      if (!this.#knownObjects) return;
      let known: boolean;
      try {
        known = this.#knownObjects.getByKey(id) !== undefined;
      } catch {
        // A failed lookup does not prove the object unknown: queue the delete.
        known = true;
      }
      if (!known) return;
    }
    this.#queueAction('Deleted', 'Deleted', obj);
  }

  //#region replace
  replace(list: readonly T[], _resourceVersion: string): void {
    // delta_fifo.go, Replace
    const action: DeltaFIFOType = this.#emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    const keys = new Set<string>();
    for (const item of list) {
      keys.add(this.keyOf(item));
      this.#queueAction(action, 'Replaced', item);
    }

    let queuedDeletions = 0;
    // Appending to a queued key leaves the map's keys as they are: no copy needed.
    for (const [key, deltas] of this.#items) {
      if (keys.has(key)) continue;
      let last: unknown = deltas.at(-1)?.object;
      if (isDeletedFinalStateUnknown(last)) last = last.obj;
      queuedDeletions++;
      this.#queueAction(
        'Deleted',
        'Deleted',
        new DeletedFinalStateUnknown(key, last as T | undefined),
      );
    }

    if (this.#knownObjects) {
      for (const key of this.#knownObjects.listKeys()) {
        if (keys.has(key) || this.#items.has(key)) continue;
        let known: T | undefined;
        try {
          known = this.#knownObjects.getByKey(key);
        } catch {
          known = undefined;
        }
        queuedDeletions++;
        this.#queueAction('Deleted', 'Deleted', new DeletedFinalStateUnknown(key, known));
      }
    }

    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = keys.size + queuedDeletions;
      this.#checkSynced();
    }
  }
  //#endregion replace

  resync(): void {
    if (!this.#knownObjects) return;
    for (const key of this.#knownObjects.listKeys()) {
      let obj: T | undefined;
      try {
        obj = this.#knownObjects.getByKey(key);
      } catch {
        continue;
      }
      if (obj === undefined) continue;
      const id = this.keyOf(obj);
      // Pending deltas are newer than the known object: leave them be.
      if ((this.#items.get(id)?.length ?? 0) > 0) continue;
      this.#queueAction('Sync', 'Sync', obj);
    }
  }

  list(): (T | DeletedFinalStateUnknown<T>)[] {
    const out: (T | DeletedFinalStateUnknown<T>)[] = [];
    for (const deltas of this.#items.values()) {
      const newest = deltas.at(-1);
      if (newest) out.push(newest.object as T | DeletedFinalStateUnknown<T>);
    }
    return out;
  }

  listKeys(): string[] {
    return [...this.#queue];
  }

  get(obj: T): Deltas<T> | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  getByKey(key: string): Deltas<T> | undefined {
    const deltas = this.#items.get(key);
    return deltas ? [...deltas] : undefined;
  }

  pop(process: PopProcessFunc<T>): Promise<PopResult<T>> {
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        try {
          resolve(this.#pop(process));
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      if (this.#waiters.length === 0 && (this.#queue.length > 0 || this.#closed)) attempt();
      else {
        this.#waiters.push(attempt);
        this.#scheduleWake();
      }
    });
  }

  popNow(process: KeyedPopProcessFunc<T>): PopOutcome {
    if (this.#queue.length === 0) return this.#closed ? 'closed' : 'empty';
    this.#pop(process);
    return 'popped';
  }

  onReady(ready: () => void): void {
    this.#waiters.push(ready);
    this.#scheduleWake();
  }

  hasSynced(): boolean {
    return this.#synced.isDone();
  }

  hasSyncedChecker(): DoneChecker {
    return this.#synced;
  }

  // delta_fifo.go, checkSynced_locked: after every change to populated or
  // initialPopulationCount.
  #checkSynced(): void {
    if (this.#populated && this.#initialPopulationCount === 0) this.#synced.close();
  }

  close(): void {
    this.#closed = true;
    this.#scheduleWake();
  }

  isClosed(): boolean {
    return this.#closed;
  }

  /** Takes the head key; only called when the queue is non-empty or closed. */
  #pop(process: KeyedPopProcessFunc<T>): PopResult<T> {
    const id = this.#queue.shift();
    if (id === undefined) return [undefined, true];
    const isInInitialList = !this.hasSynced();
    // Unlike FIFO and RealFIFO, the item counts as popped before it is processed.
    if (this.#initialPopulationCount > 0) {
      this.#initialPopulationCount--;
      this.#checkSynced();
    }
    const deltas = this.#items.get(id) as Deltas<T>;
    this.#items.delete(id);
    // The key goes along, so the consumer need not compute it again.
    process(deltas, isInInitialList, id);
    return [deltas, false];
  }

  /** Hands items to waiting pops on a later microtask, never inside add or close. */
  #scheduleWake(): void {
    if (this.#wakeScheduled || this.#waiters.length === 0) return;
    this.#wakeScheduled = true;
    queueMicrotask(this.#wake);
  }

  // One function for every wake-up: nothing is allocated per change.
  readonly #wake = (): void => {
    this.#wakeScheduled = false;
    while (this.#waiters.length > 0 && (this.#queue.length > 0 || this.#closed)) {
      (this.#waiters.shift() as () => void)();
    }
  };

  //#region queue-action
  #queueAction(
    type: DeltaFIFOType,
    internalType: DeltaFIFOType,
    obj: T | DeletedFinalStateUnknown<T>,
  ): void {
    // delta_fifo.go, queueActionInternalLocked
    const id = this.keyOf(obj);
    if (this.#transformer && !isDeletedFinalStateUnknown(obj) && internalType !== 'Sync') {
      obj = this.#transformer(obj);
    }
    const deltas = this.#items.get(id);
    if (deltas === undefined) {
      this.#items.set(id, [{ type, object: obj }]);
      this.#queue.push(id);
    } else {
      deltas.push({ type, object: obj });
      dedupDeltas(deltas);
    }
    this.#scheduleWake();
  }
  //#endregion queue-action
}
