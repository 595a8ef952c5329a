// Port of replica_set_test.go's TestSlowStartBatch, plus the batch shapes.
import { describe, expect, it } from 'vitest';
import { slowStartBatch, slowStartInitialBatchSize } from '../src/index.js';

/** A call that succeeds or fails as `fails(callNumber)` says, recording batches. */
function recorder(fails: (call: number) => boolean) {
  let calls = 0;
  let inFlight = 0;
  const batches: number[] = [];
  let current = 0;
  const fn = async (): Promise<void> => {
    const n = ++calls;
    inFlight++;
    current++;
    await Promise.resolve();
    // Every call of a batch has started before any of them finishes.
    if (inFlight === current) batches.push(current);
    inFlight--;
    if (inFlight === 0) current = 0;
    if (fails(n)) throw new Error(`call ${n} failed`);
  };
  return { fn, calls: () => calls, batches };
}

describe('slowStartBatch', () => {
  it('uses 1 as the first batch', () => {
    expect(slowStartInitialBatchSize).toBe(1);
  });

  it.each([
    // name, count, first failing call, successes, calls made
    ['callback function succeeds', 10, Infinity, 10, 10],
    ['callback function fails', 10, 1, 0, 1],
    ['callback function fails after 6 calls', 10, 6, 5, 7],
    ['nothing to do', 0, 1, 0, 0],
  ])('%s', async (_name, count, failFrom, wantSuccesses, wantCalls) => {
    const r = recorder((n) => n >= failFrom);
    const { successes, error } = await slowStartBatch(count, slowStartInitialBatchSize, r.fn);
    expect(successes).toBe(wantSuccesses);
    expect(r.calls()).toBe(wantCalls);
    if (failFrom <= wantCalls) expect(error).toBeInstanceOf(Error);
    else expect(error).toBeUndefined();
  });

  it('doubles the batch while calls succeed, never past what remains', async () => {
    const r = recorder(() => false);
    await slowStartBatch(20, 1, r.fn);
    expect(r.batches).toEqual([1, 2, 4, 8, 5]);
    const r2 = recorder(() => false);
    await slowStartBatch(7, 3, r2.fn);
    expect(r2.batches).toEqual([3, 4]);
  });

  it('finishes the failing batch and returns the first failure to arrive', async () => {
    const order: string[] = [];
    let n = 0;
    const { successes, error } = await slowStartBatch(3, 1, async () => {
      const call = ++n;
      // Calls 2 and 3 form one batch; 3 fails first, 2 later.
      if (call === 2) {
        await new Promise((r) => setImmediate(r));
        order.push('2 done');
        throw new Error('late failure');
      }
      if (call === 3) {
        order.push('3 done');
        throw new Error('early failure');
      }
    });
    expect(successes).toBe(1);
    expect((error as Error).message).toBe('early failure');
    expect(order).toEqual(['3 done', '2 done']);
  });

  it('counts a synchronous throw or a non-Error rejection as a failure', async () => {
    const sync = await slowStartBatch(2, 1, () => {
      throw new Error('sync');
    });
    expect(sync).toEqual({ successes: 0, error: new Error('sync') });
    // A caller that rejects with a string, which the rule below exists to prevent.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const odd = await slowStartBatch(1, 1, () => Promise.reject('nope'));
    expect(odd.successes).toBe(0);
    expect(odd.error?.message).toMatch(/nope/);
  });

  it('refuses a bad count or first batch size, calling nothing', async () => {
    const r = recorder(() => false);
    await expect(slowStartBatch(-1, 1, r.fn)).rejects.toThrow(/count must be an integer >= 0/);
    await expect(slowStartBatch(2.5, 1, r.fn)).rejects.toThrow(RangeError);
    await expect(slowStartBatch(3, 0, r.fn)).rejects.toThrow(
      /initialBatchSize must be an integer >= 1/,
    );
    expect(r.calls()).toBe(0);
  });
});
