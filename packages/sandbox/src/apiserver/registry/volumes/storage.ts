// How kube-apiserver stores PersistentVolumeClaims, PersistentVolumes and
// StorageClasses: their defaults (pkg/apis/core/v1/defaults.go,
// SetDefaults_PersistentVolumeClaim and SetDefaults_PersistentVolume;
// pkg/apis/storage/v1/defaults.go, SetDefaults_StorageClass) and what their
// strategies reset on create (pkg/registry/core/persistentvolumeclaim,
// persistentvolume and pkg/registry/storage/storageclass, strategy.go).
import { type Obj, obj } from '../../unstructured.js';

/** The claim's defaults: a filesystem volume. */
export function defaultPersistentVolumeClaim(o: Obj): void {
  const spec = { ...obj(o.spec) };
  if (spec.volumeMode === undefined) spec.volumeMode = 'Filesystem';
  o.spec = spec;
}

/** A new claim: defaulted, status Pending whatever was sent. */
export function preparePersistentVolumeClaimForCreate(o: Obj): void {
  defaultPersistentVolumeClaim(o);
  o.status = { phase: 'Pending' };
}

/** The volume's defaults: kept when released, a filesystem, an untyped hostPath. */
export function defaultPersistentVolume(o: Obj): void {
  const spec = { ...obj(o.spec) };
  if (spec.persistentVolumeReclaimPolicy === undefined) {
    spec.persistentVolumeReclaimPolicy = 'Retain';
  }
  if (spec.volumeMode === undefined) spec.volumeMode = 'Filesystem';
  if (spec.hostPath !== undefined) {
    const hostPath = obj(spec.hostPath);
    if (hostPath.type === undefined) spec.hostPath = { ...hostPath, type: '' };
  }
  o.spec = spec;
}

/** A new volume: defaulted, status Pending whatever was sent. */
export function preparePersistentVolumeForCreate(o: Obj): void {
  defaultPersistentVolume(o);
  o.status = { phase: 'Pending' };
}

/** The class's defaults: volumes deleted with their claims, bound at once. */
export function defaultStorageClass(o: Obj): void {
  if (o.reclaimPolicy === undefined) o.reclaimPolicy = 'Delete';
  if (o.volumeBindingMode === undefined) o.volumeBindingMode = 'Immediate';
}
