// Chapter 9, second experiment: what manageJob does with parallelism and
// completions. A Job of 8 completions runs its pods 2 at a time; a second in,
// `kubectl patch` raises parallelism to 4, and later lowers it to 1: the
// controller creates and deletes pods to match, never more than the
// completions still missing, and the pods it deletes for a lower parallelism
// lose their tracking finalizer first, so they never count as failures.
// Then a second Job asks for 10 pods while every pod creation fails: slow
// start tries one, not ten, per sync.
// Run: npm run parallelism -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import { hasCondition, isActive, podsOf, startCluster } from './cluster.js';
import { shJob } from './manifests.js';
import { Trace } from './trace.js';

/** One row of the table: the Job's counters after a change. */
export interface Row {
  t: number;
  parallelism: number;
  active: number;
  succeeded: number;
  failed: number;
  /** True when only the spec changed (the controller has not synced it yet). */
  specOnly: boolean;
  /** True for the Job's creation. */
  created: boolean;
}

/** What the experiment found, for its test. */
export interface Parallelism {
  rows: Row[];
  job: Job;
  /** Pods created for the Job, in all. */
  created: number;
  /** Pods deleted when parallelism went down, and whether they had the finalizer then. */
  deletedForParallelism: number;
  /** The FailedCreate events while creations failed, one per sync. */
  slowStart: string[];
  /** The create requests sent while they failed. */
  failedRequests: number;
  /** Pods of the second Job once creations work again, and when. */
  recovered: { t: number; pods: number };
}

const setParallelism = (n: number) => ({ spec: { parallelism: n } });

/** Runs both Jobs, printing what happened. */
export async function run(log: (line: string) => void = console.log): Promise<Parallelism> {
  const c = await startCluster();
  try {
    await c.startTimer();
    const trace = new Trace(c, ['eight'], { ready: false });
    const rows: Row[] = [];
    let parallelism = 2;
    const unsubscribe = c.observe((ch) => {
      if (ch.kind !== 'Job' || ch.object.metadata?.name !== 'eight') return;
      const s = ch.object.status ?? {};
      const row = {
        t: ch.t,
        parallelism: ch.object.spec?.parallelism ?? 1,
        active: s.active ?? 0,
        succeeded: s.succeeded ?? 0,
        failed: s.failed ?? 0,
        specOnly: JSON.stringify(s) === JSON.stringify(ch.prev?.status ?? {}),
        created: ch.type === 'ADDED',
      };
      const last = rows.at(-1);
      if (
        last &&
        last.parallelism === row.parallelism &&
        last.active === row.active &&
        last.succeeded === row.succeeded &&
        last.failed === row.failed
      )
        return;
      rows.push(row);
    });
    await c.jobs.create(shJob('eight', 'sleep 4', { completions: 8, parallelism }));
    await c.step(1000);
    //#region patch
    // kubectl patch job eight -p '{"spec":{"parallelism":4}}'
    await c.jobs.patch('eight', { type: 'merge', body: setParallelism(4) });
    //#endregion patch
    trace.note('kubectl patch job eight -p {"spec":{"parallelism":4}}');
    parallelism = 4;
    await c.until(async () => ((await c.jobs.get('eight')).status?.succeeded ?? 0) >= 4);
    await c.step(1500);
    const before = (await podsOf(c, 'eight')).filter(isActive);
    trace.note(
      `kubectl patch job eight -p {"spec":{"parallelism":1}} (${before.length} pods running)`,
    );
    await c.jobs.patch('eight', { type: 'merge', body: setParallelism(1) });
    await c.until(async () => hasCondition(await c.jobs.get('eight'), 'Complete'));
    await c.step(2000);
    unsubscribe();
    trace.stop();
    const job = await c.jobs.get('eight');
    const deleted = trace.changes.filter(
      (ch) =>
        ch.kind === 'Pod' &&
        ch.type === 'MODIFIED' &&
        ch.object.metadata?.deletionTimestamp &&
        !ch.prev?.metadata?.deletionTimestamp,
    );
    const podsCreated = trace.changes.filter((ch) => ch.kind === 'Pod' && ch.type === 'ADDED');

    log('            parallelism  active  succeeded  failed');
    for (const r of rows) {
      log(
        `${c.at(r.t)}  ${String(r.parallelism).padStart(11)}  ${String(r.active).padStart(6)}  ${String(r.succeeded).padStart(9)}  ${String(r.failed).padStart(6)}${r.created ? '  (created)' : r.specOnly ? '  (patched, not synced yet)' : ''}`,
      );
    }
    log('');
    // The two patches, and what the pods went through at the second.
    const patchedAt = deleted[0]?.t ?? 0;
    for (const line of trace.lines.filter(
      (l) => l.includes('kubectl') || (l.includes('Pod ') && l.startsWith(c.at(patchedAt))),
    ))
      log(line);
    log(
      `pods created: ${podsCreated.length} for 8 completions; deleted when parallelism went down: ${deleted.length}; failed: ${job.status?.failed ?? 0}`,
    );

    // Slow start: every pod creation fails for a while.
    log('');
    await c.startTimer();
    const faults = c.env.faults;
    //#region slow-start
    // Every pod creation fails with a 500 until the fault lab is cleared.
    faults.failNext(1_000, { code: 500 }, { verbs: ['create'], resource: 'pods' });
    faults.resetCounts();
    await c.jobs.create(shJob('ten', 'sleep 4', { completions: 10, parallelism: 10 }));
    //#endregion slow-start
    await c.step(20_000);
    const failedRequests = faults.counts()['create pods'] ?? 0;
    faults.clear();
    faults.resetCounts();
    await c.until(async () => (await podsOf(c, 'ten')).length === 10, 120_000);
    const recovered = { t: c.now(), pods: (await podsOf(c, 'ten')).length };
    const slowStart = c.events.filter((e) => e.includes('FailedCreate'));
    log('Job ten, parallelism 10, while every pod creation fails (500):');
    for (const e of slowStart) log(e);
    log(`create requests in 20 s: ${failedRequests}`);
    log(
      `${c.at(recovered.t)}  fault cleared at t=20s; next sync: ${faults.counts()['create pods'] ?? 0} create requests, ${recovered.pods} pods`,
    );
    return {
      rows,
      job,
      created: podsCreated.length,
      deletedForParallelism: deleted.length,
      slowStart,
      failedRequests,
      recovered,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
