// The init functions of the batch/v1 controllers
// (cmd/kube-controller-manager/app/batch.go: startJobController,
// startCronJobController): each builds its controller on the shared
// informers and its own client, and runs it with the configured workers.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { informerResources } from '@kcm-ts/informer';
import { CronJobController } from '@kcm-ts/cronjob';
import { JobController } from '@kcm-ts/job';
import { serverHasResource } from './apps.js';
import type { InitFunc } from './controller-context.js';
import {
  prometheusCronJobMetricsProvider,
  prometheusJobMetricsProvider,
} from './metrics/job-controller.js';

//#region start-job-controller
/**
 * Starts the Job controller with `--concurrent-job-syncs` workers, on the
 * shared Job and pod informers and its own client, `job-controller`. Go's
 * `startJobController`.
 *
 * @category Controllers
 */
export const startJobController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.jobs))) return undefined;
  const source = ctx.clientBuilder.client(name);
  const controller = new JobController({
    jobs: ctx.informerFactory.jobs(),
    pods: ctx.informerFactory.pods(),
    client: {
      jobs: source.resource<Job>(informerResources.jobs, { namespaced: true, kind: 'Job' }),
      pods: source.resource<Pod>(informerResources.pods, { namespaced: true, kind: 'Pod' }),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
    ...(ctx.metricsRegistry
      ? { metricsProvider: prometheusJobMetricsProvider(ctx.metricsRegistry) }
      : {}),
  });
  return {
    running: controller.run(ctx.componentConfig.jobController.concurrentJobSyncs, signal),
  };
};
//#endregion start-job-controller

//#region start-cronjob-controller
/**
 * Starts the CronJob controller with `--concurrent-cron-job-syncs` workers,
 * on the shared Job and CronJob informers and its own client,
 * `cronjob-controller`. Go's `startCronJobController`.
 *
 * @category Controllers
 */
export const startCronJobController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.cronJobs))) return undefined;
  const source = ctx.clientBuilder.client(name);
  const controller = new CronJobController({
    jobs: ctx.informerFactory.jobs(),
    cronJobs: ctx.informerFactory.cronJobs(),
    client: {
      jobs: source.resource<Job>(informerResources.jobs, { namespaced: true, kind: 'Job' }),
      cronJobs: source.resource<CronJob>(informerResources.cronJobs, {
        namespaced: true,
        kind: 'CronJob',
      }),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
    ...(ctx.metricsRegistry
      ? { metricsProvider: prometheusCronJobMetricsProvider(ctx.metricsRegistry) }
      : {}),
  });
  return {
    running: controller.run(ctx.componentConfig.cronJobController.concurrentCronJobSyncs, signal),
  };
};
//#endregion start-cronjob-controller
