// Running kubectl v1.32 against a sandbox from the end-to-end tests: its own
// HOME and cache directory, so nothing outside the test's temp dir is touched.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** What one kubectl run returned. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface KubectlRunner {
  /** Runs kubectl with `args`, feeding `input` to its stdin. */
  kubectl: (args: string[], opts?: { input?: string }) => Promise<Run>;
  /** Runs kubectl and returns its stdout, or throws with its output if it failed. */
  ok: (args: string[], opts?: { input?: string }) => Promise<string>;
}

export function kubectlRunner(kubeconfig: string, dir: string): KubectlRunner {
  const kubectl = (args: string[], opts: { input?: string } = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'cache'), ...args],
        {
          env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      // kubectl may exit before reading its stdin: its exit code says what happened.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.input ?? '');
    });
  const ok = async (args: string[], opts: { input?: string } = {}): Promise<string> => {
    const run = await kubectl(args, opts);
    if (run.code !== 0) {
      throw new Error(
        `kubectl ${args.join(' ')} exited ${String(run.code)}:\n${run.stderr}${run.stdout}`,
      );
    }
    return run.stdout;
  };
  return { kubectl, ok };
}

/** The table kubectl printed, as rows of cells split on runs of spaces. */
export const table = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
