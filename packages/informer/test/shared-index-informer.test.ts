// Ports of client-go tools/cache shared_informer_test.go, on a FakeSource and
// a FakeClock.
import { newInternalError, type DeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { minimumResyncPeriod, trimManagedFields, type ResourceEventHandler } from '../src/index.js';
import type { ProcessorListener } from '../src/shared-processor.js';
import type { SourceObj } from './fake-source.js';
import { RecordingLogger, flush } from './helpers.js';
import { Recorder, harness, stopAll, stopClean, until } from './informer-harness.js';

afterEach(stopAll);

const periodOf = (reg: unknown): number => (reg as ProcessorListener<SourceObj>).resyncPeriod;

describe('SharedIndexInformer', () => {
  it('lists, then hands every change to each handler, old and new objects on updates', async () => {
    const h = harness((s) => {
      s.add('a', 1);
      s.add('b', 1);
    });
    const rec = new Recorder();
    const reg = h.informer.addEventHandler(rec);
    expect(h.informer.hasSynced()).toBe(false);
    expect(h.informer.lastSyncResourceVersion()).toBe('');
    void h.run();
    await h.informer.whenSynced();
    await reg.whenSynced();
    expect(reg.hasSynced()).toBe(true);
    expect(rec.take().sort()).toEqual(['add a=1 initial', 'add b=1 initial']);
    expect(h.informer.lastSyncResourceVersion()).toBe('2');

    h.source.add('c', 1);
    h.source.modify('a', 2);
    h.source.delete('b');
    await until(() => rec.events.length === 3);
    expect(rec.take()).toEqual(['add c=1', 'update a=1->2', 'delete b']);
    expect(
      h.informer
        .getStore()
        .list()
        .map((o) => `${o.metadata.name}=${String(o.val)}`)
        .sort(),
    ).toEqual(['a=2', 'c=1']);
    await stopClean(h);
  });

  it('gives a handler added while running the cache as initial adds, and is synced only once they are handled', async () => {
    // TestAddWhileActive
    const h = harness((s) => {
      s.add('a', 1);
      s.add('b', 1);
    });
    const first = new Recorder();
    h.informer.addEventHandler(first);
    void h.run();
    await h.informer.whenSynced();

    const late = new Recorder();
    const reg = h.informer.addEventHandler(late);
    expect(reg.hasSynced()).toBe(false);
    await reg.whenSynced();
    expect(late.take().sort()).toEqual(['add a=1 initial', 'add b=1 initial']);

    h.source.add('c', 1);
    await until(() => late.events.length === 1);
    expect(late.take()).toEqual(['add c=1']);
    await until(() => first.events.length === 3);
    expect(first.events[2]).toBe('add c=1');
  });

  it('reports a handler synced only after it returned from its last initial add', async () => {
    const h = harness((s) => s.add('a', 1));
    let release: () => void = () => {};
    const reg = h.informer.addEventHandler({
      onAdd: () => new Promise<void>((resolve) => (release = resolve)),
    });
    void h.run();
    await h.informer.whenSynced();
    await flush();
    expect(h.informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(false);
    release();
    await reg.whenSynced();
    expect(reg.hasSynced()).toBe(true);
  });

  it('syncs with an empty list', async () => {
    const h = harness();
    const reg = h.informer.addEventHandler(new Recorder());
    void h.run();
    await reg.whenSynced();
    expect(h.informer.hasSynced()).toBe(true);
  });

  it('stops delivering to a removed handler; removal is idempotent and ignores foreign handles', async () => {
    // TestRemoveWhileActive, TestRemovingRemovedSharedInformer, TestSharedInformerRemoveForeignHandler
    const h = harness((s) => s.add('a', 1));
    const other = harness();
    const rec = new Recorder();
    const keep = new Recorder();
    const reg = h.informer.addEventHandler(rec);
    h.informer.addEventHandler(keep);
    const foreign = other.informer.addEventHandler(new Recorder());
    void h.run();
    await reg.whenSynced();
    expect(rec.take()).toEqual(['add a=1 initial']);

    h.informer.removeEventHandler(reg);
    h.informer.removeEventHandler(reg);
    h.informer.removeEventHandler(foreign);
    h.source.add('b', 1);
    await until(() => keep.events.length === 2);
    await flush();
    expect(rec.events).toEqual([]);
    // The foreign handle still belongs to its own informer.
    void other.run();
    await foreign.whenSynced();
  });

  it('treats each registration of the same handler as independent', async () => {
    // TestSharedInformerMultipleRegistration
    const h = harness((s) => s.add('a', 1));
    const rec = new Recorder();
    const r1 = h.informer.addEventHandler(rec);
    h.informer.addEventHandler(rec);
    void h.run();
    await r1.whenSynced();
    await until(() => rec.events.length === 2);
    rec.take();
    h.informer.removeEventHandler(r1);
    h.source.add('b', 1);
    await until(() => rec.events.length === 1);
    await flush();
    expect(rec.take()).toEqual(['add b=1']);
  });

  it('refuses handlers once stopped, and still allows removal', async () => {
    // TestAddOnStoppedSharedInformer, TestRemoveOnStoppedSharedInformer, TestStateSharedInformer
    const h = harness();
    const reg = h.informer.addEventHandler(new Recorder());
    expect(h.informer.isStopped()).toBe(false);
    void h.run();
    await h.informer.whenSynced();
    await stopClean(h);
    expect(() => h.informer.addEventHandler(new Recorder())).toThrow(
      /was not added to shared informer testobjs because it has stopped already/,
    );
    h.informer.removeEventHandler(reg);
  });

  it('logs a warning and returns when run a second time', async () => {
    const logger = new RecordingLogger();
    const h = harness(() => {}, { logger });
    void h.run();
    await h.informer.run(h.controller.signal);
    expect(logger.messages()).toContain(
      'Warning: the sharedIndexInformer has started, run more than once is not allowed',
    );
    expect(h.source.callsOf('list')).toHaveLength(1);
  });

  it('writes nothing to the console, whatever happens, and logs through its logger', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    try {
      const logger = new RecordingLogger();
      const h = harness((s) => s.add('a', 1), { logger, resyncPeriod: 1000 });
      h.informer.addEventHandler({
        onAdd: () => {
          throw new Error('boom');
        },
      });
      h.informer.addEventHandler(new Recorder(), { resyncPeriod: 10 });
      void h.run();
      await h.informer.whenSynced();
      void h.informer.run(h.controller.signal);
      h.source.watches[0]?.fail(newInternalError('etcd is down'));
      h.source.listErrors.push(newInternalError('etcd is down'));
      await h.clock.advance(2000);
      await h.clock.advance(2000);
      await stopClean(h);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      expect(logger.messages()).toEqual(
        expect.arrayContaining([
          'Warning: resync period is too small. Changing it to the minimum allowed value',
          'Observed a panic',
          'Warning: the sharedIndexInformer has started, run more than once is not allowed',
          'Warning: watch ended with error',
        ]),
      );
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('refuses a transform or a watch error handler after start', async () => {
    // TestSharedInformerStartRace
    const h = harness();
    void h.run();
    expect(() => h.informer.setTransform((o) => o)).toThrow(/already started/);
    expect(() => h.informer.setWatchErrorHandler(() => {})).toThrow(/already started/);
    await h.informer.whenSynced();
  });

  it('applies the transform before the cache and the handlers see an object', async () => {
    // TestSharedInformerTransformer
    const h = harness((s) => s.add('a', 'x'));
    h.informer.setTransform((o) => ({ ...o, val: `${String(o.val)}-t` }));
    const rec = new Recorder();
    h.informer.addEventHandler(rec);
    void h.run();
    await h.informer.whenSynced();
    h.source.modify('a', 'y');
    await until(() => rec.events.length === 2);
    expect(rec.take()).toEqual(['add a=x-t initial', 'update a=x-t->y-t']);
    expect(h.informer.getStore().getByKey('a')?.val).toBe('y-t');
  });

  it('passes list failures to the watch error handler and recovers after the backoff', async () => {
    // TestSharedInformerErrorHandling
    const h = harness((s) => {
      s.add('a', 1);
      s.listErrors.push(newInternalError(new Error('etcd is down')));
    });
    const rec = new Recorder();
    const reg = h.informer.addEventHandler(rec);
    void h.run();
    await until(() => h.errors.length === 1, 'the error');
    expect(String(h.errors[0])).toMatch(/etcd is down/);
    expect(h.informer.hasSynced()).toBe(false);
    await h.clock.advance(1600);
    await reg.whenSynced();
    expect(rec.take()).toEqual(['add a=1 initial']);
  });

  it('adds indexers before and after start', async () => {
    // TestIndexer
    const h = harness(
      (s) => {
        s.add('a', 'red');
        s.add('b', 'blue');
        s.add('c', 'red');
      },
      { indexers: { byVal: (o) => [String(o.val)] } },
    );
    void h.run();
    await h.informer.whenSynced();
    expect(h.informer.getIndexer().indexKeys('byVal', 'red')).toEqual(['a', 'c']);
    h.informer.addIndexers({ byFirst: (o) => [o.metadata.name.slice(0, 1)] });
    expect(
      h.informer
        .getIndexer()
        .byIndex('byFirst', 'b')
        .map((o) => o.val),
    ).toEqual(['blue']);
    expect(h.informer.getIndexer().listIndexFuncValues('byVal').sort()).toEqual(['blue', 'red']);
    await stopClean(h);
    expect(() => h.informer.addIndexers({ late: () => [] })).toThrow(/stopped/);
  });

  it('never lets a slow handler hold up another, and the slow one loses nothing', async () => {
    const h = harness();
    const slow: string[] = [];
    const gates: (() => void)[] = [];
    h.informer.addEventHandler({
      onAdd: (obj) => {
        slow.push(obj.metadata.name);
        return new Promise<void>((resolve) => gates.push(resolve));
      },
    });
    const fast = new Recorder();
    h.informer.addEventHandler(fast);
    void h.run();
    await h.informer.whenSynced();
    for (let i = 0; i < 50; i++) h.source.add(`o${String(i).padStart(2, '0')}`, i);
    await until(() => fast.events.length === 50, 'the fast handler');
    expect(slow).toEqual(['o00']);
    for (let i = 0; i < 50; i++) {
      await until(() => gates.length > 0, 'the slow handler');
      gates.shift()?.();
    }
    await until(() => slow.length === 50, 'the slow handler');
    expect(slow).toEqual(Array.from({ length: 50 }, (_, i) => `o${String(i).padStart(2, '0')}`));
  });

  it('skips a notification whose handler throws, pauses that handler a second, and never calls it synced', async () => {
    // TestEventPanics
    const logger = new RecordingLogger();
    const h = harness((s) => s.add('a', 1), { logger });
    const seen: string[] = [];
    const bad = h.informer.addEventHandler({
      onAdd: (obj) => {
        seen.push(obj.metadata.name);
        if (obj.metadata.name === 'a' || obj.metadata.name === 'b') throw new Error('boom');
      },
    });
    const good = new Recorder();
    const goodReg = h.informer.addEventHandler(good);
    void h.run();
    await goodReg.whenSynced();
    h.source.add('b', 1);
    h.source.add('c', 1);
    await until(() => good.events.length === 3);
    await flush();
    expect(seen).toEqual(['a']);
    await h.clock.advance(1000);
    await until(() => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);
    await h.clock.advance(1000);
    await until(() => seen.length === 3);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(bad.hasSynced()).toBe(false);
    const panics = logger.lines.filter((l) => l.msg === 'Observed a panic');
    expect(panics.map((l) => [l.level, (l.err as Error).message])).toEqual([
      ['error', 'boom'],
      ['error', 'boom'],
    ]);
  });

  it('lets a running call finish after removal, and shutDownEventHandler waits for it', async () => {
    // TestRemoveEventHandler_AsynchronousPanic, TestRemoveEventHandler_SynchronousShutdown
    const h = harness((s) => s.add('a', 1));
    let release: () => void = () => {};
    let finished = false;
    const reg = h.informer.addEventHandler({
      onAdd: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      },
    });
    void h.run();
    await h.informer.whenSynced();
    await flush();
    let shutDown = false;
    const waiting = h.informer.shutDownEventHandler(reg).then(() => (shutDown = true));
    await flush();
    expect(shutDown).toBe(false);
    release();
    await waiting;
    expect(finished).toBe(true);
  });

  it('returns at once from shutDownEventHandler for a never-started informer', async () => {
    // TestShutDownEventHandler_Lifecycles
    const h = harness();
    const reg = h.informer.addEventHandler(new Recorder());
    await h.informer.shutDownEventHandler(reg);
    expect(h.informer.isStopped()).toBe(false);
  });

  it('stops the reflector, the watch and every handler loop when the signal aborts, after calls in progress return', async () => {
    // TestShutdown
    const h = harness((s) => s.add('a', 1));
    const reg = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 5000 });
    let release: () => void = () => {};
    const busy = h.informer.addEventHandler({
      onAdd: () => new Promise<void>((resolve) => (release = resolve)),
    });
    void h.run();
    await reg.whenSynced();
    expect(h.source.openWatches()).toHaveLength(1);
    let returned = false;
    void h.done?.then(() => (returned = true));
    h.controller.abort();
    await flush();
    expect(h.source.openWatches()).toHaveLength(0);
    expect(returned).toBe(false);
    release();
    await h.done;
    await flush();
    expect(busy.hasSynced()).toBe(true);
    expect(h.clock.hasWaiters()).toBe(false);
  });
});

describe('resync', () => {
  it('resyncs each handler on its own period', async () => {
    // TestListenerResyncPeriods: 1s, 2s, 3s and 0 handlers on a 1s informer.
    const h = harness(
      (s) => {
        s.add('a', 1);
        s.add('b', 1);
      },
      { resyncPeriod: 1000 },
    );
    const recs = [1000, 2000, 3000, 0].map((period) => {
      const rec = new Recorder();
      h.informer.addEventHandler(rec, { resyncPeriod: period });
      return rec;
    });
    void h.run();
    await h.informer.whenSynced();
    await until(() => recs.every((r) => r.events.length === 2));
    for (const r of recs) r.take();
    const updates = (): number[] =>
      recs.map((r) => r.take().filter((e) => e.startsWith('update')).length);
    await h.clock.advance(1000);
    await flush();
    expect(updates()).toEqual([2, 0, 0, 0]);
    await h.clock.advance(1000);
    await flush();
    expect(updates()).toEqual([2, 2, 0, 0]);
    await h.clock.advance(1000);
    await flush();
    expect(updates()).toEqual([2, 0, 2, 0]);
    await h.clock.advance(1000);
    await flush();
    expect(updates()).toEqual([2, 2, 0, 0]);
    await stopClean(h);
  });

  it('adjusts the check period and each handler period as client-go does', () => {
    // TestResyncCheckPeriod
    const hour = 3_600_000;
    const h = harness(() => {}, { resyncPeriod: 12 * hour });
    const l1 = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 12 * hour });
    const l2 = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 60_000 });
    expect([periodOf(l1), periodOf(l2)]).toEqual([12 * hour, 60_000]);
    const l3 = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 55_000 });
    const l4 = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 5_000 });
    expect([l1, l2, l3, l4].map(periodOf)).toEqual([12 * hour, 60_000, 55_000, 5_000]);
    const l5 = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 10 });
    expect(periodOf(l5)).toBe(minimumResyncPeriod);
    const l6 = h.informer.addEventHandler(new Recorder());
    expect(periodOf(l6)).toBe(12 * hour);
  });

  it('raises a handler period under the check period once started', async () => {
    const h = harness(() => {}, { resyncPeriod: 60_000 });
    void h.run();
    await h.informer.whenSynced();
    const reg = h.informer.addEventHandler(new Recorder(), { resyncPeriod: 5_000 });
    expect(periodOf(reg)).toBe(60_000);
  });

  it('never resyncs any handler of an informer made with no resync period', async () => {
    const h = harness((s) => s.add('a', 1));
    const rec = new Recorder();
    const reg = h.informer.addEventHandler(rec, { resyncPeriod: 1000 });
    expect(periodOf(reg)).toBe(0);
    void h.run();
    await reg.whenSynced();
    rec.take();
    await h.clock.advance(10_000);
    await flush();
    expect(rec.events).toEqual([]);
  });

  it('after a relist, gives unchanged objects only to handlers due a resync', async () => {
    // TestSharedInformerWatchDisruption
    const h = harness(
      (s) => {
        s.add('pod1', 1);
        s.add('pod2', 1);
      },
      { resyncPeriod: 1000 },
    );
    const noResync = new Recorder();
    const resync = new Recorder();
    h.informer.addEventHandler(noResync, { resyncPeriod: 0 });
    const r2 = h.informer.addEventHandler(resync, { resyncPeriod: 1000 });
    void h.run();
    await r2.whenSynced();
    await h.clock.advance(1000); // the first resync check flags who is due
    await flush();
    noResync.take();
    resync.take();

    // The watch breaks; while it is down pod2 changes and pod3 appears, and
    // the history is compacted, so the informer must relist.
    h.source.closeWatches();
    h.source.modify('pod2', 2);
    h.source.add('pod3', 1);
    h.source.compact();
    await h.clock.advance(1600);
    await until(() => noResync.events.length === 2, 'the relist');
    await flush();
    expect(noResync.take().sort()).toEqual(['add pod3=1', 'update pod2=1->2']);
    expect(resync.take().sort()).toEqual(['add pod3=1', 'update pod1=1->1', 'update pod2=1->2']);
  });
});

describe('filtering and tombstones', () => {
  it('hands a tombstone to onDelete when a relist finds an object gone', async () => {
    const h = harness((s) => {
      s.add('a', 1);
      s.add('b', 1);
    });
    const deleted: (SourceObj | DeletedFinalStateUnknown<SourceObj>)[] = [];
    const handler: ResourceEventHandler<SourceObj> = { onDelete: (o) => void deleted.push(o) };
    const reg = h.informer.addEventHandler(handler);
    void h.run();
    await reg.whenSynced();
    h.source.closeWatches();
    h.source.delete('b');
    h.source.compact();
    await h.clock.advance(1600);
    await until(() => deleted.length === 1, 'the tombstone');
    expect(deleted[0]).toMatchObject({ key: 'b', obj: { metadata: { name: 'b' } } });
  });
});

describe('SharedIndexInformer: the decode hint of trimManagedFields', () => {
  afterEach(stopAll);

  it('asks its source to drop managedFields while decoding only when the transform is trimManagedFields', async () => {
    const hintOf = (opts: object): unknown =>
      (opts as { dropManagedFields?: unknown }).dropManagedFields;
    const withField = (s: { add(name: string, val: unknown): void }): void => s.add('a', 1);
    const trimmed = harness(withField, { transform: trimManagedFields });
    const other = harness(withField, { transform: (o) => o });
    const none = harness(withField);
    const late = harness(withField);
    late.informer.setTransform(trimManagedFields);
    for (const h of [trimmed, other, none, late]) {
      void h.run();
      await h.informer.whenSynced();
      await until(() => h.source.callsOf('watch').length === 1);
    }
    for (const [h, hint] of [
      [trimmed, true],
      [other, undefined],
      [none, undefined],
      [late, true],
    ] as const) {
      expect(h.source.calls.map((c) => hintOf(c.opts))).toEqual([hint, hint]);
      // A source that ignores the hint still gets the transform applied after.
      expect(h.informer.getStore().listKeys()).toEqual(['a']);
    }
  });
});
