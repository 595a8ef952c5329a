// `kubectl logs` against the simulated kubelet's container logs (start,
// readiness, crashes, restarts, stops), with -f, --tail, --since,
// --timestamps, -c and --previous; and `kubectl exec` told plainly that
// nothing runs. The sandbox runs on a fake clock, so the test moves time.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podAnnotations, startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { call } from './http-helpers.js';
import { kubectlRunner } from './kubectl-helpers.js';
import type { KubectlRunner } from './kubectl-helpers.js';

let sandbox: Sandbox;
let clock: FakeClock;
let dir: string;
let kubeconfig: string;
let kubectl: KubectlRunner['kubectl'];
let ok: KubectlRunner['ok'];

const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
};
const step = async (ms: number): Promise<void> => {
  for (let t = 0; t < ms; t += 100) {
    await clock.advance(Math.min(100, ms - t));
    await settle();
  }
};
const pod = (name: string, containers: string[], annotations?: Record<string, string>): Pod => ({
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: containers.map((c) => ({ name: c, image: 'nginx:1.27' })) },
});
const line = (container: string, text: string) =>
  `[kcm-ts sandbox] container "${container}" ${text}`;

beforeAll(async () => {
  clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  sandbox = await startSandbox({
    clock,
    nodes: 1,
    podStartDelay: 0,
    podReadyDelay: 500,
  });
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-logs-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
  ({ kubectl, ok } = kubectlRunner(kubeconfig, dir));
  const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
  await pods.create(pod('web', ['app']));
  await pods.create(pod('pair', ['a', 'b']));
  await pods.create(pod('pending', ['app'], { [podAnnotations.startDelay]: '1h' }));
  await settle();
  await step(1_000);
});

afterAll(async () => {
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('kubectl logs', () => {
  it('prints what the container reported, with --tail and --timestamps', async () => {
    expect(await ok(['logs', 'web'])).toBe(
      `${line('app', 'started from image "nginx:1.27"')}\n${line('app', 'is ready')}\n`,
    );
    expect(await ok(['logs', 'web', '--tail=1', '--timestamps'])).toBe(
      `2026-01-02T03:04:05.500000000Z ${line('app', 'is ready')}\n`,
    );
    expect(await ok(['logs', 'web', '--tail=0'])).toBe('');
  });

  it('takes --since from the sandbox clock', async () => {
    await step(10_000);
    expect(await ok(['logs', 'web', '--since=5s'])).toBe('');
    expect(await ok(['logs', 'web', '--since=1h'])).toContain('is ready');
  });

  it('chooses a container with -c, and says which containers there are', async () => {
    expect(await ok(['logs', 'pair', '-c', 'b'])).toContain(line('b', 'started'));
    const raw = await call(sandbox, 'GET', '/api/v1/namespaces/default/pods/pair/log');
    expect(raw.status).toBe(400);
    expect(raw.json().message).toBe(
      'a container name must be specified for pod pair, choose one of: [a b]',
    );
    const wrong = await kubectl(['logs', 'pair', '-c', 'z']);
    expect(wrong.stderr.trim()).toBe('error: container z is not valid for pod pair');
  });

  it('follows a container until it exits, and shows the crashed run with --previous', async () => {
    await sandbox
      .client<Pod>('', 'pods')
      .inNamespace('default')
      .create(pod('crashy', ['app'], { [podAnnotations.crashAfter]: '2s' }));
    await step(200);
    const child = spawn(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), 'logs', '-f', 'crashy'],
      { env: { ...process.env, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    for (let i = 0; i < 200 && !out.includes('started'); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(out).toBe(`${line('app', 'started from image "nginx:1.27"')}\n`);
    // Lines reach the follower as they are written; the crash ends the stream.
    await step(600);
    await step(1_500);
    expect(await exited).toBe(0);
    expect(out).toBe(
      [
        line('app', 'started from image "nginx:1.27"'),
        line('app', 'is ready'),
        line('app', 'exited with code 1 (sandbox.kcm-ts.io/crash-after)'),
        '',
      ].join('\n'),
    );
    // After the 10 s back-off it runs again; the crashed run is the previous one.
    await step(10_000);
    expect(await ok(['logs', 'crashy', '--previous'])).toBe(out);
    expect(await ok(['logs', 'crashy', '--tail=1'])).toBe(
      `${line('app', 'started from image "nginx:1.27" (restart 1)')}\n`,
    );
  });

  it('refuses a container that has not started, as the kubelet does', async () => {
    const res = await kubectl(['logs', 'pending']);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Error from server (BadRequest): container "app" in pod "pending" is waiting to start: ContainerCreating',
    );
    const previous = await kubectl(['logs', 'web', '--previous']);
    expect(previous.stderr.trim()).toBe(
      'Error from server (BadRequest): previous terminated container "app" in pod "web" not found',
    );
  });
});

describe('kubectl exec', () => {
  it('is told that the sandbox runs no processes', async () => {
    const res = await kubectl(['exec', 'web', '--', 'ls']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('the kcm-ts sandbox runs no processes');
  });
});
