// The `kcm-ts-sandbox` command (the repo's `npm start`) as a user runs it:
// it starts, writes a kubeconfig kubectl can use, rejects bad flags with a
// clear message, and stops cleanly on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
// tsx by file URL: the command runs in a scratch directory with no node_modules.
const tsx = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const nodeArgs = ['--import', tsx, '--conditions=@kcm-ts/source', cli];

let dir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-cli-'));
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

function start(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: dir });
  children.push(child);
  return child;
}

/** Resolves with everything printed once `text` shows up on stdout. */
function waitFor(child: ChildProcessWithoutNullStreams, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(text)) resolve(out);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      if (!out.includes(text))
        reject(new Error(`exited ${String(code)} before "${text}":\n${out}${err}`));
    });
  });
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.on('exit', (code) => resolve(code)));

describe('kcm-ts-sandbox', () => {
  it('serves kubectl with the kubeconfig it writes, and stops on SIGTERM', async () => {
    const child = start(['--port', '0', '--kubeconfig-out', 'kc/config']);
    const out = await waitFor(child, 'ready');
    expect(out).toMatch(
      /^kcm-ts sandbox ready at https:\/\/127\.0\.0\.1:\d+: kubectl --kubeconfig kc\/config get namespaces\n$/,
    );
    const kubeconfig = path.join(dir, 'kc', 'config');
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);

    const kubectl = spawnSync(
      'kubectl',
      ['--kubeconfig', kubeconfig, 'get', 'namespaces', '-o', 'name'],
      {
        encoding: 'utf8',
        env: { ...process.env, HOME: dir },
      },
    );
    expect(kubectl.stderr).toBe('');
    expect(kubectl.stdout.trim().split('\n')).toEqual([
      'namespace/default',
      'namespace/kube-node-lease',
      'namespace/kube-public',
      'namespace/kube-system',
    ]);
    // One simulated node by default.
    const nodes = spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'name'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: dir },
    });
    expect(nodes.stdout).toBe('node/node-1\n');

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it.each([
    [['--port', 'http'], '--port must be an integer from 0 to 65535, got "http"'],
    [['--history-window', '0'], '--history-window must be an integer from 1 to 10000000, got "0"'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--nodes', 'two'], '--nodes must be an integer from 0 to 100, got "two"'],
  ])('rejects %j with a clear message and exit code 2', async (args, message) => {
    const child = start(args);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain(`kcm-ts-sandbox: ${message}`);
    expect(err).toContain('Usage: kcm-ts-sandbox');
  });
});
