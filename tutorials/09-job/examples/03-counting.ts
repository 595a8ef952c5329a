// Chapter 9, third experiment: counting every pod exactly once. Four Jobs
// of 6 completions, 2 pods at a time, run side by side: one by
// kube-controller-manager's Job controller, three by naive-job-controller.ts,
// each counting its successes another naive way. Three things that happen to
// real clusters happen to all four at once, one per run:
//
// - restart: the controllers restart (a new leader, an upgrade), and their
//   informers list every Job and pod again;
// - outage + cleanup: the controllers are down while pods finish, and
//   someone deletes the finished pods meanwhile (as `kubectl delete pods
//   --field-selector=status.phase==Succeeded` or the pod garbage collector
//   does);
// - patches fail: for three seconds the API server refuses every pod patch,
//   the request that removes a finalizer.
//
// For each Job the run measures how many pods really succeeded (every pod
// the API server saw reach Succeeded) against what the Job's status reports.
// Run: npm run counting -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import { hasCondition, isFinished, startCluster, type Cluster } from './cluster.js';
import { shJob } from './manifests.js';
import { NaiveJobController, naiveManagedBy } from './naive-job-controller.js';
import { Trace } from './trace.js';

/** The Jobs of each run: the real controller's, and one per naive way of counting. */
export const counters = ['exact', 'existing', 'events', 'finalizer'] as const;
export type Counter = (typeof counters)[number];

const labels: Record<Counter, string> = {
  exact: 'Job controller (tracking finalizer)',
  existing: 'count the Succeeded pods that exist',
  events: 'count Succeeded events',
  finalizer: 'own finalizer, no uncounted list',
};

/** What one Job did in one run. */
export interface Outcome {
  /** Pods that reached Succeeded (distinct uids). */
  ran: number;
  /** `status.succeeded` at the end. */
  reported: number;
  /** Pods created in all. */
  created: number;
  complete: boolean;
}

/** One run: its name and the outcome of each Job. */
export interface Run {
  name: string;
  outcomes: Record<Counter, Outcome>;
  /** The real Job's status changes during the run, for the patch failures. */
  exactTrace: string[];
  /** The naive controllers' status writes the API server refused, and why. */
  refused: string[];
}

const completions = 6;

/** The Job `name` counted by `counter`: 6 completions of a 2-second pod, 2 at a time. */
function countedJob(counter: Counter): Job {
  const job = shJob(counter, 'sleep 2', { completions, parallelism: 2 });
  if (counter !== 'exact') job.spec!.managedBy = naiveManagedBy(counter);
  return job;
}

const succeededOf = async (c: Cluster, name: string) =>
  (await c.jobs.get(name)).status?.succeeded ?? 0;

/** Runs the four Jobs through `disturb`, then to the end, and measures them. */
async function measure(
  name: string,
  disturb: (
    c: Cluster,
    restart: (whileDown?: () => Promise<void>) => Promise<void>,
    note: (text: string) => void,
  ) => Promise<void>,
): Promise<Run> {
  const c = await startCluster();
  let naive = (['existing', 'events', 'finalizer'] as const).map(
    (counting) => new NaiveJobController(c.env, counting),
  );
  const all = [...naive];
  try {
    for (const n of naive) await n.start();
    await c.startTimer();
    const trace = new Trace(c, ['exact'], { pods: false });
    const succeeded = new Map<string, Set<string>>(); // Job uid → pods that succeeded
    const created = new Map<string, number>();
    const unsubscribe = c.observe((ch) => {
      if (ch.kind !== 'Pod') return;
      const owner = ch.object.metadata?.ownerReferences?.[0]?.uid ?? '';
      if (ch.type === 'ADDED') created.set(owner, (created.get(owner) ?? 0) + 1);
      if (ch.object.status?.phase === 'Succeeded') {
        if (!succeeded.has(owner)) succeeded.set(owner, new Set());
        succeeded.get(owner)!.add(ch.object.metadata?.uid ?? '');
      }
    });
    for (const counter of counters) await c.jobs.create(countedJob(counter));

    //#region restart
    // Every controller stops, as kube-controller-manager does when it
    // restarts, and starts again with empty caches and a fresh list.
    const restart = async (whileDown?: () => Promise<void>) => {
      await c.stopManager();
      for (const n of naive) await n.stop();
      await whileDown?.();
      await c.startManager();
      naive = naive.map((n) => new NaiveJobController(c.env, n.counting));
      all.push(...naive);
      for (const n of naive) await n.start();
    };
    //#endregion restart
    await disturb(c, restart, (text) => trace.note(text));
    await c.until(async () => {
      for (const counter of counters) if (!isFinished(await c.jobs.get(counter))) return false;
      return true;
    }, 300_000);
    await c.step(2000);
    unsubscribe();
    trace.stop();
    const outcomes = {} as Record<Counter, Outcome>;
    for (const counter of counters) {
      const job = await c.jobs.get(counter);
      const uid = job.metadata?.uid ?? '';
      outcomes[counter] = {
        ran: succeeded.get(uid)?.size ?? 0,
        reported: job.status?.succeeded ?? 0,
        created: created.get(uid) ?? 0,
        complete: hasCondition(job, 'Complete'),
      };
    }
    const refused = all.flatMap((n) => n.refused.map((m) => `${n.counting}: ${m}`));
    return { name, outcomes, exactTrace: trace.lines, refused };
  } finally {
    for (const n of naive) await n.stop();
    await c.stop();
  }
}

/** Runs the three disturbances, printing the table of what each Job counted. */
export async function run(print: (line: string) => void = console.log): Promise<Run[]> {
  const log = (line: string) => print(line.trimEnd());
  // All four Jobs have counted their first two pods; the next two run.
  const firstWaveCounted = async (c: Cluster) => {
    await c.until(async () => {
      for (const counter of counters) if ((await succeededOf(c, counter)) < 2) return false;
      return true;
    });
  };
  const runs: Run[] = [];
  runs.push(
    await measure('restart', async (c, restart) => {
      await firstWaveCounted(c);
      await restart();
    }),
  );
  runs.push(
    await measure('outage + cleanup', async (c, restart) => {
      await firstWaveCounted(c);
      await restart(async () => {
        // While no controller runs, the second pods finish...
        await c.step(5000);
        //#region cleanup
        // ...and someone deletes the finished pods.
        for (const pod of (await c.pods.list()).items) {
          if (pod.status?.phase === 'Succeeded') await c.pods.delete(pod.metadata!.name!);
        }
        //#endregion cleanup
      });
    }),
  );
  runs.push(
    await measure('patches fail', async (c, _restart, note) => {
      await firstWaveCounted(c);
      // The moment a second pod finishes, before any controller counts it.
      await c.until(async () =>
        (await c.pods.list()).items.some(
          (p) => p.status?.phase === 'Succeeded' && (p.metadata?.finalizers ?? []).length > 0,
        ),
      );
      //#region patches-fail
      // For three seconds every pod patch fails: no finalizer can be removed.
      c.env.faults.failNext(1_000, { code: 500 }, { verbs: ['patch'], resource: 'pods' });
      await c.step(3000);
      c.env.faults.clear();
      //#endregion patches-fail
      note('every pod patch fails from t=' + ((c.now() - 3000) / 1000).toFixed(1) + 's to here');
    }),
  );

  log(`${completions} completions each; ran = pods that succeeded, reported = status.succeeded`);
  log('');
  const head = runs.map((r) => r.name.padEnd(22)).join('');
  log(`${''.padEnd(38)}${head}`);
  log(`${''.padEnd(38)}${runs.map(() => 'ran  reported        ').join('')}`);
  for (const counter of counters) {
    const cells = runs.map((r) => {
      const o = r.outcomes[counter];
      const wrong = o.ran !== completions || o.reported !== completions ? '  ✗' : '';
      return `${String(o.ran).padStart(3)}  ${String(o.reported).padStart(8)}${wrong.padEnd(9)}`;
    });
    log(`${labels[counter].padEnd(38)}${cells.join('')}`);
  }
  for (const r of runs) {
    const reasons = new Map<string, number>();
    for (const m of r.refused) reasons.set(m, (reasons.get(m) ?? 0) + 1);
    for (const [m, n] of reasons) log(`${r.name}: ${n} status writes refused: ${m}`);
  }
  const patches = runs[2]!;
  log('');
  log(`the real Job while pod patches fail (${patches.name}):`);
  for (const line of patches.exactTrace.filter(
    (l) => l.includes('uncounted') || l.includes('pod patch'),
  ))
    log(line);
  return runs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
