// The sandbox's etcd: every object of every resource, one global revision
// counter, and a bounded history of changes that watches replay and that
// compaction trims. kube-apiserver's counterpart is the etcd3 store
// (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go) with its watch
// cache in front (pkg/storage/cacher); here both are one in-memory map.
import { newResourceExpired } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';

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

/**
 * In-memory objects with a global revision and a change history. Objects are
 * stored frozen; {@link Storage.commit} is the only way to change them, and
 * it stamps `metadata.resourceVersion`.
 */
export class Storage {
  private revision = 0;
  private compacted = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: StoredEvent[] = [];
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  /** How many changes are kept for watches to resume from. */
  readonly historyWindow: number;

  constructor(opts: StorageOptions = {}) {
    const window = opts.historyWindow ?? 10_000;
    if (!Number.isInteger(window) || window < 1) {
      throw new RangeError(`historyWindow must be a positive integer, got ${String(window)}`);
    }
    this.historyWindow = window;
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
    const prefix = namespace ? `${namespace}/` : '';
    return [...all.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => compareKeys(a, b))
      .map(([, obj]) => obj);
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
    for (let i = this.history.length - 1; i >= 0; i--) {
      const event = this.history[i];
      if (!event || event.rv <= rv) break;
      if (event.storage !== storage) continue;
      if (event.type === 'ADDED') state.delete(event.key);
      else if (event.prev) state.set(event.key, event.prev);
    }
    const prefix = namespace ? `${namespace}/` : '';
    return [...state.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => compareKeys(a, b))
      .map(([, obj]) => obj);
  }

  /** The changes after revision `rv`, oldest first. Throws 410 Expired if compacted. */
  changesSince(rv: number): StoredEvent[] {
    if (rv < this.compacted) {
      throw newResourceExpired(`too old resource version: ${rv} (${this.compacted})`);
    }
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.history[mid]?.rv ?? 0) <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  /**
   * Writes a change at the next revision: `object` is stored (a copy, frozen,
   * with `metadata.resourceVersion` set to the new revision), or removed when
   * `type` is `DELETED`. Listeners hear of it before this returns.
   */
  commit(storage: string, key: string, type: StoredEvent['type'], object: KubeObject): KubeObject {
    const rv = ++this.revision;
    const stored = deepFreeze({
      ...structuredClone(object),
      metadata: { ...structuredClone(object.metadata ?? {}), resourceVersion: String(rv) },
    }) as KubeObject;
    let bucket = this.objects.get(storage);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(storage, bucket);
    }
    const prev = bucket.get(key);
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, stored);
    const event: StoredEvent = { rv, storage, key, type, object: stored, prev };
    this.history.push(event);
    if (this.history.length > this.historyWindow)
      this.trim(this.history.length - this.historyWindow);
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
    while (drop < this.history.length && (this.history[drop]?.rv ?? 0) <= rv) drop++;
    this.trim(drop);
    this.compacted = Math.max(this.compacted, Math.min(rv, this.revision));
  }

  private trim(count: number): void {
    if (count <= 0) return;
    const last = this.history[count - 1];
    this.history = this.history.slice(count);
    if (last) this.compacted = Math.max(this.compacted, last.rv);
  }

  /** Calls `listener` for every change from now on; returns the unsubscribe function. */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
