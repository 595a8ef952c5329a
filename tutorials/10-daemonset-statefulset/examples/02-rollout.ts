// Chapter 10, second experiment: a DaemonSet's rolling update and its undo.
// fluent-bit runs on all three nodes (it tolerates the control plane) with
// `maxUnavailable: 2`; a new image rolls out two nodes at a time, each old
// pod deleted before its replacement is created. Every template the
// DaemonSet has had is a ControllerRevision; `kubectl rollout undo` applies
// the previous one's data to the DaemonSet, and the controller renumbers
// that revision instead of making a new one.
// Run: npm run rollout -w tutorials/10-daemonset-statefulset
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import { isLive, isReady, startCluster, type Cluster } from './cluster.js';
import { podLives, type PodLife } from './lives.js';
import { fluentBit } from './manifests.js';
import { lines } from './trace.js';
import { rolledOut } from './01-daemonset.js';

/** What the experiment found, for its test and the timeline. */
export interface RolloutRun {
  pods: PodLife[];
  /** The revisions (name, number, image) after the rollout, then after the undo. */
  revisions: [string, number, string][];
  undone: [string, number, string][];
  /** The most pods not ready at once during the rollout. */
  mostUnavailable: number;
  /** When the image was changed and when the undo was applied (ms). */
  marks: { t: number; text: string }[];
  end: number;
  events: string[];
}

/** The DaemonSet's revisions, oldest first: name, revision number, image. */
async function history(c: Cluster): Promise<[string, number, string][]> {
  return (await c.revisions.list()).items
    .sort((a, b) => a.revision - b.revision)
    .map((r) => [r.metadata?.name ?? '', r.revision, imageOf(r)]);
}

/** The image of the template a revision holds: its data is a DaemonSet patch. */
function imageOf(r: ControllerRevision): string {
  const data: DaemonSet = r.data ?? {};
  return data.spec?.template.spec?.containers[0]?.image ?? '';
}

//#region undo
/**
 * What `kubectl rollout undo daemonset/<name>` does: find the revision
 * before the newest, and apply its data (a strategic merge patch that
 * replaces the pod template) to the DaemonSet.
 */
export async function rolloutUndo(c: Cluster, name: string): Promise<ControllerRevision> {
  const ds = await c.daemonSets.get(name);
  const owned = (await c.revisions.list()).items
    .filter((r) => r.metadata?.ownerReferences?.some((o) => o.uid === ds.metadata?.uid))
    .sort((a, b) => a.revision - b.revision);
  const previous = owned.at(-2)!;
  await c.daemonSets.patch(name, { type: 'strategic', body: previous.data! });
  return previous;
}
//#endregion undo

/** Rolls a new image out to three nodes, two at a time, then undoes it. */
export async function run(log: (line: string) => void = console.log): Promise<RolloutRun> {
  const c = await startCluster({ controllers: ['daemonset'] });
  try {
    await c.startTimer();
    const marks: RolloutRun['marks'] = [];
    //#region max-unavailable
    const ds = fluentBit();
    ds.spec!.template.spec!.tolerations = [
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
    ];
    ds.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } };
    await c.daemonSets.create(ds);
    //#endregion max-unavailable
    log('kubectl create: fluent-bit on all three nodes, maxUnavailable 2');
    await rolledOut(c, 'fluent-bit', 3);
    await c.step(2000);
    for (const l of lines(c)) log(l);
    log('');

    //#region set-image
    log('kubectl set image ds/fluent-bit fluent-bit=fluent/fluent-bit:3.2');
    let mark = c.changes.length;
    marks.push({ t: c.now(), text: 'set image 3.2' });
    await c.daemonSets.patch('fluent-bit', {
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: { containers: [{ name: 'fluent-bit', image: 'fluent/fluent-bit:3.2' }] },
          },
        },
      },
    });
    let mostUnavailable = 0;
    await c.until(async () => {
      const live = (await c.pods.list()).items.filter(isLive);
      mostUnavailable = Math.max(mostUnavailable, 3 - live.filter(isReady).length);
      const cur = await c.daemonSets.get('fluent-bit');
      return (
        cur.status?.observedGeneration === cur.metadata?.generation &&
        cur.status?.updatedNumberScheduled === 3 &&
        cur.status.numberAvailable === 3
      );
    });
    //#endregion set-image
    await c.step(2000);
    for (const l of lines(c, mark)) log(l);
    log('');
    const revisions = await history(c);
    log('kubectl rollout history ds/fluent-bit (the ControllerRevisions):');
    for (const [name, n, image] of revisions) log(`  ${n}  ${name}  ${image}`);
    log('');

    log('kubectl rollout undo ds/fluent-bit');
    mark = c.changes.length;
    marks.push({ t: c.now(), text: 'rollout undo' });
    const previous = await rolloutUndo(c, 'fluent-bit');
    const data = previous.data as { spec: { template: Record<string, unknown> } };
    log(
      `  applies revision ${previous.revision}'s data to the DaemonSet: {"spec":{"template":{${Object.keys(
        data.spec.template,
      )
        .map((k) => JSON.stringify(k))
        .join(
          ',',
        )}}}}, "$patch": ${JSON.stringify(data.spec.template.$patch)}, image ${imageOf(previous)}`,
    );
    await rolledOut(c, 'fluent-bit', 3);
    await c.until(async () =>
      (await c.pods.list()).items.every(
        (p) => p.spec?.containers[0]?.image === 'fluent/fluent-bit:3.1',
      ),
    );
    await c.step(2000);
    for (const l of lines(c, mark)) log(l);
    log('');
    const undone = await history(c);
    log('kubectl rollout history ds/fluent-bit:');
    for (const [name, n, image] of undone) log(`  ${n}  ${name}  ${image}`);
    log('');
    log('events:');
    for (const e of c.events) log(e);
    return {
      pods: podLives(c),
      revisions,
      undone,
      mostUnavailable,
      marks,
      end: c.now(),
      events: [...c.events],
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
