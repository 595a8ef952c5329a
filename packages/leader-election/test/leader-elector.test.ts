import { newConflict, newInternalError, type Logger } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  HealthzAdaptor,
  LeaderElectionLostError,
  LeaderElector,
  LeaseLock,
  defaultLeaseDuration,
  defaultRenewDeadline,
  defaultRetryPeriod,
  runOrDie,
} from '../src/index.js';
import type { LeaderElectionConfig, ResourceLock } from '../src/index.js';
import { LeaseStore } from './fake-lease-client.js';
import { candidate, seedLease, setup } from './helpers.js';

const leases = { group: 'coordination.k8s.io', resource: 'leases' };
const conflict = () => newConflict(leases, 'kcm', 'the object has been modified');

function validConfig(overrides: Partial<LeaderElectionConfig> = {}): LeaderElectionConfig {
  return {
    lock: new LeaseLock({
      namespace: 'ns',
      name: 'n',
      client: new LeaseStore().client(),
      lockConfig: { identity: 'a' },
    }),
    callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    ...overrides,
  };
}

describe('config validation (TestLeaderElectionConfigValidation)', () => {
  it('accepts a valid config, with kube-controller-manager defaults', () => {
    expect(() => new LeaderElector(validConfig())).not.toThrow();
    expect([defaultLeaseDuration, defaultRenewDeadline, defaultRetryPeriod]).toEqual([
      15_000, 10_000, 2_000,
    ]);
  });

  it.each([
    [{ leaseDuration: 10_000 }, 'leaseDuration must be greater than renewDeadline'],
    [{ renewDeadline: 2_400 }, 'renewDeadline must be greater than retryPeriod*JitterFactor'],
    [
      { leaseDuration: 0, renewDeadline: -5, retryPeriod: -10 },
      'leaseDuration must be greater than zero',
    ],
    [
      { leaseDuration: 5, renewDeadline: 0, retryPeriod: -10 },
      'renewDeadline must be greater than zero',
    ],
    [
      { leaseDuration: 5, renewDeadline: 2, retryPeriod: 0 },
      'retryPeriod must be greater than zero',
    ],
  ])('rejects %o with %j', (durations, message) => {
    expect(() => new LeaderElector(validConfig(durations))).toThrow(new Error(message));
  });

  it('requires both leading callbacks, a lock and an identity, in that order', () => {
    const noStart = { onStoppedLeading: () => {} } as unknown as LeaderElectionConfig['callbacks'];
    const noStop = { onStartedLeading: () => {} } as unknown as LeaderElectionConfig['callbacks'];
    expect(
      () => new LeaderElector(validConfig({ callbacks: noStart, lock: undefined as never })),
    ).toThrow('OnStartedLeading callback must not be nil');
    expect(() => new LeaderElector(validConfig({ callbacks: noStop }))).toThrow(
      'OnStoppedLeading callback must not be nil',
    );
    expect(
      () => new LeaderElector(validConfig({ lock: undefined as unknown as ResourceLock })),
    ).toThrow('Lock must not be nil.');
    const anonymous = new LeaseLock({
      namespace: 'ns',
      name: 'n',
      client: new LeaseStore().client(),
      lockConfig: { identity: '' },
    });
    expect(() => new LeaderElector(validConfig({ lock: anonymous }))).toThrow(
      'Lock identity is empty',
    );
  });

  it('runOrDie throws on an invalid config', async () => {
    await expect(
      runOrDie(validConfig({ retryPeriod: 0 }), new AbortController().signal),
    ).rejects.toThrow('retryPeriod must be greater than zero');
  });
});

describe('acquire (TestTryAcquireOrRenewLeases)', () => {
  it('creates the Lease when there is none, and leads', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(a.log).toEqual(['new leader a', 'started']);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.getLeader()).toBe('a');
    expect(a.events).toEqual(['Normal LeaderElection a became leader']);
    const spec = store.objects.get('kube-system/kcm')?.spec;
    expect(spec).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    expect(spec?.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    stop.abort();
    await done;
  });

  it('creates a spec on a Lease that has none', async () => {
    const { store, clock } = setup();
    seedLease(store, {});
    delete store.objects.get('kube-system/kcm')!.spec;
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(store.objects.get('kube-system/kcm')?.spec?.leaseTransitions).toBe(1);
    stop.abort();
    await done;
  });

  it('refuses a Lease another holder keeps renewing', async () => {
    const { store, clock } = setup();
    const b = candidate(store, clock, 'b');
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const runB = b.elector.run(stop.signal);
    await clock.advance(0);
    const runA = a.elector.run(stop.signal);
    await clock.advance(60_000);
    expect(a.log).toEqual(['new leader b']);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.getLeader()).toBe('b');
    expect(b.elector.isLeader()).toBe(true);
    stop.abort();
    await Promise.all([runA, runB]);
  });

  it('takes over a Lease whose record stopped changing, after its lease duration', async () => {
    const { store, clock } = setup();
    // A record written long ago by a remote clock: only local observation counts.
    seedLease(store, {
      holderIdentity: 'b',
      leaseDurationSeconds: 3,
      acquireTime: '2020-01-01T00:00:00.000000Z',
      renewTime: '2020-01-01T00:00:00.000000Z',
      leaseTransitions: 4,
    });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.log).toEqual(['new leader b']);
    await clock.advance(2_000); // retry at 2 s: still valid (observed at 0 + 3 s)
    expect(a.elector.isLeader()).toBe(false);
    await clock.advance(2_000); // retry at 4 s: expired
    expect(a.elector.isLeader()).toBe(true);
    expect(a.log).toEqual(['new leader b', 'new leader a', 'started']);
    expect(store.objects.get('kube-system/kcm')?.spec?.leaseTransitions).toBe(5);
    stop.abort();
    await done;
  });

  it('judges expiry from the time it saw the record change, not from the record', async () => {
    const { store, clock } = setup();
    seedLease(store, {
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      renewTime: '2030-01-01T00:00:00.000000Z', // far in the future, by a skewed clock
      leaseTransitions: 0,
    });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(14_000);
    expect(a.elector.isLeader()).toBe(false);
    await clock.advance(2_000);
    expect(a.elector.isLeader()).toBe(true);
    stop.abort();
    await done;
  });

  it('takes a Lease with an empty holder at once', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: '', leaseDurationSeconds: 15, leaseTransitions: 1 });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.log).toEqual(['new leader a', 'started']);
    expect(store.objects.get('kube-system/kcm')?.spec?.leaseTransitions).toBe(2);
    stop.abort();
    await done;
  });

  it('renews a Lease it already holds, keeping acquire time and transitions', async () => {
    const { store, clock } = setup();
    seedLease(store, {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2025-12-31T00:00:00.000000Z',
      leaseTransitions: 3,
    });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(true);
    const spec = store.objects.get('kube-system/kcm')?.spec;
    expect(spec).toMatchObject({ acquireTime: '2025-12-31T00:00:00.000000Z', leaseTransitions: 3 });
    stop.abort();
    await done;
  });

  it('retries with jitter between 1 and 2.2 retry periods', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: 'b', leaseDurationSeconds: 100 });
    const a = candidate(store, clock, 'a', { random: () => 0.5 });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(store.ops).toEqual(['get']);
    await clock.advance(3_199);
    expect(store.ops).toEqual(['get']);
    await clock.advance(1);
    expect(store.ops).toEqual(['get', 'get']);
    stop.abort();
    await done;
  });

  it('calls onStoppedLeading even if it never led', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: 'b', leaseDurationSeconds: 100 });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(5_000);
    stop.abort();
    await done;
    expect(a.log).toEqual(['new leader b', 'stopped']);
    expect(clock.hasWaiters()).toBe(false);
  });
});

describe('renew', () => {
  it('renews every retry period through the fast path (TestFastPathLeaderElection)', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(store.ops).toEqual(['get', 'create', 'update']);
    await clock.advance(2_000);
    expect(store.ops).toEqual(['get', 'create', 'update', 'update']);
    expect(store.objects.get('kube-system/kcm')?.spec?.renewTime).toBe(
      '2026-01-01T00:00:02.000000Z',
    );

    store.failNext('update', conflict());
    await clock.advance(2_000);
    expect(store.ops.slice(4)).toEqual(['update', 'get', 'update']);
    await clock.advance(2_000);
    expect(store.ops.slice(7)).toEqual(['update']);
    expect(a.elector.isLeader()).toBe(true);
    stop.abort();
    await done;
  });

  it('gives up after failing to renew for the renew deadline', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    store.inject = (verb) => (verb === 'get' ? undefined : newInternalError(new Error('boom')));
    // The renewal at 2 s fails; retries at 4, 6, 8, 10 s fail; the deadline is 12 s.
    await clock.advance(9_999);
    expect(a.log).toEqual(['new leader a', 'started']);
    await clock.advance(1);
    expect(a.log).toEqual(['new leader a', 'started']);
    await clock.advance(2_000);
    expect(a.log).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    expect(a.leading?.aborted).toBe(true);
    expect(a.events).toEqual([
      'Normal LeaderElection a became leader',
      'Normal LeaderElection a stopped leading',
    ]);
    await done;
    expect(clock.hasWaiters()).toBe(false);
  });

  it('runOrDie rejects with LeaderElectionLostError when leadership is lost', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const done = runOrDie(
      {
        lock: a.lock,
        clock,
        name: 'kube-controller-manager',
        callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
      },
      new AbortController().signal,
    );
    const outcome = done.then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await clock.advance(0);
    store.inject = () => newInternalError(new Error('boom'));
    await clock.advance(12_000);
    const err = await outcome;
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect((err as Error).message).toBe(
      'leaderelection lost for kube-controller-manager: the lease was not renewed within the renew deadline',
    );
  });

  it('runOrDie resolves when its signal asks it to stop', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = runOrDie(
      {
        lock: a.lock,
        clock,
        callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
      },
      stop.signal,
    );
    await clock.advance(0);
    stop.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('lets another candidate take over only after the leader gave up', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const b = candidate(store, clock, 'b');
    const stop = new AbortController();
    const runA = a.elector.run(stop.signal);
    await clock.advance(0);
    const runB = b.elector.run(stop.signal);
    await clock.advance(0);
    // Cut a off from the API server.
    const aClient = a.lock;
    const original = aClient.update.bind(aClient);
    aClient.update = () => Promise.reject(newInternalError(new Error('partitioned')));
    let aStopped = -1;
    let bStarted = -1;
    const t0 = clock.now();
    for (let i = 0; i < 40 && bStarted < 0; i++) {
      await clock.advance(500);
      if (aStopped < 0 && a.leading?.aborted) aStopped = clock.now() - t0;
      if (bStarted < 0 && b.leading) bStarted = clock.now() - t0;
    }
    aClient.update = original;
    expect(aStopped).toBeGreaterThan(0);
    expect(bStarted).toBeGreaterThan(aStopped);
    expect(bStarted).toBeGreaterThanOrEqual(15_000);
    stop.abort();
    await Promise.all([runA, runB]);
  });
});

describe('release on cancel (TestReleaseLeaseLeases)', () => {
  it('writes an empty holder with a one-second lease when stopped', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a', { releaseOnCancel: true });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    const opsBefore = store.ops.length;
    stop.abort();
    await done;
    expect(store.ops.slice(opsBefore)).toEqual(['get', 'update']); // TestReleaseMethodCallsGet
    expect(store.objects.get('kube-system/kcm')?.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    expect(a.elector.getLeader()).toBe('');
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual([
      'Normal LeaderElection a became leader',
      'Normal LeaderElection a stopped leading',
    ]);
    expect(a.log).toEqual(['new leader a', 'started', 'signal aborted', 'stopped']);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('lets the next candidate take over at once', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a', { releaseOnCancel: true });
    const b = candidate(store, clock, 'b');
    const stopA = new AbortController();
    const stopB = new AbortController();
    const runA = a.elector.run(stopA.signal);
    await clock.advance(0);
    const runB = b.elector.run(stopB.signal);
    await clock.advance(0);
    stopA.abort();
    await runA;
    await clock.advance(3_200); // b's next attempt
    expect(b.elector.isLeader()).toBe(true);
    expect(store.objects.get('kube-system/kcm')?.spec?.leaseTransitions).toBe(1);
    stopB.abort();
    await runB;
  });

  it('retries the release on a conflict (TestReleaseRetriesOnConflict)', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a', { releaseOnCancel: true });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    const opsBefore = store.ops.length;
    store.failNext('update', conflict());
    stop.abort();
    await clock.advance(2_000);
    await done;
    expect(store.ops.slice(opsBefore)).toEqual(['get', 'update', 'get', 'update']);
    expect(store.objects.get('kube-system/kcm')?.spec?.holderIdentity).toBe('');
  });

  it('still releases when cancelled during a renewal (TestReleaseOnCancellation_Leases)', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a', { releaseOnCancel: true });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    store.inject = (verb) => {
      if (verb === 'update' && !stop.signal.aborted) {
        stop.abort();
        return conflict();
      }
      return undefined;
    };
    await clock.advance(2_000);
    await done;
    expect(store.objects.get('kube-system/kcm')?.spec?.holderIdentity).toBe('');
    expect(a.events).toEqual([
      'Normal LeaderElection a became leader',
      'Normal LeaderElection a stopped leading',
    ]);
  });

  it('does not clear a Lease another candidate holds', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a', { releaseOnCancel: true });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    const spec = store.objects.get('kube-system/kcm')!.spec!;
    spec.holderIdentity = 'b';
    stop.abort();
    await done;
    expect(store.objects.get('kube-system/kcm')?.spec?.holderIdentity).toBe('b');
  });

  it('leaves the Lease alone without releaseOnCancel', async () => {
    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    stop.abort();
    await done;
    expect(store.objects.get('kube-system/kcm')?.spec?.holderIdentity).toBe('a');
    expect(a.elector.isLeader()).toBe(true);
  });
});

describe('HealthzAdaptor (TestLeaderElectionHealthChecker)', () => {
  it('is healthy with no elector attached', () => {
    const hz = new HealthzAdaptor(20_000);
    expect(hz.name()).toBe('leaderElection');
    expect(hz.check()).toBeUndefined();
  });

  it('fails only while leading without renewing beyond lease duration + timeout', async () => {
    const { store, clock } = setup();
    const hz = new HealthzAdaptor(5_000);
    const a = candidate(store, clock, 'a', { watchDog: hz });
    const stop = new AbortController();
    const done = runOrDie(
      {
        lock: a.lock,
        clock,
        name: 'kcm',
        watchDog: hz,
        callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
      },
      stop.signal,
    );
    await clock.advance(0);
    expect(hz.check()).toBeUndefined(); // not expired
    stop.abort(); // leader stops renewing but still believes it leads
    await done;
    clock.step(19_000);
    expect(hz.check()).toBeUndefined(); // expired, within the tolerance
    clock.step(2_000);
    expect(hz.check()).toEqual(new Error('failed election to renew leadership on lease kcm'));
  });

  it('is healthy for a follower however old its observation', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: 'b', leaseDurationSeconds: 15 });
    const a = candidate(store, clock, 'a');
    const hz = new HealthzAdaptor(0);
    hz.setLeaderElection(a.elector);
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    stop.abort();
    await done;
    clock.step(1_000_000);
    expect(hz.check()).toBeUndefined();
  });
});

describe('onNewLeader', () => {
  it('reports each change of holder once', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: 'b', leaseDurationSeconds: 15 });
    const a = candidate(store, clock, 'a');
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    await clock.advance(4_000);
    const stored = store.objects.get('kube-system/kcm')!;
    seedLease(store, { ...stored.spec, holderIdentity: 'c', leaseTransitions: 1 });
    await clock.advance(4_000);
    expect(a.log).toEqual(['new leader b', 'new leader c']);
    stop.abort();
    await done;
  });

  it('is never called with an empty identity: a released Lease lost in a race (issue 14)', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
    const b = candidate(store, clock, 'b');
    // Another candidate wins the race for the released Lease: b's update conflicts.
    store.failNext('update', conflict());
    const stop = new AbortController();
    const done = b.elector.run(stop.signal);
    await clock.advance(0);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.getLeader()).toBe('');
    expect(b.log).toEqual([]);
    // The winner's record shows up on the next try.
    const stored = store.objects.get('kube-system/kcm')!;
    seedLease(store, { ...stored.spec, holderIdentity: 'c', leaseDurationSeconds: 15 });
    await clock.advance(4_000);
    expect(b.log).toEqual(['new leader c']);
    stop.abort();
    await done;
  });

  it('is not called with an empty identity when a known leader releases and another wins', async () => {
    const { store, clock } = setup();
    seedLease(store, { holderIdentity: 'a', leaseDurationSeconds: 15 });
    const b = candidate(store, clock, 'b');
    const stop = new AbortController();
    const done = b.elector.run(stop.signal);
    await clock.advance(0);
    expect(b.log).toEqual(['new leader a']);
    // a releases; b reads the empty holder and keeps losing the take-over.
    seedLease(store, { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
    store.inject = (verb) => (verb === 'update' ? conflict() : undefined);
    await clock.advance(4_000);
    expect(b.elector.getLeader()).toBe('');
    expect(b.log).toEqual(['new leader a']);
    // c won.
    store.inject = undefined;
    seedLease(store, { holderIdentity: 'c', leaseDurationSeconds: 15, leaseTransitions: 2 });
    await clock.advance(2_000);
    expect(b.log).toEqual(['new leader a', 'new leader c']);
    stop.abort();
    await done;
  });
});

describe('logging (client-go leaderelection.go messages)', () => {
  /** A logger that keeps each line; V(4) lines are marked. */
  function recording() {
    const lines: string[] = [];
    const make = (level: number): Logger => ({
      info: (msg) => void lines.push(level > 0 ? `V${level} ${msg}` : msg),
      error: (err, msg) =>
        void lines.push(`E ${msg}: ${err instanceof Error ? err.message : String(err)}`),
      v: (n) => make(n),
      enabled: () => true,
      withValues: () => make(level),
      withName: () => make(level),
    });
    return { logger: make(0), lines };
  }

  it('says what it attempts, and logs every failed try while the API server is down', async () => {
    const { store, clock } = setup();
    const { logger, lines } = recording();
    store.inject = () => newInternalError(new Error('connection refused'));
    const a = candidate(store, clock, 'a', { logger });
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    await clock.advance(2_000);
    await clock.advance(2_000);
    const retrieving = lines.filter((l) =>
      l.startsWith('E error retrieving resource lock kube-system/kcm'),
    );
    expect(lines[0]).toBe('attempting to acquire leader lease kube-system/kcm...');
    expect(retrieving).toHaveLength(3);
    expect(retrieving[0]).toContain('connection refused');
    store.inject = undefined;
    await clock.advance(2_000);
    expect(lines.at(-1)).toBe('successfully acquired lease kube-system/kcm');
    store.failNext('update', newInternalError(new Error('etcd down')));
    await clock.advance(2_000);
    expect(lines).toContain(
      'E Failed to update lock optimistically, falling back to slow path: Internal error occurred: etcd down',
    );
    stop.abort();
    await done;
  });

  it('says the lease is held, at V(4), and that a renewal timed out', async () => {
    const { store, clock } = setup();
    const { logger, lines } = recording();
    const a = candidate(store, clock, 'a', { logger });
    const b = candidate(store, clock, 'b', { logger });
    const stop = new AbortController();
    const doneA = a.elector.run(stop.signal);
    await clock.advance(0);
    const doneB = b.elector.run(stop.signal);
    await clock.advance(0);
    expect(lines).toContain('V4 lock is held by a and has not yet expired');
    store.inject = (verb) => (verb === 'get' ? undefined : newInternalError(new Error('boom')));
    await clock.advance(12_000);
    expect(lines).toContain('failed to renew lease kube-system/kcm: context deadline exceeded');
    stop.abort();
    await Promise.all([doneA, doneB]);
  });
});
