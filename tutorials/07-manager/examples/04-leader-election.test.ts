import { expect, it } from 'vitest';
import { LeaderElectionLostError } from '@kcm-ts/leader-election';
import { run } from './04-leader-election.js';

// kube-controller-manager's defaults, and the example's fixed jitter: every
// retry of a follower waits 2 s × (1 + 0.5 × 1.2) = 3.2 s.
const leaseDuration = 15_000;
const renewDeadline = 10_000;
const retryPeriod = 2_000;
const jitteredRetry = 3_200;

it('runs the controllers in one copy at a time, hands over on SIGTERM, and exits 1 when the Lease is lost', async () => {
  const lines: string[] = [];
  const { terms, lost, lease, cutAt, restartedAt } = await run((line) => lines.push(line));
  expect(terms.map((t) => t.identity)).toEqual(['manager-a', 'manager-b', 'manager-a']);
  const [a, b, a2] = terms as [(typeof terms)[0], (typeof terms)[0], (typeof terms)[0]];

  // Never two copies running controllers at once.
  expect(a.to).toBeLessThanOrEqual(b.from);
  expect(b.to).toBeLessThanOrEqual(a2.from);
  // Only the leader writes: manager-b wrote nothing while it followed, and
  // each leader did the work of its term (the rollout, then the scale-up).
  expect(b.before).toBe(0);
  expect(a.writes).toBeGreaterThan(0);
  expect(b.writes).toBeGreaterThan(0);

  // A SIGTERM releases the Lease: the follower takes it at its next try.
  expect(b.from - a.to).toBeGreaterThan(0);
  expect(b.from - a.to).toBeLessThanOrEqual(jitteredRetry);

  // Cut off, the leader renews for the renew deadline and then gives up:
  // run() rejects with LeaderElectionLostError, which kcm-ts turns into exit 1.
  expect(lost).toBeInstanceOf(LeaderElectionLostError);
  expect(b.to - cutAt).toBeGreaterThanOrEqual(renewDeadline);
  expect(b.to - cutAt).toBeLessThanOrEqual(retryPeriod + renewDeadline);
  expect(lines.some((l) => l.includes('manager-b  error: leaderelection lost'))).toBe(true);

  // A restarted copy is a follower like any other: it waits until the record
  // it saw has not changed for a whole lease duration.
  expect(a2.from - restartedAt).toBeGreaterThanOrEqual(leaseDuration);
  expect(a2.from - restartedAt).toBeLessThan(leaseDuration + jitteredRetry);
  expect(lease.spec?.holderIdentity).toBe('manager-a');
  expect(lease.spec?.leaseTransitions).toBe(2);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-leader-election.txt');
});
