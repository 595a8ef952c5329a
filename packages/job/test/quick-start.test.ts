// The README's quick start: the controller on a sandbox with one simulated
// node, whose kubelet runs the Kubernetes documentation's pi Job to the end,
// on a fake clock.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import { JobController, concurrentJobSyncs } from '../src/index.js';
import { settle } from './helpers.js';

describe('quick start', () => {
  it('runs a Job of 3 completions, 2 at a time, to Complete', async () => {
    const clock = new FakeClock();
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
    const pods = sandbox.client<Pod>('', 'pods');

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new JobController({
      jobs: factory.jobs(),
      pods: factory.pods(),
      client: { jobs, pods },
      recorder, // Normal SuccessfulCreate "Created pod: pi-x7k2q", ..., Normal Completed "Job completed"
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentJobSyncs, signal); // 5 workers, as kube-controller-manager

    await jobs.inNamespace('default').create({
      metadata: { name: 'pi' },
      spec: {
        completions: 3,
        parallelism: 2,
        backoffLimit: 4,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'pi',
                image: 'perl:5.34.0',
                command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'],
              },
            ],
          },
        },
      },
    });
    //#endregion start-controller

    const complete = (job: Job) =>
      (job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
    for (let i = 0; i < 600 && !complete(await jobs.inNamespace('default').get('pi')); i++) {
      await clock.advance(100);
      await settle();
    }
    const job = await jobs.inNamespace('default').get('pi');
    expect(job.status).toMatchObject({ succeeded: 3 });
    expect(complete(job)).toBe(true);
    expect(recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(3);
    expect(recorder.events).toContain('Normal Completed Job completed');

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queues are shut down
    //#endregion stop
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
