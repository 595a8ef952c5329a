// The chapter's kubectl walkthrough, end to end: the experiment of `npm
// start` (the sandbox API server with three nodes and the DaemonSet and
// StatefulSet controllers) runs in this process on a free port, with pods
// that start and stop faster, and kubectl v1.32 runs the commands of the
// README's walkthrough, read from the README and run as written, in order,
// in real time. Only the kubeconfig and the port are the test's own.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubectlRunner,
  type KubectlRunner,
  type Run,
} from '../../../packages/sandbox/test/kubectl-helpers.js';
import { startExperiment, type Experiment } from './experiment.js';
import { fluentBit, web } from './manifests.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = fileURLToPath(new URL('../README.md', import.meta.url));

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
let kubeconfig: string;
let experiment: Experiment | undefined;
let k: KubectlRunner;
let readmeCommands: string[];
const ran: string[] = [];

beforeAll(async () => {
  readmeCommands = await walkthroughCommands();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch10-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  experiment = await startExperiment({
    port: 0,
    kubeconfigOut: kubeconfig,
    podStartDelay: 300,
    podReadyDelay: 300,
    podStopDelay: 300,
    log: () => {},
  });
  k = kubectlRunner(kubeconfig, dir);
}, 60_000);

afterAll(async () => {
  await experiment?.stop();
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
async function watch(line: string, done: (out: string) => boolean, ms = 60_000): Promise<string> {
  const w = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args(line)], {
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
  ms = 60_000,
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
const podsOf = async (app: string): Promise<Pod[]> =>
  (await json<{ items: Pod[] }>(['get', 'pods', '-l', `app=${app}`])).items;
const rows = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
const K = 'kubectl --kubeconfig .kcm-ts/kubeconfig';

describe('the chapter 10 walkthrough with kubectl', { timeout: 120_000 }, () => {
  it('the chapter’s manifests are the objects of the examples', async () => {
    for (const [file, object] of [
      ['daemonset.yaml', fluentBit()],
      ['statefulset.yaml', web()],
    ] as const) {
      const read = JSON.parse(
        await k.ok([
          'create',
          '--dry-run=client',
          '-o',
          'json',
          '-f',
          path.join(root, 'tutorials/10-daemonset-statefulset/examples', file),
        ]),
      ) as DaemonSet | StatefulSet;
      delete read.metadata?.namespace; // kubectl fills in the namespace it would use
      expect(prune(read)).toEqual(prune(object));
    }
  });

  it('a DaemonSet: two pods on the workers, three with the toleration', async () => {
    expect(rows(await sh(`${K} get nodes`)).map((r) => r.slice(0, 3))).toEqual([
      ['NAME', 'STATUS', 'ROLES'],
      ['node-1', 'Ready', 'control-plane'],
      ['node-2', 'Ready', '<none>'],
      ['node-3', 'Ready', '<none>'],
    ]);
    await sh(`${K} create -f tutorials/10-daemonset-statefulset/examples/daemonset.yaml`);
    expect(await sh(`${K} rollout status ds/fluent-bit`)).toContain(
      'daemon set "fluent-bit" successfully rolled out',
    );
    const wide = rows(await sh(`${K} get pods -l app=fluent-bit -o wide`));
    expect(wide[0]).toContain('NODE');
    expect(
      wide
        .slice(1)
        .map((r) => r[6])
        .sort(),
    ).toEqual(['node-2', 'node-3']);

    await sh(
      `${K} patch ds fluent-bit -p '{"spec":{"template":{"spec":{"tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"}]}}}}'`,
    );
    expect(await sh(`${K} rollout status ds/fluent-bit`)).toContain('successfully rolled out');
    const ds = rows(await sh(`${K} get ds fluent-bit`));
    expect(ds[0]!.slice(0, 6)).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
    ]);
    expect(ds[1]!.slice(0, 6)).toEqual(['fluent-bit', '3', '3', '3', '3', '3']);
  });

  it('a rollout of a new image, its history, and the undo', async () => {
    await sh(`${K} set image ds/fluent-bit fluent-bit=fluent/fluent-bit:3.2`);
    expect(await sh(`${K} rollout status ds/fluent-bit`)).toContain('successfully rolled out');
    expect((await podsOf('fluent-bit')).map((p) => p.spec?.containers[0]?.image)).toEqual([
      'fluent/fluent-bit:3.2',
      'fluent/fluent-bit:3.2',
      'fluent/fluent-bit:3.2',
    ]);
    expect(rows(await sh(`${K} rollout history ds/fluent-bit`)).slice(1)).toEqual([
      ['REVISION', 'CHANGE-CAUSE'],
      ['1', '<none>'],
      ['2', '<none>'],
      ['3', '<none>'],
    ]);
    expect(await sh(`${K} rollout undo ds/fluent-bit`)).toContain('rolled back');
    expect(await sh(`${K} rollout status ds/fluent-bit`)).toContain('successfully rolled out');
    await eventually('the old image everywhere', async () =>
      (await podsOf('fluent-bit')).every(
        (p) => p.spec?.containers[0]?.image === 'fluent/fluent-bit:3.1',
      ),
    );
    // Revision 2 (3.1 with the toleration) became revision 4: no new revision.
    const revisions = rows(await sh(`${K} get controllerrevisions -l app=fluent-bit`));
    expect(revisions[0]!.slice(0, 3)).toEqual(['NAME', 'CONTROLLER', 'REVISION']);
    expect(
      revisions
        .slice(1)
        .map((r) => r[2])
        .sort(),
    ).toEqual(['1', '3', '4']);
  });

  it('a StatefulSet: web-0, web-1, web-2 in order, each with its claim', async () => {
    await sh(`${K} create -f tutorials/10-daemonset-statefulset/examples/statefulset.yaml`);
    const watched = await watch(`${K} get pods -l app=nginx --watch`, (out) =>
      /^web-2\s+1\/1\s+Running/m.test(out),
    );
    // web-1 appears only after web-0 is running and ready, web-2 after web-1.
    const first = (re: RegExp) => watched.search(re);
    expect(first(/^web-1\s/m)).toBeGreaterThan(first(/^web-0\s+1\/1\s+Running/m));
    expect(first(/^web-2\s/m)).toBeGreaterThan(first(/^web-1\s+1\/1\s+Running/m));
    const pvc = rows(await sh(`${K} get pvc`));
    expect(pvc.slice(1).map((r) => [r[0], r[1]])).toEqual([
      ['www-web-0', 'Bound'],
      ['www-web-1', 'Bound'],
      ['www-web-2', 'Bound'],
    ]);
  });

  it('a deleted web-1 comes back with its name and claim; scaling down goes from the top', async () => {
    const before = await json<Pod>(['get', 'pod', 'web-1']);
    await sh(`${K} delete pod web-1`);
    await watch(`${K} get pods -l app=nginx --watch`, (out) =>
      /^web-1\s+1\/1\s+Running/m.test(out),
    );
    await eventually('the new web-1 to be ready', async () => {
      const p = await json<Pod>(['get', 'pod', 'web-1']);
      return (
        p.metadata?.uid !== before.metadata?.uid &&
        (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
      );
    });
    expect(
      await sh(
        `${K} get pod web-1 -o jsonpath='{.spec.nodeName} {.spec.volumes[0].persistentVolumeClaim.claimName}'`,
      ),
    ).toBe(`${before.spec?.nodeName} www-web-1`);

    await sh(`${K} scale sts web --replicas=1`);
    await eventually(
      'web-1 and web-2 to be gone',
      async () => (await podsOf('nginx')).length === 1,
    );
    expect(rows(await sh(`${K} get pods -l app=nginx`)).map((r) => r[0])).toEqual([
      'NAME',
      'web-0',
    ]);
    // The claims stay (whenScaled: Retain, the default).
    expect(rows(await sh(`${K} get pvc`)).length).toBe(4);
  });

  it('a partitioned update reaches web-2 only, then all', async () => {
    await sh(`${K} scale sts web --replicas=3`);
    await sh(`${K} rollout status sts/web`);
    await sh(
      `${K} patch sts web -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}'`,
    );
    await sh(`${K} set image sts/web nginx=registry.k8s.io/nginx-slim:0.27`);
    expect(await sh(`${K} rollout status sts/web`)).toContain('partitioned roll out complete');
    const columns = `${K} get pods -l app=nginx -o custom-columns=NAME:.metadata.name,REVISION:.metadata.labels.controller-revision-hash,IMAGE:.spec.containers[0].image`;
    const partial = rows(await sh(columns)).slice(1);
    expect(partial.map((r) => [r[0], r[2]])).toEqual([
      ['web-0', 'registry.k8s.io/nginx-slim:0.24'],
      ['web-1', 'registry.k8s.io/nginx-slim:0.24'],
      ['web-2', 'registry.k8s.io/nginx-slim:0.27'],
    ]);
    await sh(
      `${K} patch sts web -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}'`,
    );
    expect(await sh(`${K} rollout status sts/web`)).toContain('3 new pods have been updated');
    const all = rows(await sh(columns)).slice(1);
    expect(all.map((r) => r[2])).toEqual([
      'registry.k8s.io/nginx-slim:0.27',
      'registry.k8s.io/nginx-slim:0.27',
      'registry.k8s.io/nginx-slim:0.27',
    ]);
    expect(new Set(all.map((r) => r[1])).size).toBe(1);
  });

  it('ran every kubectl command of the README’s walkthrough, in order', () => {
    expect(ran).toEqual(readmeCommands);
  });
});
