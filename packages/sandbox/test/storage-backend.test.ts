// The two stores of record keep the same contract: what was appended comes
// back from load, compaction keeps each live key's latest version and
// forgets the rest, and the revision counter never goes back. The Storage
// in front of either rebuilds its objects and history from them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeObject } from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../src/apiserver/storage/memory-backend.js';
import { SqliteBackend } from '../src/edge/sqlite-backend.js';
import { Storage } from '../src/apiserver/storage/storage.js';
import type { StorageBackend } from '../src/apiserver/storage/backend.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-backend-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const dataOf = (o: KubeObject | undefined): unknown => (o as { data?: unknown } | undefined)?.data;
const cm = (name: string, value: string): KubeObject =>
  ({ metadata: { name, namespace: 'default' }, data: { value } }) as KubeObject;

// Each kind of backend, opened afresh on the same place: a restart.
const kinds: [string, () => () => StorageBackend][] = [
  [
    'memory',
    () => {
      const memory = new MemoryBackend();
      return () => memory;
    },
  ],
  ['sqlite', () => () => new SqliteBackend(path.join(dir, 'state.db'))],
];

describe.each(kinds)('a %s backend under the storage', (_name, place) => {
  it('gives a restarted storage the same objects, revisions and history', () => {
    const open = place();
    const backend = open();
    const first = new Storage({ backend });
    first.commit('configmaps', 'default/a', 'ADDED', cm('a', '1'));
    first.commit('configmaps', 'default/b', 'ADDED', cm('b', '1'));
    const a2 = first.commit('configmaps', 'default/a', 'MODIFIED', cm('a', '2'));
    first.commit('configmaps', 'default/b', 'DELETED', cm('b', '1'));
    backend.close();

    const again = open();
    const second = new Storage({ backend: again });
    expect(second.currentRevision()).toBe(4);
    expect(second.list('configmaps')).toEqual([a2]);
    expect(Object.isFrozen(second.get('configmaps', 'default/a')?.metadata)).toBe(true);
    // A watcher from before the restart resumes from its revision.
    expect(second.changesSince(1).map((e) => [e.rv, e.type, e.key])).toEqual([
      [2, 'ADDED', 'default/b'],
      [3, 'MODIFIED', 'default/a'],
      [4, 'DELETED', 'default/b'],
    ]);
    expect(dataOf(second.changesSince(2)[0]?.prev)).toEqual({ value: '1' });
    expect(second.listAt('configmaps', 2).map((o) => o.metadata?.name)).toEqual(['a', 'b']);
    const next = second.commit('configmaps', 'default/c', 'ADDED', cm('c', '1'));
    expect(next.metadata?.resourceVersion).toBe('5');
    again.close();
  });

  it('keeps the latest version of live keys through compaction, and the counter', () => {
    const open = place();
    const backend = open();
    const storage = new Storage({ backend });
    storage.commit('configmaps', 'default/a', 'ADDED', cm('a', '1'));
    storage.commit('configmaps', 'default/a', 'MODIFIED', cm('a', '2'));
    storage.commit('configmaps', 'default/b', 'ADDED', cm('b', '1'));
    storage.commit('configmaps', 'default/b', 'DELETED', cm('b', '1'));
    storage.compact();
    backend.close();

    const kept = open().load();
    expect(kept.revision).toBe(4);
    expect(kept.compacted).toBe(4);
    expect(kept.changes).toEqual([]);
    expect(kept.base.map((c) => [c.rv, c.key, dataOf(c.object)])).toEqual([
      [2, 'default/a', { value: '2' }],
    ]);
    const restarted = new Storage({ backend: open() });
    expect(restarted.currentRevision()).toBe(4);
    expect(restarted.compactedRevision()).toBe(4);
    expect(() => restarted.changesSince(3)).toThrow(/too old resource version/);
    expect(
      restarted.commit('configmaps', 'default/c', 'ADDED', cm('c', '1')).metadata,
    ).toMatchObject({ resourceVersion: '5' });
  });

  it('trims what it replays to the history window, and compacts in batches', () => {
    const open = place();
    const backend = open();
    const storage = new Storage({ backend, historyWindow: 10 });
    for (let i = 0; i < 2_500; i++)
      storage.commit('configmaps', 'default/a', i ? 'MODIFIED' : 'ADDED', cm('a', String(i)));
    expect(storage.compactedRevision()).toBe(2_490);
    backend.close();
    // At least the window is kept, and at most one batch more than it.
    const kept = open().load();
    expect(kept.compacted).toBe(2_000);
    expect(kept.changes.length).toBe(500);
    const restarted = new Storage({ backend: open(), historyWindow: 10 });
    expect(restarted.compactedRevision()).toBe(2_490);
    expect(restarted.changesSince(2_490).length).toBe(10);
    expect(dataOf(restarted.get('configmaps', 'default/a'))).toEqual({ value: '2499' });
  });
});

describe('the SQLite backend', () => {
  it('keeps nothing of a write it refused', () => {
    const file = path.join(dir, 'state.db');
    const backend = new SqliteBackend(file);
    const storage = new Storage({ backend });
    storage.commit('configmaps', 'default/a', 'ADDED', cm('a', '1'));
    // A revision the database already holds: the row is refused, and the
    // storage does not move on.
    expect(() =>
      backend.append({
        rv: 1,
        storage: 'configmaps',
        key: 'default/x',
        type: 'ADDED',
        object: cm('x', '1'),
        value: '{}',
        prevRv: 0,
      }),
    ).toThrow(/UNIQUE|constraint/i);
    backend.close();
    const kept = new SqliteBackend(file).load();
    expect(kept.changes.map((c) => c.key)).toEqual(['default/a']);
  });

  it('stores each revision as a row under the /registry key, as kine does', () => {
    const backend = new SqliteBackend(path.join(dir, 'state.db'));
    const storage = new Storage({ backend });
    storage.commit('deployments.apps', 'default/web', 'ADDED', cm('web', '1'));
    storage.commit('namespaces', 'team', 'ADDED', { metadata: { name: 'team' } });
    const kept = backend.load();
    expect(kept.changes.map((c) => [c.rv, c.storage, c.key, c.type, c.prevRv])).toEqual([
      [1, 'deployments.apps', 'default/web', 'ADDED', 0],
      [2, 'namespaces', 'team', 'ADDED', 0],
    ]);
    backend.close();
  });
});
