// Chapter 9, fifth experiment: the pod failure policy. First the rules are
// matched, as pure functions, against failed pods of several kinds; then a
// Job runs with those rules while its pods exit with 143, then 1, then 42:
// the first failure is ignored, the second counted, the third fails the Job
// at once, whatever its backoffLimit says.
// Run: npm run failure-policy -w tutorials/09-job
import type { Job, PodFailurePolicy } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { matchPodFailurePolicy } from '@kcm-ts/job';
import { isActive, isFinished, podsOf, startCluster } from './cluster.js';
import { shJob } from './manifests.js';
import { Trace } from './trace.js';

//#region policy
/** Fail the Job on exit code 42 of `main`; ignore disruptions and SIGTERM; count the rest. */
export const policy: PodFailurePolicy = {
  rules: [
    { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    { action: 'Ignore', onExitCodes: { operator: 'In', values: [143] } },
  ],
};
//#endregion policy

/** A failed pod whose containers exited with these codes, and with these conditions. */
function failedPod(codes: Record<string, number>, conditions: string[] = []): Pod {
  return {
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: Object.keys(codes).map((name) => ({ name })) },
    status: {
      phase: 'Failed',
      conditions: conditions.map((type) => ({ type, status: 'True' })),
      containerStatuses: Object.entries(codes).map(([name, exitCode]) => ({
        name,
        image: 'busybox:1.36',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode } },
      })),
    },
  };
}

/** The cases of the table. */
export const cases: [string, Pod][] = [
  ['main exits 42', failedPod({ main: 42 })],
  ['main exits 1', failedPod({ main: 1 })],
  ['sidecar exits 42, main 0', failedPod({ main: 0, sidecar: 42 })],
  ['main exits 137, DisruptionTarget', failedPod({ main: 137 }, ['DisruptionTarget'])],
  ['main exits 143', failedPod({ main: 143 })],
];

/** What the experiment found, for its test. */
export interface FailurePolicyRun {
  table: { pod: string; message: string | undefined; countFailed: boolean; action: string }[];
  job: Job;
  trace: Trace;
}

/** Prints the table, then runs the Job. */
export async function run(log: (line: string) => void = console.log): Promise<FailurePolicyRun> {
  const table: FailurePolicyRun['table'] = [];
  log('failed pod                          action    counts  Job failure message');
  for (const [what, pod] of cases) {
    //#region match
    const [message, countFailed, action] = matchPodFailurePolicy(policy, pod);
    //#endregion match
    table.push({ pod: what, message, countFailed, action: action ?? '(none)' });
    log(
      `${what.padEnd(34)}  ${(action ?? '(none)').padEnd(8)}  ${String(countFailed).padEnd(6)}  ${message ?? ''}`,
    );
  }
  log('');

  const c = await startCluster();
  try {
    await c.startTimer();
    const trace = new Trace(c, ['policy'], { ready: false });
    await c.configMaps.create({ metadata: { name: 'policy' }, data: { EXIT_CODE: '143' } });
    const job = shJob(
      'policy',
      'sleep 2; exit $EXIT_CODE',
      { completions: 1, backoffLimit: 6, podFailurePolicy: policy },
      { envFrom: [{ configMapRef: { name: 'policy' } }] },
    );
    await c.jobs.create(job);
    for (const next of ['1', '42']) {
      // Once the running pod has finished, the next one will exit with `next`.
      await c.until(async () => {
        const pods = await podsOf(c, 'policy');
        return pods.length > 0 && pods.every((p) => !isActive(p));
      });
      await c.configMaps.patch('policy', { type: 'merge', body: { data: { EXIT_CODE: next } } });
      trace.note(`the ConfigMap now says EXIT_CODE=${next}`);
      await c.until(async () => (await podsOf(c, 'policy')).some(isActive));
    }
    await c.until(async () => isFinished(await c.jobs.get('policy')));
    await c.step(2000);
    trace.stop();
    for (const line of trace.lines) log(line);
    log('');
    for (const e of c.events.filter((e) => e.startsWith('t=') && e.includes('Job policy')))
      log(e.replace(/SuccessfulCreate Created pod: .*/, 'SuccessfulCreate (a pod)'));
    return { table, job: await c.jobs.get('policy'), trace };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
