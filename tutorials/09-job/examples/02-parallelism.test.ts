import { expect, it } from 'vitest';
import { run } from './02-parallelism.js';

it('keeps min(parallelism, completions − succeeded) pods running, and starts slowly when creations fail', async () => {
  const lines: string[] = [];
  const result = await run((line) => lines.push(line));

  // Never more active pods than parallelism, nor than the completions missing.
  for (const r of result.rows.filter((r) => !r.specOnly)) {
    expect(r.active).toBeLessThanOrEqual(r.parallelism);
    expect(r.active).toBeLessThanOrEqual(8 - r.succeeded);
  }
  // Both targets were reached: 4 at once after the first patch, 1 after the second.
  expect(Math.max(...result.rows.map((r) => r.active))).toBe(4);
  expect(
    result.rows.filter((r) => r.parallelism === 1 && !r.specOnly).every((r) => r.active <= 1),
  ).toBe(true);
  // The 3 pods deleted for the lower parallelism are not failures.
  expect(result.deletedForParallelism).toBe(3);
  expect(result.job.status).toMatchObject({ succeeded: 8 });
  expect(result.job.status?.failed ?? 0).toBe(0);
  expect(result.created).toBe(11);

  // Slow start: one create per sync while they fail, the syncs retried
  // after 1, 2, 4 and 8 s (the queue's backoff), not ten creates each.
  expect(result.failedRequests).toBe(5);
  expect(result.slowStart.map((e) => e.slice(0, 8))).toEqual([
    't=  0.0s',
    't=  1.0s',
    't=  3.0s',
    't=  7.0s',
    't= 15.0s',
  ]);
  // The retry after the fault creates all ten.
  expect(result.recovered).toEqual({ t: 31_000, pods: 10 });

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-parallelism.txt');
});
