// Whether a Job has finished: pkg/controller/job/util/utils.go
// (FinishedCondition, IsJobFinished, IsJobSucceeded), which the CronJob
// controller reads its Jobs with. A copy of a few lines rather than a
// dependency on @kcm-ts/job, so that the CronJob controller stands on the
// shared packages alone.
import type { Job } from 'kubernetes-types/batch/v1.js';

/** The condition type of a Job that succeeded: batch/v1's `JobComplete`. */
export const jobComplete = 'Complete';
/** The condition type of a Job that failed: batch/v1's `JobFailed`. */
export const jobFailed = 'Failed';

/**
 * Whether the Job has finished, and how: `[true, 'Complete' | 'Failed']` for
 * the first `Complete` or `Failed` condition whose status is `True`,
 * `[false, '']` otherwise. Go's `FinishedCondition` (and the controller's
 * `getFinishedStatus`, which is the same loop).
 */
export function finishedCondition(job: Job): [finished: boolean, type: string] {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === jobComplete || c.type === jobFailed) && c.status === 'True') {
      return [true, c.type];
    }
  }
  return [false, ''];
}

/** True once the Job is `Complete` or `Failed`. Go's `IsJobFinished`. */
export function isJobFinished(job: Job): boolean {
  return finishedCondition(job)[0];
}

/** True once the Job is `Complete`. Go's `IsJobSucceeded`. */
export function isJobSucceeded(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === jobComplete && c.status === 'True');
}
