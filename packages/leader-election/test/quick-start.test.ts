import { FakeClock } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { LeaseLock, LeaderElector } from '../src/index.js';
import { LeaseStore } from './fake-lease-client.js';

describe('quick start', () => {
  it('leads, then releases the lease on shutdown', async () => {
    const clock = new FakeClock();
    const leases = new LeaseStore().client(); // any ResourceClient<Lease>
    const work: string[] = [];
    const shutdown = new AbortController();
    //#region elect-a-leader
    const lock = new LeaseLock({
      namespace: 'kube-system',
      name: 'my-controller',
      client: leases,
      lockConfig: { identity: 'replica-1' },
    });
    const elector = new LeaderElector({
      lock,
      releaseOnCancel: true, // hand over at once on shutdown
      clock,
      callbacks: {
        onStartedLeading: (signal) => {
          // ... start the controllers; stop them when `signal` aborts ...
          work.push('leading');
          signal.addEventListener('abort', () => work.push('stop work'));
        },
        onStoppedLeading: () => work.push('stopped'),
        onNewLeader: (identity) => work.push(`leader is ${identity}`),
      },
    });
    const running = elector.run(shutdown.signal);
    //#endregion elect-a-leader
    await clock.advance(0);
    expect(elector.isLeader()).toBe(true);
    shutdown.abort();
    await running;
    expect(work).toEqual(['leader is replica-1', 'leading', 'stop work', 'stopped']);
    expect(elector.getLeader()).toBe('');
  });
});
