// stopWhenLauncherExits with real processes: a launcher that dies without
// being reaped (a zombie, as a shell whose npm was killed right after it may
// stay) must count as gone, as one that is reaped does.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const watcher = fileURLToPath(new URL('./launcher/watcher.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  // The chain runs in a process group of its own: end all of it.
  for (const c of children.splice(0)) {
    try {
      process.kill(-(c.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/**
 * sh → `sleep` (it never reaps) → launcher (node) → parent (node) → watcher.
 * The launcher's pid is the first line; the watcher's lines follow.
 */
function chain(): { out: () => string; proc: ChildProcessWithoutNullStreams } {
  const node = JSON.stringify(process.execPath);
  const watch = `${node} --import tsx --conditions=@kcm-ts/source ${JSON.stringify(watcher)}`;
  const parentCode = `require('child_process').spawn('sh', ['-c', ${JSON.stringify(`exec ${watch}`)}], { stdio: 'inherit' }).on('exit', () => process.exit(0)); setInterval(() => {}, 1000);`;
  const launcherCode = `console.log('launcher ' + process.pid); require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(parentCode)}], { stdio: 'inherit' }); setInterval(() => {}, 1000);`;
  const script = `${node} -e ${shellQuote(launcherCode)} & exec sleep 60`;
  const proc = spawn('sh', ['-c', script], { cwd: repoRoot, detached: true });
  children.push(proc);
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { out: () => out, proc };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

async function until(cond: () => boolean, what: string, out: () => string): Promise<void> {
  for (let i = 0; i < 300 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!cond()) throw new Error(`timed out waiting until ${what}; output:\n${out()}`);
}

const stateOf = (pid: number): string =>
  spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();

describe('stopWhenLauncherExits', () => {
  it('sees a launcher that died unreaped as gone', async () => {
    const { out } = chain();
    await until(() => out().includes('watching'), 'the watcher runs', out);
    const launcher = Number(/launcher (\d+)/.exec(out())?.[1]);
    expect(out()).not.toContain('launcher gone');
    process.kill(launcher, 'SIGKILL');
    // Its parent is `sleep`, which never reaps it: a zombie, which still
    // answers signal 0.
    await until(() => stateOf(launcher).startsWith('Z'), 'the launcher is a zombie', out);
    await until(() => out().includes('launcher gone'), 'the watcher sees it gone', out);
  });
});
