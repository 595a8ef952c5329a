// A Job run by `kcm-ts controller-manager` as a separate process, over
// HTTPS, through the fault lab: failed pod patches, conflicting status
// writes, a pod watch that hangs (a lagging informer), two running pods
// deleted by someone else, and the manager SIGKILLed mid-Job and started
// again while pods keep finishing. An observer sees every pod: no more than
// `parallelism` are ever active, and at the end the Job counts each pod
// that finished exactly once.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const managerCli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

let sandbox: Sandbox;
let dir: string;
let kubeconfig: string;
const children = new Set<ChildProcessWithoutNullStreams>();

function manager(): ChildProcessWithoutNullStreams & { log: () => string } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      managerCli,
      'controller-manager',
      `--kubeconfig=${kubeconfig}`,
      '--secure-port=0',
      '--leader-elect=false',
      '--controllers=job-controller',
    ],
    { cwd: dir },
  );
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  children.add(child);
  child.on('exit', () => children.delete(child));
  return Object.assign(child, { log: () => log });
}

async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 90_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ nodes: 2, podStartDelay: 50, podReadyDelay: 50 });
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-job-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  await sandbox.writeKubeconfig(kubeconfig);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sandbox.stop();
  await rm(dir, { recursive: true, force: true });
});

const completions = 24;
const parallelism = 4;

describe('a Job through faults and a SIGKILLed manager', () => {
  it('never runs more than parallelism pods, and counts every finished pod once', async () => {
    const jobs = sandbox.client<Job>('batch', 'jobs').inNamespace('default');
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');

    // The observer: every pod of the Job, and how many were active at once.
    const stop = new AbortController();
    const seen = new Map<string, Pod>();
    let maxActive = 0;
    const isActive = (p: Pod) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed';
    const watch = await pods.watch({
      labelSelector: 'batch.kubernetes.io/job-name=work',
      signal: stop.signal,
    });
    const observing = (async () => {
      for await (const e of watch) {
        if (e.type === 'ERROR' || e.type === 'BOOKMARK') continue;
        seen.set(e.object.metadata?.uid ?? '', e.object);
        const active = [...seen.values()].filter(isActive).length;
        maxActive = Math.max(maxActive, active);
      }
    })();

    const first = manager();
    await jobs.create({
      metadata: { name: 'work' },
      spec: {
        completions,
        parallelism,
        backoffLimit: 10,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 1'] }],
          },
        },
      },
    });
    const succeeded = () =>
      [...seen.values()].filter((p) => p.status?.phase === 'Succeeded').length;

    // API errors: finalizer patches and status writes refused now and then.
    sandbox.faults.failNext(4, { code: 500 }, { verbs: ['patch'], resource: 'pods' });
    sandbox.faults.conflictNext(2, { resource: 'jobs' });
    await eventually('a few pods to succeed', () => (succeeded() >= 4 ? true : undefined));

    // Someone deletes two running pods: they fail, and are replaced.
    await eventually('two running pods', () =>
      [...seen.values()].filter((p) => isActive(p) && p.status?.phase === 'Running').length >= 2
        ? true
        : undefined,
    );
    const victims = [...seen.values()]
      .filter((p) => isActive(p) && p.status?.phase === 'Running')
      .slice(0, 2)
      .map((p) => p.metadata?.name ?? '');
    expect(victims).toHaveLength(2);
    for (const name of victims) await pods.delete(name);

    // A lagging informer: the manager's pod watch hangs for a while.
    sandbox.faults.hangWatches('pods');
    await new Promise((r) => setTimeout(r, 1_500));
    sandbox.faults.releaseWatches();
    await eventually('half the pods to succeed', () =>
      succeeded() >= completions / 2 ? true : undefined,
    );

    // SIGKILL: no goodbye; pods keep finishing while no controller runs.
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2_500));
    const second = manager();
    const done = await eventually('the Job to complete', async () => {
      const job = await jobs.get('work');
      return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? job
        : undefined;
    });
    // The finalizers of the last pods come off after the Complete condition.
    await eventually('every finalizer to come off', async () =>
      (await pods.list({ labelSelector: 'batch.kubernetes.io/job-name=work' })).items.every(
        (p) => !(p.metadata?.finalizers ?? []).includes('batch.kubernetes.io/job-tracking'),
      )
        ? true
        : undefined,
    );
    stop.abort();
    await observing;
    second.kill('SIGTERM');

    const all = [...seen.values()];
    const failed = all.filter(
      (p) =>
        p.status?.phase === 'Failed' ||
        (p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded'),
    );
    expect(maxActive).toBeLessThanOrEqual(parallelism);
    expect(done.status?.succeeded).toBe(completions);
    expect(succeeded()).toBe(completions);
    expect(done.status?.failed).toBe(failed.length);
    expect(failed.length).toBe(victims.length);
    expect(all).toHaveLength(completions + victims.length);
    expect(done.status?.uncountedTerminatedPods ?? {}).toEqual({});
    expect(done.status?.active ?? 0).toBe(0);
  }, 180_000);
});
