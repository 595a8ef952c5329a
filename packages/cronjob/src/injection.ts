// The narrow clients the controller writes through, so that tests can swap
// them: pkg/controller/cronjob/injection.go (cjControlInterface,
// realCJControl, jobControlInterface, realJobControl). The fakes of the same
// file live with the tests.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { ResourceClient } from '@kcm-ts/apimachinery';

/**
 * Reads and writes CronJobs: Go's `cjControlInterface`.
 *
 * @category CronJob controller
 */
export interface CronJobControl {
  /** Reads the CronJob fresh from the API server, past the cache. */
  getCronJob(namespace: string, name: string, signal?: AbortSignal): Promise<CronJob>;
  /** Writes the CronJob's status through the `status` subresource. */
  updateStatus(cronJob: CronJob, signal?: AbortSignal): Promise<CronJob>;
}

/**
 * Reads, creates and deletes Jobs: Go's `jobControlInterface`.
 *
 * @category CronJob controller
 */
export interface JobControl {
  /** Reads the Job fresh from the API server, past the cache. */
  getJob(namespace: string, name: string, signal?: AbortSignal): Promise<Job>;
  /** Creates the Job and resolves with it as stored. */
  createJob(namespace: string, job: Job, signal?: AbortSignal): Promise<Job>;
  /** Deletes the Job; the garbage collector deletes its pods afterwards (background propagation). */
  deleteJob(namespace: string, name: string, signal?: AbortSignal): Promise<void>;
}

const withSignal = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

/** A {@link CronJobControl} over a CronJob client: Go's `realCJControl`. */
export function realCronJobControl(cronJobs: ResourceClient<CronJob>): CronJobControl {
  return {
    getCronJob: (namespace, name, signal) =>
      cronJobs.inNamespace(namespace).get(name, withSignal(signal)),
    updateStatus: (cronJob, signal) =>
      cronJobs
        .inNamespace(cronJob.metadata?.namespace ?? '')
        .updateStatus(cronJob, withSignal(signal)),
  };
}

/** A {@link JobControl} over a Job client: Go's `realJobControl`. */
export function realJobControl(jobs: ResourceClient<Job>): JobControl {
  return {
    getJob: (namespace, name, signal) => jobs.inNamespace(namespace).get(name, withSignal(signal)),
    createJob: (namespace, job, signal) =>
      jobs.inNamespace(namespace).create(job, withSignal(signal)),
    async deleteJob(namespace, name, signal) {
      await jobs
        .inNamespace(namespace)
        .delete(name, { propagationPolicy: 'Background', ...withSignal(signal) });
    },
  };
}
