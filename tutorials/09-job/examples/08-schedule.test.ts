import { expect, it } from 'vitest';
import { run } from './08-schedule.js';

const at = (iso: string) => Date.parse(iso);

it('computes robfig/cron next times, the most recent missed time and the Job name', async () => {
  const lines: string[] = [];
  const { next, recent, jobName, scheduledAnnotation } = run((line) => lines.push(line));
  const times = (spec: string) => next.find((r) => r.spec === spec)!.next;

  // Ranges with steps: 06:30, 10:30, 14:30 on weekdays; Friday evening → Monday.
  expect(times('30 6-16/4 * * 1-5')).toEqual([
    at('2026-03-09T06:30:00Z'),
    at('2026-03-09T10:30:00Z'),
    at('2026-03-09T14:30:00Z'),
  ]);
  // Day of month and day of week both restricted: either one matches.
  expect(times('0 0 13 * 5').map((t) => new Date(t!).getUTCDate())).toEqual([13, 20, 27]);
  expect(times('0 0 29 2 *')).toEqual([
    at('2028-02-29T00:00:00Z'),
    at('2032-02-29T00:00:00Z'),
    at('2036-02-29T00:00:00Z'),
  ]);
  // 09:00 in New York is 14:00 UTC, then 13:00 UTC once daylight saving starts (8 March 2026).
  expect(times('0 9 * * *')).toEqual([
    at('2026-03-07T14:00:00Z'),
    at('2026-03-08T13:00:00Z'),
    at('2026-03-09T13:00:00Z'),
  ]);
  // 02:30 does not exist in New York on 8 March 2026: that day is skipped.
  expect(times('30 2 * * *')).toEqual([
    at('2026-03-07T07:30:00Z'),
    at('2026-03-09T06:30:00Z'),
    at('2026-03-10T06:30:00Z'),
  ]);
  // @every counts from the time given, to the second.
  expect(times('@every 90m')[0]).toBe(at('2026-03-07T01:29:30Z'));
  expect(times('59 23 31 2 *')).toEqual([undefined]);

  // Missed times: only the most recent is started; over 100 missed is "many";
  // a starting deadline narrows the search; the requeue is the next minute + 100 ms.
  expect(recent.map((r) => [r.what, r.mostRecentTime, r.missed, r.requeueAfter])).toEqual([
    ['30 s later', undefined, 'none', 30_100],
    ['2.5 min later', at('2026-01-01T00:07:00Z'), 'few', 30_100],
    ['3 h later', at('2026-01-01T03:05:00Z'), 'many', 30_100],
    ['3 h later, deadline 200 s', at('2026-01-01T03:05:00Z'), 'few', 30_100],
  ]);

  expect(jobName).toBe(`hello-${at('2026-01-01T00:06:00Z') / 60_000}`);
  expect(scheduledAnnotation).toBe('2026-01-01T05:36:00+05:30');

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/08-schedule.txt');
});
