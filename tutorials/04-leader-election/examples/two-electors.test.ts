// Two electors in one process against the sandbox over HTTPS, on the real
// clock with short timings: the follower takes over when the leader releases.
import { createClient } from '@kcm-ts/client';
import { LeaseLock, LeaderElector } from '@kcm-ts/leader-election';
import { startSandbox } from '@kcm-ts/sandbox';
import { expect, it } from 'vitest';

it(
  'two electors over HTTPS: one leads, the other takes over on release',
  { timeout: 60_000 },
  async () => {
    const sandbox = await startSandbox();
    const log: string[] = [];
    try {
      const elector = (identity: string) => {
        const stop = new AbortController();
        let leading!: () => void;
        const led = new Promise<void>((r) => (leading = r));
        const e = new LeaderElector({
          lock: new LeaseLock({
            namespace: 'kube-system',
            name: 'pair',
            client: createClient(sandbox.kubeconfigObject).leases,
            lockConfig: { identity },
          }),
          leaseDuration: 4_000,
          renewDeadline: 3_000,
          retryPeriod: 500,
          releaseOnCancel: true,
          callbacks: {
            onStartedLeading: (signal) => {
              log.push(`${identity} leads`);
              signal.addEventListener('abort', () => log.push(`${identity} stops`));
              leading();
            },
            onStoppedLeading: () => log.push(`${identity} stopped`),
          },
        });
        return { e, led, stop: () => stop.abort(), done: e.run(stop.signal) };
      };
      const a = elector('a');
      await a.led;
      const b = elector('b');
      // b sees a's Lease and waits; a keeps renewing it.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(b.e.getLeader()).toBe('a');
      expect(b.e.isLeader()).toBe(false);
      a.stop();
      await a.done;
      await b.led;
      expect(log).toEqual(['a leads', 'a stops', 'a stopped', 'b leads']);
      const lease = await sandbox
        .client('coordination.k8s.io', 'leases')
        .inNamespace('kube-system')
        .get('pair');
      expect(
        (lease as { spec?: { holderIdentity?: string; leaseTransitions?: number } }).spec,
      ).toMatchObject({
        holderIdentity: 'b',
        leaseTransitions: 1,
      });
      b.stop();
      await b.done;
    } finally {
      await sandbox.stop();
    }
  },
);
