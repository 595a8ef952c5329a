// Chapter 6: a rolling update traced. Ten nginx pods with the default
// strategy (maxSurge 25%, maxUnavailable 25%) move from nginx:1.14.2 to
// nginx:1.16.1. Every state the API server commits is recorded: the size
// each ReplicaSet is asked for, and its pods that exist and are ready. The
// transcript prints each step of the controllers; timeline.ts draws the same
// samples as the chapter's picture.
// Run: npm run rolling -w tutorials/06-deployment
import { maxSurge, maxUnavailable } from '@kcm-ts/deployment';
import {
  isActive,
  isReady,
  podImage,
  rolledOut,
  startCluster,
  setImage,
  templateImage,
  type World,
} from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One state of the rollout; `t` in ms since the trace started (the image changes 1 s in). */
export interface Sample {
  t: number;
  /** `spec.replicas` of the old and the new ReplicaSet. */
  oldWanted: number;
  newWanted: number;
  /** Their pods that exist and are not being deleted. */
  oldPods: number;
  newPods: number;
  /** Those of them that are Ready (available: minReadySeconds is 0). */
  oldReady: number;
  newReady: number;
}

/** What the trace found. */
export interface Trace {
  samples: Sample[];
  replicas: number;
  maxSurge: number;
  maxUnavailable: number;
  /** How long one pod takes from creation to Ready, in ms. */
  podReadyAfter: number;
  /** When the image was changed, in ms. */
  changedAt: number;
  /** When the Deployment reported the rollout complete, in ms. */
  completeAt: number;
  events: string[];
}

type Counts = Omit<Sample, 't'>;

/** The sizes and pods of the old (nginx:1.14.2) and the new ReplicaSet in `world`. */
function count(world: World): Counts {
  const n: Counts = {
    oldWanted: 0,
    newWanted: 0,
    oldPods: 0,
    newPods: 0,
    oldReady: 0,
    newReady: 0,
  };
  for (const rs of world.replicaSets.values()) {
    if (templateImage(rs) === 'nginx:1.14.2') n.oldWanted = rs.spec?.replicas ?? 0;
    else n.newWanted = rs.spec?.replicas ?? 0;
  }
  for (const pod of [...world.pods.values()].filter(isActive)) {
    const old = podImage(pod) === 'nginx:1.14.2';
    if (old) n.oldPods++;
    else n.newPods++;
    if (isReady(pod)) {
      if (old) n.oldReady++;
      else n.newReady++;
    }
  }
  return n;
}

const countKeys = ['oldWanted', 'newWanted', 'oldPods', 'newPods', 'oldReady', 'newReady'] as const;
const sameCounts = (a: Counts, b: Counts): boolean => countKeys.every((k) => a[k] === b[k]);

/** Runs the rolling update, printing each step. */
export async function run(log: (line: string) => void = console.log): Promise<Trace> {
  const podStartDelay = 1000;
  const podReadyDelay = 1000;
  const c = await startCluster({ podStartDelay, podReadyDelay });
  try {
    const created = await c.deployments.create(nginxDeployment({ replicas: 10 }));
    await c.until(() => rolledOut(c, 'nginx-deployment'));

    //#region trace
    const start = await c.startTimer();
    const samples: Sample[] = [];
    // Every change the API server commits, with the world as it is then.
    const unsubscribe = c.observe((world) => {
      const s = { t: c.clock.now() - start, ...count(world) };
      const last = samples.at(-1);
      if (last !== undefined && sameCounts(last, s)) return;
      // Several changes at one instant: keep the last state of that instant.
      if (last?.t === s.t) samples.pop();
      samples.push(s);
    });
    await c.step(1000);
    const changedAt = c.clock.now() - start;
    await setImage(c, 'nginx-deployment', 'nginx:1.16.1');
    await c.until(() => rolledOut(c, 'nginx-deployment'));
    const completeAt = c.clock.now() - start;
    await c.step(2000); // the old pods finish terminating
    unsubscribe();
    //#endregion trace

    log('            old ReplicaSet    new ReplicaSet    all pods');
    log('            wanted  ready     wanted  ready     active  ready');
    const col = (n: number, w: number) => String(n).padStart(w);
    for (const s of samples) {
      log(
        `t=${(s.t / 1000).toFixed(1).padStart(4)}s ${col(s.oldWanted, 8)} ${col(s.oldReady, 6)} ${col(s.newWanted, 10)} ${col(s.newReady, 6)} ${col(s.oldPods + s.newPods, 11)} ${col(s.oldReady + s.newReady, 6)}`,
      );
    }
    log('');
    for (const e of c.events.filter((e) => e.includes('ScalingReplicaSet'))) log(e);
    log('');
    log(
      `image changed at t=${(changedAt / 1000).toFixed(1)}s, rollout complete at t=${(completeAt / 1000).toFixed(1)}s`,
    );
    return {
      samples,
      replicas: 10,
      // The defaults the API server filled in, resolved as the controller does.
      maxSurge: maxSurge(created),
      maxUnavailable: maxUnavailable(created),
      podReadyAfter: podStartDelay + podReadyDelay,
      changedAt,
      completeAt,
      events: [...c.events],
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
