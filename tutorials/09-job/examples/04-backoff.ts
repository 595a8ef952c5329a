// Chapter 9, fourth experiment: the pod failure backoff and backoffLimit.
// Two Jobs run side by side. `flaky` needs 5 completions, one pod at a
// time, and its pods exit with the code a ConfigMap holds: 1 at first, so
// they fail, and each replacement waits longer; a minute in, the ConfigMap
// says 0 and parallelism goes up to 3, as an operator fixing the cause
// would do. `broken` always fails and has backoffLimit 3: its fourth
// failure fails the Job. Every pod's life is recorded; timeline.ts draws
// them as the chapter's picture.
// Run: npm run backoff -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import { defaultJobPodFailureBackOff, maxJobPodFailureBackOff } from '@kcm-ts/job';
import { hasCondition, isFinished, mask, startCluster } from './cluster.js';
import { shJob } from './manifests.js';
import { exitCode } from './trace.js';

/** One pod's life, in ms since the start. */
export interface PodLife {
  job: string;
  name: string;
  created: number;
  /** When its container started, if it did. */
  running?: number;
  /** When it reached Succeeded or Failed. */
  finished?: number;
  phase?: 'Succeeded' | 'Failed';
  exitCode?: number;
}

/** A moment worth marking on the picture. */
export interface Mark {
  t: number;
  job: string;
  text: string;
}

/** What the experiment recorded. */
export interface Backoff {
  pods: PodLife[];
  marks: Mark[];
  /** For each moment pods were created after a failure: the wait since that failure, by Job. */
  waits: { job: string; failures: number; waited: number; pods: number }[];
  flaky: Job;
  broken: Job;
  end: number;
  events: string[];
}

/**
 * The wait before a replacement after `failures` failures since the last
 * success: 10 s doubled for each failure after the first, capped at 10
 * minutes (job_controller.go's DefaultJobPodFailureBackOff and
 * MaxJobPodFailureBackOff, as backoff_utils.go applies them).
 */
export function backoffAfter(failures: number): number {
  //#region backoff
  let wait = defaultJobPodFailureBackOff;
  for (let i = 1; i < failures; i++) wait = Math.min(wait * 2, maxJobPodFailureBackOff);
  return wait;
  //#endregion backoff
}

/** Runs both Jobs, printing every pod and every wait. */
export async function run(log: (line: string) => void = console.log): Promise<Backoff> {
  const c = await startCluster();
  try {
    await c.startTimer();
    const pods = new Map<string, PodLife>();
    const marks: Mark[] = [];
    const unsubscribe = c.observe((ch) => {
      if (ch.kind !== 'Pod' || ch.type === 'DELETED') return;
      const p = ch.object;
      const job = p.metadata?.labels?.['job-name'] ?? '';
      const uid = p.metadata?.uid ?? '';
      let life = pods.get(uid);
      if (life === undefined) {
        life = { job, name: mask(p.metadata?.name), created: ch.t };
        pods.set(uid, life);
      }
      if (life.running === undefined && p.status?.phase === 'Running') life.running = ch.t;
      const phase = p.status?.phase;
      if (life.finished === undefined && (phase === 'Succeeded' || phase === 'Failed')) {
        life.finished = ch.t;
        life.phase = phase;
        life.exitCode = exitCode(p);
      }
    });
    //#region flaky
    // The exit code comes from a ConfigMap, read when each container starts.
    await c.configMaps.create({ metadata: { name: 'flaky' }, data: { EXIT_CODE: '1' } });
    await c.jobs.create(
      shJob(
        'flaky',
        'sleep 2; exit $EXIT_CODE',
        { completions: 5, parallelism: 1, backoffLimit: 6 },
        { envFrom: [{ configMapRef: { name: 'flaky' } }] },
      ),
    );
    await c.jobs.create(shJob('broken', 'sleep 2; exit 1', { backoffLimit: 3 }));
    //#endregion flaky
    await c.step(60_000);
    //#region fix
    // The cause is fixed, and the Job may run 3 pods at a time.
    await c.configMaps.patch('flaky', { type: 'merge', body: { data: { EXIT_CODE: '0' } } });
    await c.jobs.patch('flaky', { type: 'merge', body: { spec: { parallelism: 3 } } });
    //#endregion fix
    marks.push({ t: c.now(), job: 'flaky', text: 'EXIT_CODE=0, parallelism 3' });
    await c.until(
      async () => isFinished(await c.jobs.get('flaky')) && isFinished(await c.jobs.get('broken')),
    );
    const end = c.now() + 2000;
    await c.step(2000);
    unsubscribe();
    const flaky = await c.jobs.get('flaky');
    const broken = await c.jobs.get('broken');
    for (const job of [flaky, broken]) {
      const cond = job.status?.conditions?.find(
        (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
      );
      const at = Date.parse(cond?.lastTransitionTime ?? '') - Date.parse(flaky.status!.startTime!);
      marks.push({ t: at, job: job.metadata!.name!, text: `${cond?.type} (${cond?.reason})` });
    }

    // The wait before each pod created after a failure, counting the
    // failures since the last success.
    const lives = [...pods.values()].sort((a, b) => a.created - b.created);
    const waits: Backoff['waits'] = [];
    for (const job of ['flaky', 'broken']) {
      const mine = lives.filter((p) => p.job === job);
      for (const pod of mine) {
        const before = mine.filter((p) => p.finished !== undefined && p.finished <= pod.created);
        const lastSuccess = Math.max(
          -1,
          ...before.filter((p) => p.phase === 'Succeeded').map((p) => p.finished!),
        );
        const failures = before.filter((p) => p.phase === 'Failed' && p.finished! > lastSuccess);
        if (failures.length === 0) continue;
        const last = Math.max(...failures.map((p) => p.finished!));
        const same = waits.find((w) => w.job === job && last + w.waited === pod.created);
        if (same) same.pods++;
        else waits.push({ job, failures: failures.length, waited: pod.created - last, pods: 1 });
      }
    }

    const s = (ms: number | undefined) =>
      ms === undefined ? '    -' : `${(ms / 1000).toFixed(1)}`.padStart(5);
    log('pod               created  running  finished  result');
    for (const p of lives) {
      const result = p.phase === undefined ? '' : `${p.phase} (exit code ${p.exitCode})`;
      log(
        `${p.name.padEnd(16)}  ${s(p.created)}    ${s(p.running)}     ${s(p.finished)}  ${result}`,
      );
    }
    log('');
    log('the wait before each replacement, after n failures since the last success:');
    for (const w of waits) {
      log(
        `${w.job.padEnd(7)} n=${w.failures}  waited ${(w.waited / 1000).toFixed(1)} s  (backoff ${backoffAfter(w.failures) / 1000} s)${w.pods > 1 ? `, then ${w.pods} pods` : ''}`,
      );
    }
    log('');
    marks.sort((a, b) => a.t - b.t);
    for (const m of marks) log(`${c.at(m.t)}  ${m.job}: ${m.text}`);
    log(
      `flaky: succeeded ${flaky.status?.succeeded}, failed ${flaky.status?.failed}; broken: failed ${broken.status?.failed} (backoffLimit 3)`,
    );
    const events = c.events.filter((e) => e.includes('Warning') && e.includes('Job '));
    for (const e of events) log(e);
    log('');
    log(
      'the backoff after n failures: ' +
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${n}: ${backoffAfter(n) / 1000} s`).join(', '),
    );
    return {
      pods: lives,
      marks,
      waits,
      flaky,
      broken,
      end,
      events,
    };
  } finally {
    await c.stop();
  }
}

/** True for a Job that failed at its backoff limit. */
export const failedAtLimit = (job: Job): boolean =>
  hasCondition(job, 'Failed') &&
  job.status?.conditions?.some((x) => x.reason === 'BackoffLimitExceeded') === true;

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
