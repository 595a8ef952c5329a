// Chapter 4's experiment: three candidates run as separate processes against
// the sandbox; the leader is killed with SIGKILL, then the next one is stopped
// with SIGTERM, and the time each hand-over takes is measured.
// Run: npm start -w tutorials/04-leader-election
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

/** Lease duration, renew deadline and retry period, in milliseconds. */
export interface Timings {
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
}

/** Short timings, so that the experiment takes seconds. */
export const fastTimings: Timings = {
  leaseDuration: 2_000,
  renewDeadline: 1_500,
  retryPeriod: 500,
};

const electorScript = fileURLToPath(new URL('./elector.ts', import.meta.url));

//#region candidate-process
/** One candidate: a child process running `elector.ts`, and what it printed. */
export class CandidateProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  #waiters: (() => void)[] = [];

  constructor(
    readonly identity: string,
    kubeconfig: string,
    timings: Timings,
    log: (line: string) => void,
  ) {
    const flags = {
      kubeconfig,
      identity,
      'leader-elect-lease-duration': `${timings.leaseDuration}ms`,
      'leader-elect-renew-deadline': `${timings.renewDeadline}ms`,
      'leader-elect-retry-period': `${timings.retryPeriod}ms`,
    };
    this.#child = spawn(
      process.execPath,
      [
        '--conditions=@kcm-ts/source',
        '--import',
        'tsx',
        electorScript,
        ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v]),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      // "<ISO time> <identity>: <what happened>"; keep what happened.
      const said = line.slice(line.indexOf(': ') + 2);
      this.lines.push(said);
      log(`[${identity}] ${said}`);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
  }

  /** Resolves once the process has printed `line`, or rejects after `timeoutMs`. */
  async said(line: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.lines.includes(line)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${this.identity} did not print "${line}" within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  kill(signal: 'SIGKILL' | 'SIGTERM'): void {
    this.#child.kill(signal);
  }
}
//#endregion candidate-process

/** Resolves with the first of `candidates` to print `line`. */
export async function first(
  candidates: CandidateProcess[],
  line: string,
  timeoutMs: number,
): Promise<CandidateProcess> {
  return Promise.any(candidates.map((c) => c.said(line, timeoutMs).then(() => c)));
}

/** What the experiment measured. */
export interface Failovers {
  /** Identities in the order they led. */
  leaders: string[];
  /** Milliseconds from the SIGKILL of the leader to the next leader leading. */
  afterKill: number;
  /** Milliseconds from the SIGTERM of the next leader to the last one leading. */
  afterRelease: number;
}

/** Options of {@link run}. */
export interface ExperimentOptions {
  log?: (line: string) => void;
  timings?: Timings;
  /** Called each time a new leader leads, with the sandbox, for instance to look at the Lease. */
  onLeader?: (identity: string, sandbox: Sandbox, kubeconfig: string) => Promise<void>;
}

/** Runs the experiment and resolves with the failover times it measured. */
export async function run(opts: ExperimentOptions = {}): Promise<Failovers> {
  const log = opts.log ?? console.log;
  const timings = opts.timings ?? fastTimings;
  // Generous: on a busy machine a candidate process can take a minute to
  // start (tsx compiles it first); once running, a few lease periods suffice.
  const startup = 90_000;
  const patience = 20_000 + 3 * (timings.leaseDuration + timings.retryPeriod);
  const sandbox = await startSandbox();
  const dir = await mkdtemp(path.join(tmpdir(), 'kcm-ts-ch4-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const candidates: CandidateProcess[] = [];
  try {
    await sandbox.writeKubeconfig(kubeconfig);

    //#region experiment
    for (const identity of ['replica-1', 'replica-2', 'replica-3']) {
      candidates.push(new CandidateProcess(identity, kubeconfig, timings, log));
    }
    const leader = await first(candidates, 'leading', startup + patience);
    await opts.onLeader?.(leader.identity, sandbox, kubeconfig);

    log(`--- SIGKILL ${leader.identity}: it cannot release its Lease ---`);
    let since = Date.now();
    leader.kill('SIGKILL');
    const rest = candidates.filter((c) => c !== leader);
    const next = await first(rest, 'leading', patience);
    const afterKill = Date.now() - since;
    await opts.onLeader?.(next.identity, sandbox, kubeconfig);

    log(`--- SIGTERM ${next.identity}: it stops and releases its Lease ---`);
    since = Date.now();
    next.kill('SIGTERM');
    const last = await first(
      rest.filter((c) => c !== next),
      'leading',
      patience,
    );
    const afterRelease = Date.now() - since;
    await opts.onLeader?.(last.identity, sandbox, kubeconfig);
    //#endregion experiment

    log(`failover after SIGKILL: ${afterKill} ms (bound: lease duration + retry period × 2.2)`);
    log(`failover after a release: ${afterRelease} ms (bound: retry period × 2.2)`);
    return { leaders: [leader.identity, next.identity, last.identity], afterKill, afterRelease };
  } finally {
    for (const c of candidates) c.kill('SIGTERM');
    await Promise.all(candidates.map((c) => c.exited));
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What `kubectl get lease` prints for the course's Lease. */
export async function kubectlGetLease(kubeconfig: string): Promise<string> {
  const args = ['--kubeconfig', kubeconfig, 'get', 'lease', 'kcm-ts-course', '-n', 'kube-system'];
  const { stdout } = await promisify(execFile)('kubectl', args);
  return stdout;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run({
    // Show the Lease as kubectl sees it each time the leader changes.
    onLeader: async (_identity, _sandbox, kubeconfig) => {
      console.log((await kubectlGetLease(kubeconfig)).trimEnd());
    },
  });
}
