// One client cannot take the server from the others: requests that send
// their head and stall their body hold the seats of their own priority level
// only (global-default, 49 seats, for the admin), the rest of that flow waits
// in its queues and then gets 429 with Retry-After, and the controller
// manager's Lease renewals and reads, on levels of their own, go through all
// along. Each stalled request is answered 504 at the request timeout and its
// seat given back.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';

let sandbox: Sandbox | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await sandbox?.stop();
  sandbox = undefined;
});

/** A POST whose head is sent and whose body never finishes; resolves with what comes back. */
function stalledPost(port: number, token: string): { answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => {});
  socket.write(
    `POST ${CMS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  return { answer: new Promise((resolve) => socket.once('close', () => resolve(text))) };
}

const managerToken = (s: Sandbox): string =>
  (
    s.componentKubeconfigObject('kube-controller-manager') as {
      users: { user: { token: string } }[];
    }
  ).users[0]!.user.token;

const dump = async (s: Sandbox): Promise<Record<string, Record<string, string>>> => {
  const res = await call(s, 'GET', '/debug/api_priority_and_fairness/dump_priority_levels');
  expect(res.status).toBe(200);
  const [head = '', ...rows] = res.text.trim().split('\n');
  const names = head.split(',').map((c) => c.trim());
  return Object.fromEntries(
    rows.map((r) => {
      const cells = r.split(',').map((c) => c.trim());
      return [cells[0]!, Object.fromEntries(names.map((n, i) => [n, cells[i] ?? '']))];
    }),
  );
};

describe('priority and fairness', () => {
  it("keeps the controller manager's Lease renewals going while the admin's stalled writes fill their level", async () => {
    // Queued requests give up at a quarter of the request timeout: 4 s here,
    // long enough for the checks below on a loaded machine.
    sandbox = await startSandbox({ insecureHttp: true, requestTimeout: 16_000 });
    const s = sandbox;
    // 49 take every seat of global-default; 300 more fill the six queues of the flow's hand.
    const stalled = Array.from({ length: 49 + 300 }, () => stalledPost(s.port, s.token));
    // Once all of them have reached the server, the admin's own dump is
    // global-default traffic too, and refused.
    let levels: Awaited<ReturnType<typeof dump>> | undefined;
    for (let i = 0; i < 50; i++) {
      levels = await dump(s).catch(() => undefined);
      if (levels === undefined) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(levels).toBeUndefined();

    // The admin's next write finds its queues full: 429 at once.
    const refused = await call(s, 'POST', CMS, {
      body: JSON.stringify({ metadata: { name: 'x' } }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused.text).toBe('Too many requests, please try again later.\n');

    // The controller manager, with its own token, elects and reads as usual.
    const token = managerToken(s);
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kube-controller-manager' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    };
    const created = await call(s, 'POST', LEASES, { body: JSON.stringify(lease), token });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const got = await call(s, 'GET', `${LEASES}/kube-controller-manager`, { token });
      expect(got.status).toBe(200);
      const renewed = await call(s, 'PUT', `${LEASES}/kube-controller-manager`, {
        body: JSON.stringify({
          ...got.json(),
          spec: { ...got.json().spec, renewTime: new Date().toISOString().replace('Z', '000Z') },
        }),
        token,
      });
      expect(renewed.status).toBe(200);
    }
    expect((await call(s, 'GET', '/api/v1/pods', { token })).status).toBe(200);

    // At the request timeout every stalled write is answered 504 (or, for those
    // still queued, 429 at a quarter of it) and nothing of theirs is stored.
    const answers = await Promise.all(stalled.map((x) => x.answer));
    const statuses = answers.map((a) => /^HTTP\/1\.1 (\d+)/.exec(a)?.[1]);
    expect(statuses.filter((c) => c === '504')).toHaveLength(49);
    expect(statuses.filter((c) => c === '429')).toHaveLength(300);
    expect(answers.find((a) => a.startsWith('HTTP/1.1 504'))).toContain(
      '"message":"Timeout: request did not complete within requested timeout - context deadline exceeded","reason":"Timeout"',
    );
    // The seats are back: the admin is served again.
    const after = await dump(s);
    expect(after['global-default']).toMatchObject({ ExecutingRequests: '1', WaitingRequests: '0' });
    // The dump and the write sent during the flood.
    expect(Number(after['global-default']!.RejectedRequests)).toBe(2);
    expect(Number(after['global-default']!.TimedoutRequests)).toBe(300);
    expect(Number(after['leader-election']!.DispatchedRequests)).toBeGreaterThanOrEqual(7);
    const accepted = await call(s, 'POST', CMS, {
      body: JSON.stringify({ metadata: { name: 'x' } }),
    });
    expect(accepted.status).toBe(201);
    expect((await call(s, 'GET', CMS)).json().items).toHaveLength(1);
  }, 60_000);

  it('lets the admin through when it has the seats, reporting each level', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    expect((await call(sandbox, 'GET', CMS)).status).toBe(200);
    const levels = await dump(sandbox);
    expect(Object.keys(levels).sort()).toEqual([
      'catch-all',
      'exempt',
      'global-default',
      'leader-election',
      'node-high',
      'system',
      'workload-high',
      'workload-low',
    ]);
    expect(Number(levels['global-default']!.DispatchedRequests)).toBeGreaterThanOrEqual(2);
    expect(levels.exempt!.ActiveQueues).toBe('<none>');
  });
});
