import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  ItemExponentialFailureRateLimiter,
  newDelayingQueue,
  newRateLimitingQueue,
} from '../src/index.js';
import type { DelayingQueue } from '../src/index.js';
import { RecordingProvider, flush } from './helpers.js';

/** A delaying queue that records every addAfter before passing it on. */
function spyDelayingQueue<T>(clock: FakeClock): {
  queue: DelayingQueue<T>;
  addAfters: [T, number][];
} {
  const inner = newDelayingQueue<T>({ clock });
  const addAfters: [T, number][] = [];
  const queue: DelayingQueue<T> = {
    add: (item) => inner.add(item),
    addAfter: (item, ms) => {
      addAfters.push([item, ms]);
      inner.addAfter(item, ms);
    },
    len: () => inner.len(),
    get: () => inner.get(),
    done: (item) => inner.done(item),
    shutDown: () => inner.shutDown(),
    shutDownWithDrain: () => inner.shutDownWithDrain(),
    shuttingDown: () => inner.shuttingDown(),
  };
  return { queue, addAfters };
}

describe('rate-limiting queue', () => {
  it('TestRateLimitingQueue: AddRateLimited waits the limiter delay; Forget resets it', () => {
    const clock = new FakeClock();
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const spy = spyDelayingQueue<string>(clock);
    const q = newRateLimitingQueue(limiter, { delayingQueue: spy.queue });

    q.addRateLimited('one');
    expect(spy.addAfters.at(-1)).toEqual(['one', 1]);
    q.addRateLimited('one');
    expect(spy.addAfters.at(-1)).toEqual(['one', 2]);
    expect(q.numRequeues('one')).toBe(2);

    q.addRateLimited('two');
    expect(spy.addAfters.at(-1)).toEqual(['two', 1]);
    q.addRateLimited('two');
    expect(spy.addAfters.at(-1)).toEqual(['two', 2]);

    q.forget('one');
    expect(q.numRequeues('one')).toBe(0);
    q.addRateLimited('one');
    expect(spy.addAfters.at(-1)).toEqual(['one', 1]);
    expect(q.numRequeues('two')).toBe(2);
    q.shutDown();
  });

  it('delivers a rate-limited item once its delay has passed on the clock', async () => {
    const clock = new FakeClock(0);
    const q = newRateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(10, 1000), {
      clock,
    });
    q.addRateLimited('x');
    q.addRateLimited('x'); // 20ms, later than the waiting 10ms: ignored
    clock.step(9);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(['x', false]);
    // Forget does not remove the item from processing: done is still needed.
    q.forget('x');
    q.add('x');
    expect(q.len()).toBe(0);
    q.done('x');
    expect(q.len()).toBe(1);
    clock.step(100);
    expect(q.len()).toBe(1);
  });

  it('passes add, addAfter, len, get, done and shutdown through to the delaying queue', async () => {
    const clock = new FakeClock(0);
    const q = newRateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 10), { clock });
    q.add('a');
    q.addAfter('b', 5);
    expect(q.len()).toBe(1);
    clock.step(5);
    expect(q.len()).toBe(2);
    const [a] = await q.get();
    expect(a).toBe('a');
    const drained = q.shutDownWithDrain();
    expect(q.shuttingDown()).toBe(true);
    q.done(a!);
    await drained;
    expect(await q.get()).toEqual(['b', false]);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('counts a failure in When even when shutting down, but queues nothing', () => {
    const clock = new FakeClock(0);
    const provider = new RecordingProvider();
    const q = newRateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 10), {
      name: 'rl',
      clock,
      metricsProvider: provider,
    });
    q.addRateLimited('x');
    expect(provider.retries.value).toBe(1);
    q.shutDown();
    q.addRateLimited('x');
    expect(q.numRequeues('x')).toBe(2);
    expect(provider.retries.value).toBe(1);
    clock.step(100);
    expect(q.len()).toBe(0);
  });

  it('names its metrics and uses the given provider', () => {
    const provider = new RecordingProvider();
    const q = newRateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(1, 10), {
      name: 'controller',
      clock: new FakeClock(0),
      metricsProvider: provider,
    });
    q.add('x');
    expect(provider.adds.value).toBe(1);
    expect(new Set(provider.created.map(([, name]) => name))).toEqual(new Set(['controller']));
    expect(provider.created.map(([kind]) => kind).sort()).toEqual(
      ['adds', 'depth', 'duration', 'latency', 'longest', 'retries', 'unfinished'].sort(),
    );
    q.shutDown();
  });

  it('leaves no timer behind after shutDown with rate-limited items waiting', async () => {
    const clock = new FakeClock(0);
    const q = newRateLimitingQueue(new ItemExponentialFailureRateLimiter<string>(100, 10_000), {
      name: 'rl',
      clock,
      metricsProvider: new RecordingProvider(),
    });
    q.addRateLimited('a');
    q.addRateLimited('b');
    q.add('c');
    await q.get();
    expect(clock.hasWaiters()).toBe(true);
    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
    await flush();
    expect(clock.hasWaiters()).toBe(false);
  });
});
