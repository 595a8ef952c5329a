// Chapter 6: the progress deadline. The walkthrough's Deployment, with
// progressDeadlineSeconds 30, is updated to an image that never pulls. The
// controller keeps noting progress in the Progressing condition; when none
// has been made for 30 s, it says so, and `kubectl rollout status` gives up.
// The old pods keep serving all along.
// Run: npm run deadline -w tutorials/06-deployment
import type { DeploymentCondition } from 'kubernetes-types/apps/v1.js';
import { getDeploymentCondition } from '@kcm-ts/deployment';
import { podImage, rolledOut, setImage, startCluster } from './cluster.js';
import { nginxDeployment } from './manifests.js';
import { rolloutStatus } from './rollout-status.js';

/** What the experiment saw. */
export interface DeadlineRun {
  /** When the image was changed and when the deadline was reported, in ms. */
  changedAt: number;
  timedOutAt: number;
  /** The last Progressing and Available conditions. */
  progressing: DeploymentCondition;
  available: DeploymentCondition;
  /** Every line `kubectl rollout status` would have printed, in order. */
  statusLines: string[];
}

/** Runs the experiment, printing the conditions and kubectl's view as they change. */
export async function run(log: (line: string) => void = console.log): Promise<DeadlineRun> {
  const c = await startCluster();
  const name = 'nginx-deployment';
  try {
    await c.deployments.create(nginxDeployment({ progressDeadlineSeconds: 30 }));
    await c.until(() => rolledOut(c, name));
    const start = await c.startTimer();
    const statusLines: string[] = [];
    let lastCondition = '';
    const podStates = new Set<string>();
    const unsubscribe = c.observe((world) => {
      const d = world.deployments.get(`default/${name}`);
      if (d === undefined) return;
      const cond = getDeploymentCondition(d.status, 'Progressing');
      const shown = `Progressing ${cond?.status} ${cond?.reason} (last update t=${((Date.parse(cond?.lastUpdateTime ?? '') - start) / 1000).toFixed(1)}s): ${cond?.message}`;
      if (shown !== lastCondition) log(`${c.at()}  ${shown}`);
      lastCondition = shown;
      const status = rolloutStatus(d).message;
      if (status !== statusLines.at(-1)) {
        statusLines.push(status);
        log(`${c.at()}  kubectl rollout status: ${status}`);
      }
      for (const pod of world.pods.values()) {
        const reason = pod.status?.containerStatuses?.[0]?.state?.waiting?.reason;
        if (podImage(pod) !== 'nginx:bad' || reason === undefined || podStates.has(reason))
          continue;
        podStates.add(reason);
        log(`${c.at()}  new pod: ${reason}`);
      }
    });

    //#region deadline
    const changedAt = c.clock.now() - start;
    log(`${c.at()}  kubectl set image nginx=nginx:bad`);
    await setImage(c, name, 'nginx:bad');
    await c.until(
      async () =>
        getDeploymentCondition((await c.deployments.get(name)).status, 'Progressing')?.reason ===
        'ProgressDeadlineExceeded',
    );
    const timedOutAt = c.clock.now() - start;
    //#endregion deadline

    await c.step(5000);
    unsubscribe();
    const d = await c.deployments.get(name);
    const available = getDeploymentCondition(d.status, 'Available')!;
    log(`${c.at()}  Available ${available.status} ${available.reason}: ${available.message}`);
    return {
      changedAt,
      timedOutAt,
      progressing: getDeploymentCondition(d.status, 'Progressing')!,
      available,
      statusLines,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
