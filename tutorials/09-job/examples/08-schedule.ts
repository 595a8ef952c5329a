// Chapter 9, eighth experiment: the CronJob controller's schedule math, as
// pure functions. First robfig/cron's `next` for a few schedules (steps,
// ranges, the day-of-month OR day-of-week rule, leap days, time zones across
// a daylight saving change, @every, a schedule that never comes); then the
// controller's question, "which scheduled time should have started by
// now?", after a short and a long outage, with and without
// startingDeadlineSeconds; then the name and annotation of the Job it makes.
// Run: npm run schedule -w tutorials/09-job
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import { parseStandard } from '@kcm-ts/apimachinery';
import {
  getJobFromTemplate2,
  mostRecentScheduleTime,
  nextScheduleTimeDuration,
} from '@kcm-ts/cronjob';

/** One row of the first table. */
export interface NextRow {
  spec: string;
  timeZone: string;
  after: number;
  next: (number | undefined)[];
}

/** One row of the second table. */
export interface RecentRow {
  what: string;
  now: number;
  startingDeadlineSeconds: number | undefined;
  mostRecentTime: number | undefined;
  missed: string;
  requeueAfter: number | undefined;
}

/** What the experiment computed, for its test. */
export interface Schedules {
  next: NextRow[];
  recent: RecentRow[];
  jobName: string;
  scheduledAnnotation: string | undefined;
}

const iso = (ms: number | undefined): string =>
  ms === undefined ? 'none within 5 years' : new Date(ms).toISOString().replace('.000Z', 'Z');

/** The next `n` activations of `spec` after `after`, read in `timeZone`. */
export function nextTimes(
  spec: string,
  after: number,
  n = 3,
  timeZone = 'UTC',
): (number | undefined)[] {
  //#region next
  const schedule = parseStandard(spec);
  const times: (number | undefined)[] = [];
  let t: number | undefined = after;
  while (times.length < n && t !== undefined) {
    t = schedule.next(t, timeZone);
    times.push(t);
  }
  //#endregion next
  return times;
}

/** A CronJob `hello` running every minute, created at `created`. */
export function hello(
  created: number,
  opts: { last?: number; deadline?: number; timeZone?: string } = {},
): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: 'hello',
      namespace: 'default',
      uid: '6b0c2d1e-0000-4000-8000-000000000001',
      creationTimestamp: new Date(created).toISOString(),
    },
    spec: {
      schedule: '*/1 * * * *',
      ...(opts.deadline !== undefined && { startingDeadlineSeconds: opts.deadline }),
      ...(opts.timeZone !== undefined && { timeZone: opts.timeZone }),
      jobTemplate: { spec: { template: { spec: { containers: [] } } } },
    },
    status: opts.last !== undefined ? { lastScheduleTime: new Date(opts.last).toISOString() } : {},
  };
}

/** Computes both tables and the Job name, printing them. */
export function run(print: (line: string) => void = console.log): Schedules {
  const log = (line: string) => print(line.trimEnd());
  const after = Date.parse('2026-03-06T23:59:30Z');
  const rows: [string, string][] = [
    ['*/15 * * * *', 'UTC'],
    ['30 6-16/4 * * 1-5', 'UTC'],
    ['0 0 13 * 5', 'UTC'],
    ['0 0 29 2 *', 'UTC'],
    ['0 9 * * *', 'America/New_York'],
    ['30 2 * * *', 'America/New_York'],
    ['@every 90m', 'UTC'],
    ['59 23 31 2 *', 'UTC'],
  ];
  log(`the next three times after ${iso(after)} (a Friday):`);
  const next: NextRow[] = [];
  for (const [spec, timeZone] of rows) {
    const times = nextTimes(spec, after, 3, timeZone);
    next.push({ spec, timeZone, after, next: times });
    log(`${spec.padEnd(18)} ${timeZone.padEnd(17)} ${times.map(iso).join('  ')}`);
  }

  log('');
  log('CronJob hello, */1 * * * *, created 00:00:10, last Job at 00:05:00:');
  const created = Date.parse('2026-01-01T00:00:10Z');
  const last = Date.parse('2026-01-01T00:05:00Z');
  const cases: [string, number, number | undefined][] = [
    ['30 s later', Date.parse('2026-01-01T00:05:30Z'), undefined],
    ['2.5 min later', Date.parse('2026-01-01T00:07:30Z'), undefined],
    ['3 h later', Date.parse('2026-01-01T03:05:30Z'), undefined],
    ['3 h later, deadline 200 s', Date.parse('2026-01-01T03:05:30Z'), 200],
  ];
  const recent: RecentRow[] = [];
  log('now                          startingDeadline  most recent time      missed  requeue after');
  for (const [what, now, deadline] of cases) {
    const cj = hello(created, { last, ...(deadline !== undefined && { deadline }) });
    //#region most-recent
    const schedule = parseStandard(cj.spec!.schedule);
    const found = mostRecentScheduleTime(cj, now, schedule, true);
    const requeueAfter = nextScheduleTimeDuration(cj, now, schedule);
    //#endregion most-recent
    recent.push({
      what,
      now,
      startingDeadlineSeconds: deadline,
      mostRecentTime: found.mostRecentTime,
      missed: found.missedSchedules,
      requeueAfter,
    });
    log(
      `${`${iso(now).slice(11)} (${what})`.padEnd(29)}${String(deadline ?? '-').padEnd(18)}${(found.mostRecentTime === undefined ? '-' : iso(found.mostRecentTime).slice(11)).padEnd(22)}${found.missedSchedules.padEnd(8)}${requeueAfter === undefined ? '-' : `${requeueAfter} ms`}`,
    );
  }

  log('');
  const scheduled = Date.parse('2026-01-01T00:06:00Z');
  const job = getJobFromTemplate2(hello(created, { timeZone: 'Asia/Kolkata' }), scheduled);
  const minutes = scheduled / 60_000;
  const scheduledAnnotation =
    job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'];
  log(`the Job for ${iso(scheduled)}: ${job.metadata?.name} (${minutes} minutes since the epoch)`);
  log(
    `  batch.kubernetes.io/cronjob-scheduled-timestamp: ${scheduledAnnotation} (timeZone Asia/Kolkata)`,
  );
  log(
    `  owner: ${job.metadata?.ownerReferences?.[0]?.kind} ${job.metadata?.ownerReferences?.[0]?.name}, controller: ${job.metadata?.ownerReferences?.[0]?.controller}`,
  );
  return { next, recent, jobName: job.metadata?.name ?? '', scheduledAnnotation };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run();
}
