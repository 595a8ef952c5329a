import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { newDelayingQueue, newQueue } from '../src/index.js';
import { RecordingProvider, flush, track } from './helpers.js';

describe('delaying queue', () => {
  it('TestSimpleQueue: the item appears only after its delay, with no re-add later', async () => {
    const clock = new FakeClock();
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('foo', 50);
    expect(q.len()).toBe(0);
    clock.step(49);
    expect(q.len()).toBe(0);
    clock.step(11);
    expect(q.len()).toBe(1);
    const [item] = await q.get();
    expect(item).toBe('foo');
    q.done('foo');

    // Step past client-go's 10s heartbeat: nothing comes back.
    clock.step(10_000);
    await flush();
    expect(q.len()).toBe(0);
    expect(clock.hasWaiters()).toBe(false);
    q.shutDown();
  });

  it('TestDeduping: the earliest ready time of a waiting item wins', async () => {
    const clock = new FakeClock();
    const q = newDelayingQueue<string>({ clock });

    q.addAfter('foo', 50);
    q.addAfter('foo', 70);
    expect(q.len()).toBe(0);
    clock.step(49);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    const [first] = await q.get();
    q.done(first!);
    // The 70ms add was folded into the 50ms one.
    clock.step(20);
    expect(q.len()).toBe(0);

    q.addAfter('foo', 50);
    q.addAfter('foo', 30);
    expect(q.len()).toBe(0);
    clock.step(29);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    const [second] = await q.get();
    q.done(second!);
    clock.step(20);
    expect(q.len()).toBe(0);
    expect(clock.hasWaiters()).toBe(false);
    q.shutDown();
  });

  it('TestAddTwoFireEarly: the shorter delay fires first, and a later addAfter is handled', async () => {
    const clock = new FakeClock();
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('foo', 1000);
    q.addAfter('bar', 50);
    expect(q.len()).toBe(0);

    clock.step(60);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['bar', false]);

    q.addAfter('baz', 2000);
    clock.step(1000);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['foo', false]);

    clock.step(2000);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['baz', false]);
    q.shutDown();
  });

  it('TestCopyShifting: items become ready in ready-time order', async () => {
    const clock = new FakeClock();
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('foo', 1000);
    q.addAfter('bar', 500);
    q.addAfter('baz', 250);
    expect(q.len()).toBe(0);

    clock.step(2000);
    expect(q.len()).toBe(3);
    expect(await q.get()).toEqual(['baz', false]);
    expect(await q.get()).toEqual(['bar', false]);
    expect(await q.get()).toEqual(['foo', false]);
    q.shutDown();
  });

  it('orders many delays by ready time, ties in addAfter order', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<number>({ clock });
    const delays = [70, 10, 50, 10, 90, 30, 50, 20, 80, 60, 40, 10];
    delays.forEach((d, i) => q.addAfter(i, d));
    clock.step(100);
    const got: number[] = [];
    while (q.len() > 0) {
      const [item] = await q.get();
      got.push(item!);
    }
    const expected = delays
      .map((d, i) => [d, i] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([, i]) => i);
    expect(got).toEqual(expected);
  });

  it('moves an earlier re-add of a waiting item ahead of others', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('b', 50);
    q.addAfter('a', 10);
    clock.step(10);
    expect(await q.get()).toEqual(['a', false]);
    expect(q.len()).toBe(0);
    clock.step(40);
    expect(await q.get()).toEqual(['b', false]);
    clock.step(100);
    expect(q.len()).toBe(0);
  });

  it('adds at once for a delay of zero or less', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('zero', 0);
    q.addAfter('negative', -10);
    expect(q.len()).toBe(2);
    expect(clock.hasWaiters()).toBe(false);
    expect(await q.get()).toEqual(['zero', false]);
    expect(await q.get()).toEqual(['negative', false]);
  });

  it('wakes a waiting worker when a delay elapses', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    const got = track(q.get());
    q.addAfter('x', 25);
    await clock.advance(24);
    expect(got.done).toBe(false);
    await clock.advance(1);
    expect(got.value).toEqual(['x', false]);
  });

  it('dedups a fired delay against an item already added', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('x', 10);
    q.add('x');
    expect(q.len()).toBe(1);
    clock.step(10);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['x', false]);
    expect(q.len()).toBe(0);
  });

  it('ignores addAfter once shutting down, and drops waiting entries', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('early', 10);
    q.addAfter('late', 1000);
    clock.step(10);
    q.shutDown();
    q.shutDown(); // idempotent
    q.addAfter('after', 0);
    q.addAfter('after', 5);
    clock.step(2000);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['early', false]);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('leaves no timer behind after shutDown with pending addAfter entries', () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({
      name: 'delaying',
      clock,
      metricsProvider: new RecordingProvider(),
    });
    q.addAfter('a', 100);
    q.addAfter('b', 200);
    q.addAfter('c', 300);
    // The metrics ticker and the timer for the earliest entry.
    expect(clock.waiterCount()).toBe(2);
    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
  });

  it('leaves no timer behind after shutDownWithDrain with pending addAfter entries', async () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({
      name: 'delaying',
      clock,
      metricsProvider: new RecordingProvider(),
    });
    q.add('busy');
    const [busy] = await q.get();
    q.addAfter('a', 100);
    const drained = track(q.shutDownWithDrain());
    expect(clock.hasWaiters()).toBe(false);
    clock.step(1000);
    await flush();
    expect(drained.done).toBe(false);
    expect(q.len()).toBe(0);
    q.done(busy!);
    await flush();
    expect(drained.done).toBe(true);
  });

  it('keeps one timer for the earliest entry, none once nothing waits', () => {
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock });
    q.addAfter('a', 300);
    q.addAfter('b', 200);
    q.addAfter('c', 100);
    expect(clock.waiterCount()).toBe(1);
    clock.step(100);
    expect(clock.waiterCount()).toBe(1);
    clock.step(200);
    expect(q.len()).toBe(3);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('puts ready items into a custom inner queue, and shuts it down', async () => {
    const clock = new FakeClock(0);
    const inner = newQueue<string>({ clock });
    const q = newDelayingQueue<string>({ clock, queue: inner });
    q.addAfter('x', 5);
    clock.step(5);
    expect(inner.len()).toBe(1);
    expect(await inner.get()).toEqual(['x', false]);
    q.shutDown();
    expect(inner.shuttingDown()).toBe(true);
  });

  it('stops its timer when the inner queue is shut down behind its back', () => {
    const clock = new FakeClock(0);
    const inner = newQueue<string>({ clock });
    const q = newDelayingQueue<string>({ clock, queue: inner });
    q.addAfter('a', 5);
    q.addAfter('b', 10);
    inner.shutDown();
    clock.step(5);
    expect(inner.len()).toBe(0);
    expect(clock.hasWaiters()).toBe(false);
    expect(q.shuttingDown()).toBe(true);
  });
});
