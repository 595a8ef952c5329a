// Chapter 10, first experiment: a DaemonSet on a cluster of three nodes.
// node-1 is the control plane and carries kind's NoSchedule taint, so the
// DaemonSet gets two pods, one on each worker; a toleration for the taint
// in its template gives it the third. The transcript shows each pod from
// its creation (already pinned to its node by required node affinity) to
// its scheduling and readiness, what the controller added to the pod, and
// the events.
// Run: npm run daemonset -w tutorials/10-daemonset-statefulset
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isLive, isReady, nodeOf, startCluster, type Cluster } from './cluster.js';
import { fluentBit } from './manifests.js';
import { lines } from './trace.js';

/** What the experiment found, for its test. */
export interface DaemonSetRun {
  /** The nodes of the pods after the DaemonSet was created, then after the toleration. */
  before: string[];
  after: string[];
  /** One of the first pods, as the controller created it. */
  pod: Pod;
  status: DaemonSet['status'];
  events: string[];
}

/** Waits until every pod the DaemonSet wants is updated and available. */
export async function rolledOut(c: Cluster, name: string, want: number): Promise<void> {
  await c.until(async () => {
    const ds = await c.daemonSets.get(name);
    const pods = (await c.pods.list()).items.filter(isLive);
    return (
      ds.status?.observedGeneration === ds.metadata?.generation &&
      ds.status?.desiredNumberScheduled === want &&
      ds.status.updatedNumberScheduled === want &&
      ds.status.numberAvailable === want &&
      pods.length === want &&
      pods.every(isReady)
    );
  });
}

const placement = async (c: Cluster): Promise<string[]> =>
  (await c.pods.list()).items.filter(isLive).map(nodeOf).sort();

const statusLine = (ds: DaemonSet): string => {
  const s = ds.status;
  return `desired ${s?.desiredNumberScheduled}, current ${s?.currentNumberScheduled}, ready ${s?.numberReady}, up-to-date ${s?.updatedNumberScheduled}, available ${s?.numberAvailable}`;
};

/** Runs the DaemonSet on 3 nodes, then with a toleration for the control plane. */
export async function run(log: (line: string) => void = console.log): Promise<DaemonSetRun> {
  const c = await startCluster({ controllers: ['daemonset'] });
  try {
    await c.startTimer();
    log('kubectl get nodes: three nodes, one of them the control plane');
    for (const n of (await c.nodes.list()).items) {
      const taints = (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).join(', ');
      log(`  ${n.metadata?.name}  taints: ${taints || '<none>'}`);
    }
    log('');

    //#region create
    log('kubectl create -f daemonset.yaml');
    await c.daemonSets.create(fluentBit());
    await rolledOut(c, 'fluent-bit', 2);
    //#endregion create
    for (const l of lines(c)) log(l);
    const before = await placement(c);
    log(`pods on: ${before.join(', ')}; ${statusLine(await c.daemonSets.get('fluent-bit'))}`);
    log('');

    const pod = (await c.pods.list()).items.find((p) => nodeOf(p) === 'node-2')!;
    const created = c.changes.find(
      (ch) =>
        ch.kind === 'Pod' && ch.type === 'ADDED' && ch.object.metadata?.name === pod.metadata?.name,
    )!.object as Pod;
    log(`what the controller wrote into ${c.mask(pod.metadata?.name)} (for node-2):`);
    const terms =
      created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
        ?.nodeSelectorTerms ?? [];
    log(`  nodeName: ${created.spec?.nodeName ?? '<unset: the scheduler binds it>'}`);
    log(`  required node affinity: ${JSON.stringify(terms)}`);
    log('  tolerations:');
    for (const t of created.spec?.tolerations ?? []) {
      log(`    ${t.key} ${t.operator} ${t.effect}`);
    }
    log(`  labels: ${JSON.stringify(created.metadata?.labels)}`);
    log('');

    //#region tolerate
    log('kubectl patch ds fluent-bit: tolerate the control plane taint');
    const mark = c.changes.length;
    await c.daemonSets.patch('fluent-bit', {
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: {
              tolerations: [
                {
                  key: 'node-role.kubernetes.io/control-plane',
                  operator: 'Exists',
                  effect: 'NoSchedule',
                },
              ],
            },
          },
        },
      },
    });
    await rolledOut(c, 'fluent-bit', 3);
    //#endregion tolerate
    await c.step(1000);
    for (const l of lines(c, mark)) log(l);
    const after = await placement(c);
    const ds = await c.daemonSets.get('fluent-bit');
    log(`pods on: ${after.join(', ')}; ${statusLine(ds)}`);
    log('');
    log('events:');
    for (const e of c.events) log(e);
    return { before, after, pod: created, status: ds.status, events: [...c.events] };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
