import { expect, it } from 'vitest';
import { run } from './03-tracker.js';

it('ignores its own writes, and refuses to sync from a cache that lags behind them', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // Its own write came back through the informer and caused no sync.
  expect(r.syncsFromOwnWrites).toBe(0);
  // With the slice missing from its cache, every sync is refused as stale,
  // and the retries back off (1 s, then longer) ...
  expect(r.staleResults.length).toBeGreaterThanOrEqual(2);
  expect(r.staleResults.every((s) => s === 'stale')).toBe(true);
  const gaps = r.staleTimes.slice(1).map((t, i) => t - r.staleTimes[i]!);
  expect(Math.max(...gaps)).toBeLessThanOrEqual(1000);
  // ... and no second slice was created for the same pods.
  expect(r.slices).toBe(1);
  expect(r.endpoints).toEqual(['web-001', 'web-003']);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-tracker.txt');
});
