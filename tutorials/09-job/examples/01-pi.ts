// Chapter 9, first experiment: the pi Job of the Kubernetes documentation,
// end to end. kube-controller-manager runs the Job controller as
// startJobController starts it; the sandbox's node runs perl's bpi(2000) to
// its exit. The transcript is every change the API server committed to the
// Job and its pod, then the events and the pod's log.
// Run: npm run pi -w tutorials/09-job
import type { Job } from 'kubernetes-types/batch/v1.js';
import { hasCondition, mask, podsOf, startCluster } from './cluster.js';
import { piJob } from './manifests.js';
import { Trace } from './trace.js';

/** What the experiment found, for its test. */
export interface PiRun {
  job: Job;
  trace: Trace;
  events: string[];
  /** What `kubectl logs job/pi` prints. */
  log: string;
}

/** Runs the pi Job to completion, printing what happened. */
export async function run(log: (line: string) => void = console.log): Promise<PiRun> {
  const c = await startCluster();
  try {
    await c.startTimer();
    const trace = new Trace(c, ['pi']);
    //#region create
    trace.note('kubectl create -f pi-job.yaml');
    await c.jobs.create(piJob());
    await c.until(async () => hasCondition(await c.jobs.get('pi'), 'Complete'));
    //#endregion create
    await c.step(2000);
    trace.stop();
    const job = await c.jobs.get('pi');
    const [pod] = await podsOf(c, 'pi');
    const out = await c.logs(pod!.metadata!.name!);

    for (const line of trace.lines) log(line);
    log('');
    for (const e of c.events) log(e);
    log('');
    log(
      `kubectl logs job/pi (${mask(pod!.metadata!.name)}): ${out.slice(0, 40)}... (${out.trim().length} characters)`,
    );
    log(
      `startTime ${job.status?.startTime}, completionTime ${job.status?.completionTime}, succeeded ${job.status?.succeeded}`,
    );
    return { job, trace, events: [...c.events], log: out };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
