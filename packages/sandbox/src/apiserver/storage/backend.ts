// Where the sandbox's state is kept: the store of record under the watch
// cache (storage.ts), as etcd is under kube-apiserver's cacher, or kine's
// SQLite under a k3s server (k3s-io/kine pkg/server/types.go, Backend).
// One row per revision: the change log that a restart replays. This file
// uses no `node:` module, so that the registry and its storage can run in
// a browser page; the SQLite implementation lives at the Node edge.
import type { KubeObject } from '@kcm-ts/apimachinery';

/**
 * One committed change as the backend keeps it.
 *
 * @internal
 */
export interface KeptChange {
  /** The revision it was committed at (kine's row id, etcd's mod revision). */
  readonly rv: number;
  /** The storage (see `ResourceInfo.storage`) of the object. */
  readonly storage: string;
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** What happened; a `DELETED` change keeps the object as it was deleted. */
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object, with `metadata.resourceVersion` equal to `rv`. */
  readonly object: KubeObject;
  /** The object as JSON, serialised once when it was committed. */
  readonly value: string;
  /** The revision of the key's previous version; 0 for a new key. */
  readonly prevRv: number;
}

/**
 * Everything a backend keeps, read once when the storage starts.
 *
 * @internal
 */
export interface KeptState {
  /** The revision of the last change kept (0 for a new store). */
  readonly revision: number;
  /** The newest revision whose history has been forgotten (0 if none). */
  readonly compacted: number;
  /** Each key's latest version at or before `compacted` (no deleted keys), in any order. */
  readonly base: readonly KeptChange[];
  /** The changes after `compacted`, oldest first. */
  readonly changes: readonly KeptChange[];
}

/**
 * The store of record behind the sandbox's storage. {@link MemoryBackend}
 * keeps it in the process; the SQLite backend (`dataDir`) keeps it on disk.
 * Calls are synchronous: a change is kept before the write that made it is
 * answered, so every acknowledged write survives a crash.
 *
 * @internal
 */
export interface StorageBackend {
  /** What is kept, to replay at start. */
  load(): KeptState;
  /** Keeps one change; throws (and keeps nothing) if it cannot. */
  append(change: KeptChange): void;
  /**
   * Forgets superseded versions and deletions at or before `rv`, as etcd
   * compaction does; the latest version of every live key stays.
   */
  compact(rv: number): void;
  /** Releases the store (closes files); nothing may be called after. */
  close(): void;
}
