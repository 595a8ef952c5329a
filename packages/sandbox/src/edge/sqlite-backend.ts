// The sandbox's state in SQLite, kept the way k3s keeps a cluster's: kine's
// log-structured table (k3s-io/kine pkg/drivers/sqlite/sqlite.go for the
// schema and the WAL journal; pkg/logstructured/sqllog/sql.go, Append, and
// pkg/drivers/generic/generic.go, the compact query). Every revision is a
// row; a key's versions are chained by prev_revision; compaction deletes the
// rows a later one superseded. Node-only: the registry reaches it through
// the StorageBackend interface.
import Database from 'libsql';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { KeptChange, KeptState, StorageBackend } from '../apiserver/storage/backend.js';

type Row = [
  id: number,
  name: string,
  created: number,
  deleted: number,
  prev: number,
  value: string,
];

// kine's columns, less `lease` (the sandbox grants no etcd leases),
// `create_revision` (never read back) and `old_value` (the previous
// version is the row prev_revision names, replayed at start). kine's unique
// (name, prev_revision) index guards concurrent writers; the sandbox has one.
const schema = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** The etcd key of an object, under kube-apiserver's `/registry` prefix. */
function etcdKey(storage: string, key: string): string {
  return `/registry/${storage}/${key}`;
}

function parseKey(name: string): { storage: string; key: string } {
  const rest = name.slice('/registry/'.length);
  const slash = rest.indexOf('/');
  return { storage: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

function changeOf(row: Row): KeptChange {
  const [id, name, created, deleted, prevRv, value] = row;
  const object = JSON.parse(value) as KubeObject;
  // The row's revision is the resourceVersion, as kube-apiserver's
  // versioner sets it from etcd's mod revision on every read.
  object.metadata = { ...object.metadata, resourceVersion: String(id) };
  return {
    rv: id,
    ...parseKey(name),
    type: deleted ? 'DELETED' : created ? 'ADDED' : 'MODIFIED',
    object,
    value,
    prevRv,
  };
}

/**
 * A {@link StorageBackend} in one SQLite file, journaled with a write-ahead
 * log and `synchronous=NORMAL`, as k3s runs kine (`_journal=WAL`, and
 * mattn/go-sqlite3 builds SQLite with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1):
 * each change is in the log, whole, before {@link SqliteBackend.append}
 * returns, so it survives the process being killed; the log is flushed to
 * the disk at checkpoints, so a power loss may take the last changes (never
 * half of one).
 *
 * @internal
 */
export class SqliteBackend implements StorageBackend {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[number, string, number, number, number, string]>;
  private readonly compactRows: Database.Statement<[number, number]>;
  private readonly setMeta: Database.Statement<[string, number]>;

  /** Opens (or creates) the database file at `file`. */
  constructor(file: string) {
    this.db = new Database(file, { timeout: 5_000 });
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec(schema);
    this.insert = this.db.prepare(
      'INSERT INTO kine (id, name, created, deleted, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // generic.go's compactSQL: rows superseded by a row at or before the
    // revision, and deletions at or before it.
    this.compactRows = this.db.prepare(
      `DELETE FROM kine WHERE id IN (
         SELECT prev_revision FROM kine WHERE prev_revision != 0 AND id <= ?
         UNION SELECT id FROM kine WHERE deleted != 0 AND id <= ?)`,
    );
    this.setMeta = this.db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  load(): KeptState {
    const meta = new Map(
      (this.db.prepare('SELECT key, value FROM meta').raw().all() as [string, number][]).map(
        ([k, v]) => [k, Number(v)],
      ),
    );
    const compacted = meta.get('compact_rev') ?? 0;
    const rows = this.db
      .prepare('SELECT id, name, created, deleted, prev_revision, value FROM kine ORDER BY id')
      .raw()
      .all() as Row[];
    const base: KeptChange[] = [];
    const changes: KeptChange[] = [];
    for (const row of rows) (row[0] <= compacted ? base : changes).push(changeOf(row));
    const last = rows[rows.length - 1];
    // The last row may have been compacted away (a deletion): the compacted
    // revision still says how far the counter had gone.
    return { revision: Math.max(compacted, last ? last[0] : 0), compacted, base, changes };
  }

  append(change: KeptChange): void {
    this.insert.run(
      change.rv,
      etcdKey(change.storage, change.key),
      change.type === 'ADDED' ? 1 : 0,
      change.type === 'DELETED' ? 1 : 0,
      change.prevRv,
      change.value,
    );
  }

  compact(rv: number): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.compactRows.run(rv, rv);
      this.setMeta.run('compact_rev', rv);
      this.db.exec('COMMIT');
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }
}
