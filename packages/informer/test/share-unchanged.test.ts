// shareUnchanged, and an informer made with shareUnchanged on a FakeSource.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { shareUnchanged, type ResourceEventHandler } from '../src/index.js';
import type { SourceObj } from './fake-source.js';
import { harness, stopAll, until } from './informer-harness.js';

afterEach(stopAll);

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('shareUnchanged', () => {
  it('makes the unchanged parts of the new version the old version’s own', () => {
    //#region share-unchanged
    const cached = {
      metadata: { name: 'web', labels: { gen: '1' }, ownerReferences: [{ name: 'web-7d4b' }] },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    };
    const decoded = {
      metadata: { name: 'web', labels: { gen: '2' }, ownerReferences: [{ name: 'web-7d4b' }] },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    };
    const equal = shareUnchanged(decoded, cached); // false: a label changed
    const spec = decoded.spec === cached.spec; // true: the decoded spec can be collected
    const owners = decoded.metadata.ownerReferences === cached.metadata.ownerReferences; // true
    const labels = decoded.metadata.labels === cached.metadata.labels; // false: they changed
    //#endregion share-unchanged
    expect([equal, spec, owners, labels]).toEqual([false, true, true, false]);
    expect(decoded.spec).toBe(cached.spec);
    expect(decoded.metadata.ownerReferences).toBe(cached.metadata.ownerReferences);
    expect(decoded.metadata).not.toBe(cached.metadata);
    expect(decoded.metadata.labels).not.toBe(cached.metadata.labels);
    expect(decoded.metadata.labels).toEqual({ gen: '2' });
    expect(cached.metadata.labels).toEqual({ gen: '1' });
  });

  it('says whether the two are equal as a whole, key order aside', () => {
    expect(shareUnchanged({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(shareUnchanged([1, 2], [1, 2])).toBe(true);
    expect(shareUnchanged('x', 'x')).toBe(true);
    expect(shareUnchanged(null, null)).toBe(true);
    expect(shareUnchanged({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(shareUnchanged({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(shareUnchanged([1, 2], [1, 2, 3])).toBe(false);
    expect(shareUnchanged([1], { 0: 1 })).toBe(false);
    expect(shareUnchanged({ 0: 1 }, [1])).toBe(false);
    expect(shareUnchanged({ a: 1 }, null)).toBe(false);
    expect(shareUnchanged(1, '1')).toBe(false);
    // A property set to undefined (as trimManagedFields leaves one) is not an absent one.
    expect(shareUnchanged({ a: undefined }, {})).toBe(false);
    expect(shareUnchanged({ a: undefined }, { a: undefined })).toBe(true);
  });

  it('shares the equal elements of arrays of different lengths, and keeps the rest', () => {
    const prev = { items: [{ n: 1 }, { n: 2 }] };
    const next = { items: [{ n: 1 }, { n: 3 }, { n: 4 }] };
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(next.items[0]).toBe(prev.items[0]);
    expect(next.items[1]).not.toBe(prev.items[1]);
    expect(next.items).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
  });

  it('treats what is not plain JSON as changed', () => {
    class Box {
      constructor(readonly v: number) {}
    }
    const prev = { at: new Date(0), box: new Box(1), map: new Map([[1, 1]]) };
    const next = { at: new Date(1), box: new Box(2), map: new Map([[2, 2]]) };
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(next.at.getTime()).toBe(1);
    expect(next.box.v).toBe(2);
    expect([...next.map]).toEqual([[2, 2]]);
    // Not even two equal instances are shared.
    const same = { box: new Box(1) };
    expect(shareUnchanged(same, { box: new Box(1) })).toBe(false);
  });

  it('never changes the old version, and leaves a frozen new one as it is', () => {
    const prev = Object.freeze({ spec: Object.freeze({ a: 1 }), n: 1 });
    const next = { spec: { a: 1 }, n: 2 };
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(next.spec).toBe(prev.spec);

    const frozen = Object.freeze({ spec: Object.freeze({ a: 1 }), n: 2 });
    const frozenSpec = frozen.spec;
    expect(() => shareUnchanged(frozen, { spec: { a: 1 }, n: 1 })).not.toThrow();
    expect(frozen.spec).toBe(frozenSpec);
  });

  it('ends on objects nested deeper than any Kubernetes object, cycles included', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    const b: Record<string, unknown> = {};
    b['self'] = b;
    expect(shareUnchanged(a, b)).toBe(false);
  });

  it('reads a __proto__ key only where the object has one of its own', () => {
    // JSON.parse makes "__proto__" an own key; a plain read of it on an
    // object without one gives Object.prototype, which looks like {}.
    const next = JSON.parse('{"__proto__":{}}') as object;
    const prev = JSON.parse('{"x":1}') as object;
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(shareUnchanged(JSON.parse('{"a":{"__proto__":{}}}'), { a: { x: 1 } })).toBe(false);
    const shared = JSON.parse('{"__proto__":{"k":1},"v":2}') as Record<string, unknown>;
    const old = JSON.parse('{"__proto__":{"k":1},"v":1}') as Record<string, unknown>;
    expect(shareUnchanged(shared, old)).toBe(false);
    expect(Object.getPrototypeOf(shared)).toBe(Object.prototype);
    expect(JSON.stringify(shared)).toBe('{"__proto__":{"k":1},"v":2}');
  });

  // Pairs that share parts: an old value and a copy of it with some parts replaced.
  const pairs = (json: fc.Arbitrary<unknown>): fc.Arbitrary<readonly [unknown, unknown]> =>
    fc.oneof(
      fc.tuple(json, json),
      json.chain((prev) =>
        fc
          .tuple(fc.constant(prev), json, fc.boolean())
          .map(([p, other, swap]) => [p, mixed(p, other, swap)] as const),
      ),
    );

  it('for any JSON value, even objects without a prototype, leaves both versions’ values as they were', () => {
    fc.assert(
      fc.property(pairs(fc.jsonValue({ maxDepth: 4 })), ([prev, next]) => {
        const prevBefore = cloneKeepingPrototypes(prev);
        const nextBefore = cloneKeepingPrototypes(next);
        shareUnchanged(next, prev);
        expect(next).toStrictEqual(nextBefore);
        expect(prev).toStrictEqual(prevBefore);
      }),
      { numRuns: 500 },
    );
  });

  it('for any parsed JSON, leaves both versions’ values as they were and tells whether they are equal', () => {
    // What an informer is given: objects made by JSON.parse.
    const parsed = fc.jsonValue({ maxDepth: 4 }).map((v) => clone(v));
    fc.assert(
      fc.property(pairs(parsed), ([prev, next]) => {
        const prevBefore = clone(prev);
        const nextBefore = clone(next);
        const equal = shareUnchanged(next, prev);
        expect(next).toStrictEqual(nextBefore);
        expect(prev).toStrictEqual(prevBefore);
        expect(equal).toBe(isDeepStrictEqual(nextBefore, prevBefore));
      }),
      { numRuns: 500 },
    );
  });
});

/** A deep copy that keeps each object's prototype (structuredClone does not). */
function cloneKeepingPrototypes(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneKeepingPrototypes);
  const out = Object.create(Object.getPrototypeOf(v) as object | null) as Record<string, unknown>;
  for (const [k, x] of Object.entries(v)) {
    Object.defineProperty(out, k, {
      value: cloneKeepingPrototypes(x),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A copy of `base` whose members alternate between `base`'s and `other`'s. */
function mixed(base: unknown, other: unknown, swap: boolean): unknown {
  const pick = (i: number, v: unknown): unknown => (i % 2 === (swap ? 0 : 1) ? other : v);
  if (typeof base !== 'object' || base === null) return clone(pick(0, base));
  if (Array.isArray(base)) return base.map((v, i) => clone(pick(i, v)));
  // fromEntries defines a "__proto__" key as its own, as JSON.parse does.
  return Object.fromEntries(Object.entries(base).map(([k, v], i) => [k, clone(pick(i, v))]));
}

describe('SharedIndexInformer with shareUnchanged', () => {
  type Val = { spec: { image: string; ports: number[] }; labels: { gen: number } };
  const val = (gen: number): Val => ({ spec: { image: 'nginx', ports: [80] }, labels: { gen } });
  type Cached = SourceObj & { val: Val };
  /** An informer over one object, `a`, synced, with a handler recording updates. */
  const synced = async (
    options: { shareUnchanged?: boolean } = {},
  ): Promise<{ h: ReturnType<typeof harness>; seen: [Cached, Cached][]; first: Cached }> => {
    const h = harness((s) => s.add('a', val(1)), options);
    const seen: [Cached, Cached][] = [];
    const handler: ResourceEventHandler<SourceObj> = {
      onUpdate: (o, n) => void seen.push([o as Cached, n as Cached]),
    };
    h.informer.addEventHandler(handler);
    void h.run();
    await h.informer.whenSynced();
    return { h, seen, first: h.informer.getStore().getByKey('a') as Cached };
  };

  it('caches an update with the unchanged parts of the version it replaces', async () => {
    const { h, seen, first } = await synced({ shareUnchanged: true });

    h.source.modify('a', val(2));
    await until(() => seen.length === 1);
    const [oldObj, newObj] = seen[0] as [Cached, Cached];
    expect(oldObj).toBe(first);
    expect(newObj.val.spec).toBe(first.val.spec);
    expect(newObj.val.labels).not.toBe(first.val.labels);
    expect(newObj.val.labels.gen).toBe(2);
    expect(first.val.labels.gen).toBe(1);
    expect(h.informer.getStore().getByKey('a')).toBe(newObj);
    expect(newObj.metadata.resourceVersion).toBe('2');
  });

  it('shares with the cache on a relist, too', async () => {
    const { h, seen, first } = await synced({ shareUnchanged: true });

    h.source.closeWatches();
    h.source.modify('a', val(2));
    h.source.compact(); // the informer must relist
    await h.clock.advance(1600);
    await until(() => seen.length === 1, 'the relist');
    const newObj = seen[0]?.[1] as Cached;
    expect(newObj.val.spec).toBe(first.val.spec);
    expect(newObj.val.labels.gen).toBe(2);
  });

  it('leaves every object its own by default, as client-go', async () => {
    const { h, seen } = await synced();
    h.source.modify('a', val(2));
    await until(() => seen.length === 1);
    const [oldObj, newObj] = seen[0] as [Cached, Cached];
    expect(newObj.val.spec).toEqual(oldObj.val.spec);
    expect(newObj.val.spec).not.toBe(oldObj.val.spec);
  });
});
