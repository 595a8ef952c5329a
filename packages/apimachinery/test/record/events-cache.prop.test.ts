// Properties of the correlator's building blocks: the spam filter's token
// bucket (flowcontrol's tokenBucketPassiveRateLimiter) and the LRU cache
// (k8s.io/utils/lru), each against a plain model.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FakeClock } from '../../src/index.js';
import { LruCache } from '../../src/record/lru-cache.js';
import { TokenBucketPassiveRateLimiter } from '../../src/record/token-bucket-rate-limiter.js';

describe('the token bucket', () => {
  it('never allows more than burst plus what has refilled, and allows a call whenever a token is due', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.integer({ min: 0, max: 120_000 }), { maxLength: 200 }),
        (burst, secondsPerToken, gaps) => {
          const clock = new FakeClock(0);
          const limiter = new TokenBucketPassiveRateLimiter(1 / secondsPerToken, burst, clock);
          let allowed = 0;
          // The model: tokens refill continuously from the last granted call.
          let tokens = burst;
          let last = 0;
          for (const gap of gaps) {
            clock.step(gap);
            const available = Math.min(
              burst,
              tokens + (clock.now() - last) / 1000 / secondsPerToken,
            );
            const ok = limiter.tryAccept();
            expect(ok).toBe(available >= 1 - 1e-9);
            if (ok) {
              allowed++;
              tokens = available - 1;
              last = clock.now();
            }
            expect(allowed).toBeLessThanOrEqual(
              burst + clock.now() / 1000 / secondsPerToken + 1e-9,
            );
          }
        },
      ),
    );
  });
});

describe('the LRU cache', () => {
  it('holds the most recently used keys, up to its size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 12 })), { maxLength: 100 }),
        (size, ops) => {
          const cache = new LruCache<number, number>(size);
          // The model: keys from least to most recently used.
          const order: number[] = [];
          const values = new Map<number, number>();
          const touch = (k: number) => {
            const i = order.indexOf(k);
            if (i >= 0) order.splice(i, 1);
            order.push(k);
          };
          ops.forEach(([isAdd, key], step) => {
            if (isAdd) {
              cache.add(key, step);
              values.set(key, step);
              touch(key);
              if (order.length > size) values.delete(order.shift()!);
            } else {
              const want = values.get(key);
              expect(cache.get(key)).toBe(want);
              if (want !== undefined) touch(key);
            }
            expect(cache.len()).toBe(order.length);
          });
        },
      ),
    );
  });
});
