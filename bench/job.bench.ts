// How close do the Job and CronJob controllers come to what the sandbox allows?
//
// Job. The sandbox runs in this process over HTTPS with simulated nodes whose
// containers run `sh -c 'sleep 1'` for one second (on the real clock) after
// a short start delay; the Job controller (with its informers and its event
// broadcaster) talks to it over HTTPS through @kcm-ts/client, as
// kube-controller-manager talks to kube-apiserver. The bench's own reads go
// through the sandbox's in-process client, so every HTTP request counted is
// the controller's. One Job of 1,000 completions (BENCH_COMPLETIONS) with a
// parallelism of 100 (BENCH_PARALLELISM), timed from its creation to its
// Complete condition. Two yardsticks from the same run:
//   - the pipeline bound: with at most P pods at once, each taking at least
//     the start delay plus its second of sleep from creation to exit, N pods
//     take ceil(N / P) such rounds; nothing can finish sooner;
//   - a bare runner: a client with no controller at all that keeps P pods
//     running, creating the next one over HTTPS as soon as a watch shows one
//     succeeded: what the sandbox sustains with the least work possible.
// Printed: creates per pod (goal 1.00), API requests per pod, and the time to
// Complete against both (goal ≤ 1.2× the bound).
//
// CronJob. 100 CronJobs `*/1 * * * *` (BENCH_CRONJOBS) with the CronJob and
// Job controllers, on a fake clock over 30 minutes (BENCH_MINUTES), all in
// process: every Job must be created in its minute, none twice. Printed: the
// Jobs created, the minutes with a Job missing or doubled, and how late after
// its scheduled time each Job was created (on the fake clock).
import { setMaxListeners } from 'node:events';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  EventSinkImpl,
  FakeClock,
  newBroadcaster,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { createClient } from '@kcm-ts/client';
import { CronJobController, concurrentCronJobSyncs } from '@kcm-ts/cronjob';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { JobController, concurrentJobSyncs } from '@kcm-ts/job';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

const completions = Number(process.env.BENCH_COMPLETIONS ?? 1000);
const parallelism = Number(process.env.BENCH_PARALLELISM ?? 100);
const nodes = Number(process.env.BENCH_NODES ?? 10);
const cronJobs = Number(process.env.BENCH_CRONJOBS ?? 100);
const minutes = Number(process.env.BENCH_MINUTES ?? 30);
const podStartDelay = 100;
const podReadyDelay = 100;
const runMs = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sleeper = (labels: Record<string, string> = {}) => ({
  metadata: { labels },
  spec: {
    restartPolicy: 'Never',
    containers: [{ name: 'work', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 1'] }],
  },
});

const complete = (job: Job | undefined): boolean =>
  (job?.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');

interface Counted {
  ms: number;
  requests: Map<string, number>;
}

/** Starts a sandbox that counts the HTTP requests made while `counting` holds. */
async function countingSandbox(): Promise<{
  sandbox: Sandbox;
  requests: Map<string, number>;
  count: (on: boolean) => void;
}> {
  let counting = false;
  const requests = new Map<string, number>();
  const sandbox = await startSandbox({
    nodes,
    podStartDelay,
    podReadyDelay,
    onRequest: (method, url, code) => {
      if (!counting) return;
      const path = url.split('?')[0] ?? '';
      const watch = /[?&]watch=(true|1)/.test(url);
      const resource = /\/(pods|jobs|events)(\/[^/]+)?(\/status)?$/.exec(path);
      const failed = code >= 300 ? ` (${code})` : '';
      const key = `${watch ? 'WATCH' : method} ${resource ? `${resource[1]}${resource[3] ?? ''}` : path}${failed}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
    },
  });
  return { sandbox, requests, count: (on) => (counting = on) };
}

/** The Job controller over HTTPS, one Job of `completions` pods, timed to Complete. */
async function jobController(): Promise<Counted> {
  const { sandbox, requests, count } = await countingSandbox();
  const stop = new AbortController();
  try {
    const client = createClient(sandbox.kubeconfigObject);
    setMaxListeners(0, stop.signal);
    const broadcaster = newBroadcaster({ signal: stop.signal });
    broadcaster.startRecordingToSink(new EventSinkImpl(client.events));
    const factory = new SharedInformerFactory(client, 0);
    const controller = new JobController({
      jobs: factory.jobs(),
      pods: factory.pods(),
      client: { jobs: client.jobs, pods: client.pods },
      recorder: broadcaster.newRecorder({ component: 'job-controller' }),
    });
    factory.start(stop.signal);
    const running = controller.run(concurrentJobSyncs, stop.signal);
    await factory.waitForCacheSync(stop.signal);
    const jobs = sandbox.client<Job>('batch', 'jobs').inNamespace('default');
    count(true);
    const start = performance.now();
    await jobs.create({
      metadata: { name: 'work' },
      spec: { completions, parallelism, backoffLimit: 0, template: sleeper() },
    });
    while (!complete(await jobs.get('work'))) await sleep(10);
    const ms = performance.now() - start;
    count(false);
    stop.abort();
    await running;
    await factory.shutdown();
    broadcaster.shutdown();
    return { ms, requests };
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

/** A client with no controller keeping `parallelism` pods running until `completions` succeeded. */
async function bareRunner(): Promise<Counted> {
  const { sandbox, requests, count } = await countingSandbox();
  const stop = new AbortController();
  try {
    const pods = createClient(sandbox.kubeconfigObject).pods.inNamespace('default');
    const local = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const list = await local.list({ labelSelector: 'app=bare' });
    const events = await local.watch({
      labelSelector: 'app=bare',
      resourceVersion: list.metadata.resourceVersion,
      signal: stop.signal,
    });
    let created = 0;
    const create = async (): Promise<void> => {
      created++;
      await pods.create({
        ...sleeper({ app: 'bare' }),
        metadata: { generateName: 'bare-', labels: { app: 'bare' } },
      });
    };
    count(true);
    const start = performance.now();
    const first = Array.from({ length: Math.min(parallelism, completions) }, () => create());
    const succeeded = new Set<string>();
    const more: Promise<void>[] = [];
    for await (const e of events) {
      if (e.type !== 'MODIFIED') continue;
      const name = e.object.metadata?.name ?? '';
      if (e.object.status?.phase !== 'Succeeded' || succeeded.has(name)) continue;
      succeeded.add(name);
      if (created < completions) more.push(create());
      if (succeeded.size === completions) break;
    }
    const ms = performance.now() - start;
    count(false);
    await Promise.all([...first, ...more]);
    return { ms, requests };
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

/** What the CronJob run saw: every Job's scheduled minute and how late it came. */
interface CronRun {
  created: number;
  missing: number;
  doubled: number;
  lateMs: number[];
  wallMs: number;
}

/** 100 CronJobs firing every minute for 30 minutes of fake clock, with both controllers. */
async function cronJobRun(): Promise<CronRun> {
  const start = Date.UTC(2026, 0, 5, 9, 0, 30);
  const clock = new FakeClock(start);
  const sandbox = await startSandbox({ clock, nodes: 1, insecureHttp: true, podStartDelay: 100 });
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  };
  try {
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    };
    const jobsClient = sandbox.client<Job>('batch', 'jobs');
    const cronClient = sandbox.client<CronJob>('batch', 'cronjobs');
    const factory = new SharedInformerFactory(source, 0, { clock });
    const jobs = new JobController({
      jobs: factory.jobs(),
      pods: factory.pods(),
      client: { jobs: jobsClient, pods: sandbox.client<Pod>('', 'pods') },
      clock,
    });
    const crons = new CronJobController({
      jobs: factory.jobs(),
      cronJobs: factory.cronJobs(),
      client: { jobs: jobsClient, cronJobs: cronClient },
      clock,
    });
    factory.start(stop.signal);
    const running = [
      jobs.run(concurrentJobSyncs, stop.signal),
      crons.run(concurrentCronJobSyncs, stop.signal),
    ];
    // Every Job ever created, from a watch: finished ones are pruned by the history limits.
    const seen = new Map<string, number>();
    const lateMs: number[] = [];
    const watch = await jobsClient.inNamespace('default').watch({ signal: stop.signal });
    const watching = (async () => {
      for await (const e of watch) {
        if (e.type !== 'ADDED') continue;
        const scheduled = Date.parse(
          e.object.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '',
        );
        const key = `${e.object.metadata?.ownerReferences?.[0]?.name ?? ''}@${scheduled}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        lateMs.push(Date.parse(e.object.metadata?.creationTimestamp ?? '') - scheduled);
      }
    })();
    for (let i = 0; i < cronJobs; i++) {
      await cronClient.inNamespace('default').create({
        metadata: { name: `tick-${i}` },
        spec: {
          schedule: '*/1 * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'c', image: 'busybox:1.36', command: ['true'] }],
                },
              },
            },
          },
        },
      });
    }
    const wallStart = performance.now();
    for (let t = 0; t < minutes * 60_000; t += 250) {
      await clock.advance(250);
      await settle();
    }
    const wallMs = performance.now() - wallStart;
    stop.abort();
    await Promise.all(running);
    await watching;
    await factory.shutdown();
    // The minutes that had to get a Job: every whole minute after the CronJobs were made.
    const first = Math.ceil(start / 60_000) * 60_000;
    let missing = 0;
    let doubled = 0;
    for (let i = 0; i < cronJobs; i++) {
      for (let m = first; m <= start + minutes * 60_000; m += 60_000) {
        const n = seen.get(`tick-${i}@${m}`) ?? 0;
        if (n === 0) missing++;
        if (n > 1) doubled++;
      }
    }
    const created = [...seen.values()].reduce((a, b) => a + b, 0);
    return { created, missing, doubled, lateMs, wallMs };
  } finally {
    stop.abort();
    await sandbox.stop();
  }
}

const bare = await bareRunner();
process.stderr.write(`bare runner: ${bare.ms.toFixed(0)} ms\n`);
const job = await jobController();
process.stderr.write(`Job controller: ${job.ms.toFixed(0)} ms\n`);
const cron = await cronJobRun();
process.stderr.write(
  `CronJobs: ${cron.created} Jobs in ${cron.wallMs.toFixed(0)} ms of real time\n`,
);

const total = (r: Counted, match: (k: string) => boolean = () => true) =>
  [...r.requests].filter(([k]) => match(k)).reduce((n, [, v]) => n + v, 0);
const bound = Math.ceil(completions / parallelism) * (podStartDelay + runMs);
const row = (name: string, r: Counted) =>
  [
    name,
    (total(r, (k) => k.startsWith('POST pods')) / completions).toFixed(2),
    (total(r, (k) => !k.startsWith('WATCH')) / completions).toFixed(2),
    `${(r.ms / 1000).toFixed(2)} s`,
    (r.ms / bound).toFixed(2),
    (r.ms / bare.ms).toFixed(2),
  ].join(' | ');
console.log(
  `${completions} pods of \`sleep 1\`, ${parallelism} at a time, ${nodes} nodes, pods start ${podStartDelay} ms after they are scheduled; ` +
    `pipeline bound = ceil(${completions} / ${parallelism}) × ${podStartDelay + runMs} ms = ${(bound / 1000).toFixed(2)} s`,
);
console.log('');
console.log('| case | creates/pod | API requests/pod | to Complete | ÷ bound | ÷ bare runner |');
console.log('|---|---|---|---|---|---|');
console.log(`| ${row('bare runner (no controller)', bare)} |`);
console.log(`| ${row(`Job controller, ${concurrentJobSyncs} workers`, job)} |`);
console.log('');
for (const [name, r] of [
  ['bare runner', bare],
  ['Job controller', job],
] as const) {
  const byKind = [...r.requests].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
  console.log(`${name}, requests: ${byKind.join(', ')}`);
}
console.log('');
const late = [...cron.lateMs].sort((a, b) => a - b);
const pct = (p: number) =>
  late[Math.min(late.length - 1, Math.floor((late.length * p) / 100))] ?? NaN;
console.log(
  `${cronJobs} CronJobs \`*/1 * * * *\` over ${minutes} minutes of fake clock: ${cron.created} Jobs created, ` +
    `${cron.missing} scheduled minutes without a Job, ${cron.doubled} with more than one; ` +
    `created after their scheduled time by ${pct(50)} ms (median), ${pct(99)} ms (p99), ${late.at(-1) ?? NaN} ms (max) on the fake clock; ` +
    `${(cron.wallMs / 1000).toFixed(1)} s of real time`,
);
