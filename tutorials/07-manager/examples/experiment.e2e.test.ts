// The chapter's kubectl experiment, end to end: `kcm-ts up` (what `npm
// start` runs) in a child process, and every kubectl command of the
// README's experiment section, read from the README and run as written, in
// order, with kubectl v1.32, in real time. Only the kubeconfig and the
// manager's port are the test's own: the server listens on a free port and
// writes its kubeconfig in a temporary directory.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubectlRunner,
  type KubectlRunner,
  type Run,
} from '../../../packages/sandbox/test/kubectl-helpers.js';
import { nginxDeployment } from './manifests.js';

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

/** The fenced blocks of the README's experiment section, as lists of command lines. */
async function experimentBlocks(): Promise<string[][]> {
  const text = await readFile(readme, 'utf8');
  const start = text.indexOf('## The experiment: `npm start` and kubectl');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!.split('\n').filter((l) => l.trim() !== ''),
  );
}

let dir: string;
let child: ChildProcessWithoutNullStreams;
let k: KubectlRunner;
let securePort: number;
let stderr = '';
let blocks: string[][];
let commands: string[];

beforeAll(async () => {
  blocks = await experimentBlocks();
  commands = blocks.flat();
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch7-'));
  securePort = await freePort();
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
      '--logging-format=json',
      '-v=2',
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
    child.kill('SIGKILL');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Runs one command of the README against the test's server, as the reader would type it. */
function runAsWritten(line: string): Promise<Run> {
  const args = words(line);
  expect(args[0]).toBe('kubectl');
  const i = args.indexOf('--kubeconfig');
  expect(args[i + 1], line).toBe('.kcm-ts/kubeconfig');
  args.splice(i, 2); // the runner passes the test's kubeconfig
  const rewritten = args
    .slice(1)
    .map((a) =>
      a === 'https://127.0.0.1:10257'
        ? `https://127.0.0.1:${securePort}`
        : /^(tutorials|packages)\//.test(a)
          ? path.join(root, a)
          : a,
    );
  return k.kubectl(rewritten);
}

/** Polls `check` until it returns true. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 60_000) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const names = async (kinds: string, ns = 'default') =>
  (await k.ok(['-n', ns, 'get', kinds, '-o', 'name'])).split('\n').filter(Boolean);

/** What each command of the section must show, in order; the key is a part of the command. */
const expectations: [string, (run: Run) => void | Promise<void>][] = [
  [
    'apply -f',
    (r) => expect(r.stdout).toMatch(/deployment\.apps\/nginx-deployment (created|configured)/),
  ],
  ['rollout status', (r) => expect(r.stdout).toContain('successfully rolled out')],
  [
    'get deployments,replicasets,pods',
    (r) => {
      expect(r.stdout).toMatch(/deployment\.apps\/nginx-deployment\s+3\/3/);
      expect(r.stdout.match(/pod\/nginx-deployment-\S+\s+1\/1\s+Running/g)).toHaveLength(3);
    },
  ],
  [
    '/readyz?verbose',
    (r) => {
      expect(r.stdout).toContain('[+]leaderElection ok');
      expect(r.stdout).toContain('[+]garbage-collector-controller ok');
      expect(r.stdout).toContain('readyz check passed');
    },
  ],
  [
    '/metrics',
    (r) => {
      expect(r.stdout).toMatch(/workqueue_adds_total\{name="replicaset"\} [1-9]/);
      expect(r.stdout).toMatch(/workqueue_adds_total\{name="deployment"\} [1-9]/);
      expect(r.stdout).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
    },
  ],
  [
    '/configz',
    (r) => {
      const configz = JSON.parse(r.stdout) as Record<string, { Generic: { Port: number } }>;
      expect(configz['kubecontrollermanager.config.k8s.io']?.Generic.Port).toBe(securePort);
    },
  ],
  [
    '/debug/controllers/garbage-collector-controller/graph',
    (r) => {
      expect(r.stdout).toMatch(/^strict digraph full \{/);
      expect(r.stdout).toContain('name="nginx-deployment"');
      expect(r.stdout).toContain('kind="ReplicaSet"');
      expect(r.stdout).toMatch(/\d+ -> \d+;/);
    },
  ],
  [
    '--cascade=background',
    async (r) => {
      expect(r.stdout).toContain('deployment.apps "nginx-deployment" deleted');
      // The collector follows: the ReplicaSet and its pods go.
      await eventually(
        'the dependents to be collected',
        async () => (await names('rs,pods')).length === 0,
      );
    },
  ],
  ['get replicasets,pods', (r) => expect(r.code).toBe(0)],
  ['apply -f', (r) => expect(r.stdout).toContain('deployment.apps/nginx-deployment created')],
  ['rollout status', (r) => expect(r.stdout).toContain('successfully rolled out')],
  ['--cascade=foreground', (r) => expect(r.stdout).toContain('deleted')],
  [
    'get deployments,replicasets,pods',
    // kubectl waited for the Deployment, which went after its ReplicaSet and pods.
    (r) => expect(r.stderr).toContain('No resources found in default namespace.'),
  ],
  ['apply -f', (r) => expect(r.stdout).toContain('deployment.apps/nginx-deployment created')],
  ['rollout status', (r) => expect(r.stdout).toContain('successfully rolled out')],
  ['--cascade=orphan', (r) => expect(r.stdout).toContain('deleted')],
  [
    'custom-columns',
    (r) => {
      const rows = r.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.trim().split(/\s+/));
      const rs = rows.filter((row) => row[0] === 'ReplicaSet');
      expect(rs).toHaveLength(1);
      expect(rs[0]![2]).toBe('<none>');
      const pods = rows.filter((row) => row[0] === 'Pod');
      expect(pods).toHaveLength(3);
      for (const pod of pods) expect(pod[2]).toBe(rs[0]![1]);
    },
  ],
  [
    'delete replicasets -l app=nginx',
    async (r) => {
      expect(r.stdout).toMatch(/replicaset\.apps "nginx-deployment-\w+" deleted/);
      await eventually(
        'the orphaned pods to go with their ReplicaSet',
        async () => (await names('pods')).length === 0,
      );
    },
  ],
  ['shop-namespace.yaml', (r) => expect(r.stdout).toContain('namespace/shop created')],
  ['-n shop apply', (r) => expect(r.stdout).toContain('deployment.apps/nginx-deployment created')],
  ['-n shop rollout status', (r) => expect(r.stdout).toContain('successfully rolled out')],
  ['delete namespace shop', (r) => expect(r.stdout).toContain('namespace "shop" deleted')],
  [
    'get namespace shop',
    (r) => {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('namespaces "shop" not found');
    },
  ],
  [
    'get lease kube-controller-manager',
    (r) => expect(r.stdout).toMatch(/kube-controller-manager\s+\S+_[0-9a-f-]{36}/),
  ],
];

describe('the chapter 7 experiment with kubectl against kcm-ts up', { timeout: 180_000 }, () => {
  it('npm start runs kcm-ts up, and the chapter applies chapter 6’s Deployment', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe(
      'tsx --conditions=@kcm-ts/source packages/manager/src/cli/main.ts up',
    );
    expect(commands.filter((c) => c.startsWith('npm '))).toEqual([
      'npm start',
      'npm start -- --logging-format=json -v=2',
    ]);
    const file = path.join(root, 'tutorials/06-deployment/examples/nginx-deployment.yaml');
    const read = JSON.parse(
      await k.ok(['create', '--dry-run=client', '-o', 'json', '-f', file]),
    ) as Deployment;
    delete read.metadata?.namespace; // kubectl fills in the namespace it would use
    expect(read).toEqual(nginxDeployment());
  });

  it('runs every kubectl command of the experiment as written', async () => {
    const kubectl = commands.filter((c) => c.startsWith('kubectl '));
    expect(kubectl).toHaveLength(expectations.length);
    // Each kubectl line's place in the section, which selects its expectation.
    const first = blocks.map((_, b) =>
      blocks
        .slice(0, b)
        .reduce((n, lines) => n + lines.filter((l) => l.startsWith('kubectl ')).length, 0),
    );
    const runBlock = async (b: number) => {
      const lines = blocks[b]!.filter((c) => c.startsWith('kubectl '));
      for (const [j, line] of lines.entries()) {
        const i = first[b]! + j;
        const [part, check] = expectations[i]!;
        expect(line, `command ${i + 1}`).toContain(part);
        const run = await runAsWritten(line);
        try {
          await check(run);
        } catch (err) {
          throw new Error(`${line}\n${run.stdout}${run.stderr}\n${String(err)}`);
        }
      }
    };
    // The namespace block touches only the namespace shop: it runs beside
    // the blocks before it, which work in default, to keep the test short.
    const ns = blocks.findIndex((b) => b.some((l) => l.includes('namespace shop')));
    await Promise.all([
      runBlock(ns),
      (async () => {
        for (let b = 0; b < ns; b++) await runBlock(b);
      })(),
    ]);
    for (let b = ns + 1; b < blocks.length; b++) await runBlock(b);
  });

  it('logs in JSON at -v=2, and stops on SIGTERM with exit 0', async () => {
    const lines = stderr.split('\n').filter(Boolean);
    const entries = lines.map((l) => JSON.parse(l) as { msg: string; v?: number });
    expect(entries[0]).toMatchObject({ msg: 'Starting', v: 0 });
    expect(entries.some((e) => e.v === 2)).toBe(true);
    expect(entries.some((e) => (e.v ?? 0) > 2)).toBe(false);
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
