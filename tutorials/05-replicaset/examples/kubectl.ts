// Running kubectl v1.32 against the chapter's experiment from the tests: its
// own HOME and cache directory, so nothing outside the test's temporary
// directory is touched.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** What one kubectl run printed. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against `kubeconfig`, with `dir` as its home. */
export function kubectlIn(kubeconfig: string, dir: string) {
  const argv = (args: string[]) => [
    '--kubeconfig',
    kubeconfig,
    '--cache-dir',
    path.join(dir, 'cache'),
    ...args,
  ];
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  /** Runs one command; one that has not finished after 90 s is killed and reported, not waited for. */
  const run = (...args: string[]): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn('kubectl', argv(args), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`kubectl ${args.join(' ')} still running after 90 s:\n${stderr}${stdout}`),
        );
      }, 90_000);
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  /** Its stdout; throws with its output if it failed. */
  const ok = async (...args: string[]): Promise<string> => {
    const r = await run(...args);
    if (r.code !== 0)
      throw new Error(`kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  /** A long-running kubectl (such as `get pods -w`): its output so far, and a way to stop it. */
  const watch = (...args: string[]): { output: () => string; stop: () => Promise<void> } => {
    const child: ChildProcess = spawn('kubectl', argv(args), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    return {
      output: () => out,
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
      },
    };
  };
  return { run, ok, watch };
}

/** The rows of a table kubectl printed, as cells split on runs of spaces (the header first). */
export const table = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

/** Calls `check` every 250 ms until it returns a value other than `undefined`; throws after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err instanceof Error ? err : new Error(JSON.stringify(err));
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: not within ${timeoutMs} ms${last ? ` (last error: ${last.message})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
