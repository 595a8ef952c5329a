// The sandbox's storage: every object of every resource, one global revision
// counter, and a bounded history of changes that watches replay and that
// compaction trims. kube-apiserver's counterpart is its watch cache
// (staging/src/k8s.io/apiserver/pkg/storage/cacher) over the etcd3 store
// (pkg/storage/etcd3/store.go): reads and watches are served from memory
// here too, and every change is first kept by a StorageBackend (memory, or
// SQLite as k3s keeps it), from which a restart rebuilds this state.
import { StatusError, newResourceExpired, newTimeoutError } from '@kcm-ts/apimachinery';
import { checkStoredJson } from '../body-limits.js';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { MemoryBackend } from './memory-backend.js';
import type { KeptState, StorageBackend } from './backend.js';

/**
 * A committed change, as the history keeps it and watchers receive it.
 *
 * @category Storage
 */
export interface StoredEvent {
  /** The revision this change was committed at. */
  readonly rv: number;
  /** The storage (see `ResourceInfo.storage`) the object lives in. */
  readonly storage: string;
  /** The object's key: `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** What happened. */
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object after the change; for `DELETED`, the object as it was, at the delete's revision. */
  readonly object: KubeObject;
  /** The object before the change (`undefined` for `ADDED`). */
  readonly prev: KubeObject | undefined;
}

/** Options for {@link Storage}. */
export interface StorageOptions {
  /**
   * How many changes the history keeps (at least 1). Watches and paginated
   * lists that start from an older revision get 410 Expired, as when etcd has
   * compacted it.
   */
  historyWindow?: number;
  /**
   * Where changes are kept, and the state to start from. Default: a new
   * in-memory backend.
   *
   * @internal
   */
  backend?: StorageBackend;
}

// The backend forgets superseded rows in batches of at least this many
// revisions (kine compacts every five minutes; one DELETE per write would
// double the cost of a durable write).
const backendCompactBatch = 1_000;

/**
 * storage/errors.go, NewTooLargeResourceVersionError: a read at a
 * resourceVersion the storage has not reached. 504 Timeout with a
 * `ResourceVersionTooLarge` cause, which client-go's reflector recognises
 * and answers by listing afresh; `retryAfterSeconds` is 1 from the watch
 * cache, 0 (left out) from etcd.
 *
 * @category Storage
 */
export function tooLargeResourceVersion(
  rv: number,
  current: number,
  retryAfterSeconds: number,
): StatusError {
  const err = newTimeoutError(`Too large resource version: ${rv}, current: ${current}`, 0);
  return new StatusError({
    code: err.code,
    reason: err.reason,
    message: err.message,
    details: {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    },
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The key an object is stored under: `namespace/name`, or `name` when the
 * namespace is empty (cluster-scoped objects).
 */
export function storageKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// ObjectMeta's lists and maps are `omitempty` in Go: an empty one is not
// stored, so a reader never sees `finalizers: []` where kube-apiserver
// would show nothing.
const omitEmptyMeta = ['finalizers', 'ownerReferences', 'labels', 'annotations', 'managedFields'];

function withoutEmptyLists(meta: Record<string, unknown>): Record<string, unknown> {
  for (const k of omitEmptyMeta) {
    const v = meta[k];
    if (
      (Array.isArray(v) && v.length === 0) ||
      (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)
    ) {
      delete meta[k];
    }
  }
  return meta;
}

/**
 * Objects with a global revision and a change history, in memory in front
 * of a backend that keeps every change. Objects are stored frozen;
 * {@link Storage.commit} is the only way to change them, and it stamps
 * `metadata.resourceVersion`.
 */
export class Storage {
  private revision = 0;
  private compacted = 0;
  private backendCompacted = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  // The history is `events[historyStart..]`; dropped events are sliced off
  // in batches, so trimming one per write costs nothing.
  private events: StoredEvent[] = [];
  private historyStart = 0;
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  private readonly backend: StorageBackend;
  /** How many changes are kept for watches to resume from. */
  readonly historyWindow: number;

  constructor(opts: StorageOptions = {}) {
    const window = opts.historyWindow ?? 10_000;
    if (!Number.isInteger(window) || window < 1) {
      throw new RangeError(`historyWindow must be a positive integer, got ${String(window)}`);
    }
    this.historyWindow = window;
    this.backend = opts.backend ?? new MemoryBackend();
    this.restore(this.backend.load());
  }

  /** Rebuilds the objects and the history from what the backend kept. */
  private restore(state: KeptState): void {
    for (const c of state.base) this.bucket(c.storage).set(c.key, deepFreeze(c.object));
    for (const c of state.changes) {
      const bucket = this.bucket(c.storage);
      const prev = bucket.get(c.key);
      const object = deepFreeze(c.object);
      if (c.type === 'DELETED') bucket.delete(c.key);
      else bucket.set(c.key, object);
      this.events.push({ rv: c.rv, storage: c.storage, key: c.key, type: c.type, object, prev });
    }
    this.revision = state.revision;
    this.compacted = state.compacted;
    this.backendCompacted = state.compacted;
    this.dropHistory(this.events.length - this.historyWindow);
  }

  private bucket(storage: string): Map<string, KubeObject> {
    let bucket = this.objects.get(storage);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(storage, bucket);
    }
    return bucket;
  }

  /** The revision of the latest change (0 before any). */
  currentRevision(): number {
    return this.revision;
  }

  /**
   * The newest revision the history no longer covers: a watch or a consistent
   * list can start from any revision at or above it.
   */
  compactedRevision(): number {
    return this.compacted;
  }

  /**
   * How many objects `storage` holds: the object count tracker's figure
   * (storage/etcd3, ObjectCountTracker) that priority and fairness prices
   * lists by.
   */
  count(storage: string): number {
    return this.objects.get(storage)?.size ?? 0;
  }

  /** The object at `key`, frozen; `undefined` if there is none. */
  get(storage: string, key: string): KubeObject | undefined {
    return this.objects.get(storage)?.get(key);
  }

  /**
   * The objects of `storage`, frozen, ordered by key (namespace, then name, as
   * etcd orders them), optionally only those in `namespace`.
   */
  list(storage: string, namespace?: string): KubeObject[] {
    const all = this.objects.get(storage);
    if (!all) return [];
    return sortedByKey(all, namespace);
  }

  /**
   * The objects of `storage` as they were at revision `rv`, ordered by key:
   * the current objects with every later change undone. Throws 410 Expired if
   * the history no longer reaches back to `rv`.
   */
  listAt(storage: string, rv: number, namespace?: string): KubeObject[] {
    if (rv >= this.revision) return this.list(storage, namespace);
    if (rv < this.compacted) {
      throw newResourceExpired('The resourceVersion for the provided list is too old.');
    }
    const state = new Map(this.objects.get(storage) ?? []);
    for (let i = this.events.length - 1; i >= this.historyStart; i--) {
      const event = this.events[i];
      if (!event || event.rv <= rv) break;
      if (event.storage !== storage) continue;
      if (event.type === 'ADDED') state.delete(event.key);
      else if (event.prev) state.set(event.key, event.prev);
    }
    return sortedByKey(state, namespace);
  }

  /** The changes after revision `rv`, oldest first. Throws 410 Expired if compacted. */
  changesSince(rv: number): StoredEvent[] {
    if (rv < this.compacted) {
      throw newResourceExpired(`too old resource version: ${rv} (${this.compacted})`);
    }
    let lo = this.historyStart;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid]?.rv ?? 0) <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  /**
   * Writes a change at the next revision: `object` is stored (a copy, frozen,
   * with `metadata.resourceVersion` set to the new revision), or removed when
   * `type` is `DELETED`. The backend keeps it first, and listeners hear of
   * it before this returns. An object over 1.5 MiB as JSON is refused, as
   * etcd refuses it, with a 500; so is any write the backend cannot keep.
   */
  commit(storage: string, key: string, type: StoredEvent['type'], object: KubeObject): KubeObject {
    const rv = this.revision + 1;
    // One serialisation serves the size check, the copy and the backend.
    const value = JSON.stringify({
      ...object,
      metadata: withoutEmptyLists({ ...object.metadata, resourceVersion: String(rv) }),
    });
    // etcd refuses a value over its request limit before anything changes.
    if (type !== 'DELETED') checkStoredJson(value);
    const stored = deepFreeze(JSON.parse(value) as KubeObject);
    const bucket = this.bucket(storage);
    const prev = bucket.get(key);
    const prevRv = Number(prev?.metadata?.resourceVersion ?? 0);
    this.backend.append({ rv, storage, key, type, object: stored, value, prevRv });
    this.revision = rv;
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, stored);
    const event: StoredEvent = { rv, storage, key, type, object: stored, prev };
    this.events.push(event);
    this.dropHistory(this.events.length - this.historyStart - this.historyWindow);
    for (const listener of this.listeners) listener(event);
    return stored;
  }

  /**
   * Forgets the history up to and including revision `rv` (default: all of
   * it), as etcd compaction does: watches and paginated lists from before it
   * then get 410 Expired.
   */
  compact(rv: number = this.revision): void {
    let drop = 0;
    while (
      this.historyStart + drop < this.events.length &&
      (this.events[this.historyStart + drop]?.rv ?? 0) <= rv
    )
      drop++;
    this.dropHistory(drop);
    this.compacted = Math.max(this.compacted, Math.min(rv, this.revision));
    this.compactBackend(true);
  }

  private dropHistory(count: number): void {
    if (count <= 0) return;
    const last = this.events[this.historyStart + count - 1];
    this.historyStart += count;
    if (last) this.compacted = Math.max(this.compacted, last.rv);
    if (this.historyStart >= 1024 && this.historyStart * 2 >= this.events.length) {
      this.events = this.events.slice(this.historyStart);
      this.historyStart = 0;
    }
    this.compactBackend(false);
  }

  private compactBackend(now: boolean): void {
    const behind = this.compacted - this.backendCompacted;
    if (behind <= 0 || (!now && behind < backendCompactBatch)) return;
    this.backend.compact(this.compacted);
    this.backendCompacted = this.compacted;
  }

  /** Calls `listener` for every change from now on; returns the unsubscribe function. */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function sortedByKey(objects: Map<string, KubeObject>, namespace?: string): KubeObject[] {
  const prefix = namespace ? `${namespace}/` : '';
  return [...objects.entries()]
    .filter(([key]) => key.startsWith(prefix))
    .sort(([a], [b]) => compareKeys(a, b))
    .map(([, obj]) => obj);
}
