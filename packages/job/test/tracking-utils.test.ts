// Ports of tracking_utils_test.go: TestUIDTrackingExpectations (without the
// goroutines: one JavaScript thread does the same bookkeeping) and
// TestRecordFinishedPodWithTrackingFinalizer; plus the metric names of
// metrics/metrics.go.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  UIDTrackingExpectations,
  hasJobTrackingFinalizer,
  isFinishedPodWithTrackingFinalizer,
  recordFinishedPodWithTrackingFinalizer,
} from '../src/tracking-utils.js';
import {
  jobControllerMetricDescriptors,
  newJobControllerMetrics,
  noopJobMetricsProvider,
} from '../src/index.js';
import { RecordingMetrics, buildPod } from './helpers.js';

describe('TestUIDTrackingExpectations', () => {
  const tracks = [
    { job: 'foo', firstRound: ['a', 'b', 'c', 'd'], secondRound: ['e', 'f'] },
    { job: 'bar', firstRound: ['x', 'y', 'z'], secondRound: ['u', 'v', 'w'] },
  ];

  it('keeps the expected uids per Job until each removal is observed', () => {
    const expectations = new UIDTrackingExpectations();
    for (const t of tracks) expectations.expectFinalizersRemoved(t.job, t.firstRound);
    for (const t of tracks)
      expect(expectations.getExpectedUIDs(t.job)).toEqual(new Set(t.firstRound));

    // The first round is observed while the second is expected.
    for (const t of tracks) {
      for (const uid of t.firstRound) expectations.finalizerRemovalObserved(t.job, uid);
      expectations.expectFinalizersRemoved(t.job, t.secondRound);
    }
    for (const t of tracks)
      expect(expectations.getExpectedUIDs(t.job)).toEqual(new Set(t.secondRound));

    for (const t of tracks) {
      expectations.deleteExpectations(t.job);
      expect(expectations.getExpectedUIDs(t.job)).toBeUndefined();
    }
  });

  it('ignores an observation nobody expected, and hands out copies', () => {
    const expectations = new UIDTrackingExpectations();
    expectations.finalizerRemovalObserved('foo', 'a');
    expect(expectations.getExpectedUIDs('foo')).toBeUndefined();
    expectations.expectFinalizersRemoved('foo', ['a']);
    expectations.getExpectedUIDs('foo')!.add('b');
    expect(expectations.getExpectedUIDs('foo')).toEqual(new Set(['a']));
    expectations.finalizerRemovalObserved('foo', 'a');
    expect(expectations.getExpectedUIDs('foo')).toEqual(new Set());
  });
});

describe('TestRecordFinishedPodWithTrackingFinalizer', () => {
  const withFinalizer = (phase: string) => buildPod().phase(phase).trackingFinalizer().pod;
  const without = (phase: string) => buildPod().phase(phase).pod;
  const cases: Record<
    string,
    [old: Pod | undefined, pod: Pod | undefined, add: number, del: number]
  > = {
    'new non-finished Pod with finalizer': [undefined, withFinalizer('Pending'), 0, 0],
    'pod with finalizer fails': [withFinalizer('Running'), withFinalizer('Failed'), 1, 0],
    'pod with finalizer succeeds': [withFinalizer('Running'), withFinalizer('Succeeded'), 1, 0],
    'succeeded pod loses finalizer': [withFinalizer('Succeeded'), without('Succeeded'), 0, 1],
    'pod without finalizer removed': [without('Succeeded'), undefined, 0, 0],
    'succeeded pod with finalizer removed': [withFinalizer('Succeeded'), undefined, 0, 1],
    'a pod created already finished, with the finalizer': [
      undefined,
      withFinalizer('Failed'),
      1,
      0,
    ],
  };

  it.each(Object.entries(cases))('%s', (_name, [oldPod, newPod, add, del]) => {
    const recording = new RecordingMetrics();
    recordFinishedPodWithTrackingFinalizer(newJobControllerMetrics(recording), oldPod, newPod);
    expect(recording.get('terminated_pods_tracking_finalizer_total', 'add')).toBe(add);
    expect(recording.get('terminated_pods_tracking_finalizer_total', 'delete')).toBe(del);
  });

  it('tells finished pods with the finalizer apart', () => {
    expect(hasJobTrackingFinalizer(withFinalizer('Running'))).toBe(true);
    expect(isFinishedPodWithTrackingFinalizer(withFinalizer('Running'))).toBe(false);
    expect(isFinishedPodWithTrackingFinalizer(without('Failed'))).toBe(false);
    expect(isFinishedPodWithTrackingFinalizer(undefined)).toBe(false);
  });
});

describe('the job controller metrics', () => {
  it('carry the names and labels of metrics/metrics.go', () => {
    const byName = Object.fromEntries(
      Object.values(jobControllerMetricDescriptors).map((d) => [d.name, d.labels.join(',')]),
    );
    expect(byName).toEqual({
      job_controller_job_finished_indexes_total: 'status,backoffLimit',
      job_controller_job_pods_creation_total: 'reason,status',
      job_controller_job_pods_finished_total: 'completion_mode,result',
      job_controller_job_sync_duration_seconds: 'completion_mode,result,action',
      job_controller_job_syncs_total: 'completion_mode,result,action',
      job_controller_jobs_by_external_controller_total: 'controller_name',
      job_controller_jobs_finished_total: 'completion_mode,result,reason',
      job_controller_pod_failures_handled_by_failure_policy_total: 'action',
      job_controller_terminated_pods_tracking_finalizer_total: 'event',
    });
  });

  it('do nothing by default', () => {
    const metrics = newJobControllerMetrics(noopJobMetricsProvider);
    expect(() =>
      metrics.jobSyncNum.withLabelValues('NonIndexed', 'success', 'reconciling').inc(),
    ).not.toThrow();
  });
});
