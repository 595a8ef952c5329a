// The storage admission plugins kube-apiserver enables by default:
// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault,
// Admit; the default class from pkg/volume/util, GetDefaultClass) and
// StorageObjectInUseProtection (plugin/pkg/admission/storage/
// storageobjectinuseprotection, Admit), which puts the protection
// finalizers on new claims and volumes.
import type { KubeObject } from '@kcm-ts/apimachinery';
import { type Obj, obj } from '../../unstructured.js';

/** The annotation that marks a StorageClass as the default. */
export const isDefaultStorageClassAnnotation = 'storageclass.kubernetes.io/is-default-class';
const betaIsDefaultStorageClassAnnotation = 'storageclass.beta.kubernetes.io/is-default-class';
const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** The finalizer that keeps a claim while a pod uses it. */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
/** The finalizer that keeps a volume while it is bound. */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';

/** GetDefaultClass: of the classes marked default, the newest (then by name). */
export function defaultStorageClass(classes: readonly KubeObject[]): string | undefined {
  const defaults = classes.filter((c) => {
    const a = c.metadata?.annotations ?? {};
    return (
      a[isDefaultStorageClassAnnotation] === 'true' ||
      a[betaIsDefaultStorageClassAnnotation] === 'true'
    );
  });
  defaults.sort((a, b) => {
    const ta = a.metadata?.creationTimestamp ?? '';
    const tb = b.metadata?.creationTimestamp ?? '';
    if (ta !== tb) return ta > tb ? -1 : 1;
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  });
  return defaults[0]?.metadata?.name;
}

/**
 * DefaultStorageClass: a new claim that names no class at all (not even
 * `""`, which asks for none) gets the default class, when there is one.
 */
export function admitDefaultStorageClass(pvc: Obj, classes: () => readonly KubeObject[]): void {
  const spec = obj(pvc.spec);
  if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
  if (obj(obj(pvc.metadata).annotations)[betaStorageClassAnnotation] !== undefined) return;
  const name = defaultStorageClass(classes());
  if (name === undefined) return;
  spec.storageClassName = name;
  pvc.spec = spec;
}

/** StorageObjectInUseProtection: the protection finalizer on a new claim or volume. */
export function admitInUseProtection(o: Obj, finalizer: string): void {
  const meta = obj(o.metadata);
  const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
  if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
  o.metadata = meta;
}
