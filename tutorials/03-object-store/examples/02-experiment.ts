// Chapter 3's experiment: a pod that needs a ConfigMap nobody has created
// yet. The sandbox's simulated kubelet reports CreateContainerConfigError
// until the ConfigMap appears, then starts the pod.
// Run: npm start -w tutorials/03-object-store
import { readFile } from 'node:fs/promises';
import { createClient } from '@kcm-ts/client';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { parse } from 'yaml';

const manifest = async <T>(file: string): Promise<T> =>
  parse(await readFile(new URL(file, import.meta.url), 'utf8')) as T;

/** The pod's state in one word, as the STATUS column of `kubectl get pods` shows it. */
export function podStatus(pod: Pod): string {
  const c = pod.status?.containerStatuses?.[0];
  const reason = c?.state?.waiting?.reason ?? c?.state?.terminated?.reason;
  const phase = reason ?? pod.status?.phase ?? 'Pending';
  return c?.ready ? `${phase}, ready` : phase;
}

/** Options of {@link run}. */
export interface ExperimentOptions {
  log?: (line: string) => void;
  /** Called while the pod waits for its ConfigMap, before it is created. */
  whileStuck?: (sandbox: Sandbox) => Promise<void>;
}

/** Runs the experiment, printing each change of the pod's status. */
export async function run(opts: ExperimentOptions = {}): Promise<void> {
  const log = opts.log ?? console.log;
  const sandbox = await startSandbox({ nodes: 1, podStartDelay: 500, podReadyDelay: 500 });
  const stop = new AbortController();
  try {
    const client = createClient(sandbox.kubeconfigObject);
    const pods = client.pods.inNamespace('default');

    //#region experiment
    // Watch the pod's status, printing each change.
    let last = '';
    let stuck!: () => void;
    let ready!: () => void;
    const isStuck = new Promise<void>((r) => (stuck = r));
    const isReady = new Promise<void>((r) => (ready = r));
    const events = await pods.watch({ fieldSelector: 'metadata.name=web', signal: stop.signal });
    const watching = (async () => {
      for await (const e of events) {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') continue;
        const now = podStatus(e.object);
        if (now !== last) log(`pod/web: ${now}`);
        last = now;
        if (now === 'CreateContainerConfigError') stuck();
        if (now === 'Running, ready') ready();
      }
    })();

    await pods.create(await manifest<Pod>('./pod.yaml'));
    await isStuck;
    const waiting = (await pods.get('web')).status?.containerStatuses?.[0]?.state?.waiting;
    log(`  the kubelet says: ${waiting?.message}`);
    await opts.whileStuck?.(sandbox);

    log('--- creating configmap/settings ---');
    await client.configMaps
      .inNamespace('default')
      .create(await manifest<ConfigMap>('./settings.yaml'));
    await isReady;
    //#endregion experiment

    stop.abort();
    await watching;
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
