import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  getConfigMapNames,
  getSecretNames,
  visitPodConfigMapNames,
  visitPodSecretNames,
} from '../src/index.js';

// Every place a pod can name a Secret or a ConfigMap (TestPodSecrets and
// TestPodConfigmaps in pkg/api/v1/pod/util_test.go).
const pod: Pod = {
  metadata: { namespace: 'ns', name: 'p' },
  spec: {
    imagePullSecrets: [{ name: 'pull' }, { name: '' }],
    initContainers: [
      {
        name: 'init',
        envFrom: [
          { secretRef: { name: 'init-env-from' } },
          { configMapRef: { name: 'cm-init-env-from' } },
        ],
      },
    ],
    containers: [
      {
        name: 'main',
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'env-key', key: 'k' } } },
          { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm-env-key', key: 'k' } } },
          { name: 'C', value: 'plain' },
        ],
        envFrom: [{ secretRef: { name: 'env-from' } }, { configMapRef: { name: 'cm-env-from' } }],
      },
    ],
    ephemeralContainers: [
      {
        name: 'debug',
        envFrom: [{ secretRef: { name: 'ephemeral' } }, { configMapRef: { name: 'cm-ephemeral' } }],
      },
    ],
    volumes: [
      { name: 'v1', secret: { secretName: 'vol' } },
      { name: 'v2', azureFile: { secretName: 'azure', shareName: 's' } },
      { name: 'v3', cephfs: { monitors: [], secretRef: { name: 'ceph' } } },
      { name: 'v4', cinder: { volumeID: 'x', secretRef: { name: 'cinder' } } },
      { name: 'v5', flexVolume: { driver: 'd', secretRef: { name: 'flex' } } },
      {
        name: 'v6',
        projected: {
          sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'cm-projected' } }],
        },
      },
      { name: 'v7', rbd: { image: 'i', monitors: [], secretRef: { name: 'rbd' } } },
      { name: 'v8', scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'scaleio' } } },
      { name: 'v9', iscsi: { iqn: 'q', lun: 0, targetPortal: 't', secretRef: { name: 'iscsi' } } },
      { name: 'v10', storageos: { secretRef: { name: 'storageos' } } },
      { name: 'v11', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
      { name: 'v12', configMap: { name: 'cm-vol' } },
      { name: 'v13', azureFile: { secretName: '', shareName: 's' } },
    ],
  },
};

describe('the references of a pod', () => {
  it('finds every Secret, in the order Go visits them, skipping empty names', () => {
    const seen: string[] = [];
    expect(visitPodSecretNames(pod, (n) => (seen.push(n), true))).toBe(true);
    expect(seen).toEqual([
      'pull',
      'init-env-from',
      'env-from', // envFrom before env, as Go
      'env-key',
      'ephemeral',
      'vol',
      'azure',
      'ceph',
      'cinder',
      'flex',
      'projected',
      'rbd',
      'scaleio',
      'iscsi',
      'storageos',
      'csi',
    ]);
    expect(getSecretNames(pod).size).toBe(16);
  });

  it('finds every ConfigMap', () => {
    expect([...getConfigMapNames(pod)]).toEqual([
      'cm-init-env-from',
      'cm-env-from',
      'cm-env-key',
      'cm-ephemeral',
      'cm-projected',
      'cm-vol',
    ]);
  });

  it('stops when the visitor says so', () => {
    const seen: string[] = [];
    expect(visitPodSecretNames(pod, (n) => (seen.push(n), n !== 'vol'))).toBe(false);
    expect(seen.at(-1)).toBe('vol');
    const cms: string[] = [];
    expect(visitPodConfigMapNames(pod, (n) => (cms.push(n), n !== 'cm-projected'))).toBe(false);
    expect(cms.at(-1)).toBe('cm-projected');
  });

  it('finds nothing in a pod without a spec', () => {
    expect(getSecretNames({}).size).toBe(0);
    expect(getConfigMapNames({}).size).toBe(0);
  });
});
