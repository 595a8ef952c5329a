import { expect, it } from 'vitest';
import { run, type JobLife } from './09-cronjob.js';

const minute = 60_000;
const names = (lives: JobLife[], cronJob: string) =>
  lives.filter((l) => l.cronJob === cronJob).map((l) => l.name.slice(cronJob.length + 1));
const first = 29453761; // 2026-01-01T00:01:00Z in minutes since the epoch

it('creates one Job per scheduled minute, as concurrencyPolicy and startingDeadlineSeconds say', async () => {
  const lines: string[] = [];
  const { policies, outage, down, events } = await run((line) => lines.push(line));

  // Each Job is named after its minute and created 100 ms after it: the
  // controller's queue wakes it at the next scheduled time plus nextScheduleDelta.
  for (const l of policies.filter((x) => x.cronJob === 'allow' || x.cronJob === 'replace')) {
    const minutes = Number(l.name.split('-').at(-1));
    expect(l.created).toBe((minutes - first + 1) * minute + 100);
  }
  // Allow: one Job a minute, overlapping.
  expect(names(policies, 'allow')).toEqual([
    '29453761',
    '29453762',
    '29453763',
    '29453764',
    '29453765',
  ]);
  const allow = policies.filter((l) => l.cronJob === 'allow');
  expect(allow[1]!.created).toBeLessThan(allow[0]!.completed!);
  // Forbid: never two at once; a time missed while one ran starts late when it ends,
  // and a time missed twice is lost (00:03).
  expect(names(policies, 'forbid')).toEqual(['29453761', '29453762', '29453764']);
  const forbid = policies.filter((l) => l.cronJob === 'forbid');
  for (let i = 1; i < forbid.length; i++) expect(forbid[i]!.created).toBe(forbid[i - 1]!.completed);
  expect(
    events.filter((e) => e.includes('forbid  Normal JobAlreadyActive')).length,
  ).toBeGreaterThanOrEqual(3);
  // Replace: each new Job deletes the one still running.
  const replace = policies.filter((l) => l.cronJob === 'replace');
  expect(replace).toHaveLength(5);
  for (let i = 0; i < 4; i++) expect(replace[i]!.deleted).toBe(replace[i + 1]!.created);
  // Time zone: 05:31 in Kolkata is 00:01 UTC, and the annotation says so.
  expect(policies.find((l) => l.cronJob === 'kolkata')).toMatchObject({
    name: `kolkata-${first}`,
    scheduledTimestamp: '2026-01-01T05:31:00+05:30',
  });

  // The outage: 00:02, 00:03 and 00:04 were missed. Without a deadline, one
  // Job for 00:04 as soon as the manager is back; with startingDeadlineSeconds
  // 30, 00:04 is 40 s too old, and nothing runs until 00:05.
  expect(names(outage, 'late')).toEqual(['29453761', '29453764', '29453765']);
  expect(outage.find((l) => l.name === 'late-29453764')!.created).toBe(down.to + 100);
  expect(names(outage, 'strict')).toEqual(['29453761', '29453765']);
  // Upstream's MissSchedule event never comes (kubernetes#111223).
  expect(events.some((e) => e.includes('MissSchedule'))).toBe(false);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/09-cronjob.txt');
});
