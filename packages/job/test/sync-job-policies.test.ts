// Ports of job_controller_test.go's single-sync tables about how a Job ends:
// TestSyncJobPastDeadline, TestSingleJobFailedCondition, TestSyncJobComplete,
// TestSyncJobDeleted, TestSyncJobWhenManagedBy,
// TestSyncJobWithJobPodFailurePolicy, TestSyncJobWithJobSuccessPolicy,
// TestSyncJobWithJobBackoffLimitPerIndex, TestJobBackoffForOnFailure and
// TestJobBackoffOnRestartPolicyNever. Every feature gate is on: a failing
// Job gets FailureTarget first and Failed only once no pod is terminating, a
// completing one SuccessCriteriaMet (reason CompletionsReached when the
// completions are reached) before Complete, status.terminating is always
// reported and backoffLimitPerIndex always applies; upstream's cases that
// exist only to show a gate turned off are not ported.
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock, formatTime } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { newCondition } from '../src/sync-job-ctx.js';
import {
  PodBuilder,
  buildPod,
  conditionsOf,
  epoch,
  fixture,
  newJob,
  newPodList,
  setPodsStatuses,
  terminatedStatus,
  testFinishedAt,
} from './helpers.js';

type Cond = Omit<JobCondition, 'lastProbeTime' | 'lastTransitionTime'>;
const c = (type: string, reason: string, message: string, status = 'True'): Cond => ({
  type,
  status,
  ...(reason && { reason }),
  ...(message && { message }),
});
const BLE = 'Job has reached the specified backoff limit';
const DEADLINE = 'Job was active longer than specified deadline';
const COMPLETIONS = 'Reached expected number of succeeded pods';
const POLICY0 = 'Matched rules at index 0';

/** Runs one sync of `job` over `pods` (named `mypod-<i>`, owned by the Job, with the tracking finalizer unless `bare`). */
async function syncOnce(
  job: Job,
  pods: Pod[],
  opts: { bare?: boolean; clock?: FakeClock } = {},
): Promise<{ status: JobStatus; f: ReturnType<typeof fixture> }> {
  const f = fixture(opts.clock ? { clock: opts.clock } : {});
  f.addJob(job);
  pods.forEach((pod, i) => {
    const b = new PodBuilder(structuredClone(pod)).name(`mypod-${i}`).job(job);
    if (!opts.bare) b.trackingFinalizer();
    f.podIndexer.add(b.pod);
  });
  await f.controller.syncJob(`${job.metadata!.namespace}/${job.metadata!.name}`);
  return { status: f.jobs.actual?.status ?? job.status ?? {}, f };
}

/** The fields these tables compare (start and completion times and `ready` left out), Go's zero values filled in. */
function view(s: JobStatus) {
  return {
    active: s.active ?? 0,
    succeeded: s.succeeded ?? 0,
    failed: s.failed ?? 0,
    terminating: s.terminating,
    completedIndexes: s.completedIndexes ?? '',
    failedIndexes: s.failedIndexes,
    uncountedTerminatedPods: {
      succeeded: s.uncountedTerminatedPods?.succeeded ?? [],
      failed: s.uncountedTerminatedPods?.failed ?? [],
    },
    conditions: conditionsOf(s),
  };
}
const wantStatus = (w: Partial<ReturnType<typeof view>>) => ({
  active: 0,
  succeeded: 0,
  failed: 0,
  terminating: 0,
  completedIndexes: '',
  failedIndexes: undefined,
  uncountedTerminatedPods: { succeeded: [], failed: [] },
  conditions: [],
  ...w,
});

describe('TestSyncJobPastDeadline', () => {
  const cases: Record<
    string,
    {
      parallelism: number;
      completions: number;
      activeDeadlineSeconds: number;
      startTime: number;
      backoffLimit: number;
      suspend?: boolean;
      activePods?: number;
      succeededPods?: number;
      failedPods?: number;
      expectedDeletions?: number;
      expectedSucceeded?: number;
      expectedFailed?: number;
      expectedTerminating?: number;
      expectedConditions: Cond[];
    }
  > = {
    'activeDeadlineSeconds less than single pod execution': {
      parallelism: 1,
      completions: 1,
      activeDeadlineSeconds: 10,
      startTime: 15,
      backoffLimit: 6,
      activePods: 1,
      expectedDeletions: 1,
      expectedFailed: 1,
      expectedTerminating: 1,
      expectedConditions: [c('FailureTarget', 'DeadlineExceeded', DEADLINE)],
    },
    'activeDeadlineSeconds bigger than single pod execution': {
      parallelism: 1,
      completions: 2,
      activeDeadlineSeconds: 10,
      startTime: 15,
      backoffLimit: 6,
      activePods: 1,
      succeededPods: 1,
      expectedDeletions: 1,
      expectedSucceeded: 1,
      expectedFailed: 1,
      expectedTerminating: 1,
      expectedConditions: [c('FailureTarget', 'DeadlineExceeded', DEADLINE)],
    },
    'activeDeadlineSeconds times-out before any pod starts': {
      parallelism: 1,
      completions: 1,
      activeDeadlineSeconds: 10,
      startTime: 10,
      backoffLimit: 6,
      expectedConditions: [
        c('FailureTarget', 'DeadlineExceeded', DEADLINE),
        c('Failed', 'DeadlineExceeded', DEADLINE),
      ],
    },
    'activeDeadlineSeconds with backofflimit reach': {
      parallelism: 1,
      completions: 1,
      activeDeadlineSeconds: 1,
      startTime: 10,
      backoffLimit: 0,
      failedPods: 1,
      expectedFailed: 1,
      expectedConditions: [
        c('FailureTarget', 'BackoffLimitExceeded', BLE),
        c('Failed', 'BackoffLimitExceeded', BLE),
      ],
    },
    'activeDeadlineSeconds is not triggered when Job is suspended': {
      suspend: true,
      parallelism: 1,
      completions: 2,
      activeDeadlineSeconds: 10,
      startTime: 15,
      backoffLimit: 6,
      expectedConditions: [c('Suspended', 'JobSuspended', 'Job suspended')],
    },
  };
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const f = fixture();
    const job = newJob(tc.parallelism, tc.completions, tc.backoffLimit);
    job.spec!.activeDeadlineSeconds = tc.activeDeadlineSeconds;
    job.spec!.suspend = tc.suspend ?? false;
    job.status = { startTime: formatTime(f.clock.now() - tc.startTime * 1000) };
    f.addJob(job);
    setPodsStatuses(f.podIndexer, job, {
      active: tc.activePods,
      succeeded: tc.succeededPods,
      failed: tc.failedPods,
    });
    await f.controller.syncJob('default/foobar');
    expect(f.podControl.templates).toHaveLength(0);
    expect(f.podControl.deletePodName).toHaveLength(tc.expectedDeletions ?? 0);
    const status = f.jobs.actual!.status!;
    expect(status.active ?? 0).toBe(0);
    expect(status.succeeded ?? 0).toBe(tc.expectedSucceeded ?? 0);
    expect(status.failed ?? 0).toBe(tc.expectedFailed ?? 0);
    expect(status.terminating).toBe(tc.expectedTerminating ?? 0);
    expect(status.startTime).toBeDefined();
    expect(conditionsOf(status)).toEqual(tc.expectedConditions);
  });

  it('a Job not yet past its deadline is looked at again when it falls due', async () => {
    const f = fixture();
    const job = newJob(1, 1, 6);
    job.spec!.activeDeadlineSeconds = 10;
    job.status = { startTime: formatTime(f.clock.now() - 4000) };
    f.addJob(job);
    setPodsStatuses(f.podIndexer, job, { active: 1 });
    await f.controller.syncJob('default/foobar');
    expect(await f.drain()).toEqual([]);
    await f.clock.advance(5999);
    expect(f.controller.queue.len()).toBe(0);
    await f.clock.advance(1);
    expect(await f.drain()).toEqual(['default/foobar']);
  });
});

describe('TestSingleJobFailedCondition, TestSyncJobComplete, TestSyncJobDeleted', () => {
  it('turns a Failed=False condition into the one Failed=True condition', async () => {
    const f = fixture();
    const job = newJob(1, 1, 6);
    job.spec!.activeDeadlineSeconds = 10;
    job.status = {
      startTime: formatTime(f.clock.now() - 15_000),
      conditions: [newCondition('Failed', 'False', 'DeadlineExceeded', DEADLINE, f.clock.now())],
    };
    f.addJob(job);
    await f.controller.syncJob('default/foobar');
    expect(f.podControl.deletePodName).toEqual([]);
    const failed = f.jobs.actual!.status!.conditions!.filter((x) => x.type === 'Failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.status).toBe('True');
    expect(f.recorder.events).toEqual([`Warning DeadlineExceeded ${DEADLINE}`]);
  });

  it('leaves a complete Job alone', async () => {
    const f = fixture();
    const job = newJob(1, 1, 6);
    job.status = { conditions: [newCondition('Complete', 'True', '', '', f.clock.now())] };
    f.addJob(job);
    setPodsStatuses(f.podIndexer, job, { active: 1 });
    await f.controller.syncJob('default/foobar');
    expect(f.jobs.statusUpdates).toEqual([]);
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.patches).toEqual([]);
  });

  it('does nothing for a Job gone from the cache, and forgets its expectations', async () => {
    const f = fixture();
    f.controller.expectations.expectCreations('default/foobar', 2);
    f.controller.podBackoffStore.updateBackoffRecord({
      key: 'default/foobar',
      failuresAfterLastSuccess: 2,
      lastFailureTime: epoch,
    });
    await f.controller.syncJob('default/foobar');
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.deletePodName).toEqual([]);
    expect(f.controller.expectations.getExpectations('default/foobar')).toBeUndefined();
    expect(f.controller.podBackoffStore.getBackoffRecord('default/foobar')).toBeUndefined();
  });

  it('rejects a key without a namespace', async () => {
    const f = fixture();
    await expect(f.controller.syncJob('foobar')).rejects.toThrow(
      'invalid job key "foobar": either namespace or name is missing',
    );
  });

  it('skips a Job with an unknown completion mode, with a warning', async () => {
    const f = fixture();
    const job = newJob(1, 1, 6);
    job.spec!.completionMode = 'Sometimes';
    f.addJob(job);
    await f.controller.syncJob('default/foobar');
    expect(f.recorder.events).toEqual([
      'Warning UnknownCompletionMode Skipped Job sync because completion mode is unknown',
    ]);
    expect(f.jobs.statusUpdates).toEqual([]);
  });
});

describe('TestSyncJobWhenManagedBy', () => {
  const base = (): Job => {
    const job = newJob(2, 2, 6);
    job.status = { active: 1, ready: 1, startTime: formatTime(epoch) };
    return job;
  };
  const updated = {
    active: 2,
    ready: 0,
    startTime: formatTime(epoch),
    terminating: 0,
    uncountedTerminatedPods: {},
  };
  it.each([
    ['a custom managedBy: the status is unchanged', 'custom-managed-by', undefined],
    ['the well-known managedBy: the status is updated', 'kubernetes.io/job-controller', updated],
    ['no managedBy: the status is updated', undefined, updated],
  ])('%s', async (_name, managedBy, want) => {
    const f = fixture();
    const job = base();
    if (managedBy !== undefined) job.spec!.managedBy = managedBy;
    f.addJob(job);
    await f.controller.syncJob('default/foobar');
    if (want === undefined) {
      expect(f.jobs.statusUpdates).toEqual([]);
      expect(f.podControl.templates).toEqual([]);
    } else {
      expect(f.jobs.actual!.status).toEqual(want);
    }
  });
});

const onExitCodeRules = [
  { action: 'Ignore', onExitCodes: { operator: 'In', values: [1, 2, 3] } },
  { action: 'FailJob', onExitCodes: { operator: 'In', values: [5, 6, 7] } },
];
const failedWith = (...containers: [string, number, string?][]) =>
  buildPod().status({
    phase: 'Failed',
    containerStatuses: containers.map(([name, code, at]) => terminatedStatus(name, code, at)),
  }).pod;
const disrupted = (phase: string) =>
  buildPod().status({ phase, conditions: [{ type: 'DisruptionTarget', status: 'True' }] }).pod;

describe('TestSyncJobWithJobPodFailurePolicy', () => {
  const failJob = (msg: string, reason = 'PodFailurePolicy') => [
    c('FailureTarget', reason, msg),
    c('Failed', reason, msg),
  ];
  const exit5 =
    'Container main-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 1';
  const cases: Record<
    string,
    {
      spec: Partial<NonNullable<Job['spec']>>;
      status?: JobStatus;
      pods: Pod[];
      want: Partial<ReturnType<typeof view>>;
    }
  > = {
    'default handling for pod failure if the container matching the exit codes does not match the containerName restriction':
      {
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 6,
          podFailurePolicy: {
            rules: [
              {
                action: 'Ignore',
                onExitCodes: { containerName: 'main-container', operator: 'In', values: [1, 2, 3] },
              },
              {
                action: 'FailJob',
                onExitCodes: { containerName: 'main-container', operator: 'In', values: [5, 6, 7] },
              },
            ],
          },
        },
        pods: [failedWith(['monitoring-container', 5], ['main-container', 42, testFinishedAt])],
        want: { active: 1, failed: 1 },
      },
    'running pod should not result in job fail based on OnExitCodes': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [
        buildPod().status({
          phase: 'Running',
          containerStatuses: [terminatedStatus('main-container', 5)],
        }).pod,
      ],
      want: { active: 1 },
    },
    'fail job based on OnExitCodes': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [failedWith(['main-container', 5])],
      want: { failed: 1, conditions: failJob(exit5) },
    },
    'job marked already as failure target with failed pod': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      status: {
        conditions: [newCondition('FailureTarget', 'True', 'PodFailurePolicy', exit5, epoch)],
      },
      pods: [failedWith(['main-container', 5])],
      want: { failed: 1, conditions: failJob(exit5) },
    },
    'job marked already as failure target with failed pod, message based on already deleted pod': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      status: {
        conditions: [
          newCondition(
            'FailureTarget',
            'True',
            'PodFailurePolicy',
            'Container main-container for pod default/already-deleted-pod failed with exit code 5 matching FailJob rule at index 1',
            epoch,
          ),
        ],
      },
      pods: [failedWith(['main-container', 5])],
      want: {
        failed: 1,
        conditions: failJob(
          'Container main-container for pod default/already-deleted-pod failed with exit code 5 matching FailJob rule at index 1',
        ),
      },
    },
    'fail job with multiple pods': {
      // The running pod is deleted: Failed waits until it is gone.
      spec: {
        parallelism: 2,
        completions: 2,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [buildPod().phase('Running').pod, failedWith(['main-container', 5])],
      want: {
        failed: 2,
        terminating: 1,
        conditions: [
          c(
            'FailureTarget',
            'PodFailurePolicy',
            'Container main-container for pod default/mypod-1 failed with exit code 5 matching FailJob rule at index 1',
          ),
        ],
      },
    },
    'fail indexed job based on OnExitCodes': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        completionMode: 'Indexed',
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [new PodBuilder(failedWith(['main-container', 5])).index('0').pod],
      want: { failed: 1, conditions: failJob(exit5) },
    },
    'fail job based on OnExitCodes with NotIn operator': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [5, 6, 7] } }],
        },
      },
      pods: [failedWith(['main-container', 42])],
      want: {
        failed: 1,
        conditions: failJob(
          'Container main-container for pod default/mypod-0 failed with exit code 42 matching FailJob rule at index 0',
        ),
      },
    },
    'default handling job based on OnExitCodes with NotIn operator': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [5, 6, 7] } }],
        },
      },
      pods: [failedWith(['main-container', 5, testFinishedAt])],
      want: { active: 1, failed: 1 },
    },
    'fail job based on OnExitCodes for InitContainer': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [
        buildPod().status({
          phase: 'Failed',
          initContainerStatuses: [terminatedStatus('init-container', 5)],
          containerStatuses: [terminatedStatus('main-container', 143)],
        }).pod,
      ],
      want: {
        failed: 1,
        conditions: failJob(
          'Container init-container for pod default/mypod-0 failed with exit code 5 matching FailJob rule at index 1',
        ),
      },
    },
    'ignore pod failure; both rules are matching, the first is executed only': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [failedWith(['container1', 2], ['container2', 6])],
      want: { active: 1 },
    },
    'ignore pod failure based on OnExitCodes': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [failedWith(['', 1])],
      want: { active: 1 },
    },
    'default job based on OnExitCodes': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        podFailurePolicy: { rules: onExitCodeRules },
      },
      pods: [failedWith(['', 10])],
      want: {
        failed: 1,
        conditions: [
          c('FailureTarget', 'BackoffLimitExceeded', BLE),
          c('Failed', 'BackoffLimitExceeded', BLE),
        ],
      },
    },
    'count pod failure based on OnExitCodes; both rules are matching, the first is executed only': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [
            { action: 'Count', onExitCodes: { operator: 'In', values: [1, 2] } },
            { action: 'Ignore', onExitCodes: { operator: 'In', values: [2, 3] } },
          ],
        },
      },
      pods: [failedWith(['', 2, testFinishedAt])],
      want: { active: 1, failed: 1 },
    },
    'count pod failure based on OnPodConditions; both rules are matching, the first is executed only':
      {
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 6,
          podFailurePolicy: {
            rules: [
              {
                action: 'Count',
                onPodConditions: [{ type: 'ResourceLimitExceeded', status: 'True' }],
              },
              { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
            ],
          },
        },
        pods: [
          buildPod().status({
            phase: 'Failed',
            conditions: [
              { type: 'ResourceLimitExceeded', status: 'True' },
              { type: 'DisruptionTarget', status: 'True' },
            ],
            containerStatuses: [
              {
                ...terminatedStatus('', 0),
                state: { terminated: { exitCode: 0, finishedAt: testFinishedAt } },
              },
            ],
          }).pod,
        ],
        want: { active: 1, failed: 1 },
      },
    'ignore pod failure based on OnPodConditions': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        podFailurePolicy: {
          rules: [
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
      },
      pods: [disrupted('Failed')],
      want: { active: 1 },
    },
    'ignore pod failure based on OnPodConditions, ignored failures delays pod recreation': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 0,
        podFailurePolicy: {
          rules: [
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
      },
      pods: [new PodBuilder(disrupted('Failed')).customDeletionTimestamp(epoch).pod],
      want: {},
    },
    'fail job based on OnPodConditions': {
      spec: {
        parallelism: 1,
        completions: 1,
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
      },
      pods: [disrupted('Failed')],
      want: {
        failed: 1,
        conditions: failJob(
          'Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0',
        ),
      },
    },
    'terminating Pod not considered failed when JobPodFailurePolicy is enabled and used': {
      spec: {
        parallelism: 1,
        backoffLimit: 0,
        podFailurePolicy: {
          rules: [
            { action: 'Count', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
      },
      pods: [buildPod().customDeletionTimestamp(epoch).pod],
      want: { terminating: 1 },
    },
  };
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const job = newJob(-1, -1, 6);
    job.spec = { ...job.spec!, ...tc.spec };
    // A pod failure policy implies replacing only failed pods.
    job.spec.podReplacementPolicy ??= 'Failed';
    if (tc.status) job.status = structuredClone(tc.status);
    const { status } = await syncOnce(job, tc.pods, { clock: new FakeClock(epoch) });
    const v = view(status);
    const w = wantStatus(tc.want);
    expect({
      conditions: v.conditions,
      active: v.active,
      succeeded: v.succeeded,
      failed: v.failed,
      terminating: v.terminating,
    }).toEqual({
      conditions: w.conditions,
      active: w.active,
      succeeded: w.succeeded,
      failed: w.failed,
      terminating: w.terminating,
    });
  });
});

describe('TestSyncJobWithJobSuccessPolicy', () => {
  const indexed = (
    completions: number,
    extra: Partial<NonNullable<Job['spec']>>,
    status?: JobStatus,
  ): Job => {
    const job = newJob(completions, completions, 2 ** 31 - 1, 'Indexed');
    job.spec = { ...job.spec!, ...extra };
    if (status) job.status = status;
    return job;
  };
  const policy01 = { rules: [{ succeededIndexes: '0,1', succeededCount: 1 }] };
  const scmCond = () => newCondition('SuccessCriteriaMet', 'True', 'SuccessPolicy', POLICY0, epoch);
  const disruptionFailJob = {
    rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
  };
  const ix = (pod: PodBuilder, i: string) => pod.index(i).trackingFinalizer().pod;
  const scm = c('SuccessCriteriaMet', 'SuccessPolicy', POLICY0);
  const complete = c('Complete', 'SuccessPolicy', POLICY0);
  const cases: Record<string, { job: Job; pods: Pod[]; want: Partial<ReturnType<typeof view>> }> = {
    'job has SuccessCriteriaMet condition if job meets to successPolicy and some indexes fail': {
      job: indexed(3, { successPolicy: policy01 }),
      pods: [
        ix(buildPod().uid('a1').phase('Failed'), '0'),
        ix(buildPod().uid('a2').phase('Running'), '0'),
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ix(buildPod().uid('c').phase('Running'), '2'),
      ],
      want: { failed: 1, succeeded: 1, terminating: 2, completedIndexes: '1', conditions: [scm] },
    },
    "job with podFailurePolicy and successPolicy: SuccessCriteriaMet if the successPolicy is met and the podFailurePolicy isn't":
      {
        job: indexed(2, { successPolicy: policy01, podFailurePolicy: disruptionFailJob }),
        pods: [
          ix(buildPod().uid('a1').phase('Failed'), '0'),
          ix(buildPod().uid('a2').phase('Running'), '0'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ],
        want: { failed: 1, succeeded: 1, terminating: 1, completedIndexes: '1', conditions: [scm] },
      },
    "job with backoffLimitPerIndex and successPolicy: SuccessCriteriaMet if the successPolicy is met and backoffLimitPerIndex isn't":
      {
        job: indexed(2, { successPolicy: policy01, backoffLimitPerIndex: 2 }),
        pods: [
          ix(buildPod().uid('a1').phase('Failed'), '0'),
          ix(buildPod().uid('a2').phase('Running'), '0'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ],
        want: {
          failed: 1,
          succeeded: 1,
          terminating: 1,
          completedIndexes: '1',
          failedIndexes: '',
          conditions: [scm],
        },
      },
    'job has both Complete and SuccessCriteriaMet conditions once its pods are gone': {
      job: indexed(
        2,
        { successPolicy: policy01, backoffLimitPerIndex: 2 },
        { conditions: [scmCond()] },
      ),
      pods: [
        ix(buildPod().uid('a').phase('Failed'), '0'),
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
      ],
      want: {
        failed: 1,
        succeeded: 1,
        completedIndexes: '1',
        failedIndexes: '',
        conditions: [scm, complete],
      },
    },
    'job has SuccessCriteriaMet condition when job meets to successPolicy and some pods still are running (kubernetes/kubernetes#123775)':
      {
        job: indexed(
          3,
          { successPolicy: policy01, backoffLimitPerIndex: 3 },
          { conditions: [scmCond()] },
        ),
        pods: [
          ix(buildPod().uid('a1').phase('Failed'), '0'),
          ix(buildPod().uid('a2').phase('Running'), '1'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
          ix(buildPod().uid('c').phase('Running'), '2'),
        ],
        want: {
          failed: 1,
          succeeded: 1,
          terminating: 2,
          completedIndexes: '1',
          failedIndexes: '',
          conditions: [scm],
        },
      },
    'job has a failed condition when job meets to both successPolicy and podFailurePolicy': {
      job: indexed(2, { successPolicy: policy01, podFailurePolicy: disruptionFailJob }),
      pods: [
        ix(new PodBuilder(disrupted('Failed')).uid('a1'), '0'),
        ix(buildPod().uid('a2').phase('Running'), '0'),
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
      ],
      want: {
        failed: 2,
        succeeded: 1,
        terminating: 1,
        completedIndexes: '1',
        conditions: [
          c(
            'FailureTarget',
            'PodFailurePolicy',
            'Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0',
          ),
        ],
      },
    },
    'job has a failed condition when job meets to both successPolicy and backoffLimitPerIndex': {
      job: indexed(2, { successPolicy: policy01, backoffLimitPerIndex: 1 }),
      pods: [
        ix(buildPod().uid('a').phase('Failed').indexFailureCount('1'), '0'),
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
      ],
      want: {
        failed: 1,
        succeeded: 1,
        completedIndexes: '1',
        failedIndexes: '0',
        conditions: [
          c('FailureTarget', 'FailedIndexes', 'Job has failed indexes'),
          c('Failed', 'FailedIndexes', 'Job has failed indexes'),
        ],
      },
    },
    'job has a failed condition when job meets to both successPolicy and backoffLimit': {
      job: indexed(2, { successPolicy: policy01, backoffLimit: 1 }),
      pods: [
        ix(buildPod().uid('a1').phase('Failed'), '0'),
        ix(buildPod().uid('a2').phase('Failed'), '0'),
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
      ],
      want: {
        failed: 2,
        succeeded: 1,
        completedIndexes: '1',
        conditions: [
          c('FailureTarget', 'BackoffLimitExceeded', BLE),
          c('Failed', 'BackoffLimitExceeded', BLE),
        ],
      },
    },
    'job with SuccessCriteriaMet never gets FailureTarget or Failed even if it meets podFailurePolicy':
      {
        job: indexed(
          2,
          {
            successPolicy: { rules: [{ succeededCount: 1 }] },
            podFailurePolicy: disruptionFailJob,
          },
          {
            succeeded: 1,
            terminating: 0,
            completedIndexes: '1',
            uncountedTerminatedPods: {},
            conditions: [scmCond()],
          },
        ),
        pods: [
          ix(new PodBuilder(disrupted('Failed')).uid('a'), '0'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ],
        want: { failed: 1, succeeded: 1, completedIndexes: '1', conditions: [scm, complete] },
      },
    'job with SuccessCriteriaMet never gets FailureTarget or Failed even if it meets backoffLimitPerIndex':
      {
        job: indexed(
          2,
          { successPolicy: { rules: [{ succeededIndexes: '1' }] }, backoffLimitPerIndex: 1 },
          {
            succeeded: 1,
            terminating: 0,
            completedIndexes: '1',
            uncountedTerminatedPods: {},
            conditions: [scmCond()],
          },
        ),
        pods: [
          ix(buildPod().uid('a').phase('Failed').indexFailureCount('1'), '0'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ],
        want: {
          failed: 1,
          succeeded: 1,
          completedIndexes: '1',
          failedIndexes: '0',
          conditions: [scm, complete],
        },
      },
    'job with SuccessCriteriaMet never gets FailureTarget or Failed even if it meets backoffLimit':
      {
        job: indexed(
          2,
          { successPolicy: policy01, backoffLimit: 1 },
          {
            succeeded: 1,
            terminating: 0,
            completedIndexes: '1',
            uncountedTerminatedPods: {},
            conditions: [scmCond()],
          },
        ),
        pods: [
          ix(buildPod().uid('a').phase('Failed'), '0'),
          ix(buildPod().uid('b').phase('Succeeded'), '1'),
        ],
        want: { failed: 1, succeeded: 1, completedIndexes: '1', conditions: [scm, complete] },
      },
    'job with FailureTarget never gets SuccessCriteriaMet even if it meets successPolicy': {
      job: indexed(
        2,
        { successPolicy: policy01, podFailurePolicy: disruptionFailJob },
        {
          failed: 1,
          terminating: 0,
          completedIndexes: '1',
          uncountedTerminatedPods: {},
          conditions: [
            newCondition(
              'FailureTarget',
              'True',
              'PodFailurePolicy',
              'Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0',
              epoch,
            ),
          ],
        },
      ),
      pods: [
        new PodBuilder(disrupted('Failed')).uid('a').index('0').pod,
        ix(buildPod().uid('b').phase('Succeeded'), '1'),
      ],
      want: {
        failed: 1,
        succeeded: 1,
        completedIndexes: '1',
        conditions: [
          c(
            'FailureTarget',
            'PodFailurePolicy',
            'Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0',
          ),
          c(
            'Failed',
            'PodFailurePolicy',
            'Pod default/mypod-0 has condition DisruptionTarget matching FailJob rule at index 0',
          ),
        ],
      },
    },
  };
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const { status } = await syncOnce(tc.job, tc.pods, { bare: true, clock: new FakeClock(epoch) });
    expect(view(status)).toEqual(wantStatus(tc.want));
  });
});

describe('TestSyncJobWithJobBackoffLimitPerIndex', () => {
  const job = (extra: Partial<NonNullable<Job['spec']>> = {}) => {
    const j = newJob(2, 2, 2 ** 31 - 1, 'Indexed');
    j.spec = { ...j.spec!, backoffLimitPerIndex: 1, ...extra };
    return j;
  };
  const pod = (uid: string, index: string, phase: string, failures: string) =>
    buildPod().uid(uid).index(index).phase(phase).indexFailureCount(failures).pod;
  const exit3 = (uid: string) =>
    buildPod()
      .uid(uid)
      .index('0')
      .status({ phase: 'Failed', containerStatuses: [terminatedStatus('x', 3)] })
      .indexFailureCount('0').pod;
  const rule = (action: string) => ({
    podFailurePolicy: { rules: [{ action, onExitCodes: { operator: 'In', values: [3] } }] },
  });
  const cases: Record<string, { job: Job; pods: Pod[]; want: Partial<ReturnType<typeof view>> }> = {
    'successful job after a single failure within index': {
      job: job(),
      pods: [
        pod('a1', '0', 'Failed', '0'),
        pod('a2', '0', 'Succeeded', '1'),
        pod('b', '1', 'Succeeded', '0'),
      ],
      want: {
        failed: 1,
        succeeded: 2,
        completedIndexes: '0,1',
        failedIndexes: '',
        conditions: [
          c('SuccessCriteriaMet', 'CompletionsReached', COMPLETIONS),
          c('Complete', 'CompletionsReached', COMPLETIONS),
        ],
      },
    },
    'single failed pod, not counted as the replacement pod creation is delayed': {
      job: job(),
      pods: [pod('a', '0', 'Failed', '0')],
      want: { active: 2, failedIndexes: '' },
    },
    'single failed pod replaced already': {
      job: job(),
      pods: [pod('a', '0', 'Failed', '0'), pod('b', '0', 'Pending', '1')],
      want: { active: 2, failed: 1, failedIndexes: '' },
    },
    'single failed index due to exceeding the backoff limit per index, the job continues': {
      job: job(),
      pods: [pod('a', '0', 'Failed', '1')],
      want: { active: 1, failed: 1, failedIndexes: '0' },
    },
    'single failed index due to FailIndex action, the job continues': {
      job: job(rule('FailIndex')),
      pods: [exit3('a')],
      want: { active: 1, failed: 1, failedIndexes: '0' },
    },
    'job failed index due to FailJob action': {
      job: job({ backoffLimit: 6, ...rule('FailJob') }),
      pods: [exit3('a')],
      want: {
        failed: 1,
        failedIndexes: '',
        conditions: [
          c(
            'FailureTarget',
            'PodFailurePolicy',
            'Container x for pod default/mypod-0 failed with exit code 3 matching FailJob rule at index 0',
          ),
          c(
            'Failed',
            'PodFailurePolicy',
            'Container x for pod default/mypod-0 failed with exit code 3 matching FailJob rule at index 0',
          ),
        ],
      },
    },
    'job pod failure ignored due to matching Ignore action': {
      job: job({ backoffLimit: 6, ...rule('Ignore') }),
      pods: [exit3('a')],
      want: { active: 2, failedIndexes: '' },
    },
    'job failed due to exceeding backoffLimit before backoffLimitPerIndex': {
      job: job({ backoffLimit: 1 }),
      pods: [pod('a', '0', 'Failed', '0'), pod('b', '1', 'Failed', '0')],
      want: {
        failed: 2,
        failedIndexes: '',
        conditions: [
          c('FailureTarget', 'BackoffLimitExceeded', BLE),
          c('Failed', 'BackoffLimitExceeded', BLE),
        ],
      },
    },
    'job failed due to failed indexes': {
      job: job(),
      pods: [pod('a', '0', 'Failed', '1'), pod('b', '1', 'Succeeded', '0')],
      want: {
        failed: 1,
        succeeded: 1,
        failedIndexes: '0',
        completedIndexes: '1',
        conditions: [
          c('FailureTarget', 'FailedIndexes', 'Job has failed indexes'),
          c('Failed', 'FailedIndexes', 'Job has failed indexes'),
        ],
      },
    },
    'job failed due to exceeding max failed indexes': {
      job: job({ parallelism: 4, completions: 4, maxFailedIndexes: 1 }),
      pods: [
        pod('a', '0', 'Failed', '1'),
        pod('b', '1', 'Succeeded', '0'),
        pod('c', '2', 'Failed', '1'),
        pod('d', '3', 'Running', '0'),
      ],
      want: {
        failed: 3,
        succeeded: 1,
        terminating: 1,
        failedIndexes: '0,2',
        completedIndexes: '1',
        conditions: [
          c(
            'FailureTarget',
            'MaxFailedIndexesExceeded',
            'Job has exceeded the specified maximal number of failed indexes',
          ),
        ],
      },
    },
  };
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const { status } = await syncOnce(tc.job, tc.pods, { clock: new FakeClock(epoch) });
    expect(view(status)).toEqual(wantStatus(tc.want));
  });

  it('gives a replacement pod the failure count of the pod it replaces', async () => {
    const { f } = await syncOnce(job(), [pod('a', '0', 'Failed', '2')], {
      clock: new FakeClock(epoch),
    });
    // backoffLimitPerIndex 1 is exceeded by index 0, so only index 1 is created, counting nothing.
    expect(f.podControl.templates.map((t) => t.metadata?.annotations)).toEqual([
      {
        'batch.kubernetes.io/job-completion-index': '1',
        'batch.kubernetes.io/job-index-failure-count': '0',
      },
    ]);
    const { f: f2 } = await syncOnce(
      job({ backoffLimitPerIndex: 3 }),
      [pod('a', '0', 'Failed', '1')],
      {
        clock: new FakeClock(epoch),
      },
    );
    const created = f2.podControl.templates.find(
      (t) => t.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === '0',
    );
    expect(created?.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count']).toBe(
      '2',
    );
  });
});

describe('TestJobBackoffForOnFailure', () => {
  const cases: Record<
    string,
    {
      parallelism: number;
      completions: number;
      backoffLimit: number;
      suspend?: boolean;
      restartCounts: number[];
      podPhase: string;
      expectedActive: number;
      expectedSucceeded: number;
      expectedFailed: number;
      expectedConditions: Cond[];
    }
  > = {
    'backoffLimit 0 should have 1 pod active': {
      parallelism: 1,
      completions: 1,
      backoffLimit: 0,
      restartCounts: [0],
      podPhase: 'Running',
      expectedActive: 1,
      expectedSucceeded: 0,
      expectedFailed: 0,
      expectedConditions: [],
    },
    'backoffLimit 1 with restartCount 0 should have 1 pod active': {
      parallelism: 1,
      completions: 1,
      backoffLimit: 1,
      restartCounts: [0],
      podPhase: 'Running',
      expectedActive: 1,
      expectedSucceeded: 0,
      expectedFailed: 0,
      expectedConditions: [],
    },
    ...Object.fromEntries(
      (
        [
          [
            'backoffLimit 1 with restartCount 1 and podRunning should have 0 pod active',
            1,
            1,
            [1],
            'Running',
          ],
          [
            'backoffLimit 1 with restartCount 1 and podPending should have 0 pod active',
            1,
            1,
            [1],
            'Pending',
          ],
          ['too many job failures with podRunning - single pod', 1, 2, [2], 'Running'],
          ['too many job failures with podPending - single pod', 1, 2, [2], 'Pending'],
          ['too many job failures with podRunning - multiple pods', 2, 2, [1, 1], 'Running'],
          ['too many job failures with podPending - multiple pods', 2, 2, [1, 1], 'Pending'],
        ] as const
      ).map(([name, parallelism, backoffLimit, restartCounts, podPhase]) => [
        name,
        {
          parallelism,
          completions: parallelism === 1 && name.includes('backoffLimit 1') ? 1 : 5,
          backoffLimit,
          restartCounts: [...restartCounts],
          podPhase,
          expectedActive: 0,
          expectedSucceeded: 0,
          expectedFailed: restartCounts.length,
          // The pods are deleted; Failed follows once they are gone.
          expectedConditions: [c('FailureTarget', 'BackoffLimitExceeded', BLE)],
        },
      ]),
    ),
    'not enough failures': {
      parallelism: 2,
      completions: 5,
      backoffLimit: 3,
      restartCounts: [1, 1],
      podPhase: 'Running',
      expectedActive: 2,
      expectedSucceeded: 0,
      expectedFailed: 0,
      expectedConditions: [],
    },
    'suspending a job': {
      parallelism: 2,
      completions: 4,
      backoffLimit: 6,
      suspend: true,
      restartCounts: [1, 1],
      podPhase: 'Running',
      expectedActive: 0,
      expectedSucceeded: 0,
      expectedFailed: 0,
      expectedConditions: [c('Suspended', 'JobSuspended', 'Job suspended')],
    },
    'finished job': {
      parallelism: 2,
      completions: 4,
      backoffLimit: 6,
      suspend: true,
      restartCounts: [1, 1, 2, 0],
      podPhase: 'Succeeded',
      expectedActive: 0,
      expectedSucceeded: 4,
      expectedFailed: 0,
      expectedConditions: [
        c('SuccessCriteriaMet', 'CompletionsReached', COMPLETIONS),
        c('Complete', 'CompletionsReached', COMPLETIONS),
      ],
    },
  };
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const f = fixture();
    const job = newJob(tc.parallelism, tc.completions, tc.backoffLimit);
    job.spec!.template.spec!.restartPolicy = 'OnFailure';
    job.spec!.suspend = tc.suspend ?? false;
    f.addJob(job);
    newPodList(tc.restartCounts.length, tc.podPhase, job).forEach((pod, i) => {
      pod.status!.containerStatuses = [
        { name: 'main', image: '', imageID: '', ready: false, restartCount: tc.restartCounts[i]! },
      ];
      f.podIndexer.add(pod);
    });
    await f.controller.syncJob('default/foobar');
    const status = f.jobs.actual!.status!;
    expect(status.active ?? 0).toBe(tc.expectedActive);
    expect(status.succeeded ?? 0).toBe(tc.expectedSucceeded);
    expect(status.failed ?? 0).toBe(tc.expectedFailed);
    expect(conditionsOf(status)).toEqual(tc.expectedConditions);
  });
});

describe('TestJobBackoffOnRestartPolicyNever', () => {
  const cases: Record<
    string,
    [
      parallelism: number,
      completions: number,
      backoffLimit: number,
      activePhase: string,
      active: number,
      failed: number,
      expectedActive: number,
      failedConditions: boolean,
    ]
  > = {
    'not enough failures with backoffLimit 0 - single pod': [1, 1, 0, 'Running', 1, 0, 1, false],
    'not enough failures with backoffLimit 1 - single pod': [1, 1, 1, '', 0, 1, 1, false],
    'too many failures with backoffLimit 1 - single pod': [1, 1, 1, '', 0, 2, 0, true],
    'not enough failures with backoffLimit 6 - multiple pods': [2, 2, 6, 'Running', 1, 6, 2, false],
    'too many failures with backoffLimit 6 - multiple pods': [2, 2, 6, '', 0, 7, 0, true],
  };
  it.each(Object.entries(cases))(
    '%s',
    async (
      _name,
      [
        parallelism,
        completions,
        backoffLimit,
        activePhase,
        active,
        failed,
        expectedActive,
        failedConds,
      ],
    ) => {
      const f = fixture();
      const job = newJob(parallelism, completions, backoffLimit);
      job.spec!.template.spec!.restartPolicy = 'Never';
      f.addJob(job);
      for (const p of newPodList(failed, 'Failed', job)) f.podIndexer.add(p);
      for (const p of newPodList(active, activePhase, job)) f.podIndexer.add(p);
      await f.controller.syncJob('default/foobar');
      const status = f.jobs.actual!.status!;
      expect(status.active ?? 0).toBe(expectedActive);
      expect(status.succeeded ?? 0).toBe(0);
      expect(status.failed ?? 0).toBe(failed);
      expect(conditionsOf(status)).toEqual(
        failedConds
          ? [
              c('FailureTarget', 'BackoffLimitExceeded', BLE),
              c('Failed', 'BackoffLimitExceeded', BLE),
            ]
          : [],
      );
      if (failedConds) {
        expect(f.recorder.events).toEqual([`Warning BackoffLimitExceeded ${BLE}`]);
      }
    },
  );
});
