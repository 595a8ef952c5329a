// Chapter 9, seventh experiment: a Job's clock. The Job is created
// suspended, resumed, suspended and resumed again; its pods sleep longer
// than its activeDeadlineSeconds (20 s), which counts from the last resume,
// so it fails with DeadlineExceeded 20 s after that; and
// ttlSecondsAfterFinished (10 s) has the TTL-after-finished controller
// delete it, and the garbage collector its pods, 10 s after it finished.
// Run: npm run suspend -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import { isFinished, startCluster } from './cluster.js';
import { shJob } from './manifests.js';
import { Trace } from './trace.js';

/** What the experiment found, for its test. */
export interface SuspendRun {
  trace: Trace;
  /** When each step happened, ms since the start. */
  at: Record<'resumed' | 'suspended' | 'resumedAgain' | 'failed' | 'jobGone' | 'podsGone', number>;
  /** The Job as it was when it failed. */
  failed: Job;
  events: string[];
}

const suspend = (on: boolean) => ({ type: 'merge' as const, body: { spec: { suspend: on } } });

/** Runs the Job through its life, printing every change. */
export async function run(print: (line: string) => void = console.log): Promise<SuspendRun> {
  const log = (line: string) => print(line.trimEnd());
  const c = await startCluster();
  try {
    await c.startTimer();
    const trace = new Trace(c, ['nightly'], { ready: false });
    //#region suspended
    await c.jobs.create(
      shJob('nightly', 'sleep 30', {
        completions: 4,
        parallelism: 2,
        suspend: true,
        activeDeadlineSeconds: 20,
        ttlSecondsAfterFinished: 10,
      }),
    );
    //#endregion suspended
    trace.note('created with suspend: true');
    await c.step(5000);
    trace.note('kubectl patch job nightly -p {"spec":{"suspend":false}}');
    await c.jobs.patch('nightly', suspend(false));
    const resumed = c.now();
    await c.step(5000);
    trace.note('kubectl patch job nightly -p {"spec":{"suspend":true}}');
    await c.jobs.patch('nightly', suspend(true));
    const suspended = c.now();
    await c.step(5000);
    trace.note('kubectl patch job nightly -p {"spec":{"suspend":false}}');
    await c.jobs.patch('nightly', suspend(false));
    const resumedAgain = c.now();
    await c.until(async () => isFinished(await c.jobs.get('nightly')));
    const failed = await c.jobs.get('nightly');
    const failedAt = c.now();
    await c.until(async () => (await c.jobs.list()).items.length === 0);
    const jobGone = c.now();
    await c.until(async () => (await c.pods.list()).items.length === 0);
    const podsGone = c.now();
    await c.step(1000);
    trace.stop();
    for (const line of trace.lines) log(line);
    log('');
    const events = c.events.filter((e) => e.includes('Job nightly') && e.includes('Warning'));
    for (const e of events) log(e);
    log('');
    log(
      `startTime ${failed.status?.startTime} (the last resume), Failed at ${failed.status?.conditions?.find((x) => x.type === 'Failed')?.lastTransitionTime}`,
    );
    return {
      trace,
      at: { resumed, suspended, resumedAgain, failed: failedAt, jobGone, podsGone },
      failed,
      events,
    };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
