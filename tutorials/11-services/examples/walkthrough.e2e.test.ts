// The chapter's kubectl walkthrough, end to end: `kcm-ts up` (what `npm
// start` runs: the sandbox API server, a simulated node and the manager
// with its controllers, the EndpointSlice, Endpoints, ServiceAccount,
// root CA publisher, disruption and ReplicationController controllers among
// them, in one process, with three simulated nodes) in a child process,
// driven by kubectl v1.32 with the commands of the README's walkthrough,
// read from the README and run as written, in order, in real time. Only the
// kubeconfig and the ports are the test's own, and a file named with `-f`
// is found from the repository's root, where the README runs its commands.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  Endpoints,
  Node,
  Pod,
  ReplicationController,
  Service,
} from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubectlRunner, Run } from '../../../packages/sandbox/test/kubectl-helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cli = path.join(root, 'packages/manager/src/cli/main.ts');
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const readme = fileURLToPath(new URL('../README.md', import.meta.url));

/**
 * kubectl v1.32 with its own HOME and cache directory, as the sandbox's
 * kubectl helper runs it; a kubectl that exits before its stdin is closed
 * (as a quick `get` can) is not an error here.
 */
function kubectlRunner(kubeconfig: string, home: string): KubectlRunner {
  const kubectl = (argv: string[], opts: { input?: string } = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', path.join(home, 'cache'), ...argv],
        { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig } },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdin.on('error', () => undefined); // EPIPE: kubectl did not read it
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(opts.input ?? '');
    });
  const ok = async (argv: string[], opts: { input?: string } = {}): Promise<string> => {
    const run = await kubectl(argv, opts);
    if (run.code !== 0) {
      throw new Error(
        `kubectl ${argv.join(' ')} exited ${String(run.code)}:\n${run.stderr}${run.stdout}`,
      );
    }
    return run.stdout;
  };
  return { kubectl, ok };
}

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

let dir: string;
let child: ChildProcessWithoutNullStreams;
let k: KubectlRunner;
let stderr = '';
let readmeCommands: string[];
const ran: string[] = [];

beforeAll(async () => {
  readmeCommands = await walkthroughCommands();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch11-'));
  const securePort = await freePort();
  child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      'up',
      '--nodes=3',
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

/** The README's line as the runner takes it: no kubeconfig flag. */
function args(line: string): string[] {
  expect(readmeCommands, 'the README shows this command').toContain(line);
  ran.push(line);
  const a = words(line);
  const i = a.indexOf('--kubeconfig');
  expect(a[i + 1]).toBe('.kcm-ts/kubeconfig');
  a.splice(i, 2);
  const f = a.indexOf('-f');
  if (f !== -1) a[f + 1] = path.join(root, a[f + 1]!);
  return a.slice(1);
}

/** Runs a README command as the reader would type it; throws if it fails. */
async function sh(line: string): Promise<string> {
  const run: Run = await k.kubectl(args(line));
  if (run.code !== 0) throw new Error(`${line} exited ${String(run.code)}:\n${run.stderr}`);
  return run.stdout;
}

/** Polls `check` until it returns true. */
async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
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
const slices = async (): Promise<EndpointSlice[]> =>
  (
    await json<{ items: EndpointSlice[] }>([
      'get',
      'endpointslices',
      '-l',
      'kubernetes.io/service-name=web',
    ])
  ).items;
const readyIPs = async (): Promise<string[]> =>
  (await slices())
    .flatMap((s) => s.endpoints ?? [])
    .filter((e) => e.conditions?.ready === true)
    .flatMap((e) => e.addresses)
    .sort();
const podIPs = async (): Promise<string[]> =>
  (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'app=web'])).items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => p.status?.podIP ?? '')
    .sort();
const rows = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
const K = 'kubectl --kubeconfig .kcm-ts/kubeconfig';

describe('the chapter 11 walkthrough with kubectl against kcm-ts up', { timeout: 60_000 }, () => {
  it('a Deployment exposed as a Service gets one slice of its three pods', async () => {
    await sh(`${K} create deployment web --image=nginx --replicas=3`);
    expect(await sh(`${K} rollout status deployment/web`)).toContain('successfully rolled out');
    await sh(`${K} expose deployment web --port=80`);
    const service = await json<Service>(['get', 'service', 'web']);
    expect(service.spec?.selector).toEqual({ app: 'web' });
    await eventually('three ready endpoints', async () => (await readyIPs()).length === 3);
    const table = rows(await sh(`${K} get endpointslices -l kubernetes.io/service-name=web`));
    expect(table[0]).toEqual(['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    expect(table).toHaveLength(2);
    expect(table[1]![0]).toMatch(/^web-[a-z0-9]{5}$/);
    expect(table[1]!.slice(1, 3)).toEqual(['IPv4', '80']);
    expect(table[1]![3]!.split(',').sort()).toEqual(await podIPs());
    const [slice] = await slices();
    expect(slice?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Service', name: 'web' });
    expect(slice?.metadata?.labels?.['endpointslice.kubernetes.io/managed-by']).toBe(
      'endpointslice-controller.k8s.io',
    );
  });

  it('scaled to five, the same slice lists five ready pods', async () => {
    const before = (await slices())[0]?.metadata?.name;
    await sh(`${K} scale deployment web --replicas=5`);
    expect(await sh(`${K} rollout status deployment/web`)).toContain('successfully rolled out');
    await eventually('five ready endpoints', async () => (await readyIPs()).length === 5);
    expect(await readyIPs()).toEqual(await podIPs());
    const table = rows(await sh(`${K} get endpointslices -l kubernetes.io/service-name=web`));
    expect(table.slice(1).map((r) => r[0])).toEqual([before]);
    expect(
      await sh(
        `${K} get endpointslices -l kubernetes.io/service-name=web -o jsonpath='{.items[*].endpoints[*].conditions.ready}'`,
      ),
    ).toBe('true true true true true');
  });

  it('the Endpoints object lists the same five pods', async () => {
    const table = rows(await sh(`${K} get endpoints web`));
    expect(table[0]).toEqual(['NAME', 'ENDPOINTS', 'AGE']);
    expect(table[1]![0]).toBe('web');
    const ep = await json<Endpoints>(['get', 'endpoints', 'web']);
    const ips = (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();
    expect(ips).toEqual(await podIPs());
  });

  it('a new namespace comes with its default ServiceAccount and kube-root-ca.crt', async () => {
    await sh(`${K} create namespace shop`);
    await eventually('the namespace furnished', async () => {
      const names = (await k.ok(['get', 'serviceaccounts,configmaps', '-n', 'shop', '-o', 'name']))
        .trim()
        .split('\n');
      return (
        names.includes('serviceaccount/default') && names.includes('configmap/kube-root-ca.crt')
      );
    });
    const out = await sh(`${K} get serviceaccounts,configmaps -n shop`);
    expect(out).toContain('serviceaccount/default');
    expect(out).toContain('configmap/kube-root-ca.crt');
  });

  it('a drain of node-2 respects the budget: one eviction at a time, then uncordon', async () => {
    await sh(`${K} create poddisruptionbudget web --selector=app=web --min-available=4`);
    await eventually('the budget computed', async () => {
      const pdb = await json<PodDisruptionBudget>(['get', 'pdb', 'web']);
      return pdb.status?.disruptionsAllowed === 1 && pdb.status.currentHealthy === 5;
    });
    const table = rows(await sh(`${K} get pdb web`));
    expect(table[0]).toEqual([
      'NAME',
      'MIN',
      'AVAILABLE',
      'MAX',
      'UNAVAILABLE',
      'ALLOWED',
      'DISRUPTIONS',
      'AGE',
    ]);
    expect(table[1]!.slice(0, 4)).toEqual(['web', '4', 'N/A', '1']);
    const onNode2 = (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'app=web'])).items.filter(
      (p) => p.spec?.nodeName === 'node-2',
    ).length;
    const run = await k.kubectl(
      args(`${K} drain node-2 --ignore-daemonsets --delete-emptydir-data`),
    );
    expect(run.code, run.stderr).toBe(0);
    const said = run.stdout + run.stderr;
    expect(said).toContain('node/node-2 cordoned');
    expect(said).toContain('node/node-2 drained');
    expect(said.match(/^pod\/web-\S+ evicted$/gm)).toHaveLength(onNode2);
    // Two pods or more on the node, one disruption allowed: the budget said no at least once.
    if (onNode2 > 1)
      expect(said).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    const pods = (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'app=web'])).items;
    expect(
      pods
        .filter((p) => !p.metadata?.deletionTimestamp)
        .every((p) => p.spec?.nodeName === 'node-3'),
    ).toBe(true);
    await sh(`${K} uncordon node-2`);
    expect((await json<Node>(['get', 'node', 'node-2'])).spec?.unschedulable).toBeFalsy();
  });

  it('a ReplicationController keeps its replicas, scaled with kubectl scale rc', async () => {
    await sh(`${K} apply -f tutorials/11-services/rc.yaml`);
    await sh(`${K} scale rc legacy --replicas=3`);
    await eventually('three ready replicas', async () => {
      const rc = await json<ReplicationController>(['get', 'rc', 'legacy']);
      return rc.status?.readyReplicas === 3;
    });
    const table = rows(await sh(`${K} get rc legacy`));
    expect(table[0]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    expect(table[1]!.slice(0, 4)).toEqual(['legacy', '3', '3', '3']);
    const pods = (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'app=legacy'])).items;
    expect(pods.map((p) => p.metadata?.ownerReferences?.[0]?.kind)).toEqual([
      'ReplicationController',
      'ReplicationController',
      'ReplicationController',
    ]);
  });

  it('ran every kubectl command of the README’s walkthrough, in order', () => {
    expect(ran).toEqual(readmeCommands);
  });
});
