// Ports of client-go tools/cache controller_test.go (processDeltas and the
// standalone informer) and synctrack_test.go, plus the filtering handler of
// typed_test.go.
import {
  DeletedFinalStateUnknown,
  FakeClock,
  deletionHandlingMetaNamespaceKeyFunc,
} from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import {
  SingleFileTracker,
  filteringResourceEventHandler,
  newIndexer,
  newInformer,
  processDeltas,
  type Deltas,
} from '../src/index.js';
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
