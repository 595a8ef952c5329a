// Chapter 6: the Recreate strategy. The walkthrough's pods, replaced with
// `strategy: Recreate`: every old pod is gone before the first new one is
// created, so old and new never run together, at the price of a gap with no
// pods at all. Every state the API server commits is checked.
// Run: npm run recreate -w tutorials/06-deployment
import { getDeploymentCondition } from '@kcm-ts/deployment';
import { isReady, podImage, rolledOut, setImage, startCluster } from './cluster.js';
import { nginxRecreate } from './manifests.js';

/** What the experiment saw. */
export interface RecreateRun {
  /** Some state held an old and a new pod, neither finished. */
  overlap: boolean;
  /** Some state held no pod at all. */
  gap: boolean;
  /** The Available condition's reasons, in order. */
  available: string[];
  events: string[];
}

/** Runs the experiment, printing each change in the pods. */
export async function run(log: (line: string) => void = console.log): Promise<RecreateRun> {
  const c = await startCluster();
  try {
    await c.deployments.create(nginxRecreate());
    await c.until(() => rolledOut(c, 'nginx-recreate'));
    await c.startTimer();

    //#region watch
    let overlap = false;
    let gap = false;
    let last = '';
    const available: string[] = [];
    const unsubscribe = c.observe((world) => {
      // Pods whose containers may still run: not Succeeded or Failed,
      // terminating ones included.
      const running = [...world.pods.values()].filter(
        (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
      );
      const old = running.filter((p) => podImage(p) === 'nginx:1.14.2');
      const fresh = running.filter((p) => podImage(p) === 'nginx:1.16.1');
      overlap ||= old.length > 0 && fresh.length > 0;
      gap ||= running.length === 0;
      const terminating = old.filter((p) => p.metadata?.deletionTimestamp).length;
      const line =
        `old pods ${old.length} (${terminating} terminating)   ` +
        `new pods ${fresh.length} (${fresh.filter(isReady).length} ready)`;
      if (line !== last) log(`${c.at()}  ${line}`);
      last = line;
      const cond = getDeploymentCondition(
        world.deployments.get('default/nginx-recreate')?.status,
        'Available',
      );
      if (cond?.reason !== undefined && cond.reason !== available.at(-1)) {
        available.push(cond.reason);
        log(`${c.at()}  Available ${cond.status}: ${cond.reason}`);
      }
    });
    await setImage(c, 'nginx-recreate', 'nginx:1.16.1');
    await c.until(() => rolledOut(c, 'nginx-recreate'));
    unsubscribe();
    //#endregion watch

    log('');
    for (const e of c.events) log(e);
    return { overlap, gap, available, events: [...c.events] };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
