// Ports of client-go tools/cache thread_safe_store_test.go and index_test.go.
import { describe, expect, it } from 'vitest';
import { newThreadSafeStore, type IndexFunc } from '../src/index.js';

interface Pod {
  name: string;
  labels: Record<string, string>;
  users?: string[];
}

const byLabel: IndexFunc<Pod> = (pod) => (pod.labels['foo'] ? [pod.labels['foo']] : []);
const byUser: IndexFunc<Pod> = (pod) => pod.users ?? [];

function pod(name: string, foo: string, users?: string[]): Pod {
  return users ? { name, labels: { foo }, users } : { name, labels: { foo } };
}

describe('ThreadSafeStore', () => {
  it('removes empty sets from an index (TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex)', () => {
    const store = newThreadSafeStore<Pod>({ testIndexer: () => ['testIndexedValue'] });
    store.add('retain', pod('retain', 'x'));
    store.add('delete', pod('delete', 'x'));
    store.delete('retain');
    store.delete('delete');
    expect(store.listIndexFuncValues('testIndexer')).toEqual([]);
  });

  it('keeps a non-empty set after a delete (TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex)', () => {
    const store = newThreadSafeStore<Pod>({ testIndexer: () => ['testIndexedValue'] });
    store.add('retain', pod('retain', 'x'));
    store.add('delete', pod('delete', 'x'));
    store.delete('delete');
    expect(store.listIndexFuncValues('testIndexer')).toEqual(['testIndexedValue']);
    expect(store.indexKeys('testIndexer', 'testIndexedValue')).toEqual(['retain']);
  });

  it('moves keys between values of a multi-valued index (TestThreadSafeStoreIndexingFunctionsWithMultipleValues)', () => {
    const store = newThreadSafeStore<Pod>({ byUser });
    const keys = (value: string): string[] => store.indexKeys('byUser', value);
    store.add('key1', pod('key1', 'x', ['bar']));
    store.add('key2', pod('key2', 'x', ['bar', 'baz']));
    store.add('key3', pod('key3', 'x', ['bar', 'baz']));
    expect(keys('bar')).toEqual(['key1', 'key2', 'key3']);
    expect(keys('baz')).toEqual(['key2', 'key3']);

    store.update('key1', pod('key1', 'x', ['bar', 'baz']));
    expect(keys('bar')).toEqual(['key1', 'key2', 'key3']);
    expect(keys('baz')).toEqual(['key1', 'key2', 'key3']);

    store.update('key1', pod('key1', 'x', ['baz']));
    expect(keys('bar')).toEqual(['key2', 'key3']);
    expect(keys('baz')).toEqual(['key1', 'key2', 'key3']);

    store.update('key1', pod('key1', 'x', ['baz', 'qux']));
    store.update('key2', pod('key2', 'x', ['qux']));
    expect(keys('bar')).toEqual(['key3']);
    expect(keys('baz')).toEqual(['key1', 'key3']);
    expect(keys('qux')).toEqual(['key1', 'key2']);

    store.delete('key1');
    store.delete('key3');
    expect(store.listIndexFuncValues('byUser')).toEqual(['qux']);
    expect(keys('bar')).toEqual([]);
  });

  it('lists distinct index values (TestGetIndexFuncValues)', () => {
    const store = newThreadSafeStore<Pod>({ testmodes: byLabel });
    store.add('one', pod('one', 'bar'));
    store.add('two', pod('two', 'bar'));
    store.add('tre', pod('tre', 'biz'));
    expect(store.listIndexFuncValues('testmodes').sort()).toEqual(['bar', 'biz']);
    expect(store.listIndexFuncValues('unknown')).toEqual([]);
  });

  it('looks up multi-valued indices (TestMultiIndexKeys)', () => {
    const store = newThreadSafeStore<Pod>({ byUser });
    const pod1 = pod('one', 'x', ['ernie', 'bert']);
    const pod2 = pod('two', 'x', ['bert', 'oscar']);
    const pod3 = pod('tre', 'x', ['ernie', 'elmo']);
    store.add('one', pod1);
    store.add('two', pod2);
    store.add('tre', pod3);
    const names = (value: string): string[] =>
      store
        .byIndex('byUser', value)
        .map((p) => p.name)
        .sort();
    expect(names('ernie')).toEqual(['one', 'tre']);
    expect(names('bert')).toEqual(['one', 'two']);
    expect(names('oscar')).toEqual(['two']);
    expect(names('elmo')).toEqual(['tre']);
    expect(names('elmo1')).toEqual([]);
    expect(store.indexKeys('byUser', 'elmo1')).toEqual([]);

    store.update('tre', pod('tre', 'x', ['elmo']));
    expect(names('ernie')).toEqual(['one']);
    store.delete('two');
    expect(names('bert')).toEqual(['one']);
    expect(names('oscar')).toEqual([]);

    // index() unions across the values of the given object, without duplicates.
    const probe = pod('probe', 'x', ['ernie', 'bert', 'elmo']);
    expect(
      store
        .index('byUser', probe)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['one', 'tre']);
  });

  it('rejects unknown index names with client-go messages', () => {
    const store = newThreadSafeStore<Pod>({ byLabel });
    expect(() => store.byIndex('nope', 'x')).toThrow('Index with name nope does not exist');
    expect(() => store.indexKeys('nope', 'x')).toThrow('Index with name nope does not exist');
    expect(() => store.index('nope', pod('a', 'x'))).toThrow('Index with name nope does not exist');
  });

  it('indexes existing items when indexers are added later, and rejects conflicts', () => {
    const store = newThreadSafeStore<Pod>({ byLabel });
    store.add('a', pod('a', 'x', ['u1']));
    store.add('b', pod('b', 'y', ['u1', 'u2']));
    store.addIndexers({ byUser });
    expect(store.indexKeys('byUser', 'u1')).toEqual(['a', 'b']);
    expect(Object.keys(store.getIndexers()).sort()).toEqual(['byLabel', 'byUser']);
    expect(() => store.addIndexers({ byUser, byLabel, other: byLabel })).toThrow(
      'indexer conflict: byLabel, byUser',
    );
    expect(Object.keys(store.getIndexers()).sort()).toEqual(['byLabel', 'byUser']);
  });

  it('replaces the items and rebuilds the indices', () => {
    const store = newThreadSafeStore<Pod>({ byLabel });
    store.add('a', pod('a', 'x'));
    store.replace(new Map([['b', pod('b', 'y')]]), '1');
    expect(store.listKeys()).toEqual(['b']);
    expect(store.list()).toEqual([pod('b', 'y')]);
    expect(store.listIndexFuncValues('byLabel')).toEqual(['y']);
    expect(store.get('a')).toBeUndefined();
    store.delete('missing');
    store.resync();
    expect(store.listKeys()).toEqual(['b']);
  });

  it('treats a failing index function as a fatal error', () => {
    const store = newThreadSafeStore<Pod>({
      bad: () => {
        throw new Error('boom');
      },
    });
    expect(() => store.add('a', pod('a', 'x'))).toThrow(
      'unable to calculate an index entry for key "a" on index "bad": boom',
    );
  });

  describe('remembers the resourceVersion of the last write (TestThreadSafeStoreRV)', () => {
    interface Meta {
      metadata?: { resourceVersion: string };
    }
    const at = (rv: string): Meta => ({ metadata: { resourceVersion: rv } });

    it('starts empty', () => {
      expect(newThreadSafeStore<Meta>().lastStoreSyncResourceVersion()).toBe('');
    });

    it('follows adds, updates and deletes with an object, not the highest version', () => {
      const store = newThreadSafeStore<Meta | string>();
      store.add('key1', at('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      store.add('key3', at('10'));
      expect(store.lastStoreSyncResourceVersion()).toBe('10');
      store.add('key4', at('20'));
      expect(store.lastStoreSyncResourceVersion()).toBe('20');
      store.deleteWithObject('key4', at('30'));
      expect(store.lastStoreSyncResourceVersion()).toBe('30');
      store.add('key5', 'just a string');
      expect(store.lastStoreSyncResourceVersion()).toBe('30');
      store.update('key6', at('40'));
      expect(store.lastStoreSyncResourceVersion()).toBe('40');
      store.delete('key6');
      expect(store.lastStoreSyncResourceVersion()).toBe('40');
      store.add('key7', at('5'));
      expect(store.lastStoreSyncResourceVersion()).toBe('5');
    });

    it('takes the version given to replace and to bookmark', () => {
      const store = newThreadSafeStore<Meta>();
      store.add('key1', at('10'));
      store.replace(
        new Map([
          ['key3', at('40')],
          ['key2', at('30')],
        ]),
        '50',
      );
      expect(store.lastStoreSyncResourceVersion()).toBe('50');
      store.bookmark('60');
      expect(store.lastStoreSyncResourceVersion()).toBe('60');
      expect(store.listKeys().sort()).toEqual(['key2', 'key3']);
    });
  });
});
