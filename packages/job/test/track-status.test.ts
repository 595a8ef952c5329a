// Ports of job_controller_test.go's TestGetNewFinshedPods and
// TestTrackJobStatusAndRemoveFinalizers: counting finished pods through the
// tracking finalizer and status.uncountedTerminatedPods, one status write
// before the finalizers go and one after, never a pod counted twice. Every
// feature gate is on, so upstream's cases for JobPodReplacementPolicy and
// JobManagedBy turned off (the final condition not delayed) are left out.
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newConflict } from '@kcm-ts/apimachinery';
import { countTerminatingPods, filterActivePods } from '@kcm-ts/controller';
import { describe, expect, it } from 'vitest';
import { OrderedIntervals, parseIndexesFromString } from '../src/index.js';
import { UncountedTerminatedPods, newCondition, type SyncJobCtx } from '../src/sync-job-ctx.js';
import {
  calculateFailedIndexes,
  getPodsWithDelayedDeletionPerIndex,
  isIndexedJob,
} from '../src/indexed-job-utils.js';
import { getNewFinishedPods } from '../src/job-controller.js';
import { buildPod, conditionsOf, epoch, fixture } from './helpers.js';

const job = (status: JobStatus = {}, spec: Partial<NonNullable<Job['spec']>> = {}): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'job', namespace: 'default', uid: 'job-uid' },
  spec: { template: {}, ...spec },
  status,
});

function ctx(j: Job, pods: Pod[], extra: Partial<SyncJobCtx> = {}): SyncJobCtx {
  return {
    job: j,
    pods,
    activePods: filterActivePods(pods),
    uncounted: new UncountedTerminatedPods(j.status?.uncountedTerminatedPods ?? {}),
    expectedRmFinalizers: undefined,
    finishedCondition: undefined,
    succeeded: 0,
    failed: 0,
    prevSucceededIndexes: new OrderedIntervals(),
    succeededIndexes: new OrderedIntervals(),
    failedIndexes: undefined,
    newBackoffRecord: {
      key: 'default/job',
      failuresAfterLastSuccess: 0,
      lastFailureTime: undefined,
    },
    podsWithDelayedDeletionPerIndex: undefined,
    terminating: undefined,
    ready: 0,
    ...extra,
  };
}

describe('getNewFinishedPods (TestGetNewFinshedPods)', () => {
  const cases: Record<
    string,
    {
      status: JobStatus;
      pods: Pod[];
      expectedRmFinalizers?: string[];
      succeeded: number;
      failed: number;
    }
  > = {
    'some counted': {
      status: { succeeded: 2, failed: 1, uncountedTerminatedPods: {} },
      pods: [
        buildPod().uid('a').phase('Succeeded').pod,
        buildPod().uid('b').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('d').phase('Failed').pod,
        buildPod().uid('e').phase('Failed').trackingFinalizer().pod,
        buildPod().uid('f').phase('Running').pod,
      ],
      succeeded: 4,
      failed: 2,
    },
    'some uncounted': {
      status: {
        succeeded: 1,
        failed: 1,
        uncountedTerminatedPods: { succeeded: ['a', 'c'], failed: ['e', 'f'] },
      },
      pods: [
        buildPod().uid('a').phase('Succeeded').pod,
        buildPod().uid('b').phase('Succeeded').pod,
        buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('d').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('e').phase('Failed').pod,
        buildPod().uid('f').phase('Failed').trackingFinalizer().pod,
        buildPod().uid('g').phase('Failed').trackingFinalizer().pod,
      ],
      succeeded: 4,
      failed: 4,
    },
    'with expected removed finalizers': {
      status: {
        succeeded: 2,
        failed: 2,
        uncountedTerminatedPods: { succeeded: ['a'], failed: ['d'] },
      },
      expectedRmFinalizers: ['b', 'f'],
      pods: [
        buildPod().uid('a').phase('Succeeded').pod,
        buildPod().uid('b').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
        buildPod().uid('d').phase('Failed').pod,
        buildPod().uid('e').phase('Failed').trackingFinalizer().pod,
        buildPod().uid('f').phase('Failed').trackingFinalizer().pod,
        buildPod().uid('g').phase('Failed').trackingFinalizer().pod,
      ],
      succeeded: 4,
      failed: 5,
    },
    'deleted pods': {
      status: { succeeded: 1, failed: 1, uncountedTerminatedPods: {} },
      pods: [
        buildPod().uid('a').phase('Succeeded').trackingFinalizer().deletionTimestamp().pod,
        buildPod().uid('b').phase('Failed').trackingFinalizer().deletionTimestamp().pod,
        buildPod().uid('c').phase('Running').trackingFinalizer().deletionTimestamp().pod,
        buildPod().uid('d').phase('Pending').trackingFinalizer().deletionTimestamp().pod,
        buildPod().uid('e').phase('Running').deletionTimestamp().pod,
        buildPod().uid('f').phase('Pending').deletionTimestamp().pod,
      ],
      succeeded: 2,
      failed: 4,
    },
  };
  it.each(Object.entries(cases))('%s', (_name, tc) => {
    const j = job(tc.status);
    const c = ctx(j, tc.pods, {
      expectedRmFinalizers: tc.expectedRmFinalizers && new Set(tc.expectedRmFinalizers),
    });
    const [succeededPods, failedPods] = getNewFinishedPods(c);
    expect(succeededPods.length + (tc.status.succeeded ?? 0) + c.uncounted.succeeded.size).toBe(
      tc.succeeded,
    );
    expect(failedPods.length + (tc.status.failed ?? 0) + c.uncounted.failed.size).toBe(tc.failed);
  });
});

/** The parts of a status these cases compare, Go's zero values filled in. */
function view(s: JobStatus) {
  return {
    active: s.active ?? 0,
    succeeded: s.succeeded ?? 0,
    failed: s.failed ?? 0,
    completedIndexes: s.completedIndexes ?? '',
    failedIndexes: s.failedIndexes,
    uncounted: {
      succeeded: s.uncountedTerminatedPods?.succeeded ?? [],
      failed: s.uncountedTerminatedPods?.failed ?? [],
    },
    conditions: conditionsOf(s),
    completionTime: s.completionTime !== undefined,
  };
}

type Want = Partial<Omit<ReturnType<typeof view>, 'uncounted'>> & {
  uncounted?: { succeeded?: string[]; failed?: string[] };
};
const want = (w: Want) => ({
  active: 0,
  succeeded: 0,
  failed: 0,
  completedIndexes: '',
  failedIndexes: undefined,
  conditions: [],
  completionTime: false,
  ...w,
  uncounted: { succeeded: [], failed: [], ...w.uncounted },
});

const now = epoch;
const minuteAgo = now - 60_000;
const completedCond = newCondition('Complete', 'True', '', '', now);
const succeededCond = newCondition('SuccessCriteriaMet', 'True', '', '', minuteAgo);
const failedCond = newCondition('Failed', 'True', '', '', now);
const failureTargetCond = newCondition('FailureTarget', 'True', '', '', now);
const cond = (c: JobCondition) => conditionsOf({ conditions: [c] })[0]!;
const mockErr = newConflict({ group: 'batch', resource: 'jobs' }, 'job', new Error('mock error'));

interface TrackCase {
  job?: Job;
  pods?: Pod[];
  finishedCond?: JobCondition;
  expectedRmFinalizers?: string[];
  needsFlush?: boolean;
  statusUpdateErr?: boolean;
  podControlErr?: boolean;
  wantErr?: boolean;
  wantRmFinalizers?: number;
  wantStatusUpdates?: ReturnType<typeof want>[];
  wantSucceededPodsMetric?: number;
  wantFailedPodsMetric?: number;
}

const indexed = (completions: number, status: JobStatus = {}, extra = {}) =>
  job(status, { completionMode: 'Indexed', completions, ...extra });

const trackCases: Record<string, TrackCase> = {
  'no updates': {},
  'new active': {
    job: job({ active: 1 }),
    needsFlush: true,
    wantStatusUpdates: [want({ active: 1 })],
  },
  'track finished pods': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('c').phase('Succeeded').trackingFinalizer().deletionTimestamp().pod,
      buildPod().uid('d').phase('Failed').trackingFinalizer().deletionTimestamp().pod,
      buildPod().uid('e').phase('Pending').trackingFinalizer().deletionTimestamp().pod,
      buildPod().phase('Pending').trackingFinalizer().pod,
      buildPod().phase('Running').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 5,
    wantStatusUpdates: [
      want({ uncounted: { succeeded: ['a', 'c'], failed: ['b', 'd', 'e'] } }),
      want({ succeeded: 2, failed: 3 }),
    ],
    wantSucceededPodsMetric: 2,
    wantFailedPodsMetric: 3,
  },
  'past and new finished pods': {
    job: job({
      active: 1,
      succeeded: 2,
      failed: 3,
      uncountedTerminatedPods: { succeeded: ['a', 'e'], failed: ['b', 'f'] },
    }),
    pods: [
      buildPod().uid('e').phase('Succeeded').pod,
      buildPod().phase('Failed').pod,
      buildPod().phase('Pending').pod,
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('d').phase('Failed').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 4,
    wantStatusUpdates: [
      want({
        active: 1,
        succeeded: 3,
        failed: 4,
        uncounted: { succeeded: ['a', 'c'], failed: ['b', 'd'] },
      }),
      want({ active: 1, succeeded: 5, failed: 6 }),
    ],
    wantSucceededPodsMetric: 3,
    wantFailedPodsMetric: 3,
  },
  'expecting removed finalizers': {
    job: job({
      succeeded: 2,
      failed: 3,
      uncountedTerminatedPods: { succeeded: ['a', 'g'], failed: ['b', 'h'] },
    }),
    expectedRmFinalizers: ['c', 'd', 'g', 'h'],
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('d').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('e').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('f').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('g').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('h').phase('Failed').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 4,
    wantStatusUpdates: [
      want({ succeeded: 3, failed: 4, uncounted: { succeeded: ['a', 'e'], failed: ['b', 'f'] } }),
      want({ succeeded: 5, failed: 6 }),
    ],
    wantSucceededPodsMetric: 3,
    wantFailedPodsMetric: 3,
  },
  'succeeding job by JobSuccessPolicy': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('c').phase('Pending').trackingFinalizer().pod,
    ],
    finishedCond: succeededCond,
    wantRmFinalizers: 3,
    wantStatusUpdates: [
      want({ uncounted: { succeeded: ['a'], failed: ['b'] }, conditions: [cond(succeededCond)] }),
      want({
        succeeded: 1,
        failed: 1,
        conditions: [cond(succeededCond), cond(completedCond)],
        completionTime: true,
      }),
    ],
    wantSucceededPodsMetric: 1,
    wantFailedPodsMetric: 1,
  },
  'completing job': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
    ],
    finishedCond: completedCond,
    wantRmFinalizers: 2,
    wantStatusUpdates: [
      want({ uncounted: { succeeded: ['a'], failed: ['b'] } }),
      want({ succeeded: 1, failed: 1, conditions: [cond(completedCond)], completionTime: true }),
    ],
    wantSucceededPodsMetric: 1,
    wantFailedPodsMetric: 1,
  },
  'failing job': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('c').phase('Running').trackingFinalizer().pod,
    ],
    finishedCond: failedCond,
    // The running pod counts as failed.
    wantRmFinalizers: 3,
    wantStatusUpdates: [
      want({ uncounted: { succeeded: ['a'], failed: ['b', 'c'] } }),
      want({ succeeded: 1, failed: 2, conditions: [cond(failedCond)] }),
    ],
    wantSucceededPodsMetric: 1,
    wantFailedPodsMetric: 2,
  },
  'deleted job': {
    job: {
      ...job({ active: 1 }),
      metadata: {
        name: 'job',
        namespace: 'default',
        uid: 'job-uid',
        deletionTimestamp: '0001-01-01T00:00:00Z',
      },
    },
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
      buildPod().phase('Running').trackingFinalizer().pod,
    ],
    // The running pod loses its finalizer, but does not count as failed.
    wantRmFinalizers: 3,
    wantStatusUpdates: [
      want({ active: 1, uncounted: { succeeded: ['a'], failed: ['b'] } }),
      want({ active: 1, succeeded: 1, failed: 1 }),
    ],
    wantSucceededPodsMetric: 1,
    wantFailedPodsMetric: 1,
  },
  'status update error': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
    ],
    statusUpdateErr: true,
    wantErr: true,
    wantStatusUpdates: [want({ uncounted: { succeeded: ['a'], failed: ['b'] } })],
  },
  'pod patch errors': {
    pods: [
      buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
    ],
    podControlErr: true,
    wantErr: true,
    wantRmFinalizers: 2,
    wantStatusUpdates: [want({ uncounted: { succeeded: ['a'], failed: ['b'] } })],
  },
  'pod patch errors with partial success': {
    job: job({ uncountedTerminatedPods: { succeeded: ['a'], failed: ['b'] } }),
    pods: [
      buildPod().uid('a').phase('Succeeded').pod,
      buildPod().uid('c').phase('Succeeded').trackingFinalizer().pod,
      buildPod().uid('d').phase('Failed').trackingFinalizer().pod,
    ],
    podControlErr: true,
    wantErr: true,
    wantRmFinalizers: 2,
    wantStatusUpdates: [
      want({ succeeded: 1, failed: 1, uncounted: { succeeded: ['c'], failed: ['d'] } }),
    ],
  },
  'indexed job new successful pods': {
    job: indexed(6, { active: 1 }),
    pods: [
      buildPod().phase('Succeeded').trackingFinalizer().index('1').pod,
      buildPod().phase('Succeeded').trackingFinalizer().index('3').pod,
      buildPod().phase('Succeeded').trackingFinalizer().index('3').pod,
      buildPod().phase('Running').trackingFinalizer().index('5').pod,
      buildPod().phase('Succeeded').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 4,
    wantStatusUpdates: [want({ active: 1, succeeded: 2, completedIndexes: '1,3' })],
    wantSucceededPodsMetric: 2,
  },
  'indexed job prev successful pods outside current completions index range with no new succeeded pods':
    {
      job: indexed(2, { active: 2, succeeded: 1, completedIndexes: '3' }, { parallelism: 2 }),
      pods: [
        buildPod().phase('Running').trackingFinalizer().index('0').pod,
        buildPod().phase('Running').trackingFinalizer().index('1').pod,
      ],
      wantRmFinalizers: 0,
      wantStatusUpdates: [want({ active: 2, succeeded: 0, completedIndexes: '' })],
    },
  'indexed job prev successful pods outside current completions index range with new succeeded pods in range':
    {
      job: indexed(2, { active: 2, succeeded: 1, completedIndexes: '3' }, { parallelism: 2 }),
      pods: [
        buildPod().phase('Running').trackingFinalizer().index('0').pod,
        buildPod().phase('Succeeded').trackingFinalizer().index('1').pod,
      ],
      wantRmFinalizers: 1,
      wantStatusUpdates: [want({ active: 2, succeeded: 1, completedIndexes: '1' })],
      wantSucceededPodsMetric: 1,
    },
  'indexed job new failed pods': {
    job: indexed(6, { active: 1 }),
    pods: [
      buildPod().uid('a').phase('Failed').trackingFinalizer().index('1').pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().index('3').pod,
      buildPod().uid('c').phase('Failed').trackingFinalizer().index('3').pod,
      buildPod().uid('d').phase('Running').trackingFinalizer().index('5').pod,
      buildPod().phase('Failed').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 4,
    wantStatusUpdates: [
      want({ active: 1, uncounted: { failed: ['a', 'b', 'c'] } }),
      want({ active: 1, failed: 3 }),
    ],
    wantFailedPodsMetric: 3,
  },
  'indexed job past and new pods': {
    job: indexed(7, { failed: 2, succeeded: 5, completedIndexes: '0-2,4,6,7' }),
    pods: [
      buildPod().phase('Succeeded').index('0').pod,
      buildPod().phase('Failed').index('1').pod,
      buildPod().phase('Succeeded').trackingFinalizer().index('1').pod,
      buildPod().phase('Succeeded').trackingFinalizer().index('3').pod,
      buildPod().uid('a').phase('Failed').trackingFinalizer().index('2').pod,
      buildPod().uid('b').phase('Failed').trackingFinalizer().index('5').pod,
    ],
    wantRmFinalizers: 4,
    wantStatusUpdates: [
      want({
        succeeded: 6,
        failed: 2,
        completedIndexes: '0-4,6',
        uncounted: { failed: ['a', 'b'] },
      }),
      want({ succeeded: 6, failed: 4, completedIndexes: '0-4,6' }),
    ],
    wantSucceededPodsMetric: 1,
    wantFailedPodsMetric: 2,
  },
  'too many finished': {
    job: job({ uncountedTerminatedPods: { failed: ['a', 'b'] } }),
    pods: [
      ...Array.from(
        { length: 500 },
        (_, i) => buildPod().uid(String(i)).phase('Succeeded').trackingFinalizer().pod,
      ),
      buildPod().uid('b').phase('Failed').trackingFinalizer().pod,
    ],
    wantRmFinalizers: 499,
    wantStatusUpdates: [
      want({
        failed: 1,
        uncounted: { succeeded: Array.from({ length: 499 }, (_, i) => String(i)), failed: ['b'] },
      }),
      want({ succeeded: 499, failed: 1, uncounted: { failed: ['b'] } }),
    ],
    wantSucceededPodsMetric: 499,
    wantFailedPodsMetric: 1,
  },
  'too many indexed finished': {
    job: indexed(501),
    pods: Array.from(
      { length: 501 },
      (_, i) =>
        buildPod().uid(String(i)).index(String(i)).phase('Succeeded').trackingFinalizer().pod,
    ),
    wantRmFinalizers: 500,
    wantStatusUpdates: [want({ completedIndexes: '0-499', succeeded: 500 })],
    wantSucceededPodsMetric: 500,
  },
  'pod flips from failed to succeeded': {
    job: job(
      { uncountedTerminatedPods: { failed: ['a', 'b'] } },
      { completions: 2, parallelism: 2 },
    ),
    pods: [
      buildPod().uid('a').phase('Failed').trackingFinalizer().pod,
      buildPod().uid('b').phase('Succeeded').trackingFinalizer().pod,
    ],
    finishedCond: failedCond,
    wantRmFinalizers: 2,
    wantStatusUpdates: [want({ failed: 2, conditions: [cond(failedCond)] })],
    wantFailedPodsMetric: 2,
  },
  'pod is terminal; JobFailed condition is set': {
    job: job({ uncountedTerminatedPods: { failed: ['a'] } }, { completions: 1, parallelism: 1 }),
    pods: [buildPod().uid('a').phase('Failed').trackingFinalizer().pod],
    finishedCond: failedCond,
    wantRmFinalizers: 1,
    wantStatusUpdates: [want({ failed: 1, conditions: [cond(failedCond)] })],
    wantFailedPodsMetric: 1,
  },
  'pod is terminating; counted as failed, but the JobFailed condition is delayed': {
    job: job(
      { uncountedTerminatedPods: { failed: ['a'] }, conditions: [failureTargetCond] },
      { completions: 1, parallelism: 1 },
    ),
    pods: [buildPod().uid('a').phase('Running').deletionTimestamp().pod],
    finishedCond: failedCond,
    wantStatusUpdates: [want({ failed: 1, conditions: [cond(failureTargetCond)] })],
    wantFailedPodsMetric: 1,
  },
  'pod is terminating; JobSuccessCriteriaMet, but JobComplete condition is delayed': {
    job: job(
      { uncountedTerminatedPods: { failed: ['a'], succeeded: ['b'] }, conditions: [succeededCond] },
      { completions: 1, parallelism: 1 },
    ),
    pods: [buildPod().uid('a').phase('Running').deletionTimestamp().pod],
    finishedCond: completedCond,
    wantStatusUpdates: [want({ succeeded: 1, failed: 1, conditions: [cond(succeededCond)] })],
    wantFailedPodsMetric: 1,
    wantSucceededPodsMetric: 1,
  },
  'indexed job with a failed pod with delayed finalizer removal; the pod is not counted': {
    job: indexed(6, {}, { backoffLimitPerIndex: 1 }),
    pods: [
      buildPod().uid('a').phase('Failed').indexFailureCount('0').trackingFinalizer().index('1').pod,
    ],
    wantStatusUpdates: [want({ failedIndexes: '' })],
  },
  'indexed job with a failed pod which is recreated by a running pod; the pod is counted': {
    job: indexed(6, { active: 1 }, { backoffLimitPerIndex: 1 }),
    pods: [
      buildPod().uid('a1').phase('Failed').indexFailureCount('0').trackingFinalizer().index('1')
        .pod,
      buildPod().uid('a2').phase('Running').indexFailureCount('1').trackingFinalizer().index('1')
        .pod,
    ],
    wantRmFinalizers: 1,
    wantStatusUpdates: [
      want({ active: 1, failedIndexes: '', uncounted: { failed: ['a1'] } }),
      want({ active: 1, failed: 1, failedIndexes: '' }),
    ],
    wantFailedPodsMetric: 1,
  },
  'indexed job with a failed pod for a failed index; the pod is counted': {
    job: indexed(6, {}, { backoffLimitPerIndex: 1 }),
    pods: [
      buildPod().uid('a').phase('Failed').indexFailureCount('1').trackingFinalizer().index('1').pod,
    ],
    wantRmFinalizers: 1,
    wantStatusUpdates: [
      want({ failedIndexes: '1', uncounted: { failed: ['a'] } }),
      want({ failed: 1, failedIndexes: '1' }),
    ],
    wantFailedPodsMetric: 1,
  },
};

describe('trackJobStatusAndRemoveFinalizers (TestTrackJobStatusAndRemoveFinalizers)', () => {
  it.each(Object.entries(trackCases))('%s', async (_name, tc) => {
    const f = fixture();
    if (tc.podControlErr) f.podControl.err = mockErr;
    if (tc.statusUpdateErr) f.jobs.updateErr = mockErr;
    const j = structuredClone(tc.job ?? job());
    j.status ??= {};
    j.status.uncountedTerminatedPods ??= {};
    const pods = tc.pods ?? [];
    const c = ctx(j, pods, {
      expectedRmFinalizers: tc.expectedRmFinalizers && new Set(tc.expectedRmFinalizers),
      finishedCondition: tc.finishedCond,
      terminating: countTerminatingPods(pods),
    });
    if (isIndexedJob(j)) {
      c.succeededIndexes = parseIndexesFromString(
        j.status.completedIndexes ?? '',
        j.spec!.completions!,
      );
      if (j.spec?.backoffLimitPerIndex !== undefined) {
        c.failedIndexes = calculateFailedIndexes(j, pods);
        c.podsWithDelayedDeletionPerIndex = getPodsWithDelayedDeletionPerIndex(c);
      }
    }
    const run = f.controller.trackJobStatusAndRemoveFinalizers(c, tc.needsFlush ?? false);
    if (tc.wantErr) {
      const err: unknown = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      // The error, or what it wraps, is the one injected.
      expect(err === mockErr || (err as Error).cause === mockErr).toBe(true);
    } else {
      await run;
    }
    expect(f.jobs.statusUpdates.map(view)).toEqual(tc.wantStatusUpdates ?? []);
    expect(f.podControl.patches).toHaveLength(tc.wantRmFinalizers ?? 0);
    if (!tc.wantErr) {
      const mode = isIndexedJob(j) ? 'Indexed' : 'NonIndexed';
      expect(f.metrics.get('job_pods_finished_total', mode, 'succeeded')).toBe(
        tc.wantSucceededPodsMetric ?? 0,
      );
      expect(f.metrics.get('job_pods_finished_total', mode, 'failed')).toBe(
        tc.wantFailedPodsMetric ?? 0,
      );
    }
  });

  it('records Completed and the jobs_finished_total metric once the final condition is written', async () => {
    const f = fixture();
    const j = job({ uncountedTerminatedPods: {} }, { completions: 1 });
    const c = ctx(j, [buildPod().uid('a').phase('Succeeded').trackingFinalizer().pod], {
      finishedCondition: succeededCond,
      terminating: 0,
    });
    await f.controller.trackJobStatusAndRemoveFinalizers(c, false);
    expect(f.recorder.events).toEqual(['Normal Completed Job completed']);
    expect(f.metrics.get('jobs_finished_total', 'NonIndexed', 'succeeded', '')).toBe(1);
  });
});
