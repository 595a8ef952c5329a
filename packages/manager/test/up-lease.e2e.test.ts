// `kcm-ts up` and its manager's Lease: the manager is its own user, so a
// flood of the admin's stalled writes leaves its renewals alone; and when it
// does lose the Lease (another holder takes it), only the manager stops: the
// API server keeps serving, the manager campaigns again, and once it leads
// its controllers work as before. Short lease settings keep this quick.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlRunner, type KubectlRunner } from '../../sandbox/test/kubectl-helpers.js';

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

let dir: string;
let child: ChildProcessWithoutNullStreams;
let k: KubectlRunner;
let output = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-up-lease-'));
  child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      'up',
      '--ephemeral',
      '--port=0',
      '--secure-port=0',
      '--kubeconfig-out=kc/config',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
    ],
    { cwd: dir },
  );
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      output += d.toString();
      if (out.includes('kcm-ts ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${output}`)));
  });
  k = kubectlRunner(path.join(dir, 'kc', 'config'), dir);
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms)
      throw new Error(`${what} did not happen within ${ms} ms\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const lease = async (): Promise<{ spec: { holderIdentity?: string; renewTime?: string } }> =>
  JSON.parse(
    await k.ok(['-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'json']),
  );

/** The API server's address and the admin's token, from the kubeconfig. */
async function server(): Promise<{ port: number; token: string }> {
  const text = await readFile(path.join(dir, 'kc', 'config'), 'utf8');
  return {
    port: Number(/server: https?:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1]),
    token: /token: (\S+)/.exec(text)?.[1] ?? '',
  };
}

describe('kcm-ts up and its Lease', () => {
  it("keeps renewing while the admin's stalled writes hold every seat they may", async () => {
    await eventually(
      'the manager to lead',
      async () => ((await lease()).spec.holderIdentity ?? '') !== '',
    );
    const before = await lease();
    const { port, token } = await server();
    const sockets: Socket[] = [];
    for (let i = 0; i < 400; i++) {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      socket.on('error', () => {});
      socket.write(
        `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
      );
      sockets.push(socket);
    }
    // Longer than the renew deadline: a manager starved of its renewals
    // would have lost the Lease by now, and come back under a new identity.
    // (The admin's own reads wait with its writes, so look afterwards.)
    await new Promise((r) => setTimeout(r, 6_000));
    for (const s of sockets) s.destroy();
    const after = await lease();
    expect(after.spec.holderIdentity).toBe(before.spec.holderIdentity);
    expect(after.spec.renewTime).not.toBe(before.spec.renewTime);
    expect(output).not.toContain('Lost the leader election');
  }, 60_000);

  it('stops only the manager when another takes the Lease, and leads again once it is free', async () => {
    const holder = (await lease()).spec.holderIdentity;
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    await k.ok([
      '-n',
      'kube-system',
      'patch',
      'lease',
      'kube-controller-manager',
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: { holderIdentity: 'intruder', renewTime: now, leaseDurationSeconds: 4 },
      }),
    ]);
    await eventually('the manager to notice', () =>
      Promise.resolve(output.includes('Lost the leader election')),
    );
    // The API server serves on, and the process has not exited.
    expect(child.exitCode).toBeNull();
    expect(await k.ok(['get', 'namespaces', '-o', 'name'])).toContain('namespace/default');
    await eventually('the manager to lead again', async () => {
      const now = (await lease()).spec.holderIdentity ?? '';
      return now !== 'intruder' && now !== '' && now !== holder;
    });
    // Its controllers work again.
    await k.ok(['create', 'deployment', 'again', '--image=nginx:1.27', '--replicas=2']);
    await k.ok(['rollout', 'status', 'deployment/again', '--timeout=60s']);
    expect(output).toContain('Leading again');
  }, 120_000);
});
