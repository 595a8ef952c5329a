#!/usr/bin/env node
// `kcm-ts-sandbox`: runs the sandbox API server until Ctrl-C or SIGTERM (also
// when sent to the `npm start` that launched it), writing a kubeconfig that
// kubectl can use (the repo's `npm start`), and keeping the cluster's state
// in a data directory across restarts, as `k3s server --data-dir` does.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { stopWhenLauncherExits } from './edge/launcher-watch.js';
import { startSandbox } from './sandbox.js';
import type { Sandbox } from './sandbox.js';
import type { Logger, LogValues } from '@kcm-ts/apimachinery';

const usage = `Usage: kcm-ts-sandbox [--port N] [--kubeconfig-out FILE] [--data-dir DIR | --ephemeral] [--insecure-http] [--history-window N] [--nodes N]

  --port N              port on 127.0.0.1 (default 6443; 0 picks a free one)
  --kubeconfig-out FILE where to write the admin's kubeconfig (default .kcm-ts/kubeconfig);
                        the controller manager's goes beside it, as controller-manager.conf
  --data-dir DIR        where the cluster's objects, CA and token are kept across restarts (default .kcm-ts)
  --ephemeral           keep nothing: the cluster lives in memory and is gone when it stops
  --insecure-http       serve plain HTTP instead of HTTPS
  --history-window N    changes kept for watch resume before 410 Expired (default 10000)
  --nodes N             simulated nodes that run pods (default 1; 0 leaves pods Pending)
  -h, --help            show this help`;

function fail(message: string): never {
  process.stderr.write(`kcm-ts-sandbox: ${message}\n\n${usage}\n`);
  process.exit(2);
}

function integer(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    fail(`--${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The command line, checked: what to start, and where to write the kubeconfig. */
interface Flags {
  port: number;
  historyWindow: number | undefined;
  nodes: number;
  kubeconfigOut: string;
  dataDir: string | undefined;
  insecureHttp: boolean;
}

/** Parses and checks the command line; undefined for `--help`. Exits 2 on a bad one. */
function parseFlags(): Flags | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'kubeconfig-out': { type: 'string' },
        'data-dir': { type: 'string' },
        ephemeral: { type: 'boolean' },
        'insecure-http': { type: 'boolean' },
        'history-window': { type: 'string' },
        nodes: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) return undefined;
  const port = integer('port', values.port, 0, 65535) ?? 6443;
  const historyWindow = integer('history-window', values['history-window'], 1, 10_000_000);
  const nodes = integer('nodes', values.nodes, 0, 100) ?? 1;
  const kubeconfigOut = path.resolve(
    values['kubeconfig-out'] ?? path.join('.kcm-ts', 'kubeconfig'),
  );
  if (values.ephemeral && values['data-dir'] !== undefined) {
    fail('--data-dir and --ephemeral exclude each other: keep the state, or keep nothing');
  }
  if (values['data-dir'] === '') fail('--data-dir must name a directory');
  const dataDir = values.ephemeral ? undefined : path.resolve(values['data-dir'] ?? '.kcm-ts');
  const insecureHttp = values['insecure-http'] === true;
  return { port, historyWindow, nodes, kubeconfigOut, dataDir, insecureHttp };
}

async function main(): Promise<void> {
  const flags = parseFlags();
  if (flags === undefined) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const { port, historyWindow, nodes, kubeconfigOut, dataDir } = flags;
  const sandbox = await startSandbox({
    port,
    ...(dataDir ? { dataDir } : {}),
    ...(flags.insecureHttp ? { insecureHttp: true } : {}),
    ...(historyWindow !== undefined ? { historyWindow } : {}),
    nodes,
    logger: stderrLogger(),
  }).catch((err: unknown) => startFailed(err, port));
  await sandbox.writeKubeconfig(kubeconfigOut);
  // As kubeadm writes /etc/kubernetes/controller-manager.conf: for
  // `kcm-ts controller-manager --kubeconfig` against this sandbox.
  await sandbox.writeKubeconfig(
    path.join(path.dirname(kubeconfigOut), 'controller-manager.conf'),
    'kube-controller-manager',
  );
  const relative = (file: string): string => path.relative(process.cwd(), file) || file;
  const state = dataDir ? `state in ${relative(dataDir)}` : 'in memory';
  process.stdout.write(
    `kcm-ts sandbox ready at ${sandbox.url} (${state}): kubectl --kubeconfig ${relative(kubeconfigOut)} get namespaces\n`,
  );
  stopOnSignals(sandbox);
}

/** Exits with a clear message when the port or the data directory is taken; rethrows anything else. */
function startFailed(err: unknown, port: number): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    fail(
      `port ${port} on 127.0.0.1 is in use: pick another with --port, or --port 0 for a free one`,
    );
  if (code === 'EBUSY') {
    process.stderr.write(`kcm-ts-sandbox: ${(err as Error).message}\n`);
    process.exit(1);
  }
  throw err;
}

/** How long a stop may take before the process exits regardless. */
const stopGraceMs = 15_000;

/** Stops the sandbox, once, on Ctrl-C, SIGTERM, or when the launcher is gone. */
function stopOnSignals(sandbox: Sandbox): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('kcm-ts sandbox stopping\n');
    // A stop that cannot finish must not keep the process (and its port)
    // alive: after the grace below it exits anyway, saying so.
    setTimeout(() => {
      process.stderr.write(`kcm-ts sandbox: not stopped after ${stopGraceMs / 1000} s; exiting\n`);
      process.exit(1);
    }, stopGraceMs).unref();
    sandbox.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`kcm-ts sandbox: stopping failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // `npm start` relays SIGTERM to its shell only; stop when that launcher is gone.
  stopWhenLauncherExits(stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `kcm-ts-sandbox: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});

/** Errors only, one line each on stderr: what the sandbox reports is rare and worth seeing. */
function stderrLogger(name = '', values: LogValues = {}): Logger {
  const self: Logger = {
    info() {},
    error(err, msg, more = {}) {
      const all = { ...values, ...more, err: err instanceof Error ? err.message : String(err) };
      const pairs = Object.entries(all).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      process.stderr.write(`${name ? `${name}: ` : ''}${msg} ${pairs.join(' ')}\n`);
    },
    v: () => self,
    enabled: () => false,
    withValues: (more) => stderrLogger(name, { ...values, ...more }),
    withName: (n) => stderrLogger(name ? `${name}/${n}` : n, values),
  };
  return self;
}
