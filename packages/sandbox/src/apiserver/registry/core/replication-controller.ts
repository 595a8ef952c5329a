// What kube-apiserver checks of core/v1 ReplicationControllers:
// pkg/apis/core/validation/validation.go (ValidateReplicationController,
// ValidateReplicationControllerSpec, ValidateNonEmptySelector,
// ValidatePodTemplateSpecForRC, ValidateReplicationControllerStatus) as
// pkg/registry/core/replicationcontroller/strategy.go calls it. The selector
// is a plain label map here, not a LabelSelector, and may change.
import { selectorFromSet } from '@kcm-ts/apimachinery';
import { forbidden, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { nonNegative, validatePodSpec, validateStringMap } from '../validation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const labelMap = (v: unknown): Record<string, string> =>
  isObj(v)
    ? Object.fromEntries(
        Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'),
      )
    : {};

/** ValidateReplicationController: the spec, after SetDefaults_ReplicationController. */
export function validateReplicationController(rc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(rc.spec);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  validateStringMap(errs, 'spec.selector', spec.selector, true);
  const selector = labelMap(spec.selector);
  // ValidateNonEmptySelector.
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector', ''));
  nonNegative(errs, 'spec.replicas', spec.replicas);
  validateTemplateForRC(errs, spec.template, selector);
  return errs;
}

// ValidatePodTemplateSpecForRC: there, matched by the selector, restarting
// Always and without a deadline.
function validateTemplateForRC(
  errs: FieldError[],
  template: unknown,
  selector: Record<string, string>,
): void {
  if (!isObj(template)) {
    errs.push(required('spec.template', ''));
    return;
  }
  const labels = obj(template.metadata).labels;
  if (Object.keys(selector).length > 0 && !selectorFromSet(selector).matches(labelMap(labels))) {
    errs.push(
      invalid(
        'spec.template.metadata.labels',
        labels ?? {},
        'selector does not match labels in spec.template',
      ),
    );
  }
  validateStringMap(errs, 'spec.template.metadata.labels', labels, true);
  errs.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  const podSpec = obj(template.spec);
  const policy = podSpec.restartPolicy ?? '';
  if (policy !== 'Always') {
    errs.push(notSupported('spec.template.spec.restartPolicy', policy, ['Always']));
  }
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  }
}

/** ValidateReplicationControllerStatusUpdate: counts not negative, none above `replicas`. */
export function validateReplicationControllerStatusUpdate(next: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const status = obj(next.status);
  const count = (f: string): number => (typeof status[f] === 'number' ? status[f] : 0);
  for (const f of [
    'replicas',
    'fullyLabeledReplicas',
    'readyReplicas',
    'availableReplicas',
    'observedGeneration',
  ]) {
    nonNegative(errs, `status.${f}`, status[f]);
  }
  for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (count(f) > count('replicas')) {
      errs.push(invalid(`status.${f}`, count(f), 'cannot be greater than status.replicas'));
    }
  }
  if (count('availableReplicas') > count('readyReplicas')) {
    errs.push(
      invalid(
        'status.availableReplicas',
        count('availableReplicas'),
        'cannot be greater than readyReplicas',
      ),
    );
  }
  return errs;
}
