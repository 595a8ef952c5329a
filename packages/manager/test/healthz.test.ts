import { describe, expect, it } from 'vitest';
import { MutableHealthChecks, namedPingChecker } from '../src/server/healthz.js';

const q = (s = '') => new URLSearchParams(s);

describe('health endpoints', () => {
  it('answers ping alone before any check is added', async () => {
    const h = new MutableHealthChecks();
    expect(await h.serve('healthz', '', q())).toEqual({ status: 200, body: 'ok' });
    expect(await h.serve('healthz', '', q('verbose'))).toEqual({
      status: 200,
      body: '[+]ping ok\nhealthz check passed\n',
    });
  });

  it('lists every check with ?verbose, withholds the reason of a failure, and serves each check alone', async () => {
    let failing = false;
    const h = new MutableHealthChecks([
      { name: 'leaderElection', check: () => (failing ? new Error('stale lease') : undefined) },
    ]);
    h.addHealthChecker(namedPingChecker('replicaset-controller'));
    expect(await h.serve('readyz', '', q('verbose'))).toEqual({
      status: 200,
      body: '[+]leaderElection ok\n[+]replicaset-controller ok\nreadyz check passed\n',
    });
    failing = true;
    expect(await h.serve('healthz', '', q())).toEqual({
      status: 500,
      body: '[-]leaderElection failed: reason withheld\n[+]replicaset-controller ok\nhealthz check failed\n',
    });
    expect(await h.serve('healthz', 'leaderElection', q())).toEqual({
      status: 500,
      body: 'internal server error: stale lease\n',
    });
    expect(await h.serve('healthz', 'replicaset-controller', q())).toEqual({
      status: 200,
      body: 'ok',
    });
    expect((await h.serve('healthz', 'nope', q())).status).toBe(404);
    expect(await h.serve('livez', '', q('exclude=leaderElection'))).toEqual({
      status: 200,
      body: 'ok',
    });
  });

  it('treats a check that throws as failed', async () => {
    const h = new MutableHealthChecks([
      {
        name: 'broken',
        check: () => {
          throw new Error('no');
        },
      },
    ]);
    expect((await h.serve('healthz', '', q())).status).toBe(500);
  });
});
