// Reading wire-format objects, and ownerReferences: the parts of
// k8s.io/apimachinery/pkg/apis/meta/v1 (meta.go, controller_ref.go) that
// controllers use. Objects stay plain JSON as the API server sends them.
import type { ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { Labels } from './labels.js';
import { groupVersionString, type GroupVersionKind } from './schema.js';

/**
 * Any Kubernetes object in wire format (JSON as the API server sends it), such
 * as a `Pod` or `Deployment` from `kubernetes-types`. The fields are optional
 * only because `kubernetes-types` declares them so; objects read from a server
 * always carry all three.
 *
 * @category Object meta
 */
export interface KubeObject {
  /** The group and version, such as `apps/v1` or `v1`. */
  apiVersion?: string;
  /** The kind, such as `Deployment`. */
  kind?: string;
  /** Name, namespace, uid, labels, ownerReferences and the rest of `ObjectMeta`. */
  metadata?: ObjectMeta;
}

/**
 * The object's namespace, or `''` for a cluster-scoped object (Go's `GetNamespace`).
 *
 * @category Object meta
 */
export function namespaceOf(obj: KubeObject): string {
  return obj.metadata?.namespace ?? '';
}

/**
 * The object's name, or `''` if it has none yet (Go's `GetName`).
 *
 * @category Object meta
 */
export function nameOf(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

/**
 * The object's uid, or `''` before the server has assigned one (Go's `GetUID`).
 *
 * @category Object meta
 */
export function uidOf(obj: KubeObject): string {
  return obj.metadata?.uid ?? '';
}

/**
 * The object's resourceVersion, or `''` (Go's `GetResourceVersion`). It is an
 * opaque string: compare it for equality only.
 *
 * @category Object meta
 */
export function resourceVersionOf(obj: KubeObject): string {
  return obj.metadata?.resourceVersion ?? '';
}

/**
 * The object's labels, or an empty set, ready for `Selector.matches`.
 *
 * @category Object meta
 */
export function labelsOf(obj: KubeObject): Labels {
  return obj.metadata?.labels ?? {};
}

/**
 * The owner reference marked `controller: true`, if any: the object that
 * manages this one. Returns a copy, so changing it leaves `obj` alone.
 *
 * @category Owner references
 */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  // controller_ref.go, GetControllerOf
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref === undefined ? undefined : { ...ref };
}

/**
 * True when `obj`'s controller reference points at `owner`. References are
 * compared by uid, so an owner deleted and re-created under the same name does
 * not count.
 *
 * @category Owner references
 */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  // controller_ref.go, IsControlledBy
  const ref = getControllerOf(obj);
  return ref !== undefined && ref.uid === uidOf(owner);
}

/**
 * A controller reference to `owner`, to put in the `ownerReferences` of an
 * object it creates: `controller: true` marks it as the managing owner, and
 * `blockOwnerDeletion: true` makes foreground deletion of the owner wait for it.
 *
 * @param gvk - the owner's group, version and kind (objects read from a list may
 *   lack `apiVersion` and `kind`, so they are not taken from `owner`).
 *
 * @category Owner references
 */
export function newControllerRef(owner: KubeObject, gvk: GroupVersionKind): OwnerReference {
  // controller_ref.go, NewControllerRef
  return {
    apiVersion: groupVersionString(gvk),
    kind: gvk.kind,
    name: nameOf(owner),
    uid: uidOf(owner),
    controller: true,
    blockOwnerDeletion: true,
  };
}
