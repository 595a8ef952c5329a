// One `kcm-ts up --nodes N` process from source for an end-to-end test file,
// driven by the real kubectl: started on free ports (`--port 0` picks the
// secure port too), ephemeral, in a scratch directory, and killed with it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlRunner, type KubectlRunner } from '../../sandbox/test/kubectl-helpers.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** A running cluster: its scratch directory, kubectl against it, and how to stop it. */
export interface UpCluster {
  readonly dir: string;
  readonly k: KubectlRunner;
  /** `kubectl ... -o json`, parsed. */
  json(args: string[]): Promise<Json>;
  /** What the process wrote to stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `kcm-ts up` with `nodes` simulated nodes and waits for "kcm-ts ready". */
export async function startUpCluster(prefix: string, nodes = 3): Promise<UpCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), `kcm-ts-${prefix}-`));
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@kcm-ts/source',
      cli,
      'up',
      '--port=0',
      `--nodes=${nodes}`,
      '--ephemeral',
      '--kubeconfig-out=kc/config',
    ],
    { cwd: dir },
  );
  let output = '';
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kcm-ts ready')) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`exited ${String(code)}:\n${out}${output}`)));
  });
  const k = kubectlRunner(path.join(dir, 'kc', 'config'), dir);
  return {
    dir,
    k,
    json: async (args) => JSON.parse(await k.ok([...args, '-o', 'json'])) as Json,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every `every` ms until it holds; fails after `ms`. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  ms = 90_000,
  every = 250,
): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
