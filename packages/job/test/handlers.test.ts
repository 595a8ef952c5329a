// Ports of job_controller_test.go's tests of the event handlers, the queue
// and the lookups: TestAddPod, TestAddPodOrphan, TestUpdatePod,
// TestUpdatePodOrphanWithNewLabels, TestUpdatePodChangeControllerRef,
// TestUpdatePodRelease, TestDeletePod, TestDeletePodOrphan, TestJobBackoff,
// TestUpdateJobRequeue, TestSyncJobUpdateRequeue, TestJobApiBackoffReset,
// TestSyncJobExpectations, TestGetPodsForJob, TestJobPodLookup,
// TestGetPodCreationInfoForIndependentIndexes, TestEnsureJobConditions,
// TestSyncOrphanPod and TestFinalizersRemovedExpectations (its first half:
// the informer half runs on the sandbox in sandbox.test.ts). The queue runs
// on the fake clock: where Go polls until the batch period passed, these
// tests advance the clock by exactly that much.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { DeletedFinalStateUnknown, FakeClock, formatTime, newConflict } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { defaultJobPodFailureBackOff, syncJobBatchPeriod } from '../src/index.js';
import { ensureJobConditionStatus, newCondition } from '../src/sync-job-ctx.js';
import { hasJobTrackingFinalizer } from '../src/tracking-utils.js';
import {
  PodBuilder,
  buildPod,
  conditionsOf,
  fixture,
  mut,
  newJob,
  newPodList,
  type Fixture,
} from './helpers.js';

function twoJobs(f: Fixture): [Job, Job] {
  const job1 = newJob(1, 1, 6, 'NonIndexed', 'job1');
  const job2 = newJob(1, 1, 6, 'NonIndexed', 'job2');
  f.addJob(job1);
  f.addJob(job2);
  return [job1, job2];
}
const newPod = (name: string, job: Job): Pod => buildPod().name(name).uid(name).job(job).pod;
const bumped = (pod: Pod): Pod => {
  const copy = structuredClone(pod);
  mut(copy.metadata!).resourceVersion = String(Number(pod.metadata?.resourceVersion ?? '0') + 1);
  return copy;
};

/** The keys queued once the batch period has passed (none before it). */
async function afterBatchPeriod(f: Fixture): Promise<string[]> {
  expect(f.controller.queue.len()).toBe(0);
  await f.clock.advance(syncJobBatchPeriod);
  return (await f.drain()).sort();
}

describe('pod handlers', () => {
  it('TestAddPod: a pod wakes its Job after the batch period', async () => {
    const f = fixture();
    const [job1, job2] = twoJobs(f);
    f.controller.expectations.expectCreations('default/job1', 1);
    f.controller.addPod(newPod('pod1', job1));
    expect(await afterBatchPeriod(f)).toEqual(['default/job1']);
    expect(f.controller.expectations.satisfiedExpectations('default/job1')).toBe(true);
    f.controller.addPod(newPod('pod2', job2));
    expect(await afterBatchPeriod(f)).toEqual(['default/job2']);
  });

  it('TestAddPodOrphan: an orphan wakes every Job whose selector matches', async () => {
    const f = fixture();
    twoJobs(f);
    const job3 = newJob(1, 1, 6, 'NonIndexed', 'job3');
    job3.spec!.selector = { matchLabels: { other: 'labels' } };
    f.addJob(job3);
    const orphan = buildPod().name('pod1').uid('pod1').job(job3).clearOwner().pod;
    mut(orphan.metadata!).labels = { foo: 'bar' };
    f.controller.addPod(orphan);
    expect(await afterBatchPeriod(f)).toEqual(['default/job1', 'default/job2']);
    expect(f.controller.orphanQueue.len()).toBe(0);
  });

  it('an orphan with the tracking finalizer is queued for its removal', () => {
    const f = fixture();
    f.controller.addPod(buildPod().name('lost').trackingFinalizer().pod);
    expect(f.controller.orphanQueue.len()).toBe(1);
  });

  it('a pod that shows up already being deleted counts as a deletion', async () => {
    const f = fixture();
    const [job1] = twoJobs(f);
    f.controller.expectations.expectDeletions('default/job1', 1);
    const pod = newPod('pod1', job1);
    mut(pod.metadata!).deletionTimestamp = formatTime(f.clock.now());
    f.controller.addPod(pod);
    expect(f.controller.expectations.satisfiedExpectations('default/job1')).toBe(true);
    expect(await afterBatchPeriod(f)).toEqual(['default/job1']);
  });

  it('TestUpdatePod: an updated pod wakes its Job; a resync (same resourceVersion) does not', async () => {
    const f = fixture();
    const [job1, job2] = twoJobs(f);
    const pod1 = newPod('pod1', job1);
    f.controller.updatePod(pod1, structuredClone(pod1));
    expect(await afterBatchPeriod(f)).toEqual([]);
    f.controller.updatePod(pod1, bumped(pod1));
    expect(await afterBatchPeriod(f)).toEqual(['default/job1']);
    const pod2 = newPod('pod2', job2);
    f.controller.updatePod(pod2, bumped(pod2));
    expect(await afterBatchPeriod(f)).toEqual(['default/job2']);
  });

  it('TestUpdatePodOrphanWithNewLabels: an orphan whose labels changed wakes the Jobs that now match', async () => {
    const f = fixture();
    const [job1] = twoJobs(f);
    const pod1 = buildPod().name('pod1').job(job1).clearOwner().pod;
    const prev = structuredClone(pod1);
    mut(prev.metadata!).labels = { foo2: 'bar2' };
    f.controller.updatePod(prev, bumped(pod1));
    expect(await afterBatchPeriod(f)).toEqual(['default/job1', 'default/job2']);
  });

  it('TestUpdatePodChangeControllerRef: both the old and the new owner are woken', async () => {
    const f = fixture();
    const [job1, job2] = twoJobs(f);
    const pod1 = newPod('pod1', job1);
    const prev = new PodBuilder(structuredClone(pod1)).job(job2).pod;
    f.controller.updatePod(prev, bumped(pod1));
    expect(await afterBatchPeriod(f)).toEqual(['default/job1', 'default/job2']);
  });

  it('TestUpdatePodRelease: a released pod wakes its old owner and the Jobs that may adopt it', async () => {
    const f = fixture();
    const [job1] = twoJobs(f);
    const prev = newPod('pod1', job1);
    const cur = bumped(prev);
    delete mut(cur.metadata!).ownerReferences;
    f.controller.updatePod(prev, cur);
    expect(await afterBatchPeriod(f)).toEqual(['default/job1', 'default/job2']);
  });

  it('an update that removed the tracking finalizer is one expected removal seen', () => {
    const f = fixture();
    const [job1] = twoJobs(f);
    const prev = new PodBuilder(newPod('pod1', job1)).phase('Succeeded').trackingFinalizer().pod;
    f.controller.finalizerExpectations.expectFinalizersRemoved('default/job1', ['pod1', 'other']);
    const cur = bumped(prev);
    mut(cur.metadata!).finalizers = [];
    f.controller.updatePod(prev, cur);
    expect(f.controller.finalizerExpectations.getExpectedUIDs('default/job1')).toEqual(
      new Set(['other']),
    );
    expect(f.metrics.get('terminated_pods_tracking_finalizer_total', 'delete')).toBe(1);
  });

  it('TestDeletePod: a deleted pod wakes its Job', async () => {
    const f = fixture();
    const [job1, job2] = twoJobs(f);
    f.controller.deletePod(newPod('pod1', job1), true);
    expect(await afterBatchPeriod(f)).toEqual(['default/job1']);
    f.controller.deletePod(
      new DeletedFinalStateUnknown('default/pod2', newPod('pod2', job2)),
      true,
    );
    expect(await afterBatchPeriod(f)).toEqual(['default/job2']);
  });

  it('TestDeletePodOrphan: a deleted orphan wakes no Job', async () => {
    const f = fixture();
    twoJobs(f);
    const orphan = buildPod()
      .name('pod1')
      .job(newJob(1, 1, 6))
      .clearOwner().pod;
    f.controller.deletePod(orphan, true);
    expect(await afterBatchPeriod(f)).toEqual([]);
  });

  it('a pod of a finished Job deleted with its finalizer on is queued for the removal', async () => {
    const f = fixture();
    const [job1] = twoJobs(f);
    job1.status = { conditions: [newCondition('Complete', 'True', '', '', f.clock.now())] };
    f.addJob(job1);
    const pod = new PodBuilder(newPod('pod1', job1)).trackingFinalizer().pod;
    mut(pod.metadata!).deletionTimestamp = formatTime(f.clock.now());
    f.controller.deletePod(pod, false);
    expect(f.controller.orphanQueue.len()).toBe(1);
    expect(await afterBatchPeriod(f)).toEqual([]);
  });

  it('TestJobBackoff: a pod turning Failed syncs its Job after the batch period, not the failure backoff', async () => {
    const f = fixture();
    const job = newJob(1, 1, 1);
    f.addJob(job);
    const oldPod = new PodBuilder(newPod('p', job)).phase('Running').pod;
    const newer = new PodBuilder(bumped(oldPod)).phase('Failed').pod;
    f.controller.updatePod(oldPod, newer);
    await f.clock.advance(syncJobBatchPeriod - 1);
    expect(f.controller.queue.len()).toBe(0);
    await f.clock.advance(1);
    expect(await f.drain()).toEqual(['default/foobar']);
  });
});

describe('Job handlers', () => {
  it.each([
    ['spec update', true],
    ['status update', false],
  ] as const)('TestUpdateJobRequeue: %s (requeued at once: %s)', async (name, immediate) => {
    const f = fixture();
    const oldJob = newJob(1, 1, 1, 'Indexed');
    f.addJob(oldJob);
    const cur = structuredClone(oldJob);
    if (name === 'spec update') {
      cur.spec!.suspend = false;
      mut(cur.metadata!).generation = 2;
    } else {
      cur.status = { startTime: formatTime(f.clock.now()) };
    }
    f.controller.updateJob(oldJob, cur);
    expect(f.controller.queue.len() > 0).toBe(immediate);
    await f.clock.advance(syncJobBatchPeriod);
    expect(await f.drain()).toEqual(['default/foobar']);
  });

  it('a changed activeDeadlineSeconds schedules a sync when the new deadline falls', async () => {
    const f = fixture();
    const oldJob = newJob(1, 1, 1);
    oldJob.status = { startTime: formatTime(f.clock.now() - 5000) };
    const cur = structuredClone(oldJob);
    cur.spec!.activeDeadlineSeconds = 20;
    mut(cur.metadata!).generation = 2;
    f.controller.updateJob(oldJob, cur);
    expect(await f.drain()).toEqual(['default/foobar']); // the spec change, at once
    await f.clock.advance(15_000 - 1);
    expect(f.controller.queue.len()).toBe(0);
    await f.clock.advance(1);
    expect(await f.drain()).toEqual(['default/foobar']);
  });

  it('a finished Job is not synced again; its pods are queued for finalizer removal', async () => {
    const f = fixture();
    const oldJob = newJob(1, 1, 1);
    const cur = structuredClone(oldJob);
    cur.status = { conditions: [newCondition('Complete', 'True', '', '', f.clock.now())] };
    f.controller.updateJob(oldJob, cur);
    expect(f.controller.orphanQueue.len()).toBe(1);
    await f.clock.advance(syncJobBatchPeriod);
    expect(await f.drain()).toEqual([]);
  });

  it('addJob syncs at once and counts a Job managed elsewhere; deleteJob forgets its backoff', async () => {
    const f = fixture();
    const job = newJob(1, 1, 1);
    job.spec!.managedBy = 'example.com/other';
    f.controller.addJob(job);
    expect(await f.drain()).toEqual(['default/foobar']);
    expect(f.metrics.get('jobs_by_external_controller_total', 'example.com/other')).toBe(1);
    f.controller.podBackoffStore.updateBackoffRecord({
      key: 'default/foobar',
      failuresAfterLastSuccess: 1,
      lastFailureTime: f.clock.now(),
    });
    f.controller.deleteJob(new DeletedFinalStateUnknown('default/foobar', job));
    expect(await f.drain()).toEqual(['default/foobar']);
    expect(f.controller.orphanQueue.len()).toBe(1);
    expect(f.controller.podBackoffStore.getBackoffRecord('default/foobar')).toBeUndefined();
  });
});

describe('the work queue', () => {
  it.each([
    ['no error', undefined],
    ['generic error', new Error('update error')],
    [
      'conflict error',
      newConflict({ group: 'batch', resource: 'jobs' }, 'foobar', new Error('stale')),
    ],
  ])('TestSyncJobUpdateRequeue: %s', async (_name, updateErr) => {
    const f = fixture();
    f.jobs.updateErr = updateErr;
    f.addJob(newJob(2, 2, 6));
    f.controller.queue.add('default/foobar');
    await f.controller.processNextWorkItem();
    expect(f.controller.queue.len()).toBe(0);
    await f.clock.advance(1000); // DefaultJobApiBackOff
    expect(await f.drain()).toEqual(updateErr ? ['default/foobar'] : []);
  });

  it('TestJobApiBackoffReset: a failed sync is retried with backoff, a good one forgets it', async () => {
    const f = fixture();
    f.addJob(newJob(1, 1, 2));
    f.podControl.err = new Error('Controller error');
    f.controller.queue.add('default/foobar');
    await f.controller.processNextWorkItem();
    expect(f.controller.queue.numRequeues('default/foobar')).toBe(1);
    await f.clock.advance(1000);
    expect(f.controller.queue.len()).toBe(1);
    f.podControl.err = undefined;
    await f.controller.processNextWorkItem();
    expect(f.controller.queue.numRequeues('default/foobar')).toBe(0);
    expect(f.controller.queue.len()).toBe(0);
  });

  it('TestSyncJobExpectations: a pod seen between the expectations check and the count is not doubled', async () => {
    const f = fixture();
    const job = newJob(2, 2, 6);
    f.addJob(job);
    const pods = newPodList(2, 'Pending', job);
    f.podIndexer.add(pods[0]!);
    const expectations = f.controller.expectations;
    const original = expectations.satisfiedExpectations.bind(expectations);
    expectations.satisfiedExpectations = (key: string) => {
      // A sync that counted the pods before asking would create one too many.
      f.podIndexer.add(pods[1]!);
      original(key);
      return true;
    };
    await f.controller.syncJob('default/foobar');
    expect(f.podControl.templates).toEqual([]);
    expect(f.podControl.deletePodName).toEqual([]);
  });
});

describe('TestGetPodsForJob', () => {
  const base = newJob(1, 1, 6, 'NonIndexed', 'test_job');
  const otherJob = newJob(1, 1, 6, 'NonIndexed', 'other_job');
  const cases: Record<
    string,
    {
      deleted?: boolean;
      deletedInCache?: boolean;
      pods: Pod[];
      want: string[];
      wantFinalizer?: string[];
    }
  > = {
    'only matching': {
      pods: [
        buildPod().name('pod1').job(base).trackingFinalizer().pod,
        buildPod().name('pod2').job(otherJob).pod,
        buildPod().name('pod3').ns('default').pod,
        buildPod().name('pod4').job(base).pod,
      ],
      want: ['pod1', 'pod4'],
      wantFinalizer: ['pod1'],
    },
    adopt: {
      pods: [
        buildPod().name('pod1').job(base).pod,
        buildPod().name('pod2').job(base).clearOwner().pod,
        buildPod().name('pod3').job(otherJob).pod,
      ],
      want: ['pod1', 'pod2'],
      wantFinalizer: ['pod2'],
    },
    'no adopt when deleting': {
      deleted: true,
      deletedInCache: true,
      pods: [
        buildPod().name('pod1').job(base).pod,
        buildPod().name('pod2').job(base).clearOwner().pod,
      ],
      want: ['pod1'],
    },
    'no adopt when deleting race': {
      deleted: true,
      pods: [
        buildPod().name('pod1').job(base).pod,
        buildPod().name('pod2').job(base).clearOwner().pod,
      ],
      want: ['pod1'],
    },
    release: {
      pods: [
        buildPod().name('pod1').job(base).pod,
        buildPod().name('pod2').job(base).clearLabels().pod,
      ],
      want: ['pod1'],
    },
  };

  it.each(Object.entries(cases))('%s', async (_name, tc) => {
    const f = fixture();
    const job = structuredClone(base);
    if (tc.deleted) mut(job.metadata!).deletionTimestamp = formatTime(f.clock.now());
    const cached = structuredClone(job);
    if (!tc.deletedInCache) delete mut(cached.metadata!).deletionTimestamp;
    f.jobIndexer.add(cached);
    f.jobs.stored.set(job.metadata!.name!, job);
    f.addJob(otherJob);
    for (const p of tc.pods) f.podIndexer.add(structuredClone(p));
    const pods = await f.controller.getPodsForJob(job);
    expect(pods.map((p) => p.metadata!.name!).sort()).toEqual(tc.want);
    expect(
      pods
        .filter(hasJobTrackingFinalizer)
        .map((p) => p.metadata!.name!)
        .sort(),
    ).toEqual(tc.wantFinalizer ?? []);
  });

  it('adopts with a patch adding the controller reference and the tracking finalizer', async () => {
    const f = fixture();
    const job = structuredClone(base);
    f.addJob(job);
    f.podIndexer.add(buildPod().name('pod2').job(job).clearOwner().pod);
    await f.controller.getPodsForJob(job);
    expect(JSON.stringify(f.podControl.patches)).toContain('batch.kubernetes.io/job-tracking');
    expect(JSON.stringify(f.podControl.patches)).toContain(job.metadata!.uid!);
  });
});

describe('TestJobPodLookup', () => {
  const f = fixture();
  const cases: [string, Job, Pod, string][] = [
    [
      'pods without labels do not match any job',
      { metadata: { name: 'basic' } },
      { metadata: { name: 'foo1' } },
      '',
    ],
    [
      'matching labels, different namespace',
      {
        metadata: { name: 'foo' },
        spec: { selector: { matchLabels: { foo: 'bar' } }, template: {} },
      },
      { metadata: { name: 'foo2', namespace: 'ns', labels: { foo: 'bar' } } },
      '',
    ],
    [
      'matching ns and labels returns',
      {
        metadata: { name: 'bar', namespace: 'ns' },
        spec: {
          selector: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
          template: {},
        },
      },
      { metadata: { name: 'foo3', namespace: 'ns', labels: { foo: 'bar' } } },
      'bar',
    ],
  ];
  it.each(cases)('%s', (_name, job, pod, want) => {
    f.jobIndexer.add(job);
    const jobs = f.controller.getPodJobs(pod);
    expect(jobs.map((j) => j.metadata!.name)).toEqual(want === '' ? [] : [want]);
  });
});

describe('TestGetPodCreationInfoForIndependentIndexes', () => {
  const now = Date.UTC(2026, 0, 1);
  const failed = (count: string, at: number) =>
    buildPod().indexFailureCount(count).customDeletionTimestamp(at).pod;
  const cases: Record<string, [number[], Map<number, Pod>, number[], number]> = {
    'simple index creation': [[1, 3], new Map(), [1, 3], 0],
    'subset of indexes can be recreated now': [[1, 3], new Map([[1, failed('0', now)]]), [3], 0],
    'subset of indexes can be recreated now as the pods failed long time ago': [
      [1, 3],
      new Map([
        [1, failed('0', now)],
        [3, failed('0', now - defaultJobPodFailureBackOff)],
      ]),
      [3],
      0,
    ],
    'no indexes can be recreated now, need to wait default pod failure backoff': [
      [1, 2, 3],
      new Map([
        [1, failed('1', now)],
        [2, failed('0', now)],
        [3, failed('2', now)],
      ]),
      [],
      defaultJobPodFailureBackOff,
    ],
    'no indexes can be recreated now, need to wait but 1s already passed': [
      [1, 2, 3],
      new Map([
        [1, failed('1', now - 1000)],
        [2, failed('0', now - 1000)],
        [3, failed('2', now - 1000)],
      ]),
      [],
      defaultJobPodFailureBackOff - 1000,
    ],
  };
  it.each(Object.entries(cases))('%s', (_name, [toAdd, delayed, want, wantRemaining]) => {
    const f = fixture({ clock: new FakeClock(now) });
    expect(f.controller.getPodCreationInfoForIndependentIndexes(toAdd, delayed)).toEqual([
      want,
      wantRemaining,
    ]);
  });
});

describe('TestEnsureJobConditions', () => {
  const now = Date.UTC(2026, 0, 1);
  const susp = (status: 'True' | 'False', reason: string) =>
    newCondition('Suspended', status, reason, '', now);
  const cases: [
    string,
    ReturnType<typeof susp>[],
    'True' | 'False',
    string,
    ReturnType<typeof susp>[],
    boolean,
  ][] = [
    ['append true condition', [], 'True', 'foo', [susp('True', 'foo')], true],
    ['append false condition', [], 'False', 'foo', [], false],
    [
      'update true condition reason',
      [susp('True', 'foo')],
      'True',
      'bar',
      [susp('True', 'bar')],
      true,
    ],
    [
      'update true condition status',
      [susp('True', 'foo')],
      'False',
      'foo',
      [susp('False', 'foo')],
      true,
    ],
    [
      'update false condition status',
      [susp('False', 'foo')],
      'True',
      'foo',
      [susp('True', 'foo')],
      true,
    ],
    [
      'condition already exists',
      [susp('True', 'foo')],
      'True',
      'foo',
      [susp('True', 'foo')],
      false,
    ],
  ];
  it.each(cases)('%s', (_name, have, status, reason, want, wantUpdate) => {
    const [got, updated] = ensureJobConditionStatus(
      have,
      'Suspended',
      status,
      reason,
      '',
      now + 5000,
    );
    expect(updated).toBe(wantUpdate);
    expect(conditionsOf({ conditions: got })).toEqual(conditionsOf({ conditions: want }));
  });
});

describe('TestSyncOrphanPod', () => {
  const jobRef = (extra: Partial<OwnerReference> = {}): OwnerReference => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    name: 'j',
    uid: '111',
    controller: true,
    blockOwnerDeletion: true,
    ...extra,
  });
  const jobJ = (complete: boolean): Job => {
    const j = newJob(2, 2, 6, 'NonIndexed', 'j');
    mut(j.metadata!).uid = '111';
    if (complete) j.status = { conditions: [{ type: 'Complete', status: 'True' }] };
    return j;
  };
  const cases: Record<string, { owner?: OwnerReference; job?: Job; wantRemoved: boolean }> = {
    controlled_by_existing_running_job: { owner: jobRef(), job: jobJ(false), wantRemoved: false },
    controlled_by_existing_finished_job: { owner: jobRef(), job: jobJ(true), wantRemoved: true },
    controlled_by_non_existing_job: { owner: jobRef(), wantRemoved: true },
    controlled_by_cronjob: { owner: jobRef({ kind: 'CronJob', name: 'cj' }), wantRemoved: false },
    not_controlled: { wantRemoved: true },
    controlled_by_custom_crd: {
      owner: jobRef({ apiVersion: 'example/v1', name: 'job' }),
      wantRemoved: false,
    },
    owned_by_existing_running_job: {
      owner: { apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: '111' },
      job: jobJ(false),
      wantRemoved: true,
    },
    owned_by_custom_crd: {
      owner: { apiVersion: 'example/v1', kind: 'Job', name: 'job', uid: '111' },
      wantRemoved: true,
    },
  };

  it.each(Object.entries(cases))('%s', async (name, tc) => {
    const f = fixture();
    if (tc.job) f.addJob(tc.job);
    const pod = buildPod().name(name).deletionTimestamp().trackingFinalizer().pod;
    if (tc.owner) mut(pod.metadata!).ownerReferences = [tc.owner];
    f.podIndexer.add(pod);
    await f.controller.syncOrphanPod({ kind: 'name', namespace: 'default', value: name });
    expect(f.podControl.patches.length).toBe(tc.wantRemoved ? 1 : 0);
    if (tc.wantRemoved)
      expect(JSON.stringify(f.podControl.patches[0])).toContain('$deleteFromPrimitiveList');
  });

  it('a selector key clears every matching pod of a finished Job', async () => {
    const f = fixture();
    const job = jobJ(true);
    f.addJob(job);
    for (const p of newPodList(3, 'Succeeded', job)) f.podIndexer.add(p);
    f.podIndexer.add(buildPod().name('unrelated').trackingFinalizer().pod);
    await f.controller.syncOrphanPod({ kind: 'selector', namespace: 'default', value: 'foo=bar' });
    expect(f.podControl.patches).toHaveLength(3);
  });

  it('a pod gone meanwhile needs nothing', async () => {
    const f = fixture();
    await f.controller.syncOrphanPod({ kind: 'name', namespace: 'default', value: 'gone' });
    expect(f.podControl.patches).toEqual([]);
  });
});

describe('TestFinalizersRemovedExpectations (sync part)', () => {
  it('expects the removals only once the patches went through', async () => {
    const f = fixture();
    f.podControl.err = new Error('fake pod controller error');
    const job = newJob(2, 2, 6);
    f.addJob(job);
    const pods = [...newPodList(2, 'Succeeded', job), ...newPodList(2, 'Failed', job)];
    for (const p of pods) f.podIndexer.add(p);
    await expect(f.controller.syncJob('default/foobar')).rejects.toThrow();
    expect(
      f.controller.finalizerExpectations.getExpectedUIDs('default/foobar') ?? new Set(),
    ).toEqual(new Set());
    f.podControl.err = undefined;
    await f.controller.syncJob('default/foobar');
    expect(f.controller.finalizerExpectations.getExpectedUIDs('default/foobar')).toEqual(
      new Set(pods.map((p) => p.metadata!.uid!)),
    );
    // Every pod was listed as uncounted before any finalizer went, then counted.
    const listed = f.jobs.statusUpdates.find(
      (s) => s.uncountedTerminatedPods?.succeeded?.length === 2,
    );
    expect(listed?.uncountedTerminatedPods?.failed).toHaveLength(2);
    expect(f.jobs.actual!.status).toMatchObject({ succeeded: 2, failed: 2 });
  });
});
