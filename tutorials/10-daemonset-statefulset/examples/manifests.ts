// The objects the chapter's examples create, written as `kubectl create -f`
// would send them. daemonset.yaml and statefulset.yaml hold the same two
// (the walkthrough's test checks that they do).
import type { DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';

//#region daemonset
/** A log shipper on every node: the DaemonSet `fluent-bit`. */
export function fluentBit(): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'fluent-bit' },
    spec: {
      selector: { matchLabels: { app: 'fluent-bit' } },
      template: {
        metadata: { labels: { app: 'fluent-bit' } },
        spec: { containers: [{ name: 'fluent-bit', image: 'fluent/fluent-bit:3.1' }] },
      },
    },
  };
}
//#endregion daemonset

//#region statefulset
/** The StatefulSet `web` of the Kubernetes documentation: three nginx pods, a claim each. */
export function web(): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      serviceName: 'nginx',
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'registry.k8s.io/nginx-slim:0.24',
              ports: [{ name: 'web', containerPort: 80 }],
              volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'www' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '1Gi' } },
          },
        },
      ],
    },
  };
}
//#endregion statefulset
