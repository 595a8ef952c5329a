// Chapter 10's experiment: the sandbox API server over HTTPS with three
// simulated nodes (node-1 the control plane, tainted NoSchedule), its
// scheduler and storage, and the DaemonSet and StatefulSet controllers,
// alone, in the same process, talking to it over HTTPS as
// kube-controller-manager talks to kube-apiserver. kubectl does the rest.
// Run: npm start -w tutorials/10-daemonset-statefulset  (then the kubectl commands of the chapter)
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Event } from 'kubernetes-types/core/v1.js';
import { EventSinkImpl, newBroadcaster, type LogValues, type Logger } from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { DaemonSetsController, concurrentDaemonSetSyncs } from '@kcm-ts/daemonset';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, stopWhenLauncherExits, type Sandbox } from '@kcm-ts/sandbox';
import { StatefulSetController, concurrentStatefulSetSyncs } from '@kcm-ts/statefulset';

/** The manifests the chapter creates. */
export const manifests = {
  daemonSet: fileURLToPath(new URL('./daemonset.yaml', import.meta.url)),
  statefulSet: fileURLToPath(new URL('./statefulset.yaml', import.meta.url)),
};

/** Options of {@link startExperiment}. */
export interface ExperimentOptions {
  /** The port on 127.0.0.1; 0 picks a free one. Default 6443. */
  port?: number;
  /** Where to write the kubeconfig. */
  kubeconfigOut: string;
  /** How long a pod takes to start, then to become ready, then to stop, in ms; default 1000 each. */
  podStartDelay?: number;
  podReadyDelay?: number;
  podStopDelay?: number;
  /** Where the controllers' events and errors are printed; default the console. */
  log?: (line: string) => void;
}

/** A running experiment. */
export interface Experiment {
  sandbox: Sandbox;
  /** Stops the controllers, their informers and events, then the sandbox. */
  stop(): Promise<void>;
}

/** Only errors: a sync that failed is worth seeing; the rest is in the events. */
function errorLogger(log: (line: string) => void, synced: () => void = () => {}): Logger {
  const logger: Logger = {
    info: (msg: string) => {
      if (msg.startsWith('Caches are synced')) synced();
    },
    error: (err: unknown, msg: string, values?: LogValues) => {
      const cause =
        err === undefined ? '' : `: ${err instanceof Error ? err.message : JSON.stringify(err)}`;
      log(`error: ${msg} ${JSON.stringify(values ?? {})}${cause}`);
    },
    v: () => logger,
    enabled: () => false,
    withValues: () => logger,
    withName: () => logger,
  };
  return logger;
}

/** Starts the sandbox and the two controllers, and writes the kubeconfig. */
export async function startExperiment(opts: ExperimentOptions): Promise<Experiment> {
  const log = opts.log ?? console.log;
  const sandbox = await startSandbox({
    port: opts.port ?? 6443,
    nodes: 3,
    podStartDelay: opts.podStartDelay ?? 1000,
    podReadyDelay: opts.podReadyDelay ?? 1000,
    podStopDelay: opts.podStopDelay ?? 1000,
  });
  await sandbox.writeKubeconfig(opts.kubeconfigOut);
  const stop = new AbortController();
  // Every request of a sync listens to this signal.
  setMaxListeners(0, stop.signal);
  // Ready means both controllers see the cluster: they have synced their caches.
  let syncedCount = 0;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const oneSynced = (): void => {
    if (++syncedCount === 2) markSynced();
  };

  //#region wiring
  const client = createClient(sandbox.kubeconfigObject);
  const broadcaster = newBroadcaster({ signal: stop.signal });
  broadcaster.startRecordingToSink(new EventSinkImpl(client.events));
  broadcaster.startEventWatcher((e: Event) => {
    const object = `${e.involvedObject.kind?.toLowerCase()}/${e.involvedObject.name}`;
    log(`${e.type} ${e.reason} ${object}: ${e.message}`);
  });

  // startDaemonSetController and startStatefulSetController, on one factory.
  const factory = new SharedInformerFactory(client, 0);
  const daemonSets = new DaemonSetsController({
    daemonSets: factory.daemonSets(),
    controllerRevisions: factory.controllerRevisions(),
    pods: factory.pods(),
    nodes: factory.nodes(),
    client: {
      daemonSets: client.daemonSets,
      controllerRevisions: client.controllerRevisions,
      pods: client.pods,
    },
    recorder: broadcaster.newRecorder({ component: 'daemonset-controller' }),
    logger: errorLogger(log, oneSynced),
  });
  const statefulSets = new StatefulSetController({
    pods: factory.pods(),
    statefulSets: factory.statefulSets(),
    persistentVolumeClaims: factory.persistentVolumeClaims(),
    controllerRevisions: factory.controllerRevisions(),
    client: {
      statefulSets: client.statefulSets,
      pods: client.pods,
      persistentVolumeClaims: client.persistentVolumeClaims,
      controllerRevisions: client.controllerRevisions,
    },
    recorder: broadcaster.newRecorder({ component: 'statefulset-controller' }),
    logger: errorLogger(log, oneSynced),
  });
  factory.start(stop.signal); // after every controller has asked for its informers
  const running = Promise.all([
    daemonSets.run(concurrentDaemonSetSyncs, stop.signal),
    statefulSets.run(concurrentStatefulSetSyncs, stop.signal),
  ]);
  //#endregion wiring
  await synced;

  return {
    sandbox,
    async stop() {
      stop.abort();
      await running;
      await factory.shutdown();
      broadcaster.shutdown();
      await sandbox.stop();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string' }, 'kubeconfig-out': { type: 'string' } },
  });
  // npm runs the script in the chapter's folder; paths are shown from where npm was started.
  const base = process.env.INIT_CWD ?? process.cwd();
  const kubeconfigOut = path.resolve(
    base,
    values['kubeconfig-out'] ?? path.join('.kcm-ts', 'kubeconfig'),
  );
  const port = Number(values.port ?? 6443);
  let experiment: Experiment;
  try {
    experiment = await startExperiment({ port, kubeconfigOut });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    process.stderr.write(
      `port ${port} on 127.0.0.1 is in use (is \`npm start\` running?): pick another with -- --port N\n`,
    );
    process.exit(2);
  }
  const kubectl = `kubectl --kubeconfig ${path.relative(base, kubeconfigOut)}`;
  process.stdout.write(
    `kcm-ts sandbox (3 nodes) with the DaemonSet and StatefulSet controllers ready at ${experiment.sandbox.url}: ${kubectl} create -f ${path.relative(base, manifests.daemonSet)}\n`,
  );
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('stopping\n');
    void experiment.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // npm relays SIGTERM to its shell only: stop when the npm that started us is gone.
  stopWhenLauncherExits(stop);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
