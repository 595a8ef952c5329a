// Ports of client-go tools/cache delta_fifo_test.go.
import { DeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  KeyError,
  errZeroLengthDeltasObject,
  errorIs,
  newDeltaFIFO,
  type DeltaFIFO,
  type DeltaFIFOOptions,
  type Deltas,
} from '../src/index.js';
import { flush, literalListerGetter, mk, type TestObj } from './helpers.js';

async function pop(f: DeltaFIFO<TestObj>): Promise<Deltas<TestObj>> {
  const [deltas, closed] = await f.pop(() => {});
  if (closed) throw new Error('queue closed');
  return deltas;
}

async function popVal(f: DeltaFIFO<TestObj>): Promise<unknown> {
  const deltas = await pop(f);
  return (deltas.at(-1)?.object as TestObj).val;
}

function tomb(key: string, obj?: TestObj): DeletedFinalStateUnknown<TestObj> {
  return new DeletedFinalStateUnknown(key, obj);
}

function fifo(options: DeltaFIFOOptions<TestObj> = {}): DeltaFIFO<TestObj> {
  return newDeltaFIFO<TestObj>(options);
}

describe('DeltaFIFO', () => {
  it('preserves the order of each producer (TestDeltaFIFO_basic)', async () => {
    const f = fifo();
    const amount = 50;
    const popped: unknown[] = [];
    const consumer = (async () => {
      for (let i = 0; i < amount * 2; i++) popped.push(await popVal(f));
    })();
    for (let i = 0; i < amount; i++) {
      f.add(mk(`a${i}`, i + 1));
      f.add(mk(`b${i}`, -(i + 1)));
      if (i % 7 === 0) await flush();
    }
    await consumer;
    const ints = popped.filter((v): v is number => typeof v === 'number' && v > 0);
    const negs = popped.filter((v): v is number => typeof v === 'number' && v < 0);
    expect(ints).toEqual([...ints].sort((a, b) => a - b));
    expect(negs).toEqual([...negs].sort((a, b) => b - a));
    expect(popped).toHaveLength(amount * 2);
  });

  it('queues Sync after a pending Deleted when the relist has the key (TestDeltaFIFO_replaceWithDeleteDeltaIn)', async () => {
    const oldObj = mk('foo', 1);
    const newObj = mk('foo', 2);
    const f = fifo({ knownObjects: literalListerGetter(() => [oldObj]) });
    f.delete(oldObj);
    f.replace([newObj], '');
    expect(await pop(f)).toEqual([
      { type: 'Deleted', object: oldObj },
      { type: 'Sync', object: newObj },
    ]);
  });

  describe('makes deletions for objects only in the queue (TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue)', () => {
    const obj = mk('foo', 2);
    const objV2 = mk('foo', 3);
    const table: {
      name: string;
      emitReplaced?: boolean;
      ops: (f: DeltaFIFO<TestObj>) => void;
      expected: Deltas<TestObj>;
    }[] = [
      {
        name: 'Added object should be deleted on Replace',
        ops: (f) => {
          f.add(obj);
          f.replace([], '0');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      },
      {
        name: 'Replaced object should have only a single Delete',
        emitReplaced: true,
        ops: (f) => {
          f.add(obj);
          f.replace([obj], '0');
          f.replace([], '0');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Replaced', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      },
      {
        name: 'Deleted object should have only a single Delete',
        ops: (f) => {
          f.add(obj);
          f.delete(obj);
          f.replace([], '0');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: obj },
        ],
      },
      {
        name: 'Synced objects should have a single delete',
        ops: (f) => {
          f.add(obj);
          f.replace([obj], '0');
          f.replace([obj], '0');
          f.replace([], '0');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Sync', object: obj },
          { type: 'Sync', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      },
      {
        name: 'Added objects should have a single delete on multiple Replaces',
        ops: (f) => {
          f.add(obj);
          f.replace([], '0');
          f.replace([], '1');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      },
      {
        name: 'Added and deleted and added object should be deleted',
        ops: (f) => {
          f.add(obj);
          f.delete(obj);
          f.add(objV2);
          f.replace([], '0');
        },
        expected: [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: obj },
          { type: 'Added', object: objV2 },
          { type: 'Deleted', object: tomb('foo', objV2) },
        ],
      },
    ];
    for (const tt of table) {
      it(tt.name, async () => {
        const emitDeltaTypeReplaced = tt.emitReplaced ?? false;
        for (const f of [
          fifo({ emitDeltaTypeReplaced, knownObjects: literalListerGetter(() => []) }),
          fifo({ emitDeltaTypeReplaced }),
        ]) {
          tt.ops(f);
          expect(await pop(f)).toEqual(tt.expected);
          expect(f.listKeys()).toEqual([]);
        }
      });
    }
  });

  it('keeps a Deleted in the deltas and pops the key once (TestDeltaFIFO_addUpdate)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.update(mk('foo', 12));
    f.delete(mk('foo', 15));
    expect(f.list()).toEqual([mk('foo', 15)]);
    expect(f.listKeys()).toEqual(['foo']);
    expect(await popVal(f)).toBe(15);
    let second = false;
    void f.pop(() => {
      second = true;
    });
    await flush();
    expect(second).toBe(false);
    expect(f.get(mk('foo', ''))).toBeUndefined();
    f.close();
  });

  it('transforms each object once and never a tombstone (TestDeltaFIFO_transformer)', async () => {
    let calls = 0;
    const f = fifo({
      transformer: (o) => {
        calls++;
        return { ...o, val: `${String(o.val)}-t` };
      },
      emitDeltaTypeReplaced: true,
    });
    f.add(mk('foo', 1));
    f.update(mk('foo', 2));
    f.replace([mk('bar', 3)], '0');
    f.delete(tomb('bar', mk('bar', 4)));
    expect(calls).toBe(3);
    const foo = await pop(f);
    expect(foo.map((d) => (d.object as TestObj).val)).toEqual(['1-t', '2-t', undefined]);
    expect(foo[2]).toEqual({ type: 'Deleted', object: tomb('foo', mk('foo', '2-t')) });
    const bar = await pop(f);
    expect(bar).toEqual([
      { type: 'Replaced', object: mk('bar', '3-t') },
      { type: 'Deleted', object: tomb('bar', mk('bar', 4)) },
    ]);
  });

  it('does not transform the Sync deltas of a resync', () => {
    let calls = 0;
    const f = fifo({
      knownObjects: literalListerGetter(() => [mk('foo', 1)]),
      transformer: (o) => {
        calls++;
        return o;
      },
    });
    f.resync();
    expect(calls).toBe(0);
    expect(f.getByKey('foo')).toEqual([{ type: 'Sync', object: mk('foo', 1) }]);
  });

  it('ignores deleting an unknown key without a lister (TestDeltaFIFO_enqueueingNoLister)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.update(mk('bar', 15));
    f.add(mk('qux', 17));
    f.delete(mk('qux', 18));
    f.delete(mk('baz', 20));
    for (const expected of [10, 15, 18]) expect(await popVal(f)).toBe(expected);
    expect(f.listKeys()).toEqual([]);
  });

  it('queues a delete of a known key (TestDeltaFIFO_enqueueingWithLister)', async () => {
    const f = fifo({
      knownObjects: literalListerGetter(() => [mk('foo', 5), mk('bar', 6), mk('baz', 7)]),
    });
    f.add(mk('foo', 10));
    f.update(mk('bar', 15));
    f.delete(mk('baz', 20));
    f.delete(mk('nope', 21));
    for (const expected of [10, 15, 20]) expect(await popVal(f)).toBe(expected);
    expect(f.listKeys()).toEqual([]);
  });

  it('pops once with the newest object after Add then Replace (TestDeltaFIFO_addReplace)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.replace([mk('foo', 15)], '0');
    expect(await popVal(f)).toBe(15);
    expect(f.get(mk('foo', ''))).toBeUndefined();
    expect(f.listKeys()).toEqual([]);
  });

  it('skips resync for a key with a queued delete (TestDeltaFIFO_ResyncNonExisting)', () => {
    const f = fifo({ knownObjects: literalListerGetter(() => [mk('foo', 5)]) });
    f.delete(mk('foo', 10));
    f.resync();
    expect(f.getByKey('foo')?.map((d) => d.type)).toEqual(['Deleted']);
  });

  it('queues Sync for known objects (TestDeltaFIFO_Resync)', () => {
    const f = fifo({ knownObjects: literalListerGetter(() => [mk('foo', 5)]) });
    f.resync();
    expect(f.getByKey('foo')?.map((d) => d.type)).toEqual(['Sync']);
  });

  it('does nothing on resync without known objects', () => {
    const f = fifo();
    f.resync();
    expect(f.listKeys()).toEqual([]);
  });

  it('appends a Delete after an Add (TestDeltaFIFO_DeleteExistingNonPropagated)', () => {
    const f = fifo({ knownObjects: literalListerGetter(() => []) });
    f.add(mk('foo', 5));
    f.delete(mk('foo', 6));
    expect(f.getByKey('foo')?.map((d) => d.type)).toEqual(['Added', 'Deleted']);
  });

  describe('makes deletions on Replace (TestDeltaFIFO_ReplaceMakesDeletions)', () => {
    const known = (): TestObj[] => [mk('foo', 5), mk('bar', 6), mk('baz', 7)];
    for (const type of ['Sync', 'Replaced'] as const) {
      const options = {
        knownObjects: literalListerGetter(known),
        emitDeltaTypeReplaced: type === 'Replaced',
      };

      it(`with a pending Delete (${type})`, async () => {
        const f = fifo(options);
        f.delete(mk('baz', 10));
        f.replace([mk('foo', 5)], '0');
        expect(await pop(f)).toEqual([{ type: 'Deleted', object: mk('baz', 10) }]);
        expect(await pop(f)).toEqual([{ type, object: mk('foo', 5) }]);
        expect(await pop(f)).toEqual([{ type: 'Deleted', object: tomb('bar', mk('bar', 6)) }]);
      });

      it(`with a pending Add (${type})`, async () => {
        const f = fifo(options);
        f.add(mk('baz', 10));
        f.replace([mk('foo', 5)], '0');
        expect(await pop(f)).toEqual([
          { type: 'Added', object: mk('baz', 10) },
          { type: 'Deleted', object: tomb('baz', mk('baz', 10)) },
        ]);
        expect(await pop(f)).toEqual([{ type, object: mk('foo', 5) }]);
        expect(await pop(f)).toEqual([{ type: 'Deleted', object: tomb('bar', mk('bar', 6)) }]);
      });

      it(`with a delete and re-add in the queue (${type})`, async () => {
        const f = fifo(options);
        f.delete(mk('bar', 6));
        f.add(mk('bar', 100));
        f.replace([mk('foo', 5)], '0');
        expect(await pop(f)).toEqual([
          { type: 'Deleted', object: mk('bar', 6) },
          { type: 'Added', object: mk('bar', 100) },
          { type: 'Deleted', object: tomb('bar', mk('bar', 100)) },
        ]);
        expect(await pop(f)).toEqual([{ type, object: mk('foo', 5) }]);
        expect(await pop(f)).toEqual([{ type: 'Deleted', object: tomb('baz', mk('baz', 7)) }]);
      });
    }

    it('gives a tombstone with no object when the known lookup fails', async () => {
      const f = fifo({
        knownObjects: {
          listKeys: () => ['gone'],
          getByKey: () => {
            throw new Error('lookup failed');
          },
        },
      });
      f.replace([], '0');
      expect(await pop(f)).toEqual([{ type: 'Deleted', object: tomb('gone') }]);
    });
  });

  it('emits Replaced when asked (TestDeltaFIFO_ReplaceDeltaType)', async () => {
    const f = fifo({
      knownObjects: literalListerGetter(() => [mk('foo', 5)]),
      emitDeltaTypeReplaced: true,
    });
    f.replace([mk('foo', 5)], '0');
    expect(await pop(f)).toEqual([{ type: 'Replaced', object: mk('foo', 5) }]);
  });

  it('skips resync for keys with pending deltas (TestDeltaFIFO_UpdateResyncRace)', async () => {
    const f = fifo({ knownObjects: literalListerGetter(() => [mk('foo', 5)]) });
    f.update(mk('foo', 6));
    f.resync();
    expect(await pop(f)).toEqual([{ type: 'Updated', object: mk('foo', 6) }]);
    expect(f.listKeys()).toEqual([]);
  });

  it('counts deletions in the initial population (TestDeltaFIFO_HasSyncedCorrectOnDeletion)', async () => {
    const f = fifo({
      knownObjects: literalListerGetter(() => [mk('foo', 5), mk('bar', 6), mk('baz', 7)]),
    });
    f.replace([mk('foo', 5)], '0');
    const expected = [
      [{ type: 'Sync', object: mk('foo', 5) }],
      [{ type: 'Deleted', object: tomb('bar', mk('bar', 6)) }],
      [{ type: 'Deleted', object: tomb('baz', mk('baz', 7)) }],
    ];
    for (const want of expected) {
      expect(f.hasSynced()).toBe(false);
      let initial: boolean | undefined;
      const [deltas] = await f.pop((_d, isInInitialList) => {
        initial = isInInitialList;
      });
      expect(deltas).toEqual(want);
      expect(initial).toBe(true);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it('does not move a re-added key (TestDeltaFIFO_detectLineJumpers)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.add(mk('bar', 1));
    f.add(mk('foo', 11));
    f.add(mk('foo', 13));
    f.add(mk('zab', 30));
    expect(await popVal(f)).toBe(13);
    f.add(mk('foo', 14));
    expect(await popVal(f)).toBe(1);
    expect(await popVal(f)).toBe(30);
    expect(await popVal(f)).toBe(14);
  });

  it('computes keys of objects, tombstones and Deltas (TestDeltaFIFO_KeyOf)', () => {
    const f = fifo();
    expect(f.keyOf(mk('foo', 1))).toBe('foo');
    expect(f.keyOf(tomb('bar', mk('baz', 1)))).toBe('bar');
    expect(
      f.keyOf([
        { type: 'Added', object: mk('a', 1) },
        { type: 'Updated', object: mk('b', 2) },
      ]),
    ).toBe('b');
    expect(f.keyOf([{ type: 'Deleted', object: tomb('t', mk('x', 1)) }])).toBe('t');
    let caught: unknown;
    try {
      f.keyOf([]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyError);
    expect(errorIs(caught, errZeroLengthDeltasObject)).toBe(true);
    expect(() => f.keyOf(42)).toThrow(KeyError);
  });

  describe('hasSynced (TestDeltaFIFO_HasSynced)', () => {
    const table: {
      name: string;
      actions: ((f: DeltaFIFO<TestObj>) => Promise<unknown> | void)[];
      expected: boolean;
    }[] = [
      { name: 'nothing', actions: [], expected: false },
      { name: 'add', actions: [(f) => f.add(mk('a', 1))], expected: true },
      { name: 'empty replace', actions: [(f) => f.replace([], '0')], expected: true },
      {
        name: 'replace of two',
        actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0')],
        expected: false,
      },
      {
        name: 'replace of two, one popped',
        actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => pop(f)],
        expected: false,
      },
      {
        name: 'replace of two, both popped',
        actions: [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => pop(f), (f) => pop(f)],
        expected: true,
      },
      {
        name: 'duplicate keys in the list count once',
        actions: [(f) => f.replace([mk('a', 1), mk('a', 2)], '0'), (f) => pop(f)],
        expected: true,
      },
      {
        name: 'add before replace',
        actions: [(f) => f.add(mk('a', 1)), (f) => f.replace([mk('a', 1), mk('b', 2)], '0')],
        expected: true,
      },
    ];
    for (const tt of table) {
      it(tt.name, async () => {
        const f = fifo();
        for (const action of tt.actions) await action(f);
        expect(f.hasSynced()).toBe(tt.expected);
      });
    }
  });

  it('marks synced before the process function runs', async () => {
    const f = fifo();
    f.replace([mk('a', 1)], '0');
    let syncedInside: boolean | undefined;
    let initial: boolean | undefined;
    await f.pop((_d, isInInitialList) => {
      syncedInside = f.hasSynced();
      initial = isInInitialList;
    });
    expect(initial).toBe(true);
    expect(syncedInside).toBe(true);
  });

  it('unblocks waiting pops on close (TestDeltaFIFO_PopShouldUnblockWhenClosed)', async () => {
    const f = fifo();
    const pops = [f.pop(() => {}), f.pop(() => {})];
    await flush();
    expect(f.isClosed()).toBe(false);
    f.close();
    expect(f.isClosed()).toBe(true);
    expect(await Promise.all(pops)).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
  });

  it('still hands out queued items after close', async () => {
    const f = fifo();
    f.add(mk('a', 1));
    f.close();
    expect(await popVal(f)).toBe(1);
    expect(await f.pop(() => {})).toEqual([undefined, true]);
  });

  it('wakes a waiting pop when an item arrives', async () => {
    const f = fifo();
    const waiting = pop(f);
    await flush();
    f.add(mk('a', 1));
    expect(await waiting).toEqual([{ type: 'Added', object: mk('a', 1) }]);
  });

  it('rejects with what the process function throws, without requeueing', async () => {
    const f = fifo();
    f.add(mk('a', 1));
    await expect(
      f.pop(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(f.listKeys()).toEqual([]);
  });

  it('throws a KeyError and queues nothing for an object without a key', () => {
    const f = fifo();
    expect(() => f.add({ val: 1 } as unknown as TestObj)).toThrow(KeyError);
    expect(() => f.replace([mk('a', 1), { val: 1 } as unknown as TestObj], '0')).toThrow(
      /couldn't create key/,
    );
  });

  it('returns copies of the deltas from getByKey', () => {
    const f = fifo();
    f.add(mk('a', 1));
    f.getByKey('a')?.push({ type: 'Sync', object: mk('a', 2) });
    expect(f.getByKey('a')).toEqual([{ type: 'Added', object: mk('a', 1) }]);
    expect(f.getByKey('nope')).toBeUndefined();
  });
});
