// Ports of client-go tools/cache the_real_fifo_test.go.
import { DeletedFinalStateUnknown, type KeyFunc } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  KeyError,
  newRealFIFO,
  type Deltas,
  type RealFIFO,
  type RealFIFOOptions,
} from '../src/index.js';
import { flush, literalListerGetter, mk, type TestObj } from './helpers.js';

const emptyKnownObjects = () => literalListerGetter(() => []);

function fifo(options: Partial<RealFIFOOptions<TestObj>> = {}): RealFIFO<TestObj> {
  const atomic = options.atomicEvents === true;
  return newRealFIFO<TestObj>({
    ...(atomic ? {} : { knownObjects: emptyKnownObjects() }),
    ...options,
  });
}

async function pop(f: RealFIFO<TestObj>): Promise<Deltas<TestObj>> {
  const [deltas, closed] = await f.pop(() => {});
  if (closed) throw new Error('queue closed');
  return deltas;
}

/** Pops with its isInInitialList flag. */
async function pop2(f: RealFIFO<TestObj>): Promise<[Deltas<TestObj>, boolean]> {
  let initial = false;
  const [deltas, closed] = await f.pop((_d, isInInitialList) => (initial = isInInitialList));
  if (closed) throw new Error('queue closed');
  return [deltas, initial];
}

async function popVal(f: RealFIFO<TestObj>): Promise<unknown> {
  return ((await pop(f))[0]?.object as TestObj).val;
}

/** Pops everything queued now, as Go's popN(f, len(f.getItems())), flattened. */
async function popAll(f: RealFIFO<TestObj>): Promise<Deltas<TestObj>> {
  const out: Deltas<TestObj> = [];
  for (let n = f.queued().length; n > 0; n--) out.push(...(await pop(f)));
  return out;
}

const tomb = (key: string, obj?: TestObj) => new DeletedFinalStateUnknown(key, obj);
const known = (...objs: TestObj[]) => literalListerGetter(() => objs);

describe('RealFIFO', () => {
  it('preserves the order of each producer (TestRealFIFO_basic)', async () => {
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
    expect(popped).toEqual(Array.from({ length: amount }, (_, i) => [i + 1, -(i + 1)]).flat());
  });

  it('queues the relisted object after a queued delete (TestRealFIFO_replaceWithDeleteDeltaIn)', () => {
    const oldObj = mk('foo', 1);
    const newObj = mk('foo', 2);
    const f = fifo({ knownObjects: known(oldObj) });
    f.delete(oldObj);
    f.replace([newObj], '');
    expect(f.queued()).toEqual([
      { type: 'Deleted', object: oldObj },
      { type: 'Replaced', object: newObj },
    ]);
  });

  describe('makes deletions for objects only in the queue (TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue)', () => {
    const obj = mk('foo', 2);
    const objV2 = mk('foo', 3);
    it.each<[string, (f: RealFIFO<TestObj>) => void, Deltas<TestObj>]>([
      [
        'Added object should be deleted on Replace',
        (f) => {
          f.add(obj);
          f.replace([], '0');
        },
        [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      ],
      [
        'Deleted object should have only a single Delete',
        (f) => {
          f.add(obj);
          f.delete(obj);
          f.replace([], '0');
        },
        [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: obj },
        ],
      ],
      [
        'Synced objects should have a single delete',
        (f) => {
          f.add(obj);
          f.replace([obj], '0');
          f.replace([obj], '0');
          f.replace([], '0');
        },
        [
          { type: 'Added', object: obj },
          { type: 'Replaced', object: obj },
          { type: 'Replaced', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      ],
      [
        'Added objects should have a single delete on multiple Replaces',
        (f) => {
          f.add(obj);
          f.replace([], '0');
          f.replace([], '1');
        },
        [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: tomb('foo', obj) },
        ],
      ],
      [
        'Added and deleted and added object should be deleted',
        (f) => {
          f.add(obj);
          f.delete(obj);
          f.add(objV2);
          f.replace([], '0');
        },
        [
          { type: 'Added', object: obj },
          { type: 'Deleted', object: obj },
          { type: 'Added', object: objV2 },
          { type: 'Deleted', object: tomb('foo', objV2) },
        ],
      ],
      [
        'Bookmark object should not be added without atomic',
        (f) => {
          f.bookmark('123');
          f.replace([], '0');
          f.replace([], '1');
        },
        [],
      ],
    ])('%s', async (_name, ops, expected) => {
      const f = fifo();
      ops(f);
      expect(await popAll(f)).toEqual(expected);
      expect(f.queued()).toEqual([]);
    });
  });

  it('hands out every change of an object, in order (TestRealFIFO_addUpdate)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.update(mk('foo', 12));
    f.delete(mk('foo', 15));
    expect(f.queued()).toEqual([
      { type: 'Added', object: mk('foo', 10) },
      { type: 'Updated', object: mk('foo', 12) },
      { type: 'Deleted', object: mk('foo', 15) },
    ]);
    expect([await popVal(f), await popVal(f), await popVal(f)]).toEqual([10, 12, 15]);
    expect(f.queued()).toEqual([]);
    f.close();
    expect(await f.pop(() => {})).toEqual([undefined, true]);
  });

  it('transforms each object once, and never a tombstone (TestRealFIFO_transformer)', () => {
    interface Counted {
      rv: number;
      xfrm: number;
    }
    const mkc = (name: string, rv: number): TestObj => mk(name, { rv, xfrm: 0 });
    const f = fifo({
      transformer: (obj) => {
        (obj.val as Counted).xfrm++;
        return obj;
      },
    });
    f.add(mkc('foo', 10));
    f.add(mkc('bar', 11));
    f.update(mkc('foo', 12));
    f.delete(mkc('foo', 15));
    f.replace([], '');
    f.add(mkc('bar', 16));
    f.replace([], '');
    const queued = f.queued();
    // Without merging, bar is deleted twice: once per relist that lacks it.
    expect(queued.map((d) => [d.type, f.keyOf(d.object)])).toEqual([
      ['Added', 'foo'],
      ['Added', 'bar'],
      ['Updated', 'foo'],
      ['Deleted', 'foo'],
      ['Deleted', 'bar'],
      ['Added', 'bar'],
      ['Deleted', 'bar'],
    ]);
    for (const d of queued) {
      const obj =
        d.object instanceof DeletedFinalStateUnknown ? d.object.obj : (d.object as TestObj);
      expect((obj?.val as Counted).xfrm).toBe(1);
    }
    expect((queued[4]?.object as DeletedFinalStateUnknown<TestObj>).obj?.val).toEqual({
      rv: 11,
      xfrm: 1,
    });
  });

  it('queues every deletion, known or not (TestRealFIFO_enqueueingNoLister)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.update(mk('bar', 15));
    f.add(mk('qux', 17));
    f.delete(mk('qux', 18));
    f.delete(mk('baz', 20));
    const vals: unknown[] = [];
    for (let i = 0; i < 5; i++) vals.push(await popVal(f));
    expect(vals).toEqual([10, 15, 17, 18, 20]);
    expect(f.queued()).toEqual([]);
  });

  it('queues a deletion of a known object (TestRealFIFO_enqueueingWithLister)', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.add(mk('foo', 10));
    f.update(mk('bar', 15));
    f.delete(mk('baz', 20));
    expect([await popVal(f), await popVal(f), await popVal(f)]).toEqual([10, 15, 20]);
  });

  it('hands out an add, then the relist of it (TestRealFIFO_addReplace)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.replace([mk('foo', 15)], '0');
    expect([await popVal(f), await popVal(f)]).toEqual([10, 15]);
    expect(f.queued()).toEqual([]);
  });

  it('does not resync an object with a queued change (TestRealFIFO_ResyncNonExisting, TestRealFIFO_UpdateResyncRace)', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5)) });
    f.delete(mk('foo', 10));
    f.resync();
    expect(f.queued().map((d) => d.type)).toEqual(['Deleted']);

    const g = fifo({ knownObjects: known(mk('foo', 5)) });
    g.update(mk('foo', 6));
    g.resync();
    expect(await pop(g)).toEqual([{ type: 'Updated', object: mk('foo', 6) }]);
    expect(g.queued()).toEqual([]);
  });

  it('queues a Sync for a known object (TestRealFIFO_Resync)', () => {
    const f = fifo({ knownObjects: known(mk('foo', 5)) });
    f.resync();
    expect(f.queued()).toEqual([{ type: 'Sync', object: mk('foo', 5) }]);
  });

  it('appends a delete after an add (TestRealFIFO_DeleteExistingNonPropagated)', () => {
    const f = fifo();
    f.add(mk('foo', 5));
    f.delete(mk('foo', 6));
    expect(f.queued().map((d) => d.type)).toEqual(['Added', 'Deleted']);
  });

  describe('puts the deletions of a relist before its objects (TestRealFIFO_ReplaceMakesDeletions)', () => {
    const three = () => known(mk('foo', 5), mk('bar', 6), mk('baz', 7));

    it('with a delete already queued', async () => {
      const f = fifo({ knownObjects: three() });
      f.delete(mk('baz', 10));
      f.replace([mk('foo', 5)], '0');
      expect(await popAll(f)).toEqual([
        { type: 'Deleted', object: mk('baz', 10) },
        { type: 'Deleted', object: tomb('bar', mk('bar', 6)) },
        { type: 'Replaced', object: mk('foo', 5) },
      ]);
    });

    it('with an add queued', async () => {
      const f = fifo({ knownObjects: three() });
      f.add(mk('baz', 10));
      f.replace([mk('foo', 5)], '0');
      expect(await popAll(f)).toEqual([
        { type: 'Added', object: mk('baz', 10) },
        { type: 'Deleted', object: tomb('baz', mk('baz', 10)) },
        { type: 'Deleted', object: tomb('bar', mk('bar', 6)) },
        { type: 'Replaced', object: mk('foo', 5) },
      ]);
    });

    it('with a delete and a re-create queued: the tombstone carries the newest queued object', async () => {
      const f = fifo({ knownObjects: three() });
      f.delete(mk('bar', 6));
      f.add(mk('bar', 100));
      f.replace([mk('foo', 5)], '0');
      expect(await popAll(f)).toEqual([
        { type: 'Deleted', object: mk('bar', 6) },
        { type: 'Added', object: mk('bar', 100) },
        { type: 'Deleted', object: tomb('bar', mk('bar', 100)) },
        { type: 'Deleted', object: tomb('baz', mk('baz', 7)) },
        { type: 'Replaced', object: mk('foo', 5) },
      ]);
    });

    it('across two relists, in queue order rather than by key', async () => {
      const f = fifo({ knownObjects: three() });
      f.replace([mk('bar', 100), mk('foo', 5)], '0');
      f.replace([mk('foo', 5)], '0');
      expect(await popAll(f)).toEqual([
        { type: 'Deleted', object: tomb('baz', mk('baz', 7)) },
        { type: 'Replaced', object: mk('bar', 100) },
        { type: 'Replaced', object: mk('foo', 5) },
        { type: 'Deleted', object: tomb('bar', mk('bar', 100)) },
        { type: 'Replaced', object: mk('foo', 5) },
      ]);
    });
  });

  it('counts the deletions of the first relist as initial, and syncs after the last (TestRealFIFO_HasSyncedCorrectOnDeletion)', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5), mk('bar', 6), mk('baz', 7)) });
    f.replace([mk('foo', 5)], '0');
    const expected: Deltas<TestObj>[] = [
      [{ type: 'Deleted', object: tomb('bar', mk('bar', 6)) }],
      [{ type: 'Deleted', object: tomb('baz', mk('baz', 7)) }],
      [{ type: 'Replaced', object: mk('foo', 5) }],
    ];
    for (const deltas of expected) {
      expect(f.hasSynced()).toBe(false);
      expect(await pop2(f)).toEqual([deltas, true]);
    }
    expect(f.hasSynced()).toBe(true);
  });

  it('delivers every change in order, with no line jumping (TestRealFIFO_detectLineJumpers)', async () => {
    const f = fifo();
    f.add(mk('foo', 10));
    f.add(mk('bar', 1));
    f.add(mk('foo', 11));
    f.add(mk('foo', 13));
    f.add(mk('zab', 30));
    expect(await popVal(f)).toBe(10);
    f.add(mk('foo', 14));
    const rest: unknown[] = [];
    for (let i = 0; i < 5; i++) rest.push(await popVal(f));
    expect(rest).toEqual([1, 11, 13, 30, 14]);
  });

  it('keys objects, tombstones and deltas (TestRealFIFO_KeyOf)', () => {
    const f = fifo();
    expect(f.keyOf(mk('A', 0))).toBe('A');
    expect(f.keyOf(tomb('B'))).toBe('B');
    expect(f.keyOf([{ type: 'Added', object: mk('C', 0) }])).toBe('C');
    expect(f.keyOf([{ type: 'Deleted', object: tomb('D') }])).toBe('D');
    expect(() => f.keyOf([])).toThrow(KeyError);
  });

  it.each<[string, ((f: RealFIFO<TestObj>) => Promise<unknown> | void)[], boolean]>([
    ['nothing', [], false],
    ['an add', [(f) => f.add(mk('a', 1))], true],
    ['an empty relist', [(f) => f.replace([], '0')], true],
    ['a relist of two', [(f) => f.replace([mk('a', 1), mk('b', 2)], '0')], false],
    [
      'a relist of two, one popped',
      [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => pop(f)],
      false,
    ],
    [
      'a relist of two, both popped',
      [(f) => f.replace([mk('a', 1), mk('b', 2)], '0'), (f) => pop(f), (f) => pop(f)],
      true,
    ],
    [
      // Every change is delivered: an object listed twice is popped twice.
      'a relist listing one object twice, popped twice',
      [(f) => f.replace([mk('a', 1), mk('a', 2)], '0'), (f) => pop(f), (f) => pop(f)],
      true,
    ],
  ])('reports synced after %s (TestRealFIFO_HasSynced)', async (_name, actions, synced) => {
    const f = fifo();
    for (const action of actions) await action(f);
    expect(f.hasSynced()).toBe(synced);
    expect(f.hasSyncedChecker().isDone()).toBe(synced);
  });

  it('counts an item of the first relist only once it has been processed', async () => {
    const f = fifo();
    f.replace([mk('a', 1)], '0');
    let syncedWhileProcessing: boolean | undefined;
    await f.pop(() => (syncedWhileProcessing = f.hasSynced()));
    expect(syncedWhileProcessing).toBe(false);
    expect(f.hasSynced()).toBe(true);
  });

  it('releases every waiting pop when closed (TestRealFIFO_PopShouldUnblockWhenClosed)', async () => {
    const f = fifo({ knownObjects: known(mk('foo', 5)) });
    const pops = Array.from({ length: 10 }, () => f.pop(() => {}));
    await flush();
    f.close();
    expect(await Promise.all(pops)).toEqual(Array.from({ length: 10 }, () => [undefined, true]));
    expect(f.isClosed()).toBe(true);
  });

  it('refuses what client-go refuses (NewRealFIFOWithOptions)', () => {
    expect(() => newRealFIFO({ atomicEvents: true, knownObjects: emptyKnownObjects() })).toThrow(
      'coding error: knownObjects must not be provided when AtomicEvents is true',
    );
    expect(() => newRealFIFO({})).toThrow(
      'coding error: knownObjects must be provided when AtomicEvents is false',
    );
    expect(() =>
      newRealFIFO({ knownObjects: emptyKnownObjects(), emitDeltaTypeBookmark: true }),
    ).toThrow('coding error: EmitDeltaTypeBookmark must be false when AtomicEvents is false');
  });

  it('refuses an object without a key and queues nothing', () => {
    const keyFunction: KeyFunc = (obj) => {
      if ((obj as TestObj).val === 'bad') throw new Error('no key');
      return (obj as TestObj).metadata.name;
    };
    const f = fifo({ keyFunction });
    expect(() => f.add(mk('a', 'bad'))).toThrow(KeyError);
    expect(() => f.replace([mk('b', 1), mk('a', 'bad')], '1')).toThrow(KeyError);
    expect(f.queued()).toEqual([]);
  });
});

describe('RealFIFO batches (TestRealFIFO_PopMultipleDeltaInBatch)', () => {
  const obj1 = mk('foo1', 5);
  const obj2 = mk('foo2', 5);
  const obj3 = mk('foo3', 5);
  const obj4 = mk('foo4', 5);
  const unlimited = 999_999;

  it.each<[string, TestObj[], ((f: RealFIFO<TestObj>) => void)[], number, Deltas<TestObj>[]]>([
    [
      'non-split: pop unique items should work',
      [obj1, obj2, obj3],
      [],
      unlimited,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
          { type: 'Replaced', object: obj3 },
        ],
      ],
    ],
    [
      'split due to initial list: initial 2 items with 2 updates should have 2 batches',
      [obj1, obj2],
      [(f) => f.update(obj3), (f) => f.update(obj4)],
      2,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
        ],
        [
          { type: 'Updated', object: obj3 },
          { type: 'Updated', object: obj4 },
        ],
      ],
    ],
    [
      'split due to non-unique#1: update single item for multiple items should have separate batch',
      [obj1],
      [(f) => f.update(obj1), (f) => f.update(obj1)],
      unlimited,
      [
        [{ type: 'Replaced', object: obj1 }],
        [{ type: 'Updated', object: obj1 }],
        [{ type: 'Updated', object: obj1 }],
      ],
    ],
    [
      'split due to non-unique#2: a repeated item at the end starts a new batch',
      [obj1, obj2],
      [(f) => f.update(obj2), (f) => f.update(obj3)],
      unlimited,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
        ],
        [
          { type: 'Updated', object: obj2 },
          { type: 'Updated', object: obj3 },
        ],
      ],
    ],
    [
      'split due to non-unique#3: a repeated item in the middle starts a new batch',
      [obj1, obj2, obj3],
      [(f) => f.update(obj2)],
      unlimited,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
          { type: 'Replaced', object: obj3 },
        ],
        [{ type: 'Updated', object: obj2 }],
      ],
    ],
    [
      'split due to batch size#1: batching initial list should work',
      [obj1, obj2, obj3],
      [],
      2,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
        ],
        [{ type: 'Replaced', object: obj3 }],
      ],
    ],
    [
      'split due to batch size#2: batching incoming non-initial deltas should work',
      [],
      [(f) => f.update(obj1), (f) => f.update(obj2), (f) => f.update(obj3)],
      2,
      [
        [
          { type: 'Updated', object: obj1 },
          { type: 'Updated', object: obj2 },
        ],
        [{ type: 'Updated', object: obj3 }],
      ],
    ],
    [
      'split due to batch size#3: 4 mixed initial and later items in batches of 2 make 3 batches',
      [obj1, obj2, obj3],
      [(f) => f.update(obj4)],
      2,
      [
        [
          { type: 'Replaced', object: obj1 },
          { type: 'Replaced', object: obj2 },
        ],
        [{ type: 'Replaced', object: obj3 }],
        [{ type: 'Updated', object: obj4 }],
      ],
    ],
  ])('%s', async (_name, initialItems, actions, batchSize, expectedBatches) => {
    const f = newRealFIFO<TestObj>({ knownObjects: known(...initialItems), batchSize });
    f.replace(initialItems, '123');
    for (const action of actions) action(f);
    const batches: Deltas<TestObj>[] = [];
    const initial: TestObj[] = [];
    while (f.queued().length > 0) {
      await f.popBatch(
        (deltas, isInInitialList) => {
          batches.push(deltas);
          if (isInInitialList) initial.push(...deltas.map((d) => d.object as TestObj));
        },
        (deltas, isInInitialList) => {
          batches.push(deltas);
          if (isInInitialList) initial.push(...deltas.map((d) => d.object as TestObj));
        },
      );
    }
    expect(batches).toEqual(expectedBatches);
    expect(initial).toEqual(initialItems);
    f.close();
    expect(
      await f.popBatch(
        () => {},
        () => {},
      ),
    ).toBe(true);
  });

  it('hands an atomic change out alone', async () => {
    const f = newRealFIFO<TestObj>({ atomicEvents: true, emitDeltaTypeBookmark: true });
    f.add(obj1);
    f.bookmark('5');
    f.add(obj2);
    const batches: string[][] = [];
    const record = (deltas: Deltas<TestObj>) => batches.push(deltas.map((d) => d.type));
    while (f.queued().length > 0) await f.popBatch(record, record);
    expect(batches).toEqual([['Added'], ['Bookmark'], ['Added']]);
  });
});

describe('RealFIFO with atomic events', () => {
  const obj = mk('foo', 2);
  const atomic = () => fifo({ atomicEvents: true, emitDeltaTypeBookmark: true });

  it.each<[string, (f: RealFIFO<TestObj>) => void, Deltas<TestObj>]>([
    [
      'Base replace',
      (f) => f.replace([], '123'),
      [{ type: 'ReplacedAll', object: { resourceVersion: '123', objects: [] } }],
    ],
    [
      'Added object exists in deltas on Atomic Replace',
      (f) => {
        f.add(obj);
        f.replace([], '123');
      },
      [
        { type: 'Added', object: obj },
        { type: 'ReplacedAll', object: { resourceVersion: '123', objects: [] } },
      ],
    ],
    [
      'Multiple replaces run in order',
      (f) => {
        f.add(obj);
        f.replace([obj], '10');
        f.replace([obj], '20');
        f.replace([], '56');
      },
      [
        { type: 'Added', object: obj },
        { type: 'ReplacedAll', object: { resourceVersion: '10', objects: [obj] } },
        { type: 'ReplacedAll', object: { resourceVersion: '20', objects: [obj] } },
        { type: 'ReplacedAll', object: { resourceVersion: '56', objects: [] } },
      ],
    ],
    [
      'Bookmark object should not be included in Replace',
      (f) => {
        f.bookmark('123');
        f.replace([], '1234');
      },
      [
        { type: 'Bookmark', object: { resourceVersion: '123' } },
        { type: 'ReplacedAll', object: { resourceVersion: '1234', objects: [] } },
      ],
    ],
  ])(
    'queues one ReplacedAll per relist: %s (TestRealFIFO_ReplaceAtomic)',
    async (_n, ops, expected) => {
      const f = atomic();
      ops(f);
      expect(await popAll(f)).toEqual(expected);
      expect(f.queued()).toEqual([]);
    },
  );

  it('pops the add, then the whole relist (TestRealFIFO_ReplaceAtomicPop)', async () => {
    const f = atomic();
    f.add(mk('foo', 10));
    f.replace([mk('foo', 15)], '20');
    expect(await pop(f)).toEqual([{ type: 'Added', object: mk('foo', 10) }]);
    expect(await pop(f)).toEqual([
      { type: 'ReplacedAll', object: { resourceVersion: '20', objects: [mk('foo', 15)] } },
    ]);
    expect(f.queued()).toEqual([]);
  });

  it.each<[string, (f: RealFIFO<TestObj>) => void, Deltas<TestObj>]>([
    ['Base resync', (f) => f.resync(), [{ type: 'SyncAll', object: {} }]],
    [
      'Added object exists in deltas on Atomic Resync',
      (f) => {
        f.add(obj);
        f.resync();
      },
      [
        { type: 'Added', object: obj },
        { type: 'SyncAll', object: {} },
      ],
    ],
  ])('queues one SyncAll per resync: %s (TestRealFIFO_ResyncAtomic)', async (_n, ops, expected) => {
    const f = atomic();
    ops(f);
    expect(await popAll(f)).toEqual(expected);
  });

  it('transforms the listed objects and syncs once the relist is processed', async () => {
    const f = fifo({
      atomicEvents: true,
      transformer: (o) => ({ ...o, val: `${String(o.val)}!` }),
    });
    f.replace([mk('a', 1), mk('b', 2)], '7');
    expect(f.hasSynced()).toBe(false);
    expect(await pop2(f)).toEqual([
      [
        {
          type: 'ReplacedAll',
          object: { resourceVersion: '7', objects: [mk('a', '1!'), mk('b', '2!')] },
        },
      ],
      true,
    ]);
    expect(f.hasSynced()).toBe(true);
    expect(f.transformer()).toBeTypeOf('function');
  });

  it('drops bookmarks unless told to emit them', () => {
    const f = fifo({ atomicEvents: true });
    f.bookmark('9');
    expect(f.queued()).toEqual([]);
  });
});
