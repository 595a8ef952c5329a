// Chapter 10, fifth experiment: the identity guarantee when a node goes
// silent. The kubelet of web-1's node is stopped (the sandbox's fault lab,
// as `systemctl stop kubelet` on a kind node), and web-1 is deleted. No
// kubelet confirms that its containers stopped, so the pod stays
// Terminating, and for as long as it does the controller creates no second
// web-1, however long it waits. A force deletion removes the object without
// that confirmation: the identity is free as far as the API server knows,
// and the controller creates web-1 at once, which is how the guarantee is
// broken from outside. The kubelet's return lets the new pod run.
// Run: npm run identity -w tutorials/10-daemonset-statefulset
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isLive, isReady, startCluster, type Cluster } from './cluster.js';
import { web } from './manifests.js';
import { lines } from './trace.js';

/** What the experiment found, for its test. */
export interface IdentityRun {
  /** The node web-1 ran on, whose kubelet was stopped. */
  node: string;
  /** The web-1 pods (uids) that existed while the graceful deletion waited. */
  waiting: string[][];
  /** When the force deletion was made and when the new web-1 was created (ms). */
  forced: number;
  recreated: number;
  /** The new web-1: node, ready. */
  after: { node: string; ready: boolean };
  events: string[];
}

const web1s = async (c: Cluster): Promise<Pod[]> =>
  (await c.pods.list()).items.filter((p) => p.metadata?.name === 'web-1');

/** Deletes web-1 while its node's kubelet is stopped, gracefully, then by force. */
export async function run(log: (line: string) => void = console.log): Promise<IdentityRun> {
  const c = await startCluster({ controllers: ['statefulset'] });
  try {
    await c.statefulSets.create(web());
    await c.until(async () => (await c.statefulSets.get('web')).status?.readyReplicas === 3);
    await c.step(1000);
    await c.startTimer();
    const [old] = await web1s(c);
    const node = old!.spec!.nodeName!;

    //#region silent-node
    log(`the kubelet of ${node}, where web-1 runs, stops; kubectl delete pod web-1`);
    c.sandbox.faults.stopKubelet(node);
    await c.pods.delete('web-1');
    // Two minutes: four times the pod's grace period of 30 s.
    const waiting: string[][] = [];
    for (let s = 0; s < 120; s += 10) {
      await c.step(10_000);
      waiting.push((await web1s(c)).map((p) => p.metadata?.uid ?? ''));
    }
    //#endregion silent-node
    for (const l of lines(c)) log(l);
    const [stuck] = await web1s(c);
    log(
      `${c.at()}  web-1 is the same pod (${stuck?.metadata?.uid === old?.metadata?.uid}), terminating since ${stuck?.metadata?.deletionTimestamp}; no second web-1 was created`,
    );
    log('');

    //#region force
    log('kubectl delete pod web-1 --force --grace-period=0');
    let mark = c.changes.length;
    const forced = c.now();
    await c.pods.delete('web-1', { gracePeriodSeconds: 0 });
    await c.until(async () => (await web1s(c)).some((p) => p.metadata?.uid !== old?.metadata?.uid));
    //#endregion force
    const recreated = c.now();
    await c.step(5000);
    for (const l of lines(c, mark)) log(l);
    log(
      `${c.at()}  the new web-1 is bound to ${node}, where its volume is, and waits for the kubelet`,
    );
    log('');

    log(`the kubelet of ${node} starts again`);
    mark = c.changes.length;
    await c.sandbox.faults.startKubelet(node);
    await c.until(async () => (await web1s(c)).every((p) => isLive(p) && isReady(p)));
    await c.step(1000);
    for (const l of lines(c, mark)) log(l);
    const [now] = await web1s(c);
    log('');
    log('events:');
    for (const e of c.events) log(e);
    return {
      node,
      waiting,
      forced,
      recreated,
      after: { node: now?.spec?.nodeName ?? '', ready: isReady(now) },
      events: [...c.events],
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
