// A property test of the controller on the sandbox: random schedules (some
// in time zones off the hour), concurrency policies, starting deadlines and
// Job lengths, under random waits, clock jumps (the controller sees hours go
// by at once, as after a stall) and suspends. Whatever happens:
// - no two Jobs are ever created for one scheduled time;
// - every Job's name is `<cronjob>-<minute of its scheduled time>`, and its
//   scheduled-timestamp annotation is a time of the schedule (for @every, a
//   whole number of intervals after the creation), written in the CronJob's
//   zone;
// - Jobs are created in the order of their scheduled times, never before
//   their time, never before the CronJob existed, never later than the
//   starting deadline allows, and never while the CronJob is suspended;
// - with no starting deadline, the latest time of the schedule gets its Job
//   (unless the CronJob is suspended, or Forbid waits for a long Job);
// - lastScheduleTime is the latest scheduled time a Job was created for.
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import { parseStandard } from '@kcm-ts/apimachinery';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cronJobScheduledTimestampAnnotation } from '../src/index.js';
import { formatRFC3339In, formatSchedule } from '../src/utils.js';
import { creatableCronJob, settle, startHarness } from './helpers.js';

type Op =
  | { kind: 'wait'; ms: number }
  | { kind: 'jump'; ms: number }
  | { kind: 'suspend' }
  | { kind: 'resume' };

interface Scenario {
  schedule: { schedule: string; timeZone?: string };
  policy: 'Allow' | 'Forbid' | 'Replace';
  deadline: number | undefined;
  sleep: number;
  ops: Op[];
}

const MINUTE = 60_000;

const scheduleArb = fc.constantFrom<Scenario['schedule']>(
  { schedule: '*/1 * * * *' },
  { schedule: '*/2 * * * *' },
  { schedule: '*/5 * * * *' },
  { schedule: '15,45 * * * *' },
  { schedule: '0 * * * *' },
  { schedule: '@every 90s' },
  { schedule: '@hourly' },
  // Kathmandu is UTC+05:45: its minute 7 is never UTC's.
  { schedule: '*/7 * * * *', timeZone: 'Asia/Kathmandu' },
  { schedule: '0 */2 * * *', timeZone: 'Asia/Kolkata' },
  { schedule: '30 * * * *', timeZone: 'America/New_York' },
);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.integer({ min: 1_000, max: 4 * MINUTE }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('jump' as const),
      ms: fc.integer({ min: 2 * MINUTE, max: 5 * 60 * MINUTE }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'suspend' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resume' as const }) },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  schedule: scheduleArb,
  policy: fc.constantFrom('Allow' as const, 'Forbid' as const, 'Replace' as const),
  deadline: fc.constantFrom(undefined, 30, 300),
  sleep: fc.constantFrom(0, 70, 200),
  ops: fc.array(opArb, { minLength: 1, maxLength: 7 }),
});

async function runScenario(sc: Scenario): Promise<void> {
  const h = await startHarness({ start: Date.parse('2026-01-01T00:00:30Z') });
  try {
    const script = sc.sleep === 0 ? 'date; echo hello' : `sleep ${sc.sleep}; echo done`;
    const created: CronJob = await h.cronJobsIn.create(
      creatableCronJob(
        'prop',
        {
          ...sc.schedule,
          concurrencyPolicy: sc.policy,
          ...(sc.deadline !== undefined && { startingDeadlineSeconds: sc.deadline }),
        },
        script,
      ),
    );
    const createdAt = Date.parse(created.metadata!.creationTimestamp!);
    // When the CronJob was suspended, as [from, to) of clock time.
    const suspended: [number, number][] = [];
    let suspendedSince: number | undefined;
    for (const op of sc.ops) {
      switch (op.kind) {
        case 'wait':
          await h.step(op.ms, 1_000);
          break;
        case 'jump':
          // Everything due fires at once, with no I/O in between.
          h.clock.setTime(h.clock.now() + op.ms);
          await settle(20);
          await h.step(5_000);
          break;
        case 'suspend':
        case 'resume': {
          const suspend = op.kind === 'suspend';
          await h.cronJobsIn.patch('prop', { type: 'merge', body: { spec: { suspend } } });
          if (suspend && suspendedSince === undefined) suspendedSince = h.clock.now();
          if (!suspend && suspendedSince !== undefined) {
            suspended.push([suspendedSince, h.clock.now()]);
            suspendedSince = undefined;
          }
          await h.step(1_000);
          break;
        }
      }
    }
    const suspendedAtEnd = suspendedSince !== undefined;
    if (suspendedSince !== undefined) suspended.push([suspendedSince, Infinity]);
    await h.step(10_000);

    const cj = await h.cronJobsIn.get('prop');
    const sched = parseStandard(formatSchedule(cj));
    const zone = sc.schedule.timeZone ?? 'UTC';
    const times: number[] = [];
    for (const job of h.created) {
      const stamp = job.metadata?.annotations?.[cronJobScheduledTimestampAnnotation];
      expect(stamp).toBeDefined();
      const t = Date.parse(stamp!);
      expect(formatRFC3339In(t, zone)).toBe(stamp);
      expect(job.metadata?.name).toBe(`prop-${Math.floor(t / MINUTE)}`);
      if (sched.kind === 'spec') {
        // A time of the schedule.
        expect(sched.next(t - 1_000)).toBe(t);
      } else if (sc.deadline === undefined) {
        // @every counts from the CronJob's creation; a starting deadline
        // moves where it counts from, as upstream's does.
        expect((t - Math.floor(createdAt / 1_000) * 1_000) % 90_000).toBe(0);
      }
      const at = Date.parse(job.metadata!.creationTimestamp!);
      expect(t).toBeLessThanOrEqual(at);
      expect(t).toBeGreaterThan(createdAt);
      if (sc.deadline !== undefined) expect(at - t).toBeLessThanOrEqual(sc.deadline * 1_000);
      for (const [from, to] of suspended) {
        // A sync in flight as the suspend lands may still create, in that
        // second; creation times are whole seconds.
        expect(at <= from + 1_000 || at >= Math.floor(to / 1_000) * 1_000).toBe(true);
      }
      times.push(t);
    }
    // Never two Jobs for one time, and in the order of their times.
    expect(new Set(times).size).toBe(times.length);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // And none is forgotten: with no deadline to drop it, and no Job of
    // Forbid running long, the latest time has its Job.
    if (
      !suspendedAtEnd &&
      sc.deadline === undefined &&
      (sc.policy !== 'Forbid' || sc.sleep === 0)
    ) {
      let latest: number | undefined;
      for (let t = sched.next(createdAt); t !== undefined && t <= h.clock.now() - 10_000;) {
        latest = t;
        t = sched.next(t);
      }
      if (latest !== undefined) expect(times).toContain(latest);
    }
    if (times.length > 0) {
      expect(cj.status?.lastScheduleTime).toBe(
        new Date(Math.max(...times)).toISOString().replace('.000Z', 'Z'),
      );
    } else {
      expect(cj.status?.lastScheduleTime).toBeUndefined();
    }
  } finally {
    await h.stop();
  }
  expect(h.clock.hasWaiters()).toBe(false);
}

describe('the controller under random schedules, waits, clock jumps and suspends', () => {
  it('never creates two Jobs for one time, and names each after its minute', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, (sc) => runScenario(sc)),
      { numRuns: 100 },
    );
  });
});
