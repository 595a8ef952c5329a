// Ports of client-go tools/cache store_test.go (TestCache, TestIndex,
// TestCacheWithTransformer) and the namespace index of index.go.
import { metaNamespaceKeyFunc, type KubeObject } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  KeyError,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  newStore,
  type Store,
} from '../src/index.js';
import { mk, type TestObj } from './helpers.js';

/** The Store contract client-go's doTestStore checks. */
function doTestStore(store: Store<TestObj>): void {
  store.add(mk('foo', 'bar'));
  expect(store.get(mk('foo', ''))).toEqual(mk('foo', 'bar'));
  store.update(mk('foo', 'baz'));
  expect(store.get(mk('foo', ''))).toEqual(mk('foo', 'baz'));
  expect(store.getByKey('foo')).toEqual(mk('foo', 'baz'));
  store.delete(mk('foo', ''));
  expect(store.get(mk('foo', ''))).toBeUndefined();

  store.add(mk('a', 'b'));
  store.add(mk('c', 'd'));
  store.add(mk('e', 'e'));
  expect(
    store
      .list()
      .map((o) => o.metadata.name)
      .sort(),
  ).toEqual(['a', 'c', 'e']);
  expect(store.listKeys().sort()).toEqual(['a', 'c', 'e']);

  store.replace([mk('foo', 'foo'), mk('bar', 'bar')], '0');
  expect(store.listKeys().sort()).toEqual(['bar', 'foo']);
  expect(store.getByKey('a')).toBeUndefined();
  store.resync();
  expect(store.listKeys().sort()).toEqual(['bar', 'foo']);
}

describe('Store', () => {
  it('satisfies the Store contract (TestCache)', () => {
    doTestStore(newStore<TestObj>(metaNamespaceKeyFunc));
  });

  it('satisfies the Store contract as an indexer', () => {
    doTestStore(newIndexer<TestObj>(metaNamespaceKeyFunc, {}));
  });

  it('throws a KeyError and changes nothing when a key cannot be computed', () => {
    const store = newStore<TestObj>(metaNamespaceKeyFunc);
    store.add(mk('a', 1));
    const bad = { val: 1 } as unknown as TestObj;
    expect(() => store.add(bad)).toThrow(KeyError);
    expect(() => store.update(bad)).toThrow(KeyError);
    expect(() => store.delete(bad)).toThrow(KeyError);
    expect(() => store.get(bad)).toThrow(KeyError);
    expect(() => store.replace([mk('b', 2), bad], '1')).toThrow(KeyError);
    expect(store.listKeys()).toEqual(['a']);
  });

  it('keeps the later of two listed objects with one key', () => {
    const store = newStore<TestObj>(metaNamespaceKeyFunc);
    store.replace([mk('a', 1), mk('a', 2)], '1');
    expect(store.list()).toEqual([mk('a', 2)]);
  });

  it('transforms on add, update and replace but not delete (TestCacheWithTransformer)', () => {
    const seen: unknown[] = [];
    const store = newStore<TestObj>(metaNamespaceKeyFunc, {
      transform: (o) => {
        seen.push(o.val);
        return { ...o, val: `t-${String(o.val)}` };
      },
    });
    store.add(mk('a', 1));
    store.update(mk('a', 2));
    expect(store.getByKey('a')).toEqual(mk('a', 't-2'));
    store.replace([mk('b', 3)], '1');
    expect(store.list()).toEqual([mk('b', 't-3')]);
    store.delete(mk('b', 4));
    expect(seen).toEqual([1, 2, 3]);
    expect(store.listKeys()).toEqual([]);
  });

  it('reports transform failures as "transforming: ..."', () => {
    const store = newStore<TestObj>(metaNamespaceKeyFunc, {
      transform: () => {
        throw new Error('nope');
      },
    });
    expect(() => store.add(mk('a', 1))).toThrow('transforming: nope');
    expect(store.listKeys()).toEqual([]);
  });

  it('finds objects by index value (TestIndex)', () => {
    const indexer = newIndexer<TestObj>(metaNamespaceKeyFunc, {
      byVal: (o) => [String(o.val)],
    });
    indexer.add(mk('a', 'b'));
    indexer.add(mk('c', 'b'));
    indexer.add(mk('e', 'f'));
    expect(
      indexer
        .byIndex('byVal', 'b')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(indexer.indexKeys('byVal', 'b')).toEqual(['a', 'c']);
    expect(indexer.index('byVal', mk('x', 'f'))).toEqual([mk('e', 'f')]);
    expect(indexer.listIndexFuncValues('byVal').sort()).toEqual(['b', 'f']);
    indexer.addIndexers({ byName: (o) => [o.metadata.name] });
    expect(indexer.byIndex('byName', 'e')).toEqual([mk('e', 'f')]);
    expect(Object.keys(indexer.getIndexers()).sort()).toEqual(['byName', 'byVal']);
    expect(() => indexer.byIndex('missing', 'b')).toThrow('Index with name missing does not exist');
  });

  it('indexes by namespace with the built-in index', () => {
    const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
      [namespaceIndex]: metaNamespaceIndexFunc,
    });
    indexer.add({ metadata: { name: 'a', namespace: 'ns1' } });
    indexer.add({ metadata: { name: 'b', namespace: 'ns2' } });
    indexer.add({ metadata: { name: 'node' } });
    expect(indexer.indexKeys('namespace', 'ns1')).toEqual(['ns1/a']);
    expect(indexer.indexKeys('namespace', '')).toEqual(['node']);
    expect(() => metaNamespaceIndexFunc({})).toThrow('object has no meta');
  });

  it('keeps the resourceVersion of the last write and of bookmarks (cache.LastStoreSyncResourceVersion)', () => {
    const store = newIndexer<TestObj & { metadata: { resourceVersion?: string } }>(
      metaNamespaceKeyFunc,
      {},
    );
    expect(store.lastStoreSyncResourceVersion()).toBe('');
    store.add({ metadata: { name: 'a', resourceVersion: '3' }, val: 1 });
    expect(store.lastStoreSyncResourceVersion()).toBe('3');
    store.delete({ metadata: { name: 'a', resourceVersion: '4' }, val: 1 });
    expect(store.lastStoreSyncResourceVersion()).toBe('4');
    store.bookmark('7');
    expect(store.lastStoreSyncResourceVersion()).toBe('7');
    store.replace([], '9');
    expect(store.lastStoreSyncResourceVersion()).toBe('9');
  });
});
