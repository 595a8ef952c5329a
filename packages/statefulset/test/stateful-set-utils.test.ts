// Ports of stateful_set_utils_test.go: TestGetParentNameAndOrdinal,
// TestIsMemberOf, TestIdentityMatches, TestStorageMatches,
// TestUpdateIdentity, TestUpdateStorage, TestIsRunningAndReady,
// TestAscendingOrdinal, TestDescendingOrdinal, TestOverlappingStatefulSets,
// TestNewPodControllerRef, TestCreateApplyRevision, TestRollingUpdateApplyRevision,
// TestGetPersistentVolumeClaims, TestIsClaimOwnerUpToDate /
// TestUpdateClaimOwnerRefForSetAndPod (the policy table), TestHasOwnerRef,
// TestHasStaleOwnerRef, TestGetStatefulSetMaxUnavailable.
import type {
  StatefulSet,
  StatefulSetPersistentVolumeClaimRetentionPolicy,
} from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { newControllerRef } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  applyRevision,
  ascendingOrdinal,
  completeRollingUpdate,
  descendingOrdinal,
  getParentNameAndOrdinal,
  getPersistentVolumeClaims,
  getStatefulSetMaxUnavailable,
  hasOwnerRef,
  hasStaleOwnerRef,
  identityMatches,
  inconsistentStatus,
  isClaimOwnerUpToDate,
  isMemberOf,
  isRunningAndReady,
  newRevision,
  newStatefulSetPod,
  newVersionedStatefulSetPod,
  overlappingStatefulSets,
  podIndexLabel,
  podKind,
  statefulSetKind,
  statefulSetPodNameLabel,
  statefulSetRevisionLabel,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from '../src/stateful-set-utils.js';
import { mut, newStatefulSet, newUid } from './helpers.js';

const podNamed = (name: string): Pod => ({ metadata: { name, namespace: 'default' } });

describe('identity', () => {
  it('reads parent and ordinal from the name', () => {
    expect(getParentNameAndOrdinal(podNamed('foo-1'))).toEqual(['foo', 1]);
    expect(getParentNameAndOrdinal(podNamed('foo-bar-12'))).toEqual(['foo-bar', 12]);
    expect(getParentNameAndOrdinal(podNamed('1'))).toEqual(['', -1]);
    expect(getParentNameAndOrdinal(podNamed('foo-bar'))).toEqual(['', -1]);
    expect(getParentNameAndOrdinal(podNamed('foo-99999999999'))).toEqual(['foo', -1]);
  });

  it('gives a new pod name, labels, hostname, subdomain and an owner reference', () => {
    const set = newStatefulSet('foo', 3);
    const pod = newStatefulSetPod(set, 1);
    expect(pod.metadata?.name).toBe('foo-1');
    expect(pod.metadata?.labels).toMatchObject({
      foo: 'bar',
      [statefulSetPodNameLabel]: 'foo-1',
      [podIndexLabel]: '1',
    });
    expect(pod.spec?.hostname).toBe('foo-1');
    expect(pod.spec?.subdomain).toBe('governingsvc');
    expect(pod.metadata?.ownerReferences).toEqual([newControllerRef(set, statefulSetKind)]);
    expect(isMemberOf(set, pod)).toBe(true);
    expect(identityMatches(set, pod)).toBe(true);
    expect(isMemberOf(newStatefulSet('foo2', 1), pod)).toBe(false);
  });

  it('detects and repairs a broken identity', () => {
    const set = newStatefulSet('foo', 3);
    const cases: ((p: Pod) => void)[] = [
      (p) => (p.metadata!.name = 'foo-bar-1'),
      (p) => (p.metadata!.namespace = 'other'),
      (p) => delete p.metadata!.labels![statefulSetPodNameLabel],
    ];
    for (const breakIt of cases) {
      const pod = newStatefulSetPod(set, 1);
      breakIt(pod);
      expect(identityMatches(set, pod)).toBe(false);
      if (pod.metadata!.name === 'foo-1') {
        updateIdentity(set, pod);
        expect(identityMatches(set, pod)).toBe(true);
      }
    }
  });

  it('sorts by ordinal both ways', () => {
    const pods = [5, 1, 3, 0].map((i) => podNamed(`foo-${i}`));
    expect(pods.sort(ascendingOrdinal).map((p) => p.metadata?.name)).toEqual([
      'foo-0',
      'foo-1',
      'foo-3',
      'foo-5',
    ]);
    expect(pods.sort(descendingOrdinal).map((p) => p.metadata?.name)).toEqual([
      'foo-5',
      'foo-3',
      'foo-1',
      'foo-0',
    ]);
  });

  it('orders overlapping sets by creation time, then name', () => {
    const a = newStatefulSet('b', 1);
    const b = newStatefulSet('a', 1);
    const c = newStatefulSet('c', 1);
    mut(c.metadata!).creationTimestamp = '2025-01-01T00:00:00Z';
    expect([a, b, c].sort(overlappingStatefulSets).map((s) => s.metadata?.name)).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  it('is Running and Ready only with both', () => {
    const pod = podNamed('foo-0');
    expect(isRunningAndReady(pod)).toBe(false);
    mut(pod).status = { phase: 'Running' };
    expect(isRunningAndReady(pod)).toBe(false);
    pod.status!.conditions = [{ type: 'Ready', status: 'True' }];
    expect(isRunningAndReady(pod)).toBe(true);
    pod.status!.phase = 'Pending';
    expect(isRunningAndReady(pod)).toBe(false);
  });
});

describe('storage', () => {
  it('mounts the claim of each template, and repairs a pod that does not', () => {
    const set = newStatefulSet('foo', 3);
    const pod = newStatefulSetPod(set, 2);
    expect(storageMatches(set, pod)).toBe(true);
    expect(pod.spec?.volumes).toEqual([
      { name: 'datadir', persistentVolumeClaim: { claimName: 'datadir-foo-2' } },
      { name: 'home', hostPath: { path: '/tmp/home' } },
    ]);
    pod.spec!.volumes = [{ name: 'datadir', hostPath: { path: '/tmp' } }];
    expect(storageMatches(set, pod)).toBe(false);
    updateStorage(set, pod);
    expect(storageMatches(set, pod)).toBe(true);
    expect(storageMatches(set, podNamed('foo'))).toBe(false);
  });

  it('names claims <template>-<set>-<ordinal> with the selector labels', () => {
    const set = newStatefulSet('foo', 3);
    set.spec!.volumeClaimTemplates![0]!.metadata!.labels = { tier: 'db' };
    const claims = getPersistentVolumeClaims(set, podNamed('foo-1'));
    expect([...claims.keys()]).toEqual(['datadir']);
    expect(claims.get('datadir')?.metadata).toEqual({
      name: 'datadir-foo-1',
      namespace: 'default',
      labels: { tier: 'db', foo: 'bar' },
    });
  });
});

describe('revisions', () => {
  it('stores the template as a replace patch, and applies it back', () => {
    const set = newStatefulSet('foo', 3);
    set.metadata!.annotations = { note: 'x' };
    const rev = newRevision(set, 1, 0);
    expect(rev.data).toEqual({ spec: { template: { ...set.spec!.template, $patch: 'replace' } } });
    expect(rev.metadata?.name).toMatch(/^foo-[a-z0-9]+$/);
    expect(rev.metadata?.annotations).toEqual({ note: 'x' });
    expect(rev.metadata?.labels).toMatchObject({ foo: 'bar' });
    expect(newRevision(set, 1, 0).metadata?.name).toBe(rev.metadata?.name);
    expect(newRevision(set, 1, 1).metadata?.name).not.toBe(rev.metadata?.name);

    const changed = structuredClone(set);
    changed.spec!.template.spec!.containers[0]!.image = 'nginx:2';
    changed.spec!.template.metadata!.annotations = { added: 'y' };
    const restored = applyRevision(changed, rev);
    expect(restored.spec?.template).toEqual(set.spec?.template);
    expect(restored.spec?.replicas).toBe(3);
    expect(newRevision(changed, 2, 0).metadata?.name).not.toBe(rev.metadata?.name);
  });

  it('makes pods below the partition from the current revision', () => {
    const current = newStatefulSet('foo', 5, {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 3 } },
    });
    const update = structuredClone(current);
    update.spec!.template.spec!.containers[0]!.image = 'nginx:2';
    const revOf = (o: number) =>
      newVersionedStatefulSetPod(current, update, 'cur', 'upd', o).metadata?.labels?.[
        statefulSetRevisionLabel
      ];
    expect([0, 1, 2, 3, 4].map(revOf)).toEqual(['cur', 'cur', 'cur', 'upd', 'upd']);
    const pod = newVersionedStatefulSetPod(current, update, 'cur', 'upd', 4);
    expect(pod.spec?.containers[0]?.image).toBe('nginx:2');
    // RollingUpdate without parameters: below status.currentReplicas.
    const plain = newStatefulSet('foo', 5);
    plain.status = { replicas: 5, currentReplicas: 2 };
    expect(
      [0, 1, 2].map(
        (o) =>
          newVersionedStatefulSetPod(plain, update, 'cur', 'upd', o).metadata?.labels?.[
            statefulSetRevisionLabel
          ],
      ),
    ).toEqual(['cur', 'cur', 'upd']);
  });

  it('completes a rolling update once all replicas are updated and ready', () => {
    const set = newStatefulSet('foo', 3);
    const status = {
      replicas: 3,
      readyReplicas: 3,
      updatedReplicas: 3,
      currentReplicas: 0,
      currentRevision: 'a',
      updateRevision: 'b',
    };
    completeRollingUpdate(set, status);
    expect(status).toMatchObject({ currentReplicas: 3, currentRevision: 'b' });
    const notReady = { ...status, readyReplicas: 2, currentReplicas: 0, currentRevision: 'a' };
    completeRollingUpdate(set, notReady);
    expect(notReady.currentRevision).toBe('a');
    const onDelete = newStatefulSet('foo', 3, { updateStrategy: { type: 'OnDelete' } });
    const st2 = { ...status, currentReplicas: 0, currentRevision: 'a' };
    completeRollingUpdate(onDelete, st2);
    expect(st2.currentRevision).toBe('a');
  });

  it('sees a status as inconsistent when a counter, revision or generation moved', () => {
    const set = newStatefulSet('foo', 3);
    set.status = { replicas: 3, observedGeneration: 1, currentRevision: 'a', updateRevision: 'a' };
    expect(inconsistentStatus(set, { ...set.status })).toBe(false);
    expect(inconsistentStatus(set, { ...set.status, collisionCount: 1 })).toBe(false);
    expect(inconsistentStatus(set, { ...set.status, observedGeneration: 2 })).toBe(true);
    expect(inconsistentStatus(set, { ...set.status, availableReplicas: 1 })).toBe(true);
    expect(inconsistentStatus(set, { ...set.status, updateRevision: 'b' })).toBe(true);
  });
});

describe('maxUnavailable', () => {
  it.each([
    [undefined, 10, 1],
    [3, 10, 3],
    ['50%', 10, 5],
    ['10%', 5, 1],
    ['100%', 5, 5],
    ['1%', 1, 1],
  ])('%s of %i replicas is %i', (value, replicas, want) => {
    expect(getStatefulSetMaxUnavailable(value, replicas)).toBe(want);
  });
  it('refuses a string that is not a percentage', () => {
    expect(() => getStatefulSetMaxUnavailable('5', 10)).toThrow(/not a percentage/);
  });
});

describe('claim owner references', () => {
  type Policy = StatefulSetPersistentVolumeClaimRetentionPolicy;
  const setup = (policy: Policy, replicas: number, ordinal: number) => {
    const set = newStatefulSet('foo', replicas, { persistentVolumeClaimRetentionPolicy: policy });
    const pod = newStatefulSetPod(set, ordinal);
    mut(pod.metadata!).uid = newUid();
    const claim: PersistentVolumeClaim = { metadata: { name: `datadir-foo-${ordinal}` } };
    return { set, pod, claim };
  };
  const owners = (claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod) =>
    (claim.metadata?.ownerReferences ?? [])
      .map((r) =>
        r.uid === set.metadata?.uid ? 'set' : r.uid === pod.metadata?.uid ? 'pod' : r.name,
      )
      .sort();

  // [whenScaled, whenDeleted, scaled down?, the owners the claim should have]
  it.each([
    ['Retain', 'Retain', false, []],
    ['Retain', 'Retain', true, []],
    ['Retain', 'Delete', false, ['set']],
    ['Retain', 'Delete', true, ['set']],
    ['Delete', 'Retain', false, []],
    ['Delete', 'Retain', true, ['pod']],
    ['Delete', 'Delete', false, ['set']],
    ['Delete', 'Delete', true, ['pod']],
  ] as const)('whenScaled=%s whenDeleted=%s scaledDown=%s owns by %j', (ws, wd, down, want) => {
    const { set, pod, claim } = setup({ whenScaled: ws, whenDeleted: wd }, down ? 1 : 3, 2);
    const upToDate = want.length === 0;
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(upToDate);
    updateClaimOwnerRefForSetAndPod(claim, set, pod);
    expect(owners(claim, set, pod)).toEqual([...want]);
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(true);
    for (const r of claim.metadata?.ownerReferences ?? []) expect(r.controller).toBe(true);
    // Idempotent.
    const again = structuredClone(claim);
    updateClaimOwnerRefForSetAndPod(again, set, pod);
    expect(again).toEqual(claim);
  });

  it('leaves a claim with a stale reference alone, and drops ours next to a foreign controller', () => {
    const { set, pod, claim } = setup({ whenScaled: 'Delete', whenDeleted: 'Delete' }, 3, 2);
    claim.metadata!.ownerReferences = [{ ...newControllerRef(set, statefulSetKind), uid: 'old' }];
    expect(hasStaleOwnerRef(claim, set, statefulSetKind)).toBe(true);
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(true);

    const foreign = {
      apiVersion: 'v1',
      kind: 'Other',
      name: 'x',
      uid: 'other',
      controller: true,
    };
    claim.metadata!.ownerReferences = [foreign, newControllerRef(set, statefulSetKind)];
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(false);
    updateClaimOwnerRefForSetAndPod(claim, set, pod);
    expect(claim.metadata!.ownerReferences).toEqual([foreign]);
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(true);
  });

  it('turns a non-controller reference into a controller one', () => {
    const { set, pod, claim } = setup({ whenScaled: 'Retain', whenDeleted: 'Delete' }, 3, 1);
    claim.metadata!.ownerReferences = [
      { ...newControllerRef(set, statefulSetKind), controller: false },
    ];
    expect(hasOwnerRef(claim, set)).toBe(true);
    expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(false);
    updateClaimOwnerRefForSetAndPod(claim, set, pod);
    expect(claim.metadata!.ownerReferences).toEqual([newControllerRef(set, statefulSetKind)]);
    expect(hasOwnerRef(claim, pod)).toBe(false);
    expect(podKind.kind).toBe('Pod');
  });
});
