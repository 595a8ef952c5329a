// The chapter's kubectl walkthrough, end to end: `kcm-ts up` (what `npm
// start` runs: the sandbox API server, a simulated node and the manager with
// its controllers, in one process) in a child process, driven by kubectl
// v1.32 with the commands of the README's walkthrough, read from the README
// and run as written, in order, in real time. Only the kubeconfig and the
// ports are the test's own.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubectlRunner,
  type KubectlRunner,
  type Run,
} from '../../../packages/sandbox/test/kubectl-helpers.js';
import { piJob } from './manifests.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cli = path.join(root, 'packages/manager/src/cli/main.ts');
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const readme = fileURLToPath(new URL('../README.md', import.meta.url));

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

/** Splits a command line into words as a POSIX shell would (quotes only: no expansions). */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The kubectl lines of the README's walkthrough section, in order. */
async function walkthroughCommands(): Promise<string[]> {
  const text = await readFile(readme, 'utf8');
  const start = text.indexOf('## The walkthrough with kubectl');
  const end = text.indexOf('\n## ', start + 1);
  return [...text.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split('\n'))
    .filter((l) => l.startsWith('kubectl '));
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
let stderr = '';
let readmeCommands: string[];
const ran: string[] = [];

beforeAll(async () => {
  readmeCommands = await walkthroughCommands();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch9-'));
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
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kcm-ts ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${out}${stderr}`)));
  });
  k = kubectlRunner(path.join(dir, 'kubeconfig'), dir);
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** The README's line as the runner takes it: no kubeconfig flag, paths from the repository's root. */
function args(line: string): string[] {
  expect(readmeCommands, 'the README shows this command').toContain(line);
  ran.push(line);
  const a = words(line);
  const i = a.indexOf('--kubeconfig');
  expect(a[i + 1]).toBe('.kcm-ts/kubeconfig');
  a.splice(i, 2);
  return a.slice(1).map((w) => (/^(tutorials|packages)\//.test(w) ? path.join(root, w) : w));
}

/** Runs a README command as the reader would type it; throws if it fails. */
async function sh(line: string): Promise<string> {
  const run: Run = await k.kubectl(args(line));
  if (run.code !== 0) throw new Error(`${line} exited ${String(run.code)}:\n${run.stderr}`);
  return run.stdout;
}

/** Runs a README `--watch` command until `done(output)` holds, then stops it, as Ctrl-C would. */
async function watch(line: string, done: (out: string) => boolean, ms = 90_000): Promise<string> {
  const w = spawn('kubectl', ['--kubeconfig', path.join(dir, 'kubeconfig'), ...args(line)], {
    env: { ...process.env, HOME: dir },
  });
  let out = '';
  w.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await eventually(line, () => done(out), ms);
  } finally {
    w.kill();
  }
  return out;
}

/** Polls `check` until it returns true. */
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

const json = async <T>(argv: string[]): Promise<T> =>
  JSON.parse(await k.ok([...argv, '-o', 'json'])) as T;
const podsOf = async (job: string) =>
  (await json<{ items: Pod[] }>(['get', 'pods', '-l', `batch.kubernetes.io/job-name=${job}`]))
    .items;

describe('the chapter 9 walkthrough with kubectl against kcm-ts up', { timeout: 180_000 }, () => {
  it('the chapter’s manifest is the pi Job of the examples', async () => {
    const read = JSON.parse(
      await k.ok([
        'create',
        '--dry-run=client',
        '-o',
        'json',
        '-f',
        path.join(root, 'tutorials/09-job/examples/pi-job.yaml'),
      ]),
    ) as Job;
    delete read.metadata?.namespace; // kubectl fills in the namespace it would use
    expect(prune(read)).toEqual(piJob());
  });

  it('runs the pi Job to Complete; wait, logs and describe show it', async () => {
    await sh(
      'kubectl --kubeconfig .kcm-ts/kubeconfig create -f tutorials/09-job/examples/pi-job.yaml',
    );
    const watched = await watch('kubectl --kubeconfig .kcm-ts/kubeconfig get jobs --watch', (out) =>
      /^pi\s+Complete\s+1\/1/m.test(out),
    );
    expect(watched).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE/);
    expect(watched).toMatch(/^pi\s+Running\s+0\/1/m);
    expect(
      await sh(
        'kubectl --kubeconfig .kcm-ts/kubeconfig wait --for=condition=complete job/pi --timeout=60s',
      ),
    ).toContain('job.batch/pi condition met');
    const pi = await sh('kubectl --kubeconfig .kcm-ts/kubeconfig logs job/pi');
    expect(pi.startsWith('3.14159265358979323846264338327950288419716939937510')).toBe(true);
    expect(pi.trim()).toHaveLength(2001);
    const described = await sh('kubectl --kubeconfig .kcm-ts/kubeconfig describe job pi');
    expect(described).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed/);
    expect(described).toMatch(/Normal\s+SuccessfulCreate\s+.*job-controller\s+Created pod: pi-/);
    expect(described).toMatch(/Normal\s+Completed\s+.*job-controller\s+Job completed/);
    // The pod kept no tracking finalizer once counted.
    expect(
      await sh(
        "kubectl --kubeconfig .kcm-ts/kubeconfig get pods -l batch.kubernetes.io/job-name=pi -o jsonpath='{.items[*].metadata.finalizers[*]}'",
      ),
    ).toBe('');
    const job = await json<Job>(['get', 'job', 'pi']);
    expect(
      Date.parse(job.status!.completionTime!) - Date.parse(job.status!.startTime!),
    ).toBeLessThan(10_000);
  });

  it('deleting the Job deletes its pod', async () => {
    expect(await podsOf('pi')).toHaveLength(1);
    await sh('kubectl --kubeconfig .kcm-ts/kubeconfig delete job pi');
    await eventually('the pod to be collected', async () => (await podsOf('pi')).length === 0);
    const run = await k.kubectl(
      args('kubectl --kubeconfig .kcm-ts/kubeconfig get pods -l batch.kubernetes.io/job-name=pi'),
    );
    expect(run.stderr).toContain('No resources found');
  });

  it('a failing Job waits 10 s before its second pod and fails at its backoffLimit', async () => {
    await sh(
      "kubectl --kubeconfig .kcm-ts/kubeconfig create job fail --image=busybox:1.36 -- sh -c 'exit 3'",
    );
    await sh(
      'kubectl --kubeconfig .kcm-ts/kubeconfig patch job fail --type=merge -p \'{"spec":{"backoffLimit":1}}\'',
    );
    expect(
      await sh(
        'kubectl --kubeconfig .kcm-ts/kubeconfig wait --for=condition=failed job/fail --timeout=60s',
      ),
    ).toContain('job.batch/fail condition met');
    const described = await sh('kubectl --kubeconfig .kcm-ts/kubeconfig describe job fail');
    expect(described).toMatch(/0 Active \(0 Ready\) \/ 0 Succeeded \/ 2 Failed/);
    expect(described).toMatch(
      /Warning\s+BackoffLimitExceeded\s+.*job-controller\s+Job has reached the specified backoff limit/,
    );
    const pods = await podsOf('fail');
    const created = pods.map((p) => Date.parse(p.metadata!.creationTimestamp!)).sort();
    const finished = pods
      .map((p) => Date.parse(p.status!.containerStatuses![0]!.state!.terminated!.finishedAt!))
      .sort();
    expect(pods.map((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode)).toEqual([
      3, 3,
    ]);
    // The second pod came 10 s (whole seconds on the wire) after the first failed.
    expect(created[1]! - finished[0]!).toBeGreaterThanOrEqual(9_000);
    expect(created[1]! - finished[0]!).toBeLessThanOrEqual(15_000);
  });

  it('a CronJob, and a Job made from it now', async () => {
    await sh(
      "kubectl --kubeconfig .kcm-ts/kubeconfig create cronjob hello --image=busybox:1.36 --schedule='*/1 * * * *' -- echo Hello from the Kubernetes cluster",
    );
    expect(await sh('kubectl --kubeconfig .kcm-ts/kubeconfig get cronjobs')).toMatch(
      /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\nhello\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+/,
    );
    await sh('kubectl --kubeconfig .kcm-ts/kubeconfig create job hello-now --from=cronjob/hello');
    await watch('kubectl --kubeconfig .kcm-ts/kubeconfig get jobs --watch', (out) =>
      /^hello-now\s+Complete\s+1\/1/m.test(out),
    );
    expect(await sh('kubectl --kubeconfig .kcm-ts/kubeconfig logs job/hello-now')).toBe(
      'Hello from the Kubernetes cluster\n',
    );
    const job = await json<Job>(['get', 'job', 'hello-now']);
    const cronJob = await json<CronJob>(['get', 'cronjob', 'hello']);
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'CronJob',
      uid: cronJob.metadata?.uid,
      controller: true,
    });
    expect(cronJob.status?.active ?? []).toEqual([]);
    // Owned, but not created by the controller: it says so, and leaves it alone.
    await eventually('the UnexpectedJob warning', async () =>
      (await k.ok(['describe', 'cronjob', 'hello'])).includes('UnexpectedJob'),
    );
    expect(await sh('kubectl --kubeconfig .kcm-ts/kubeconfig describe cronjob hello')).toMatch(
      /Warning\s+UnexpectedJob\s+.*cronjob-controller\s+Saw a job that the controller did not create or forgot: hello-now/,
    );
    await sh('kubectl --kubeconfig .kcm-ts/kubeconfig delete cronjob hello');
    await eventually('its Jobs to be collected', async () =>
      (await json<{ items: Job[] }>(['get', 'jobs'])).items.every(
        (j) => j.metadata?.ownerReferences?.[0]?.uid !== cronJob.metadata?.uid,
      ),
    );
  });

  it('ran every kubectl command of the README’s walkthrough, in order', () => {
    expect(ran).toEqual(readmeCommands);
  });
});
