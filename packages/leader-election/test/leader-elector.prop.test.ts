import { FakeClock, newConflict, newInternalError } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeaseLock, LeaderElector } from '../src/index.js';
import { LeaseStore } from './fake-lease-client.js';

const leases = { group: 'coordination.k8s.io', resource: 'leases' };

type Command =
  { kind: 'advance'; ms: number } | { kind: 'kill'; who: number } | { kind: 'outage'; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0, max: 6_000 }).map((ms) => ({ kind: 'advance' as const, ms })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 2 }).map((who) => ({ kind: 'kill' as const, who })),
  },
  {
    // The API server unreachable for a while: every request fails at once.
    weight: 1,
    arbitrary: fc
      .integer({ min: 1_000, max: 30_000 })
      .map((ms) => ({ kind: 'outage' as const, ms })),
  },
);

const leaseDuration = 15_000;

/** A small deterministic PRNG for the electors' jitter. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('leader election safety', () => {
  // Every run checks two properties. Safety: at no instant do two candidates
  // lead. Stepping down in time: a leader stops leading before its last write
  // to the Lease could have expired for the others, whatever the outage. Both
  // assume what client-go assumes: the clocks run at the same rate, and a
  // request takes less than leaseDuration - renewDeadline - retryPeriod.
  it('never has two leaders, and a cut-off leader steps down before its lease expires', async () => {
    let totalLeaderships = 0;
    let totalStepDowns = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 3 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 40 }),
        fc.array(command, { minLength: 5, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 20 }),
        fc.integer(),
        async (n, faults, commands, releaseOnCancel, delays, seed) => {
          const clock = new FakeClock();
          const store = new LeaseStore();
          let op = 0;
          let unreachableUntil = 0;
          // 0: a server error; 1: a spurious conflict; otherwise the request goes through.
          store.inject = () => {
            if (clock.now() < unreachableUntil)
              return new Error('connect ECONNREFUSED 127.0.0.1:6443');
            const f = faults[op++ % faults.length];
            if (f === 0) return newInternalError(new Error('injected'));
            if (f === 1) return newConflict(leases, 'kcm', 'injected');
            return undefined;
          };
          // Each leg of each request takes its own time, on the way there and back.
          let leg = 0;
          store.latency = async (_verb, _leg, signal) => {
            await clock.sleep(delays[leg++ % delays.length]!, signal);
            if (signal?.aborted) throw signal.reason;
          };
          // When each candidate last wrote itself into the Lease, by the server's clock.
          const lastWrite = new Map<string, number>();
          store.onWrite = (lease) => {
            const holder = lease.spec?.holderIdentity;
            if (holder) lastWrite.set(holder, clock.now());
          };
          let lateStepDowns = 0;
          let stepDowns = 0;
          const random = mulberry32(seed);
          const leading = new Set<number>();
          let violations = 0;
          let leaderships = 0;
          const everything = new AbortController();
          const current: (AbortController | undefined)[] = [];

          const loop = async (i: number) => {
            while (!everything.signal.aborted) {
              const generation = new AbortController();
              current[i] = generation;
              const onAbort = () => generation.abort();
              everything.signal.addEventListener('abort', onAbort, { once: true });
              const elector = new LeaderElector({
                lock: new LeaseLock({
                  namespace: 'kube-system',
                  name: 'kcm',
                  client: store.client(),
                  lockConfig: { identity: `candidate-${i}` },
                }),
                clock,
                random,
                releaseOnCancel: releaseOnCancel[i] ?? false,
                callbacks: {
                  onStartedLeading: (signal) => {
                    if (signal.aborted) return;
                    if (leading.size > 0) violations += 1;
                    leading.add(i);
                    leaderships += 1;
                    const stepDown = () => {
                      leading.delete(i);
                      stepDowns += 1;
                      const wrote = lastWrite.get(`candidate-${i}`) ?? -Infinity;
                      if (clock.now() >= wrote + leaseDuration) lateStepDowns += 1;
                    };
                    signal.addEventListener('abort', stepDown, { once: true });
                  },
                  onStoppedLeading: () => {},
                },
              });
              await elector.run(generation.signal);
              everything.signal.removeEventListener('abort', onAbort);
              await clock.sleep(1_000, everything.signal);
            }
          };

          const loops = Array.from({ length: n }, (_, i) => loop(i));
          for (const c of commands) {
            if (c.kind === 'advance') await clock.advance(c.ms);
            else if (c.kind === 'kill') current[c.who]?.abort();
            else unreachableUntil = clock.now() + c.ms;
            if (leading.size > 1) violations += 1;
          }
          everything.abort();
          // A release may still be waiting out a conflict; give it time.
          let settled = false;
          const all = Promise.all(loops).then(() => (settled = true));
          for (let k = 0; k < 30 && !settled; k++) await clock.advance(1_000);
          await all;
          expect(violations).toBe(0);
          expect(lateStepDowns).toBe(0);
          expect(leading.size).toBe(0);
          expect(clock.hasWaiters()).toBe(false);
          totalLeaderships += leaderships;
          totalStepDowns += stepDowns;
        },
      ),
      { numRuns: 500 },
    );
    // The runs did exercise what they claim to: many leaderships, many ends.
    expect(totalLeaderships).toBeGreaterThan(500);
    expect(totalStepDowns).toBeGreaterThan(500);
  });
});
