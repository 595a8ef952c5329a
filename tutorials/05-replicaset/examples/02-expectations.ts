// Chapter 5: why expectations exist. The controller's pod informer sees each
// change some milliseconds after the API server made it. The same controller
// runs twice on the same ReplicaSet: once as kube-controller-manager runs it,
// once with its expectations taken out, and every pod create and delete it
// sends is counted.
// Run: npm run expectations -w tutorials/05-replicaset
import { replicaSet, startLab, summarize } from './lab.js';

/** What one run did. */
export interface Outcome {
  /** The informer's lag, in ms. */
  lag: number;
  expectations: boolean;
  /** Pod creates and deletes the controller sent. */
  creates: number;
  deletes: number;
  /** The most pods of the ReplicaSet that existed (and were not being deleted) at once. */
  peak: number;
  /** When the ReplicaSet last reached its replicas, all ready, for good; `undefined` if it had not by the end. */
  settledAt: number | undefined;
  /** The run, one line per sync and per change the informer delivered, when traced. */
  lines: string[];
}

/** Runs a ReplicaSet of `replicas` for `duration` ms of fake time and measures what the controller did. */
export async function measure(opts: {
  lag: number;
  expectations: boolean;
  replicas?: number;
  duration?: number;
  trace?: boolean;
}): Promise<Outcome> {
  const replicas = opts.replicas ?? 3;
  const lab = await startLab({
    podWatchLag: opts.lag,
    ignoreExpectations: !opts.expectations,
    trace: opts.trace ?? false,
  });
  try {
    await lab.replicaSets.create(replicaSet('web', replicas));
    let peak = 0;
    let settledAt: number | undefined;
    while (lab.elapsed() < (opts.duration ?? 10_000)) {
      await lab.step(10);
      const pods = (await lab.pods.list()).items.filter((p) => !p.metadata?.deletionTimestamp);
      peak = Math.max(peak, pods.length);
      const settled =
        pods.length === replicas && (await lab.get('web')).status?.readyReplicas === replicas;
      if (!settled) settledAt = undefined;
      else settledAt ??= lab.elapsed();
    }
    return {
      lag: opts.lag,
      expectations: opts.expectations,
      creates: lab.creates,
      deletes: lab.deletes,
      peak,
      settledAt,
      lines: summarize(lab.steps).map((l) => lab.alias(l)),
    };
  } finally {
    await lab.stop();
  }
}

/** Lines worth reading: syncs, new and deleted pods, and ReplicaSet changes (not scheduling). */
const story = (line: string): boolean =>
  !/informer: MODIFIED pod .*: (Pending|Running) on node-1(, ready)?$/.test(line);

/** Runs the two controllers side by side, then for several lags, and prints what they did. */
export async function run(log: (line: string) => void = console.log): Promise<Outcome[]> {
  //#region compare
  const lag = 100; // the informer hears of each change 100 ms late
  const without = await measure({ lag, expectations: false, trace: true });
  const withExp = await measure({ lag, expectations: true, trace: true });
  //#endregion compare
  for (const o of [without, withExp]) {
    log(`--- ${o.expectations ? 'with' : 'without'} expectations, informer ${o.lag} ms late ---`);
    for (const line of o.lines.filter(story)) {
      if (Number(/^t=([\d.]+)s/.exec(line)?.[1]) >= 1) break;
      log(line);
    }
  }

  log('--- every pod write of a ReplicaSet of 3 over 10 s ---');
  log('informer lag   expectations   creates   deletes   most pods at once   settled at');
  const outcomes: Outcome[] = [];
  for (const l of [0, 50, 100]) {
    for (const expectations of [false, true]) {
      const o =
        l === lag ? (expectations ? withExp : without) : await measure({ lag: l, expectations });
      outcomes.push(o);
      const settled = o.settledAt === undefined ? 'never' : `${(o.settledAt / 1000).toFixed(2)} s`;
      log(
        `${`${l} ms`.padEnd(15)}${(expectations ? 'yes' : 'no').padEnd(15)}${String(o.creates).padEnd(10)}${String(o.deletes).padEnd(10)}${String(o.peak).padEnd(20)}${settled}`,
      );
    }
  }
  return outcomes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
