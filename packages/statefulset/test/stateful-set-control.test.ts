// Ports of stateful_set_control_test.go: CreatesPods, ScalesUp, ScalesDown,
// ReplacesPods, RecreatesFailedPod, RecreatesSucceededPod, CreatePodFailure,
// UpdateSetStatusFailure, TestStatefulSetControlScaleDownDeleteError,
// TestStatefulSetControl_getSetRevisions, TestStatefulSetControlRollback,
// TestStatefulSetControlRollingUpdate / WithPartition / OnDelete,
// TestStatefulSetControlRollingUpdateWithMaxUnavailable,
// TestStatefulSetControlLimitsHistory, TestParallelScale,
// TestStatefulSetAvailability (minReadySeconds), TestStatefulSetStartOrdinal,
// TestStatefulSetControlWithStaleClaims and the PVC retention cases.
import { describe, expect, it } from 'vitest';
import { statefulSetRevisionLabel } from '../src/stateful-set-utils.js';
import { mut, newStatefulSet, scaleUpAll, setupControl, type Setup } from './helpers.js';

const revisionOf = (s: Setup, name: string) =>
  s.cluster.pods.get(name)?.metadata?.labels?.[statefulSetRevisionLabel];

describe('OrderedReady', () => {
  it('creates web-0, then web-1 only once web-0 is Running and Ready, and so on', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    s.cluster.setPhase('web-0', 'Running');
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    s.cluster.setReady('web-0');
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1']);
    s.cluster.setReady('web-1');
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1', 'web-2']);
    s.cluster.setReady('web-2');
    await s.sync();
    const st = s.target.set.status!;
    expect(st).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(st.currentReplicas).toBe(3);
    expect(st.updatedReplicas).toBe(3);
    expect(st.currentRevision).toBe(st.updateRevision);
    expect(st.observedGeneration).toBe(1);
    expect(st.collisionCount).toBe(0);
  });

  it('creates each claim before its pod, and records upstream events', async () => {
    const s = setupControl(newStatefulSet('web', 2));
    await scaleUpAll(s);
    expect(s.cluster.ops.filter((o) => !o.startsWith('update'))).toEqual([
      'createClaim datadir-web-0',
      'createPod web-0',
      'createClaim datadir-web-1',
      'createPod web-1',
    ]);
    expect(s.recorder.events).toEqual([
      'Normal SuccessfulCreate create Claim datadir-web-0 Pod web-0 in StatefulSet web success',
      'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful',
      'Normal SuccessfulCreate create Claim datadir-web-1 Pod web-1 in StatefulSet web success',
      'Normal SuccessfulCreate create Pod web-1 in StatefulSet web successful',
    ]);
    const pod = s.cluster.pods.get('web-1')!;
    expect(pod.spec?.hostname).toBe('web-1');
    expect(pod.spec?.subdomain).toBe('governingsvc');
    expect(pod.metadata?.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'web-1',
      'apps.kubernetes.io/pod-index': '1',
    });
  });

  it('scales down from the highest ordinal, one at a time, each waiting for the last to go', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    await scaleUpAll(s);
    s.setSpec({ replicas: 1 });
    await s.sync();
    expect(s.cluster.ops.at(-1)).toBe('deletePod web-2');
    await s.sync();
    // web-2 is still terminating: nothing else happens.
    expect(s.cluster.ops.filter((o) => o.startsWith('deletePod'))).toEqual(['deletePod web-2']);
    s.cluster.finishTerminations();
    await s.sync();
    expect(s.cluster.ops.filter((o) => o.startsWith('deletePod'))).toEqual([
      'deletePod web-2',
      'deletePod web-1',
    ]);
    s.cluster.finishTerminations();
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    expect(s.target.set.status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    expect(s.recorder.events).toContain(
      'Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful',
    );
  });

  it('does not scale down while a lower replica is unhealthy', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    await scaleUpAll(s);
    s.setSpec({ replicas: 2 });
    s.cluster.setReady('web-0', false);
    await s.sync();
    expect(s.cluster.ops.some((o) => o.startsWith('deletePod'))).toBe(false);
  });

  it('brings a deleted pod back with the same name', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    await scaleUpAll(s);
    const oldUid = s.cluster.pods.get('web-1')!.metadata!.uid;
    s.cluster.remove('web-1');
    await s.sync();
    const back = s.cluster.pods.get('web-1')!;
    expect(back.metadata?.uid).not.toBe(oldUid);
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1', 'web-2']);
  });

  it('deletes a Failed (or Succeeded) pod and recreates it on the next pass', async () => {
    for (const phase of ['Failed', 'Succeeded'] as const) {
      const s = setupControl(newStatefulSet('web', 2));
      await scaleUpAll(s);
      s.cluster.setPhase('web-0', phase);
      await s.sync();
      expect(s.cluster.pods.get('web-0')?.metadata?.deletionTimestamp).toBeDefined();
      s.cluster.finishTerminations();
      await s.sync();
      expect(s.cluster.pods.get('web-0')?.status?.phase).toBe('Pending');
    }
  });

  it('reports a failed creation as FailedCreate and still writes the status', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    s.cluster.fail = (op) => op === 'createPod';
    const err = await s.sync();
    expect(String(err)).toContain('injected');
    expect(s.recorder.events.at(-1)).toMatch(
      /^Warning FailedCreate create Pod web-0 in StatefulSet web failed error: .*injected/,
    );
    expect(s.target.set.status).toMatchObject({ replicas: 0 });
    s.cluster.fail = () => false;
    await scaleUpAll(s);
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1', 'web-2']);
  });

  it('retries a status write that failed', async () => {
    const s = setupControl(newStatefulSet('web', 1));
    s.statusUpdater.failNext = 1;
    expect(String(await s.sync())).toContain('injected status failure');
    expect(s.target.set.status).toBeUndefined();
    await s.sync();
    expect(s.target.set.status?.replicas).toBe(1);
  });

  it('does not create a second pod when its cache has not seen the first (AlreadyExists)', async () => {
    const s = setupControl(newStatefulSet('web', 3), { lag: true });
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    const err = await s.sync();
    expect(err).toBeDefined();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
  });

  it('counts from ordinals.start', async () => {
    const s = setupControl(newStatefulSet('web', 2, { ordinals: { start: 5 } }));
    await scaleUpAll(s);
    expect(s.cluster.livePodNames()).toEqual(['web-5', 'web-6']);
    s.setSpec({ ordinals: { start: 6 } });
    await scaleUpAll(s);
    expect(s.cluster.livePodNames()).toEqual(['web-6', 'web-7']);
  });

  it('waits minReadySeconds for availability before the next ordinal', async () => {
    const s = setupControl(newStatefulSet('web', 2, { minReadySeconds: 10 }));
    await s.sync();
    s.cluster.setReady('web-0');
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0']);
    expect(s.target.set.status).toMatchObject({ readyReplicas: 1, availableReplicas: 0 });
    await s.clock.advance(11_000);
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1']);
    expect(s.target.set.status).toMatchObject({ availableReplicas: 1 });
  });
});

describe('Parallel', () => {
  it('creates all pods without waiting, and deletes all condemned pods at once', async () => {
    const s = setupControl(newStatefulSet('web', 4, { podManagementPolicy: 'Parallel' }));
    await s.sync();
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1', 'web-2', 'web-3']);
    await scaleUpAll(s);
    s.setSpec({ replicas: 1 });
    await s.sync();
    expect(
      s.cluster.ops
        .filter((o) => o.startsWith('deletePod'))
        .sort()
        .map((o) => o.slice(10)),
    ).toEqual(['web-1', 'web-2', 'web-3']);
  });

  it('stops a batch after a failure (slow start)', async () => {
    const s = setupControl(newStatefulSet('web', 7, { podManagementPolicy: 'Parallel' }));
    s.cluster.fail = (op, name) => op === 'createPod' && name === 'web-2';
    await s.sync();
    // Batches 1, 2 (web-1, web-2: fails), and no more.
    expect(s.cluster.livePodNames()).toEqual(['web-0', 'web-1']);
  });
});

describe('updates', () => {
  const newImage = (s: Setup, image: string) =>
    s.setSpec({
      template: {
        ...s.target.set.spec!.template,
        spec: {
          ...s.target.set.spec!.template.spec!,
          containers: [{ ...s.target.set.spec!.template.spec!.containers[0]!, image }],
        },
      },
    });

  it('rolls from the highest ordinal down, one pod at a time, and completes', async () => {
    const s = setupControl(newStatefulSet('web', 3));
    await scaleUpAll(s);
    const before = s.target.set.status!.currentRevision!;
    newImage(s, 'nginx:2');
    await s.sync();
    const after = s.target.set.status!.updateRevision!;
    expect(after).not.toBe(before);
    expect(s.cluster.ops.at(-1)).toBe('deletePod web-2');
    await s.sync();
    expect(s.cluster.ops.filter((o) => o.startsWith('deletePod'))).toHaveLength(1);
    await scaleUpAll(s);
    for (const name of ['web-0', 'web-1', 'web-2']) {
      expect(revisionOf(s, name)).toBe(after);
      expect(s.cluster.pods.get(name)?.spec?.containers[0]?.image).toBe('nginx:2');
    }
    expect(s.target.set.status).toMatchObject({
      currentRevision: after,
      updateRevision: after,
      currentReplicas: 3,
      updatedReplicas: 3,
    });
    expect(s.cluster.ops.filter((o) => o.startsWith('deletePod'))).toEqual([
      'deletePod web-2',
      'deletePod web-1',
      'deletePod web-0',
    ]);
  });

  it('keeps the pods below the partition at the current revision', async () => {
    const s = setupControl(
      newStatefulSet('web', 3, {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      }),
    );
    await scaleUpAll(s);
    const current = s.target.set.status!.currentRevision!;
    newImage(s, 'nginx:2');
    await scaleUpAll(s, 20);
    const update = s.target.set.status!.updateRevision!;
    expect([revisionOf(s, 'web-0'), revisionOf(s, 'web-1'), revisionOf(s, 'web-2')]).toEqual([
      current,
      current,
      update,
    ]);
    expect(s.target.set.status).toMatchObject({
      currentRevision: current,
      currentReplicas: 2,
      updatedReplicas: 1,
    });
    // Lowering the partition to 0 finishes the rollout.
    s.setSpec({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
    await scaleUpAll(s);
    expect(s.target.set.status).toMatchObject({ currentRevision: update, currentReplicas: 3 });
  });

  it('takes down up to maxUnavailable pods at once', async () => {
    const s = setupControl(
      newStatefulSet('web', 5, {
        updateStrategy: {
          type: 'RollingUpdate',
          rollingUpdate: { partition: 0, maxUnavailable: 2 },
        },
      }),
    );
    await scaleUpAll(s);
    newImage(s, 'nginx:2');
    await s.sync();
    expect(s.cluster.ops.filter((o) => o.startsWith('deletePod'))).toEqual([
      'deletePod web-4',
      'deletePod web-3',
    ]);
  });

  it('with OnDelete, updates a pod only when it is deleted', async () => {
    const s = setupControl(newStatefulSet('web', 2, { updateStrategy: { type: 'OnDelete' } }));
    await scaleUpAll(s);
    const current = s.target.set.status!.currentRevision!;
    newImage(s, 'nginx:2');
    await s.sync();
    await s.sync();
    expect(s.cluster.ops.some((o) => o.startsWith('deletePod'))).toBe(false);
    expect(revisionOf(s, 'web-1')).toBe(current);
    s.cluster.remove('web-1');
    await s.sync();
    expect(revisionOf(s, 'web-1')).toBe(s.target.set.status!.updateRevision);
    expect(s.cluster.pods.get('web-1')?.spec?.containers[0]?.image).toBe('nginx:2');
    expect(revisionOf(s, 'web-0')).toBe(current);
  });

  it('rolls back to an earlier revision by renumbering it, and keeps the history limit', async () => {
    const s = setupControl(newStatefulSet('web', 1));
    await scaleUpAll(s);
    const first = s.target.set.status!.currentRevision!;
    newImage(s, 'nginx:2');
    await scaleUpAll(s);
    newImage(s, 'nginx:3');
    await scaleUpAll(s);
    newImage(s, 'nginx');
    await scaleUpAll(s);
    expect(s.target.set.status!.currentRevision).toBe(first);
    const revs = s.revisions.list().sort((a, b) => a.revision - b.revision);
    expect(revs.at(-1)?.metadata?.name).toBe(first);
    expect(revs.at(-1)?.revision).toBe(4);
    // Limit 2 of non-live history: nginx:2 and nginx:3 remain.
    expect(revs).toHaveLength(3);
    newImage(s, 'nginx:4');
    await scaleUpAll(s);
    newImage(s, 'nginx:5');
    await scaleUpAll(s);
    // The pass that completes the rollout still counts the old current
    // revision as live; the next one trims it.
    await s.sync();
    expect(
      s.revisions
        .list()
        .map((r) => r.revision)
        .sort(),
    ).toEqual([4, 5, 6]);
  });
});

describe('claims and the retention policy', () => {
  it('owns live claims by the set with whenDeleted: Delete, and condemned ones by the pod with whenScaled: Delete', async () => {
    const s = setupControl(
      newStatefulSet('web', 2, {
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      }),
    );
    await scaleUpAll(s);
    const setUid = s.target.set.metadata!.uid;
    for (const name of ['datadir-web-0', 'datadir-web-1']) {
      expect(s.cluster.claims.get(name)?.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([
        setUid,
      ]);
    }
    s.setSpec({ replicas: 1 });
    await s.sync();
    const podUid = s.cluster.pods.get('web-1')!.metadata!.uid;
    expect(
      s.cluster.claims.get('datadir-web-1')?.metadata?.ownerReferences?.map((r) => r.uid),
    ).toEqual([podUid]);
    expect(s.cluster.pods.get('web-1')?.metadata?.deletionTimestamp).toBeDefined();
  });

  it('leaves claims unowned with the default Retain policy', async () => {
    const s = setupControl(newStatefulSet('web', 2));
    await scaleUpAll(s);
    s.setSpec({ replicas: 1 });
    await scaleUpAll(s);
    expect(s.cluster.claims.get('datadir-web-1')?.metadata?.ownerReferences ?? []).toEqual([]);
    expect(s.cluster.claims.size).toBe(2);
  });

  it('does not create a pod on a claim still owned by its previous incarnation', async () => {
    const s = setupControl(
      newStatefulSet('web', 1, {
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      }),
    );
    await s.cluster.createClaim({
      metadata: {
        name: 'datadir-web-0',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: 'gone', controller: true },
        ],
      },
    });
    await s.sync();
    expect(s.cluster.pods.size).toBe(0);
  });

  it('fails the pod creation while its claim is being deleted', async () => {
    const s = setupControl(newStatefulSet('web', 1));
    await s.cluster.createClaim({
      metadata: {
        name: 'datadir-web-0',
        namespace: 'default',
        deletionTimestamp: '2026-01-01T00:00:00Z',
      },
    });
    const err = await s.sync();
    expect(String(err)).toContain('pvc datadir-web-0 is being deleted');
    expect(s.cluster.pods.size).toBe(0);
  });
});

describe('a set being deleted', () => {
  it('only writes the status', async () => {
    const set = newStatefulSet('web', 2);
    mut(set.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    const s = setupControl(set);
    await s.sync();
    expect(s.cluster.pods.size).toBe(0);
    expect(s.target.set.status?.replicas).toBe(0);
  });
});
