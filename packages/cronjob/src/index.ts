/**
 * kube-controller-manager's CronJob controller (`pkg/controller/cronjob`) in
 * TypeScript: {@link CronJobController} creates a Job for each time a
 * CronJob's schedule comes round, named after the minute it was due, in the
 * CronJob's time zone, as its concurrency policy, starting deadline, suspend
 * flag and history limits say, and keeps `status.active`,
 * `lastScheduleTime` and `lastSuccessfulTime`. Schedules are parsed by
 * `@kcm-ts/apimachinery`'s robfig/cron port. Names follow Go's, in
 * camelCase.
 *
 * @packageDocumentation
 */

// The controller (cronjob_controllerv2.go)
export {
  CronJobController,
  concurrentCronJobSyncs,
  cronJobControllerName,
} from './cronjob-controller.js';
export type {
  CronJobControllerClients,
  CronJobControllerOptions,
  SyncCronJobResult,
} from './cronjob-controller.js';
export type { CronJobControl, JobControl } from './injection.js';

// Schedules and the Jobs they make (utils.go)
export {
  cronJobKind,
  cronJobScheduledTimestampAnnotation,
  formatSchedule,
  getJobFromTemplate2,
  mostRecentScheduleTime,
  nextScheduleDelta,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from './utils.js';
export type { MissedSchedules, MostRecentSchedule } from './utils.js';

// Metrics (metrics/metrics.go)
export { jobCreationSkewDescriptor, noopCronJobMetricsProvider } from './metrics.js';
export type {
  CronJobHistogram,
  CronJobMetricDescriptor,
  CronJobMetricsProvider,
} from './metrics.js';
