// Ports of cronjob_controllerv2_test.go's TestControllerV2UpdateCronJob,
// TestControllerV2GetJobsToBeReconciled, TestControllerV2CleanupFinishedJobs,
// TestControllerV2JobAlreadyExistsButNotInActiveStatus and
// TestControllerV2JobAlreadyExistsButDifferentOwner, and tests of our own for
// the Job event handlers, sync's status write and requeue, and run.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import {
  DeletedFinalStateUnknown,
  newAlreadyExists,
  newConflict,
  newInternalError,
} from '@kcm-ts/apimachinery';
import type { RateLimitingQueue } from '@kcm-ts/workqueue';
import { describe, expect, it, vi } from 'vitest';
import { getJobFromTemplate2, getRef, nextScheduleDelta } from '../src/utils.js';
import {
  FakeCronJobControl,
  FakeJobControl,
  MINUTE,
  SECOND,
  cronJob,
  fixture,
  jobSpec,
  justASecondBeforeTheHour,
  justAfterThePriorHour,
  justAfterTheHour,
  justBeforeTheHour,
  justBeforeThePriorHour,
  mut,
  settle,
  wire,
} from './helpers.js';

const onTheHour = '0 * * * ?';
const everyHour = '@every 1h';
const newYork = 'America/New_York';

describe('updateCronJob (TestControllerV2UpdateCronJob)', () => {
  const template = (a: string) => ({
    metadata: { labels: { a }, annotations: { x: 'y' } },
    spec: jobSpec(),
  });
  const cj = (spec: Partial<NonNullable<CronJob['spec']>>, lastScheduleTime?: number): CronJob => ({
    metadata: { name: 'cj', namespace: 'default' },
    spec: { schedule: '', jobTemplate: template('b'), ...spec },
    ...(lastScheduleTime !== undefined && { status: { lastScheduleTime: wire(lastScheduleTime) } }),
  });
  const tests: { name: string; oldCronJob: CronJob; newCronJob: CronJob; expectedDelay: number }[] =
    [
      {
        name: 'spec.template changed',
        oldCronJob: cj({}),
        newCronJob: cj({ jobTemplate: template('foo') }),
        expectedDelay: 0,
      },
      {
        name: 'spec.schedule changed',
        oldCronJob: cj({ schedule: '30 * * * *' }, justBeforeTheHour),
        newCronJob: cj(
          { schedule: '*/1 * * * *', jobTemplate: template('foo') },
          justBeforeTheHour,
        ),
        expectedDelay: SECOND + nextScheduleDelta,
      },
      {
        name: 'spec.schedule with @every changed - cadence decrease',
        oldCronJob: cj({ schedule: '@every 1m' }, justBeforeTheHour),
        newCronJob: cj({ schedule: '@every 3m', jobTemplate: template('foo') }, justBeforeTheHour),
        expectedDelay: 2 * MINUTE + SECOND + nextScheduleDelta,
      },
      {
        name: 'spec.schedule with @every changed - cadence increase',
        oldCronJob: cj({ schedule: '@every 3m' }, justBeforeTheHour),
        newCronJob: cj({ schedule: '@every 1m', jobTemplate: template('foo') }, justBeforeTheHour),
        expectedDelay: SECOND + nextScheduleDelta,
      },
      {
        name: 'spec.timeZone not changed',
        oldCronJob: cj({ timeZone: newYork }),
        newCronJob: cj({ timeZone: newYork, jobTemplate: template('foo') }),
        expectedDelay: 0,
      },
      {
        // No schedule at all: the new one does not parse, so nothing is queued.
        name: 'spec.timeZone changed',
        oldCronJob: cj({ timeZone: newYork }),
        newCronJob: cj({ jobTemplate: template('foo') }),
        expectedDelay: 0,
      },
      {
        name: 'spec.timeZone changed on a schedule that parses',
        oldCronJob: cj({ schedule: '0 9 * * *', timeZone: 'Asia/Kolkata' }, justBeforeTheHour),
        newCronJob: cj({ schedule: '0 9 * * *', timeZone: newYork }, justBeforeTheHour),
        // 09:00 in New York (EDT) is 13:00 UTC; now is 09:59:59 UTC.
        expectedDelay: 3 * 60 * MINUTE + SECOND + nextScheduleDelta,
      },
    ];
  for (const tt of tests) {
    it(tt.name, () => {
      const f = fixture({ now: justASecondBeforeTheHour });
      let delay = 0;
      const addAfter = vi
        .spyOn(f.controller.queue, 'addAfter')
        .mockImplementation((_key, ms) => void (delay = ms));
      f.controller.updateCronJob(tt.oldCronJob, tt.newCronJob);
      expect(delay).toBe(tt.expectedDelay);
      if (tt.expectedDelay > 0)
        expect(addAfter).toHaveBeenCalledWith('default/cj', tt.expectedDelay);
    });
  }

  it('queues other changes at once, and warns of a schedule that does not parse', () => {
    const f = fixture({ now: justASecondBeforeTheHour });
    f.controller.updateCronJob(
      cj({ schedule: onTheHour }),
      cj({ schedule: onTheHour, suspend: true }),
    );
    expect(f.controller.queue.len()).toBe(1);
    f.controller.updateCronJob(cj({ schedule: onTheHour }), cj({ schedule: 'every minute' }));
    expect(f.recorder.events).toEqual([
      'Warning UnParseableCronJobSchedule unparseable schedule for cronjob: every minute',
    ]);
    expect(f.controller.queue.len()).toBe(1);
  });
});

describe('getJobsToBeReconciled (TestControllerV2GetJobsToBeReconciled)', () => {
  const owned = (name: string, namespace: string, owner: string, labels?: Record<string, string>) =>
    ({
      metadata: {
        name,
        namespace,
        ...(labels && { labels }),
        ownerReferences: [{ apiVersion: '', kind: '', uid: '', name: owner, controller: true }],
      },
    }) satisfies Job;
  const plain = (name: string, namespace: string): Job => ({ metadata: { name, namespace } });
  const tests: { name: string; cronJob: CronJob; jobs: Job[]; expected: string[] }[] = [
    {
      name: 'test getting jobs in namespace without controller reference',
      cronJob: { metadata: { namespace: 'foo-ns', name: 'fooer' } },
      jobs: [plain('foo', 'foo-ns'), plain('foo1', 'foo-ns'), plain('foo2', 'foo-ns')],
      expected: [],
    },
    {
      name: 'test getting jobs in namespace with a controller reference',
      cronJob: { metadata: { namespace: 'foo-ns', name: 'fooer' } },
      jobs: [plain('foo', 'foo-ns'), owned('foo1', 'foo-ns', 'fooer'), plain('foo2', 'foo-ns')],
      expected: ['foo1'],
    },
    {
      name: 'test getting jobs in other namespaces',
      cronJob: { metadata: { namespace: 'foo-ns', name: 'fooer' } },
      jobs: [plain('foo', 'bar-ns'), plain('foo1', 'bar-ns'), owned('foo2', 'bar-ns', 'fooer')],
      expected: [],
    },
    {
      name: 'test getting jobs whose labels do not match job template',
      cronJob: {
        metadata: { namespace: 'foo-ns', name: 'fooer' },
        spec: { schedule: '', jobTemplate: { metadata: { labels: { key: 'value' } } } },
      },
      jobs: [
        owned('foo-fooer-owner-ref', 'foo-ns', 'fooer', { key: 'different-value' }),
        owned('foo-other-owner-ref', 'foo-ns', 'another-cronjob', { key: 'different-value' }),
      ],
      expected: ['foo-fooer-owner-ref'],
    },
  ];
  for (const tt of tests) {
    it(tt.name, () => {
      const f = fixture();
      for (const job of tt.jobs) f.jobIndexer.add(job);
      const actual = f.controller.getJobsToBeReconciled(tt.cronJob);
      expect(actual.map((j) => j.metadata?.name).sort()).toEqual(tt.expected);
    });
  }
});

describe('cleanupFinishedJobs (TestControllerV2CleanupFinishedJobs)', () => {
  const finished = (name: string, startTime: number, type = 'Complete'): Job => ({
    metadata: {
      namespace: 'foo-ns',
      name,
      uid: name,
      ownerReferences: [{ apiVersion: '', kind: '', uid: '', name: 'fooer', controller: true }],
    },
    status: { startTime: wire(startTime), conditions: [{ type, status: 'True' }] },
  });
  const fooer = (spec: Partial<NonNullable<CronJob['spec']>>): CronJob => ({
    metadata: { namespace: 'foo-ns', name: 'fooer' },
    spec: {
      schedule: onTheHour,
      jobTemplate: { metadata: { labels: { key: 'value' } } },
      ...spec,
    },
    status: { lastScheduleTime: wire(justAfterThePriorHour) },
  });
  const tests: {
    name: string;
    now: number;
    cronJob: CronJob;
    finishedJobs: Job[];
    jobCreateError?: Error;
    expectedDeletedJobs: string[];
  }[] = [
    {
      name: "jobs are still deleted when a cronjob can't create jobs due to jobs quota being reached (avoiding a deadlock)",
      now: justAfterTheHour,
      cronJob: fooer({ successfulJobsHistoryLimit: 1 }),
      finishedJobs: [
        finished('finished-job-started-hour-ago', justBeforeThePriorHour),
        finished('finished-job-started-minute-ago', justBeforeTheHour),
      ],
      jobCreateError: newInternalError(new Error('quota for # of jobs reached')),
      expectedDeletedJobs: ['finished-job-started-hour-ago'],
    },
    {
      name: 'jobs are not deleted if history limit not reached',
      now: justBeforeTheHour,
      cronJob: fooer({ successfulJobsHistoryLimit: 2 }),
      finishedJobs: [finished('finished-job-started-hour-ago', justBeforeThePriorHour)],
      expectedDeletedJobs: [],
    },
    {
      name: 'failed and succeeded Jobs are counted apart, oldest deleted first',
      now: justBeforeTheHour,
      cronJob: fooer({ successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 }),
      finishedJobs: [
        finished('ok-1', justBeforeThePriorHour),
        finished('ok-2', justBeforeThePriorHour + MINUTE),
        finished('ok-3', justBeforeThePriorHour + 2 * MINUTE),
        finished('failed-1', justBeforeThePriorHour, 'Failed'),
        finished('failed-2', justBeforeThePriorHour + MINUTE, 'Failed'),
      ],
      expectedDeletedJobs: ['failed-1', 'ok-1', 'ok-2'],
    },
    {
      name: 'no limits, nothing deleted',
      now: justBeforeTheHour,
      cronJob: fooer({}),
      finishedJobs: [finished('a', justBeforeThePriorHour), finished('b', justBeforeTheHour)],
      expectedDeletedJobs: [],
    },
  ];
  for (const tt of tests) {
    it(tt.name, async () => {
      const jobControl = new FakeJobControl(
        tt.jobCreateError ? { createErr: tt.jobCreateError } : {},
      );
      const f = fixture({ now: tt.now, jobControl });
      f.cronJobIndexer.add(tt.cronJob);
      for (const job of tt.finishedJobs) f.jobIndexer.add(job);
      f.controller.enqueueController(tt.cronJob);
      await f.controller.processNextWorkItem();
      expect([...jobControl.deleteJobNames].sort()).toEqual([...tt.expectedDeletedJobs].sort());
      for (const name of tt.expectedDeletedJobs) {
        expect(f.recorder.events).toContain(`Normal SuccessfulDelete Deleted job ${name}`);
      }
    });
  }

  it('reports a failed deletion and keeps going', async () => {
    const jobControl = new FakeJobControl({
      err: newConflict({ group: 'batch', resource: 'jobs' }, 'x', new Error('busy')),
    });
    const f = fixture({ now: justBeforeTheHour, jobControl });
    const cj = fooer({ successfulJobsHistoryLimit: 0 });
    const deleted = await f.controller.cleanupFinishedJobs(cj, [
      finished('a', justBeforeThePriorHour),
    ]);
    expect(deleted).toBe(false);
    expect(f.recorder.events).toHaveLength(1);
    expect(f.recorder.events[0]).toMatch(/^Warning FailedDelete Deleted job: /);
  });
});

describe('a Job that already exists (TestControllerV2JobAlreadyExists...)', () => {
  const setUp = (withOwner: boolean) => {
    const cj = cronJob();
    cj.spec!.concurrencyPolicy = 'Forbid';
    cj.spec!.schedule = everyHour;
    cj.status = { lastScheduleTime: wire(justBeforeThePriorHour), active: [] };
    const cjCopy = structuredClone(cj);
    const job = getJobFromTemplate2(cj, justAfterThePriorHour);
    mut(job.metadata!).uid = '1234';
    job.metadata!.namespace = cj.metadata!.namespace;
    if (!withOwner) job.metadata!.ownerReferences = [];
    const jobControl = new FakeJobControl({
      job,
      createErr: newAlreadyExists({ group: 'batch', resource: 'job' }, ''),
    });
    const cronJobControl = new FakeCronJobControl();
    const f = fixture({ now: justBeforeTheHour, jobControl, cronJobControl });
    f.cronJobIndexer.add(cjCopy);
    return { f, job, cjCopy, cronJobControl };
  };

  it('adds a Job it created but failed to record back to the active list', async () => {
    const { f, job, cjCopy, cronJobControl } = setUp(true);
    f.controller.enqueueController(cjCopy);
    await f.controller.processNextWorkItem();
    expect(cronJobControl.updates).toHaveLength(1);
    expect(cronJobControl.updates[0]?.status?.active).toEqual([getRef(job)]);
  });

  it('ignores one it does not own (TestControllerV2JobAlreadyExistsButDifferentOwner)', async () => {
    const { f, cjCopy, cronJobControl } = setUp(false);
    f.controller.enqueueController(cjCopy);
    await f.controller.processNextWorkItem();
    expect(cronJobControl.updates).toHaveLength(0);
  });
});

describe('the Job event handlers', () => {
  const ours = (cj: CronJob, rv = '1'): Job => ({
    metadata: {
      name: 'j',
      namespace: cj.metadata!.namespace!,
      uid: 'j-uid',
      resourceVersion: rv,
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: cj.metadata!.name!,
          uid: cj.metadata!.uid!,
          controller: true,
        },
      ],
    },
  });
  const drain = async (q: RateLimitingQueue<string>) => {
    const keys: string[] = [];
    while (q.len() > 0) {
      const [key] = await q.get();
      if (key === undefined) break;
      keys.push(key);
      q.done(key);
    }
    return keys;
  };

  it('queue the CronJob that controls the Job, when the cache has it with that uid', async () => {
    const f = fixture();
    const cj = cronJob();
    f.cronJobIndexer.add(cj);
    const job = ours(cj);
    f.controller.addJob(job);
    expect(await drain(f.controller.queue)).toEqual(['snazzycats/mycronjob']);
    // A resync (same resourceVersion) changes nothing.
    f.controller.updateJob(job, job);
    expect(f.controller.queue.len()).toBe(0);
    f.controller.updateJob(job, ours(cj, '2'));
    expect(await drain(f.controller.queue)).toEqual(['snazzycats/mycronjob']);
    f.controller.deleteJob(new DeletedFinalStateUnknown('snazzycats/j', job));
    expect(await drain(f.controller.queue)).toEqual(['snazzycats/mycronjob']);
    // A CronJob of the same name but another uid is not the owner.
    const impostor = {
      ...job,
      metadata: {
        ...job.metadata,
        ownerReferences: [{ ...job.metadata!.ownerReferences![0]!, uid: 'other' }],
      },
    };
    f.controller.addJob(impostor);
    // Orphans and Jobs of other kinds of owner are nobody's business.
    f.controller.addJob({ metadata: { name: 'o', namespace: 'snazzycats' } });
    f.controller.deleteJob({ metadata: { name: 'o', namespace: 'snazzycats' } });
    expect(f.controller.queue.len()).toBe(0);
  });

  it('queue the old owner too when the controller reference changes', async () => {
    const f = fixture();
    const a = cronJob();
    const b = { ...cronJob(), metadata: { ...cronJob().metadata, name: 'other', uid: 'b-uid' } };
    f.cronJobIndexer.add(a);
    f.cronJobIndexer.add(b);
    f.controller.updateJob(ours(a, '1'), ours(b, '2'));
    expect((await drain(f.controller.queue)).sort()).toEqual([
      'snazzycats/mycronjob',
      'snazzycats/other',
    ]);
  });

  it('treat a Job that shows up being deleted as deleted', async () => {
    const f = fixture();
    const cj = cronJob();
    f.cronJobIndexer.add(cj);
    const job = ours(cj);
    mut(job.metadata!).deletionTimestamp = wire(justBeforeTheHour);
    f.controller.addJob(job);
    expect(await drain(f.controller.queue)).toEqual(['snazzycats/mycronjob']);
  });
});

describe('sync', () => {
  it('writes the status once, and asks to come back at the next scheduled time', async () => {
    const cronJobControl = new FakeCronJobControl();
    const f = fixture({ now: justAfterTheHour, cronJobControl });
    const cj = cronJob();
    cj.spec!.schedule = onTheHour;
    cj.spec!.successfulJobsHistoryLimit = 0;
    mut(cj.metadata!).creationTimestamp = wire(justBeforeTheHour);
    f.cronJobIndexer.add(cj);
    const old: Job = {
      metadata: {
        namespace: 'snazzycats',
        name: 'old',
        uid: 'old',
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            name: 'mycronjob',
            uid: '1a2b3c',
            controller: true,
          },
        ],
      },
      status: {
        startTime: wire(justBeforeThePriorHour),
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    };
    f.jobIndexer.add(old);
    const requeue = await f.controller.sync('snazzycats/mycronjob');
    expect(requeue).toBe(59 * MINUTE + nextScheduleDelta);
    expect(f.jobControl.deleteJobNames).toEqual(['old']);
    expect(f.jobControl.jobs.map((j) => j.metadata?.name)).toEqual(['mycronjob-24394200']);
    expect(cronJobControl.updates).toHaveLength(1);
    expect(cronJobControl.updates[0]?.status).toMatchObject({
      lastScheduleTime: '2016-05-19T10:00:00Z',
      active: [{ name: 'mycronjob-24394200' }],
    });
    // The cache's copy is untouched.
    expect(f.cronJobIndexer.getByKey('snazzycats/mycronjob')?.status).toBeUndefined();
    // Gone from the cache: nothing to do.
    f.cronJobIndexer.delete(cj);
    expect(await f.controller.sync('snazzycats/mycronjob')).toBeUndefined();
  });

  it('retries with backoff when the status write fails, and forgets once a requeue is set', async () => {
    const cronJobControl = new FakeCronJobControl();
    cronJobControl.updateStatus = () =>
      Promise.reject(
        newConflict({ group: 'batch', resource: 'cronjobs' }, 'mycronjob', new Error('stale')),
      );
    const f = fixture({ now: justAfterTheHour, cronJobControl });
    const cj = cronJob();
    cj.spec!.schedule = onTheHour;
    f.cronJobIndexer.add(cj);
    f.controller.enqueueController(cj);
    await f.controller.processNextWorkItem();
    expect(f.controller.queue.numRequeues('snazzycats/mycronjob')).toBe(1);
    // The retry comes after the rate limiter's first delay (5 ms).
    await f.clock.advance(5);
    await settle();
    expect(f.controller.queue.len()).toBe(1);
  });

  it('does not requeue a suspended CronJob', async () => {
    const f = fixture({ now: justAfterTheHour });
    const cj = cronJob();
    cj.spec!.suspend = true;
    f.cronJobIndexer.add(cj);
    expect(await f.controller.sync('snazzycats/mycronjob')).toBeUndefined();
    expect(f.jobControl.jobs).toEqual([]);
  });
});

describe('run', () => {
  it('refuses a bad worker count, runs once, and stops with its signal', async () => {
    const f = fixture();
    const stop = new AbortController();
    await expect(f.controller.run(-1, stop.signal)).rejects.toThrow(RangeError);
    stop.abort();
    // The informers never start, so the caches never sync: run ends with the signal.
    await f.controller.run(2, stop.signal);
    expect(f.controller.queue.shuttingDown()).toBe(true);
    await expect(f.controller.run(2, new AbortController().signal)).rejects.toThrow(
      'this controller has stopped',
    );
    expect(f.clock.hasWaiters()).toBe(false);
  });
});
