// What kube-apiserver checks of policy/v1 PodDisruptionBudgets:
// pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudget,
// ValidatePodDisruptionBudgetSpec, ValidatePodDisruptionBudgetStatusUpdate)
// as pkg/registry/policy/poddisruptionbudget/strategy.go calls it, with the
// label selector checks of apimachinery's ValidateLabelSelector.
import { isQualifiedName, isValidLabelValue } from '@kcm-ts/apimachinery';
import { notMoreThan100Percent, positiveIntOrPercent } from '../apps/validation.js';
import { invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { nonNegative } from '../validation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

/** The unhealthy pod eviction policies policy/v1 knows, sorted as Go's sets list them. */
export const unhealthyPodEvictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'] as const;

/**
 * ValidateLabelSelector (apimachinery's meta/v1 validation): qualified keys,
 * label values, and operators with the values each one wants.
 */
export function validateLabelSelector(errs: FieldError[], field: string, selector: unknown): void {
  if (selector === undefined || selector === null) return;
  if (!isObj(selector)) {
    errs.push(invalid(field, selector, 'must be a label selector'));
    return;
  }
  const labels = selector.matchLabels;
  if (labels !== undefined && labels !== null) {
    if (!isObj(labels)) errs.push(invalid(`${field}.matchLabels`, labels, 'must be a map'));
    else {
      for (const [k, v] of Object.entries(labels)) {
        for (const msg of isQualifiedName(k)) errs.push(invalid(`${field}.matchLabels`, k, msg));
        for (const msg of isValidLabelValue(typeof v === 'string' ? v : String(v)))
          errs.push(invalid(`${field}.matchLabels`, v, msg));
      }
    }
  }
  const expressions = selector.matchExpressions;
  if (!Array.isArray(expressions)) return;
  expressions.forEach((e: unknown, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const r = obj(e);
    const values = Array.isArray(r.values) ? r.values : [];
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (values.length === 0)
        errs.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(
          invalid(
            `${at}.values`,
            values,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
    } else {
      errs.push(invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof r.key === 'string' ? r.key : '';
    for (const msg of isQualifiedName(key)) errs.push(invalid(`${at}.key`, key, msg));
  });
}

/** ValidatePodDisruptionBudget: one of minAvailable and maxUnavailable, the selector, the policy. */
export function validatePodDisruptionBudget(pdb: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(pdb.spec);
  const set = (v: unknown) => v !== undefined && v !== null;
  if (set(spec.minAvailable) && set(spec.maxUnavailable)) {
    errs.push(invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable']) {
    if (!set(spec[f])) continue;
    positiveIntOrPercent(errs, `spec.${f}`, spec[f]);
    notMoreThan100Percent(errs, `spec.${f}`, spec[f]);
  }
  validateLabelSelector(errs, 'spec.selector', spec.selector);
  const policy = spec.unhealthyPodEvictionPolicy;
  if (set(policy) && !(unhealthyPodEvictionPolicies as readonly unknown[]).includes(policy)) {
    errs.push(
      notSupported('spec.unhealthyPodEvictionPolicy', policy, [...unhealthyPodEvictionPolicies]),
    );
  }
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate: the counts are not negative. */
export function validatePodDisruptionBudgetStatusUpdate(next: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const status = obj(next.status);
  for (const f of [
    'disruptionsAllowed',
    'currentHealthy',
    'desiredHealthy',
    'expectedPods',
    'observedGeneration',
  ]) {
    nonNegative(errs, `status.${f}`, status[f]);
  }
  return errs;
}
