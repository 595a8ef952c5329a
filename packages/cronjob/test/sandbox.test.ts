// The CronJob controller end to end: an in-process sandbox apiserver on a
// fake clock, whose simulated node runs the Jobs' pods (`sh -c 'date; echo
// hello'` ends in two seconds, `sleep 90` in ninety), with the real Job
// controller of @kcm-ts/job finishing the Jobs. Covers what the unit tables
// cannot: the informer round trip, the queue waking at each scheduled time,
// history limits on real deletions, the concurrency policies against Jobs
// that really run, suspend and resume, time zones and starting deadlines.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cronJobScheduledTimestampAnnotation } from '../src/index.js';
import { creatableCronJob, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h.stop();
  // Nothing left behind on the fake clock: every timer of the controllers stopped.
  expect(h.clock.hasWaiters()).toBe(false);
});

/** 2026-01-01 at `hh:mm:ss` UTC. */
const at = (hhmmss: string): number => Date.parse(`2026-01-01T${hhmmss}Z`);
/** The suffix of the Job scheduled at `ms`: minutes since the epoch. */
const minute = (ms: number): number => Math.floor(ms / 60_000);
const names = (jobs: readonly Job[]) => jobs.map((j) => j.metadata?.name);
const isComplete = (job: Job) =>
  (job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');

/** Creates the CronJob at `when` (the clock moves there first). */
async function createAt(when: number, cronJob: CronJob): Promise<CronJob> {
  await h.step(when - h.clock.now());
  return h.cronJobsIn.create(cronJob);
}

describe('the CronJob controller on a sandbox', () => {
  it('creates one Job a minute, named after its minute, and keeps the status and history', async () => {
    h = await startHarness();
    const cj = await createAt(
      at('00:00:30'),
      creatableCronJob('hello', { schedule: '*/1 * * * *', successfulJobsHistoryLimit: 2 }),
    );

    // Just after 00:01 the first Job runs and is listed as active.
    await h.step(at('00:01:00.500') - h.clock.now());
    expect(names(h.created)).toEqual([`hello-${minute(at('00:01:00'))}`]);
    let status = (await h.cronJobsIn.get('hello')).status;
    expect(status?.lastScheduleTime).toBe('2026-01-01T00:01:00Z');
    expect(status?.active).toEqual([
      expect.objectContaining({
        kind: 'Job',
        apiVersion: 'batch/v1',
        namespace: 'default',
        name: 'hello-29453761',
        uid: h.created[0]?.metadata?.uid,
      }),
    ]);

    await h.until(
      async () => h.created.length === 4 && (await h.jobsOf('hello')).every(isComplete),
    );
    const scheduled = [at('00:01:00'), at('00:02:00'), at('00:03:00'), at('00:04:00')];
    expect(names(h.created)).toEqual(scheduled.map((t) => `hello-${minute(t)}`));
    for (const [i, job] of h.created.entries()) {
      const t = scheduled[i]!;
      expect(job.metadata?.annotations?.[cronJobScheduledTimestampAnnotation]).toBe(
        new Date(t).toISOString().replace('.000Z', 'Z'),
      );
      // Created 100 ms after its time: the requeue's padding.
      expect(job.metadata?.creationTimestamp).toBe(new Date(t).toISOString().replace('.000Z', 'Z'));
      expect(job.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: 'hello',
          uid: cj.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }

    // Two finished Jobs are kept; the older ones went, oldest first.
    expect(names(await h.jobsOf('hello'))).toEqual(['hello-29453763', 'hello-29453764']);
    expect(h.deleted).toEqual(['hello-29453761', 'hello-29453762']);

    status = (await h.cronJobsIn.get('hello')).status;
    const last = (await h.jobsIn.get('hello-29453764')).status?.completionTime;
    expect(status).toEqual({
      lastScheduleTime: '2026-01-01T00:04:00Z',
      lastSuccessfulTime: last,
    });
    expect(h.recorder.events.slice(0, 4)).toEqual([
      'Normal SuccessfulCreate Created job hello-29453761',
      'Normal SawCompletedJob Saw completed job: hello-29453761, condition: Complete',
      'Normal SuccessfulCreate Created job hello-29453762',
      'Normal SawCompletedJob Saw completed job: hello-29453762, condition: Complete',
    ]);
    expect(h.recorder.events).toContain('Normal SuccessfulDelete Deleted job hello-29453761');
    // The creation skew: under a second each time.
    expect(h.metrics.observed).toHaveLength(4);
    for (const skew of h.metrics.observed) expect(skew).toBeLessThan(1);
  });

  it('prunes failed Jobs to failedJobsHistoryLimit', async () => {
    h = await startHarness();
    await createAt(
      at('00:00:30'),
      creatableCronJob('flaky', {
        failedJobsHistoryLimit: 1,
        jobTemplate: {
          spec: {
            backoffLimit: 0,
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 3'] }],
              },
            },
          },
        },
      }),
    );
    await h.until(() => h.created.length === 3);
    await h.step(30_000);
    const kept = await h.jobsOf('flaky');
    expect(names(kept)).toEqual(['flaky-29453763']);
    expect(kept[0]?.status?.conditions?.some((c) => c.type === 'Failed')).toBe(true);
    expect(h.deleted).toEqual(['flaky-29453761', 'flaky-29453762']);
    expect(h.recorder.events).toContain(
      'Normal SawCompletedJob Saw completed job: flaky-29453761, condition: Failed',
    );
    // No success to record.
    expect((await h.cronJobsIn.get('flaky')).status?.lastSuccessfulTime).toBeUndefined();
  });

  it('Forbid: holds a time back while the previous Job runs; a starting deadline drops it', async () => {
    h = await startHarness();
    await h.step(at('00:00:30') - h.clock.now());
    await h.cronJobsIn.create(
      creatableCronJob('late', { concurrencyPolicy: 'Forbid' }, 'sleep 90; echo done'),
    );
    await h.cronJobsIn.create(
      creatableCronJob(
        'strict',
        { concurrencyPolicy: 'Forbid', startingDeadlineSeconds: 10 },
        'sleep 90; echo done',
      ),
    );
    // The 00:01 Jobs run until about 00:02:32, over the 00:02 time.
    await h.step(at('00:02:10') - h.clock.now());
    expect(names(h.created)).toEqual(['late-29453761', 'strict-29453761']);
    expect(h.recorder.events.filter((e) => e.includes('JobAlreadyActive'))).toEqual([
      'Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid',
      'Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid',
    ]);
    await h.step(at('00:03:30') - h.clock.now());
    const created = (prefix: string) =>
      h.created.filter((j) => j.metadata!.name!.startsWith(prefix));
    // Without a deadline the 00:02 time starts as soon as the first Job ends...
    expect(names(created('late-'))).toEqual(['late-29453761', 'late-29453762']);
    expect(created('late-')[1]?.metadata?.creationTimestamp).not.toBe('2026-01-01T00:02:00Z');
    // ...within 10 s it is dropped, and 00:03 is next.
    expect(names(created('strict-'))).toEqual(['strict-29453761', 'strict-29453763']);
    expect(h.deleted).toEqual([]);
    const status = (await h.cronJobsIn.get('strict')).status;
    expect(status?.active?.map((r) => r.name)).toEqual(['strict-29453763']);
    expect(status?.lastScheduleTime).toBe('2026-01-01T00:03:00Z');
  });

  it('Replace: deletes the running Job and starts the new one', async () => {
    h = await startHarness();
    await createAt(
      at('00:00:30'),
      creatableCronJob('slow', { concurrencyPolicy: 'Replace' }, 'sleep 90; echo done'),
    );
    await h.step(at('00:02:30') - h.clock.now());
    expect(names(h.created)).toEqual(['slow-29453761', 'slow-29453762']);
    expect(h.deleted).toEqual(['slow-29453761']);
    expect(h.recorder.events).toEqual([
      'Normal SuccessfulCreate Created job slow-29453761',
      'Normal SuccessfulDelete Deleted job slow-29453761',
      'Normal SuccessfulCreate Created job slow-29453762',
    ]);
    expect((await h.cronJobsIn.get('slow')).status?.active?.map((r) => r.name)).toEqual([
      'slow-29453762',
    ]);
  });

  it('Allow: runs the Jobs side by side', async () => {
    h = await startHarness();
    await createAt(at('00:00:30'), creatableCronJob('slow', {}, 'sleep 90; echo done'));
    await h.step(at('00:02:30') - h.clock.now());
    expect(names(h.created)).toEqual(['slow-29453761', 'slow-29453762']);
    expect((await h.cronJobsIn.get('slow')).status?.active?.map((r) => r.name)).toEqual([
      'slow-29453761',
      'slow-29453762',
    ]);
  });

  it('suspend: creates nothing; resuming starts the most recent missed time at once', async () => {
    h = await startHarness();
    await createAt(at('00:00:30'), creatableCronJob('paused', { suspend: true }));
    await h.step(at('00:03:30') - h.clock.now());
    expect(h.created).toEqual([]);
    await h.cronJobsIn.patch('paused', { type: 'merge', body: { spec: { suspend: false } } });
    await h.step(1_000);
    // Only the latest of the three missed times, late.
    expect(names(h.created)).toEqual(['paused-29453763']);
    expect(h.created[0]?.metadata?.creationTimestamp).toBe('2026-01-01T00:03:30Z');
    await h.step(at('00:04:30') - h.clock.now());
    expect(names(h.created)).toEqual(['paused-29453763', 'paused-29453764']);
  });

  it('startingDeadlineSeconds: a time whose deadline passed is skipped, without an event', async () => {
    h = await startHarness();
    await createAt(
      at('00:00:30'),
      creatableCronJob('strict', { suspend: true, startingDeadlineSeconds: 20 }),
    );
    // Resumed 30 s after 00:01: too late for that time.
    await h.step(at('00:01:30') - h.clock.now());
    await h.cronJobsIn.patch('strict', { type: 'merge', body: { spec: { suspend: false } } });
    await h.step(at('00:02:30') - h.clock.now());
    expect(names(h.created)).toEqual(['strict-29453762']);
    // Upstream's MissSchedule event never fires (kubernetes/kubernetes#111223).
    expect(h.recorder.events.filter((e) => e.startsWith('Warning'))).toEqual([]);
  });

  it('timeZone: fires at the zone wall clock, annotating the time in that zone', async () => {
    // 09:00 in Kolkata (UTC+05:30) is 03:30 UTC; 09:00 in New York (EST) is 14:00 UTC.
    h = await startHarness({ start: at('03:28:00') });
    await h.cronJobsIn.create(
      creatableCronJob('india', { schedule: '0 9 * * *', timeZone: 'Asia/Kolkata' }),
    );
    await h.cronJobsIn.create(
      creatableCronJob('newyork', { schedule: '0 9 * * *', timeZone: 'America/New_York' }),
    );
    await h.step(at('03:31:00') - h.clock.now());
    expect(names(h.created)).toEqual([`india-${minute(at('03:30:00'))}`]);
    expect(h.created[0]?.metadata?.annotations?.[cronJobScheduledTimestampAnnotation]).toBe(
      '2026-01-01T09:00:00+05:30',
    );
    expect(h.created[0]?.metadata?.creationTimestamp).toBe('2026-01-01T03:30:00Z');
    expect((await h.cronJobsIn.get('india')).status?.lastScheduleTime).toBe('2026-01-01T03:30:00Z');

    // Nothing happens in between: the queue sleeps until the next time.
    await h.clock.advance(at('13:59:00') - h.clock.now());
    await h.step(2 * 60_000);
    expect(names(h.created)).toEqual([
      `india-${minute(at('03:30:00'))}`,
      `newyork-${minute(at('14:00:00'))}`,
    ]);
    expect(h.created[1]?.metadata?.annotations?.[cronJobScheduledTimestampAnnotation]).toBe(
      '2026-01-01T09:00:00-05:00',
    );
  });

  it('a new schedule takes effect at once', async () => {
    h = await startHarness();
    await createAt(at('00:00:30'), creatableCronJob('hourly', { schedule: '0 * * * *' }));
    await h.step(at('00:02:30') - h.clock.now());
    expect(h.created).toEqual([]);
    await h.cronJobsIn.patch('hourly', {
      type: 'merge',
      body: { spec: { schedule: '*/5 * * * *' } },
    });
    await h.step(at('00:05:30') - h.clock.now());
    // 00:05 is the first time of the new schedule after the creation.
    expect(names(h.created)).toEqual([`hourly-${minute(at('00:05:00'))}`]);
  });

  it('takes a Job deleted by someone else out of the active list', async () => {
    h = await startHarness();
    await createAt(at('00:00:30'), creatableCronJob('slow', {}, 'sleep 300'));
    await h.step(at('00:01:10') - h.clock.now());
    expect((await h.cronJobsIn.get('slow')).status?.active).toHaveLength(1);
    await h.jobsIn.delete('slow-29453761', { propagationPolicy: 'Background' });
    await h.step(5_000);
    expect((await h.cronJobsIn.get('slow')).status?.active).toBeUndefined();
  });
});
