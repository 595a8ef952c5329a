// The pod informer's index by controller uid: pkg/controller/controller_utils.go
// (PodControllerUIDIndex, OrphanPodIndexKey, OrphanPodIndexKeyForNamespace,
// AddPodControllerUIDIndexer, FilterPodsByOwner).
//
// A controller that syncs one owner reads that owner's pods, and the orphans
// it may adopt, from this index instead of scanning every pod of the
// namespace on every sync.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { getControllerOf } from '@kcm-ts/apimachinery';
import type { Indexer, SharedIndexInformer } from '@kcm-ts/informer';

/**
 * The name of the pod informer's index of pods by the uid of their
 * controller; pods without one are filed under
 * {@link orphanPodIndexKeyForNamespace}. Go's `PodControllerUIDIndex`.
 *
 * @category Pod index
 */
export const podControllerUIDIndex = 'podControllerUID';

/**
 * The prefix of the index value of pods that have no controller. Go's
 * `OrphanPodIndexKey`.
 *
 * @category Pod index
 */
export const orphanPodIndexKey = '_ORPHAN_POD';

/**
 * The index value under which {@link podControllerUIDIndex} files the pods of
 * `namespace` that have no controller: orphans are only ever adopted within
 * their namespace. Go's `OrphanPodIndexKeyForNamespace`.
 *
 * @category Pod index
 */
export function orphanPodIndexKeyForNamespace(namespace: string): string {
  return `${orphanPodIndexKey}/${namespace}`;
}

/**
 * The index function of {@link podControllerUIDIndex}: the uid of the pod's
 * controller, or the orphan key of its namespace.
 *
 * @category Pod index
 */
export function podControllerUIDIndexFunc(pod: Pod): string[] {
  const ref = getControllerOf(pod);
  if (ref !== undefined) return [ref.uid];
  return [orphanPodIndexKeyForNamespace(pod.metadata?.namespace ?? '')];
}

/**
 * Adds {@link podControllerUIDIndex} to a (shared) pod informer unless it has
 * it already, so that every controller on one factory can ask for it and the
 * cache keeps one copy. Go's `AddPodControllerUIDIndexer`; the ReplicaSet and
 * Deployment controllers call it when they are constructed.
 *
 * @throws Error if the informer refuses new indexes (it has stopped)
 *
 * @category Pod index
 */
export function addPodControllerUIDIndexer(
  podInformer: Pick<SharedIndexInformer<Pod>, 'getIndexer' | 'addIndexers'>,
): void {
  if (podControllerUIDIndex in podInformer.getIndexer().getIndexers()) return;
  podInformer.addIndexers({ [podControllerUIDIndex]: podControllerUIDIndexFunc });
}

/**
 * The pods `owner` controls, read from {@link podControllerUIDIndex}, followed
 * (when `includeOrphanedPods`) by the pods of its namespace that have no
 * controller and so may be adopted. A pod filed under the owner's uid whose
 * controller reference names another kind, or that lives in another
 * namespace, is left out: a uid alone should never match two objects, but the
 * reference is checked anyway. Go's `FilterPodsByOwner`.
 *
 * @param podIndexer - the pod informer's cache, with {@link podControllerUIDIndex}
 * @param owner - the owner's metadata; its namespace and uid must be set
 * @param ownerKind - the owner's kind, such as `ReplicaSet`
 * @throws Error if the owner's namespace or uid, or `ownerKind`, is empty, or
 *   the indexer lacks the index
 *
 * @category Pod index
 */
export function filterPodsByOwner(
  podIndexer: Pick<Indexer<Pod>, 'byIndex'>,
  owner: ObjectMeta,
  ownerKind: string,
  includeOrphanedPods: boolean,
): Pod[] {
  const namespace = owner.namespace ?? '';
  const uid = owner.uid ?? '';
  if (namespace === '') throw new Error('no owner namespace provided');
  if (uid === '') throw new Error('no owner uid provided');
  if (ownerKind === '') throw new Error('no owner kind provided');
  const pods: Pod[] = [];
  for (const pod of podIndexer.byIndex(podControllerUIDIndex, uid)) {
    const ref = getControllerOf(pod);
    if (ref !== undefined && (ref.kind !== ownerKind || pod.metadata?.namespace !== namespace)) {
      continue;
    }
    pods.push(pod);
  }
  if (includeOrphanedPods) {
    const orphans = podIndexer.byIndex(
      podControllerUIDIndex,
      orphanPodIndexKeyForNamespace(namespace),
    );
    for (const pod of orphans) pods.push(pod);
  }
  return pods;
}
