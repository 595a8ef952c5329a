// What kube-apiserver checks of PersistentVolumeClaims, PersistentVolumes
// and StorageClasses: pkg/apis/core/validation/validation.go
// (ValidatePersistentVolumeClaimSpec, ValidatePersistentVolumeClaimUpdate,
// ValidatePersistentVolumeSpec, ValidatePersistentVolumeUpdate,
// ValidateClassName) and pkg/apis/storage/validation/validation.go
// (ValidateStorageClass, ValidateStorageClassUpdate), for the fields users
// write. Volume sources are checked for their count and the two the sandbox
// provisions (hostPath, local), not each of the thirty in depth.
import { isDNS1123Subdomain } from '@kcm-ts/apimachinery';
import { forbidden, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { sameJSON } from '../semantic-equality.js';
import { isQuantity, quantityValue } from '../../../node/scheduler/quantity.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];
const classReclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

// The volume sources a PersistentVolume may name (PersistentVolumeSource's fields).
const pvSources = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'hostPath',
  'glusterfs',
  'nfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Whether `value`, when given, is one of `allowed`. */
const oneOf = (value: unknown, allowed: readonly string[]): boolean =>
  typeof value === 'string' && allowed.includes(value);

/** ValidateClassName, where a class name is given at all. */
function validateClassName(errs: FieldError[], field: string, name: unknown): void {
  if (typeof name !== 'string' || name === '') return;
  for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(field, name, msg));
}

/** The access modes of a claim or a volume: at least one, each supported, ReadWriteOncePod alone. */
function validateAccessModes(
  errs: FieldError[],
  field: string,
  modes: unknown,
  what: string,
): void {
  const given = list(modes);
  if (given.length === 0) {
    errs.push(required(field, what));
    return;
  }
  for (const mode of given) {
    if (typeof mode !== 'string' || !accessModes.includes(mode)) {
      errs.push(notSupported(field, mode, accessModes));
    }
  }
  if (given.includes('ReadWriteOncePod') && given.length > 1) {
    errs.push(forbidden(field, 'may not use ReadWriteOncePod with other access modes'));
  }
}

/** A storage quantity: present, a quantity, above zero. */
function validateStorage(errs: FieldError[], field: string, value: unknown): void {
  if (value === undefined) {
    errs.push(required(field, ''));
    return;
  }
  if ((typeof value !== 'string' && typeof value !== 'number') || !isQuantity(value)) {
    errs.push(invalid(field, value, 'must be a valid quantity'));
    return;
  }
  if (quantityValue(value) <= 0) errs.push(invalid(field, value, 'must be greater than zero'));
}

/** ValidatePersistentVolumeClaimSpec, at `spec`. */
export function validatePersistentVolumeClaimSpec(spec: Obj, field = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  validateAccessModes(
    errs,
    `${field}.accessModes`,
    spec.accessModes,
    'at least 1 access mode is required',
  );
  validateStorage(errs, `${field}.resources[storage]`, obj(obj(spec.resources).requests).storage);
  if (spec.volumeMode !== undefined && !oneOf(spec.volumeMode, volumeModes)) {
    errs.push(notSupported(`${field}.volumeMode`, spec.volumeMode, volumeModes));
  }
  validateClassName(errs, `${field}.storageClassName`, spec.storageClassName);
  return errs;
}

/** A PersistentVolumeClaim on create or update. */
export function validatePersistentVolumeClaim(pvc: Obj): FieldError[] {
  return validatePersistentVolumeClaimSpec(obj(pvc.spec));
}

/**
 * ValidatePersistentVolumeClaimUpdate: the spec is fixed once created, but
 * for the requested storage (expansion), the volume attributes class, and
 * `volumeName` while it is still empty (the binder sets it once).
 */
export function validatePersistentVolumeClaimUpdate(next: Obj, old: Obj): FieldError[] {
  const mutable = (spec: Obj, volumeName: unknown): Obj => {
    const rest: Obj = { ...spec, volumeName };
    const resources = { ...obj(spec.resources) };
    delete resources.requests;
    rest.resources = resources;
    delete rest.volumeAttributesClassName;
    return rest;
  };
  const oldSpec = obj(old.spec);
  const nextSpec = obj(next.spec);
  const oldName = typeof oldSpec.volumeName === 'string' ? oldSpec.volumeName : '';
  const volumeName = oldName === '' ? nextSpec.volumeName : oldSpec.volumeName;
  if (!sameJSON(mutable(nextSpec, nextSpec.volumeName), mutable(oldSpec, volumeName))) {
    return [
      forbidden(
        'spec',
        'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      ),
    ];
  }
  return [];
}

/** ValidatePersistentVolumeSpec, at `spec`. */
export function validatePersistentVolume(pv: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(pv.spec);
  validateAccessModes(errs, 'spec.accessModes', spec.accessModes, '');
  const capacity = obj(spec.capacity);
  const keys = Object.keys(capacity);
  if (keys.length === 0) {
    errs.push(required('spec.capacity', ''));
  } else if (!('storage' in capacity) || keys.length > 1) {
    errs.push(notSupported('spec.capacity', keys.join(','), ['storage']));
  } else {
    validateStorage(errs, 'spec.capacity[storage]', capacity.storage);
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && !oneOf(policy, reclaimPolicies)) {
    errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, reclaimPolicies));
  }
  if (spec.volumeMode !== undefined && !oneOf(spec.volumeMode, volumeModes)) {
    errs.push(notSupported('spec.volumeMode', spec.volumeMode, volumeModes));
  }
  validateClassName(errs, 'spec.storageClassName', spec.storageClassName);
  const sources = pvSources.filter((s) => isObj(spec[s]));
  if (sources.length === 0) errs.push(required('spec', 'must specify a volume type'));
  if (sources.length > 1)
    errs.push(forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'));
  if (isObj(spec.hostPath) && !obj(spec.hostPath).path) {
    errs.push(required('spec.hostPath.path', ''));
  }
  if (isObj(spec.local)) {
    if (!obj(spec.local).path) errs.push(required('spec.local.path', ''));
    if (!isObj(obj(spec.nodeAffinity).required)) {
      errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
    }
  }
  return errs;
}

/**
 * ValidatePersistentVolumeUpdate: the volume source cannot change, and node
 * affinity, once set, neither.
 */
export function validatePersistentVolumeUpdate(next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const nextSpec = obj(next.spec);
  const oldSpec = obj(old.spec);
  for (const s of pvSources) {
    if (!sameJSON(nextSpec[s] ?? null, oldSpec[s] ?? null)) {
      errs.push(
        forbidden(
          'spec.persistentvolumesource',
          'spec.persistentvolumesource is immutable after creation',
        ),
      );
      break;
    }
  }
  if (
    oldSpec.nodeAffinity !== undefined &&
    !sameJSON(nextSpec.nodeAffinity ?? null, oldSpec.nodeAffinity)
  ) {
    errs.push(invalid('spec.nodeAffinity', nextSpec.nodeAffinity ?? null, 'field is immutable'));
  }
  return errs;
}

/** ValidateStorageClass. */
export function validateStorageClass(sc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = sc.provisioner;
  if (typeof provisioner !== 'string' || provisioner === '') {
    errs.push(required('provisioner', ''));
  } else if (provisioner.length > 63) {
    errs.push(invalid('provisioner', provisioner, 'must be no more than 63 characters'));
  }
  if (sc.reclaimPolicy !== undefined && !oneOf(sc.reclaimPolicy, classReclaimPolicies)) {
    errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, classReclaimPolicies));
  }
  if (sc.volumeBindingMode !== undefined && !oneOf(sc.volumeBindingMode, bindingModes)) {
    errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, bindingModes));
  }
  const params = obj(sc.parameters);
  for (const [k, v] of Object.entries(params)) {
    if (typeof v !== 'string') errs.push(invalid(`parameters[${k}]`, v, 'must be a string'));
  }
  return errs;
}

/** ValidateStorageClassUpdate: provisioner, parameters, reclaim policy and binding mode are fixed. */
export function validateStorageClassUpdate(next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!sameJSON(next.parameters ?? {}, old.parameters ?? {})) {
    errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  }
  if (next.provisioner !== old.provisioner) {
    errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  }
  if (next.reclaimPolicy !== old.reclaimPolicy) {
    errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  }
  if (next.volumeBindingMode !== old.volumeBindingMode) {
    errs.push(invalid('volumeBindingMode', next.volumeBindingMode ?? null, 'field is immutable'));
  }
  return errs;
}
