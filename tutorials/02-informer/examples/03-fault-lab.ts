// Chapter 2, the fault lab: an informer, started before a fault, ends up
// with exactly the server's state after it, and its handler has seen a
// consistent story. Run: npm run start:faults -w tutorials/02-informer
import {
  FakeClock,
  isDeletedFinalStateUnknown,
  type DeletedFinalStateUnknown,
} from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { SharedIndexInformer, type ResourceEventHandler } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

const show = (cm: ConfigMap): string =>
  `${cm.metadata?.name}=${cm.data?.v ?? ''}@${cm.metadata?.resourceVersion}`;

//#region mirror
/**
 * A handler that replays what it is told into a map of its own, and notes
 * anything a consistent story cannot contain: an add of a name it already
 * has, or an update of one it does not.
 */
export class Mirror implements ResourceEventHandler<ConfigMap> {
  readonly state = new Map<string, ConfigMap>();
  readonly problems: string[] = [];
  readonly log: string[] = [];

  onAdd(cm: ConfigMap): void {
    const name = cm.metadata?.name ?? '';
    if (this.state.has(name)) this.problems.push(`add of known ${show(cm)}`);
    this.state.set(name, cm);
    this.log.push(`add ${show(cm)}`);
  }

  onUpdate(_old: ConfigMap, cm: ConfigMap): void {
    const name = cm.metadata?.name ?? '';
    if (!this.state.has(name)) this.problems.push(`update of unknown ${show(cm)}`);
    this.state.set(name, cm);
    this.log.push(`update ${show(cm)}`);
  }

  onDelete(cm: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    const tombstone = isDeletedFinalStateUnknown(cm);
    const name = tombstone ? (cm.key.split('/')[1] ?? cm.key) : (cm.metadata?.name ?? '');
    this.state.delete(name);
    this.log.push(`delete ${name}${tombstone ? ' (tombstone: missed while disconnected)' : ''}`);
  }

  view(): string[] {
    return [...this.state.values()].map(show).sort();
  }
}
//#endregion mirror

/** A sandbox, a namespace in it, and an informer on that namespace's configmaps. */
export interface Lab {
  sandbox: Sandbox;
  namespace: string;
  clock: FakeClock;
  informer: SharedIndexInformer<ConfigMap>;
  mirror: Mirror;
  /** What the server holds, as the mirror shows it. */
  live(): string[];
  /**
   * Lets time pass (backoffs on the informer's clock, I/O in real time) until
   * the informer agrees with the server and is watching again.
   */
  converge(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts an informer on `namespace` of `sandbox`, and waits for it to sync. */
export async function startLab(sandbox: Sandbox, namespace: string): Promise<Lab> {
  const client = createClient(sandbox.kubeconfig);
  const clock = new FakeClock();
  const informer = new SharedIndexInformer<ConfigMap>(client.configMaps.inNamespace(namespace), {
    clock,
    objectDescription: `configmaps in ${namespace}`,
  });
  informer.setWatchErrorHandler(() => {}); // the faults are on purpose
  const mirror = new Mirror();
  informer.addEventHandler(mirror);
  const controller = new AbortController();
  const running = informer.run(controller.signal);
  await informer.whenSynced();
  const server = sandbox.client<ConfigMap>('', 'configmaps').inNamespace(namespace);
  const liveNow = async (): Promise<string[]> => (await server.list()).items.map(show).sort();
  let live: string[] = [];
  return {
    sandbox,
    namespace,
    clock,
    informer,
    mirror,
    live: () => live,
    async converge() {
      for (let i = 0; i < 400; i++) {
        live = await liveNow();
        const cached = informer.getStore().list().map(show).sort();
        const watching = sandbox.faults.openWatches() > 0;
        if (watching && same(cached, live) && same(mirror.view(), live)) return;
        await clock.advance(i % 10 === 9 ? 30_000 : 1000);
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error(`the informer did not converge: ${informer.getStore().listKeys().join(',')}`);
    },
    async stop() {
      controller.abort();
      await running;
    },
  };
}

const same = (a: string[], b: string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The experiment of the chapter: a deletion while the informer is cut off. */
export async function run(log: (line: string) => void = console.log): Promise<void> {
  const sandbox = await startSandbox();
  try {
    const cms = sandbox.client<ConfigMap>('', 'configmaps').inNamespace('default');
    await cms.create({ metadata: { name: 'keep' }, data: { v: '1' } });
    await cms.create({ metadata: { name: 'doomed' }, data: { v: '1' } });
    const lab = await startLab(sandbox, 'default');
    sandbox.faults.resetCounts();

    //#region experiment
    // While the server is down, one configmap changes and one is deleted, and
    // the history is compacted: the informer cannot resume its watch.
    await sandbox.restart(async () => {
      await cms.patch('keep', { type: 'merge', body: { data: { v: '2' } } });
      await cms.delete('doomed');
      sandbox.faults.compact();
    });
    await lab.converge();
    //#endregion experiment

    for (const line of lab.mirror.log) log(`handler: ${line}`);
    log(`server:  ${lab.live().join(', ')}`);
    log(`cache:   ${lab.informer.getStore().list().map(show).sort().join(', ')}`);
    const counts = sandbox.faults.counts();
    log(
      `requests after the restart: ${Object.entries(counts)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}`,
    );
    await lab.stop();
  } finally {
    await sandbox.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
