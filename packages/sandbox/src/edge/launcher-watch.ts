// Stopping with the `npm start` that launched us. npm runs a script through
// `sh -c`, and relays SIGTERM to that shell alone (npm's @npmcli/run-script
// signal manager); the shell dies without passing it on, so the command it
// started would keep running, and keep its port. kube-apiserver has no such
// problem (it is its own process); this is the Node equivalent of Linux's
// parent-death signal (prctl PR_SET_PDEATHSIG), done by polling.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The parent of process `pid`, or `undefined` when it cannot be found. */
function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    // No /proc (macOS, the BSDs): ask ps.
  }
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const ppid = Number(out.trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process that has exited but not been reaped (a zombie, "Z" in
  // /proc/<pid>/stat) still answers signal 0; npm, killed right after
  // relaying SIGTERM, may never reap its shell.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

/** Whether /proc can tell a process's parent (Linux): cheap enough to ask on every check. */
const hasProc = ((): boolean => {
  try {
    readFileSync('/proc/self/stat', 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/**
 * When this process was started by an npm script (`npm_lifecycle_event` is
 * set), calls `onGone` once the launcher is gone: our parent (npm's shell,
 * or the tsx runner) or its parent (the shell, or npm) has exited, even
 * if nothing has reaped it yet (a zombie), or, where /proc tells, our
 * parent has been handed to another process. Checks
 * every `intervalMs` (default 500) on an unreferenced timer, so it never
 * keeps the process alive. Returns the function that stops watching.
 *
 * @example
 * ```ts
 * const unwatch = stopWhenLauncherExits(() => void shutDown());
 * ```
 *
 * @category Sandbox
 */
export function stopWhenLauncherExits(
  onGone: () => void,
  opts: { intervalMs?: number; env?: NodeJS.ProcessEnv } = {},
): () => void {
  const env = opts.env ?? process.env;
  if (env.npm_lifecycle_event === undefined) return () => {};
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    const orphaned = process.ppid !== parent;
    const launcherGone =
      grandparent !== undefined &&
      grandparent > 1 &&
      // Gone, or our parent was handed to another (the launcher died,
      // whatever became of its process id).
      (!alive(grandparent) || (hasProc && parentOf(parent) !== grandparent));
    if (orphaned || launcherGone) {
      clearInterval(timer);
      onGone();
    }
  }, opts.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
