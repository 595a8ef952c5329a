import { describe, expect, it } from 'vitest';
import { leaderElectionMetrics, noopLeaderMetricsProvider, setProvider } from '../src/index.js';
import type { LeaderMetric } from '../src/index.js';
import { candidate, setup } from './helpers.js';

describe('metrics', () => {
  it('uses client-go names', () => {
    expect(leaderElectionMetrics.masterStatus).toMatchObject({
      name: 'leader_election_master_status',
      type: 'gauge',
      labels: ['name'],
    });
    expect(leaderElectionMetrics.slowpathTotal.name).toBe('leader_election_slowpath_total');
    expect(() => noopLeaderMetricsProvider.newLeaderMetric().on('x')).not.toThrow();
  });

  it('reports off at construction, on after acquiring, slow paths, and off on losing', async () => {
    const calls: string[] = [];
    const metric: LeaderMetric = {
      on: (name) => void calls.push(`on ${name}`),
      off: (name) => void calls.push(`off ${name}`),
      slowpathExercised: (name) => void calls.push(`slowpath ${name}`),
    };
    setProvider({ newLeaderMetric: () => metric });
    setProvider(noopLeaderMetricsProvider); // ignored: only the first call counts

    const { store, clock } = setup();
    const a = candidate(store, clock, 'a');
    expect(calls).toEqual(['off kcm']);
    const stop = new AbortController();
    const done = a.elector.run(stop.signal);
    await clock.advance(0);
    expect(calls).toEqual(['off kcm', 'on kcm']);
    // A renewal whose fast path fails takes the slow path.
    store.failNext('update', new Error('transient'));
    await clock.advance(2_000);
    expect(calls).toEqual(['off kcm', 'on kcm', 'slowpath kcm']);
    store.inject = () => new Error('down');
    await clock.advance(14_000);
    expect(calls).toEqual(['off kcm', 'on kcm', 'slowpath kcm', 'off kcm']);
    await done;
  });
});
