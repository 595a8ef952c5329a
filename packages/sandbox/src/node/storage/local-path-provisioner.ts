// The volumes of the sandbox's default StorageClass, as kind's
// local-path-provisioner makes them (rancher/local-path-provisioner,
// provisioner.go, Provision): a hostPath directory on the node the claim's
// first pod was scheduled to, with node affinity to that node. No directory
// is made and nothing written to a volume is kept: the sandbox simulates
// what the API shows, not the data.
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';

/** The provisioner name of kind's default StorageClass. */
export const localPathProvisionerName = 'rancher.io/local-path';

/** The annotation the scheduler puts on a claim to name its first pod's node. */
export const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';

/** The annotation a provisioned volume carries with its provisioner's name. */
export const provisionedByAnnotation = 'pv.kubernetes.io/provisioned-by';

/** Where local-path-provisioner keeps its volumes on each node. */
const basePath = '/var/local-path-provisioner';

/**
 * The default StorageClass a kind cluster comes with: `standard`, volumes
 * made by local-path-provisioner once a pod needs them, deleted with their
 * claims.
 */
export function standardStorageClass(): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: 'standard',
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: localPathProvisionerName,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
}

/** The name the PersistentVolume controller gives a provisioned volume: `pvc-<claim uid>`. */
export function provisionedVolumeName(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid ?? ''}`;
}

/**
 * The volume local-path-provisioner makes for `claim` of `storageClass` on
 * `node` (undefined for a class that binds at once: no node affinity),
 * already pointing at its claim as provisioned volumes do.
 */
export function provisionVolume(
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  node: string | undefined,
): PersistentVolume {
  const meta = claim.metadata ?? {};
  const name = provisionedVolumeName(claim);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      annotations: {
        [provisionedByAnnotation]: storageClass.provisioner,
        ...(node ? { 'local.path.provisioner/selected-node': node } : {}),
      },
    },
    spec: {
      accessModes: [...(claim.spec?.accessModes ?? [])],
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      },
      hostPath: {
        path: `${basePath}/${name}_${meta.namespace ?? ''}_${meta.name ?? ''}`,
        type: 'DirectoryOrCreate',
      },
      persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? 'Delete',
      storageClassName: storageClass.metadata?.name ?? '',
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      ...(node
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  {
                    matchExpressions: [
                      { key: 'kubernetes.io/hostname', operator: 'In', values: [node] },
                    ],
                  },
                ],
              },
            },
          }
        : {}),
    },
  };
}
