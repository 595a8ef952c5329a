// Chapter 9, ninth experiment: the CronJob controller at work, started by
// startCronJobController in kube-controller-manager beside the Job
// controller. First three CronJobs run every minute a Job whose pod sleeps
// 90 s, one per concurrencyPolicy, for five minutes; a fourth runs in the
// Asia/Kolkata time zone. Then the manager is down for three minutes:
// a CronJob without a starting deadline catches up with one Job, one with
// startingDeadlineSeconds 30 lets the missed time go.
// Run: npm run cronjob -w tutorials/09-job
import type { CronJob, CronJobSpec } from 'kubernetes-types/batch/v1.js';
import type { Event } from 'kubernetes-types/core/v1.js';
import { startCluster, type Cluster } from './cluster.js';

/** What happened to one Job of a CronJob, times in ms since 00:00:00 UTC. */
export interface JobLife {
  cronJob: string;
  name: string;
  /** When the API server stored it (the controller's sync, not the minute). */
  created: number;
  /** When it completed, if it did. */
  completed?: number;
  /** When it was deleted, if it was. */
  deleted?: number;
  scheduledTimestamp: string | undefined;
}

/** What the experiment recorded, for its test. */
export interface CronRun {
  /** The first run: policies and time zone. */
  policies: JobLife[];
  /** The second run: the outage. */
  outage: JobLife[];
  /** The manager's downtime in the second run. */
  down: { from: number; to: number };
  /** Events about CronJobs, as `00:02:00.1  forbid  Normal JobAlreadyActive ...`. */
  events: string[];
  cronJobs: CronJob[];
}

/** A CronJob whose Jobs run one pod of `script`. */
export function cronJob(name: string, script: string, spec: Partial<CronJobSpec> = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: {
      schedule: '*/1 * * * *',
      ...spec,
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script] }],
            },
          },
        },
      },
    },
  };
}

/** `00:01:00.1`: the clock time of `ms` since 2026-01-01T00:00:00Z. */
const clockTime = (ms: number): string => {
  const d = new Date(Date.UTC(2026, 0, 1) + ms);
  return `${d.toISOString().slice(11, 19)}.${Math.floor(d.getUTCMilliseconds() / 100)}`;
};

/** Records every Job the CronJobs make, and the CronJobs' events. */
function record(c: Cluster, lives: JobLife[], events: string[]): () => void {
  const epoch = Date.UTC(2026, 0, 1);
  const unsubscribe = c.observe((ch) => {
    if (ch.kind !== 'Job') return;
    const owner = ch.object.metadata?.ownerReferences?.find((r) => r.kind === 'CronJob');
    if (owner === undefined) return;
    const name = ch.object.metadata?.name ?? '';
    const now = c.clock.now() - epoch;
    let life = lives.find((l) => l.name === name);
    if (life === undefined) {
      life = {
        cronJob: owner.name,
        name,
        created: now,
        scheduledTimestamp:
          ch.object.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'],
      };
      lives.push(life);
    }
    const complete = ch.object.status?.conditions?.some(
      (x) => x.type === 'Complete' && x.status === 'True',
    );
    if (complete && life.completed === undefined) life.completed = now;
    if (ch.type === 'DELETED') life.deleted = now;
  });
  const unsubscribeEvents = c.env.sandbox.registry.storage.subscribe((e) => {
    if (e.storage !== 'events') return;
    const ev = e.object as Event;
    const before = e.prev as Event | undefined;
    // A new event, or one the recorder's correlator counted again.
    const again = e.type === 'MODIFIED' && (ev.count ?? 1) > (before?.count ?? 1);
    if (ev.involvedObject.kind !== 'CronJob' || (e.type !== 'ADDED' && !again)) return;
    events.push(
      `${clockTime(c.clock.now() - epoch)}  ${ev.involvedObject.name}  ${ev.type} ${ev.reason} ${ev.message}`,
    );
  });
  return () => {
    unsubscribe();
    unsubscribeEvents();
  };
}

/** Steps the clock to `ms` after 00:00:00 UTC. */
async function stepTo(c: Cluster, ms: number): Promise<void> {
  const target = Date.UTC(2026, 0, 1) + ms;
  await c.step(target - c.clock.now());
}

const minute = 60_000;

/** Runs both parts, printing the Jobs each CronJob made. */
export async function run(print: (line: string) => void = console.log): Promise<CronRun> {
  const log = (line: string) => print(line.trimEnd());
  const events: string[] = [];

  // Part one: the concurrency policies, and a time zone.
  const policies: JobLife[] = [];
  let cronJobs: CronJob[] = [];
  {
    const c = await startCluster();
    try {
      const stop = record(c, policies, events);
      //#region policies
      for (const policy of ['Allow', 'Forbid', 'Replace'] as const) {
        await c.cronJobs.create(
          cronJob(policy.toLowerCase(), 'sleep 90', { concurrencyPolicy: policy }),
        );
      }
      // 05:31 in Kolkata is 00:01 UTC.
      await c.cronJobs.create(
        cronJob('kolkata', 'date', { schedule: '31 5 * * *', timeZone: 'Asia/Kolkata' }),
      );
      //#endregion policies
      await stepTo(c, 5 * minute + 30_000);
      stop();
      cronJobs = (await c.cronJobs.list()).items;
    } finally {
      await c.stop();
    }
  }

  // Part two: the manager is down from 00:01:30 to 00:04:40.
  const outage: JobLife[] = [];
  const down = { from: 1.5 * minute, to: 4 * minute + 40_000 };
  {
    const c = await startCluster();
    try {
      const stop = record(c, outage, events);
      await c.cronJobs.create(cronJob('late', 'date'));
      await c.cronJobs.create(cronJob('strict', 'date', { startingDeadlineSeconds: 30 }));
      await stepTo(c, down.from);
      await c.stopManager();
      await stepTo(c, down.to);
      await c.startManager();
      await stepTo(c, 5 * minute + 30_000);
      stop();
    } finally {
      await c.stop();
    }
  }

  const show = (lives: JobLife[], names: string[]) => {
    for (const name of names) {
      log(`${name}:`);
      for (const l of lives.filter((x) => x.cronJob === name)) {
        const end =
          l.deleted !== undefined && (l.completed === undefined || l.deleted < l.completed)
            ? `deleted ${clockTime(l.deleted)}`
            : l.completed !== undefined
              ? `complete ${clockTime(l.completed)}`
              : 'running';
        log(`  ${l.name.padEnd(22)} created ${clockTime(l.created)}  ${end}`);
      }
    }
  };
  log('every minute, a Job whose pod sleeps 90 s (clock times UTC):');
  show(policies, ['allow', 'forbid', 'replace']);
  const kolkata = policies.find((l) => l.cronJob === 'kolkata');
  log(
    `kolkata (31 5 * * * in Asia/Kolkata): ${kolkata?.name} created ${kolkata === undefined ? '' : clockTime(kolkata.created)}, scheduled ${kolkata?.scheduledTimestamp}`,
  );
  log('');
  log(`the manager down from ${clockTime(down.from)} to ${clockTime(down.to)}:`);
  show(outage, ['late', 'strict']);
  log('');
  for (const e of events.filter((e) => !/SawCompletedJob|SuccessfulCreate/.test(e))) log(e);
  return { policies, outage, down, events, cronJobs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
