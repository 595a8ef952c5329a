// What a controller drains and a reflector fills: client-go tools/cache
// fifo.go (Queue, QueueWithBatch, PopProcessFunc) and controller.go
// (ProcessBatchFunc).
import type { DeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import type { DoneChecker } from './done-checker.js';
import type { ReflectorStore } from './reflector.js';

/**
 * What happened to an object: Go's `cache.DeltaType`. `Replaced` and `Sync`
 * come from a relist and a resync. The last three come only from a
 * {@link RealFIFO} that emits atomic events: a whole relist
 * (`ReplacedAll`, carrying a {@link ReplacedAllInfo}), a whole resync
 * (`SyncAll`) and a bookmark (`Bookmark`, carrying a {@link BookmarkInfo}).
 *
 * @category Queues
 */
export type DeltaType =
  'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync' | 'ReplacedAll' | 'SyncAll' | 'Bookmark';

/**
 * One change to one object: Go's `cache.Delta`. A `Deleted` delta may carry a
 * {@link DeletedFinalStateUnknown} tombstone instead of the object; the
 * atomic types carry their info instead.
 *
 * @category Queues
 */
export type Delta<T> =
  | {
      /** The kind of change. */
      readonly type: 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';
      /** The object after the change, or a tombstone for a deletion found by relist. */
      readonly object: T | DeletedFinalStateUnknown<T>;
    }
  | {
      /** A whole relist, in one change. */
      readonly type: 'ReplacedAll';
      /** The listed objects and their resourceVersion. */
      readonly object: ReplacedAllInfo<T>;
    }
  | {
      /** A whole resync, in one change. */
      readonly type: 'SyncAll';
      /** Nothing to carry. */
      readonly object: SyncAllInfo;
    }
  | {
      /** A bookmark: the server has caught up with a resourceVersion. */
      readonly type: 'Bookmark';
      /** The bookmark's resourceVersion. */
      readonly object: BookmarkInfo;
    };

/**
 * What a `ReplacedAll` delta carries: Go's `ReplacedAllInfo`.
 *
 * @category Queues
 */
export interface ReplacedAllInfo<T> {
  /** The resourceVersion of the list. */
  readonly resourceVersion: string;
  /** The listed objects, transformed. */
  readonly objects: readonly T[];
}

/**
 * What a `Bookmark` delta carries: Go's `BookmarkInfo`.
 *
 * @category Queues
 */
export interface BookmarkInfo {
  /** The resourceVersion of the bookmark. */
  readonly resourceVersion: string;
}

/**
 * What a `SyncAll` delta carries: nothing. Go's `SyncAllInfo`.
 *
 * @category Queues
 */
export type SyncAllInfo = Readonly<Record<string, never>>;

/**
 * The changes handed out together, oldest first: Go's `cache.Deltas`. A
 * {@link DeltaFIFO} hands out every queued change of one key; a
 * {@link RealFIFO} one change at a time. Never empty.
 *
 * @category Queues
 */
export type Deltas<T> = Delta<T>[];

/**
 * What `pop` resolves to, shaped like the work queue's `get`: the deltas
 * handed to the process function, or `closed` once the queue is closed and
 * empty.
 *
 * @category Queues
 */
export type PopResult<T> =
  readonly [deltas: Deltas<T>, closed: false] | readonly [deltas: undefined, closed: true];

/**
 * Handles what one `pop` takes, synchronously: Go's `PopProcessFunc`.
 * `isInInitialList` is true while the items of the first relist are being
 * handed out.
 *
 * @category Queues
 */
export type PopProcessFunc<T> = (deltas: Deltas<T>, isInInitialList: boolean) => void;

/**
 * Handles the changes one `popBatch` takes, synchronously: Go's
 * `ProcessBatchFunc`. The batch holds at most one change per object.
 *
 * @category Queues
 */
export type ProcessBatchFunc<T> = (deltas: Deltas<T>, isInInitialList: boolean) => void;

/**
 * A queue a {@link Reflector} fills and a {@link Controller} drains: Go's
 * `cache.Queue`. {@link DeltaFIFO} and {@link RealFIFO} are the two.
 *
 * @category Queues
 */
export interface Queue<T> extends ReflectorStore<T> {
  /**
   * Waits for an item, removes it and calls `process` with it before
   * resolving. What `process` throws rejects the promise; the item is not
   * queued again. Resolves `[undefined, true]` once the queue is closed and
   * empty; items queued before closing are still handed out.
   */
  pop(process: PopProcessFunc<T>): Promise<PopResult<T>>;
  /**
   * True once something was added, updated or deleted before the first
   * replace, or once every item of the first replace has been popped.
   */
  hasSynced(): boolean;
  /** Done when {@link Queue.hasSynced} turns true. Go's `HasSyncedChecker`. */
  hasSyncedChecker(): DoneChecker;
  /** Makes waiting and future pops resolve `closed` once the queue is empty. */
  close(): void;
  /** True once {@link Queue.close} has been called. */
  isClosed(): boolean;
}

/**
 * A {@link Queue} that can hand out several changes at once: Go's
 * `QueueWithBatch`.
 *
 * @category Queues
 */
export interface QueueWithBatch<T> extends Queue<T> {
  /**
   * Like {@link Queue.pop}, but takes as many leading changes as can go
   * together and hands them to `processBatch`; a lone change goes to
   * `processSingle`. Resolves `true` once the queue is closed and empty.
   */
  popBatch(processBatch: ProcessBatchFunc<T>, processSingle: PopProcessFunc<T>): Promise<boolean>;
}

/** What one synchronous pop found: used by the controller's loop. */
export type PopOutcome = 'popped' | 'empty' | 'closed';

/**
 * A process function that is also given the key of what it processes:
 * the queues of this package pass it as a third argument, so informers
 * compute each key once. Internal.
 */
export type KeyedPopProcessFunc<T> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
  key?: string,
) => void;

/** {@link KeyedPopProcessFunc} for a batch: one key per change. Internal. */
export type KeyedProcessBatchFunc<T> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
  keys?: readonly string[],
) => void;

/**
 * A queue the controller can drain synchronously, with no promise per
 * change: both queues of this package are. Internal.
 */
export interface DrainableQueue<T> {
  /** Pops what can be popped now, as `popBatch` (or `pop` without `processBatch`) would. */
  popNow(
    processSingle: KeyedPopProcessFunc<T>,
    processBatch: KeyedProcessBatchFunc<T> | undefined,
  ): PopOutcome;
  /** Calls `ready` once, on a later microtask, when there is something to pop or the queue has closed. */
  onReady(ready: () => void): void;
}

/** True for the queues of this package. */
export function isDrainable<T>(queue: object): queue is DrainableQueue<T> {
  return typeof (queue as Partial<DrainableQueue<T>>).popNow === 'function';
}
