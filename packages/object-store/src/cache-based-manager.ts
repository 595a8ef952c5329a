// A Manager over a reference-counted Store:
// pkg/kubelet/util/manager/cache_based_manager.go (cacheBasedManager,
// NewCacheBasedManager).
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Manager, Store } from './manager.js';

/**
 * The names of the objects of one kind a pod references, such as
 * {@link getSecretNames}.
 *
 * @category Manager
 */
export type GetReferencedObjects = (pod: Pod) => Set<string>;

/** Pods are told apart by namespace, name and uid: a recreated pod is another pod. */
const podKey = (pod: Pod): string =>
  `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}/${pod.metadata?.uid ?? ''}`;

/**
 * A {@link Manager} that turns pod registrations into references on a
 * {@link Store}: Go's `cacheBasedManager`. Which store decides how fresh the
 * objects are: an {@link ObjectStore} (TTL) for the kubelet's `Cache`
 * strategy, an {@link ObjectCache} (one watch per object) for `Watch`.
 *
 * @category Manager
 */
export class CacheBasedManager<T> implements Manager<T> {
  readonly #store: Store<T>;
  readonly #getReferencedObjects: GetReferencedObjects;
  readonly #registeredPods = new Map<string, Pod>();

  constructor(store: Store<T>, getReferencedObjects: GetReferencedObjects) {
    this.#store = store;
    this.#getReferencedObjects = getReferencedObjects;
  }

  getObject(namespace: string, name: string): Promise<T> {
    return this.#store.get(namespace, name);
  }

  //#region register-pod
  registerPod(pod: Pod): void {
    const names = this.#getReferencedObjects(pod);
    const namespace = pod.metadata?.namespace ?? '';
    const uid = pod.metadata?.uid ?? '';
    const key = podKey(pod);
    const prev = this.#registeredPods.get(key);
    this.#registeredPods.set(key, pod);
    // Only what changed: registering the same pod again costs no fetch.
    const prevNames = prev === undefined ? new Set<string>() : this.#getReferencedObjects(prev);
    for (const name of names) {
      if (!prevNames.has(name)) this.#store.addReference(namespace, name, uid);
    }
    for (const name of prevNames) {
      if (!names.has(name)) this.#store.deleteReference(namespace, name, uid);
    }
  }
  //#endregion register-pod

  unregisterPod(pod: Pod): void {
    const key = podKey(pod);
    const prev = this.#registeredPods.get(key);
    this.#registeredPods.delete(key);
    if (prev === undefined) return;
    const uid = prev.metadata?.uid ?? '';
    for (const name of this.#getReferencedObjects(prev)) {
      this.#store.deleteReference(prev.metadata?.namespace ?? '', name, uid);
    }
  }
}
