// The chapter's Deployments as objects, for the fake-clock examples. They
// are the manifests kubectl applies in the walkthrough (nginx-deployment.yaml
// and nginx-recreate.yaml, beside this file); the end-to-end test checks
// that the two stay the same.
import type { Deployment, DeploymentStrategy } from 'kubernetes-types/apps/v1.js';

/** What an example changes in the walkthrough's Deployment. */
export interface NginxOptions {
  name?: string;
  replicas?: number;
  image?: string;
  strategy?: DeploymentStrategy;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
}

/** `nginx-deployment.yaml`: three nginx pods labelled `app: nginx`, or a variant of it. */
export function nginxDeployment(opts: NginxOptions = {}): Deployment {
  const name = opts.name ?? 'nginx-deployment';
  const app = name === 'nginx-deployment' ? 'nginx' : name;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app } },
    spec: {
      replicas: opts.replicas ?? 3,
      ...(opts.strategy && { strategy: opts.strategy }),
      ...(opts.revisionHistoryLimit !== undefined && {
        revisionHistoryLimit: opts.revisionHistoryLimit,
      }),
      ...(opts.progressDeadlineSeconds !== undefined && {
        progressDeadlineSeconds: opts.progressDeadlineSeconds,
      }),
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: opts.image ?? 'nginx:1.14.2',
              ports: [{ containerPort: 80 }],
            },
          ],
        },
      },
    },
  };
}

/** `nginx-recreate.yaml`: the same pods, replaced with the Recreate strategy. */
export function nginxRecreate(): Deployment {
  return nginxDeployment({ name: 'nginx-recreate', strategy: { type: 'Recreate' } });
}
