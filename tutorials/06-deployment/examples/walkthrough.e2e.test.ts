// The chapter's kubectl walkthrough, end to end: `kcm-ts up` (what `npm start`
// runs) in a child process, driven by kubectl v1.32 with the commands the
// chapter shows, in real time. The manifests are the chapter's files; the
// test adds the sandbox's per-pod annotations so that each pod starts in
// 200 ms and is ready 300 ms later, and the whole walkthrough takes seconds.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubectlRunner,
  table,
  type KubectlRunner,
} from '../../../packages/sandbox/test/kubectl-helpers.js';
import { nginxDeployment, nginxRecreate } from './manifests.js';

const cli = fileURLToPath(new URL('../../../packages/manager/src/cli/main.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const fast = { 'sandbox.kcm-ts.io/start-delay': '200ms', 'sandbox.kcm-ts.io/ready-delay': '300ms' };

/** A free port on 127.0.0.1, for the manager's secure port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Drops nulls and empty objects, which kubectl's client-side conversion adds. */
function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = prune(v);
    if (p === null || (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0))
      continue;
    out[k] = p;
  }
  return out;
}

let dir: string;
let child: ChildProcessWithoutNullStreams;
let k: KubectlRunner;
let output = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch6-'));
  const securePort = await freePort();
  child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      'up',
      '--port=0',
      `--secure-port=${securePort}`,
      '--kubeconfig-out=kubeconfig',
    ],
    { cwd: dir },
  );
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kcm-ts ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${out}${output}`)));
  });
  k = kubectlRunner(path.join(dir, 'kubeconfig'), dir);
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Polls `check` until it returns true (what kubectl shows changes as the controllers act). */
async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 90_000,
): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A chapter manifest as kubectl reads it, with the fast-pod annotations added. */
async function manifest(file: string): Promise<Deployment> {
  const d = JSON.parse(
    await k.ok(['create', '--dry-run=client', '-o', 'json', '-f', here(file)]),
  ) as Deployment;
  d.spec!.template.metadata = { ...d.spec!.template.metadata, annotations: fast };
  return d;
}

const apply = (d: Deployment) => k.ok(['apply', '-f', '-'], { input: JSON.stringify(d) });
const status = (name: string) =>
  k.ok(['rollout', 'status', `deployment/${name}`, '--timeout=120s']);
const replicaSets = async (app: string): Promise<ReplicaSet[]> =>
  (
    JSON.parse(await k.ok(['get', 'rs', '-l', `app=${app}`, '-o', 'json'])) as {
      items: ReplicaSet[];
    }
  ).items;
const revisionOf = (rs: ReplicaSet) =>
  rs.metadata?.annotations?.['deployment.kubernetes.io/revision'];
const imageOf = (rs: ReplicaSet) => rs.spec?.template?.spec?.containers[0]?.image;
/** `replicas` of each ReplicaSet, by image. */
const sizes = async (app: string): Promise<Record<string, number | undefined>> =>
  Object.fromEntries(
    (await replicaSets(app)).map((rs): [string, number | undefined] => [
      imageOf(rs) ?? '',
      rs.spec?.replicas,
    ]),
  );
/** The REVISION column of `kubectl rollout history`. */
const history = async (name: string) =>
  table(await k.ok(['rollout', 'history', `deployment/${name}`]))
    .slice(2)
    .map((row) => row[0]);

describe('the chapter 6 walkthrough with kubectl against kcm-ts up', { timeout: 180_000 }, () => {
  it('applies the chapter manifests, which are the examples’ Deployments', async () => {
    for (const [file, object] of [
      ['./nginx-deployment.yaml', nginxDeployment()],
      ['./nginx-recreate.yaml', nginxRecreate()],
    ] as const) {
      const read = JSON.parse(
        await k.ok(['create', '--dry-run=client', '-o', 'json', '-f', here(file)]),
      ) as Deployment;
      delete read.metadata?.namespace; // kubectl fills in the namespace it would use
      expect(prune(read)).toEqual(object);
    }
  });

  it('rolls the nginx Deployment out; rollout status returns', async () => {
    await apply(await manifest('./nginx-deployment.yaml'));
    expect(await status('nginx-deployment')).toContain(
      'deployment "nginx-deployment" successfully rolled out',
    );
    const [rs] = await replicaSets('nginx');
    const hash = rs?.metadata?.labels?.['pod-template-hash'];
    const pods = JSON.parse(await k.ok(['get', 'pods', '-l', 'app=nginx', '-o', 'json'])) as {
      items: Pod[];
    };
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.metadata?.labels).toEqual({ app: 'nginx', 'pod-template-hash': hash });
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: 'ReplicaSet',
        uid: rs?.metadata?.uid,
      });
    }
    expect(rs?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'nginx-deployment',
    });
  });

  it('kubectl set image rolls; rollout history lists both revisions', async () => {
    await k.ok(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.16.1']);
    await status('nginx-deployment');
    expect(await sizes('nginx')).toEqual({ 'nginx:1.14.2': 0, 'nginx:1.16.1': 3 });
    expect(await history('nginx-deployment')).toEqual(['1', '2']);
  });

  it('rollout undo returns to the old template and reuses the old ReplicaSet', async () => {
    const before = await replicaSets('nginx');
    expect(await k.ok(['rollout', 'undo', 'deployment/nginx-deployment'])).toContain(
      'deployment.apps/nginx-deployment rolled back',
    );
    await status('nginx-deployment');
    const after = await replicaSets('nginx');
    // No new ReplicaSet: the first one is the new one again, as revision 3.
    expect(after.map((rs) => rs.metadata?.name).sort()).toEqual(
      before.map((rs) => rs.metadata?.name).sort(),
    );
    const first = after.find((rs) => imageOf(rs) === 'nginx:1.14.2')!;
    expect(first.spec?.replicas).toBe(3);
    expect(revisionOf(first)).toBe('3');
    expect(first.metadata?.annotations?.['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(await history('nginx-deployment')).toEqual(['2', '3']);
  });

  it('rollout pause, two edits, rollout resume: one rollout', async () => {
    await k.ok(['rollout', 'pause', 'deployment/nginx-deployment']);
    await k.ok(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.17']);
    await k.ok([
      'set',
      'resources',
      'deployment/nginx-deployment',
      '-c=nginx',
      '--limits=cpu=200m,memory=512Mi',
    ]);
    // Paused: the controller sees both edits and makes no ReplicaSet.
    await eventually('the paused condition', async () => {
      const d = JSON.parse(
        await k.ok(['get', 'deploy', 'nginx-deployment', '-o', 'json']),
      ) as Deployment;
      return (
        (d.status?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
        d.status?.conditions?.some((c) => c.reason === 'DeploymentPaused') === true
      );
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await replicaSets('nginx')).toHaveLength(2);
    await k.ok(['rollout', 'resume', 'deployment/nginx-deployment']);
    await status('nginx-deployment');
    const sets = await replicaSets('nginx');
    expect(sets).toHaveLength(3);
    const newest = sets.find((rs) => imageOf(rs) === 'nginx:1.17')!;
    expect(newest.spec?.template?.spec?.containers[0]?.resources?.limits).toEqual({
      cpu: '200m',
      memory: '512Mi',
    });
    expect(await history('nginx-deployment')).toEqual(['2', '3', '4']);
  });

  it('kubectl scale during a stuck rollout scales both ReplicaSets in proportion', async () => {
    await k.ok(['scale', 'deployment/nginx-deployment', '--replicas=10']);
    await k.ok([
      'patch',
      'deployment/nginx-deployment',
      '-p',
      '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":3,"maxUnavailable":2}}}}',
    ]);
    await status('nginx-deployment');
    await k.ok(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:bad']);
    await eventually('the rollout to stop at 8 + 5', async () => {
      const s = await sizes('nginx');
      return s['nginx:1.17'] === 8 && s['nginx:bad'] === 5;
    });
    await k.ok(['scale', 'deployment/nginx-deployment', '--replicas=15']);
    await eventually('the 5 new pods to be spread 3 + 2', async () => {
      const s = await sizes('nginx');
      return s['nginx:1.17'] === 11 && s['nginx:bad'] === 7;
    });
    // And it stays there: 18 − 13 − 7 < 0 leaves nothing to scale down.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await sizes('nginx')).toMatchObject({ 'nginx:1.17': 11, 'nginx:bad': 7 });
    await k.ok(['rollout', 'undo', 'deployment/nginx-deployment']);
    await status('nginx-deployment');
    expect(await sizes('nginx')).toMatchObject({ 'nginx:1.17': 15, 'nginx:bad': 0 });
  });

  it('an image that cannot be pulled exceeds progressDeadlineSeconds; rollout status says so', async () => {
    await k.ok([
      'patch',
      'deployment/nginx-deployment',
      '-p',
      '{"spec":{"progressDeadlineSeconds":10}}',
    ]);
    await status('nginx-deployment');
    const start = Date.now();
    await k.ok(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:bad']);
    const run = await k.kubectl([
      'rollout',
      'status',
      'deployment/nginx-deployment',
      '--timeout=120s',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: deployment "nginx-deployment" exceeded its progress deadline',
    );
    // Ten seconds after the last progress, give or take the whole seconds
    // the condition's lastUpdateTime is written with.
    expect(Date.now() - start).toBeGreaterThanOrEqual(9_000);
    const d = JSON.parse(
      await k.ok(['get', 'deploy', 'nginx-deployment', '-o', 'json']),
    ) as Deployment;
    expect(d.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
      }),
    );
    expect(d.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Available', status: 'True' }),
    );
    await k.ok(['rollout', 'undo', 'deployment/nginx-deployment']);
    await status('nginx-deployment');
  });

  it('revisionHistoryLimit is honoured', async () => {
    expect((await replicaSets('nginx')).length).toBeGreaterThan(3);
    await k.ok([
      'patch',
      'deployment/nginx-deployment',
      '-p',
      '{"spec":{"revisionHistoryLimit":2}}',
    ]);
    await eventually(
      'the history to be trimmed',
      async () => (await replicaSets('nginx')).length === 3,
    );
    const kept = (await replicaSets('nginx'))
      .map((rs) => Number(revisionOf(rs)))
      .sort((a, b) => a - b);
    expect(await history('nginx-deployment')).toEqual(kept.map(String));
    // The newest ones are kept: the oldest revisions went first.
    expect(kept.at(-1)).toBe(8);
  });

  it('Recreate never runs old and new pods together', async () => {
    await apply(await manifest('./nginx-recreate.yaml'));
    await status('nginx-recreate');
    // Watch the pods the way a user would: every change, in order.
    const watch = spawn(
      'kubectl',
      [
        '--kubeconfig',
        path.join(dir, 'kubeconfig'),
        'get',
        'pods',
        '-l',
        'app=nginx-recreate',
        '--watch',
        '--output-watch-events',
        '-o',
        'jsonpath={.type} {.object.metadata.name} {.object.spec.containers[0].image} {.object.status.phase}{"\\n"}',
      ],
      { env: { ...process.env, HOME: dir } },
    );
    let lines = '';
    watch.stdout.on('data', (d: Buffer) => (lines += d.toString()));
    try {
      await eventually('the watch to list the pods', () => lines.split('\n').length > 3);
      await k.ok(['set', 'image', 'deployment/nginx-recreate', 'nginx=nginx:1.16.1']);
      await status('nginx-recreate');
      await eventually('the watch to see the new pods ready', () =>
        lines.includes('nginx:1.16.1 Running'),
      );
    } finally {
      watch.kill();
    }
    const running = new Map<string, string>();
    let overlap = false;
    let sawOld = false;
    let sawNew = false;
    for (const line of lines.split('\n').filter(Boolean)) {
      const [type, name, image, phase] = line.split(' ');
      if (type === 'DELETED' || phase === 'Succeeded' || phase === 'Failed') running.delete(name!);
      else running.set(name!, image!);
      const images = new Set(running.values());
      overlap ||= images.has('nginx:1.14.2') && images.has('nginx:1.16.1');
      sawOld ||= images.has('nginx:1.14.2');
      sawNew ||= images.has('nginx:1.16.1');
    }
    expect([sawOld, sawNew]).toEqual([true, true]);
    expect(overlap).toBe(false);
  });
});
