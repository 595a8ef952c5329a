// `kubectl get persistentvolumeclaims`, `persistentvolumes` and
// `storageclasses`: printers.go, printPersistentVolumeClaim,
// printPersistentVolume and printStorageClass, with the helpers they use
// (GetAccessModesAsString, GetPersistentVolumeClaimClass,
// IsDefaultAnnotationText).
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type PrintedRow, type Printer } from './printer.js';

/** GetAccessModesAsString: `RWO,ROX,RWX,RWOP`, each once, in that order. */
export function accessModesAsString(modes: readonly string[] | undefined): string {
  const given = new Set(modes ?? []);
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([mode]) => given.has(mode))
    .map(([, s]) => s)
    .join(',');
}

const betaClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** GetPersistentVolumeClaimClass and GetPersistentVolumeClass: the beta annotation first. */
function className(
  meta: { annotations?: Record<string, string> } | undefined,
  name: string | undefined,
): string {
  return meta?.annotations?.[betaClassAnnotation] ?? name ?? '';
}

const storageOf = (q: Record<string, string> | undefined): string => q?.storage ?? '';

const claimColumns = [
  nameColumn,
  column('Status', 'string', 'The phase of the claim: Pending, Bound or Lost.'),
  column('Volume', 'string', 'The PersistentVolume bound to the claim.'),
  column('Capacity', 'string', 'The capacity of the bound volume.'),
  column('Access Modes', 'string', 'The access modes of the bound volume.'),
  column('StorageClass', 'string', 'The StorageClass the claim asks for.'),
  column('VolumeAttributesClass', 'string', 'The VolumeAttributesClass the claim asks for.'),
  ageColumn,
  column('VolumeMode', 'string', 'Filesystem or Block.', 1),
];

function printClaim(o: KubeObject, now: number): PrintedRow {
  const pvc = o as PersistentVolumeClaim;
  const spec = pvc.spec ?? {};
  let capacity = '';
  let modes = '';
  if (spec.volumeName) {
    modes = accessModesAsString(pvc.status?.accessModes);
    capacity = storageOf(pvc.status?.capacity);
  }
  return {
    cells: [
      pvc.metadata?.name ?? '',
      pvc.metadata?.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? ''),
      spec.volumeName ?? '',
      capacity,
      modes,
      className(pvc.metadata, spec.storageClassName),
      spec.volumeAttributesClassName ?? '<unset>',
      translateTimestampSince(pvc.metadata?.creationTimestamp, now),
      spec.volumeMode ?? '<unset>',
    ],
  };
}

/** PersistentVolumeClaims: Name, Status, Volume, Capacity, Access Modes, StorageClass, VolumeAttributesClass, Age; wide VolumeMode. */
export const persistentVolumeClaimPrinter: Printer = { columns: claimColumns, print: printClaim };

const volumeColumns = [
  nameColumn,
  column('Capacity', 'string', 'The capacity of the volume.'),
  column('Access Modes', 'string', 'The ways the volume can be mounted.'),
  column('Reclaim Policy', 'string', 'What happens to the volume when its claim goes.'),
  column('Status', 'string', 'The phase of the volume.'),
  column('Claim', 'string', 'The claim bound to the volume, namespace/name.'),
  column('StorageClass', 'string', 'The StorageClass of the volume.'),
  column('VolumeAttributesClass', 'string', 'The VolumeAttributesClass of the volume.'),
  column('Reason', 'string', 'Why the volume is in its phase.'),
  ageColumn,
  column('VolumeMode', 'string', 'Filesystem or Block.', 1),
];

function printVolume(o: KubeObject, now: number): PrintedRow {
  const pv = o as PersistentVolume;
  const spec = pv.spec ?? {};
  const ref = spec.claimRef;
  return {
    cells: [
      pv.metadata?.name ?? '',
      storageOf(spec.capacity),
      accessModesAsString(spec.accessModes),
      spec.persistentVolumeReclaimPolicy ?? '',
      pv.metadata?.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? ''),
      ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '',
      className(pv.metadata, spec.storageClassName),
      spec.volumeAttributesClassName ?? '<unset>',
      pv.status?.reason ?? '',
      translateTimestampSince(pv.metadata?.creationTimestamp, now),
      spec.volumeMode ?? '<unset>',
    ],
  };
}

/** PersistentVolumes: Name, Capacity, Access Modes, Reclaim Policy, Status, Claim, StorageClass, VolumeAttributesClass, Reason, Age; wide VolumeMode. */
export const persistentVolumePrinter: Printer = { columns: volumeColumns, print: printVolume };

const classColumns = [
  nameColumn,
  column('Provisioner', 'string', 'The driver that makes volumes of the class.'),
  column('ReclaimPolicy', 'string', 'What happens to volumes of the class when their claim goes.'),
  column('VolumeBindingMode', 'string', 'When claims of the class are bound.'),
  column('AllowVolumeExpansion', 'string', 'Whether claims of the class may grow.'),
  ageColumn,
];

function isDefaultClass(sc: StorageClass): boolean {
  const a = sc.metadata?.annotations ?? {};
  return (
    a['storageclass.kubernetes.io/is-default-class'] === 'true' ||
    a['storageclass.beta.kubernetes.io/is-default-class'] === 'true'
  );
}

function printClass(o: KubeObject, now: number): PrintedRow {
  const sc = o as StorageClass;
  const name = sc.metadata?.name ?? '';
  return {
    cells: [
      isDefaultClass(sc) ? `${name} (default)` : name,
      sc.provisioner,
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion ?? false,
      translateTimestampSince(sc.metadata?.creationTimestamp, now),
    ],
  };
}

/** StorageClasses: Name (`standard (default)`), Provisioner, ReclaimPolicy, VolumeBindingMode, AllowVolumeExpansion, Age. */
export const storageClassPrinter: Printer = { columns: classColumns, print: printClass };
