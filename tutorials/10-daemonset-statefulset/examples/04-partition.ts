// Chapter 10, fourth experiment: a partitioned rolling update of `web`.
// With `partition: 2` a new image reaches only the pods whose ordinal is at
// least 2: web-2 is deleted and comes back at the update revision, web-0
// and web-1 stay at the current one, and a deleted web-0 comes back at the
// current revision too. Lowering the partition to 0 finishes the update
// from the top down, one pod at a time, and the update revision becomes the
// current one.
// Run: npm run partition -w tutorials/10-daemonset-statefulset
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isLive, isReady, startCluster, type Cluster } from './cluster.js';
import { web } from './manifests.js';
import { lines } from './trace.js';

/** One look at the set: its status and each pod's revision and image. */
export interface Snapshot {
  what: string;
  status: StatefulSet['status'];
  pods: { name: string; revision: string; image: string }[];
}

/** What the experiment found, for its test. */
export interface PartitionRun {
  snapshots: Snapshot[];
  /** Pod names in the order their deletion started. */
  deleted: string[];
  events: string[];
}

/** Waits until the set's pods are all ready and its status has caught up with them. */
async function settled(c: Cluster, done: (s: StatefulSet['status']) => boolean): Promise<void> {
  await c.until(async () => {
    const set = await c.statefulSets.get('web');
    const pods = (await c.pods.list()).items;
    return (
      set.status?.observedGeneration === set.metadata?.generation &&
      set.status?.readyReplicas === 3 &&
      pods.length === 3 &&
      pods.every((p) => isLive(p) && isReady(p)) &&
      done(set.status)
    );
  });
  await c.step(1000);
}

async function look(c: Cluster, what: string, log: (line: string) => void): Promise<Snapshot> {
  const set = await c.statefulSets.get('web');
  const s = set.status!;
  log(
    `${what}: currentRevision ${s.currentRevision}, updateRevision ${s.updateRevision}, currentReplicas ${s.currentReplicas ?? 0}, updatedReplicas ${s.updatedReplicas ?? 0}`,
  );
  const pods = (await c.pods.list()).items
    .sort((a: Pod, b: Pod) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1))
    .map((p) => ({
      name: p.metadata?.name ?? '',
      revision: p.metadata?.labels?.['controller-revision-hash'] ?? '',
      image: p.spec?.containers[0]?.image ?? '',
    }));
  for (const p of pods) log(`  ${p.name}  ${p.revision}  ${p.image}`);
  return { what, status: s, pods };
}

/** Rolls a new image out to web-2 only, then to all. */
export async function run(log: (line: string) => void = console.log): Promise<PartitionRun> {
  const c = await startCluster({ controllers: ['statefulset'] });
  try {
    const snapshots: Snapshot[] = [];
    const set = web();
    set.spec!.volumeClaimTemplates = [];
    set.spec!.template.spec!.containers[0]!.volumeMounts = [];
    //#region partition
    set.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };
    //#endregion partition
    await c.statefulSets.create(set);
    await settled(c, () => true);
    await c.startTimer();
    snapshots.push(await look(c, 'web with partition 2', log));
    log('');

    //#region set-image
    log('kubectl set image sts/web nginx=registry.k8s.io/nginx-slim:0.27');
    await c.statefulSets.patch('web', {
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: { containers: [{ name: 'nginx', image: 'registry.k8s.io/nginx-slim:0.27' }] },
          },
        },
      },
    });
    await settled(c, (s) => s?.updatedReplicas === 1);
    //#endregion set-image
    for (const l of lines(c)) log(l);
    snapshots.push(await look(c, 'after the update', log));
    log('');

    log('kubectl delete pod web-0: below the partition, it comes back at the current revision');
    let mark = c.changes.length;
    const uid = (await c.pods.get('web-0')).metadata?.uid;
    await c.pods.delete('web-0');
    await c.until(async () =>
      (await c.pods.list()).items.some(
        (p) => p.metadata?.name === 'web-0' && p.metadata.uid !== uid,
      ),
    );
    await settled(c, (s) => s?.updatedReplicas === 1);
    for (const l of lines(c, mark)) log(l);
    snapshots.push(await look(c, 'after deleting web-0', log));
    log('');

    //#region finish
    log('kubectl patch sts web: partition 0');
    mark = c.changes.length;
    await c.statefulSets.patch('web', {
      type: 'merge',
      body: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
    });
    await settled(c, (s) => s?.currentRevision === s?.updateRevision && s?.updatedReplicas === 3);
    //#endregion finish
    for (const l of lines(c, mark)) log(l);
    snapshots.push(await look(c, 'after partition 0', log));
    log('');
    log('events:');
    for (const e of c.events) log(e);
    const deleted = c.changes
      .filter(
        (ch) =>
          ch.kind === 'Pod' &&
          ch.object.metadata?.deletionTimestamp &&
          !ch.prev?.metadata?.deletionTimestamp,
      )
      .map((ch) => ch.object.metadata?.name ?? '');
    return { snapshots, deleted, events: [...c.events] };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
