// The validation a controller relies on, as kube-apiserver does it:
// pkg/apis/core/validation/validation.go (ValidateObjectMeta, ValidatePodSpec,
// validateContainers), pkg/apis/apps/validation/validation.go
// (ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateDeploymentStrategy,
// ValidateRollingUpdateDeployment) and pkg/apis/coordination/validation.
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  labelSelectorAsSelector,
} from '@kcm-ts/apimachinery';
import { utf8Length } from '../body-limits.js';
import { duplicate, forbidden, invalid, notSupported, required } from './field-errors.js';
import type { FieldError } from './field-errors.js';
import { type Obj, isObj, obj } from '../unstructured.js';

/** A field that, when set, must be a whole number of at least 0 (ValidateNonnegativeField). */
export function nonNegative(errs: FieldError[], field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    errs.push(invalid(field, value, 'must be an integer'));
  } else if (value < 0) {
    errs.push(invalid(field, value, 'must be greater than or equal to 0'));
  }
}

/** A map of strings: qualified-name keys, and label values when `checkValue`. */
export function validateStringMap(
  errs: FieldError[],
  field: string,
  value: unknown,
  checkValue: boolean,
): void {
  if (value === undefined || value === null) return;
  if (!isObj(value)) {
    errs.push(invalid(field, value, 'must be a map of string keys to string values'));
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(field, k, msg));
    if (typeof v !== 'string') errs.push(invalid(`${field}[${k}]`, v, 'must be a string'));
    else if (checkValue) for (const msg of isValidLabelValue(v)) errs.push(invalid(field, v, msg));
  }
}

/** ObjectMeta: name (already generated from generateName), labels, annotations, owners. */
export function validateObjectMeta(
  meta: Obj,
  nameIsLabel: boolean,
  checkName?: (name: string) => string[],
): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta.name;
  if (typeof name !== 'string' || name === '') {
    errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    const check = checkName ?? (nameIsLabel ? isDNS1123Label : isDNS1123Subdomain);
    for (const msg of check(name)) {
      errs.push(invalid('metadata.name', name, msg));
    }
  }
  validateStringMap(errs, 'metadata.labels', meta.labels, true);
  validateStringMap(errs, 'metadata.annotations', meta.annotations, false);
  if (meta.finalizers !== undefined && !Array.isArray(meta.finalizers)) {
    errs.push(invalid('metadata.finalizers', meta.finalizers, 'must be a list of strings'));
  }
  if (meta.ownerReferences !== undefined) {
    if (!Array.isArray(meta.ownerReferences)) {
      errs.push(invalid('metadata.ownerReferences', meta.ownerReferences, 'must be a list'));
    } else {
      let controllers = 0;
      meta.ownerReferences.forEach((ref: unknown, i) => {
        const r = obj(ref);
        for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
          if (typeof r[f] !== 'string' || r[f] === '') {
            errs.push(required(`metadata.ownerReferences[${i}].${f}`, `${f} must not be empty`));
          }
        }
        if (r.controller === true) controllers++;
      });
      if (controllers > 1) {
        errs.push(
          invalid(
            'metadata.ownerReferences',
            meta.ownerReferences,
            'Only one reference can have Controller set to true',
          ),
        );
      }
    }
  }
  return errs;
}

function validateContainers(
  errs: FieldError[],
  field: string,
  value: unknown,
  atLeastOne: boolean,
) {
  if (value === undefined || value === null) {
    if (atLeastOne) errs.push(required(field));
    return;
  }
  if (!Array.isArray(value)) {
    errs.push(invalid(field, value, 'must be a list of containers'));
    return;
  }
  if (atLeastOne && value.length === 0) errs.push(required(field));
  const seen = new Set<string>();
  value.forEach((c: unknown, i) => {
    const container = obj(c);
    const at = `${field}[${i}]`;
    const name = container.name;
    if (typeof name !== 'string' || name === '') errs.push(required(`${at}.name`));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${at}.name`, name, msg));
      if (seen.has(name)) errs.push(duplicate(`${at}.name`, name));
      seen.add(name);
    }
    if (typeof container.image !== 'string' || container.image.trim() === '') {
      errs.push(required(`${at}.image`));
    }
  });
}

/** PodSpec: containers and restart policy. */
export function validatePodSpec(spec: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const s = obj(spec);
  validateContainers(errs, `${field}.containers`, s.containers, true);
  validateContainers(errs, `${field}.initContainers`, s.initContainers, false);
  const policies = ['Always', 'OnFailure', 'Never'];
  if (typeof s.restartPolicy === 'string' && !policies.includes(s.restartPolicy)) {
    errs.push(notSupported(`${field}.restartPolicy`, s.restartPolicy, policies));
  }
  nonNegative(errs, `${field}.terminationGracePeriodSeconds`, s.terminationGracePeriodSeconds);
  return errs;
}

/** The selector is set, not empty, and matches the pod template's labels. */
export function validateSelectorAndTemplate(errs: FieldError[], spec: Obj, kind: string): void {
  const selector = spec.selector;
  const templateLabels = obj(obj(spec.template).metadata).labels;
  if (selector === undefined || selector === null) {
    errs.push(required('spec.selector'));
    return;
  }
  let matches = false;
  try {
    const parsed = labelSelectorAsSelector(selector);
    if (parsed.empty()) {
      errs.push(invalid('spec.selector', selector, `empty selector is invalid for ${kind}`));
      return;
    }
    matches = parsed.matches(
      isObj(templateLabels) ? (templateLabels as Record<string, string>) : {},
    );
  } catch (err) {
    errs.push(invalid('spec.selector', selector, (err as Error).message));
    return;
  }
  if (!matches) {
    errs.push(
      invalid(
        'spec.template.metadata.labels',
        templateLabels ?? {},
        '`selector` does not match template `labels`',
      ),
    );
  }
}

function validateReplicatedTemplate(errs: FieldError[], spec: Obj): void {
  const template = obj(spec.template);
  validateStringMap(errs, 'spec.template.metadata.labels', obj(template.metadata).labels, true);
  errs.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  const policy = obj(template.spec).restartPolicy;
  if (typeof policy === 'string' && policy !== 'Always') {
    errs.push(notSupported('spec.template.spec.restartPolicy', policy, ['Always']));
  }
}

function percentOrInt(value: unknown): { percent: boolean; n: number } | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return { percent: false, n: value };
  if (typeof value === 'string') {
    const m = /^(\d+)%$/.exec(value);
    if (m) return { percent: true, n: Number(m[1]) };
  }
  return undefined;
}

/** apps/v1 ReplicaSet. */
export function validateReplicaSet(rs: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(rs.spec);
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  validateSelectorAndTemplate(errs, spec, 'replicaset');
  validateReplicatedTemplate(errs, spec);
  return errs;
}

/** apps/v1 Deployment. */
export function validateDeployment(d: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(d.spec);
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  validateSelectorAndTemplate(errs, spec, 'deployment');
  validateReplicatedTemplate(errs, spec);
  validateDeploymentStrategy(errs, obj(spec.strategy));
  validateProgressDeadline(errs, spec);
  return errs;
}

/** ValidateDeploymentStrategy: Recreate without rollingUpdate, or a valid RollingUpdate. */
function validateDeploymentStrategy(errs: FieldError[], strategy: Obj): void {
  if (strategy.type === 'Recreate') {
    if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
      errs.push(
        forbidden(
          'spec.strategy.rollingUpdate',
          "may not be specified when strategy `type` is 'Recreate'",
        ),
      );
    }
  } else if (strategy.type === 'RollingUpdate') {
    const ru = strategy.rollingUpdate;
    if (ru === undefined || ru === null) {
      errs.push(
        required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'),
      );
    } else validateRollingUpdateDeployment(errs, obj(ru));
  } else {
    errs.push(
      notSupported('spec.strategy.type', strategy.type ?? '', ['Recreate', 'RollingUpdate']),
    );
  }
}

/** ValidateRollingUpdateDeployment: maxUnavailable and maxSurge, not both 0. */
function validateRollingUpdateDeployment(errs: FieldError[], r: Obj): void {
  const parsed: Record<string, { percent: boolean; n: number }> = {};
  for (const f of ['maxUnavailable', 'maxSurge']) {
    const p = percentOrInt(r[f]);
    if (!p) {
      errs.push(
        invalid(
          `spec.strategy.rollingUpdate.${f}`,
          r[f],
          "must be an integer or percentage (e.g '5%')",
        ),
      );
    } else if (p.n < 0) {
      errs.push(
        invalid(`spec.strategy.rollingUpdate.${f}`, r[f], 'must be greater than or equal to 0'),
      );
    } else parsed[f] = p;
  }
  const mu = parsed.maxUnavailable;
  const ms = parsed.maxSurge;
  if (mu?.percent && mu.n > 100) {
    errs.push(
      invalid(
        'spec.strategy.rollingUpdate.maxUnavailable',
        r.maxUnavailable,
        'must not be greater than 100%',
      ),
    );
  }
  if (mu && ms && mu.n === 0 && ms.n === 0) {
    errs.push(
      invalid(
        'spec.strategy.rollingUpdate.maxUnavailable',
        r.maxUnavailable,
        'may not be 0 when `maxSurge` is 0',
      ),
    );
  }
}

/** progressDeadlineSeconds, when set: not negative, and above minReadySeconds. */
function validateProgressDeadline(errs: FieldError[], spec: Obj): void {
  const deadline = spec.progressDeadlineSeconds;
  if (deadline === undefined || deadline === null) return;
  nonNegative(errs, 'spec.progressDeadlineSeconds', deadline);
  const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  if (typeof deadline === 'number' && deadline <= minReady) {
    errs.push(
      invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'),
    );
  }
}

/** The selector of a Deployment or ReplicaSet may not change (apps/v1). */
export function validateSelectorImmutable(next: Obj, old: Obj): FieldError[] {
  const a = obj(next.spec).selector;
  const b = obj(old.spec).selector;
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  return [invalid('spec.selector', a, 'field is immutable')];
}

/** A Pod. */
export function validatePod(pod: Obj): FieldError[] {
  return validatePodSpec(pod.spec, 'spec');
}

/** A coordination.k8s.io/v1 Lease. */
export function validateLease(lease: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(lease.spec);
  const d = spec.leaseDurationSeconds;
  if (d !== undefined && d !== null && (typeof d !== 'number' || d <= 0)) {
    errs.push(invalid('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  }
  nonNegative(errs, 'spec.leaseTransitions', spec.leaseTransitions);
  return errs;
}

// apimachinery's IsConfigMapKey (util/validation/validation.go).
function configMapKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** core.MaxSecretSize: what a ConfigMap's or Secret's data may hold, in bytes. */
const maxSecretSize = 1024 * 1024;

const tooLong = (field: string, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `must have at most ${max} bytes`,
});

// The bytes a base64 value decodes to (typed-fields.ts has checked it decodes).
const decodedLength = (v: string): number => Math.floor((v.replace(/[=\r\n]/g, '').length * 3) / 4);

/** ValidateConfigMap: keys are config keys, none in both maps, at most 1 MiB in all. */
export function validateConfigMap(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(o.data);
  const binaryData = obj(o.binaryData);
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of configMapKeyErrors(key)) errs.push(invalid(`data[${key}]`, key, msg));
    if (Object.hasOwn(binaryData, key)) {
      errs.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
    total += typeof value === 'string' ? utf8Length(value) : 0;
  }
  for (const [key, value] of Object.entries(binaryData)) {
    for (const msg of configMapKeyErrors(key)) errs.push(invalid(`binaryData[${key}]`, key, msg));
    total += typeof value === 'string' ? decodedLength(value) : 0;
  }
  // The field of an error about the whole object prints as "[]".
  if (total > maxSecretSize) errs.push(tooLong('[]', maxSecretSize));
  return errs;
}

/** ValidateSecret's data checks: keys are config keys, at most 1 MiB decoded. */
export function validateSecretData(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(obj(o.data))) {
    for (const msg of configMapKeyErrors(key)) errs.push(invalid(`data[${key}]`, key, msg));
    total += typeof value === 'string' ? decodedLength(value) : 0;
  }
  if (total > maxSecretSize) errs.push(tooLong('data', maxSecretSize));
  return errs;
}
