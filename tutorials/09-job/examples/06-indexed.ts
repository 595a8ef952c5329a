// Chapter 9, sixth experiment: an Indexed Job. Five work items sit in a
// ConfigMap, one per completion index (0 to 4), except item 3, which is
// missing; each pod prints the item of its index, found through
// JOB_COMPLETION_INDEX. With backoffLimitPerIndex 1, index 3 is tried twice
// and then given up, while the other indexes complete: the Job ends Failed
// with reason FailedIndexes, completedIndexes "0-2,4" and failedIndexes "3".
// Run: npm run indexed -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isFinished, mask, podsOf, startCluster } from './cluster.js';
import { shJob } from './manifests.js';
import { Trace } from './trace.js';

const indexKey = 'batch.kubernetes.io/job-completion-index';
const failureCountKey = 'batch.kubernetes.io/job-index-failure-count';

/** One pod, as the transcript describes it. */
export interface IndexedPod {
  name: string;
  index: string | undefined;
  label: string | undefined;
  hostname: string | undefined;
  env: string | undefined;
  failureCount: string | undefined;
  phase: string | undefined;
  log: string;
}

/** What the experiment found, for its test. */
export interface Indexed {
  job: Job;
  pods: IndexedPod[];
  /** Every value completedIndexes took, in order. */
  completed: string[];
  trace: Trace;
}

//#region indexed-job
/** Five completions, three at a time; each index may fail once more before it is given up. */
export function indexedJob(): Job {
  return shJob(
    'indexed',
    'sleep 2; cat /input/$JOB_COMPLETION_INDEX',
    { completions: 5, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1 },
    { volumeMounts: [{ name: 'input', mountPath: '/input' }] },
    { volumes: [{ name: 'input', configMap: { name: 'work-items' } }] },
  );
}
//#endregion indexed-job

/** Runs the Job, printing each pod and the Job's indexes. */
export async function run(print: (line: string) => void = console.log): Promise<Indexed> {
  const log = (line: string) => print(line.trimEnd());
  const c = await startCluster();
  try {
    await c.startTimer();
    const trace = new Trace(c, ['indexed'], { ready: false });
    await c.configMaps.create({
      metadata: { name: 'work-items' },
      data: { '0': 'apples', '1': 'bananas', '2': 'cherries', '4': 'elderberries' },
    });
    await c.jobs.create(indexedJob());
    await c.until(async () => isFinished(await c.jobs.get('indexed')));
    await c.step(1000);
    trace.stop();
    const all = await podsOf(c, 'indexed');
    const pods: IndexedPod[] = [];
    for (const p of all.sort((a, b) => index(a) - index(b))) {
      const env = p.spec?.containers[0]?.env?.find((e) => e.name === 'JOB_COMPLETION_INDEX');
      pods.push({
        name: mask(p.metadata?.name),
        index: p.metadata?.annotations?.[indexKey],
        label: p.metadata?.labels?.[indexKey],
        hostname: p.spec?.hostname,
        env: env?.valueFrom?.fieldRef?.fieldPath,
        failureCount: p.metadata?.annotations?.[failureCountKey],
        phase: p.status?.phase,
        log: (await c.logs(p.metadata!.name!)).trim(),
      });
    }
    log('pod                index  label  hostname     failures  phase      log');
    for (const p of pods) {
      log(
        `${p.name.padEnd(17)}  ${(p.index ?? '').padEnd(5)}  ${(p.label ?? '').padEnd(5)}  ${(p.hostname ?? '').padEnd(11)}  ${(p.failureCount ?? '').padEnd(8)}  ${(p.phase ?? '').padEnd(9)}  ${p.log}`,
      );
    }
    log(`JOB_COMPLETION_INDEX comes from: ${pods[0]?.env ?? ''}`);
    log('');
    for (const line of trace.lines.filter(
      (l) =>
        l.includes('Pod indexed-3') ||
        (l.includes('Job ') && /Indexes|failed|Failed|Complete/.test(l)),
    ))
      log(line);
    const job = await c.jobs.get('indexed');
    const completed: string[] = [];
    for (const ch of trace.changes) {
      const v = ch.object.status?.completedIndexes;
      if (ch.kind === 'Job' && v !== undefined && v !== completed.at(-1)) completed.push(v);
    }
    log('');
    log(
      `status: succeeded ${job.status?.succeeded}, failed ${job.status?.failed}, completedIndexes "${job.status?.completedIndexes}", failedIndexes "${job.status?.failedIndexes}"`,
    );
    for (const e of c.events.filter((e) => e.includes('Warning') && e.includes('Job '))) log(e);
    return { job, pods, completed, trace };
  } finally {
    await c.stop();
  }
}

const index = (p: Pod): number => Number(p.metadata?.annotations?.[indexKey] ?? -1);

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
