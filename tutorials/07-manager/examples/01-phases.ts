// Chapter 7, first experiment: one start of kube-controller-manager's
// `run()`, traced through its own log. The manager serves its endpoints,
// takes the Lease, waits for an API server that is not healthy yet, starts
// the controllers one by one with a jittered pause, and only then starts the
// shared informers; the example adds a marker line for the two moments the
// log does not show (InformersStarted, and every cache synced).
// Run: npm run phases -w tutorials/07-manager
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { informerResources } from '@kcm-ts/informer';
import { implementedControllers, newLogger, type InitFunc } from '@kcm-ts/manager';
import { startCluster, startManager } from './cluster.js';

/** What the trace found, for its test. */
export interface Phases {
  /** Every log line, in klog's text format, as written. */
  lines: string[];
  /** The controllers `run()` reported started, in order. */
  started: readonly string[];
  /** The Lease while the manager ran, and after it stopped. */
  leaseHolder: { running: string; stopped: string };
}

/** Runs one start and stop of the manager, printing its log. */
export async function run(log: (line: string) => void = console.log): Promise<Phases> {
  const c = await startCluster();
  const start = c.clock.now();
  const lines: string[] = [];
  const mark = (what: string) => lines.push(`--- ${what} ---`);

  //#region logger
  // klog's text format, on the fake clock. The caller's file:line is left
  // out (klog prints ???:1 then), so that the transcript does not change
  // whenever a line of the manager moves; a real run prints where each line
  // was logged, such as controller-manager.ts:134.
  const logger = newLogger({
    format: 'text',
    verbosity: 1,
    write: (line) => lines.push(line.trimEnd()),
    now: () => c.clock.now(),
    pid: 4242,
    caller: false,
  });
  //#endregion logger

  // The package's own init functions, each wrapped to mark when the shared
  // informers it asked for are started.
  const controllers: Record<string, InitFunc> = {};
  let informersStarted = false;
  for (const [name, init] of Object.entries(implementedControllers)) {
    controllers[name] = (ctx, controllerName, signal) => {
      void ctx.informersStarted.then(() => {
        if (informersStarted) return;
        informersStarted = true;
        mark('the shared informers are started; InformersStarted resolves');
      });
      return init(ctx, controllerName, signal);
    };
  }

  //#region start
  const manager = startManager(c, {
    identity: 'manager-1',
    version: '0.1.0',
    logger,
    controllers,
    configure: (config) => {
      config.generic.leaderElection.leaderElect = true; // the default of the real binary
      config.secureServing.securePort = 'random'; // HTTPS on a free port
      config.generic.controllerStartInterval = 500; // --controller-start-interval=500ms
    },
    // The API server answers /healthz with an error for its first two seconds.
    healthz: () =>
      c.clock.now() - start < 2000
        ? Promise.reject(new Error('[-]etcd failed: reason withheld'))
        : Promise.resolve(),
    onInformersSynced: () => mark('every informer of the shared factory has synced'),
  });
  //#endregion start

  try {
    await c.until(() => manager.started() !== undefined);
    await c.step(1000);
    const leases = c.client<Lease>(informerResources.leases, 'kube-system');
    const running = (await leases.get('kube-controller-manager')).spec?.holderIdentity ?? '';
    const trace = [...lines];
    await manager.stop();
    const stopped = (await leases.get('kube-controller-manager')).spec?.holderIdentity ?? '';

    for (const line of fold(trace)) log(line.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>'));
    return { lines: trace, started: manager.started() ?? [], leaseHolder: { running, stopped } };
  } finally {
    await c.stop();
  }
}

/** Shows a run of lines with the same message once, with how many more there were. */
export function fold(lines: readonly string[]): string[] {
  const out: string[] = [];
  const message = (line: string) => /\] (".*?")/.exec(line)?.[1];
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (j < lines.length && message(lines[j]!) && message(lines[j]!) === message(lines[i]!)) j++;
    out.push(lines[i]!);
    if (j - i > 2) out.push(`    ... and ${j - i - 1} more ${message(lines[i]!)}`);
    else if (j - i === 2) out.push(lines[i + 1]!);
    i = j;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
