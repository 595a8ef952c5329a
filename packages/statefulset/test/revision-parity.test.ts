// Revision names as kube-controller-manager gives them: the hash of a
// StatefulSet's revision data (its template as a `$patch: replace` patch)
// matches the name a v1.34 kube-controller-manager wrote for the same set,
// as recorded beside stateful_set_compatibility_test.go.
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { applyRevision, newRevision } from '../src/stateful-set-utils.js';

const set: StatefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'test', namespace: 'default', uid: 'ec335e25-1045-4216-8634-50cfbe05f3d6' },
  spec: {
    replicas: 1,
    serviceName: '',
    podManagementPolicy: 'OrderedReady',
    selector: { matchLabels: { app: 'foo' } },
    template: {
      metadata: { annotations: { test: 'value' }, labels: { app: 'foo' } },
      spec: {
        containers: [
          {
            name: 'test',
            image: 'test',
            imagePullPolicy: 'Always',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
  },
};

describe('revision names', () => {
  it('hash the revision data as Go does', () => {
    const rev = newRevision(set, 2, 0);
    expect(rev.metadata?.name).toBe('test-776999688b');
    expect(rev.metadata?.labels).toEqual({
      app: 'foo',
      'controller.kubernetes.io/hash': '776999688b',
    });
    expect(applyRevision(set, rev)).toEqual(set);
  });
});
