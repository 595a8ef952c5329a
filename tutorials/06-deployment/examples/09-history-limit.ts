// Chapter 6: revision history. Every rollout leaves its old ReplicaSet
// behind, scaled to zero, so that `kubectl rollout undo` has something to go
// back to. revisionHistoryLimit says how many to keep; once a rollout is
// complete, the controller deletes the oldest beyond it.
// Run: npm run history -w tutorials/06-deployment
import { revisionAnnotation } from '@kcm-ts/deployment';
import { ownedReplicaSets, rolledOut, setImage, startCluster, templateImage } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** The ReplicaSets kept after each rollout, as `revision:image:replicas`. */
export type HistoryRun = string[][];

/** Runs the experiment, printing the ReplicaSets after each rollout. */
export async function run(log: (line: string) => void = console.log): Promise<HistoryRun> {
  const c = await startCluster();
  const name = 'nginx-deployment';
  const kept: HistoryRun = [];
  try {
    //#region history
    await c.deployments.create(nginxDeployment({ revisionHistoryLimit: 2 }));
    for (const image of [
      'nginx:1.14.2',
      'nginx:1.16.1',
      'nginx:1.17',
      'nginx:1.18',
      'nginx:1.19',
    ]) {
      if (image !== 'nginx:1.14.2') await setImage(c, name, image);
      await c.until(() => rolledOut(c, name));
      await c.step(2000); // the next sync, once the old pods are gone, cleans up
      const sets = await ownedReplicaSets(c, name);
      const now = sets.map(
        (rs) =>
          `${rs.metadata?.annotations?.[revisionAnnotation]}:${templateImage(rs)}:${rs.spec?.replicas}`,
      );
      kept.push(now);
      log(`after ${image.padEnd(12)} revision:image:replicas  ${now.join('  ')}`);
    }
    //#endregion history
    return kept;
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
