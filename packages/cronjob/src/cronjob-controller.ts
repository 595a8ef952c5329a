// The CronJob controller: pkg/controller/cronjob/cronjob_controllerv2.go
// (ControllerV2, NewControllerV2, Run, worker, processNextWorkItem, sync,
// resolveControllerRef, getJobsToBeReconciled, addJob, updateJob, deleteJob,
// enqueueController, enqueueControllerAfter, updateCronJob, syncCronJob,
// cleanupFinishedJobs, getFinishedStatus, removeOldestJobs, deleteJob) and
// the default of kube-controller-manager's --concurrent-cron-job-syncs
// (pkg/controller/cronjob/config/v1alpha1/defaults.go).
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  formatTime,
  getControllerOf,
  hasStatusCause,
  isAlreadyExists,
  isControlledBy,
  isDeletedFinalStateUnknown,
  isNotFound,
  loadLocation,
  noopEventRecorder,
  noopLogger,
  parseStandard,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type CronSchedule,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Lister,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  realCronJobControl,
  realJobControl,
  type CronJobControl,
  type JobControl,
} from './injection.js';
import { finishedCondition, isJobFinished, isJobSucceeded } from './job-util.js';
import {
  jobCreationSkewDescriptor,
  noopCronJobMetricsProvider,
  type CronJobHistogram,
  type CronJobMetricsProvider,
} from './metrics.js';
import {
  byJobStartTime,
  cronJobKind,
  deleteFromActiveList,
  errorText,
  formatRFC1123Z,
  formatSchedule,
  getJobFromTemplate2,
  getJobName,
  getRef,
  goQuote,
  inActiveList,
  inActiveListByName,
  metaTime,
  nextScheduleTime,
  nextScheduleTimeDuration,
  objectName,
} from './utils.js';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-cron-job-syncs` flag, the default of Go's
 * `ConcurrentCronJobSyncs`.
 *
 * @category CronJob controller
 */
export const concurrentCronJobSyncs = 5;

/**
 * The name kube-controller-manager gives the controller, in its logs and as
 * the component of its events.
 *
 * @category CronJob controller
 */
export const cronJobControllerName = 'cronjob-controller';

// core/v1's NamespaceTerminatingCause: a create refused because the
// namespace is going away.
const namespaceTerminatingCause = 'NamespaceTerminating';

/**
 * The clients the controller writes through (unscoped: it picks each
 * object's namespace), as `startCronJobController` hands it a clientset.
 *
 * @category CronJob controller
 */
export interface CronJobControllerClients {
  /** batch/v1 jobs: fresh reads, creations and deletions. */
  jobs: ResourceClient<Job>;
  /** batch/v1 cronjobs: fresh reads and status writes. */
  cronJobs: ResourceClient<CronJob>;
}

/**
 * Options for {@link CronJobController}: what Go's `NewControllerV2` takes.
 *
 * @category CronJob controller
 */
export interface CronJobControllerOptions {
  /** The Job informer, usually `factory.jobs()`. */
  jobs: ResourceInformer<Job>;
  /** The CronJob informer of the same factory, usually `factory.cronJobs()`. */
  cronJobs: ResourceInformer<CronJob>;
  /** The clients to write through. */
  client: CronJobControllerClients;
  /**
   * Records the events about CronJobs (`SuccessfulCreate`, `SawCompletedJob`,
   * `MissSchedule`, ...); kube-controller-manager's comes from a broadcaster
   * with the component name {@link cronJobControllerName}. Default none.
   */
  recorder?: EventRecorder;
  /** Time for schedules, requeues and the queue. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Makes the `cronjob_controller_*` metric. Default a metric that does nothing. */
  metricsProvider?: CronJobMetricsProvider;
  /** Reads, creates and deletes Jobs; default one over `client.jobs`. */
  jobControl?: JobControl;
  /** Reads CronJobs and writes their status; default one over `client.cronJobs`. */
  cronJobControl?: CronJobControl;
}

/**
 * What {@link CronJobController.syncCronJob} decided: Go's three return
 * values.
 *
 * @category CronJob controller
 */
export interface SyncCronJobResult {
  /** When to look at the CronJob again, in ms: at its next scheduled time. `undefined`: not until it changes. */
  requeueAfter: number | undefined;
  /** Whether the CronJob's status changed and must be written. */
  updateStatus: boolean;
  /** What went wrong, if anything; the status is written all the same. */
  error?: Error;
}

/** `err` if it is an Error, else an Error carrying it. */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err), { cause: err });
}

/** The CronJob with its kind, so events name it even when a list left the kind out. */
function withKind(cj: CronJob): CronJob {
  return cj.kind === 'CronJob' ? cj : { ...cj, apiVersion: 'batch/v1', kind: 'CronJob' };
}

/** Structural equality of two owner references (Go's `reflect.DeepEqual`). */
function sameRef(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Runs CronJobs: Go's `ControllerV2`. It watches CronJobs and Jobs through
 * shared informers and keeps one key per CronJob in a delaying queue, due at
 * the CronJob's next scheduled time (plus 100 ms). Each sync deletes the
 * finished Jobs past the history limits, takes finished and vanished Jobs out
 * of `status.active`, records `lastSuccessfulTime`, and, when a scheduled time
 * has come (and its `startingDeadlineSeconds` has not passed), creates the Job
 * for it, named after the minute it was due, as the concurrency policy allows:
 * `Allow` runs it beside the others, `Forbid` skips it while one runs,
 * `Replace` deletes the running ones first. Then it writes `status.active`
 * and `lastScheduleTime`.
 *
 * Construct it before starting the informer factory (it registers its event
 * handlers), then call {@link CronJobController.run}, as
 * kube-controller-manager's `startCronJobController` does.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#start-controller}
 *
 * @category CronJob controller
 */
export class CronJobController {
  /** The work queue (named `cronjob`), of CronJob keys. */
  readonly queue: RateLimitingQueue<string>;

  readonly #jobInformer: SharedIndexInformer<Job>;
  readonly #cronJobInformer: SharedIndexInformer<CronJob>;
  readonly #jobLister: Lister<Job>;
  readonly #cronJobLister: Lister<CronJob>;
  readonly #jobControl: JobControl;
  readonly #cronJobControl: CronJobControl;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #creationSkew: CronJobHistogram;
  #running = false;

  /** @param options - see {@link CronJobControllerOptions} */
  constructor(options: CronJobControllerOptions) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#jobControl = options.jobControl ?? realJobControl(options.client.jobs);
    this.#cronJobControl = options.cronJobControl ?? realCronJobControl(options.client.cronJobs);
    this.#creationSkew = (options.metricsProvider ?? noopCronJobMetricsProvider).newHistogram(
      jobCreationSkewDescriptor,
    );
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'cronjob',
      clock: this.#clock,
    });

    this.#jobInformer = options.jobs.informer();
    this.#jobInformer.addEventHandler({
      onAdd: (job) => this.#handle(() => this.addJob(job)),
      onUpdate: (oldJob, curJob) => this.#handle(() => this.updateJob(oldJob, curJob)),
      onDelete: (job) => this.#handle(() => this.deleteJob(job)),
    });
    this.#jobLister = options.jobs.lister();

    this.#cronJobInformer = options.cronJobs.informer();
    this.#cronJobInformer.addEventHandler({
      onAdd: (cj) => this.#handle(() => this.enqueueController(cj)),
      onUpdate: (oldCJ, curCJ) => this.#handle(() => this.updateCronJob(oldCJ, curCJ)),
      onDelete: (cj) => this.#handle(() => this.enqueueController(cj)),
    });
    this.#cronJobLister = options.cronJobs.lister();
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` workers
   * (kube-controller-manager runs {@link concurrentCronJobSyncs}) until
   * `signal` aborts; resolves once every worker has stopped and the queue is
   * shut down. A sync in progress when the signal aborts ends at its next
   * request (the signal is passed to the client); keys still queued or
   * waiting for their scheduled time are dropped. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('CronJobController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('CronJobController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // A worker blocked in get() returns once the queue shuts down.
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    log.info('Starting controller', { controller: cronJobControllerName });
    try {
      const synced = await waitForNamedCacheSync(
        cronJobControllerName,
        signal,
        [() => this.#jobInformer.hasSynced(), () => this.#cronJobInformer.hasSynced()],
        { clock: this.#clock, logger: log },
      );
      if (!synced) return;
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down controller', { controller: cronJobControllerName });
    }
  }

  /** Processes keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one key and syncs it: a failure is retried with the queue's
   * backoff (5 ms doubling to 1000 s, and 10 per second overall); a
   * CronJob with a next scheduled time is forgotten by the rate limiter and
   * added back for that time. Resolves false once the queue has shut down.
   * Go's `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      const requeueAfter = await this.sync(key, signal);
      if (requeueAfter !== undefined) {
        this.queue.forget(key);
        this.queue.addAfter(key, requeueAfter);
      }
    } catch (err) {
      if (!signal?.aborted) {
        this.#logger.error(err, 'error syncing CronJobController, requeuing', { key });
      }
      this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  //#region sync
  /**
   * Syncs the CronJob `key` (`namespace/name`) once: Go's `sync`. Reads it
   * from the cache (gone: nothing to do), gathers the Jobs it controls,
   * deletes the finished ones past the history limits
   * ({@link CronJobController.cleanupFinishedJobs}), decides and does the
   * rest ({@link CronJobController.syncCronJob}), and writes the status once
   * if either changed it. Resolves with when to sync it again (ms), or
   * `undefined` (suspended, deleted, a broken schedule).
   *
   * @throws the error of a status write, or of `syncCronJob` when it leaves
   *   no time to come back at
   */
  async sync(key: string, signal?: AbortSignal): Promise<number | undefined> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cronJob = this.#cronJobLister.byNamespace(namespace).tryGet(name);
    if (cronJob === undefined) {
      this.#logger.v(4).info('CronJob not found, may be it is deleted', { cronjob: key });
      return undefined;
    }
    const jobsToBeReconciled = this.getJobsToBeReconciled(cronJob);
    // One copy collects every change, so the status is written once.
    const cronJobCopy = withKind(structuredClone(cronJob));
    const updateStatusAfterCleanup = await this.cleanupFinishedJobs(
      cronJobCopy,
      jobsToBeReconciled,
      signal,
    );
    const { requeueAfter, updateStatus, error } = await this.syncCronJob(
      cronJobCopy,
      jobsToBeReconciled,
      signal,
    );
    if (error !== undefined) {
      this.#logger.v(2).info('Error reconciling cronjob', { cronjob: key, err: error.message });
    }
    if (updateStatusAfterCleanup || updateStatus) {
      try {
        await this.#cronJobControl.updateStatus(cronJobCopy, signal);
      } catch (err) {
        this.#logger.v(2).info('Unable to update status for cronjob', {
          cronjob: key,
          resourceVersion: cronJob.metadata?.resourceVersion,
          err: errorText(err),
        });
        throw err;
      }
    }
    if (requeueAfter !== undefined) {
      this.#logger.v(4).info('Re-queuing cronjob', { cronjob: key, requeueAfter });
      return requeueAfter;
    }
    // Only a suspended CronJob or a broken schedule gets here without an error.
    if (error !== undefined) throw error;
    return undefined;
  }

  /**
   * The Jobs of the CronJob's namespace whose controller reference names it,
   * whatever their labels (the Job template's labels may have changed since).
   * Go's `getJobsToBeReconciled`, which matches the name alone, as here.
   */
  getJobsToBeReconciled(cronJob: CronJob): Job[] {
    const name = cronJob.metadata?.name;
    return this.#jobLister
      .byNamespace(cronJob.metadata?.namespace ?? '')
      .list()
      .filter((job) => {
        const ref = getControllerOf(job);
        return ref !== undefined && ref.name === name;
      });
  }

  /**
   * Brings the CronJob one step on, changing `cronJob` (a copy) in place; Go's
   * `syncCronJob`:
   *
   * 1. each of its Jobs: an unfinished one missing from `status.active` is
   *    looked for in a fresh read of the CronJob (`UnexpectedJob` if absent
   *    there too); a finished one leaves the list (`SawCompletedJob`), and a
   *    succeeded one moves `lastSuccessfulTime` up;
   * 2. each Job of `status.active` the cache lacks is read fresh, and leaves
   *    the list when it is gone (`MissingJob`);
   * 3. a CronJob being deleted, with an unknown time zone
   *    (`UnknownTimeZone`), suspended, or with an unparseable schedule
   *    (`UnparseableSchedule`) stops here;
   * 4. the scheduled time to run now ({@link nextScheduleTime}), if any; none,
   *    too late for `startingDeadlineSeconds` (`MissSchedule`), already
   *    started, or `Forbid` with a Job running (`JobAlreadyActive`): come back
   *    at the next scheduled time;
   * 5. `Replace`: delete the running Jobs; then create the Job
   *    (`SuccessfulCreate`; one that already exists and is ours is taken up
   *    again), add it to `status.active` and set `lastScheduleTime`.
   *
   * When step 1 reads the CronJob fresh and finds the Job there, the rest
   * works on that fresh copy, as Go's does, and `cronJob` is left as it was.
   */
  async syncCronJob(
    cronJob: CronJob,
    jobs: readonly Job[],
    signal?: AbortSignal,
  ): Promise<SyncCronJobResult> {
    let cj = cronJob;
    const now = this.#clock.now();
    let updateStatus = false;
    const log = this.#logger;
    const key = objectName(cj);
    const result = (requeueAfter: number | undefined, error?: unknown): SyncCronJobResult => ({
      requeueAfter,
      updateStatus,
      ...(error !== undefined && { error: asError(error) }),
    });

    const childrenJobs = new Set<string>();
    for (const j of jobs) {
      const uid = j.metadata?.uid ?? '';
      childrenJobs.add(uid);
      const found = inActiveList(cj, uid);
      if (!found && !isJobFinished(j)) {
        let fresh: CronJob;
        try {
          fresh = await this.#cronJobControl.getCronJob(
            cj.metadata?.namespace ?? '',
            cj.metadata?.name ?? '',
            signal,
          );
        } catch (err) {
          return result(undefined, err);
        }
        // The cache is behind our own status write: go on with the fresh copy.
        if (inActiveList(fresh, uid)) {
          cj = withKind(fresh);
          continue;
        }
        // Created by us before a crash, before the cache caught up, or by
        // someone who wanted us to adopt it.
        this.#recorder.event(
          cj,
          'Warning',
          'UnexpectedJob',
          `Saw a job that the controller did not create or forgot: ${j.metadata?.name ?? ''}`,
        );
      } else if (isJobFinished(j)) {
        if (found) {
          const [, condition] = finishedCondition(j);
          deleteFromActiveList(cj, uid);
          this.#recorder.event(
            cj,
            'Normal',
            'SawCompletedJob',
            `Saw completed job: ${j.metadata?.name ?? ''}, condition: ${condition}`,
          );
          updateStatus = true;
        }
        if (isJobSucceeded(j)) {
          // A succeeded Job counts whether or not it is still listed as active.
          const status = (cj.status ??= {});
          const completion = j.status?.completionTime ?? undefined;
          if (!status.lastSuccessfulTime) {
            if (completion === undefined) delete status.lastSuccessfulTime;
            else status.lastSuccessfulTime = completion;
            updateStatus = true;
          }
          if (
            completion !== undefined &&
            status.lastSuccessfulTime &&
            metaTime(completion) > metaTime(status.lastSuccessfulTime)
          ) {
            status.lastSuccessfulTime = completion;
            updateStatus = true;
          }
        }
      }
    }

    // A Job of the active list that no longer exists would keep the CronJob
    // "active" for ever; ask the server before believing a slow cache.
    for (const ref of [...(cj.status?.active ?? [])]) {
      if (childrenJobs.has(ref.uid ?? '')) continue;
      try {
        await this.#jobControl.getJob(ref.namespace ?? '', ref.name ?? '', signal);
      } catch (err) {
        if (!isNotFound(err)) return result(undefined, err);
        this.#recorder.event(
          cj,
          'Normal',
          'MissingJob',
          `Active job went missing: ${ref.name ?? ''}`,
        );
        deleteFromActiveList(cj, ref.uid);
        updateStatus = true;
      }
    }

    // Being deleted: the status is all there is left to update.
    if (cj.metadata?.deletionTimestamp) return result(undefined);

    const timeZone = cj.spec?.timeZone;
    if (timeZone !== undefined && timeZone !== null) {
      try {
        loadLocation(timeZone);
      } catch (err) {
        log.v(4).info('Not starting job because timeZone is invalid', {
          cronjob: key,
          timeZone,
          err: errorText(err),
        });
        this.#recorder.event(
          cj,
          'Warning',
          'UnknownTimeZone',
          `invalid timeZone: ${goQuote(timeZone)}: ${errorText(err)}`,
        );
        return result(undefined);
      }
    }

    if (cj.spec?.suspend === true) {
      log.v(4).info('Not starting job because the cron is suspended', { cronjob: key });
      return result(undefined);
    }

    const schedule = cj.spec?.schedule ?? '';
    let sched: CronSchedule;
    try {
      sched = parseStandard(formatSchedule(cj, this.#recorder));
    } catch (err) {
      // A user error: nothing to do until the spec changes.
      log.v(2).info('Unparseable schedule', { cronjob: key, schedule, err: errorText(err) });
      this.#recorder.event(
        cj,
        'Warning',
        'UnparseableSchedule',
        `unparseable schedule: ${goQuote(schedule)} : ${errorText(err)}`,
      );
      return result(undefined);
    }

    let scheduledTime: number | undefined;
    try {
      scheduledTime = nextScheduleTime(cj, now, sched, this.#recorder, log);
    } catch (err) {
      log.v(2).info('Invalid schedule', { cronjob: key, schedule, err: errorText(err) });
      this.#recorder.event(
        cj,
        'Warning',
        'InvalidSchedule',
        `invalid schedule: ${schedule} : ${errorText(err)}`,
      );
      return result(undefined);
    }
    if (scheduledTime === undefined) {
      // Only after a restart: otherwise the queue wakes us at a scheduled time.
      log.v(4).info('No unmet start times', { cronjob: key });
      return result(nextScheduleTimeDuration(cj, now, sched));
    }

    const deadline = cj.spec?.startingDeadlineSeconds;
    const tooLate =
      deadline !== undefined && deadline !== null && scheduledTime + deadline * 1000 < now;
    if (tooLate) {
      log.v(4).info('Missed starting window', { cronjob: key });
      this.#recorder.event(
        cj,
        'Warning',
        'MissSchedule',
        `Missed scheduled time to start a job: ${formatRFC1123Z(scheduledTime)}`,
      );
      return result(nextScheduleTimeDuration(cj, now, sched));
    }

    const jobName = getJobName(cj, scheduledTime);
    const lastScheduleTime = cj.status?.lastScheduleTime;
    if (
      inActiveListByName(cj, { metadata: { name: jobName, namespace: cj.metadata?.namespace } }) ||
      (lastScheduleTime && metaTime(lastScheduleTime) === scheduledTime)
    ) {
      log.v(4).info('Not starting job because the scheduled time is already processed', {
        cronjob: key,
        schedule: formatTime(scheduledTime),
      });
      return result(nextScheduleTimeDuration(cj, now, sched));
    }

    const active = cj.status?.active ?? [];
    if (cj.spec?.concurrencyPolicy === 'Forbid' && active.length > 0) {
      // The cache may not show a Job that runs, so Forbid can still overlap
      // two Jobs whose times are close; far apart it holds.
      log
        .v(4)
        .info(
          'Not starting job because prior execution is still running and concurrency policy is Forbid',
          { cronjob: key },
        );
      this.#recorder.event(
        cj,
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      );
      return result(nextScheduleTimeDuration(cj, now, sched));
    }
    if (cj.spec?.concurrencyPolicy === 'Replace') {
      for (const ref of [...active]) {
        log.v(4).info('Deleting job that was still running at next scheduled start time', {
          job: `${ref.namespace ?? ''}/${ref.name ?? ''}`,
        });
        let job: Job;
        try {
          job = await this.#jobControl.getJob(ref.namespace ?? '', ref.name ?? '', signal);
        } catch (err) {
          this.#recorder.event(cj, 'Warning', 'FailedGet', `Get job: ${errorText(err)}`);
          return result(undefined, err);
        }
        if (!(await this.#deleteJob(cj, job, signal))) {
          return result(
            undefined,
            new Error(
              `could not replace job ${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`,
            ),
          );
        }
        updateStatus = true;
      }
    }

    let jobReq: Job;
    try {
      jobReq = getJobFromTemplate2(cj, scheduledTime);
    } catch (err) {
      log.error(err, 'Unable to make Job from template', { cronjob: key });
      return result(undefined, err);
    }
    let jobResp: Job;
    let jobAlreadyExists = false;
    const namespace = cj.metadata?.namespace ?? '';
    try {
      jobResp = await this.#jobControl.createJob(namespace, jobReq, signal);
    } catch (err) {
      // Every create fails in a namespace being deleted: nothing to report.
      if (hasStatusCause(err, namespaceTerminatingCause)) return result(undefined, err);
      if (!isAlreadyExists(err)) {
        this.#recorder.event(
          cj,
          'Warning',
          'FailedCreate',
          `Error creating job: ${errorText(err)}`,
        );
        return result(undefined, err);
      }
      // Ours from an earlier sync whose status write failed: list it again.
      // Someone else's: leave it, and the status, to them.
      jobAlreadyExists = true;
      try {
        jobResp = await this.#jobControl.getJob(namespace, jobReq.metadata?.name ?? '', signal);
      } catch (getErr) {
        return result(undefined, getErr);
      }
      if (!isControlledBy(jobResp, cj)) return result(undefined);
      if (inActiveList(cj, jobResp.metadata?.uid)) return result(undefined);
    }

    if (jobAlreadyExists) {
      log.info('Job already exists', { cronjob: key, job: objectName(jobReq) });
    } else {
      const created = metaTime(jobResp.metadata?.creationTimestamp);
      this.#creationSkew.observe((created - scheduledTime) / 1000);
      log.v(4).info('Created Job', { job: objectName(jobResp), cronjob: key });
      this.#recorder.event(
        cj,
        'Normal',
        'SuccessfulCreate',
        `Created job ${jobResp.metadata?.name ?? ''}`,
      );
    }

    // The Job's name is the lock against creating it twice: a restart here,
    // before the status is written, finds it by name next time.
    const status = (cj.status ??= {});
    status.active = [...(status.active ?? []), getRef(jobResp)];
    status.lastScheduleTime = formatTime(scheduledTime);
    updateStatus = true;
    return result(nextScheduleTimeDuration(cj, now, sched));
  }
  //#endregion sync

  //#region cleanup
  /**
   * Deletes the oldest finished Jobs past `successfulJobsHistoryLimit` and
   * `failedJobsHistoryLimit` (by `status.startTime`); nothing when neither
   * limit is set. Resolves with whether `status.active` changed. Go's
   * `cleanupFinishedJobs`.
   */
  async cleanupFinishedJobs(
    cj: CronJob,
    jobs: readonly Job[],
    signal?: AbortSignal,
  ): Promise<boolean> {
    const successfulLimit = cj.spec?.successfulJobsHistoryLimit;
    const failedLimit = cj.spec?.failedJobsHistoryLimit;
    const isSet = (n: number | undefined | null): n is number => n !== undefined && n !== null;
    if (!isSet(successfulLimit) && !isSet(failedLimit)) return false;

    const successfulJobs: Job[] = [];
    const failedJobs: Job[] = [];
    for (const job of jobs) {
      const [finished, type] = finishedCondition(job);
      if (finished && type === 'Complete') successfulJobs.push(job);
      else if (finished && type === 'Failed') failedJobs.push(job);
    }
    let updateStatus = false;
    if (
      isSet(successfulLimit) &&
      (await this.#removeOldestJobs(cj, successfulJobs, successfulLimit, signal))
    ) {
      updateStatus = true;
    }
    if (isSet(failedLimit) && (await this.#removeOldestJobs(cj, failedJobs, failedLimit, signal))) {
      updateStatus = true;
    }
    return updateStatus;
  }

  /** Deletes the oldest of `jobs` beyond `maxJobs`. Go's `removeOldestJobs`. */
  async #removeOldestJobs(
    cj: CronJob,
    jobs: Job[],
    maxJobs: number,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const numToDelete = jobs.length - maxJobs;
    if (numToDelete <= 0) return false;
    const key = objectName(cj);
    this.#logger.v(4).info('Cleaning up jobs from CronJob list', {
      deletejobnum: numToDelete,
      jobnum: jobs.length,
      cronjob: key,
    });
    jobs.sort(byJobStartTime);
    let updateStatus = false;
    for (const job of jobs.slice(0, numToDelete)) {
      this.#logger
        .v(4)
        .info('Removing job from CronJob list', { job: job.metadata?.name, cronjob: key });
      if (await this.#deleteJob(cj, job, signal)) updateStatus = true;
    }
    return updateStatus;
  }

  /**
   * Deletes the Job and takes it out of `status.active`: `SuccessfulDelete`,
   * or `FailedDelete` and false. Go's `deleteJob`.
   */
  async #deleteJob(cj: CronJob, job: Job, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await this.#jobControl.deleteJob(
        job.metadata?.namespace ?? '',
        job.metadata?.name ?? '',
        signal,
      );
    } catch (err) {
      this.#recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorText(err)}`);
      this.#logger.error(err, 'Error deleting job from cronjob', {
        job: objectName(job),
        cronjob: objectName(cj),
      });
      return false;
    }
    deleteFromActiveList(cj, job.metadata?.uid);
    this.#recorder.event(
      cj,
      'Normal',
      'SuccessfulDelete',
      `Deleted job ${job.metadata?.name ?? ''}`,
    );
    return true;
  }
  //#endregion cleanup

  //#region handlers
  /**
   * The CronJob a controller reference points at, if the cache has it with
   * the same uid. Go's `resolveControllerRef`.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): CronJob | undefined {
    if (ref.kind !== cronJobKind.kind) return undefined;
    const cj = this.#cronJobLister.byNamespace(namespace).tryGet(ref.name);
    return cj?.metadata?.uid === ref.uid ? cj : undefined;
  }

  /**
   * A Job appeared: sync its CronJob. One already being deleted counts as a
   * deletion. Go's `addJob`.
   */
  addJob(job: Job): void {
    if (job.metadata?.deletionTimestamp) {
      this.deleteJob(job);
      return;
    }
    const ref = getControllerOf(job);
    if (ref === undefined) return;
    const cj = this.resolveControllerRef(job.metadata?.namespace ?? '', ref);
    if (cj !== undefined) this.enqueueController(cj);
  }

  /**
   * A Job changed: sync its CronJob, and the previous one when its
   * controller reference changed. A resync (same resourceVersion) is
   * ignored. Go's `updateJob`.
   */
  updateJob(oldJob: Job, curJob: Job): void {
    if (curJob.metadata?.resourceVersion === oldJob.metadata?.resourceVersion) return;
    const curRef = getControllerOf(curJob);
    const oldRef = getControllerOf(oldJob);
    if (!sameRef(curRef, oldRef) && oldRef !== undefined) {
      const old = this.resolveControllerRef(oldJob.metadata?.namespace ?? '', oldRef);
      if (old !== undefined) this.enqueueController(old);
    }
    if (curRef === undefined) return;
    const cj = this.resolveControllerRef(curJob.metadata?.namespace ?? '', curRef);
    if (cj !== undefined) this.enqueueController(cj);
  }

  /** A Job is gone (or a tombstone says so): sync its CronJob. Go's `deleteJob`. */
  deleteJob(obj: Job | DeletedFinalStateUnknown<Job>): void {
    let job: Job;
    if (isDeletedFinalStateUnknown(obj)) {
      const inner: unknown = obj.obj;
      if (inner === undefined || inner === null || typeof inner !== 'object') {
        this.#logger.error(undefined, 'tombstone contained object that is not a Job', {
          key: obj.key,
        });
        return;
      }
      job = inner;
    } else {
      job = obj;
    }
    const ref = getControllerOf(job);
    // Nobody cares about an orphan going away.
    if (ref === undefined) return;
    const cj = this.resolveControllerRef(job.metadata?.namespace ?? '', ref);
    if (cj !== undefined) this.enqueueController(cj);
  }

  /**
   * A CronJob changed. A new schedule or time zone queues it for the new
   * schedule's next time (an unparseable one gets an
   * `UnParseableCronJobSchedule` warning and waits for the next change);
   * any other change syncs it at once. A key already waiting for an earlier
   * time keeps it, and that sync then waits for the next. Go's
   * `updateCronJob`.
   */
  updateCronJob(oldCJ: CronJob, newCJ: CronJob): void {
    const oldZone = oldCJ.spec?.timeZone ?? undefined;
    const newZone = newCJ.spec?.timeZone ?? undefined;
    if (oldCJ.spec?.schedule !== newCJ.spec?.schedule || oldZone !== newZone) {
      let sched: CronSchedule;
      try {
        // No recorder: the sync reports a TZ in the schedule.
        sched = parseStandard(formatSchedule(newCJ));
      } catch (err) {
        this.#logger.v(2).info('Unparseable schedule for cronjob', {
          cronjob: objectName(newCJ),
          schedule: newCJ.spec?.schedule,
          err: errorText(err),
        });
        this.#recorder.event(
          withKind(newCJ),
          'Warning',
          'UnParseableCronJobSchedule',
          `unparseable schedule for cronjob: ${newCJ.spec?.schedule ?? ''}`,
        );
        return;
      }
      const t = nextScheduleTimeDuration(newCJ, this.#clock.now(), sched);
      this.enqueueControllerAfter(newCJ, t ?? 0);
      return;
    }
    // Within the starting deadline the sync acts on it now; otherwise at the
    // next scheduled time.
    this.enqueueController(newCJ);
  }

  /** Queues the CronJob's key. Go's `enqueueController`. */
  enqueueController(obj: CronJob | DeletedFinalStateUnknown<CronJob>): void {
    this.queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  }

  /** Queues the CronJob's key after `ms`. Go's `enqueueControllerAfter`. */
  enqueueControllerAfter(obj: CronJob, ms: number): void {
    this.queue.addAfter(deletionHandlingMetaNamespaceKeyFunc(obj), ms);
  }
  //#endregion handlers

  /**
   * Runs an event handler, logging what it throws instead of letting it reach
   * the informer: Go's `HandleError`.
   */
  #handle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error(err, 'Failed to handle an informer notification');
    }
  }
}
