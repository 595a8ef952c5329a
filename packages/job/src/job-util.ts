// Whether a Job has finished: pkg/controller/job/util/utils.go
// (FinishedCondition, IsJobFinished, IsJobSucceeded), which the Job and
// CronJob controllers and the TTL-after-finished controller share.
import type { Job } from 'kubernetes-types/batch/v1.js';
import { jobComplete, jobFailed } from './types.js';

/**
 * Whether the Job has finished, and how: `[true, 'Complete' | 'Failed']`
 * for the first `Complete` or `Failed` condition whose status is `True`,
 * `[false, '']` otherwise. Go's `FinishedCondition`.
 *
 * @category Job status
 */
export function finishedCondition(job: Job): [finished: boolean, type: string] {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === jobComplete || c.type === jobFailed) && c.status === 'True') {
      return [true, c.type];
    }
  }
  return [false, ''];
}

/**
 * True once the Job has a `Complete` or `Failed` condition with status
 * `True`, whichever it is. Go's `IsJobFinished`.
 *
 * @category Job status
 */
export function isJobFinished(job: Job): boolean {
  return finishedCondition(job)[0];
}

/**
 * True once the Job has a `Complete` condition with status `True`. Go's
 * `IsJobSucceeded`.
 *
 * @category Job status
 */
export function isJobSucceeded(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === jobComplete && c.status === 'True');
}
