// Chapter 6: rollback and the revision annotations. The walkthrough's
// Deployment is updated to nginx:1.16.1, then rolled back twice with what
// `kubectl rollout undo` does (rollout-undo.ts). A rollback is an ordinary
// template change: the ReplicaSet that already has that template becomes the
// new one again and takes the next revision number, and the number it had
// goes into its revision-history.
// Run: npm run rollback -w tutorials/06-deployment
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { revisionAnnotation, revisionHistoryAnnotation } from '@kcm-ts/deployment';
import { rolledOut, setImage, startCluster, templateImage, type Cluster } from './cluster.js';
import { nginxDeployment } from './manifests.js';
import { rolloutHistory, rolloutUndo } from './rollout-undo.js';

/** One ReplicaSet as the experiment shows it. */
export interface RSRow {
  name: string;
  replicas: number;
  image: string;
  revision: string;
  history: string;
}

/** What the experiment saw after each step. */
export interface RollbackRun {
  steps: { step: string; deploymentRevision: string; replicaSets: RSRow[]; history: string[] }[];
  messages: string[];
}

const row = (rs: ReplicaSet): RSRow => ({
  name: rs.metadata?.name ?? '',
  replicas: rs.spec?.replicas ?? 0,
  image: templateImage(rs),
  revision: rs.metadata?.annotations?.[revisionAnnotation] ?? '',
  history: rs.metadata?.annotations?.[revisionHistoryAnnotation] ?? '',
});

/** `kubectl annotate deployment/<name> kubernetes.io/change-cause=...`. */
const changeCause = (c: Cluster, name: string, cause: string) =>
  c.deployments.patch(name, {
    type: 'merge',
    body: { metadata: { annotations: { 'kubernetes.io/change-cause': cause } } },
  });

/** Runs the experiment, printing the ReplicaSets and the history after each step. */
export async function run(log: (line: string) => void = console.log): Promise<RollbackRun> {
  const c = await startCluster();
  const result: RollbackRun = { steps: [], messages: [] };
  const name = 'nginx-deployment';
  const show = async (step: string) => {
    await c.until(() => rolledOut(c, name));
    const d = await c.deployments.get(name);
    const sets = (await c.replicaSets.list()).items
      .map(row)
      .sort((a, b) => Number(a.revision) - Number(b.revision));
    const history = await rolloutHistory(c.deployments, c.replicaSets, name);
    const deploymentRevision = d.metadata?.annotations?.[revisionAnnotation] ?? '';
    result.steps.push({ step, deploymentRevision, replicaSets: sets, history });
    log(`--- ${step} ---`);
    log(`deployment revision ${deploymentRevision}, image ${templateImage(d)}`);
    log('REPLICASET                     DESIRED  IMAGE         REVISION  REVISION-HISTORY');
    for (const rs of sets) {
      log(
        `${rs.name.padEnd(30)} ${String(rs.replicas).padEnd(8)} ${rs.image.padEnd(13)} ${rs.revision.padEnd(9)} ${rs.history}`,
      );
    }
    for (const line of history) log(line);
  };
  const undo = async (toRevision = 0) => {
    const message = await rolloutUndo(c.deployments, c.replicaSets, name, toRevision);
    result.messages.push(message);
    log(`kubectl rollout undo${toRevision ? ` --to-revision=${toRevision}` : ''}: ${message}`);
  };
  try {
    //#region rollback
    await c.deployments.create(nginxDeployment());
    await changeCause(c, name, 'first rollout: nginx:1.14.2');
    await show('created');

    await setImage(c, name, 'nginx:1.16.1');
    await changeCause(c, name, 'image updated to nginx:1.16.1');
    await show('kubectl set image nginx=nginx:1.16.1');

    await undo();
    await show('rolled back');

    await undo();
    await show('rolled back again');

    await undo(4);
    //#endregion rollback
    return result;
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
