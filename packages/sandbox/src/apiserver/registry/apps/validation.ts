// What kube-apiserver checks of DaemonSets, StatefulSets and
// ControllerRevisions: pkg/apis/apps/validation/validation.go
// (ValidateDaemonSet, ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy,
// ValidateRollingUpdateDaemonSet, ValidateDaemonSetStatusUpdate,
// ValidateStatefulSet, ValidateStatefulSetSpec,
// ValidatePodTemplateSpecForStatefulSet, validateRollingUpdateStatefulSet,
// ValidatePersistentVolumeClaimRetentionPolicy, ValidateStatefulSetUpdate,
// ValidateStatefulSetStatusUpdate, ValidateControllerRevision,
// ValidateControllerRevisionUpdate, ValidatePositiveIntOrPercent,
// IsNotMoreThan100Percent).
import { forbidden, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { sameJSON } from '../semantic-equality.js';
import {
  nonNegative,
  validatePodSpec,
  validateSelectorAndTemplate,
  validateStringMap,
} from '../validation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const validPercent = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent: a non-negative integer, or a percentage. */
export function positiveIntOrPercent(errs: FieldError[], field: string, value: unknown): void {
  if (typeof value === 'string') {
    if (!validPercent.test(value)) {
      errs.push(
        invalid(
          field,
          value,
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
      );
    }
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    nonNegative(errs, field, value);
  } else {
    errs.push(invalid(field, value, "must be an integer or percentage (e.g '5%')"));
  }
}

/** getIntOrPercentValue: the number of an integer or of a valid percentage; 0 otherwise. */
function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && validPercent.test(value)) return Number(value.slice(0, -1));
  return 0;
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100Percent(errs: FieldError[], field: string, value: unknown): void {
  if (typeof value === 'string' && validPercent.test(value) && Number(value.slice(0, -1)) > 100) {
    errs.push(invalid(field, value, 'must not be greater than 100%'));
  }
}

/** The restart policy and deadline every workload template shares. */
function validateWorkloadPodSpec(errs: FieldError[], spec: Obj, kind: string): void {
  const podSpec = obj(obj(spec.template).spec);
  const policy = podSpec.restartPolicy ?? '';
  if (policy !== 'Always') {
    errs.push(notSupported('spec.template.spec.restartPolicy', policy, ['Always']));
  }
  if (podSpec.activeDeadlineSeconds != null) {
    errs.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  }
}

/** ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet. */
function validateDaemonSetUpdateStrategy(errs: FieldError[], strategy: Obj): void {
  const at = 'spec.updateStrategy';
  if (strategy.type === 'OnDelete') return;
  if (strategy.type !== 'RollingUpdate') {
    errs.push(notSupported(at, strategy, ['RollingUpdate', 'OnDelete']));
    return;
  }
  if (!isObj(strategy.rollingUpdate)) {
    errs.push(required(`${at}.rollingUpdate`));
    return;
  }
  const ru = strategy.rollingUpdate;
  positiveIntOrPercent(errs, `${at}.rollingUpdate.maxUnavailable`, ru.maxUnavailable);
  positiveIntOrPercent(errs, `${at}.rollingUpdate.maxSurge`, ru.maxSurge);
  notMoreThan100Percent(errs, `${at}.rollingUpdate.maxUnavailable`, ru.maxUnavailable);
  notMoreThan100Percent(errs, `${at}.rollingUpdate.maxSurge`, ru.maxSurge);
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(
      invalid(
        `${at}.rollingUpdate.maxSurge`,
        ru.maxSurge,
        'may not be set when maxUnavailable is non-zero',
      ),
    );
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(required(`${at}.rollingUpdate.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  }
}

/** An apps/v1 DaemonSet: ValidateDaemonSetSpec. */
export function validateDaemonSet(ds: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(ds.spec);
  validateSelectorAndTemplate(errs, spec, 'daemonset');
  const template = obj(spec.template);
  validateStringMap(errs, 'spec.template.metadata.labels', obj(template.metadata).labels, true);
  errs.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  validateWorkloadPodSpec(errs, spec, 'DaemonSet');
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  validateDaemonSetUpdateStrategy(errs, obj(spec.updateStrategy));
  nonNegative(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  return errs;
}

/** The status counters of a DaemonSet or StatefulSet: none negative, collisionCount never down. */
function validateCounters(errs: FieldError[], status: Obj, fields: readonly string[]): void {
  for (const f of fields) nonNegative(errs, `status.${f}`, status[f]);
}

function collisionCountNotDecremented(errs: FieldError[], next: Obj, old: Obj): void {
  const now = obj(next.status).collisionCount;
  const before = obj(old.status).collisionCount;
  if (typeof before !== 'number') return;
  if (typeof now !== 'number' || now < before) {
    errs.push(
      invalid('status.collisionCount', typeof now === 'number' ? now : 0, 'cannot be decremented'),
    );
  }
}

/** ValidateDaemonSetStatusUpdate. */
export function validateDaemonSetStatusUpdate(next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  validateCounters(errs, obj(next.status), [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'observedGeneration',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
    'collisionCount',
  ]);
  collisionCountNotDecremented(errs, next, old);
  return errs;
}

/** validateRollingUpdateStatefulSet. */
function validateRollingUpdateStatefulSet(errs: FieldError[], ru: Obj, at: string): void {
  nonNegative(errs, `${at}.partition`, ru.partition ?? 0);
  if (ru.maxUnavailable != null) {
    positiveIntOrPercent(errs, `${at}.maxUnavailable`, ru.maxUnavailable);
    if (intOrPercentValue(ru.maxUnavailable) === 0) {
      errs.push(invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'cannot be 0'));
    }
    notMoreThan100Percent(errs, `${at}.maxUnavailable`, ru.maxUnavailable);
  }
}

/** An apps/v1 StatefulSet: ValidateStatefulSetSpec. */
export function validateStatefulSet(sts: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(sts.spec);
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') errs.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = obj(spec.updateStrategy);
  const type = strategy.type ?? '';
  if (type === '') errs.push(required('spec.updateStrategy'));
  else if (type === 'OnDelete') {
    if (strategy.rollingUpdate != null) {
      errs.push(
        invalid(
          'spec.updateStrategy.rollingUpdate',
          strategy.rollingUpdate,
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
    }
  } else if (type === 'RollingUpdate') {
    if (isObj(strategy.rollingUpdate)) {
      validateRollingUpdateStatefulSet(
        errs,
        strategy.rollingUpdate,
        'spec.updateStrategy.rollingUpdate',
      );
    }
  } else {
    errs.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (isObj(retention)) {
    for (const f of ['whenDeleted', 'whenScaled']) {
      const v = retention[f] ?? '';
      if (v !== 'Retain' && v !== 'Delete') {
        errs.push(
          notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']),
        );
      }
    }
  }
  nonNegative(errs, 'spec.replicas', spec.replicas ?? 0);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds ?? 0);
  if (isObj(spec.ordinals)) nonNegative(errs, 'spec.ordinals.start', spec.ordinals.start ?? 0);
  validateSelectorAndTemplate(errs, spec, 'statefulset');
  // ValidatePodTemplateSpecForStatefulSet checks the template's labels, not its pod spec.
  validateStringMap(
    errs,
    'spec.template.metadata.labels',
    obj(obj(spec.template).metadata).labels,
    true,
  );
  validateWorkloadPodSpec(errs, spec, 'StatefulSet');
  return errs;
}

// The spec fields a StatefulSet update may change (ValidateStatefulSetUpdate).
const statefulSetMutable = [
  'replicas',
  'template',
  'updateStrategy',
  'minReadySeconds',
  'ordinals',
  'persistentVolumeClaimRetentionPolicy',
];

/** ValidateStatefulSetUpdate: beyond the mutable fields, the spec may not change. */
export function validateStatefulSetUpdate(next: Obj, old: Obj): FieldError[] {
  const a = { ...obj(next.spec) };
  const b = { ...obj(old.spec) };
  for (const f of statefulSetMutable) {
    delete a[f];
    delete b[f];
  }
  if (sameJSON(a, b)) return [];
  return [
    forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** ValidateStatefulSetStatusUpdate. */
export function validateStatefulSetStatusUpdate(next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const s = obj(next.status);
  validateCounters(errs, s, [
    'replicas',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'availableReplicas',
    'observedGeneration',
    'collisionCount',
  ]);
  const n = (f: string): number => (typeof s[f] === 'number' ? s[f] : 0);
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (n(f) > n('replicas')) {
      errs.push(invalid(`status.${f}`, n(f), 'cannot be greater than status.replicas'));
    }
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(
      invalid(
        'status.availableReplicas',
        n('availableReplicas'),
        'cannot be greater than status.readyReplicas',
      ),
    );
  }
  collisionCountNotDecremented(errs, next, old);
  return errs;
}

/** An apps/v1 ControllerRevision: ValidateControllerRevision. */
export function validateControllerRevision(cr: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (cr.data === undefined || cr.data === null) errs.push(required('data', 'data is mandatory'));
  nonNegative(errs, 'revision', cr.revision ?? 0);
  return errs;
}

/** ValidateControllerRevisionUpdate: the data may not change. */
export function validateControllerRevisionUpdate(next: Obj, old: Obj): FieldError[] {
  if (sameJSON(next.data ?? null, old.data ?? null)) return [];
  return [invalid('data', next.data, 'field is immutable')];
}
