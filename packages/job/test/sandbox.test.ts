// The Job controller against an in-process sandbox apiserver on a fake
// clock: pods stay Pending (no nodes) until a test drives them through
// pods/status, as a kubelet would, and a pod with finalizers stays, being
// deleted, until they are removed. Covers what the unit tables cannot: the
// informer round trip, the tracking finalizer across a controller restart,
// the orphan worker (job_controller_test.go's TestWatchOrphanPods,
// TestFinalizerCleanup and the informer half of
// TestFinalizersRemovedExpectations), events and timing.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hasJobTrackingFinalizer } from '../src/tracking-utils.js';
import { jobTrackingFinalizer } from '../src/index.js';
import {
  conditionsOf,
  creatableJob,
  isActive,
  mut,
  startHarness,
  type Harness,
} from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h.stop();
  // Nothing left behind on the fake clock: every timer of the controller stopped.
  expect(h.clock.hasWaiters()).toBe(false);
});

const conditionTypes = (job: Job) =>
  conditionsOf(job.status).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`);
const hasCondition = (job: Job, type: string) =>
  (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const activeOf = async (name: string) => (await h.podsOf(name)).filter(isActive);
/** The status counters with the zero values the wire form leaves out. */
const counts = (job: Job) => ({
  active: job.status?.active ?? 0,
  succeeded: job.status?.succeeded ?? 0,
  failed: job.status?.failed ?? 0,
  terminating: job.status?.terminating ?? 0,
  ready: job.status?.ready ?? 0,
});

/** Finishes the active pods of `name`, one at a time, as they appear, until `done`. */
async function drive(
  name: string,
  phase: (pod: Pod, n: number) => 'Succeeded' | 'Failed',
  done: (j: Job) => boolean,
) {
  let n = 0;
  await h.until(async () => {
    const job = await h.jobsIn.get(name);
    if (done(job)) return true;
    const [pod] = await activeOf(name);
    if (pod !== undefined)
      await h.finish(pod, phase(pod, n++), phase(pod, n - 1) === 'Failed' ? 1 : 0);
    return false;
  }, 600_000);
}

describe('the Job controller on a sandbox', () => {
  it('runs a Job of 5 completions, 2 at a time, to Complete, counting every pod once', async () => {
    h = await startHarness();
    const created = await h.jobsIn.create(creatableJob('pi', { completions: 5, parallelism: 2 }));
    await h.until(async () => (await activeOf('pi')).length === 2);
    await drive(
      'pi',
      () => 'Succeeded',
      (j) => hasCondition(j, 'Complete'),
    );

    const job = await h.jobsIn.get('pi');
    expect(counts(job)).toEqual({ active: 0, succeeded: 5, failed: 0, terminating: 0, ready: 0 });
    expect(job.status?.uncountedTerminatedPods ?? {}).toEqual({});
    expect(job.status?.startTime).toBeDefined();
    expect(job.status?.completionTime).toBeDefined();
    expect(conditionTypes(job)).toEqual([
      'SuccessCriteriaMet=True/CompletionsReached',
      'Complete=True/CompletionsReached',
    ]);
    expect(h.ledger.maxActive.get(created.metadata!.uid!)).toBe(2);
    const pods = await h.podsOf('pi');
    expect(pods).toHaveLength(5);
    expect(pods.filter(hasJobTrackingFinalizer)).toEqual([]);
    expect(h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(
      5,
    );
    expect(h.recorder.events).toContain('Normal Completed Job completed');
    expect(
      h.metrics.get('jobs_finished_total', 'NonIndexed', 'succeeded', 'CompletionsReached'),
    ).toBe(1);
    expect(h.metrics.get('job_pods_finished_total', 'NonIndexed', 'succeeded')).toBe(5);
  });

  it('replaces failed pods after the failure backoff and fails the Job at its backoffLimit', async () => {
    h = await startHarness();
    await h.jobsIn.create(
      creatableJob('flaky', { completions: 1, parallelism: 1, backoffLimit: 2 }),
    );
    await drive(
      'flaky',
      () => 'Failed',
      (j) => hasCondition(j, 'Failed'),
    );

    const job = await h.jobsIn.get('flaky');
    expect(counts(job)).toMatchObject({ active: 0, succeeded: 0, failed: 3 });
    expect(conditionTypes(job)).toEqual([
      'FailureTarget=True/BackoffLimitExceeded',
      'Failed=True/BackoffLimitExceeded',
    ]);
    expect(h.recorder.events).toContain(
      'Warning BackoffLimitExceeded Job has reached the specified backoff limit',
    );
    // The replacements waited 10 s, then 20 s, after the failure before them.
    const created = (await h.podsOf('flaky'))
      .map((p) => Date.parse(p.metadata!.creationTimestamp!))
      .sort((a, b) => a - b);
    expect(created).toHaveLength(3);
    expect(created[1]! - created[0]!).toBeGreaterThanOrEqual(10_000);
    expect(created[2]! - created[1]!).toBeGreaterThanOrEqual(20_000);
    expect((await h.podsOf('flaky')).filter(hasJobTrackingFinalizer)).toEqual([]);
  });

  it('gives each pod of an Indexed Job its index, hostname and JOB_COMPLETION_INDEX', async () => {
    h = await startHarness();
    await h.jobsIn.create(
      creatableJob('idx', {
        completions: 3,
        parallelism: 3,
        completionMode: 'Indexed',
        backoffLimitPerIndex: 2,
      }),
    );
    await h.until(async () => (await activeOf('idx')).length === 3);
    const pods = await activeOf('idx');
    const byIndex = new Map(
      pods.map((p) => [p.metadata!.annotations!['batch.kubernetes.io/job-completion-index']!, p]),
    );
    expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
    for (const [ix, pod] of byIndex) {
      expect(pod.metadata!.labels!['batch.kubernetes.io/job-completion-index']).toBe(ix);
      expect(pod.spec!.hostname).toBe(`idx-${ix}`);
      expect(pod.metadata!.generateName).toBe(`idx-${ix}-`);
      expect(pod.metadata!.finalizers).toContain(jobTrackingFinalizer);
      expect(pod.spec!.containers[0]!.env).toEqual([
        {
          name: 'JOB_COMPLETION_INDEX',
          valueFrom: {
            // The API server defaults the fieldRef's apiVersion.
            fieldRef: {
              apiVersion: 'v1',
              fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']",
            },
          },
        },
      ]);
    }
    await h.finish(byIndex.get('1')!, 'Succeeded');
    await h.finish(byIndex.get('0')!, 'Succeeded');
    await h.until(async () => (await h.jobsIn.get('idx')).status?.completedIndexes === '0,1');
    // A failed index is retried under the same index.
    await h.finish(byIndex.get('2')!, 'Failed');
    await h.until(async () => (await activeOf('idx')).length === 1, 30_000);
    const [retry] = await activeOf('idx');
    expect(retry!.metadata!.annotations!['batch.kubernetes.io/job-completion-index']).toBe('2');
    expect(retry!.metadata!.annotations!['batch.kubernetes.io/job-index-failure-count']).toBe('1');
    await h.finish(retry!, 'Succeeded');
    await h.until(async () => hasCondition(await h.jobsIn.get('idx'), 'Complete'));
    const job = await h.jobsIn.get('idx');
    expect(job.status).toMatchObject({
      succeeded: 3,
      failed: 1,
      completedIndexes: '0-2',
      failedIndexes: '',
    });
  });

  it('suspends a Job (active pods deleted) and resumes it (start time reset)', async () => {
    h = await startHarness();
    await h.jobsIn.create(creatableJob('sus', { completions: 4, parallelism: 2 }));
    await h.until(async () => (await activeOf('sus')).length === 2);
    const firstStart = (await h.jobsIn.get('sus')).status!.startTime!;

    const job = await h.jobsIn.get('sus');
    job.spec!.suspend = true;
    await h.jobsIn.update(job);
    await h.until(async () => hasCondition(await h.jobsIn.get('sus'), 'Suspended'));
    await h.until(async () => (await h.podsOf('sus')).length === 0);
    await h.until(async () => counts(await h.jobsIn.get('sus')).terminating === 0);
    const suspended = await h.jobsIn.get('sus');
    expect(counts(suspended)).toMatchObject({ active: 0, succeeded: 0 });
    expect(conditionsOf(suspended.status)).toEqual([
      { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' },
    ]);
    expect(h.recorder.events).toContain('Normal Suspended Job suspended');
    expect(
      h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulDelete Deleted pod: sus-')),
    ).toHaveLength(2);
    await h.step(5_000);
    expect(await h.podsOf('sus')).toEqual([]);

    const again = await h.jobsIn.get('sus');
    again.spec!.suspend = false;
    await h.jobsIn.update(again);
    await h.until(async () => (await activeOf('sus')).length === 2);
    await h.until(async () => !hasCondition(await h.jobsIn.get('sus'), 'Suspended'));
    const resumed = await h.jobsIn.get('sus');
    expect(conditionsOf(resumed.status)).toEqual([
      { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' },
    ]);
    expect(h.recorder.events).toContain('Normal Resumed Job resumed');
    expect(Date.parse(resumed.status!.startTime!)).toBeGreaterThan(Date.parse(firstStart));
    await drive(
      'sus',
      () => 'Succeeded',
      (j) => hasCondition(j, 'Complete'),
    );
    // Pods deleted for the suspension lose their finalizer first: never counted.
    expect(counts(await h.jobsIn.get('sus'))).toMatchObject({ succeeded: 4, failed: 0, active: 0 });
  });

  it('counts no pod twice when a new controller takes over mid-Job', async () => {
    h = await startHarness();
    await h.jobsIn.create(creatableJob('handover', { completions: 4, parallelism: 2 }));
    await h.until(async () => (await activeOf('handover')).length === 2);
    await h.pause();
    // Both pods finish while no controller runs: they keep their finalizers.
    for (const pod of await activeOf('handover')) await h.finish(pod, 'Succeeded');
    expect((await h.podsOf('handover')).every(hasJobTrackingFinalizer)).toBe(true);
    await h.resume();
    await h.until(async () => (await h.jobsIn.get('handover')).status?.succeeded === 2);
    // Restart again, right after the next pods are created.
    await h.until(async () => (await activeOf('handover')).length === 2);
    await h.restart();
    await drive(
      'handover',
      () => 'Succeeded',
      (j) => hasCondition(j, 'Complete'),
    );
    const job = await h.jobsIn.get('handover');
    expect(counts(job)).toMatchObject({ active: 0, succeeded: 4, failed: 0 });
    expect(await h.podsOf('handover')).toHaveLength(4);
  });

  it('fails a Job past its activeDeadlineSeconds, deleting its pods', async () => {
    h = await startHarness();
    await h.jobsIn.create(
      creatableJob('late', { completions: 2, parallelism: 2, activeDeadlineSeconds: 30 }),
    );
    await h.until(async () => (await activeOf('late')).length === 2);
    await h.step(29_000);
    expect(hasCondition(await h.jobsIn.get('late'), 'Failed')).toBe(false);
    await h.until(async () => hasCondition(await h.jobsIn.get('late'), 'Failed'), 5_000);
    const job = await h.jobsIn.get('late');
    expect(conditionTypes(job)).toEqual([
      'FailureTarget=True/DeadlineExceeded',
      'Failed=True/DeadlineExceeded',
    ]);
    expect(counts(job)).toMatchObject({ active: 0, failed: 2 });
    expect(h.recorder.events).toContain(
      'Warning DeadlineExceeded Job was active longer than specified deadline',
    );
    await h.until(async () => (await h.podsOf('late')).length === 0);
  });

  it('fails a Job at once when a FailJob rule of its pod failure policy matches', async () => {
    h = await startHarness();
    await h.jobsIn.create(
      creatableJob('strict', {
        completions: 3,
        parallelism: 1,
        podFailurePolicy: {
          rules: [
            { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } },
            { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
          ],
        },
      }),
    );
    await h.until(async () => (await activeOf('strict')).length === 1);
    const [first] = await activeOf('strict');
    // Ignored: not counted, but replaced only after the failure backoff.
    await h.finish(first!, 'Failed', 7);
    await h.step(9_000);
    expect(await activeOf('strict')).toEqual([]);
    await h.until(async () => (await activeOf('strict')).length === 1, 5_000);
    const [second] = await activeOf('strict');
    expect(second!.metadata!.name).not.toBe(first!.metadata!.name);
    await h.finish(second!, 'Failed', 42);
    await h.until(async () => hasCondition(await h.jobsIn.get('strict'), 'Failed'));
    const job = await h.jobsIn.get('strict');
    expect(counts(job)).toMatchObject({ active: 0, failed: 1, succeeded: 0 });
    const failed = job.status!.conditions!.find((c) => c.type === 'Failed')!;
    expect(failed.reason).toBe('PodFailurePolicy');
    expect(failed.message).toBe(
      `Container main for pod default/${second!.metadata!.name} failed with exit code 42 matching FailJob rule at index 1`,
    );
    expect(h.recorder.events).toContain(`Warning PodFailurePolicy ${failed.message}`);
    expect(h.metrics.get('pod_failures_handled_by_failure_policy_total', 'Ignore')).toBe(1);
    expect(h.metrics.get('pod_failures_handled_by_failure_policy_total', 'FailJob')).toBe(1);
  });

  it('leaves a Job managed by another controller alone', async () => {
    h = await startHarness();
    await h.jobsIn.create(
      creatableJob('theirs', { completions: 1, managedBy: 'example.com/other' }),
    );
    await h.step(5_000);
    expect(await h.podsOf('theirs')).toEqual([]);
    expect((await h.jobsIn.get('theirs')).status ?? {}).toEqual({});
    expect(h.metrics.get('jobs_by_external_controller_total', 'example.com/other')).toBe(1);
  });

  it('TestWatchOrphanPods: removes the tracking finalizer of pods whose Job is gone', async () => {
    h = await startHarness();
    await h.jobsIn.create(creatableJob('gone', { completions: 2, parallelism: 2 }));
    await h.until(async () => (await activeOf('gone')).length === 2);
    // batch/v1's default propagation orphans the pods.
    await h.jobsIn.delete('gone');
    await h.until(async () =>
      (await h.podsIn.list()).items.every((p) => !hasJobTrackingFinalizer(p)),
    );
    // No garbage collector runs here to drop their owner references: the
    // reference to a Job gone from the cache is what lets the finalizer go.
    const left = (await h.podsIn.list()).items;
    expect(left).toHaveLength(2);
    expect(left.every(isActive)).toBe(true);
  });

  it('TestFinalizerCleanup: removes the finalizer of a pod a finished Job never counted', async () => {
    h = await startHarness();
    const job = await h.jobsIn.create(creatableJob('done', { completions: 1, parallelism: 1 }));
    await h.until(async () => (await activeOf('done')).length === 1);
    await h.step(2_000);
    // Another writer marks the Job complete while its pod still runs.
    const fresh = await h.jobsIn.get('done');
    const at = fresh.status!.startTime!;
    mut(fresh).status = {
      startTime: at,
      completionTime: at,
      succeeded: 1,
      conditions: [
        {
          type: 'SuccessCriteriaMet',
          status: 'True',
          reason: 'CompletionsReached',
          lastProbeTime: at,
          lastTransitionTime: at,
        },
        {
          type: 'Complete',
          status: 'True',
          reason: 'CompletionsReached',
          lastProbeTime: at,
          lastTransitionTime: at,
        },
      ],
    };
    await h.jobsIn.updateStatus(fresh);
    await h.until(
      async () => (await h.podsOf('done')).every((p) => !hasJobTrackingFinalizer(p)),
      5_000,
    );
    expect(await activeOf('done')).toHaveLength(1);
    expect(job.metadata?.uid).toBeDefined();
  });

  it('TestFinalizersRemovedExpectations: sees the removals it asked for through the informer', async () => {
    h = await startHarness();
    await h.jobsIn.create(creatableJob('seen', { completions: 2, parallelism: 2 }));
    await h.until(async () => (await activeOf('seen')).length === 2);
    for (const pod of await activeOf('seen')) await h.finish(pod, 'Succeeded');
    await h.until(async () => (await h.jobsIn.get('seen')).status?.succeeded === 2);
    await h.until(async () => (await h.podsOf('seen')).every((p) => !hasJobTrackingFinalizer(p)));
    await h.step(2_000);
    expect(h.controller.finalizerExpectations.getExpectedUIDs('default/seen') ?? new Set()).toEqual(
      new Set(),
    );
  });
});
