import { describe, expect, it } from 'vitest';
import { parallelizeUntil } from '../src/index.js';
import { flush } from './helpers.js';

describe('TestParallelizeUntil', () => {
  it.each([
    { pieces: 1000, workers: 1, chunkSize: 1 },
    { pieces: 1000, workers: 10, chunkSize: 1 },
    { pieces: 1000, workers: 10, chunkSize: 10 },
    { pieces: 1000, workers: 10, chunkSize: 100 },
    { pieces: 999, workers: 10, chunkSize: 13 },
  ])('visits each of $pieces pieces exactly once with chunk size $chunkSize', async (c) => {
    const seen = new Array<number>(c.pieces).fill(0);
    await parallelizeUntil(
      undefined,
      c.workers,
      c.pieces,
      (piece) => {
        seen[piece]!++;
      },
      { chunkSize: c.chunkSize },
    );
    expect(seen.every((n) => n === 1)).toBe(true);
  });

  it('visits every piece exactly once with async pieces and a chunk size of 13', async () => {
    const seen = new Array<number>(999).fill(0);
    await parallelizeUntil(
      undefined,
      7,
      999,
      async (piece) => {
        if (piece % 3 === 0) await flush();
        seen[piece]!++;
      },
      { chunkSize: 13 },
    );
    expect(seen.every((n) => n === 1)).toBe(true);
  });

  it('treats a chunk size below 1 as 1', async () => {
    const seen: number[] = [];
    await parallelizeUntil(undefined, 3, 10, (piece) => void seen.push(piece), { chunkSize: 0 });
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
  });

  it('treats a chunk size that is not a number as 1', async () => {
    const seen: number[] = [];
    await parallelizeUntil(undefined, 2, 5, (piece) => void seen.push(piece), { chunkSize: NaN });
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
  });

  it('never runs more than `workers` pieces at once, and uses that many', async () => {
    let running = 0;
    let peak = 0;
    await parallelizeUntil(undefined, 4, 100, async () => {
      running++;
      peak = Math.max(peak, running);
      await flush();
      running--;
    });
    expect(peak).toBe(4);
  });

  it('uses no more workers than chunks', async () => {
    let running = 0;
    let peak = 0;
    await parallelizeUntil(
      undefined,
      16,
      10,
      async () => {
        running++;
        peak = Math.max(peak, running);
        await flush();
        running--;
      },
      { chunkSize: 5 },
    );
    expect(peak).toBe(2);
  });

  it('runs the pieces of a chunk in order on one worker', async () => {
    const order: number[] = [];
    await parallelizeUntil(undefined, 1, 7, (piece) => void order.push(piece), { chunkSize: 3 });
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('starts no new piece once the signal aborts', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await parallelizeUntil(controller.signal, 2, 100, async (piece) => {
      seen.push(piece);
      if (seen.length === 10) controller.abort();
      await flush();
    });
    // Pieces already running finish, but none starts after the abort.
    expect(seen).toHaveLength(10);
  });

  it('does nothing with an already-aborted signal', async () => {
    let calls = 0;
    await parallelizeUntil(AbortSignal.abort(), 4, 100, () => void calls++);
    expect(calls).toBe(0);
  });

  it('does nothing for zero pieces or no workers', async () => {
    let calls = 0;
    const work = () => void calls++;
    await parallelizeUntil(undefined, 4, 0, work);
    await parallelizeUntil(undefined, 0, 10, work);
    await parallelizeUntil(undefined, -1, 10, work);
    expect(calls).toBe(0);
  });

  it('stops starting pieces after an error, and rethrows the first one', async () => {
    const seen: number[] = [];
    const boom = new Error('piece 5 failed');
    const run = parallelizeUntil(undefined, 3, 1000, async (piece) => {
      seen.push(piece);
      await flush();
      if (piece === 5) throw boom;
      if (piece === 6) throw new Error('second failure');
    });
    await expect(run).rejects.toBe(boom);
    expect(seen.length).toBeLessThan(20);
  });

  it('rethrows an error thrown synchronously by a piece', async () => {
    let calls = 0;
    const run = parallelizeUntil(undefined, 1, 100, (piece) => {
      calls++;
      if (piece === 3) throw new TypeError('sync');
    });
    await expect(run).rejects.toThrow(TypeError);
    expect(calls).toBe(4);
  });

  it('waits for pieces already running before rethrowing', async () => {
    let finished = 0;
    const run = parallelizeUntil(undefined, 2, 2, async (piece) => {
      if (piece === 0) throw new Error('fast failure');
      await flush();
      await flush();
      finished++;
    });
    await expect(run).rejects.toThrow('fast failure');
    expect(finished).toBe(1);
  });
});
