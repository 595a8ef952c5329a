// The finalizer checks both protection controllers share: Go's
// pkg/controller/volume/protectionutil/utils.go (IsDeletionCandidate,
// NeedToAddFinalizer) and the finalizer names of pkg/volume/util
// (PVCProtectionFinalizer, PVProtectionFinalizer).
import type { KubeObject } from '@kcm-ts/apimachinery';

/**
 * The finalizer that keeps a PersistentVolumeClaim while a pod uses it.
 *
 * @category Volume protection controllers
 */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';

/**
 * The finalizer that keeps a PersistentVolume while a claim is bound to it.
 *
 * @category Volume protection controllers
 */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';

/** Being deleted, and still held by `finalizer`: Go's `IsDeletionCandidate`. */
export function isDeletionCandidate(o: KubeObject, finalizer: string): boolean {
  return o.metadata?.deletionTimestamp != null && (o.metadata.finalizers ?? []).includes(finalizer);
}

/** Not being deleted, and without `finalizer`: Go's `NeedToAddFinalizer`. */
export function needToAddFinalizer(o: KubeObject, finalizer: string): boolean {
  return (
    o.metadata?.deletionTimestamp == null && !(o.metadata?.finalizers ?? []).includes(finalizer)
  );
}

/** `o` with `finalizer` added, or removed. */
export function withFinalizer<T extends KubeObject>(o: T, finalizer: string, present: boolean): T {
  const rest = (o.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  return { ...o, metadata: { ...o.metadata, finalizers: present ? [...rest, finalizer] : rest } };
}
