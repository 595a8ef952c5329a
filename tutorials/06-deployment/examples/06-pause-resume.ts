// Chapter 6: pause, two edits, resume. While a Deployment is paused the
// controller keeps its ReplicaSets as they are (it still scales them and
// reports status), so several edits can be made and then rolled out as one:
// one new ReplicaSet, one revision.
// Run: npm run pause -w tutorials/06-deployment
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { getDeploymentCondition } from '@kcm-ts/deployment';
import { rolledOut, setImage, startCluster, templateImage } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** What the experiment saw. */
export interface PauseRun {
  /** The ReplicaSets just before the resume, and at the end. */
  whilePaused: ReplicaSet[];
  after: ReplicaSet[];
  /** The Progressing condition's reasons, in order. */
  progressing: string[];
  events: string[];
}

/** Runs the experiment, printing each step and every change of the Progressing condition. */
export async function run(log: (line: string) => void = console.log): Promise<PauseRun> {
  const c = await startCluster();
  const name = 'nginx-deployment';
  const describe = (rs: ReplicaSet) => {
    const container = rs.spec?.template?.spec?.containers[0];
    const limits = Object.entries(container?.resources?.limits ?? {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    return `${rs.metadata?.name}: ${rs.spec?.replicas} replicas, ${templateImage(rs)}, limits ${limits || 'none'}`;
  };
  try {
    await c.deployments.create(nginxDeployment());
    await c.until(() => rolledOut(c, name));
    await c.startTimer();
    const progressing: string[] = [];
    const unsubscribe = c.observe((world) => {
      const cond = getDeploymentCondition(
        world.deployments.get(`default/${name}`)?.status,
        'Progressing',
      );
      if (cond?.reason === undefined || cond.reason === progressing.at(-1)) return;
      progressing.push(cond.reason);
      log(`${c.at()}  Progressing ${cond.status} ${cond.reason}: ${cond.message}`);
    });

    //#region pause
    const pause = (paused: boolean) =>
      c.deployments.patch(name, { type: 'merge', body: { spec: { paused } } });
    log(`${c.at()}  kubectl rollout pause`);
    await pause(true);
    await c.step(1000);
    log(`${c.at()}  kubectl set image nginx=nginx:1.16.1`);
    await setImage(c, name, 'nginx:1.16.1');
    await c.step(1000);
    log(`${c.at()}  kubectl set resources -c=nginx --limits=cpu=200m,memory=512Mi`);
    await c.deployments.patch(name, {
      type: 'strategic',
      body: {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'nginx', resources: { limits: { cpu: '200m', memory: '512Mi' } } },
              ],
            },
          },
        },
      },
    });
    await c.step(10_000);
    const whilePaused = (await c.replicaSets.list()).items;
    for (const rs of whilePaused) log(`${c.at()}  still only ${describe(rs)}`);
    log(`${c.at()}  kubectl rollout resume`);
    await pause(false);
    await c.until(() => rolledOut(c, name));
    //#endregion pause

    await c.step(1000);
    unsubscribe();
    const after = (await c.replicaSets.list()).items.sort((a, b) =>
      a.metadata!.creationTimestamp! < b.metadata!.creationTimestamp! ? -1 : 1,
    );
    for (const rs of after) log(`${c.at()}  ${describe(rs)}`);
    log('');
    for (const e of c.events) log(e);
    return { whilePaused, after, progressing, events: [...c.events] };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
