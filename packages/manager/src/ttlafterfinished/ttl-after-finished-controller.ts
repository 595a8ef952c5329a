// The TTL-after-finished controller: Go's
// pkg/controller/ttlafterfinished/ttlafterfinished_controller.go (Controller,
// New, Run, processJob, processTTL, needsCleanup, getFinishAndExpireTime,
// timeLeft, jobFinishTime) and the default of its configuration
// (config/v1alpha1/defaults.go: ConcurrentTTLSyncs). It deletes finished
// Jobs once `spec.ttlSecondsAfterFinished` has passed since they finished.
import type { Job } from 'kubernetes-types/batch/v1.js';
import {
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type DeleteOptions,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import { noopTTLAfterFinishedMetrics, type TTLAfterFinishedMetrics } from './metrics.js';

/**
 * The default number of workers: kube-controller-manager's
 * `--concurrent-ttl-after-finished-syncs`.
 *
 * @category TTL-after-finished controller
 */
export const defaultConcurrentTTLSyncs = 5;

/**
 * What a {@link TTLAfterFinishedController} is made from: the arguments of
 * Go's `New`, plus the injected metrics, clock and logger.
 *
 * @category TTL-after-finished controller
 */
export interface TTLAfterFinishedControllerOptions {
  /** Names the controller in logs. Default `ttl-after-finished-controller`. */
  controllerName?: string;
  /** Reads a Job fresh from the API server before deleting it, and deletes it. */
  client: ResourceClientSource;
  /** The shared batch/v1 Job informer, such as `factory.jobs()`. */
  jobInformer: ResourceInformer<Job>;
  /**
   * Where the deletion latency is recorded, such as
   * `newTTLAfterFinishedMetrics(registry)`. Default: nowhere.
   */
  metrics?: TTLAfterFinishedMetrics;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * True when a `Complete` or `Failed` condition is `True`: Go's
 * `jobutil.IsJobFinished`.
 */
function isJobFinished(job: Job): boolean {
  return (job.status?.conditions ?? []).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

/** `namespace/name`, for messages and logs. */
function jobRef(job: Job): string {
  return `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`;
}

/**
 * True when the Job has finished and has a TTL: the Jobs this controller
 * deletes. Go's `needsCleanup`.
 *
 * @category TTL-after-finished controller
 */
export function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished != null && isJobFinished(job);
}

/**
 * When a finished Job finished, in ms since the epoch: the
 * `lastTransitionTime` of its first `True` `Complete` or `Failed` condition.
 * Go's `jobFinishTime`.
 *
 * @throws Error when that condition has no time, or there is no such condition
 * @category TTL-after-finished controller
 */
export function jobFinishTime(job: Job): number {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') {
      const at = c.lastTransitionTime == null ? NaN : Date.parse(c.lastTransitionTime);
      if (Number.isNaN(at)) {
        throw new Error(`unable to find the time when the Job ${jobRef(job)} finished`);
      }
      return at;
    }
  }
  // A finished Job always has one; this guards against a caller that did not check.
  throw new Error(`unable to find the status of the finished Job ${jobRef(job)}`);
}

/**
 * When a Job finished and when its TTL expires, in ms since the epoch. Go's
 * `getFinishAndExpireTime`.
 *
 * @throws Error when the Job is not finished or has no TTL, or from {@link jobFinishTime}
 * @category TTL-after-finished controller
 */
export function getFinishAndExpireTime(job: Job): { finishAt: number; expireAt: number } {
  if (!needsCleanup(job)) throw new Error(`job ${jobRef(job)} should not be cleaned up`);
  const finishAt = jobFinishTime(job);
  const ttl = job.spec?.ttlSecondsAfterFinished ?? 0;
  return { finishAt, expireAt: finishAt + ttl * 1000 };
}

/**
 * How long a finished Job has left before its TTL expires, counted from
 * `since` (ms since the epoch; zero or less once expired), and when it
 * expires. Warns through `logger` when the Job finished after `since`
 * (clock skew between the API server and this controller). Go's `timeLeft`.
 *
 * @throws Error as {@link getFinishAndExpireTime}
 * @category TTL-after-finished controller
 */
export function timeLeft(
  job: Job,
  since: number,
  logger: Logger = noopLogger,
): { remaining: number; expireAt: number } {
  const { finishAt, expireAt } = getFinishAndExpireTime(job);
  if (finishAt > since) {
    logger.info(
      'Warning: Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.',
      { job: jobRef(job) },
    );
  }
  const remaining = expireAt - since;
  logger.v(4).info('Found Job finished', {
    job: jobRef(job),
    finishTime: new Date(finishAt).toISOString(),
    remainingTTL: `${remaining}ms`,
    startTime: new Date(since).toISOString(),
    deadlineTTL: new Date(expireAt).toISOString(),
  });
  return { remaining, expireAt };
}

/**
 * kube-controller-manager's TTL-after-finished controller: a Job that has
 * finished (a `True` `Complete` or `Failed` condition) and sets
 * `spec.ttlSecondsAfterFinished` is deleted, with its pods, once that many
 * seconds have passed since it finished. It looks again when the TTL is due,
 * and re-reads the Job from the API server before deleting it, in case the
 * TTL changed meanwhile. Go's `Controller`.
 *
 * @example
 * ```ts
 * const ttl = new TTLAfterFinishedController({ client, jobInformer: factory.jobs() });
 * factory.start(signal);
 * await ttl.run(defaultConcurrentTTLSyncs, signal);
 * ```
 *
 * @category TTL-after-finished controller
 */
export class TTLAfterFinishedController {
  readonly #name: string;
  readonly #jobs: ResourceClient<Job>;
  readonly #informer: ResourceInformer<Job>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #metrics: TTLAfterFinishedMetrics;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link TTLAfterFinishedControllerOptions} */
  constructor(opts: TTLAfterFinishedControllerOptions) {
    this.#name = opts.controllerName ?? 'ttl-after-finished-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#metrics = opts.metrics ?? noopTTLAfterFinishedMetrics;
    this.#informer = opts.jobInformer;
    this.#jobs = opts.client.resource<Job>(
      { group: 'batch', version: 'v1', resource: 'jobs' },
      { namespaced: true, kind: 'Job' },
    );
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'ttl_jobs_to_delete',
      clock: this.#clock,
    });
    this.#informer.informer().addEventHandler({
      onAdd: (job) => {
        this.#logger.v(4).info('Adding job', { job: jobRef(job) });
        this.#enqueueIfDue(job);
      },
      onUpdate: (_old, job) => {
        this.#logger.v(4).info('Updating job', { job: jobRef(job) });
        this.#enqueueIfDue(job);
      },
    });
  }

  /** Go's `addJob` and `updateJob`, which differ only in their log line. */
  #enqueueIfDue(job: Job): void {
    if (job.metadata?.deletionTimestamp == null && needsCleanup(job)) {
      this.#logger.v(4).info('Add job to cleanup', { job: jobRef(job) });
      this.#enqueueAfter(job, 0);
    }
  }

  /** Go's `enqueue` (no delay) and `enqueueAfter`. */
  #enqueueAfter(job: Job, ms: number): void {
    let key: string;
    try {
      key = metaNamespaceKeyFunc(job);
    } catch (err) {
      this.#logger.error(
        new Error(`couldn't get key for object ${jobRef(job)}: ${errorText(err)}`),
        'Unhandled Error',
      );
      return;
    }
    if (ms > 0) this.#queue.addAfter(key, ms);
    else this.#queue.add(key);
  }

  /**
   * Waits for the Job informer to sync, then runs `workers` workers until
   * `signal` aborts; resolves once they have stopped. Go's `Run`.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const informer = this.#informer.informer();
      const synced = await waitForNamedCacheSync(this.#name, signal, [() => informer.hasSynced()], {
        clock: this.#clock,
        logger,
      });
      if (!synced) return;
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  /** Processes Job keys until the queue shuts down. Go's `worker` and `processNextWorkItem`. */
  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.#processJob(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        // Go's handleErr; a request cut short by shutdown is no failure worth reporting.
        if (!signal.aborted) {
          this.#logger.error(
            new Error(`error cleaning up Job ${key}, will retry: ${errorText(err)}`),
            'Unhandled Error',
          );
        }
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Deletes the Job `key` if it has finished and its TTL has expired, or
   * looks again when it will have. Go's `processJob`.
   */
  async #processJob(key: string, signal: AbortSignal): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const job = this.#informer.lister().byNamespace(namespace).tryGet(name);
    this.#logger.v(4).info('Checking if Job is ready for cleanup', { job: key });
    if (job === undefined) return;
    if (this.#processTTL(job) === undefined) return;

    // The cached TTL may be stale: the user may have changed it since. Only
    // the Job as the API server has it now decides.
    const jobs = this.#jobs.inNamespace(namespace);
    let fresh: Job;
    try {
      fresh = await jobs.get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const expiredAt = this.#processTTL(fresh);
    if (expiredAt === undefined) return;
    // Foreground, as upstream: the Job goes only after its pods. The uid
    // keeps a newer Job of the same name, which gets its own check, alive.
    const options: DeleteOptions = { propagationPolicy: 'Foreground', signal };
    const uid = fresh.metadata?.uid;
    if (uid !== undefined) options.preconditions = { uid };
    this.#logger.v(4).info('Cleaning up Job', { job: jobRef(fresh) });
    await jobs.delete(fresh.metadata?.name ?? name, options);
    this.#metrics.observeJobDeletionDuration(this.#clock.since(expiredAt) / 1000);
  }

  /**
   * When the Job's TTL expired, in ms since the epoch; `undefined` when it
   * is being deleted, needs no cleanup, or is not due yet (it is then queued
   * again for when it will be). Go's `processTTL`.
   */
  #processTTL(job: Job): number | undefined {
    if (job.metadata?.deletionTimestamp != null || !needsCleanup(job)) return undefined;
    const { remaining, expireAt } = timeLeft(job, this.#clock.now(), this.#logger);
    if (remaining <= 0) return expireAt;
    this.#enqueueAfter(job, remaining);
    return undefined;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
