// Shared test fixtures: the times and CronJob of cronjob_controllerv2_test.go
// (cronJob, jobSpec, justBeforeTheHour, ...), the fakes of injection.go
// (fakeJobControl, fakeCJControl), a controller over caches filled by hand,
// and a harness that runs the controller, with the real Job controller, on
// an in-process sandbox whose simulated node runs the Jobs' pods, on a fake
// clock.
import type { CronJob, Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  isDeletedFinalStateUnknown,
  newNotFound,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Indexer } from '@kcm-ts/informer';
import { JobController } from '@kcm-ts/job';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import {
  CronJobController,
  type CronJobControl,
  type CronJobMetricsProvider,
  type JobControl,
} from '../src/index.js';

/** `T` with its read-only fields (kubernetes-types marks the server-set ones so) writable. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
/** The same object, typed writable, for a test to set server-set fields. */
export const mut = <T>(x: T): Writable<T> => x;

const at = (rfc3339: string): number => Date.parse(rfc3339);
/** 2016-05-19T10:00:00Z, Go's `topOfTheHour`. */
export const topOfTheHour = at('2016-05-19T10:00:00Z');
/** `topOfTheHour` plus `ms`, Go's `deltaTimeAfterTopOfTheHour`. */
export const afterTopOfTheHour = (ms: number): number => topOfTheHour + ms;
export const justASecondBeforeTheHour = at('2016-05-19T09:59:59Z');
export const justAfterThePriorHour = at('2016-05-19T09:01:00Z');
export const justBeforeThePriorHour = at('2016-05-19T08:59:00Z');
export const justAfterTheHour = at('2016-05-19T10:01:00Z');
export const justBeforeTheHour = at('2016-05-19T09:59:00Z');
export const justBeforeTheNextHour = at('2016-05-19T10:59:00Z');
export const weekAfterTheHour = at('2016-05-26T10:00:00Z');

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** A metav1.Time in wire format. */
export const wire = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Go's `jobSpec`: one pod, one completion. */
export function jobSpec(): JobSpec {
  return {
    parallelism: 1,
    completions: 1,
    template: {
      metadata: { labels: { foo: 'bar' } },
      spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
    },
  };
}

/** Go's `cronJob`: `mycronjob` in `snazzycats`, every minute, Allow. */
export function cronJob(): CronJob {
  return {
    metadata: {
      name: 'mycronjob',
      namespace: 'snazzycats',
      uid: '1a2b3c',
      creationTimestamp: wire(justBeforeTheHour),
    },
    spec: {
      schedule: '* * * * ?',
      concurrencyPolicy: 'Allow',
      jobTemplate: {
        metadata: { labels: { a: 'b' }, annotations: { x: 'y' } },
        spec: jobSpec(),
      },
    },
  };
}

/** Go's `fakeJobControl`: records creations and deletions; `getJob` answers `job` whatever the name. */
export class FakeJobControl implements JobControl {
  job: Job | undefined;
  readonly jobs: Job[] = [];
  readonly deleteJobNames: string[] = [];
  /** Fails `getJob` and `deleteJob`. */
  err: Error | undefined;
  /** Fails `createJob`. */
  createErr: Error | undefined;

  constructor(init: { job?: Job; err?: Error; createErr?: Error } = {}) {
    this.job = init.job;
    this.err = init.err;
    this.createErr = init.createErr;
  }

  createJob(_namespace: string, job: Job): Promise<Job> {
    if (this.createErr) return Promise.reject(this.createErr);
    this.jobs.push(structuredClone(job));
    return Promise.resolve({ ...job, metadata: { ...job.metadata, uid: 'test-uid' } });
  }

  getJob(): Promise<Job> {
    if (this.err) return Promise.reject(this.err);
    return Promise.resolve(this.job ?? {});
  }

  deleteJob(_namespace: string, name: string): Promise<void> {
    if (this.err) return Promise.reject(this.err);
    this.deleteJobNames.push(name);
    return Promise.resolve();
  }
}

/** Go's `fakeCJControl`: `getCronJob` answers `cronJob` (by name), `updateStatus` records. */
export class FakeCronJobControl implements CronJobControl {
  readonly updates: CronJob[] = [];

  constructor(public cronJob?: CronJob) {}

  getCronJob(namespace: string, name: string): Promise<CronJob> {
    const cj = this.cronJob;
    if (cj && cj.metadata?.name === name && cj.metadata?.namespace === namespace) {
      return Promise.resolve(cj);
    }
    return Promise.reject(newNotFound({ group: 'batch', resource: 'cronjobs' }, name));
  }

  updateStatus(cronJob: CronJob): Promise<CronJob> {
    this.updates.push(structuredClone(cronJob));
    return Promise.resolve(cronJob);
  }
}

/** Observations of the creation-skew histogram. */
export class RecordingMetrics implements CronJobMetricsProvider {
  readonly observed: number[] = [];
  readonly names: string[] = [];
  newHistogram(d: { name: string }) {
    this.names.push(d.name);
    return { observe: (v: number) => void this.observed.push(v) };
  }
}

/** A controller over caches filled by hand, as the Go tests' `NewControllerV2` on a fake clientset. */
export interface Fixture {
  controller: CronJobController;
  clock: FakeClock;
  jobControl: FakeJobControl;
  cronJobControl: FakeCronJobControl;
  recorder: FakeRecorder;
  metrics: RecordingMetrics;
  jobIndexer: Indexer<Job>;
  cronJobIndexer: Indexer<CronJob>;
}

export function fixture(
  opts: {
    now?: number;
    jobControl?: FakeJobControl;
    cronJobControl?: FakeCronJobControl;
    logger?: Logger;
  } = {},
): Fixture {
  const clock = new FakeClock(opts.now ?? topOfTheHour);
  const source = {
    resource: <T extends KubeObject>(_gvr: GroupVersionResource) =>
      ({}) as unknown as ResourceClient<T>,
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const jobControl = opts.jobControl ?? new FakeJobControl();
  const cronJobControl = opts.cronJobControl ?? new FakeCronJobControl();
  const recorder = new FakeRecorder();
  const metrics = new RecordingMetrics();
  const controller = new CronJobController({
    jobs: factory.jobs(),
    cronJobs: factory.cronJobs(),
    client: {
      jobs: {} as ResourceClient<Job>,
      cronJobs: {} as ResourceClient<CronJob>,
    },
    jobControl,
    cronJobControl,
    recorder,
    clock,
    metricsProvider: metrics,
    ...(opts.logger && { logger: opts.logger }),
  });
  return {
    controller,
    clock,
    jobControl,
    cronJobControl,
    recorder,
    metrics,
    jobIndexer: factory.jobs().informer().getIndexer(),
    cronJobIndexer: factory.cronJobs().informer().getIndexer(),
  };
}

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A running CronJob controller and Job controller on an in-process sandbox with a fake clock. */
export interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  recorder: FakeRecorder;
  metrics: RecordingMetrics;
  controller: CronJobController;
  /** Clients in `default`, for the test's own reads and writes. */
  cronJobsIn: ResourceClient<CronJob>;
  jobsIn: ResourceClient<Job>;
  podsIn: ResourceClient<Pod>;
  /** Every Job the observer saw created, in order, by name (kept after deletion). */
  created: Job[];
  /** The names of the Jobs the observer saw deleted, in order. */
  deleted: string[];
  /** Moves the fake clock in steps (default 500 ms), letting I/O run after each. */
  step(ms: number, stepMs?: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The Jobs of `default` the CronJob controls, oldest first. */
  jobsOf(cronJob: string): Promise<Job[]>;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox with one simulated node (its kubelet runs `sh -c` scripts
 * on the fake clock), a factory, the Job controller and the CronJob
 * controller. The clock starts at `start` (default 2026-01-01T00:00:00Z).
 */
export async function startHarness(
  opts: { start?: number; workers?: number; logger?: Logger; nodes?: number } = {},
): Promise<Harness> {
  const clock = new FakeClock(opts.start ?? Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: opts.nodes ?? 1 });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const recorder = new FakeRecorder();
  const metrics = new RecordingMetrics();
  const factory = new SharedInformerFactory(source, 0, { clock });
  const jobs = sandbox.client<Job>('batch', 'jobs');
  const cronJobs = sandbox.client<CronJob>('batch', 'cronjobs');
  const controller = new CronJobController({
    jobs: factory.jobs(),
    cronJobs: factory.cronJobs(),
    client: { jobs, cronJobs },
    recorder,
    clock,
    metricsProvider: metrics,
    ...(opts.logger && { logger: opts.logger }),
  });
  const jobController = new JobController({
    jobs: factory.jobs(),
    pods: factory.pods(),
    client: { jobs, pods: sandbox.client<Pod>('', 'pods') },
    clock,
  });
  // An observer of its own, so that tests see every Job, even one deleted
  // between two looks.
  const created: Job[] = [];
  const deleted: string[] = [];
  const observer = new SharedInformerFactory(source, 0, { clock });
  observer
    .jobs()
    .informer()
    .addEventHandler({
      onAdd: (job) => void created.push(job),
      onDelete: (job) => {
        const name = isDeletedFinalStateUnknown(job) ? job.key.split('/')[1] : job.metadata?.name;
        deleted.push(name ?? '');
      },
    });
  // One signal per factory: Node warns past ten abort listeners on one.
  const abort = new AbortController();
  const observing = new AbortController();
  factory.start(abort.signal);
  observer.start(observing.signal);
  const running = Promise.all([
    controller.run(opts.workers ?? 2, abort.signal),
    jobController.run(2, abort.signal),
  ]);
  await settle();
  await clock.advance(100);
  await settle();
  const jobsIn = jobs.inNamespace('default');
  const h: Harness = {
    sandbox,
    clock,
    recorder,
    metrics,
    controller,
    cronJobsIn: cronJobs.inNamespace('default'),
    jobsIn,
    podsIn: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    created,
    deleted,
    async step(ms, stepMs = 500) {
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(Math.min(stepMs, ms - t));
        await settle(4);
      }
    },
    async until(cond, maxMs = 300_000) {
      for (let t = 0; t <= maxMs; t += 500) {
        if (await cond()) return;
        await h.step(500);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    async jobsOf(name) {
      const uid = (await h.cronJobsIn.get(name)).metadata?.uid;
      return (await jobsIn.list()).items
        .filter((j) => j.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid))
        .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
    },
    async stop() {
      abort.abort();
      await running;
      await factory.shutdown();
      observing.abort();
      await observer.shutdown();
      await sandbox.stop();
    },
  };
  return h;
}

/** A CronJob to create on the sandbox, whose Jobs print the date and a greeting. */
export function creatableCronJob(
  name: string,
  spec: Partial<NonNullable<CronJob['spec']>> = {},
  script = 'date; echo hello',
): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: {
      schedule: '*/1 * * * *',
      ...spec,
      jobTemplate: spec.jobTemplate ?? {
        spec: {
          template: {
            spec: {
              restartPolicy: 'OnFailure',
              containers: [
                { name: 'hello', image: 'busybox:1.28', command: ['/bin/sh', '-c', script] },
              ],
            },
          },
        },
      },
    },
  };
}
