// VolumeBinding's PreFilter, the part that makes a pod wait for its claims
// (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go,
// podHasPVCs and the unbound immediate claims; binder.go, GetPodVolumeClaims).
// A pod whose PersistentVolumeClaim is missing, or unbound while its
// StorageClass binds at once, is not scheduled until the claim is there
// and bound; a claim being deleted, or lost, is an error. Claims of classes
// that wait for the first consumer, and the PersistentVolumes' node
// affinity, are left to the storage work that provisions and binds them.
//
// The scheduler gets the claims through a {@link VolumeBinding}; the
// sandbox passes none until it serves PersistentVolumeClaims, and pods are
// then scheduled whatever their volumes.
import type {
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
} from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { newStatus, type FilterPlugin, type Status } from '../framework.js';

export const name = 'VolumeBinding';

/** ErrUnboundImmediatePVC. */
export const errUnboundImmediatePVC = 'pod has unbound immediate PersistentVolumeClaims';

/**
 * What the scheduler needs to know of a pod's volumes: the VolumeBinding
 * PreFilter's verdict, and a way to hear that it may have changed (a claim
 * created or bound), which retries the pods waiting for one.
 */
export interface VolumeBinding {
  /** Undefined when the pod may be scheduled as far as its volumes go; else why not. */
  check(pod: Pod): Status | undefined;
  /** The Filter: whether `node` can reach the volumes of the pod's bound claims. */
  filter?(pod: Pod, node: Node): Status | undefined;
  /**
   * The PreBind: gets the pod's claims bound for `node` (provisioning those
   * that waited for a node) and resolves once they are, with why not if they
   * cannot be.
   */
  preBind?(pod: Pod, node: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Calls `listener` when claims change; returns the unsubscribe function. */
  onChange?(listener: () => void): () => void;
}

/** Where {@link claimsVolumeBinding} reads claims and storage classes, such as informers' caches. */
export interface ClaimLookup {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  storageClass(name: string): StorageClass | undefined;
  /** The PersistentVolume called `name`, for the node affinity of bound claims. */
  volume?(name: string): PersistentVolume | undefined;
}

/** The claim names a pod's volumes use: PVC volumes, and `<pod>-<volume>` for generic ephemeral ones. */
export function podClaimNames(pod: Pod): { name: string; ephemeral: boolean }[] {
  return (pod.spec?.volumes ?? []).flatMap((v): { name: string; ephemeral: boolean }[] => {
    if (v.persistentVolumeClaim)
      return [{ name: v.persistentVolumeClaim.claimName, ephemeral: false }];
    if (v.ephemeral) return [{ name: `${pod.metadata?.name ?? ''}-${v.name}`, ephemeral: true }];
    return [];
  });
}

/**
 * The VolumeBinding PreFilter over `lookup`: `persistentvolumeclaim "x" not
 * found` (or, for a generic ephemeral volume, waiting for its claim), a
 * claim being deleted or lost (an error), a class that does not exist (an
 * error), or `pod has unbound immediate PersistentVolumeClaims`.
 */
export function claimsVolumeBinding(lookup: ClaimLookup): VolumeBinding['check'] {
  return (pod) => {
    const ns = pod.metadata?.namespace ?? '';
    let unboundImmediate = false;
    for (const { name: claimName, ephemeral } of podClaimNames(pod)) {
      const pvc = lookup.claim(ns, claimName);
      if (pvc === undefined) {
        return newStatus(
          'UnschedulableAndUnresolvable',
          ephemeral
            ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${claimName}"`
            : `persistentvolumeclaim "${claimName}" not found`,
        );
      }
      if (pvc.status?.phase === 'Lost') {
        return newStatus(
          'Error',
          `persistentvolumeclaim "${claimName}" bound to non-existent persistentvolume "${pvc.spec?.volumeName ?? ''}"`,
        );
      }
      if (pvc.metadata?.deletionTimestamp) {
        return newStatus('Error', `persistentvolumeclaim "${claimName}" is being deleted`);
      }
      if (pvc.spec?.volumeName) continue; // bound
      const className = pvc.spec?.storageClassName ?? '';
      if (className === '') {
        unboundImmediate = true;
        continue;
      }
      const sc = lookup.storageClass(className);
      if (sc === undefined) {
        return newStatus('Error', `storageclass.storage.k8s.io "${className}" not found`);
      }
      if (sc.volumeBindingMode !== 'WaitForFirstConsumer') unboundImmediate = true;
    }
    return unboundImmediate
      ? newStatus('UnschedulableAndUnresolvable', errUnboundImmediatePVC)
      : undefined;
  };
}

/** The plugin over a {@link VolumeBinding}; with none, every pod passes. */
export function volumeBindingPlugin(binding: VolumeBinding | undefined): FilterPlugin {
  return {
    name,
    preFilter(p) {
      const status = binding?.check(p.pod);
      if (status !== undefined) return { status };
      if (binding?.filter === undefined || podClaimNames(p.pod).length === 0) return {};
      return {
        filter: (n) => (n.node === undefined ? undefined : binding.filter?.(p.pod, n.node)),
      };
    },
  };
}
