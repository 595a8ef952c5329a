// `kubectl get jobs` and `kubectl get cronjobs`: printers.go, printJob (with
// hasJobCondition) and printCronJob.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { CronJob, Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import { humanDuration, parseTime, translateTimestampSince } from './duration.js';
import {
  ageColumn,
  column,
  containersColumn,
  imagesColumn,
  nameColumn,
  type PrintedRow,
  type Printer,
} from './printer.js';
import { formatLabelSelector } from './selector.js';
import { layoutContainerCells } from './workloads.js';

const selectorColumn = column('Selector', 'string', 'Label selector for the pods.', 1);

const jobColumns = [
  nameColumn,
  column('Status', 'string', 'Status of the job.'),
  column('Completions', 'string', 'Pods that succeeded out of the completions asked for.'),
  column('Duration', 'string', 'Time required to complete the job.'),
  ageColumn,
  containersColumn,
  imagesColumn,
  selectorColumn,
];

const hasCondition = (conditions: readonly JobCondition[] | undefined, type: string): boolean =>
  (conditions ?? []).some((c) => c.type === type && c.status === 'True');

function jobStatus(job: Job): string {
  const conditions = job.status?.conditions;
  if (hasCondition(conditions, 'Complete')) return 'Complete';
  if (hasCondition(conditions, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function printJob(obj: KubeObject, now: number): PrintedRow {
  const job = obj as Job;
  const succeeded = job.status?.succeeded ?? 0;
  let completions: string;
  if (job.spec?.completions != null) completions = `${succeeded}/${job.spec.completions}`;
  else {
    const parallelism = job.spec?.parallelism ?? 0;
    completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  }
  const start = parseTime(job.status?.startTime);
  const end = parseTime(job.status?.completionTime);
  const duration = start === undefined ? '' : humanDuration((end ?? now) - start);
  const { names, images } = layoutContainerCells(job.spec?.template?.spec?.containers);
  return {
    cells: [
      job.metadata?.name ?? '',
      jobStatus(job),
      completions,
      duration,
      translateTimestampSince(job.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(job.spec?.selector),
    ],
  };
}

/** Jobs: Name, Status, Completions, Duration, Age; wide: Containers, Images, Selector. */
export const jobPrinter: Printer = { columns: jobColumns, print: printJob };

const cronJobColumns = [
  nameColumn,
  column('Schedule', 'string', 'The schedule, in Cron format.'),
  column('Timezone', 'string', 'The time zone the schedule is read in.'),
  column('Suspend', 'boolean', 'Whether scheduling is suspended.'),
  column('Active', 'integer', 'Jobs running now.'),
  column('Last Schedule', 'string', 'When a Job was last scheduled.'),
  ageColumn,
  containersColumn,
  imagesColumn,
  selectorColumn,
];

function printCronJob(obj: KubeObject, now: number): PrintedRow {
  const cj = obj as CronJob;
  const last = cj.status?.lastScheduleTime;
  const template = cj.spec?.jobTemplate?.spec;
  const { names, images } = layoutContainerCells(template?.template?.spec?.containers);
  return {
    cells: [
      cj.metadata?.name ?? '',
      cj.spec?.schedule ?? '',
      cj.spec?.timeZone ?? '<none>',
      // printBoolPtr: "True" or "False", "<unset>" for a nil pointer.
      cj.spec?.suspend == null ? '<unset>' : cj.spec.suspend ? 'True' : 'False',
      cj.status?.active?.length ?? 0,
      last ? translateTimestampSince(last, now) : '<none>',
      translateTimestampSince(cj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(template?.selector),
    ],
  };
}

/** CronJobs: Name, Schedule, Timezone, Suspend, Active, Last Schedule, Age; wide: Containers, Images, Selector. */
export const cronJobPrinter: Printer = { columns: cronJobColumns, print: printCronJob };
