// Chapter 6: the arithmetic of a rolling update, for a few settings of
// maxSurge and maxUnavailable. First what deployment_util.go's functions
// say; then each setting rolled out for real on the sandbox, measuring the
// most pods that ever existed, the fewest that were ready, and how long it
// took in units of one pod's time to Ready.
// Run: npm run arithmetic -w tutorials/06-deployment
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import {
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  resolveFenceposts,
  type IntOrString,
} from '@kcm-ts/deployment';
import { isActive, isReady, podImage, rolledOut, setImage, startCluster } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One setting of the strategy. */
export interface Setting {
  name: string;
  replicas: number;
  maxSurge: IntOrString;
  maxUnavailable: IntOrString;
}

/** The settings compared. */
export const settings: Setting[] = [
  { name: 'defaults', replicas: 10, maxSurge: '25%', maxUnavailable: '25%' },
  { name: 'walkthrough', replicas: 3, maxSurge: '25%', maxUnavailable: '25%' },
  { name: 'one at a time', replicas: 10, maxSurge: 0, maxUnavailable: 1 },
  { name: 'all at once', replicas: 10, maxSurge: '100%', maxUnavailable: 0 },
  { name: 'fencepost', replicas: 5, maxSurge: 0, maxUnavailable: '10%' },
  { name: 'single pod', replicas: 1, maxSurge: '25%', maxUnavailable: '25%' },
];

/** What the arithmetic predicts and what the sandbox did, for one setting. */
export interface Row {
  setting: Setting;
  surge: number;
  unavailable: number;
  /** The size the new ReplicaSet is created with. */
  firstStep: number;
  /** ceil(replicas / (surge + unavailable)): pods are replaced in waves of surge + unavailable. */
  waves: number;
  /** What the sandbox did: the most pods at once, the fewest ready, the time to complete in ms. */
  measured: { mostPods: number; fewestReady: number; took: number };
}

/** Prints the predictions, then rolls each setting out and prints what happened. */
export async function run(log: (line: string) => void = console.log): Promise<Row[]> {
  const rows: Row[] = [];
  const c = await startCluster({ podStartDelay: 1000, podReadyDelay: 1000 });
  try {
    for (const setting of settings) {
      const name = `web-${rows.length + 1}`;
      const d = nginxDeployment({
        name,
        replicas: setting.replicas,
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: setting.maxSurge, maxUnavailable: setting.maxUnavailable },
        },
      });

      //#region fenceposts
      const [surge, unavailable] = resolveFenceposts(
        setting.maxSurge,
        setting.maxUnavailable,
        setting.replicas,
      );
      // What the controller uses: the same, with maxUnavailable capped at replicas.
      if (maxSurge(d) !== surge || maxUnavailable(d) !== Math.min(unavailable, setting.replicas))
        throw new Error('maxSurge/maxUnavailable disagree with resolveFenceposts');
      // The size of the new ReplicaSet when it is created: the old one holds every replica.
      const oldRS: ReplicaSet = { spec: { replicas: setting.replicas, selector: {} } };
      const newRS: ReplicaSet = { spec: { replicas: 0, selector: {} } };
      const firstStep = newRSNewReplicas(d, [oldRS, newRS], newRS);
      //#endregion fenceposts

      // Roll it out for real and watch every state the server holds.
      await c.deployments.create(d);
      await c.until(() => rolledOut(c, name));
      let mostPods = 0;
      let fewestReady = Infinity;
      const unsubscribe = c.observe((world) => {
        const pods = [...world.pods.values()].filter(
          (p) => p.metadata?.labels?.app === name && isActive(p),
        );
        mostPods = Math.max(mostPods, pods.length);
        fewestReady = Math.min(fewestReady, pods.filter(isReady).length);
      });
      const start = c.clock.now();
      await setImage(c, name, 'nginx:1.16.1');
      await c.until(() => rolledOut(c, name));
      const took = c.clock.now() - start;
      // Let the old pods finish terminating before the next setting.
      await c.until(async () =>
        (await c.pods.list()).items.every(
          (p) => p.metadata?.labels?.app !== name || podImage(p) === 'nginx:1.16.1',
        ),
      );
      unsubscribe();
      rows.push({
        setting,
        surge,
        unavailable,
        firstStep,
        waves: Math.ceil(setting.replicas / (surge + unavailable)),
        measured: { mostPods, fewestReady, took },
      });
    }
  } finally {
    await c.stop();
  }

  const table: string[][] = [
    [
      'setting',
      'replicas',
      'maxSurge',
      'maxUnavailable',
      'surge',
      'unavail.',
      'most pods',
      'fewest ready',
      'new RS starts at',
      'waves',
      'measured: most / fewest / time',
    ],
  ];
  for (const r of rows) {
    const s = r.setting;
    table.push([
      s.name,
      String(s.replicas),
      String(s.maxSurge),
      String(s.maxUnavailable),
      String(r.surge),
      String(r.unavailable),
      String(s.replicas + r.surge),
      String(s.replicas - Math.min(r.unavailable, s.replicas)),
      String(r.firstStep),
      String(r.waves),
      `${r.measured.mostPods} / ${r.measured.fewestReady} / ${r.measured.took / 1000} s`,
    ]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table)
    log(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
