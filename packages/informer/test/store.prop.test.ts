// Property: whatever adds, updates and deletes happen, every index equals one
// recomputed from scratch over the stored items, and no index keeps an empty set.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newThreadSafeStore, type IndexFunc } from '../src/index.js';

interface Obj {
  tags: string[];
}

const byTag: IndexFunc<Obj> = (o) => [...new Set(o.tags)];
const byFirst: IndexFunc<Obj> = (o) => (o.tags.length > 0 ? [o.tags[0] as string] : []);

const keyArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const objArb = fc.record({ tags: fc.array(fc.constantFrom('x', 'y', 'z', 'w'), { maxLength: 3 }) });
const opArb = fc.oneof(
  fc.record({ op: fc.constant('add' as const), key: keyArb, obj: objArb }),
  fc.record({ op: fc.constant('update' as const), key: keyArb, obj: objArb }),
  fc.record({ op: fc.constant('delete' as const), key: keyArb }),
  fc.record({ op: fc.constant('addIndexer' as const) }),
);

describe('ThreadSafeStore properties', () => {
  it('keeps every index equal to a from-scratch recomputation', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const store = newThreadSafeStore<Obj>({ byTag });
        const model = new Map<string, Obj>();
        const indexers: Record<string, IndexFunc<Obj>> = { byTag };
        for (const op of ops) {
          if (op.op === 'delete') {
            store.delete(op.key);
            model.delete(op.key);
          } else if (op.op === 'addIndexer') {
            if (!indexers['byFirst']) {
              store.addIndexers({ byFirst });
              indexers['byFirst'] = byFirst;
            }
          } else {
            store[op.op](op.key, op.obj);
            model.set(op.key, op.obj);
          }
        }
        expect(store.listKeys().sort()).toEqual([...model.keys()].sort());
        for (const [name, fn] of Object.entries(indexers)) {
          const expected = new Map<string, string[]>();
          for (const [key, obj] of model) {
            for (const value of fn(obj)) expected.set(value, [...(expected.get(value) ?? []), key]);
          }
          expect(store.listIndexFuncValues(name).sort()).toEqual([...expected.keys()].sort());
          for (const value of store.listIndexFuncValues(name)) {
            const keys = store.indexKeys(name, value);
            expect(keys.length).toBeGreaterThan(0);
            expect(keys).toEqual((expected.get(value) ?? []).sort());
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
