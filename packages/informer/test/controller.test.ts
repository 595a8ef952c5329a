// Ports of client-go tools/cache controller_test.go (processDeltas and the
// standalone informer) and synctrack_test.go, plus the filtering handler of
// typed_test.go.
import {
  DeletedFinalStateUnknown,
  FakeClock,
  deletionHandlingMetaNamespaceKeyFunc,
  noopLogger,
} from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Controller,
  SingleFileTracker,
  filteringResourceEventHandler,
  newIndexer,
  newInformer,
  newRealFIFO,
  processDeltas,
  processDeltasInBatch,
  type Deltas,
  type Indexer,
  type ResourceEventHandler,
} from '../src/index.js';
import { newQueueFIFO } from '../src/controller.js';
import type { InformerFeatureGates } from '../src/feature-gates.js';
import { FakeSource, type SourceObj } from './fake-source.js';
import { flush } from './helpers.js';
import { Recorder, until } from './informer-harness.js';

const obj = (name: string, val: unknown, rv = '1'): SourceObj => ({
  metadata: { name, resourceVersion: rv },
  val,
});

describe('processDeltas', () => {
  it('lets the store, not the delta type, decide between add and update', () => {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    const rec = new Recorder();
    const deltas: Deltas<SourceObj> = [
      { type: 'Sync', object: obj('a', 1) },
      { type: 'Replaced', object: obj('a', 2) },
      { type: 'Added', object: obj('a', 3) },
    ];
    processDeltas(rec, store, deltas, true);
    expect(rec.take()).toEqual(['add a=1 initial', 'update a=1->2', 'update a=2->3']);
    expect(store.getByKey('a')?.val).toBe(3);
  });

  it('passes a deletion on even when the store lacked the object, tombstones included', () => {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    store.add(obj('b', 1));
    const rec = new Recorder();
    processDeltas(rec, store, [{ type: 'Deleted', object: obj('a', 1) }], false);
    processDeltas(
      rec,
      store,
      [{ type: 'Deleted', object: new DeletedFinalStateUnknown('b', obj('b', 1)) }],
      false,
    );
    expect(rec.take()).toEqual(['delete a', 'delete b tombstone']);
    expect(store.listKeys()).toEqual([]);
  });
});

describe('processDeltas with atomic changes', () => {
  it('replaces the store for a ReplacedAll, then tells of deletions, then of the list in order', () => {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    store.add(obj('a', 1, '1'));
    store.add(obj('gone', 1, '2'));
    const seen: string[] = [];
    const handler: ResourceEventHandler<SourceObj> = {
      // Every handler call sees the store already replaced.
      onAdd: (o, initial) =>
        seen.push(`add ${o.metadata.name} ${String(initial)} ${store.listKeys().sort().join(',')}`),
      onUpdate: (old, o) =>
        seen.push(`update ${o.metadata.name} ${String(old.val)}->${String(o.val)}`),
      onDelete: (o) =>
        seen.push(
          `delete ${(o as DeletedFinalStateUnknown<SourceObj>).key} ${store.getByKey('gone') === undefined}`,
        ),
    };
    processDeltas(
      handler,
      store,
      [
        {
          type: 'ReplacedAll',
          object: { resourceVersion: '9', objects: [obj('b', 2, '8'), obj('a', 3, '9')] },
        },
      ],
      true,
    );
    expect(seen).toEqual(['delete gone true', 'add b true a,b', 'update a 1->3']);
    expect(store.lastStoreSyncResourceVersion()).toBe('9');
  });

  it('passes every stored object to onUpdate for a SyncAll, and ignores what follows it', () => {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    store.add(obj('a', 1));
    const rec = new Recorder();
    processDeltas(
      rec,
      store,
      [
        { type: 'SyncAll', object: {} },
        { type: 'Added', object: obj('b', 1) },
      ],
      false,
    );
    expect(rec.take()).toEqual(['update a=1->1']);
    expect(store.listKeys()).toEqual(['a']);
  });

  it("moves the store to a Bookmark's resourceVersion, telling no handler", () => {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    const rec = new Recorder();
    processDeltas(rec, store, [{ type: 'Bookmark', object: { resourceVersion: '42' } }], false);
    expect(store.lastStoreSyncResourceVersion()).toBe('42');
    expect(rec.events).toEqual([]);
  });
});

describe('processDeltasInBatch', () => {
  const batch: Deltas<SourceObj> = [
    { type: 'Added', object: obj('a', 1) },
    { type: 'Updated', object: obj('b', 2) },
    { type: 'Deleted', object: obj('c', 1) },
  ];

  function seed(): Indexer<SourceObj> {
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    store.add(obj('b', 1));
    store.add(obj('c', 1));
    return store;
  }

  it('applies the whole batch to the store before telling the handler of any of it', () => {
    const store = seed();
    const seen: string[] = [];
    const view = () =>
      store
        .list()
        .map((o) => `${o.metadata.name}=${String(o.val)}`)
        .sort()
        .join(',');
    processDeltasInBatch(
      {
        onAdd: (o) => seen.push(`add ${o.metadata.name}: ${view()}`),
        onUpdate: (_old, o) => seen.push(`update ${o.metadata.name}: ${view()}`),
        onDelete: (o) => seen.push(`delete ${(o as SourceObj).metadata.name}: ${view()}`),
      },
      store,
      batch,
      false,
      ['a', 'b', 'c'],
    );
    expect(seen).toEqual(['add a: a=1,b=2', 'update b: a=1,b=2', 'delete c: a=1,b=2']);
  });

  it('falls back to one change at a time without the keys', () => {
    const store = seed();
    const seen: string[] = [];
    processDeltasInBatch(
      {
        onAdd: (o) => seen.push(`add ${o.metadata.name}: ${store.listKeys().sort().join(',')}`),
        onUpdate: (_old, o) =>
          seen.push(`update ${o.metadata.name}: ${String(store.getByKey('b')?.val)}`),
        onDelete: (o) => seen.push(`delete ${(o as SourceObj).metadata.name}`),
      },
      store,
      batch,
      false,
    );
    expect(seen).toEqual(['add a: a,b,c', 'update b: 2', 'delete c']);
  });
});

// TestReplaceEvents: a relist gives the same events and the same cache with
// atomic and non-atomic RealFIFOs: deletions first, then the list in order.
describe.each([false, true])('a controller over a RealFIFO (atomic: %s)', (atomic) => {
  interface EventRecord {
    action: string;
    key: string;
    eventRV: string;
    storeRV: string;
  }

  async function setup() {
    const source = new FakeSource();
    const store = newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {});
    const fifo = newRealFIFO<SourceObj>(atomic ? { atomicEvents: true } : { knownObjects: store });
    const history: EventRecord[] = [];
    const record = (action: string, o: SourceObj | DeletedFinalStateUnknown<SourceObj>): void => {
      const key = deletionHandlingMetaNamespaceKeyFunc(o);
      const real = o instanceof DeletedFinalStateUnknown ? o.obj : o;
      history.push({
        action,
        key,
        eventRV: real?.metadata.resourceVersion ?? '',
        storeRV: store.getByKey(key)?.metadata.resourceVersion ?? '',
      });
    };
    const handler: ResourceEventHandler<SourceObj> = {
      onAdd: (o) => record('add', o),
      onUpdate: (_old, o) => record('update', o),
      onDelete: (o) => record('delete', o),
    };
    const controller = new Controller<SourceObj>({
      queue: fifo,
      listerWatcher: source,
      clock: new FakeClock(),
      process: (deltas, initial) => processDeltas(handler, store, deltas, initial),
      processBatch: (deltas, initial) => processDeltasInBatch(handler, store, deltas, initial),
    });
    const abort = new AbortController();
    const done = controller.run(abort.signal);
    await controller.whenSynced();
    return { fifo, store, history, abort, done };
  }

  const pod = (name: string, rv: string, val: unknown = 0): SourceObj => ({
    metadata: { name, resourceVersion: rv },
    val,
  });

  it.each<[string, SourceObj[], SourceObj[], EventRecord[]]>([
    [
      'Create with no initial objects',
      [],
      [pod('pod-1', '1')],
      [{ action: 'add', key: 'pod-1', eventRV: '1', storeRV: '1' }],
    ],
    [
      'Delete all objects',
      [pod('pod-1', '1'), pod('pod-3', '2')],
      [],
      [
        { action: 'delete', key: 'pod-1', eventRV: '1', storeRV: '' },
        { action: 'delete', key: 'pod-3', eventRV: '2', storeRV: '' },
      ],
    ],
    [
      'Create, update, delete',
      [pod('pod-1', '1'), pod('pod-2', '2', 1), pod('pod-3', '3')],
      [pod('pod-1', '4'), pod('pod-2', '5', 2), pod('pod-4', '6')],
      [
        { action: 'delete', key: 'pod-3', eventRV: '3', storeRV: '' },
        { action: 'update', key: 'pod-1', eventRV: '4', storeRV: '4' },
        { action: 'update', key: 'pod-2', eventRV: '5', storeRV: '5' },
        { action: 'add', key: 'pod-4', eventRV: '6', storeRV: '6' },
      ],
    ],
  ])('%s', async (_name, initial, replaced, expected) => {
    const h = await setup();
    for (const o of initial) h.fifo.add(o);
    await until(() => h.history.length === initial.length);
    h.history.length = 0;
    h.fifo.replace(replaced, '6');
    await until(() => h.history.length === expected.length);
    await flush();
    const byKey = (a: SourceObj, b: SourceObj) => a.metadata.name.localeCompare(b.metadata.name);
    expect(h.store.list().sort(byKey)).toEqual([...replaced].sort(byKey));
    expect(h.history).toEqual(expected);
    h.abort.abort();
    await h.done;
  });

  it('keeps the store at the resourceVersion of the last change (TestStoreResourceVersion)', async () => {
    const h = await setup();
    h.fifo.add(pod('pod-1', '3'));
    h.fifo.update(pod('pod-1', '4'));
    await until(() => h.history.length === 2);
    expect(h.store.lastStoreSyncResourceVersion()).toBe('4');
    h.fifo.delete(pod('pod-1', '5'));
    await until(() => h.history.length === 3);
    expect(h.store.lastStoreSyncResourceVersion()).toBe('5');
    h.abort.abort();
    await h.done;
  });
});

describe('newQueueFIFO', () => {
  // The change types of each pop, in order, after a relist of two objects
  // and then an add and an update of a third.
  async function pops(gates: InformerFeatureGates | undefined): Promise<string[][]> {
    const queue = newQueueFIFO<SourceObj>(
      newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {}),
      undefined,
      'things',
      gates,
      noopLogger,
    );
    queue.replace([obj('a', 1), obj('b', 2)], '2');
    queue.add(obj('c', 3, '3'));
    queue.update(obj('c', 4, '4'));
    queue.close();
    const out: string[][] = [];
    for (;;) {
      const [, closed] = await queue.pop((deltas) => {
        out.push(deltas.map((d) => d.type));
      });
      if (closed) return out;
    }
  }

  it('makes an atomic RealFIFO by default, as the newest client-go does', async () => {
    // One ReplacedAll for the relist, then every change on its own.
    expect(await pops(undefined)).toEqual([['ReplacedAll'], ['Added'], ['Updated']]);
    expect(await pops({})).toEqual([['ReplacedAll'], ['Added'], ['Updated']]);
  });

  it('makes a RealFIFO of single changes without AtomicFIFO, and a DeltaFIFO without InOrderInformers', async () => {
    expect(await pops({ AtomicFIFO: false })).toEqual([
      ['Replaced'],
      ['Replaced'],
      ['Added'],
      ['Updated'],
    ]);
    // The DeltaFIFO keeps a key's changes together.
    expect(await pops({ InOrderInformers: false })).toEqual([
      ['Replaced'],
      ['Replaced'],
      ['Added', 'Updated'],
    ]);
  });
});

describe('newInformer', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('calls its handler synchronously in the process loop and keeps its store current', async () => {
    // TestTransformingInformer, in part
    const source = new FakeSource();
    source.add('a', 'x');
    const rec = new Recorder();
    const clock = new FakeClock();
    const { indexer, controller } = newInformer<SourceObj>({
      listerWatcher: source,
      handler: {
        ...rec,
        onAdd: (o, initial) => {
          // The store already holds the object when the handler runs.
          expect(indexer.getByKey(o.metadata.name)).toBe(o);
          rec.onAdd(o, initial);
        },
        onUpdate: rec.onUpdate.bind(rec),
        onDelete: rec.onDelete.bind(rec),
      },
      transform: (o) => ({ ...o, val: `${String(o.val)}!` }),
      clock,
    });
    const abort = new AbortController();
    const done = controller.run(abort.signal);
    stops.push(async () => {
      abort.abort();
      await done;
    });
    await controller.whenSynced();
    expect(controller.hasSynced()).toBe(true);
    expect(controller.lastSyncResourceVersion()).toBe('1');
    source.modify('a', 'y');
    source.delete('a');
    await until(() => rec.events.length === 3);
    expect(rec.take()).toEqual(['add a=x! initial', 'update a=x!->y!', 'delete a']);
    expect(indexer.list()).toEqual([]);
    abort.abort();
    await done;
    await flush();
    expect(clock.hasWaiters()).toBe(false);
    expect(source.openWatches()).toEqual([]);
  });

  it('resyncs every object through onUpdate', async () => {
    const source = new FakeSource();
    source.add('a', 1);
    const rec = new Recorder();
    const clock = new FakeClock();
    const { controller } = newInformer<SourceObj>({
      listerWatcher: source,
      handler: rec,
      resyncPeriod: 30_000,
      clock,
    });
    const abort = new AbortController();
    const done = controller.run(abort.signal);
    stops.push(async () => {
      abort.abort();
      await done;
    });
    await controller.whenSynced();
    rec.take();
    await clock.advance(30_000);
    await until(() => rec.events.length === 1);
    expect(rec.take()).toEqual(['update a=1->1']);
  });
});

describe('SingleFileTracker', () => {
  it('is synced once upstream is and every start has finished', () => {
    // TestSingleFileCounting
    let notified = 0;
    const t = new SingleFileTracker('test', () => notified++);
    t.start();
    t.start();
    t.upstreamHasSynced();
    expect(t.hasSynced()).toBe(false);
    t.finished();
    expect(t.hasSynced()).toBe(false);
    t.finished();
    expect(t.hasSynced()).toBe(true);
    expect(notified).toBe(1);
    expect(() => t.finished()).toThrow(/negative counter/);
  });

  it('waits for upstream even with nothing started', () => {
    const t = new SingleFileTracker('test');
    expect(t.hasSynced()).toBe(false);
    t.upstreamHasSynced();
    expect(t.hasSynced()).toBe(true);
  });
});

describe('filteringResourceEventHandler', () => {
  it('turns updates across the filter into adds and deletes', () => {
    // TestTypedFilteringResourceEventHandler
    const rec = new Recorder();
    const h = filteringResourceEventHandler<SourceObj>((o) => (o as SourceObj).val === 'in', rec);
    h.onAdd?.(obj('a', 'in'), true);
    h.onAdd?.(obj('b', 'out'), false);
    h.onUpdate?.(obj('a', 'in'), obj('a', 'in'));
    h.onUpdate?.(obj('c', 'out'), obj('c', 'in'));
    h.onUpdate?.(obj('a', 'in'), obj('a', 'out'));
    h.onUpdate?.(obj('d', 'out'), obj('d', 'out'));
    h.onDelete?.(obj('e', 'in'));
    h.onDelete?.(obj('f', 'out'));
    expect(rec.take()).toEqual([
      'add a=in initial',
      'update a=in->in',
      'add c=in',
      'delete a',
      'delete e',
    ]);
  });
});
