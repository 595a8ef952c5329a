import { FakeClock } from '@kcm-ts/apimachinery';
import { expect, it } from 'vitest';
import { run } from './01-controller-loop.js';

async function runOnFakeClock() {
  const clock = new FakeClock();
  const lines: string[] = [];
  let finished = false;
  const done = run({ clock, log: (line) => lines.push(line) }).then(() => (finished = true));
  for (let ms = 0; !finished && ms < 1000; ms++) await clock.advance(1);
  await done;
  return { clock, lines };
}

it('reconciles every object, collapsing duplicates and retrying with backoff', async () => {
  const { clock, lines } = await runOnFakeClock();
  const log = lines.join('\n');

  // cache's duplicate collapses into the waiting key; web's event during processing means a second pass.
  expect(lines.filter((l) => l.includes('reconciling default/cache'))).toHaveLength(1);
  expect(lines.filter((l) => l.includes('reconciling default/web'))).toHaveLength(2);
  // db fails three times, with the per-item backoff doubling: 5ms, 10ms, 20ms.
  const dbStarts = lines
    .filter((l) => l.includes('reconciling default/db'))
    .map((l) => Number(l.trim().split('ms')[0]));
  expect(dbStarts).toHaveLength(4);
  const gaps = dbStarts.slice(1).map((t, i) => t - dbStarts[i]! - 2); // minus the 2ms of work
  expect(gaps).toEqual([5, 10, 20]);
  expect(log).toContain('all objects in sync');
  // Nothing left scheduled: the queue stopped its timers when it shut down.
  expect(clock.hasWaiters()).toBe(false);

  await expect(`${log}\n`).toMatchFileSnapshot('./__output__/01-controller-loop.txt');
});

it('stops promptly when its signal aborts', async () => {
  const clock = new FakeClock();
  const controller = new AbortController();
  const lines: string[] = [];
  const done = run({ clock, log: (line) => lines.push(line), signal: controller.signal });
  await clock.advance(3);
  controller.abort();
  await clock.advance(10);
  await done;
  expect(lines.at(-1)).toContain('queue drained and shut down');
  expect(lines.some((l) => l.includes('default/db is in sync'))).toBe(false);
});
