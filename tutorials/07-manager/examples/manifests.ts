// The objects chapter 7's fake-clock examples create. The Deployment is
// chapter 6's walkthrough manifest (tutorials/06-deployment/examples/
// nginx-deployment.yaml), which this chapter's kubectl experiment applies;
// the end-to-end test checks that the two stay the same.
import type { Deployment } from 'kubernetes-types/apps/v1.js';

/** `nginx-deployment.yaml`: three nginx pods labelled `app: nginx`. */
export function nginxDeployment(): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx-deployment', labels: { app: 'nginx' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }],
        },
      },
    },
  };
}
