// The `kcm-ts-sandbox` command (the repo's `npm start`) as a user runs it:
// it starts, writes a kubeconfig kubectl can use, rejects bad flags with a
// clear message, and stops cleanly on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
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
  // Whatever a failed test left running from its directory (npm's grandchildren).
  for (const pid of pidsMentioning(dir)) process.kill(pid, 'SIGKILL');
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

/** True when something accepts connections on the port. */
const reachable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** The ids of the processes with `text` in their command line. */
function pidsMentioning(text: string): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .filter((line) => line.includes(text) && !/^\s*\d+ ps /.test(line))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((pid) => pid !== process.pid);
}

const processesMentioning = (text: string): boolean => pidsMentioning(text).length > 0;

async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  for (const start = Date.now(); Date.now() - start < ms;) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
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
      /^kcm-ts sandbox ready at https:\/\/127\.0\.0\.1:\d+ \(state in \.kcm-ts\): kubectl --kubeconfig kc\/config get namespaces\n$/,
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

  it('keeps the cluster in .kcm-ts across a restart, and the kubeconfig stays valid', async () => {
    const kubeconfig = path.join(dir, '.kcm-ts', 'kubeconfig');
    const kubectl = (...args: string[]) =>
      spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
        encoding: 'utf8',
        env: { ...process.env, HOME: dir },
        input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  a: "1"\n',
      });
    const first = start(['--port', '0', '--nodes', '0']);
    const out = await waitFor(first, 'ready');
    const port = /127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? '';
    expect(kubectl('apply', '-f', '-').stdout).toBe('configmap/kept created\n');
    const rv = kubectl('get', 'cm', 'kept', '-o', 'jsonpath={.metadata.resourceVersion}').stdout;

    // A second server on the same directory is refused while the first runs.
    const second = start(['--port', '0', '--nodes', '0']);
    let err = '';
    second.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(second)).toBe(1);
    expect(err).toMatch(/the data directory .*\.kcm-ts is in use by process \d+/);

    first.kill('SIGTERM');
    expect(await exited(first)).toBe(0);
    const again = start(['--port', port, '--nodes', '0']);
    await waitFor(again, 'ready');
    const read = kubectl(
      'get',
      'cm',
      'kept',
      '-o',
      'jsonpath={.metadata.resourceVersion} {.data.a}',
    );
    expect(read.stderr).toBe('');
    expect(read.stdout).toBe(`${rv} 1`);
    again.kill('SIGTERM');
    expect(await exited(again)).toBe(0);

    // --ephemeral keeps nothing, and leaves the kept state alone.
    const ephemeral = start(['--port', port, '--nodes', '0', '--ephemeral']);
    expect(await waitFor(ephemeral, 'ready')).toContain('(in memory)');
    expect(kubectl('get', 'cm', 'kept').stderr).toContain('configmaps "kept" not found');
    ephemeral.kill('SIGTERM');
    expect(await exited(ephemeral)).toBe(0);
  });

  it('stops, with its whole process tree, when SIGTERM goes to the npm start alone', async () => {
    // The same shape as the repo's `npm start`: npm, its shell, tsx, node.
    const tsxBin = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const kubeconfig = path.join(dir, 'kc', 'config');
    const script = `${tsxBin} --conditions=@kcm-ts/source ${cli} --port 0 --nodes 0 --kubeconfig-out ${kubeconfig}`;
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'launch', private: true, scripts: { start: script } }),
    );
    const npm = spawn('npm', ['start'], { cwd: dir });
    children.push(npm);
    const out = await waitFor(npm, 'ready');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    expect(await reachable(port)).toBe(true);
    npm.kill('SIGTERM');
    await exited(npm);
    // Nothing started for this directory is left, and the port is free.
    // A bound generous enough for a loaded machine: exiting is what is tested, not how fast.
    await until(
      () => !processesMentioning(dir),
      'every process of the npm start has exited',
      60_000,
    ).catch((err: Error) => {
      // Which ones were left, and their parents, to tell why.
      const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' });
      const left = ps.stdout.split('\n').filter((line) => line.includes(dir));
      throw new Error(`${err.message}; left:\n${left.join('\n')}`);
    });
    expect(await reachable(port)).toBe(false);
  });

  it.each([
    [['--port', 'http'], '--port must be an integer from 0 to 65535, got "http"'],
    [['--history-window', '0'], '--history-window must be an integer from 1 to 10000000, got "0"'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--nodes', 'two'], '--nodes must be an integer from 0 to 100, got "two"'],
    [
      ['--ephemeral', '--data-dir', 'x'],
      '--data-dir and --ephemeral exclude each other: keep the state, or keep nothing',
    ],
  ])('rejects %j with a clear message and exit code 2', async (args, message) => {
    const child = start(args);
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain(`kcm-ts-sandbox: ${message}`);
    expect(err).toContain('Usage: kcm-ts-sandbox');
  });
});
