// The in-memory store of record, the default: what etcd would keep, kept in
// the process (kine's in-memory SQLite, `--datastore-endpoint=sqlite://:memory:`,
// plays the same part). A new Storage given the same backend starts where
// the last one stopped, so a restart keeps state without any file.
import type { KeptChange, KeptState, StorageBackend } from './backend.js';

/**
 * A {@link StorageBackend} in memory: the latest version of each key as of
 * the compacted revision, and every change since.
 *
 * @internal
 */
export class MemoryBackend implements StorageBackend {
  private readonly base = new Map<string, KeptChange>();
  private changes: KeptChange[] = [];
  private revision = 0;
  private compacted = 0;

  load(): KeptState {
    return {
      revision: this.revision,
      compacted: this.compacted,
      base: [...this.base.values()],
      changes: [...this.changes],
    };
  }

  append(change: KeptChange): void {
    if (change.rv <= this.revision) {
      throw new Error(`revision ${change.rv} is not after ${this.revision}`);
    }
    this.changes.push(change);
    this.revision = change.rv;
  }

  compact(rv: number): void {
    const upTo = Math.min(rv, this.revision);
    if (upTo <= this.compacted) return;
    let drop = 0;
    for (const change of this.changes) {
      if (change.rv > upTo) break;
      const id = `${change.storage}\u0000${change.key}`;
      if (change.type === 'DELETED') this.base.delete(id);
      else this.base.set(id, change);
      drop++;
    }
    this.changes = this.changes.slice(drop);
    this.compacted = upTo;
  }

  close(): void {
    // Nothing to release: the state stays for the next Storage.
  }
}
