// Ports of stateful_pod_control_test.go: TestStatefulPodControlCreatesPods,
// CreatePodExists, CreatePodPvcCreateFailure, CreatePodPVCDeleting,
// CreatePodFailed, NoOpUpdate, UpdatesIdentity, UpdateIdentityFailure,
// UpdatesPodStorage, UpdatePodStorageFailure, UpdatePodConflictSuccess,
// UpdatePodConflictFailure, DeletesStatefulPod, DeleteFailure,
// ClaimsMatchDeletionPolicy, UpdatePodClaimForRetentionPolicy,
// PodClaimIsStale; and the claims client adapter.
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { FakeClock, type ResourceClient } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { StatefulPodControl, claimsClientFor } from '../src/stateful-pod-control.js';
import { newStatefulSetPod, statefulSetPodNameLabel } from '../src/stateful-set-utils.js';
import { FakeCluster, FakeRecorder, newStatefulSet } from './helpers.js';

function setup() {
  const clock = new FakeClock();
  const cluster = new FakeCluster(clock);
  const recorder = new FakeRecorder();
  const control = new StatefulPodControl(cluster, { recorder, clock, random: () => 0 });
  const set = newStatefulSet('foo', 3);
  const pod = newStatefulSetPod(set, 0);
  return { clock, cluster, recorder, control, set, pod };
}

describe('StatefulPodControl', () => {
  it('creates the claims, then the pod', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    expect(cluster.ops).toEqual(['createClaim datadir-foo-0', 'createPod foo-0']);
    expect(recorder.events).toEqual([
      'Normal SuccessfulCreate create Claim datadir-foo-0 Pod foo-0 in StatefulSet foo success',
      'Normal SuccessfulCreate create Pod foo-0 in StatefulSet foo successful',
    ]);
    expect(cluster.claims.get('datadir-foo-0')?.metadata?.labels).toEqual({ foo: 'bar' });
  });

  it('returns AlreadyExists without an event', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    recorder.events.length = 0;
    cluster.syncCache();
    await expect(control.createStatefulPod(set, pod)).rejects.toMatchObject({
      reason: 'AlreadyExists',
    });
    expect(recorder.events).toEqual([]);
  });

  it('does not create the pod when a claim cannot be created', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    cluster.fail = (op) => op === 'createClaim';
    await expect(control.createStatefulPod(set, pod)).rejects.toThrow(
      /failed to create PVC datadir-foo-0/,
    );
    expect(cluster.pods.size).toBe(0);
    expect(recorder.events.map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual([
      'Warning FailedCreate',
      'Warning FailedCreate',
    ]);
  });

  it('records FailedCreate for a failed pod creation', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    cluster.fail = (op) => op === 'createPod';
    await expect(control.createStatefulPod(set, pod)).rejects.toThrow(/injected/);
    expect(recorder.events.at(-1)).toMatch(
      /^Warning FailedCreate create Pod foo-0 in StatefulSet foo failed error: /,
    );
  });

  it('writes nothing when the pod already conforms', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    cluster.syncCache();
    cluster.ops.length = 0;
    recorder.events.length = 0;
    await control.updateStatefulPod(set, cluster.pods.get('foo-0')!);
    expect(cluster.ops).toEqual([]);
    expect(recorder.events).toEqual([]);
  });

  it('repairs identity and storage and records SuccessfulUpdate', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    const stored = cluster.pods.get('foo-0')!;
    delete stored.metadata!.labels![statefulSetPodNameLabel];
    stored.spec!.volumes = [];
    cluster.claims.clear();
    cluster.syncCache();
    recorder.events.length = 0;
    await control.updateStatefulPod(set, structuredClone(stored));
    const fixed = cluster.pods.get('foo-0')!;
    expect(fixed.metadata?.labels?.[statefulSetPodNameLabel]).toBe('foo-0');
    expect(fixed.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName).toBe('datadir-foo-0');
    expect(cluster.claims.has('datadir-foo-0')).toBe(true);
    expect(recorder.events.at(-1)).toBe(
      'Normal SuccessfulUpdate update Pod foo-0 in StatefulSet foo successful',
    );
  });

  it('retries a conflicting update on the cached pod', async () => {
    const { clock, cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    delete cluster.pods.get('foo-0')!.metadata!.labels![statefulSetPodNameLabel];
    const stale = structuredClone(cluster.pods.get('foo-0')!);
    // The stored pod moved on; the cache has the new version.
    cluster.setPhase('foo-0', 'Running');
    cluster.syncCache();
    const done = control.updateStatefulPod(set, stale);
    await clock.advance(1000);
    await done;
    expect(cluster.ops.filter((o) => o.startsWith('updatePod'))).toEqual(['updatePod foo-0']);
    expect(recorder.events.at(-1)).toMatch(/^Normal SuccessfulUpdate/);
  });

  it('gives up after the retries of a conflicting update, with FailedUpdate', async () => {
    const { clock, cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    delete cluster.pods.get('foo-0')!.metadata!.labels![statefulSetPodNameLabel];
    cluster.syncCache();
    cluster.fail = (op) => op === 'updatePod';
    const broken = structuredClone(cluster.pods.get('foo-0')!);
    delete broken.metadata!.labels![statefulSetPodNameLabel];
    const done = control.updateStatefulPod(set, broken);
    const outcome = done.then(
      () => 'ok',
      (e: unknown) => String(e),
    );
    for (let i = 0; i < 10; i++) await clock.advance(1000);
    expect(await outcome).toMatch(/injected/);
    expect(cluster.ops.filter((o) => o.startsWith('updatePod'))).toEqual(
      Array<string>(4).fill('updatePod foo-0 failed'),
    );
    expect(recorder.events.at(-1)).toMatch(/^Warning FailedUpdate update Pod foo-0/);
  });

  it('deletes, with SuccessfulDelete or FailedDelete', async () => {
    const { cluster, recorder, control, set, pod } = setup();
    await control.createStatefulPod(set, pod);
    await control.deleteStatefulPod(set, pod);
    expect(recorder.events.at(-1)).toBe(
      'Normal SuccessfulDelete delete Pod foo-0 in StatefulSet foo successful',
    );
    cluster.fail = (op) => op === 'deletePod';
    await expect(control.deleteStatefulPod(set, pod)).rejects.toThrow();
    expect(recorder.events.at(-1)).toMatch(
      /^Warning FailedDelete delete Pod foo-0 in StatefulSet foo failed error: /,
    );
  });

  it('matches and updates claims for the retention policy, warning about a conflicting controller', async () => {
    const { cluster, recorder, control, pod } = setup();
    const set = newStatefulSet('foo', 3, {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
    });
    await cluster.createClaim({ metadata: { name: 'datadir-foo-0', namespace: 'default' } });
    cluster.syncCache();
    expect(await control.claimsMatchRetentionPolicy(set, pod)).toBe(false);
    await control.updatePodClaimForRetentionPolicy(set, pod);
    cluster.syncCache();
    expect(await control.claimsMatchRetentionPolicy(set, pod)).toBe(true);
    expect(cluster.claims.get('datadir-foo-0')?.metadata?.ownerReferences?.[0]?.uid).toBe(
      set.metadata?.uid,
    );
    const claim = cluster.claims.get('datadir-foo-0')!;
    claim.metadata!.ownerReferences = [
      { apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'x', controller: true },
    ];
    cluster.syncCache();
    await control.updatePodClaimForRetentionPolicy(set, pod);
    expect(recorder.events.at(-1)).toMatch(
      /^Warning ConflictingController PersistentVolumeClaim datadir-foo-0 has a conflicting OwnerReference/,
    );
  });

  it('finds a claim stale only with whenScaled: Delete and a reference to another pod of the name', async () => {
    const { cluster, control, pod } = setup();
    const claim: PersistentVolumeClaim = {
      metadata: {
        name: 'datadir-foo-0',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'foo-0', uid: 'old', controller: true },
        ],
      },
    };
    await cluster.createClaim(claim);
    cluster.syncCache();
    expect(await control.podClaimIsStale(newStatefulSet('foo', 1), pod)).toBe(false);
    const deleting = newStatefulSet('foo', 1, {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    });
    expect(await control.podClaimIsStale(deleting, pod)).toBe(true);
  });
});

describe('claimsClientFor', () => {
  it('scopes each call to the claim namespace', async () => {
    const calls: string[] = [];
    const scoped = (ns: string) =>
      ({
        get: (name: string) => (calls.push(`get ${ns}/${name}`), Promise.resolve({})),
        create: (c: PersistentVolumeClaim) => (
          calls.push(`create ${ns}/${c.metadata?.name}`),
          Promise.resolve(c)
        ),
        update: (c: PersistentVolumeClaim) => (
          calls.push(`update ${ns}/${c.metadata?.name}`),
          Promise.resolve(c)
        ),
        patch: (name: string) => (calls.push(`patch ${ns}/${name}`), Promise.resolve({})),
      }) as unknown as ResourceClient<PersistentVolumeClaim>;
    const client = claimsClientFor({
      inNamespace: scoped,
    } as unknown as ResourceClient<PersistentVolumeClaim>);
    const claim = { metadata: { name: 'c', namespace: 'ns' } };
    await client.get('ns', 'c');
    await client.create(claim);
    await client.update(claim);
    await client.patch('ns', 'c', { type: 'merge', body: {} });
    expect(calls).toEqual(['get ns/c', 'create ns/c', 'update ns/c', 'patch ns/c']);
  });
});
