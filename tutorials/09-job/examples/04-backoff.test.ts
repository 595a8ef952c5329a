import { expect, it } from 'vitest';
import { backoffAfter, failedAtLimit, run } from './04-backoff.js';
import { renderTimeline } from './timeline.js';

it('waits 10 s, 20 s, 40 s before replacements, and fails at backoffLimit', async () => {
  const lines: string[] = [];
  const trace = await run((line) => lines.push(line));

  // The formula: 10 s doubled per failure after the first, capped at 10 min.
  expect([1, 2, 3, 4, 7, 8, 20].map(backoffAfter)).toEqual([
    10_000, 20_000, 40_000, 80_000, 600_000, 600_000, 600_000,
  ]);
  // Measured: every replacement waited exactly its backoff after the last failure.
  expect(trace.waits.map((w) => `${w.job} ${w.failures} ${w.pods}`)).toEqual([
    'flaky 1 1',
    'flaky 2 1',
    'flaky 3 3',
    'broken 1 1',
    'broken 2 1',
    'broken 3 1',
  ]);
  for (const w of trace.waits) expect(w.waited).toBe(backoffAfter(w.failures));
  expect(trace.waits.filter((w) => w.job === 'broken').map((w) => w.failures)).toEqual([1, 2, 3]);

  // broken: backoffLimit 3, so the fourth failure fails it.
  expect(failedAtLimit(trace.broken)).toBe(true);
  expect(trace.broken.status?.failed).toBe(4);
  expect(trace.pods.filter((p) => p.job === 'broken')).toHaveLength(4);
  // flaky: three failures, then five successes once fixed, three at a time.
  expect(trace.flaky.status).toMatchObject({ succeeded: 5, failed: 3 });
  const successes = trace.pods.filter((p) => p.job === 'flaky' && p.phase === 'Succeeded');
  const firstWave = successes.filter((p) => p.created === successes[0]!.created);
  expect(firstWave).toHaveLength(3);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-backoff.txt');
  // The chapter's picture is drawn from this very run.
  await expect(renderTimeline(trace)).toMatchFileSnapshot('../backoff-timeline.svg');
});
