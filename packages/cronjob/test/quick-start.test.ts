// The README's quick start: the CronJob controller and the Job controller on
// a sandbox with one simulated node, whose kubelet runs the Kubernetes
// documentation's hello CronJob every minute, on a fake clock.
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { JobController } from '@kcm-ts/job';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import { CronJobController, concurrentCronJobSyncs } from '../src/index.js';
import { settle } from './helpers.js';

describe('quick start', () => {
  it('runs the hello CronJob once a minute', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:30Z'));
    const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 1 });
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    // The factory's source: anything with resource(), such as @kcm-ts/client's Client.
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    };
    const jobs = sandbox.client<Job>('batch', 'jobs');
    const cronJobs = sandbox.client<CronJob>('batch', 'cronjobs');

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new CronJobController({
      jobs: factory.jobs(),
      cronJobs: factory.cronJobs(),
      client: { jobs, cronJobs },
      recorder, // Normal SuccessfulCreate "Created job hello-29453761", Normal SawCompletedJob ...
      clock,
    });
    //#endregion start-controller
    // The Job controller runs the Jobs' pods, as in kube-controller-manager.
    const jobController = new JobController({
      jobs: factory.jobs(),
      pods: factory.pods(),
      client: { jobs, pods: sandbox.client<Pod>('', 'pods') },
      clock,
    });
    const runningJobs = jobController.run(2, signal);
    //#region run
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentCronJobSyncs, signal); // 5 workers, as kube-controller-manager

    await cronJobs.inNamespace('default').create({
      metadata: { name: 'hello' },
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: 'OnFailure',
                containers: [
                  {
                    name: 'hello',
                    image: 'busybox:1.28',
                    command: ['/bin/sh', '-c', 'date; echo Hello from the Kubernetes cluster'],
                  },
                ],
              },
            },
          },
        },
      },
    });
    //#endregion run

    // Three minutes on the fake clock.
    for (let i = 0; i < 180 * 5; i++) {
      await clock.advance(200);
      await settle(4);
    }
    const made = (await jobs.inNamespace('default').list()).items.map((j) => j.metadata?.name);
    expect(made.sort()).toEqual(['hello-29453761', 'hello-29453762', 'hello-29453763']);
    const cj = await cronJobs.inNamespace('default').get('hello');
    expect(cj.status?.lastScheduleTime).toBe('2026-01-01T00:03:00Z');
    expect(cj.status?.lastSuccessfulTime).toBeDefined();
    expect(recorder.events).toContain('Normal SuccessfulCreate Created job hello-29453761');
    expect(recorder.events).toContain(
      'Normal SawCompletedJob Saw completed job: hello-29453761, condition: Complete',
    );

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queue is shut down
    //#endregion stop
    await runningJobs;
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
