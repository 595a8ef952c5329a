// A TTL-after-finished controller against an in-process sandbox on a fake
// clock, with its Job requests logged and, where a test says so, answered
// in the sandbox's stead.
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { Registry } from 'prom-client';
import {
  FakeClock,
  formatTime,
  type DeleteOptions,
  type GetOptions,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { newTTLAfterFinishedMetrics } from '../../src/ttlafterfinished/metrics.js';
import {
  TTLAfterFinishedController,
  type TTLAfterFinishedControllerOptions,
} from '../../src/ttlafterfinished/ttl-after-finished-controller.js';
import { memoryLogger, sandboxSource, until } from '../garbagecollector/helpers.js';

/** A Job's delete as the controller sent it. */
export interface JobDelete {
  name: string;
  options: DeleteOptions | undefined;
}

/**
 * Answers to the controller's Job requests in the sandbox's stead: a hook
 * that returns a promise answers; one that returns `undefined` lets the
 * request through.
 */
export interface JobHooks {
  get?: (name: string) => Promise<Job> | undefined;
  delete?: (name: string) => Promise<unknown> | undefined;
}

/**
 * `source`'s clients, with every Job GET and DELETE logged (`get jobs/x`,
 * `delete jobs/x`; the delete's options in `deletes`) and offered to `hooks`.
 */
function recordingJobs(
  source: ResourceClientSource,
  calls: string[],
  deletes: JobDelete[],
  hooks: JobHooks,
): ResourceClientSource {
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { namespaced: boolean; kind: string },
    ): ResourceClient<T> {
      const wrap = (c: ResourceClient<T>): ResourceClient<T> => ({
        get namespace() {
          return c.namespace;
        },
        inNamespace: (ns) => wrap(c.inNamespace(ns)),
        list: (lo) => c.list(lo),
        watch: (lo) => c.watch(lo),
        create: (obj, co) => c.create(obj, co),
        update: (obj, uo) => c.update(obj, uo),
        updateStatus: (obj, uo) => c.updateStatus(obj, uo),
        patch: (name, p, po) => c.patch(name, p, po),
        patchStatus: (name, p, po) => c.patchStatus(name, p, po),
        deleteCollection: (d, lo) => c.deleteCollection(d, lo),
        get: (name: string, go?: GetOptions) => {
          calls.push(`get ${gvr.resource}/${name}`);
          const answer = hooks.get?.(name);
          return answer === undefined
            ? c.get(name, go)
            : (answer as Promise<unknown> as Promise<T>);
        },
        delete: (name, d) => {
          calls.push(`delete ${gvr.resource}/${name}`);
          deletes.push({
            name,
            options: d === undefined ? undefined : { ...d, signal: undefined },
          });
          const answer = hooks.delete?.(name);
          return answer === undefined ? c.delete(name, d) : (answer as Promise<T>);
        },
      });
      return wrap(source.resource<T>(gvr, o));
    },
  };
}

export interface TTLHarness {
  readonly clock: FakeClock;
  readonly sandbox: Sandbox;
  readonly logger: ReturnType<typeof memoryLogger>;
  /** The registry the controller's metrics are in. */
  readonly registry: Registry;
  /** The controller's Job requests, oldest first. */
  readonly calls: string[];
  /** The options of the controller's Job deletes, oldest first. */
  readonly deletes: JobDelete[];
  /** Change these to answer the controller's next requests. */
  readonly hooks: JobHooks;
  /** The sandbox's Jobs client in `default`, for the test's own requests (not logged). */
  readonly jobs: ResourceClient<Job>;
  /** Advances the clock in 100 ms hops until `done` holds. */
  until(done: () => boolean | Promise<boolean>, what: string): Promise<void>;
  /** True once the Job is gone from the server. */
  isGone(name: string): Promise<boolean>;
  /**
   * True once the Job is being deleted: gone, or waiting in the foreground
   * for a garbage collector to delete its pods.
   */
  isDeleting(name: string): Promise<boolean>;
  /** True once a line of the controller's log starts with `prefix`. */
  logged(prefix: string): boolean;
  stop(): Promise<void>;
}

/**
 * Starts a sandbox (unless given one), a Job informer over it, and a
 * TTL-after-finished controller with metrics in a fresh registry.
 */
export async function startTTLController(
  opts: {
    workers?: number;
    /** A sandbox on `clock`; left running at `stop()`. */
    sandbox?: Sandbox;
    clock?: FakeClock;
  } & Partial<TTLAfterFinishedControllerOptions> = {},
): Promise<TTLHarness> {
  const clock = opts.clock ?? new FakeClock();
  const sandbox = opts.sandbox ?? (await startSandbox({ clock, insecureHttp: true }));
  const calls: string[] = [];
  const deletes: JobDelete[] = [];
  const hooks: JobHooks = {};
  const logger = memoryLogger();
  const registry = new Registry();
  const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
  const controller = new TTLAfterFinishedController({
    client: recordingJobs(sandboxSource(sandbox), calls, deletes, hooks),
    jobInformer: factory.jobs(),
    metrics: newTTLAfterFinishedMetrics(registry),
    clock,
    logger,
    ...opts,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(opts.workers ?? 2, abort.signal);
  const jobs = sandbox.client<Job>('batch', 'jobs').inNamespace('default');
  let stopped = false;
  return {
    clock,
    sandbox,
    logger,
    registry,
    calls,
    deletes,
    hooks,
    jobs,
    until: (done, what) => until(clock, done, what, { step: 100, maxSteps: 3000 }),
    async isGone(name) {
      return (await jobs.list()).items.every((j) => j.metadata?.name !== name);
    },
    async isDeleting(name) {
      const found = (await jobs.list()).items.find((j) => j.metadata?.name === name);
      return found === undefined || found.metadata?.deletionTimestamp != null;
    },
    logged: (prefix) => logger.lines.some((l) => l.startsWith(prefix)),
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await running;
      await factory.shutdown();
      if (opts.sandbox === undefined) await sandbox.stop();
    },
  };
}

/** A one-pod Job, with `ttlSecondsAfterFinished` when `ttl` is given. */
export function job(name: string, ttl?: number): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }),
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
      },
    },
  };
}

/**
 * Writes the status the Job controller writes when a Job ends: `Complete`
 * (with the `SuccessCriteriaMet` condition before it) or `Failed` (after
 * `FailureTarget`), at `at` ms since the epoch; without a transition time
 * on the final condition when `at` is `null`.
 */
export async function finish(
  jobs: ResourceClient<Job>,
  name: string,
  how: 'Complete' | 'Failed',
  at: number | null,
  startedAt = at ?? 0,
): Promise<Job> {
  const when = at === null ? undefined : formatTime(at);
  const cond = (type: string, reason: string, time?: string): JobCondition => ({
    type,
    status: 'True',
    reason,
    message: reason,
    lastProbeTime: time,
    ...(time === undefined ? {} : { lastTransitionTime: time }),
  });
  const conditions =
    how === 'Complete'
      ? [
          cond('SuccessCriteriaMet', 'CompletionsReached', formatTime(startedAt)),
          cond('Complete', 'CompletionsReached', when),
        ]
      : [
          cond('FailureTarget', 'BackoffLimitExceeded', formatTime(startedAt)),
          cond('Failed', 'BackoffLimitExceeded', when),
        ];
  return jobs.patchStatus(name, {
    type: 'merge',
    body: {
      status: {
        startTime: formatTime(startedAt),
        ...(how === 'Complete'
          ? { completionTime: when ?? formatTime(startedAt), succeeded: 1 }
          : { failed: 1 }),
        conditions,
      },
    },
  });
}

/** The `_count` and `_sum` of the deletion-duration histogram in `registry`. */
export async function deletionDurations(
  registry: Registry,
): Promise<{ count: number; sum: number }> {
  const metric = registry.getSingleMetric(
    'ttl_after_finished_controller_job_deletion_duration_seconds',
  );
  if (metric === undefined) return { count: 0, sum: 0 };
  const { values } = await metric.get();
  const pick = (suffix: string) =>
    values.find((v) => (v as { metricName?: string }).metricName?.endsWith(suffix))?.value ?? 0;
  return { count: pick('_count'), sum: pick('_sum') };
}
