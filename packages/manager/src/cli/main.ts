#!/usr/bin/env node
// `kcm-ts`: `kcm-ts controller-manager` runs the manager against any
// cluster (kube-controller-manager's command, app/controllermanager.go
// NewControllerManagerCommand), and `kcm-ts up` runs a whole small cluster
// in one process: the sandbox API server, its simulated nodes, and the
// manager talking to it over HTTPS, as kind or k3s would.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createClient, newDiscoveryClient } from '@kcm-ts/client';
import { LeaderElectionLostError } from '@kcm-ts/leader-election';
import { startSandbox, stopWhenLauncherExits, type Sandbox } from '@kcm-ts/sandbox';
import { run } from '../controller-manager.js';
import { clusterCABundle } from '../certificates.js';
import { newManagerMetrics } from '../metrics/prometheus.js';
import { isControllerEnabled, names } from '../controller-descriptors.js';
import { newLogger } from '../logging/logger.js';
import { FlagError, flagUsages, parseFlags, type FlagSpec, type FlagValue } from './flags.js';
import { completeOptions, controllerManagerFlags, type CommandOptions } from './options.js';

const version = '0.1.0';

const upFlags: readonly FlagSpec[] = [
  {
    name: 'port',
    kind: 'int',
    defaultText: '6443',
    valueName: 'int',
    help: 'The API server port on 127.0.0.1; 0 picks a free one.',
  },
  {
    name: 'kubeconfig-out',
    kind: 'string',
    defaultText: '.kcm-ts/kubeconfig',
    valueName: 'string',
    help: 'Where to write the kubeconfig for kubectl and other clients (mode 0600).',
  },
  {
    name: 'data-dir',
    kind: 'string',
    defaultText: '.kcm-ts',
    valueName: 'string',
    help: "Where the cluster's objects, CA and token are kept across restarts, as k3s's --data-dir.",
  },
  {
    name: 'ephemeral',
    kind: 'bool',
    defaultText: '',
    help: 'Keep nothing: the cluster lives in memory and is gone when it stops.',
  },
  { name: 'insecure-http', kind: 'bool', defaultText: '', help: 'Serve the API over plain HTTP.' },
  {
    name: 'history-window',
    kind: 'int',
    defaultText: '10000',
    valueName: 'int',
    help: 'Changes the API server keeps for watches to resume from before answering 410 Expired.',
  },
  {
    name: 'nodes',
    kind: 'int',
    defaultText: '1',
    valueName: 'int',
    help: 'Simulated nodes that run pods; 0 leaves pods Pending.',
  },
  ...controllerManagerFlags.filter((f) => f.name !== 'kubeconfig'),
];

const usage = {
  root: `kcm-ts: Kubernetes' controller machinery in TypeScript.

Usage:
  kcm-ts up [flags]                   run the sandbox API server, simulated nodes and the controller manager
  kcm-ts controller-manager [flags]   run the controller manager against a cluster
  kcm-ts --help

Run "kcm-ts <command> --help" for a command's flags.
`,
  up: () => `Usage: kcm-ts up [flags]

Runs a small cluster in this process: the sandbox API server on 127.0.0.1,
its simulated nodes, and the controller manager with its controllers,
talking to the API server over HTTPS like any client. Takes the flags of
kcm-ts controller-manager, and these for the sandbox.

Flags:
${flagUsages(upFlags)}
`,
  controllerManager: () => `Usage: kcm-ts controller-manager [flags]

Runs kube-controller-manager's control loops that kcm-ts implements
(replicaset, deployment, garbagecollector, namespace) against the cluster of
a kubeconfig, with leader election, and health and metrics endpoints.

Flags:
${flagUsages(controllerManagerFlags)}
`,
};

function fail(command: string, message: string): never {
  process.stderr.write(`Error: ${message}\nRun "kcm-ts ${command} --help" for usage.\n`);
  process.exit(2);
}

/** Aborts on SIGINT, SIGTERM or the end of the npm script that launched us; a second signal exits at once. */
function stopSignal(onStop: () => void): AbortSignal {
  const abort = new AbortController();
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    onStop();
    abort.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // `npm start` relays SIGTERM to its shell alone; stop when the launcher goes.
  stopWhenLauncherExits(stop);
  return abort.signal;
}

function exitFor(err: unknown, command: string): never {
  if (err instanceof LeaderElectionLostError) {
    process.stderr.write(`kcm-ts ${command}: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(
    `kcm-ts ${command}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
}

async function controllerManager(argv: string[]): Promise<void> {
  let options: CommandOptions;
  let help = false;
  try {
    const { values, args } = parseFlags(argv, controllerManagerFlags);
    help = values.get('help') === true;
    if (args.length > 0)
      throw new FlagError(
        `"kcm-ts controller-manager" takes no arguments, got ${JSON.stringify(args)}`,
      );
    options = completeOptions(values);
  } catch (err) {
    if (err instanceof FlagError) fail('controller-manager', err.message);
    throw err;
  }
  if (help) {
    process.stdout.write(usage.controllerManager());
    return;
  }
  const logger = newLogger({ format: options.loggingFormat, verbosity: options.verbosity });
  let client: ReturnType<typeof createClient>;
  try {
    client = createClient(options.kubeconfig);
  } catch (err) {
    // A missing or malformed kubeconfig is the user's to fix: one line, no stack.
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const discovery = newDiscoveryClient(client.kubeconfig);
  const signal = stopSignal(() => logger.info('Shutting down'));
  await run(
    {
      config: options.config,
      apiServer: {
        source: client,
        discovery,
        host: new URL(client.kubeconfig.getCurrentCluster()?.server ?? 'https://unknown').host,
        rootCA: clusterCABundle(client.kubeconfig.getCurrentCluster()),
        healthz: (s) => discovery.healthz(s),
      },
      version,
      logger,
    },
    signal,
  );
}

/**
 * The flags kind gives its kube-controller-manager, where the user gave
 * none: node CIDRs from 10.244.0.0/16 with the Services' range
 * (the sandbox's 10.96.0.0/12) kept out.
 */
function withUpDefaults(values: ReadonlyMap<string, unknown>): Map<string, FlagValue> {
  const out = new Map(values as ReadonlyMap<string, FlagValue>);
  const fallback = (name: string, value: FlagValue) => {
    if (!out.has(name)) out.set(name, value);
  };
  fallback('allocate-node-cidrs', true);
  fallback('cluster-cidr', '10.244.0.0/16');
  fallback('service-cluster-ip-range', '10.96.0.0/12');
  return out;
}

async function up(argv: string[]): Promise<void> {
  let options: CommandOptions;
  let values: Map<string, unknown>;
  try {
    const parsed = parseFlags(argv, upFlags);
    values = parsed.values;
    if (parsed.args.length > 0)
      throw new FlagError(`"kcm-ts up" takes no arguments, got ${JSON.stringify(parsed.args)}`);
    options = completeOptions(withUpDefaults(parsed.values));
    // With --port 0 the manager's secure port is a free one too, so that
    // clusters run side by side.
    if (parsed.values.get('port') === 0 && !parsed.values.has('secure-port'))
      options.config.secureServing.securePort = 'random';
  } catch (err) {
    if (err instanceof FlagError) fail('up', err.message);
    throw err;
  }
  if (values.get('help') === true) {
    process.stdout.write(usage.up());
    return;
  }
  const int = (name: string, min: number, max: number, fallback: number): number => {
    const v = values.get(name) as number | undefined;
    if (v === undefined) return fallback;
    if (v < min || v > max)
      fail('up', `--${name} must be an integer from ${min} to ${max}, got ${v}`);
    return v;
  };
  const port = int('port', 0, 65535, 6443);
  const nodes = int('nodes', 0, 100, 1);
  const historyWindow = values.has('history-window')
    ? int('history-window', 1, 10_000_000, 10_000)
    : undefined;
  const ephemeral = values.get('ephemeral') === true;
  const dataDirFlag = values.get('data-dir') as string | undefined;
  if (ephemeral && dataDirFlag !== undefined)
    fail('up', '--data-dir and --ephemeral exclude each other: keep the state, or keep nothing');
  if (dataDirFlag === '') fail('up', '--data-dir must name a directory');
  const dataDir = ephemeral ? undefined : path.resolve(dataDirFlag ?? '.kcm-ts');
  const kubeconfigOut = path.resolve(
    (values.get('kubeconfig-out') as string | undefined) ?? path.join('.kcm-ts', 'kubeconfig'),
  );
  const config = options.config;
  const logger = newLogger({ format: options.loggingFormat, verbosity: options.verbosity });
  // With a namespace controller running, namespaces finish as on a real
  // cluster: the sandbox leaves them Terminating for the controller.
  const namespaceController = isControllerEnabled(
    names.namespaceController,
    new Set(),
    config.generic.controllers,
  );

  const nodeIpam =
    config.kubeCloudShared.allocateNodeCIDRs &&
    isControllerEnabled(names.nodeIpamController, new Set(), config.generic.controllers);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({
      port,
      nodes,
      ...(dataDir ? { dataDir } : {}),
      ...(values.get('insecure-http') === true ? { insecureHttp: true } : {}),
      ...(historyWindow !== undefined ? { historyWindow } : {}),
      finishNamespaces: !namespaceController,
      // With the node IPAM controller giving nodes their pod CIDRs, the
      // nodes wait for it, as a kind cluster's do.
      podCIDRs: nodeIpam ? 'controller-manager' : 'sandbox',
      logger,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      fail(
        'up',
        `port ${port} on 127.0.0.1 is in use: pick another with --port, or --port 0 for a free one`,
      );
    if ((err as NodeJS.ErrnoException).code === 'EBUSY') {
      process.stderr.write(`kcm-ts up: ${(err as Error).message}\n`);
      process.exit(1);
    }
    throw err;
  }
  await mkdir(path.dirname(kubeconfigOut), { recursive: true });
  await sandbox.writeKubeconfig(kubeconfigOut);
  // The manager is its own user, as kubeadm's controller-manager.conf makes
  // it: priority and fairness then keeps its Lease renewals and its reads
  // apart from what users send.
  const client = createClient(sandbox.componentKubeconfigObject('kube-controller-manager'));
  const discovery = newDiscoveryClient(client.kubeconfig);
  const relative = path.relative(process.cwd(), kubeconfigOut) || kubeconfigOut;
  const state = dataDir
    ? `state in ${path.relative(process.cwd(), dataDir) || dataDir}`
    : 'in memory';
  let metricsUrl = '';
  let started = false;
  const signal = stopSignal(() => process.stdout.write('kcm-ts stopping\n'));
  // One registry for every term of leadership, so the metrics go on.
  const metrics = newManagerMetrics();
  try {
    for (;;) {
      try {
        await run(
          {
            config,
            apiServer: {
              source: client,
              discovery,
              host: new URL(sandbox.url).host,
              rootCA: clusterCABundle(client.kubeconfig.getCurrentCluster()),
              healthz: (s) => discovery.healthz(s),
            },
            version,
            logger,
            metrics,
            onServing: (server) => (metricsUrl = `${server.url}/metrics`),
            onControllersStarted: (names) => {
              if (started) {
                logger.info('Leading again: the controllers run', { controllers: names });
                return;
              }
              started = true;
              process.stdout.write(
                `kcm-ts ready: kubectl --kubeconfig ${relative} get pods` +
                  ` (API server ${sandbox.url}, ${nodes} node${nodes === 1 ? '' : 's'},` +
                  ` ${state},` +
                  ` controllers: ${names.join(', ') || 'none'}` +
                  `${metricsUrl ? `, metrics ${metricsUrl}` : ''})\n`,
              );
            },
          },
          signal,
        );
        return;
      } catch (err) {
        // kube-controller-manager exits when it loses its Lease, and its
        // supervisor starts it again; here the API server and nodes share
        // the process, so only the manager stops, and it campaigns again.
        if (!(err instanceof LeaderElectionLostError) || signal.aborted) throw err;
        logger.error(
          undefined,
          'Lost the leader election: the controllers stopped; the API server keeps serving while the manager campaigns again',
        );
      }
    }
  } finally {
    await sandbox.stop();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'up':
      return up(rest);
    case 'controller-manager':
      return controllerManager(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(usage.root);
      return;
    default:
      process.stderr.write(
        `Error: unknown command ${JSON.stringify(command)} for "kcm-ts"\n\n${usage.root}`,
      );
      process.exit(2);
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => exitFor(err, process.argv[2] ?? ''),
);
