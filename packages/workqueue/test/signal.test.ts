// The AbortSignal option: a queue shuts down when its signal aborts, as a Go
// controller's `defer queue.ShutDown()` runs when its context ends.
import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  newDelayingQueue,
  defaultItemBasedRateLimiter,
  newQueue,
  newRateLimitingQueue,
} from '../src/index.js';
import type { Queue } from '../src/index.js';

const makers: [string, (signal: AbortSignal, clock: FakeClock) => Queue<string>][] = [
  ['queue', (signal, clock) => newQueue<string>({ clock, signal })],
  ['delaying queue', (signal, clock) => newDelayingQueue<string>({ clock, signal })],
  [
    'rate-limiting queue',
    (signal, clock) =>
      newRateLimitingQueue<string>(defaultItemBasedRateLimiter(), {
        clock,
        signal,
      }),
  ],
];

describe.each(makers)('%s with a signal', (_name, make) => {
  it('shuts down when the signal aborts, waking a waiting worker', async () => {
    const stop = new AbortController();
    const q = make(stop.signal, new FakeClock(0));
    q.add('a');
    expect(await q.get()).toEqual(['a', false]);
    const waiting = q.get();
    expect(q.shuttingDown()).toBe(false);
    stop.abort();
    expect(q.shuttingDown()).toBe(true);
    expect(await waiting).toEqual([undefined, true]);
    q.add('b');
    expect(q.len()).toBe(0);
  });

  it('starts shut down when the signal has already aborted', async () => {
    const q = make(AbortSignal.abort(), new FakeClock(0));
    expect(q.shuttingDown()).toBe(true);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it('forgets the signal once shut down another way', () => {
    const stop = new AbortController();
    let listeners = 0;
    const add = stop.signal.addEventListener.bind(stop.signal);
    const remove = stop.signal.removeEventListener.bind(stop.signal);
    stop.signal.addEventListener = (...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    };
    stop.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    };
    const q = make(stop.signal, new FakeClock(0));
    expect(listeners).toBe(1);
    q.shutDown();
    expect(listeners).toBe(0);
  });
});

it('stops a delaying queue’s timer when the signal aborts', () => {
  const clock = new FakeClock(0);
  const stop = new AbortController();
  const q = newDelayingQueue<string>({ clock, signal: stop.signal });
  q.addAfter('later', 1000);
  expect(clock.hasWaiters()).toBe(true);
  stop.abort();
  expect(clock.hasWaiters()).toBe(false);
});
