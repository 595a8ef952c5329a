// Chapter 6: a rollout that is stuck, scaled, and rolled back. Ten pods with
// maxSurge 3 and maxUnavailable 2 are updated to an image that never pulls:
// the rollout stops at 8 old and 5 new pods. Scaling to 15 in the middle of
// it spreads the 5 extra pods over both ReplicaSets in proportion to their
// size. Rolling back then frees the budget the broken pods were holding.
// Run: npm run proportional -w tutorials/06-deployment
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { getProportion, getReplicaSetFraction, maxSurge, maxUnavailable } from '@kcm-ts/deployment';
import {
  ownedReplicaSets,
  rolledOut,
  setImage,
  startCluster,
  templateImage,
  type Cluster,
} from './cluster.js';
import { nginxDeployment } from './manifests.js';
import { rolloutUndo } from './rollout-undo.js';

/** What the experiment saw. */
export interface ProportionalRun {
  /** ReplicaSet sizes, old then new, when the rollout got stuck, after the scale, at the end. */
  stuck: number[];
  scaled: number[];
  /** What getProportion predicted for each, in the same order. */
  predicted: number[];
  final: number[];
  events: string[];
}

const sizes = (sets: ReplicaSet[]) => sets.map((rs) => rs.spec?.replicas ?? 0);

/** The old and the new ReplicaSet's sizes, once they have stopped changing for 5 s. */
async function settled(c: Cluster, name: string): Promise<ReplicaSet[]> {
  let last = '';
  let since = c.clock.now();
  for (;;) {
    const now = JSON.stringify(sizes(await ownedReplicaSets(c, name)));
    if (now !== last) [last, since] = [now, c.clock.now()];
    if (c.clock.now() - since >= 5000) return ownedReplicaSets(c, name);
    await c.step(100);
  }
}

/** Runs the experiment, printing the arithmetic and what the controllers did. */
export async function run(log: (line: string) => void = console.log): Promise<ProportionalRun> {
  const c = await startCluster();
  const name = 'nginx-deployment';
  const show = (sets: ReplicaSet[]) =>
    sets
      .map(
        (rs) =>
          `${templateImage(rs)} ${rs.spec?.replicas} (${rs.status?.availableReplicas ?? 0} available)`,
      )
      .join(', ');
  try {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await c.deployments.create(nginxDeployment({ replicas: 10, strategy }));
    await c.until(() => rolledOut(c, name));
    await c.startTimer();

    //#region stuck
    log(`${c.at()}  kubectl set image nginx=nginx:bad`);
    await setImage(c, name, 'nginx:bad');
    const stuckSets = await settled(c, name);
    const d: Deployment = await c.deployments.get(name);
    const [oldRS, newRS] = stuckSets as [ReplicaSet, ReplicaSet];
    const all = sizes(stuckSets).reduce((a, b) => a + b, 0);
    const minAvailable = 10 - maxUnavailable(d);
    const newUnavailable = (newRS.spec?.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0);
    log(`${c.at()}  stuck: ${show(stuckSets)}`);
    log(
      `         scale-down budget = all ${all} − minAvailable ${minAvailable} − new unavailable ${newUnavailable} = ${all - minAvailable - newUnavailable}`,
    );
    //#endregion stuck

    //#region scale
    // What sync.go's scale will do, computed beforehand from the same functions.
    const scaledTo = nginxDeployment({ replicas: 15, strategy });
    scaledTo.status = d.status; // getReplicaSetFraction falls back on status.replicas
    const allowed = 15 + maxSurge(scaledTo);
    const toAdd = allowed - all;
    log(`${c.at()}  kubectl scale --replicas=15`);
    log(
      `         allowed = 15 + maxSurge ${maxSurge(scaledTo)} = ${allowed}; to add = ${allowed} − ${all} = ${toAdd}`,
    );
    const predicted: number[] = [];
    let added = 0;
    // Largest first (ties: the newer first when growing).
    for (const rs of [oldRS, newRS]) {
      const fraction = getReplicaSetFraction(rs, scaledTo);
      const proportion = getProportion(rs, scaledTo, toAdd, added);
      added += proportion;
      const before = rs.metadata?.annotations?.['deployment.kubernetes.io/max-replicas'];
      log(
        `         ${templateImage(rs)}: round(${rs.spec?.replicas} × ${allowed} / ${before}) − ${rs.spec?.replicas} = ${fraction} → ${(rs.spec?.replicas ?? 0) + proportion}`,
      );
      predicted.push((rs.spec?.replicas ?? 0) + proportion);
    }
    // Leftovers, if rounding left any, go to the largest ReplicaSet.
    predicted[0]! += toAdd - added;
    await c.deployments.patch(name, { type: 'merge', body: { spec: { replicas: 15 } } });
    const scaledSets = await settled(c, name);
    log(`${c.at()}  scaled: ${show(scaledSets)}`);
    //#endregion scale

    //#region undo
    log(`${c.at()}  kubectl rollout undo`);
    await rolloutUndo(c.deployments, c.replicaSets, name);
    await c.until(() => rolledOut(c, name));
    const finalSets = await settled(c, name);
    log(`${c.at()}  rolled back: ${show(finalSets)}`);
    //#endregion undo

    log('');
    for (const e of c.events) log(e);
    return {
      stuck: sizes(stuckSets),
      scaled: sizes(scaledSets),
      predicted,
      final: sizes(finalSets),
      events: [...c.events],
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
