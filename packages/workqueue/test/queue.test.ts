import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { defaultPendingQueue, newQueue, unfinishedWorkUpdatePeriod } from '../src/index.js';
import type { Queue } from '../src/index.js';
import { RecordingProvider, TouchCountingQueue, advanceUntil, flush, track } from './helpers.js';

const shutdownModes: [string, (q: Queue<unknown>) => Promise<void>][] = [
  [
    'shutDown',
    (q) => {
      q.shutDown();
      return Promise.resolve();
    },
  ],
  ['shutDownWithDrain', (q) => q.shutDownWithDrain()],
];

describe.each(shutdownModes)('TestBasic (%s)', (_mode, shutDown) => {
  it('50 producers and 10 consumers: every add is processed, the queue ends empty', async () => {
    const clock = new FakeClock(0);
    const q = newQueue<unknown>({ clock });
    const afterShutdown = 'added after shutdown!';
    let seq = 0;
    const lastAdd = new Map<unknown, number>();
    const lastGet = new Map<unknown, number>();
    const inFlight = new Set<unknown>();
    const errors: string[] = [];
    let processed = 0;

    const producers = Array.from({ length: 50 }, async (_, i) => {
      for (let j = 0; j < 50; j++) {
        q.add(i);
        lastAdd.set(i, ++seq);
        await clock.sleep(1);
      }
    });
    let producersDone = false;
    void Promise.all(producers).then(() => {
      producersDone = true;
    });

    let consumersDone = 0;
    for (let c = 0; c < 10; c++) {
      void (async () => {
        for (;;) {
          const [item, shutdown] = await q.get();
          if (item === afterShutdown) errors.push('got an item added after shutdown');
          if (shutdown) break;
          if (inFlight.has(item)) errors.push(`${String(item)} handed to two workers`);
          inFlight.add(item);
          lastGet.set(item, ++seq);
          processed++;
          await clock.sleep(3);
          inFlight.delete(item);
          q.done(item);
        }
        consumersDone++;
      })();
    }

    await advanceUntil(clock, () => producersDone);
    const drained = track(shutDown(q));
    q.add(afterShutdown);
    expect(q.shuttingDown()).toBe(true);
    await advanceUntil(clock, () => consumersDone === 10 && drained.done);

    expect(errors).toEqual([]);
    expect(q.len()).toBe(0);
    // Consumers are slower than producers, so many adds collapsed into one delivery...
    expect(processed).toBeLessThan(50 * 50);
    // ...but no item was left unprocessed after its last add.
    for (let i = 0; i < 50; i++) {
      expect(lastGet.get(i)).toBeGreaterThan(lastAdd.get(i)!);
    }
    expect(lastGet.has(afterShutdown)).toBe(false);
    expect(clock.hasWaiters()).toBe(false);
  });
});

describe.each(shutdownModes)('TestAddWhileProcessing (%s)', (_mode, shutDown) => {
  it('re-adds during processing are delivered again, and the queue drains', async () => {
    const q = newQueue<unknown>();
    for (let i = 0; i < 50; i++) q.add(i);
    const deliveries = new Map<unknown, number>();
    const readdedBeforeShutdown = new Set<unknown>();
    const inFlight = new Set<unknown>();
    const errors: string[] = [];
    let total = 0;

    const consumers = Array.from({ length: 10 }, async () => {
      // Every worker re-adds every item it sees up to two times.
      const counters = new Map<unknown, number>();
      for (;;) {
        const [item, shutdown] = await q.get();
        if (shutdown) return;
        if (inFlight.has(item)) errors.push(`${String(item)} handed to two workers`);
        inFlight.add(item);
        deliveries.set(item, (deliveries.get(item) ?? 0) + 1);
        total++;
        const seen = (counters.get(item) ?? 0) + 1;
        counters.set(item, seen);
        if (seen < 2) {
          if (!q.shuttingDown()) readdedBeforeShutdown.add(item);
          q.add(item);
        }
        await flush();
        inFlight.delete(item);
        q.done(item);
      }
    });

    // Shut down midway, while items are being re-added.
    while (total < 60) await flush();
    await shutDown(q);
    await Promise.all(consumers);
    expect(errors).toEqual([]);
    expect(q.len()).toBe(0);
    expect(readdedBeforeShutdown.size).toBeGreaterThan(0);
    for (let i = 0; i < 50; i++) {
      const expected = readdedBeforeShutdown.has(i) ? 2 : 1;
      expect(deliveries.get(i)).toBeGreaterThanOrEqual(expected);
    }
  });
});

describe('queue', () => {
  it('TestLen: a duplicate add does not grow len', () => {
    const q = newQueue<string>();
    q.add('foo');
    expect(q.len()).toBe(1);
    q.add('bar');
    expect(q.len()).toBe(2);
    q.add('foo');
    expect(q.len()).toBe(2);
    q.shutDown();
  });

  it('TestReinsert: an add during processing re-queues the item on done', async () => {
    const q = newQueue<string>();
    q.add('foo');
    const [first] = await q.get();
    expect(first).toBe('foo');
    q.add('foo');
    // Parked behind its own processing: not in the queue yet.
    expect(q.len()).toBe(0);
    q.done('foo');
    expect(q.len()).toBe(1);
    const [second, shutdown] = await q.get();
    expect(second).toBe('foo');
    expect(shutdown).toBe(false);
    q.done('foo');
    expect(q.len()).toBe(0);
  });

  it('TestCollapse: a double add yields one get, and touch was called', async () => {
    const tq = new TouchCountingQueue<string>();
    const q = newQueue<string>({ queue: tq });
    q.add('bar');
    q.add('bar');
    const [item] = await q.get();
    expect(item).toBe('bar');
    q.done('bar');
    expect(q.len()).toBe(0);
    expect(tq.touchCounter).toBe(1);
  });

  it('TestCollapseWhileProcessing: two adds while processing give one redelivery, after done', async () => {
    const tq = new TouchCountingQueue<string>();
    const q = newQueue<string>({ queue: tq });
    q.add('foo');
    const [first] = await q.get();
    expect(first).toBe('foo');
    q.add('foo');
    q.add('foo');

    // Another worker waits for the queue.
    const other = track(
      (async () => {
        const [item] = await q.get();
        expect(item).toBe('foo');
        q.done('foo');
        return item;
      })(),
    );
    await flush();
    expect(other.done).toBe(false);

    q.done('foo');
    await flush();
    expect(other.done).toBe(true);
    expect(other.value).toBe('foo');
    expect(q.len()).toBe(0);
    expect(tq.touchCounter).toBe(0);
    // Only one redelivery: the queue is now empty and idle.
    const next = track(q.get());
    await flush();
    expect(next.done).toBe(false);
    q.shutDown();
    await flush();
    expect(next.value).toEqual([undefined, true]);
  });

  it('hands items out in order of first add; re-adding does not move an item', async () => {
    const q = newQueue<string>();
    q.add('a');
    q.add('b');
    q.add('c');
    q.add('a');
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [item] = await q.get();
      order.push(item!);
    }
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('wakes waiting getters in the order they started waiting, one item each', async () => {
    const q = newQueue<string>();
    const first = track(q.get());
    const second = track(q.get());
    await flush();
    expect(first.done).toBe(false);
    q.add('x');
    await flush();
    expect(first.value).toEqual(['x', false]);
    expect(second.done).toBe(false);
    q.add('y');
    await flush();
    expect(second.value).toEqual(['y', false]);
  });

  it('keeps handing out queued items after shutDown, then reports shutdown', async () => {
    const q = newQueue<string>();
    q.add('a');
    q.add('b');
    q.shutDown();
    q.add('c');
    expect(q.shuttingDown()).toBe(true);
    expect(q.len()).toBe(2);
    expect(await q.get()).toEqual(['a', false]);
    expect(await q.get()).toEqual(['b', false]);
    expect(await q.get()).toEqual([undefined, true]);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('requeues an item dirtied before shutdown when it is done after shutdown', async () => {
    const q = newQueue<string>();
    q.add('a');
    const [item] = await q.get();
    q.add('a');
    q.shutDown();
    q.done(item!);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['a', false]);
    q.done('a');
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('wakes every waiting getter with shutdown', async () => {
    const q = newQueue<string>();
    const getters = [track(q.get()), track(q.get()), track(q.get())];
    await flush();
    q.shutDown();
    await flush();
    for (const g of getters) expect(g.value).toEqual([undefined, true]);
  });

  it('TestQueueDrainageUsingShutDownWithDrain: drain waits for both in-flight items', async () => {
    const q = newQueue<string>();
    q.add('foo');
    q.add('bar');
    const [first] = await q.get();
    const [second] = await q.get();
    const drained = track(q.shutDownWithDrain());

    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();
    await flush();
    expect(drained.done).toBe(false);

    q.done(first!);
    await flush();
    expect(drained.done).toBe(false);
    q.done(second!);
    await flush();
    expect(drained.done).toBe(true);
  });

  it('resolves shutDownWithDrain at once when nothing is processing, even with queued items', async () => {
    const q = newQueue<string>();
    q.add('foo');
    await q.shutDownWithDrain();
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['foo', false]);
  });

  it('TestNoQueueDrainageUsingShutDown: shutDown returns with items still in flight', async () => {
    const q = newQueue<string>();
    q.add('foo');
    q.add('bar');
    await q.get();
    await q.get();
    q.shutDown();
    expect(q.shuttingDown()).toBe(true);
    q.add('foo');
    q.add('bar');
    expect(q.len()).toBe(0);
    // The in-flight items were never marked done, yet a later drain does not block.
    const drained = track(q.shutDownWithDrain());
    await flush();
    expect(drained.done).toBe(false);
    q.shutDown();
    await flush();
    expect(drained.done).toBe(true);
  });

  it('TestForceQueueShutdownUsingShutDown: shutDown unblocks a pending drain', async () => {
    const q = newQueue<string>();
    q.add('foo');
    q.add('bar');
    await q.get();
    await q.get();
    const drained = track(q.shutDownWithDrain());
    const drained2 = track(q.shutDownWithDrain());

    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();
    await flush();
    expect(drained.done).toBe(false);

    q.shutDown();
    await flush();
    expect(drained.done).toBe(true);
    expect(drained2.done).toBe(true);
  });

  it('TestQueueDrainageUsingShutDownWithDrainWithDirtyItem', async () => {
    const q = newQueue<string>();
    q.add('foo');
    const [gotten] = await q.get();
    q.add('foo');
    const drained = track(q.shutDownWithDrain());

    let shuttingDown = false;
    while (!shuttingDown) [, shuttingDown] = await q.get();

    // Done puts the dirty item back, so get hands it out again instead of reporting shutdown.
    q.done(gotten!);
    const [again, stillShuttingDown] = await q.get();
    expect(stillShuttingDown).toBe(false);
    expect(again).toBe('foo');
    q.done(again!);

    expect(await q.get()).toEqual([undefined, true]);
    await flush();
    expect(drained.done).toBe(true);
  });

  it('returns from shutDownWithDrain once nothing is processing, even if done re-queued a dirty item', async () => {
    // Only in-flight items are waited for: an item Done puts back in the queue does not count.
    const q = newQueue<string>();
    q.add('foo');
    const [gotten] = await q.get();
    q.add('foo');
    const drained = track(q.shutDownWithDrain());
    await flush();
    expect(drained.done).toBe(false);

    q.done(gotten!);
    await flush();
    expect(drained.done).toBe(true);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['foo', false]);
    q.done('foo');
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('TestGarbageCollection: a processed item is not retained by the queue', async () => {
    const gc = exposeGc();
    const q = newQueue<object>();
    const keep = { name: 'still queued' };
    const ref = (() => {
      const big = { data: new Uint8Array(1024) };
      q.add(big);
      // A second item keeps the FIFO's backing array from being reset on pop.
      q.add(keep);
      return new WeakRef(big);
    })();
    await (async () => {
      const [item] = await q.get();
      q.done(item!);
    })();
    expect(q.len()).toBe(1);

    let collected = false;
    for (let attempt = 0; attempt < 10 && !collected; attempt++) {
      // A WeakRef target stays alive until the current job ends.
      await flush();
      gc();
      collected = ref.deref() === undefined;
    }
    expect(collected).toBe(true);
    expect(await q.get()).toEqual([keep, false]);
  });

  it('clears popped slots in the default pending queue, keeping FIFO order across compaction', () => {
    const pending = defaultPendingQueue<number>();
    const out: number[] = [];
    for (let i = 0; i < 3000; i++) {
      pending.push(i);
      if (i % 3 === 2) out.push(pending.pop(), pending.pop());
    }
    expect(pending.len()).toBe(1000);
    while (pending.len() > 0) out.push(pending.pop());
    expect(out).toEqual(Array.from({ length: 3000 }, (_, i) => i));
  });

  it('leaves no timer behind after shutDown, with metrics enabled', async () => {
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'leak', clock, metricsProvider: new RecordingProvider() });
    expect(clock.waiterCount()).toBe(1);
    q.add('a');
    await q.get();
    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
  });

  it('leaves no timer behind after shutDownWithDrain, with metrics enabled', async () => {
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'leak', clock, metricsProvider: new RecordingProvider() });
    await q.shutDownWithDrain();
    expect(clock.hasWaiters()).toBe(false);
    clock.step(unfinishedWorkUpdatePeriod * 4);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('starts no timer for an unnamed queue', () => {
    const clock = new FakeClock(0);
    newQueue<string>({ clock, metricsProvider: new RecordingProvider() });
    expect(clock.hasWaiters()).toBe(false);
  });
});

/** A deterministic garbage collector: `global.gc` if exposed, else V8's, exposed at runtime. */
function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
