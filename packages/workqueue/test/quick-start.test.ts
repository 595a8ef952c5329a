import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { defaultControllerRateLimiter, newQueue, newRateLimitingQueue } from '../src/index.js';

describe('quick start', () => {
  it('hands each key to one worker, once', async () => {
    //#region queue-basics
    const queue = newQueue<string>();
    queue.add('default/web');
    queue.add('default/web'); // a duplicate: still one entry
    queue.add('default/db');

    const [key, shutdown] = await queue.get(); // 'default/web'
    if (!shutdown) {
      // ... reconcile the object behind `key` ...
      queue.done(key);
    }
    //#endregion queue-basics
    expect(key).toBe('default/web');
    expect(queue.len()).toBe(1);
    queue.shutDown();
  });

  it('retries a failing key with backoff', async () => {
    const clock = new FakeClock();
    //#region retry-with-backoff
    const queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
      name: 'quick-start',
      clock,
    });
    queue.add('default/web');
    const [key] = await queue.get();
    if (key !== undefined) {
      queue.addRateLimited(key); // failed: try again in 5ms, then 10ms, 20ms, ...
      queue.done(key);
    }
    //#endregion retry-with-backoff
    expect(queue.len()).toBe(0);
    await clock.advance(5);
    expect(queue.len()).toBe(1);
    expect(queue.numRequeues('default/web')).toBe(1);
    queue.shutDown();
  });
});
