// The two interfaces of the kubelet's object managers:
// pkg/kubelet/util/manager/manager.go (Manager, Store).
import type { GetOptions } from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';

/**
 * Keeps the objects of one kind (Secrets, ConfigMaps) that the pods on a node
 * reference, and hands them out: Go's `manager.Manager`.
 *
 * `registerPod` and `unregisterPod` must be cheap, because the kubelet calls
 * them on every pod update: they only count references, and never wait on the
 * network. Both are idempotent.
 *
 * @category Manager
 */
//#region manager
export interface Manager<T> {
  /**
   * The object `namespace/name`, fetched or from the cache according to the
   * strategy. Rejects when no registered pod references it, with the API
   * server's error when it cannot be fetched (a `NotFound` StatusError when
   * it does not exist).
   */
  getObject(namespace: string, name: string): Promise<T>;
  /**
   * Records the objects `pod` references. Registering a newer version of a
   * pod (same namespace, name and uid) adds references it gained and drops
   * those it lost.
   */
  registerPod(pod: Pod): void;
  /** Drops the references of `pod`; objects no other pod references are forgotten. */
  unregisterPod(pod: Pod): void;
}
//#endregion manager

/**
 * A reference-counted cache of objects: Go's `manager.Store`. An object is
 * kept while at least one reference to it exists; each `addReference` must be
 * matched by one `deleteReference` from the same referencing pod.
 *
 * @category Manager
 */
//#region store
export interface Store<T> {
  /** Adds a reference to `namespace/name` from the pod whose uid is `referencedFrom`. */
  addReference(namespace: string, name: string, referencedFrom: string): void;
  /**
   * Removes a reference to `namespace/name` from the pod `referencedFrom`;
   * the last one forgets the object.
   */
  deleteReference(namespace: string, name: string, referencedFrom: string): void;
  /**
   * The object, from the cache or freshly fetched. Rejects with
   * {@link NotRegisteredError} when it has no reference.
   */
  get(namespace: string, name: string): Promise<T>;
}
//#endregion store

/**
 * Fetches one object from the API server, as a resource client's
 * `inNamespace(namespace).get(name, opts)` does: Go's `GetObjectFunc`.
 *
 * @category Manager
 */
export type GetObjectFunc<T> = (namespace: string, name: string, opts: GetOptions) => Promise<T>;

/**
 * Asked for an object no registered pod references: a pod may only read what
 * its spec names.
 *
 * @category Manager
 */
export class NotRegisteredError extends Error {
  /** Always `'NotRegisteredError'`. */
  override readonly name = 'NotRegisteredError';

  /** @param namespace - the object's namespace @param objectName - its name */
  constructor(
    readonly namespace: string,
    readonly objectName: string,
  ) {
    super(`object "${namespace}"/"${objectName}" not registered`);
  }
}
