import {
  FakeClock,
  FakeRecorder,
  isAlreadyExists,
  isConflict,
  isNotFound,
  newBroadcaster,
} from '@kcm-ts/apimachinery';
import type { Event } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  LeaseLock,
  leaderElectionRecordToLeaseSpec,
  leaseSpecToLeaderElectionRecord,
  newResourceLock,
} from '../src/index.js';
import type { LeaderElectionRecord } from '../src/index.js';
import { LeaseStore } from './fake-lease-client.js';

const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function record(overrides: Partial<LeaderElectionRecord> = {}): LeaderElectionRecord {
  return {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    acquireTime: t0,
    renewTime: t0 + 1.5,
    leaderTransitions: 2,
    ...overrides,
  };
}

function lock(store: LeaseStore, labels?: Record<string, string>) {
  return new LeaseLock({
    namespace: 'kube-system',
    name: 'kcm',
    client: store.client(),
    lockConfig: { identity: 'a' },
    labels,
  });
}

describe('Lease spec conversion', () => {
  it('round-trips all seven fields (TestLeaseConversion)', () => {
    const r = record({ strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    const spec = leaderElectionRecordToLeaseSpec(r);
    expect(spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T12:00:00.000000Z',
      renewTime: '2026-01-01T12:00:00.001500Z',
      leaseTransitions: 2,
      strategy: 'OldestEmulationVersion',
      preferredHolder: 'b',
    });
    const back = leaseSpecToLeaderElectionRecord(spec);
    expect(back.renewTime).toBeCloseTo(r.renewTime!, 6);
    expect({ ...back, renewTime: 0 }).toEqual({ ...r, renewTime: 0 });
  });

  it('always sets holderIdentity and omits empty strategy and preferred holder', () => {
    const spec = leaderElectionRecordToLeaseSpec(record({ holderIdentity: '' }));
    expect(spec.holderIdentity).toBe('');
    expect('strategy' in spec).toBe(false);
    expect('preferredHolder' in spec).toBe(false);
  });

  it('turns missing fields into zero values', () => {
    expect(leaseSpecToLeaderElectionRecord(undefined)).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      leaderTransitions: 0,
    });
  });
});

describe('LeaseLock', () => {
  it('passes NotFound through from get (TestGetError)', async () => {
    const err = await lock(new LeaseStore())
      .get()
      .catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
  });

  it('creates, then reads the record and its JSON (TestGet)', async () => {
    const store = new LeaseStore();
    const l = lock(store, { app: 'kcm' });
    await l.create(record());
    const stored = store.objects.get('kube-system/kcm')!;
    expect(stored.metadata?.labels).toEqual({ app: 'kcm' });
    expect(stored.spec?.renewTime).toBe('2026-01-01T12:00:00.001500Z');
    const { record: r, rawRecord } = await l.get();
    expect(r.holderIdentity).toBe('a');
    expect(JSON.parse(rawRecord)).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T12:00:00Z',
      renewTime: '2026-01-01T12:00:00Z',
      leaderTransitions: 2,
    });
  });

  it('surfaces AlreadyExists on a duplicate create (TestCreateError)', async () => {
    const store = new LeaseStore();
    await lock(store).create(record());
    const err = await lock(store)
      .create(record())
      .catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
  });

  it('refuses to update before get or create (TestUpdateError)', async () => {
    await expect(lock(new LeaseStore()).update(record())).rejects.toThrow(
      'lease not initialized, call get or create first',
    );
  });

  it('surfaces a 409 Conflict when another writer changed the Lease', async () => {
    const store = new LeaseStore();
    const mine = lock(store);
    const theirs = lock(store);
    await mine.create(record());
    await theirs.get();
    await theirs.update(record({ holderIdentity: 'b' }));
    const err = await mine.update(record()).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    await mine.get();
    await mine.update(record());
    expect(store.objects.get('kube-system/kcm')?.spec?.holderIdentity).toBe('a');
  });

  it('merges its labels into the Lease, keeping the others (TestLabelUpdate)', async () => {
    const store = new LeaseStore();
    await lock(store, { a: '1', b: '2' }).create(record());
    store.objects.get('kube-system/kcm')!.metadata!.labels = { b: 'old', c: '3' };
    const l = lock(store, { b: 'new' });
    await l.get();
    await l.update(record());
    expect(store.objects.get('kube-system/kcm')?.metadata?.labels).toEqual({ b: 'new', c: '3' });
  });

  it('copes with no labels on either side (TestUpdateWithNilLabels*)', async () => {
    const store = new LeaseStore();
    const l = lock(store);
    await l.create(record());
    expect(store.objects.get('kube-system/kcm')?.metadata?.labels).toBeUndefined();
    await l.update(record());
    const withLabels = lock(store, { x: 'y' });
    await withLabels.get();
    await withLabels.update(record());
    expect(store.objects.get('kube-system/kcm')?.metadata?.labels).toEqual({ x: 'y' });
  });

  it('records a LeaderElection event with the identity prefixed (TestRecordEventSuccess)', async () => {
    const recorder = new FakeRecorder({ includeObject: true });
    const store = new LeaseStore();
    const l = new LeaseLock({
      namespace: 'ns',
      name: 'n',
      client: store.client(),
      lockConfig: { identity: 'me', eventRecorder: recorder },
    });
    await l.create(record());
    l.recordEvent('became leader');
    expect(recorder.events).toEqual([
      'Normal LeaderElection me became leader involvedObject{kind=Lease,apiVersion=coordination.k8s.io/v1}',
    ]);
  });

  it('records on a reference to the Lease it holds, through the shared broadcaster', async () => {
    const clock = new FakeClock();
    const broadcaster = newBroadcaster({ clock });
    const events: Event[] = [];
    broadcaster.startEventWatcher((e) => void events.push(e));
    const store = new LeaseStore();
    const l = new LeaseLock({
      namespace: 'kube-system',
      name: 'kcm',
      client: store.client(),
      lockConfig: {
        identity: 'host-1_abc',
        eventRecorder: broadcaster.newRecorder({ component: 'kube-controller-manager' }),
      },
    });
    await l.create(record());
    l.recordEvent('became leader');
    await clock.advance(0);
    broadcaster.shutdown();
    const lease = store.objects.get('kube-system/kcm')!;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      metadata: { namespace: 'kube-system' },
      involvedObject: {
        kind: 'Lease',
        namespace: 'kube-system',
        name: 'kcm',
        uid: lease.metadata!.uid,
        apiVersion: 'coordination.k8s.io/v1',
        resourceVersion: lease.metadata!.resourceVersion,
      },
      reason: 'LeaderElection',
      message: 'host-1_abc became leader',
      type: 'Normal',
      source: { component: 'kube-controller-manager' },
    });
  });

  it('records nothing, and does not fail, without a recorder (TestRecordEventNilRecorder)', () => {
    expect(() => lock(new LeaseStore()).recordEvent('x')).not.toThrow();
  });

  it('describes itself as namespace/name and reports its identity (TestDescribe)', () => {
    const l = lock(new LeaseStore());
    expect(l.describe()).toBe('kube-system/kcm');
    expect(l.identity()).toBe('a');
  });
});

describe('newResourceLock', () => {
  it('builds Lease locks and rejects removed or unknown types', () => {
    const client = new LeaseStore().client();
    expect(newResourceLock('leases', 'ns', 'n', client, { identity: 'a' })).toBeInstanceOf(
      LeaseLock,
    );
    expect(() => newResourceLock('endpoints', 'ns', 'n', client, { identity: 'a' })).toThrow(
      'endpoints lock is removed, migrate to leases',
    );
    expect(() => newResourceLock('configmapsleases', 'ns', 'n', client, { identity: 'a' })).toThrow(
      'configmapsleases lock is removed, migrate to leases',
    );
    expect(() => newResourceLock('pods', 'ns', 'n', client, { identity: 'a' })).toThrow(
      'Invalid lock-type pods',
    );
  });
});
