import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from '../src/index.js';
import type { RateLimiter } from '../src/index.js';

const ms = 1;
const second = 1000 * ms;
const minute = 60 * second;
const hour = 60 * minute;

function whenN<T>(limiter: RateLimiter<T>, item: T, n: number): number[] {
  return Array.from({ length: n }, () => limiter.when(item));
}

describe('ItemExponentialFailureRateLimiter', () => {
  it('TestItemExponentialFailureRateLimiter: doubles per item, and Forget starts over', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, 1 * second);
    expect(whenN(limiter, 'one', 5)).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues('one')).toBe(5);

    expect(whenN(limiter, 'two', 2)).toEqual([1, 2]);
    expect(limiter.numRequeues('two')).toBe(2);

    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(1);
    expect(limiter.numRequeues('two')).toBe(2);
  });

  it('TestItemExponentialFailureRateLimiterOverFlow: caps at max, and survives overflow', () => {
    let limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, 1000 * second);
    whenN(limiter, 'one', 5);
    expect(limiter.when('one')).toBe(32 * ms);

    whenN(limiter, 'overflow1', 1000);
    expect(limiter.when('overflow1')).toBe(1000 * second);

    limiter = new ItemExponentialFailureRateLimiter<string>(1 * minute, 1000 * hour);
    whenN(limiter, 'two', 2);
    expect(limiter.when('two')).toBe(4 * minute);

    whenN(limiter, 'overflow2', 1000);
    expect(limiter.when('overflow2')).toBe(1000 * hour);
  });

  it('returns max once the backoff exceeds max, never more', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, 1000 * second);
    const waits = whenN(limiter, 'x', 1100);
    // 2^19 ms = 524s is the last value below 1000s.
    expect(waits[19]).toBe(524_288);
    expect(waits[20]).toBe(1000 * second);
    expect(Math.max(...waits)).toBe(1000 * second);
    expect(waits.every((w) => Number.isFinite(w))).toBe(true);
  });

  it('returns max when the backoff overflows Go int64 nanoseconds even if max is larger', () => {
    // 2^63 ns is about 9.2e12 ms; a max beyond that is never reached by doubling.
    const huge = 1e15;
    const limiter = new ItemExponentialFailureRateLimiter<string>(1 * ms, huge);
    const waits = whenN(limiter, 'x', 50);
    expect(waits[43]).toBe(2 ** 43);
    expect(waits[44]).toBe(huge);
  });

  it('is the default item-based limiter, from 1ms to 1000s', () => {
    const limiter = defaultItemBasedRateLimiter<string>();
    expect(limiter).toBeInstanceOf(ItemExponentialFailureRateLimiter);
    expect(whenN(limiter, 'x', 3)).toEqual([1, 2, 4]);
    whenN(limiter, 'x', 1000);
    expect(limiter.when('x')).toBe(1000 * second);
  });

  it('stays at zero with a zero base, however many failures', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(0, 1000);
    expect(new Set(whenN(limiter, 'one', 1100))).toEqual(new Set([0]));
  });

  it('rejects a negative or NaN delay', () => {
    expect(() => new ItemExponentialFailureRateLimiter(-1, 10)).toThrow(RangeError);
    expect(() => new ItemExponentialFailureRateLimiter(1, NaN)).toThrow(RangeError);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('TestItemFastSlowRateLimiter: fast up to maxFast, slow after, per item', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5 * ms, 10 * second, 3);
    expect(whenN(limiter, 'one', 5)).toEqual([5, 5, 5, 10_000, 10_000]);
    expect(limiter.numRequeues('one')).toBe(5);

    expect(whenN(limiter, 'two', 2)).toEqual([5, 5]);
    expect(limiter.numRequeues('two')).toBe(2);

    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });

  it('is always slow when maxFast is 0', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 100, 0);
    expect(whenN(limiter, 'x', 2)).toEqual([100, 100]);
  });
});

describe('MaxOfRateLimiter', () => {
  it('TestMaxOfRateLimiter: the longest of fast/slow and exponential', () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter(5 * ms, 3 * second, 3),
      new ItemExponentialFailureRateLimiter(1 * ms, 1 * second),
    );
    expect(whenN(limiter, 'one', 5)).toEqual([5, 5, 5, 3000, 3000]);
    expect(limiter.numRequeues('one')).toBe(5);

    expect(whenN(limiter, 'two', 2)).toEqual([5, 5]);
    expect(limiter.numRequeues('two')).toBe(2);

    limiter.forget('one');
    expect(limiter.numRequeues('one')).toBe(0);
    expect(limiter.when('one')).toBe(5);
  });

  it('records the failure in every limiter, whichever wins', () => {
    const a = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    const b = new ItemFastSlowRateLimiter<string>(1, 1, 0);
    const limiter = new MaxOfRateLimiter(a, b);
    expect(whenN(limiter, 'x', 4)).toEqual([1, 2, 4, 8]);
    expect(a.numRequeues('x')).toBe(4);
    expect(b.numRequeues('x')).toBe(4);
    a.forget('x');
    // NumRequeues is the maximum over the limiters.
    expect(limiter.numRequeues('x')).toBe(4);
    limiter.forget('x');
    expect(b.numRequeues('x')).toBe(0);
  });

  it('waits 0 with no limiters', () => {
    const limiter = new MaxOfRateLimiter<string>();
    expect(limiter.when('x')).toBe(0);
    expect(limiter.numRequeues('x')).toBe(0);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  it('TestWithMaxWaitRateLimiter: the default controller limiter, capped at 500s', () => {
    const clock = new FakeClock();
    const limiter = new WithMaxWaitRateLimiter<number>(
      defaultControllerRateLimiter(clock),
      500 * second,
    );
    for (let i = 0; i < 100; i++) expect(limiter.when(i)).toBe(5 * ms);
    for (let i = 100; i < 5100; i++) {
      const wait = limiter.when(i);
      expect(wait).toBeLessThanOrEqual(500 * second);
      expect(wait).toBeGreaterThan(5 * ms);
    }
    for (let i = 5100; i < 5200; i++) expect(limiter.when(i)).toBe(500 * second);
  });

  it('delegates Forget and NumRequeues', () => {
    const inner = new ItemExponentialFailureRateLimiter<string>(10, 10_000);
    const limiter = new WithMaxWaitRateLimiter(inner, 30);
    expect(whenN(limiter, 'x', 4)).toEqual([10, 20, 30, 30]);
    expect(limiter.numRequeues('x')).toBe(4);
    limiter.forget('x');
    expect(inner.numRequeues('x')).toBe(0);
    expect(limiter.when('x')).toBe(10);
  });
});

describe('BucketRateLimiter', () => {
  it('allows a burst of 100 at once, then one per 100ms at 10 qps', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 100, clock });
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(0);
    expect(limiter.when('101st')).toBe(100);
    expect(limiter.when('102nd')).toBe(200);
    expect(limiter.when('103rd')).toBe(300);
    expect(limiter.numRequeues('101st')).toBe(0);
    limiter.forget('101st');
    expect(limiter.when('104th')).toBe(400);
  });

  it('returns whole nanoseconds, as Go durations do', () => {
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 100, clock: new FakeClock() });
    // x/time/rate computes (tokens / limit) * 1e9 in float64 and truncates to
    // an integer Duration: 41 tokens owed at 10 qps is 4.099999999s, not 4.1s.
    const waits = whenN(limiter, 'x', 400);
    expect(waits.slice(100, 103)).toEqual([100, 200, 300]);
    expect(waits[140]).toBe(4099.999999);
    for (const wait of waits) {
      const ns = wait * 1e6;
      expect(Math.abs(ns - Math.round(ns))).toBeLessThan(1e-3);
    }
  });

  it('refills at qps tokens per second up to the burst', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ qps: 10, burst: 5, clock });
    expect(whenN(limiter, 'x', 7)).toEqual([0, 0, 0, 0, 0, 100, 200]);
    // 7 tokens taken from 5: 2 owed. A second brings 10 more, capped at the burst of 5.
    clock.step(1000);
    expect(limiter.when('x')).toBe(0);
    // Waiting far longer refills only up to the burst.
    clock.step(60_000);
    expect(whenN(limiter, 'x', 6)).toEqual([0, 0, 0, 0, 0, 100]);
    // 1 token owed; 150ms brings 1.5 back, so the next take owes half a token: 50ms.
    clock.step(150);
    expect(limiter.when('x')).toBeCloseTo(50, 9);
  });

  it('starts full and measures refill from its clock', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>({ qps: 1, burst: 1, clock });
    expect(limiter.when('x')).toBe(0);
    expect(limiter.when('x')).toBe(1000);
    clock.step(2000);
    // The debt of one token is paid, and one more token came back.
    expect(limiter.when('x')).toBe(0);
    expect(limiter.when('x')).toBe(1000);
  });

  it('treats a clock that went backwards as no time elapsed', () => {
    const clock = new FakeClock(10_000);
    const limiter = new BucketRateLimiter<string>({ qps: 1, burst: 1, clock });
    expect(limiter.when('x')).toBe(0);
    clock.setTime(5_000);
    expect(limiter.when('x')).toBe(1000);
    clock.step(1000);
    expect(limiter.when('x')).toBe(1000);
  });

  it('never waits with an infinite rate', () => {
    const limiter = new BucketRateLimiter<string>({ qps: Infinity, burst: 1 });
    expect(whenN(limiter, 'x', 10).every((w) => w === 0)).toBe(true);
  });

  it('rejects a rate or burst that makes no sense', () => {
    expect(() => new BucketRateLimiter({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new BucketRateLimiter({ qps: 1, burst: 0 })).toThrow(RangeError);
    expect(() => new BucketRateLimiter({ qps: 1, burst: 1.5 })).toThrow(RangeError);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is the max of exponential 5ms..1000s and a 10 qps, burst 100 bucket', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect(whenN(limiter, 'x', 4)).toEqual([5, 10, 20, 40]);
    expect(limiter.numRequeues('x')).toBe(4);
    // 96 more distinct items use up the burst...
    for (let i = 0; i < 96; i++) expect(limiter.when(`item-${i}`)).toBe(5);
    // ...and then the bucket is the slower one.
    expect(limiter.when('fresh')).toBe(100);
    limiter.forget('x');
    expect(limiter.numRequeues('x')).toBe(0);
    // Exponential caps at 1000s.
    for (let i = 0; i < 1000; i++) limiter.when('y');
    clock.step(10 * hour);
    expect(limiter.when('y')).toBe(1000 * second);
  });
});
