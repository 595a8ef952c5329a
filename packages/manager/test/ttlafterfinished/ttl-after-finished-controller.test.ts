// The TTL-after-finished controller (ttlafterfinished_controller.go): the
// time arithmetic of TestTimeLeft and jobFinishTime as tables, then
// processJob's cases end to end against a sandbox on a fake clock.
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, newInternalError, newNotFound } from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  defaultConcurrentTTLSyncs,
  getFinishAndExpireTime,
  jobFinishTime,
  needsCleanup,
  timeLeft,
} from '../../src/ttlafterfinished/ttl-after-finished-controller.js';
import {
  newTTLAfterFinishedMetrics,
  noopTTLAfterFinishedMetrics,
  ttlAfterFinishedMetrics,
} from '../../src/ttlafterfinished/metrics.js';
import { controllerRef, gone, memoryLogger, startGC } from '../garbagecollector/helpers.js';
import { deletionDurations, finish, job, startTTLController, type TTLHarness } from './helpers.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Go's newJob: `foobar` in `default`, with the given finish conditions and TTL. */
function newJob(completionTime?: number, failedTime?: number, ttl?: number): Job {
  const conditions: JobCondition[] = [];
  if (completionTime !== undefined) {
    conditions.push({ type: 'Complete', status: 'True', lastTransitionTime: iso(completionTime) });
  }
  if (failedTime !== undefined) {
    conditions.push({ type: 'Failed', status: 'True', lastTransitionTime: iso(failedTime) });
  }
  return {
    kind: 'Job',
    metadata: { name: 'foobar', namespace: 'default' },
    spec: {
      selector: { matchLabels: { foo: 'bar' } },
      template: {
        metadata: { labels: { foo: 'bar' } },
        spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
      },
      ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }),
    },
    status: { conditions },
  };
}

describe('timeLeft (TestTimeLeft)', () => {
  const cases: {
    name: string;
    completionTime?: number;
    failedTime?: number;
    ttl?: number;
    err?: string;
    timeLeft?: number;
    expireAt?: number;
  }[] = [
    { name: 'Error case: Job unfinished', ttl: 100, err: 'should not be cleaned up' },
    {
      name: 'Error case: Job completed now, no TTL',
      completionTime: now,
      err: 'should not be cleaned up',
    },
    {
      name: 'Job completed now, 0s TTL',
      completionTime: now,
      ttl: 0,
      timeLeft: 0,
      expireAt: now,
    },
    {
      name: 'Job completed now, 10s TTL',
      completionTime: now,
      ttl: 10,
      timeLeft: 10_000,
      expireAt: now + 10_000,
    },
    {
      name: 'Job completed 10s ago, 15s TTL',
      completionTime: now - 10_000,
      ttl: 15,
      timeLeft: 5_000,
      expireAt: now + 5_000,
    },
    {
      name: 'Error case: Job failed now, no TTL',
      failedTime: now,
      err: 'should not be cleaned up',
    },
    { name: 'Job failed now, 0s TTL', failedTime: now, ttl: 0, timeLeft: 0, expireAt: now },
    {
      name: 'Job failed now, 10s TTL',
      failedTime: now,
      ttl: 10,
      timeLeft: 10_000,
      expireAt: now + 10_000,
    },
    {
      name: 'Job failed 10s ago, 15s TTL',
      failedTime: now - 10_000,
      ttl: 15,
      timeLeft: 5_000,
      expireAt: now + 5_000,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const j = newJob(tc.completionTime, tc.failedTime, tc.ttl);
      if (tc.err !== undefined) {
        expect(() => timeLeft(j, now)).toThrow(tc.err);
        return;
      }
      expect(timeLeft(j, now)).toEqual({ remaining: tc.timeLeft, expireAt: tc.expireAt });
    });
  }

  it('names the Job in its error', () => {
    expect(() => getFinishAndExpireTime(newJob(undefined, undefined, 5))).toThrow(
      'job default/foobar should not be cleaned up',
    );
  });

  it('is negative once the TTL has passed', () => {
    expect(timeLeft(newJob(now - 60_000, undefined, 15), now).remaining).toBe(-45_000);
  });

  it('warns about a Job that finished in the future, and counts from its finish', () => {
    const logger = memoryLogger();
    expect(timeLeft(newJob(now + 3_000, undefined, 10), now, logger).remaining).toBe(13_000);
    expect(logger.lines[0]).toBe(
      'Warning: Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred. {"job":"default/foobar"}',
    );
  });
});

describe('jobFinishTime', () => {
  const at = (type: string, status: string, time?: number): JobCondition => ({
    type,
    status,
    ...(time === undefined ? {} : { lastTransitionTime: iso(time) }),
  });
  const withConditions = (conditions: JobCondition[]): Job => ({
    metadata: { name: 'foobar', namespace: 'default' },
    status: { conditions },
  });

  const cases: { name: string; conditions: JobCondition[]; want?: number; err?: string }[] = [
    {
      name: 'a complete Job finished when Complete became True',
      conditions: [at('SuccessCriteriaMet', 'True', now - 5_000), at('Complete', 'True', now)],
      want: now,
    },
    {
      name: 'a failed Job finished when Failed became True',
      conditions: [at('FailureTarget', 'True', now - 5_000), at('Failed', 'True', now)],
      want: now,
    },
    {
      name: 'a False condition does not count',
      conditions: [at('Complete', 'False', now - 9_000), at('Failed', 'True', now)],
      want: now,
    },
    {
      name: 'the first True finish condition wins',
      conditions: [at('Failed', 'True', now - 7_000), at('Complete', 'True', now)],
      want: now - 7_000,
    },
    {
      name: 'a finish condition without its time is an error',
      conditions: [at('Complete', 'True')],
      err: 'unable to find the time when the Job default/foobar finished',
    },
    {
      name: 'an unfinished Job is an error',
      conditions: [at('SuccessCriteriaMet', 'True', now), at('Suspended', 'True', now)],
      err: 'unable to find the status of the finished Job default/foobar',
    },
    {
      name: 'a Job without conditions is an error',
      conditions: [],
      err: 'unable to find the status of the finished Job default/foobar',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const j = withConditions(tc.conditions);
      if (tc.err !== undefined) expect(() => jobFinishTime(j)).toThrow(tc.err);
      else expect(jobFinishTime(j)).toBe(tc.want);
    });
  }

  it('keeps the time zone of the condition', () => {
    const j = withConditions([
      { type: 'Complete', status: 'True', lastTransitionTime: '2026-01-01T13:00:00+01:00' },
    ]);
    expect(jobFinishTime(j)).toBe(now);
  });
});

describe('needsCleanup', () => {
  it('wants a TTL and a finished Job', () => {
    expect(needsCleanup(newJob(now, undefined, 0))).toBe(true);
    expect(needsCleanup(newJob(undefined, now, 30))).toBe(true);
    expect(needsCleanup(newJob(now))).toBe(false);
    expect(needsCleanup(newJob(undefined, undefined, 30))).toBe(false);
    const running = newJob(undefined, undefined, 30);
    running.status = { conditions: [{ type: 'Complete', status: 'False' }] };
    expect(needsCleanup(running)).toBe(false);
  });
});

describe('TTL-after-finished metrics', () => {
  it("has upstream's name, help and buckets", () => {
    const d = ttlAfterFinishedMetrics.jobDeletionDurationSeconds;
    expect(d.name).toBe('ttl_after_finished_controller_job_deletion_duration_seconds');
    expect(d.help).toBe('The time it took to delete the job since it became eligible for deletion');
    expect(d.labels).toEqual([]);
    expect(d.buckets).toHaveLength(14);
    expect(d.buckets[0]).toBe(0.1);
    expect(d.buckets[13]).toBe(819.2);
  });

  it('registers once per registry and records into it', async () => {
    const registry = new Registry();
    newTTLAfterFinishedMetrics(registry).observeJobDeletionDuration(2);
    newTTLAfterFinishedMetrics(registry).observeJobDeletionDuration(3);
    expect(await deletionDurations(registry)).toEqual({ count: 2, sum: 5 });
    expect(() => noopTTLAfterFinishedMetrics.observeJobDeletionDuration(1)).not.toThrow();
  });

  it('defaults to five workers', () => {
    expect(defaultConcurrentTTLSyncs).toBe(5);
  });
});

let h: TTLHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** Creates a Job as a user would. */
async function createJob(harness: TTLHarness, j: Job): Promise<Job> {
  return harness.jobs.create(j);
}

describe('TTLAfterFinishedController', () => {
  for (const how of ['Complete', 'Failed'] as const) {
    it(`deletes a ${how} Job with its pods once its TTL has passed, and not before`, async () => {
      const clock = new FakeClock();
      const sandbox = await startSandbox({ clock, insecureHttp: true });
      const gc = await startGC({ clock, sandbox });
      h = await startTTLController({ clock, sandbox });
      try {
        const created = await createJob(h, job('pi', 60));
        const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
        await pods.create({
          metadata: {
            name: 'pi-abcde',
            ownerReferences: [controllerRef(created, 'batch/v1', 'Job')],
          },
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
        });
        await gc.waitForGraph(created.metadata?.uid ?? '');
        // Condition times have whole seconds.
        const finishedAt = Math.floor(clock.now() / 1000) * 1000;
        await finish(h.jobs, 'pi', how, finishedAt);

        await h.clock.advance(59_000);
        expect(await gone(h.jobs, 'pi')).toBe(false);
        expect(h.deletes).toEqual([]);

        await h.until(() => h!.isGone('pi'), 'the Job gone');
        expect(clock.now()).toBeGreaterThanOrEqual(finishedAt + 60_000);
        expect(h.deletes).toEqual([
          {
            name: 'pi',
            options: {
              propagationPolicy: 'Foreground',
              preconditions: { uid: created.metadata?.uid },
              signal: undefined,
            },
          },
        ]);
        expect(h.calls).toEqual(['get jobs/pi', 'delete jobs/pi']);
        // Foreground: the pod went first.
        expect(await gone(pods, 'pi-abcde')).toBe(true);
        expect((await deletionDurations(h.registry)).count).toBe(1);
      } finally {
        await gc.stop();
        await h.stop();
        await sandbox.stop();
      }
    });
  }

  it('deletes at once a Job whose TTL expired while nobody watched, and measures how late', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const jobs = sandbox.client<Job>('batch', 'jobs').inNamespace('default');
    await jobs.create(job('old', 10));
    // It finished 100 s ago: its TTL expired 90 s ago.
    await finish(jobs, 'old', 'Complete', clock.now() - 100_000, clock.now() - 120_000);
    h = await startTTLController({ clock, sandbox });
    const h1 = h;
    try {
      await h1.until(() => h1.deletes.length === 1, 'the delete');
      const { count, sum } = await deletionDurations(h1.registry);
      expect(count).toBe(1);
      // 90 s, plus the moments the informer took to sync on the fake clock.
      expect(sum).toBeGreaterThanOrEqual(90);
      expect(sum).toBeLessThan(91);
    } finally {
      await h1.stop();
      await sandbox.stop();
    }
  });

  it('waits out the last seconds of a TTL that was nearly over when it first saw the Job', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('almost', 60));
    // Finished 57 s ago: 3 s to go.
    const finishedAt = h1.clock.now() - 57_000;
    await finish(h1.jobs, 'almost', 'Complete', finishedAt, finishedAt);
    await h1.clock.advance(2_000);
    expect(h1.calls).toEqual([]);
    await h1.until(() => h1.deletes.length === 1, 'the delete');
    expect(h1.clock.now()).toBeGreaterThanOrEqual(finishedAt + 60_000);
  });

  it('leaves alone Jobs without a TTL, unfinished ones, and those already being deleted', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('no-ttl'));
    await finish(h1.jobs, 'no-ttl', 'Complete', h1.clock.now());
    await createJob(h1, job('running', 0));
    await createJob(h1, {
      ...job('held', 0),
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    await h1.jobs.delete('held');
    await finish(h1.jobs, 'held', 'Failed', h1.clock.now());
    await h1.clock.advance(600_000);
    expect(h1.calls).toEqual([]);
    expect((await h1.jobs.list()).items.map((j) => j.metadata?.name).sort()).toEqual([
      'held',
      'no-ttl',
      'running',
    ]);
  });

  it('deletes a Job with a zero TTL as soon as it finishes', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('now', 0));
    await h1.clock.advance(30_000);
    expect(h1.calls).toEqual([]);
    await finish(h1.jobs, 'now', 'Complete', h1.clock.now());
    await h1.until(() => h1.deletes.length === 1, 'the delete');
  });

  it('postpones the deletion when the TTL is raised before it expires', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('longer', 30));
    const finishedAt = h1.clock.now();
    await finish(h1.jobs, 'longer', 'Complete', finishedAt);
    await h1.clock.advance(10_000);
    await h1.jobs.patch('longer', {
      type: 'merge',
      body: { spec: { ttlSecondsAfterFinished: 90 } },
    });
    await h1.clock.advance(50_000);
    // Past the old TTL: nothing was even read from the server.
    expect(h1.calls).toEqual([]);
    await h1.until(() => h1.deletes.length === 1, 'the delete');
    expect(h1.clock.now()).toBeGreaterThanOrEqual(finishedAt + 90_000);
  });

  it('trusts the server over a stale cache: a TTL raised there wins', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('stale', 20));
    const finishedAt = h1.clock.now();
    await finish(h1.jobs, 'stale', 'Complete', finishedAt);
    // The server says 120 s while the cache still says 20 s.
    h1.hooks.get = async (name) => {
      const fresh = await h1.jobs.get(name);
      return { ...fresh, spec: { ...fresh.spec!, ttlSecondsAfterFinished: 120 } };
    };
    await h1.until(() => h1.calls.length > 0, 'the first look at the server');
    expect(h1.clock.now()).toBeGreaterThanOrEqual(finishedAt + 20_000);
    expect(h1.calls).toEqual(['get jobs/stale']);
    await h1.clock.advance(90_000);
    expect(h1.deletes).toEqual([]);
    await h1.until(() => h1.deletes.length === 1, 'the delete');
    expect(h1.clock.now()).toBeGreaterThanOrEqual(finishedAt + 120_000);
    expect(h1.calls).toEqual(['get jobs/stale', 'get jobs/stale', 'delete jobs/stale']);
  });

  it('does nothing when the Job is gone from the server already', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('vanished', 5));
    await finish(h1.jobs, 'vanished', 'Failed', h1.clock.now());
    h1.hooks.get = (name) =>
      Promise.reject(newNotFound({ group: 'batch', resource: 'jobs' }, name));
    await h1.until(() => h1.calls.length > 0, 'the look at the server');
    await h1.clock.advance(60_000);
    expect(h1.calls).toEqual(['get jobs/vanished']);
    expect(h1.logger.lines.filter((l) => l.startsWith('ERROR'))).toEqual([]);
  });

  it('reports a failed delete and retries it', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('flaky', 5));
    await finish(h1.jobs, 'flaky', 'Complete', h1.clock.now());
    let failures = 1;
    h1.hooks.delete = () =>
      failures-- > 0 ? Promise.reject(newInternalError(new Error('etcd unavailable'))) : undefined;
    await h1.until(() => h1.isDeleting('flaky'), 'the Job deleted');
    expect(h1.calls).toEqual([
      'get jobs/flaky',
      'delete jobs/flaky',
      'get jobs/flaky',
      'delete jobs/flaky',
    ]);
    const errors = h1.logger.lines.filter((l) => l.startsWith('ERROR'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      'error cleaning up Job default/flaky, will retry: Internal error occurred: etcd unavailable',
    );
    expect((await deletionDurations(h1.registry)).count).toBe(1);
  });

  it('reports a finished Job without a finish time, and keeps it', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('timeless', 5));
    await finish(h1.jobs, 'timeless', 'Complete', null, h1.clock.now());
    await h1.until(
      () => h1.logged('ERROR Unhandled Error: error cleaning up Job default/timeless, will retry'),
      'the error',
    );
    expect(h1.logger.lines.find((l) => l.startsWith('ERROR'))).toContain(
      'unable to find the time when the Job default/timeless finished',
    );
    await h1.clock.advance(60_000);
    expect(h1.calls).toEqual([]);
    expect(await gone(h1.jobs, 'timeless')).toBe(false);
  });

  it('handles many Jobs with several workers', async () => {
    h = await startTTLController({ workers: defaultConcurrentTTLSyncs });
    const h1 = h;
    const names = Array.from({ length: 12 }, (_, i) => `batch-${i}`);
    for (const [i, name] of names.entries()) {
      await createJob(h1, job(name, 10 + i));
      await finish(h1.jobs, name, i % 2 === 0 ? 'Complete' : 'Failed', h1.clock.now());
    }
    await h1.until(() => h1.deletes.length === names.length, 'every Job deleted');
    expect(h1.deletes.map((d) => d.name).sort()).toEqual([...names].sort());
    // With no garbage collector running, each waits for it in the foreground.
    for (const j of (await h1.jobs.list()).items) {
      expect(j.metadata?.deletionTimestamp).toBeDefined();
      expect(j.metadata?.finalizers).toEqual(['foregroundDeletion']);
    }
    expect((await deletionDurations(h1.registry)).count).toBe(12);
  });

  it('stops cleanly, leaving no timers behind', async () => {
    h = await startTTLController();
    const h1 = h;
    await createJob(h1, job('later', 3600));
    await finish(h1.jobs, 'later', 'Complete', h1.clock.now());
    await h1.clock.advance(1_000);
    await h1.stop();
    // The queue's delayed Job, the informer's and the sandbox's timers are all gone.
    expect(h1.clock.waiterCount()).toBe(0);
    expect(
      h1.logged('Shutting down controller {"controller":"ttl-after-finished-controller"}'),
    ).toBe(true);
  });
});
