// The chapter's Jobs as objects, for the fake-clock examples. `piJob()` is
// the manifest kubectl creates in the walkthrough (pi-job.yaml, beside this
// file, the Job of the Kubernetes documentation); the end-to-end test checks
// that the two stay the same. The others run a shell script in a small
// image, which the sandbox's simulated node runs to its exit code.
import type { Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { Container } from 'kubernetes-types/core/v1.js';

/** `pi-job.yaml`: π to 2000 digits with perl, retried at most 4 times. */
export function piJob(): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi' },
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'pi',
              image: 'perl:5.34.0',
              command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'],
            },
          ],
          restartPolicy: 'Never',
        },
      },
      backoffLimit: 4,
    },
  };
}

/** What a {@link shJob} changes: any field of the Job's spec but the template. */
export type ShJobSpec = Omit<JobSpec, 'template'>;

/**
 * A Job whose pods run `sh -c script` in busybox, with `restartPolicy:
 * Never`; `container` adds to the container (env, volume mounts).
 */
export function shJob(
  name: string,
  script: string,
  spec: ShJobSpec = {},
  container: Partial<Container> = {},
  more: Pick<NonNullable<JobSpec['template']['spec']>, 'volumes'> = {},
): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: {
        spec: {
          containers: [
            { name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script], ...container },
          ],
          restartPolicy: 'Never',
          ...more,
        },
      },
    },
  };
}
