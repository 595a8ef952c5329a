// A port of job_controller_test.go's TestControllerSyncJob table: one
// syncJob over caches filled by hand, a fake pod control and a Job client
// that records status writes. Every feature gate is on (the newest
// release's defaults), so where upstream's table has a case for each gate
// setting the "enabled" expectations are the ones kept: status.terminating
// is always reported, a failing Job gets FailureTarget before Failed, and a
// completing one SuccessCriteriaMet (reason CompletionsReached) before
// Complete.
import type { JobCondition, PodFailurePolicy } from 'kubernetes-types/batch/v1.js';
import { FakeClock, formatTime } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { completionIndexEnvName } from '../src/indexed-job-utils.js';
import { getCompletionIndex, jobCompletionIndexAnnotation } from '../src/index.js';
import { newCondition } from '../src/sync-job-ctx.js';
import {
  conditionsOf,
  epoch,
  fixture,
  mut,
  newJob,
  setPodsStatuses,
  setPodsStatusesWithIndexes,
  type IndexPhase,
} from './helpers.js';

interface Case {
  // the Job
  parallelism: number;
  completions: number;
  backoffLimit?: number;
  deleting?: boolean;
  podLimit?: number;
  completionMode?: 'Indexed';
  wasSuspended?: boolean;
  suspend?: boolean;
  podReplacementPolicy?: 'Failed' | 'TerminatingOrFailed';
  podFailurePolicy?: PodFailurePolicy;
  initialStatus?: {
    active?: number;
    succeed?: number;
    failed?: number;
    startTime?: number;
    conditions?: JobCondition[];
  };
  backoffRecord?: { failuresAfterLastSuccess: number; lastFailureTime: number | undefined };
  controllerTime?: number;
  // its pods
  podControllerError?: boolean;
  pendingPods?: number;
  activePods?: number;
  readyPods?: number;
  succeededPods?: number;
  failedPods?: number;
  terminatingPods?: number;
  podsWithIndexes?: IndexPhase[];
  /** negative: expect deletions, positive: expect creations */
  fakeExpectationAtCreation?: number;
  // what should happen
  expectedCreations?: number;
  expectedDeletions?: number;
  expectedActive?: number;
  expectedReady?: number;
  expectedSucceeded?: number;
  expectedCompletedIdxs?: string;
  expectedFailed?: number;
  expectedTerminating?: number;
  expectedConditions?: Omit<JobCondition, 'lastProbeTime' | 'lastTransitionTime'>[];
  expectedCreatedIndexes?: number[];
  expectedPodPatches?: number;
}

const backoffExceeded = (type: 'Failed' | 'FailureTarget') => ({
  type,
  status: 'True',
  reason: 'BackoffLimitExceeded',
  message: 'Job has reached the specified backoff limit',
});
const completed = [
  {
    type: 'SuccessCriteriaMet',
    status: 'True',
    reason: 'CompletionsReached',
    message: 'Reached expected number of succeeded pods',
  },
  {
    type: 'Complete',
    status: 'True',
    reason: 'CompletionsReached',
    message: 'Reached expected number of succeeded pods',
  },
];
const suspended = {
  type: 'Suspended',
  status: 'True',
  reason: 'JobSuspended',
  message: 'Job suspended',
};

const cases: Record<string, Case> = {
  'job start': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    expectedCreations: 2,
    expectedActive: 2,
  },
  'WQ job start': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    expectedCreations: 2,
    expectedActive: 2,
  },
  'pending pods': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    pendingPods: 2,
    expectedActive: 2,
  },
  'correct # of pods': {
    parallelism: 3,
    completions: 5,
    backoffLimit: 6,
    activePods: 3,
    readyPods: 2,
    expectedActive: 3,
    expectedReady: 2,
  },
  'WQ job: correct # of pods': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    activePods: 2,
    expectedActive: 2,
  },
  'too few active pods': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 1,
    succeededPods: 1,
    expectedCreations: 1,
    expectedActive: 2,
    expectedSucceeded: 1,
    expectedPodPatches: 1,
  },
  'WQ job: recreate pods when failed': {
    parallelism: 1,
    completions: -1,
    backoffLimit: 6,
    activePods: 1,
    failedPods: 1,
    podReplacementPolicy: 'Failed',
    terminatingPods: 1,
    expectedTerminating: 1,
    // Removes the finalizer of the failed pod.
    expectedPodPatches: 1,
    expectedFailed: 1,
    expectedActive: 1,
  },
  'WQ job: turn on PodReplacementPolicy but not set PodReplacementPolicy': {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    activePods: 1,
    failedPods: 1,
    terminatingPods: 1,
    expectedTerminating: 1,
    expectedActive: 1,
    expectedPodPatches: 2,
    expectedFailed: 2,
  },
  'WQ job: recreate pods when terminating or failed': {
    parallelism: 1,
    completions: -1,
    backoffLimit: 6,
    activePods: 1,
    failedPods: 1,
    podReplacementPolicy: 'TerminatingOrFailed',
    terminatingPods: 1,
    expectedTerminating: 1,
    expectedActive: 1,
    expectedPodPatches: 2,
    expectedFailed: 2,
  },
  'more terminating pods than parallelism': {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    activePods: 2,
    terminatingPods: 4,
    podReplacementPolicy: 'Failed',
    expectedTerminating: 5,
    expectedActive: 1,
    expectedDeletions: 1,
    expectedPodPatches: 1,
  },
  'more terminating pods than parallelism; PodFailurePolicy used': {
    // kubernetes/kubernetes#122235
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    activePods: 2,
    terminatingPods: 4,
    podFailurePolicy: { rules: [] },
    expectedTerminating: 5,
    expectedActive: 1,
    expectedDeletions: 1,
    expectedPodPatches: 1,
  },
  'too few active pods and active back-off': {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    backoffRecord: { failuresAfterLastSuccess: 1, lastFailureTime: epoch },
    initialStatus: { startTime: epoch },
    controllerTime: epoch,
    expectedActive: 0,
  },
  'too few active pods and no back-offs': {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    backoffRecord: { failuresAfterLastSuccess: 0, lastFailureTime: epoch },
    controllerTime: epoch,
    expectedCreations: 1,
    expectedActive: 1,
  },
  'too few active pods with a dynamic job': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    activePods: 1,
    expectedCreations: 1,
    expectedActive: 2,
  },
  'too few active pods, with controller error': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    podControllerError: true,
    activePods: 1,
    succeededPods: 1,
    expectedCreations: 1,
    expectedActive: 1,
    expectedSucceeded: 0,
    expectedPodPatches: 1,
  },
  'too many active pods': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 3,
    expectedDeletions: 1,
    expectedActive: 2,
    expectedPodPatches: 1,
    expectedTerminating: 1,
  },
  'too many active pods, with controller error': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    podControllerError: true,
    activePods: 3,
    expectedDeletions: 0,
    expectedPodPatches: 1,
    expectedActive: 3,
  },
  'count ready pods when too many active pods': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 3,
    readyPods: 3,
    expectedDeletions: 1,
    expectedActive: 2,
    expectedPodPatches: 1,
    expectedReady: 2,
    expectedTerminating: 1,
  },
  'failed + succeed pods: reset backoff delay': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 1,
    succeededPods: 1,
    failedPods: 1,
    expectedCreations: 1,
    expectedActive: 2,
    expectedSucceeded: 1,
    expectedFailed: 1,
    expectedPodPatches: 2,
  },
  'new failed pod': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 1,
    failedPods: 1,
    expectedCreations: 1,
    expectedActive: 2,
    expectedFailed: 1,
    expectedPodPatches: 1,
  },
  'no new pod; possible finalizer update of failed pod': {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    initialStatus: { active: 1, succeed: 0, failed: 1 },
    activePods: 1,
    expectedActive: 1,
    expectedFailed: 1,
  },
  'only new failed pod with controller error': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    podControllerError: true,
    activePods: 1,
    failedPods: 1,
    expectedCreations: 1,
    expectedActive: 1,
    expectedFailed: 0,
    expectedPodPatches: 1,
  },
  'job finish': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    succeededPods: 5,
    expectedSucceeded: 5,
    expectedConditions: completed,
    expectedPodPatches: 5,
  },
  'WQ job finishing': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    activePods: 1,
    succeededPods: 1,
    expectedActive: 1,
    expectedSucceeded: 1,
    expectedPodPatches: 1,
  },
  'WQ job all finished': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    succeededPods: 2,
    expectedSucceeded: 2,
    expectedConditions: completed,
    expectedPodPatches: 2,
  },
  'WQ job all finished despite one failure': {
    parallelism: 2,
    completions: -1,
    backoffLimit: 6,
    succeededPods: 1,
    failedPods: 1,
    expectedSucceeded: 1,
    expectedFailed: 1,
    expectedConditions: completed,
    expectedPodPatches: 2,
  },
  'more active pods than parallelism': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 10,
    expectedDeletions: 8,
    expectedActive: 2,
    expectedPodPatches: 8,
    expectedTerminating: 8,
  },
  'more active pods than remaining completions': {
    parallelism: 3,
    completions: 4,
    backoffLimit: 6,
    activePods: 3,
    succeededPods: 2,
    expectedDeletions: 1,
    expectedActive: 2,
    expectedSucceeded: 2,
    expectedPodPatches: 3,
    expectedTerminating: 1,
  },
  'status change': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    activePods: 2,
    succeededPods: 2,
    expectedActive: 2,
    expectedSucceeded: 2,
    expectedPodPatches: 2,
  },
  'deleting job': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    deleting: true,
    pendingPods: 1,
    activePods: 1,
    succeededPods: 1,
    expectedActive: 2,
    expectedSucceeded: 1,
    expectedPodPatches: 3,
  },
  'limited pods': {
    parallelism: 100,
    completions: 200,
    backoffLimit: 6,
    podLimit: 10,
    expectedCreations: 10,
    expectedActive: 10,
  },
  'too many job failures': {
    parallelism: 2,
    completions: 5,
    deleting: true,
    failedPods: 1,
    expectedFailed: 1,
    expectedConditions: [backoffExceeded('FailureTarget'), backoffExceeded('Failed')],
    expectedPodPatches: 1,
  },
  'job failures, unsatisfied expectations': {
    parallelism: 2,
    completions: 5,
    deleting: true,
    failedPods: 1,
    fakeExpectationAtCreation: 1,
    expectedFailed: 1,
    expectedPodPatches: 1,
  },
  'indexed job start': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    expectedCreations: 2,
    expectedActive: 2,
    expectedCreatedIndexes: [0, 1],
  },
  'indexed job with some pods deleted, podReplacementPolicy Failed': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    expectedCreations: 1,
    expectedActive: 1,
    expectedCreatedIndexes: [0],
    podReplacementPolicy: 'Failed',
    terminatingPods: 1,
    expectedTerminating: 1,
  },
  'indexed job with some pods deleted, podReplacementPolicy TerminatingOrFailed': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    expectedCreations: 2,
    expectedActive: 2,
    expectedCreatedIndexes: [0, 1],
    podReplacementPolicy: 'TerminatingOrFailed',
    terminatingPods: 1,
    expectedTerminating: 1,
    expectedPodPatches: 1,
  },
  'indexed job completed': {
    parallelism: 2,
    completions: 3,
    backoffLimit: 6,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Succeeded'],
      ['1', 'Failed'],
      ['1', 'Succeeded'],
      ['2', 'Succeeded'],
    ],
    expectedSucceeded: 3,
    expectedFailed: 1,
    expectedCompletedIdxs: '0-2',
    expectedConditions: completed,
    expectedPodPatches: 4,
  },
  'indexed job failed': {
    // Also upstream's "count terminating pods when indexed job fails and
    // PodReplacementPolicy enabled" and "backoff limit exceeded; JobManagedBy
    // enabled": Failed waits for the deleted pod to go.
    parallelism: 2,
    completions: 3,
    backoffLimit: 0,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Succeeded'],
      ['1', 'Failed'],
      ['2', 'Running'],
    ],
    expectedSucceeded: 1,
    expectedFailed: 2,
    expectedCompletedIdxs: '0',
    expectedConditions: [backoffExceeded('FailureTarget')],
    expectedPodPatches: 3,
    expectedDeletions: 1,
    expectedTerminating: 1,
  },
  'count ready pods when job fails': {
    parallelism: 2,
    completions: 3,
    backoffLimit: 0,
    activePods: 2,
    readyPods: 2,
    failedPods: 1,
    expectedFailed: 3,
    expectedConditions: [backoffExceeded('FailureTarget')],
    expectedPodPatches: 3,
    expectedDeletions: 2,
    expectedTerminating: 2,
  },
  'indexed job repeated completed index': {
    parallelism: 2,
    completions: 3,
    backoffLimit: 6,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Succeeded'],
      ['1', 'Succeeded'],
      ['1', 'Succeeded'],
    ],
    expectedCreations: 1,
    expectedActive: 1,
    expectedSucceeded: 2,
    expectedCompletedIdxs: '0,1',
    expectedCreatedIndexes: [2],
    expectedPodPatches: 3,
  },
  'indexed job some running and completed pods': {
    parallelism: 8,
    completions: 20,
    backoffLimit: 6,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Running'],
      ['2', 'Succeeded'],
      ['3', 'Pending'],
      ['4', 'Succeeded'],
      ['5', 'Succeeded'],
      ['7', 'Succeeded'],
      ['8', 'Succeeded'],
      ['9', 'Succeeded'],
    ],
    expectedCreations: 6,
    expectedActive: 8,
    expectedSucceeded: 6,
    expectedCompletedIdxs: '2,4,5,7-9',
    expectedCreatedIndexes: [1, 6, 10, 11, 12, 13],
    expectedPodPatches: 6,
  },
  'indexed job some failed pods': {
    parallelism: 3,
    completions: 4,
    backoffLimit: 6,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Failed'],
      ['1', 'Pending'],
      ['2', 'Failed'],
    ],
    expectedCreations: 2,
    expectedActive: 3,
    expectedFailed: 2,
    expectedCreatedIndexes: [0, 2],
    expectedPodPatches: 2,
  },
  'indexed job some pods without index': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    activePods: 1,
    succeededPods: 1,
    failedPods: 1,
    podsWithIndexes: [
      ['invalid', 'Running'],
      ['invalid', 'Succeeded'],
      ['invalid', 'Failed'],
      ['invalid', 'Pending'],
      ['0', 'Succeeded'],
      ['1', 'Running'],
      ['2', 'Running'],
    ],
    expectedDeletions: 3,
    expectedActive: 2,
    expectedSucceeded: 1,
    expectedFailed: 0,
    expectedCompletedIdxs: '0',
    expectedPodPatches: 8,
    expectedTerminating: 3,
  },
  'indexed job repeated indexes': {
    parallelism: 5,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    succeededPods: 1,
    failedPods: 1,
    podsWithIndexes: [
      ['invalid', 'Running'],
      ['0', 'Succeeded'],
      ['1', 'Running'],
      ['2', 'Running'],
      ['2', 'Pending'],
    ],
    expectedCreations: 0,
    expectedDeletions: 2,
    expectedActive: 2,
    expectedSucceeded: 1,
    expectedCompletedIdxs: '0',
    expectedPodPatches: 5,
    expectedTerminating: 2,
  },
  'indexed job with indexes outside of range': {
    parallelism: 2,
    completions: 5,
    backoffLimit: 6,
    completionMode: 'Indexed',
    podsWithIndexes: [
      ['0', 'Succeeded'],
      ['5', 'Running'],
      ['6', 'Succeeded'],
      ['7', 'Pending'],
      ['8', 'Failed'],
    ],
    // One sync either creates or deletes.
    expectedCreations: 0,
    expectedSucceeded: 1,
    expectedDeletions: 2,
    expectedCompletedIdxs: '0',
    expectedActive: 0,
    expectedFailed: 0,
    expectedPodPatches: 5,
    expectedTerminating: 2,
  },
  'suspending a job with satisfied expectations': {
    // Active pods go once expectations are satisfied.
    suspend: true,
    parallelism: 2,
    activePods: 2,
    completions: 4,
    backoffLimit: 6,
    expectedDeletions: 2,
    expectedActive: 0,
    expectedConditions: [suspended],
    expectedPodPatches: 2,
    expectedTerminating: 2,
  },
  'count ready pods when suspending a job with satisfied expectations': {
    suspend: true,
    parallelism: 2,
    activePods: 2,
    readyPods: 2,
    completions: 4,
    backoffLimit: 6,
    expectedDeletions: 2,
    expectedActive: 0,
    expectedConditions: [suspended],
    expectedPodPatches: 2,
    expectedTerminating: 2,
  },
  'suspending a job with unsatisfied expectations': {
    // Nothing happens until the expectations are satisfied.
    suspend: true,
    parallelism: 2,
    activePods: 3,
    fakeExpectationAtCreation: -1,
    completions: 4,
    backoffLimit: 6,
    expectedActive: 3,
  },
  'count ready pods when suspending a job with unsatisfied expectations': {
    suspend: true,
    parallelism: 2,
    activePods: 3,
    readyPods: 3,
    fakeExpectationAtCreation: -1,
    completions: 4,
    backoffLimit: 6,
    expectedActive: 3,
    expectedReady: 3,
  },
  'resuming a suspended job': {
    wasSuspended: true,
    suspend: false,
    parallelism: 2,
    completions: 4,
    backoffLimit: 6,
    expectedCreations: 2,
    expectedActive: 2,
    expectedConditions: [
      { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' },
    ],
  },
  'suspending a deleted job': {
    // A Job being deleted is not suspended: nothing changes, no condition.
    suspend: true,
    deleting: true,
    parallelism: 2,
    activePods: 2,
    completions: 4,
    backoffLimit: 6,
    expectedActive: 2,
    expectedPodPatches: 2,
  },
  'FailureTarget=False condition added manually is ignored': {
    parallelism: 1,
    completions: 1,
    activePods: 1,
    readyPods: 1,
    initialStatus: {
      active: 1,
      startTime: epoch,
      conditions: [
        {
          type: 'FailureTarget',
          status: 'False',
          reason: 'ConditionAddedManually',
          message: 'Testing',
        },
      ],
    },
    expectedActive: 1,
    expectedReady: 1,
    expectedConditions: [
      {
        type: 'FailureTarget',
        status: 'False',
        reason: 'ConditionAddedManually',
        message: 'Testing',
      },
    ],
  },
  'SuccessCriteriaMet=False condition added manually is ignored': {
    parallelism: 1,
    completions: 1,
    activePods: 1,
    readyPods: 1,
    initialStatus: {
      active: 1,
      startTime: epoch,
      conditions: [
        {
          type: 'SuccessCriteriaMet',
          status: 'False',
          reason: 'ConditionAddedManually',
          message: 'Testing',
        },
      ],
    },
    expectedActive: 1,
    expectedReady: 1,
    expectedConditions: [
      {
        type: 'SuccessCriteriaMet',
        status: 'False',
        reason: 'ConditionAddedManually',
        message: 'Testing',
      },
    ],
  },
};

describe('syncJob (TestControllerSyncJob)', () => {
  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const clock = new FakeClock(tc.controllerTime ?? epoch);
    const f = fixture({ clock });
    if (tc.podControllerError) f.podControl.err = new Error('fake error');
    f.podControl.createLimit = tc.podLimit ?? 0;

    const job = newJob(tc.parallelism, tc.completions, tc.backoffLimit ?? 0, tc.completionMode);
    job.spec!.suspend = tc.suspend ?? false;
    if (tc.podReplacementPolicy) job.spec!.podReplacementPolicy = tc.podReplacementPolicy;
    if (tc.podFailurePolicy) job.spec!.podFailurePolicy = tc.podFailurePolicy;
    const status = (job.status = {});
    if (tc.initialStatus) {
      Object.assign(status, {
        startTime: formatTime(tc.initialStatus.startTime ?? clock.now()),
        ...(tc.initialStatus.active && { active: tc.initialStatus.active }),
        ...(tc.initialStatus.succeed && { succeeded: tc.initialStatus.succeed }),
        ...(tc.initialStatus.failed && { failed: tc.initialStatus.failed }),
        ...(tc.initialStatus.conditions && { conditions: tc.initialStatus.conditions }),
      });
    }
    const key = 'default/foobar';
    if (tc.backoffRecord)
      f.controller.podBackoffStore.updateBackoffRecord({ key, ...tc.backoffRecord });
    const expectation = tc.fakeExpectationAtCreation ?? 0;
    if (expectation < 0) f.controller.expectations.expectDeletions(key, -expectation);
    if (expectation > 0) f.controller.expectations.expectCreations(key, expectation);
    if (tc.wasSuspended) {
      job.status.conditions = [
        newCondition('Suspended', 'True', 'JobSuspended', 'Job suspended', clock.now()),
      ];
    }
    if (tc.deleting) mut(job.metadata!).deletionTimestamp = formatTime(clock.now());
    f.addJob(job);
    setPodsStatuses(f.podIndexer, job, {
      pending: tc.pendingPods,
      active: tc.activePods,
      succeeded: tc.succeededPods,
      failed: tc.failedPods,
      terminating: tc.terminatingPods,
      ready: tc.readyPods,
    });
    setPodsStatusesWithIndexes(f.podIndexer, job, tc.podsWithIndexes ?? []);

    const run = f.controller.syncJob(key);
    if (tc.podControllerError || (tc.podLimit ?? 0) > 0) {
      await expect(run).rejects.toThrow();
    } else {
      await run;
    }

    // Creations and deletions.
    const templates = f.podControl.templates;
    expect(templates).toHaveLength(tc.expectedCreations ?? 0);
    if (tc.completionMode === 'Indexed') {
      const created = new Set<number>();
      for (const t of templates) {
        for (const c of [...(t.spec?.initContainers ?? []), ...(t.spec?.containers ?? [])]) {
          expect(c.env).toEqual([
            {
              name: completionIndexEnvName,
              valueFrom: {
                fieldRef: { fieldPath: `metadata.labels['${jobCompletionIndexAnnotation}']` },
              },
            },
          ]);
        }
        const ix = getCompletionIndex(t.metadata?.annotations);
        expect(ix).not.toBe(-1);
        expect(t.metadata?.labels?.[jobCompletionIndexAnnotation]).toBe(String(ix));
        created.add(ix);
        expect(t.spec?.hostname).toBe(`foobar-${ix}`);
        expect(t.metadata?.generateName).toBe(`foobar-${ix}-`);
      }
      expect([...created].sort((a, b) => a - b)).toEqual(tc.expectedCreatedIndexes ?? []);
    } else {
      for (const t of templates) {
        expect(t.metadata?.generateName).toBe('');
        expect(t.spec?.hostname).toBeUndefined();
      }
    }
    expect(f.podControl.deletePodName).toHaveLength(tc.expectedDeletions ?? 0);
    expect(f.podControl.controllerRefs).toHaveLength(tc.expectedCreations ?? 0);
    for (const ref of f.podControl.controllerRefs) {
      expect(ref).toEqual({
        apiVersion: 'batch/v1',
        kind: 'Job',
        name: 'foobar',
        uid: job.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
    }
    for (const t of templates) {
      expect(t.metadata?.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    }

    // The status written.
    const actual = f.jobs.actual?.status ?? job.status;
    expect(actual.active ?? 0).toBe(tc.expectedActive ?? 0);
    expect(actual.ready).toBe(tc.expectedReady ?? 0);
    expect(actual.succeeded ?? 0).toBe(tc.expectedSucceeded ?? 0);
    expect(actual.completedIndexes ?? '').toBe(tc.expectedCompletedIdxs ?? '');
    expect(actual.failed ?? 0).toBe(tc.expectedFailed ?? 0);
    expect(actual.terminating).toBe(tc.expectedTerminating ?? 0);
    if (tc.suspend) expect(actual.startTime).toBeUndefined();
    else expect(actual.startTime).toBeDefined();
    expect(conditionsOf(actual)).toEqual(tc.expectedConditions ?? []);

    // Slow start never goes past the batch that failed.
    if ((tc.podLimit ?? 0) > 0) {
      let limit = 0;
      for (let pass = 0; limit <= tc.podLimit!; pass++) limit += 1 << pass;
      expect(f.podControl.createCallCount).toBeLessThanOrEqual(limit);
    }
    expect(f.podControl.patches).toHaveLength(tc.expectedPodPatches ?? 0);
  });
});
