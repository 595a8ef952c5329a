// What kube-apiserver checks of Jobs and CronJobs: pkg/apis/batch/validation/
// validation.go (ValidateJob, validateGeneratedSelector, ValidateJobSpec,
// validateJobSpec, validatePodFailurePolicy and its rules, validateSuccessPolicy,
// validatePodReplacementPolicy, validateJobStatus, ValidateJobSpecUpdate,
// validatePodTemplateUpdate, ValidateJobStatusUpdate, validateCompletions,
// validateIndexesFormat, parseIndexInterval,
// validateFailedIndexesNotOverlapCompleted, ValidateCronJobCreate,
// validateCronJobSpec, validateConcurrencyPolicy, validateScheduleFormat,
// validateTimeZone, ValidateJobTemplateSpec), with the options
// pkg/registry/batch/job/strategy.go passes (validationOptionsForJob,
// getStatusValidationOptions, with the JobManagedBy gate on as in 1.32).
import {
  isDNS1123Label,
  isQualifiedName,
  labelSelectorAsSelector,
  omitValue,
  scheduleUsesTimeZone,
  validateCronJobSchedule,
  validateCronJobTimeZone,
} from '@kcm-ts/apimachinery';
import { duplicate, invalid, notSupported, required } from '../field-errors.js';
import type { FieldError } from '../field-errors.js';
import { sameJSON } from '../semantic-equality.js';
import { nonNegative, validatePodSpec, validateStringMap } from '../validation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const maxParallelismForIndexedJob = 100_000;
const maxFailedIndexesForIndexedJob = 100_000;
const completionsSoftLimit = 100_000;
const parallelismLimitForHighCompletions = 10_000;
const maxFailedIndexesLimitForHighCompletions = 10_000;
const maxPodFailurePolicyRules = 20;
const maxPodFailurePolicyOnExitCodesValues = 255;
const maxPodFailurePolicyOnPodConditionsPatterns = 20;
const maxManagedByLength = 63;
const maxSuccessPolicySucceededIndexes = 64 * 1024;
const maxSuccessPolicyRules = 20;

const podFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const onExitCodesOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];

/** The labels the API server generates on a Job's pods (batch/v1 types.go). */
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const legacyJobNameLabel = 'job-name';
export const legacyControllerUidLabel = 'controller-uid';

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function tooMany(field: string, actual: number, max: number): FieldError {
  return {
    type: 'FieldValueTooMany',
    field,
    detail: `must have at most ${max} items`,
    value: actual,
  };
}

function tooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: `must have at most ${max} bytes` };
}

/** ValidateHasLabel: the template must carry `key` with `value`. */
function hasLabel(errs: FieldError[], meta: Obj, field: string, key: string, value: string): void {
  const labels = obj(meta.labels);
  const actual = labels[key];
  if (actual === undefined) {
    errs.push(required(`${field}.labels`, `must be '${value}'`));
  } else if (actual !== value) {
    errs.push(invalid(`${field}.labels`, obj(meta.labels), `must be '${value}'`));
  }
}

function isConditionTrue(status: Obj, type: string): boolean {
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((c) => isObj(c) && c.type === type && c.status === 'True');
}

const isComplete = (s: Obj) => isConditionTrue(s, 'Complete');
const isFailed = (s: Obj) => isConditionTrue(s, 'Failed');
const isFinished = (s: Obj) => isComplete(s) || isFailed(s);
const isFailureTarget = (s: Obj) => isConditionTrue(s, 'FailureTarget');
const isSuccessCriteriaMet = (s: Obj) => isConditionTrue(s, 'SuccessCriteriaMet');

/** parseIndexInterval: `x` or `x-y`, below `completions`. */
function parseIndexInterval(interval: string, completions: number): [number, number] {
  const parts = interval.split('-');
  if (parts.length > 2) {
    throw new Error(
      `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`,
    );
  }
  const atoi = (s: string): number => {
    if (!/^[+-]?\d+$/.test(s)) {
      throw new Error(`cannot convert string to integer for index: ${JSON.stringify(s)}`);
    }
    return Number(s);
  };
  const x = atoi(parts[0] ?? '');
  if (x >= completions) throw new Error(`too large index: ${JSON.stringify(parts[0])}`);
  if (parts.length === 1) return [x, x];
  const y = atoi(parts[1] ?? '');
  if (y >= completions) throw new Error(`too large index: ${JSON.stringify(parts[1])}`);
  if (x >= y) throw new Error(`non-increasing order, previous: ${x}, current: ${y}`);
  return [x, y];
}

/**
 * validateIndexesFormat: comma-separated intervals in increasing order;
 * the number of indexes they cover. Throws with Go's message.
 */
export function validateIndexesFormat(indexes: string, completions: number): number {
  if (indexes === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const [x, y] = parseIndexInterval(interval, completions);
    if (last !== undefined && last >= x) {
      throw new Error(`non-increasing order, previous: ${last}, current: ${x}`);
    }
    total += y - x + 1;
    last = y;
  }
  return total;
}

function failedOverlapsCompleted(completed: string, failed: string, completions: number): string {
  if (completed === '' || failed === '') return '';
  const c = completed.split(',');
  const f = failed.split(',');
  const parse = (s: string | undefined): [number, number] | undefined => {
    try {
      return parseIndexInterval(s ?? '', completions);
    } catch {
      return undefined;
    }
  };
  let ci = 0;
  let fi = 0;
  let cv = parse(c[0]);
  let fv = parse(f[0]);
  while (ci < c.length && fi < f.length) {
    if (!cv) cv = parse(c[++ci]);
    else if (!fv) fv = parse(f[++fi]);
    else {
      if (cv[0] <= fv[1] && fv[0] <= cv[1]) {
        return `failedIndexes and completedIndexes overlap at index: ${Math.max(cv[0], fv[0])}`;
      }
      if (cv[0] <= fv[0]) cv = parse(c[++ci]);
      else fv = parse(f[++fi]);
    }
  }
  return '';
}

/** validateJobSpec: the spec of a Job or of a CronJob's Job template. */
function validateJobSpecFields(errs: FieldError[], spec: Obj, at: string): void {
  for (const f of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
  ]) {
    nonNegative(errs, `${at}.${f}`, spec[f]);
  }
  if (spec.maxFailedIndexes != null) {
    nonNegative(errs, `${at}.maxFailedIndexes`, spec.maxFailedIndexes);
    if (spec.backoffLimitPerIndex == null) {
      errs.push(required(`${at}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
    }
  }
  if (spec.managedBy != null) {
    const managedBy = str(spec.managedBy);
    // IsDomainPrefixedPath: a DNS subdomain, then a path.
    const slash = managedBy.indexOf('/');
    const domain = slash < 0 ? managedBy : managedBy.slice(0, slash);
    if (
      slash < 0 ||
      domain === '' ||
      !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(domain)
    ) {
      errs.push(
        invalid(
          `${at}.managedBy`,
          managedBy,
          'must be a domain-prefixed path (such as "acme.io/foo")',
        ),
      );
    }
    if (managedBy.length > maxManagedByLength)
      errs.push(tooLong(`${at}.managedBy`, maxManagedByLength));
  }
  const mode = spec.completionMode;
  const completions = num(spec.completions);
  const parallelism = num(spec.parallelism);
  const maxFailed = num(spec.maxFailedIndexes);
  const perIndex = spec.backoffLimitPerIndex;
  if (mode != null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      errs.push(notSupported(`${at}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    }
    if (mode === 'Indexed') {
      if (spec.completions == null) {
        errs.push(required(`${at}.completions`, 'when completion mode is Indexed'));
      }
      if (parallelism !== undefined && parallelism > maxParallelismForIndexedJob) {
        errs.push(
          invalid(
            `${at}.parallelism`,
            parallelism,
            `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`,
          ),
        );
      }
      if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
        errs.push(
          invalid(`${at}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'),
        );
      }
      if (maxFailed !== undefined && maxFailed > maxFailedIndexesForIndexedJob) {
        errs.push(
          invalid(
            `${at}.maxFailedIndexes`,
            maxFailed,
            `must be less than or equal to ${maxFailedIndexesForIndexedJob}`,
          ),
        );
      }
      if (completions !== undefined && completions > completionsSoftLimit && perIndex != null) {
        if (maxFailed === undefined) {
          errs.push(
            required(
              `${at}.maxFailedIndexes`,
              `must be specified when completions is above ${completionsSoftLimit}`,
            ),
          );
        }
        const high = `when completions are above ${completionsSoftLimit} and used with backoff limit per index`;
        if (parallelism !== undefined && parallelism > parallelismLimitForHighCompletions) {
          errs.push(
            invalid(
              `${at}.parallelism`,
              parallelism,
              `must be less than or equal to ${parallelismLimitForHighCompletions} ${high}`,
            ),
          );
        }
        if (maxFailed !== undefined && maxFailed > maxFailedIndexesLimitForHighCompletions) {
          errs.push(
            invalid(
              `${at}.maxFailedIndexes`,
              maxFailed,
              `must be less than or equal to ${maxFailedIndexesLimitForHighCompletions} ${high}`,
            ),
          );
        }
      }
    }
  }
  if (mode == null || mode === 'NonIndexed') {
    if (perIndex != null) {
      errs.push(
        invalid(`${at}.backoffLimitPerIndex`, perIndex, 'requires indexed completion mode'),
      );
    }
    if (spec.maxFailedIndexes != null) {
      errs.push(
        invalid(
          `${at}.maxFailedIndexes`,
          spec.maxFailedIndexes,
          'requires indexed completion mode',
        ),
      );
    }
  }
  if (spec.podFailurePolicy != null) validatePodFailurePolicy(errs, spec, `${at}.podFailurePolicy`);
  if (spec.successPolicy != null) {
    if ((mode ?? 'NonIndexed') !== 'Indexed') {
      errs.push(
        invalid(`${at}.successPolicy`, spec.successPolicy, 'requires indexed completion mode'),
      );
    } else validateSuccessPolicy(errs, spec, `${at}.successPolicy`);
  }
  if (spec.podReplacementPolicy != null) {
    const policy = spec.podReplacementPolicy;
    if (spec.podFailurePolicy != null) {
      if (policy !== 'Failed')
        errs.push(notSupported(`${at}.podReplacementPolicy`, policy, ['Failed']));
    } else if (policy !== 'Failed' && policy !== 'TerminatingOrFailed') {
      errs.push(
        notSupported(`${at}.podReplacementPolicy`, policy, ['Failed', 'TerminatingOrFailed']),
      );
    }
  }
  const template = obj(spec.template);
  validateStringMap(errs, `${at}.template.metadata.labels`, obj(template.metadata).labels, true);
  errs.push(...validatePodSpec(template.spec, `${at}.template.spec`));
  const restartPolicy = obj(template.spec).restartPolicy;
  if (restartPolicy === 'Always' || restartPolicy === undefined || restartPolicy === '') {
    errs.push(required(`${at}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(
      notSupported(`${at}.template.spec.restartPolicy`, restartPolicy, ['OnFailure', 'Never']),
    );
  } else if (spec.podFailurePolicy != null && restartPolicy !== 'Never') {
    errs.push(
      invalid(
        `${at}.template.spec.restartPolicy`,
        restartPolicy,
        'only "Never" is supported when podFailurePolicy is specified',
      ),
    );
  }
}

function containerNames(spec: Obj): Set<string> {
  const podSpec = obj(obj(spec.template).spec);
  const names = new Set<string>();
  for (const list of [podSpec.containers, podSpec.initContainers]) {
    if (Array.isArray(list))
      for (const c of list) if (typeof obj(c).name === 'string') names.add(str(obj(c).name));
  }
  return names;
}

function validatePodFailurePolicy(errs: FieldError[], spec: Obj, at: string): void {
  const rules = obj(spec.podFailurePolicy).rules;
  const list = Array.isArray(rules) ? rules : [];
  if (list.length > maxPodFailurePolicyRules)
    errs.push(tooMany(`${at}.rules`, list.length, maxPodFailurePolicyRules));
  const names = containerNames(spec);
  list.forEach((r, i) => {
    const rule = obj(r);
    const path = `${at}.rules[${i}]`;
    const action = rule.action;
    if (action === undefined || action === '') {
      errs.push(
        required(
          `${path}.action`,
          `valid values: ${JSON.stringify(podFailurePolicyActions).replace(/,/g, ' ')}`,
        ),
      );
    } else if (action === 'FailIndex') {
      if (spec.backoffLimitPerIndex == null) {
        errs.push(invalid(`${path}.action`, action, 'requires the backoffLimitPerIndex to be set'));
      }
    } else if (!podFailurePolicyActions.includes(str(action))) {
      errs.push(notSupported(`${path}.action`, action, podFailurePolicyActions));
    }
    const onExit = rule.onExitCodes;
    const onConditions = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (onExit != null) validateOnExitCodes(errs, obj(onExit), `${path}.onExitCodes`, names);
    if (onConditions.length > 0)
      validateOnPodConditions(errs, onConditions, `${path}.onPodConditions`);
    if (onExit != null && onConditions.length > 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: path,
        detail: 'specifying both OnExitCodes and OnPodConditions is not supported',
        value: omitValue,
      });
    }
    if (onExit == null && onConditions.length === 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: path,
        detail: 'specifying one of OnExitCodes and OnPodConditions is required',
        value: omitValue,
      });
    }
  });
}

function validateOnPodConditions(errs: FieldError[], patterns: unknown[], at: string): void {
  if (patterns.length > maxPodFailurePolicyOnPodConditionsPatterns) {
    errs.push(tooMany(at, patterns.length, maxPodFailurePolicyOnPodConditionsPatterns));
  }
  patterns.forEach((p, j) => {
    const pattern = obj(p);
    for (const msg of isQualifiedName(str(pattern.type))) {
      errs.push(invalid(`${at}[${j}].type`, pattern.type, msg));
    }
    if (pattern.status === undefined || pattern.status === '') {
      errs.push(required(`${at}[${j}].status`, 'valid values: ["False" "True" "Unknown"]'));
    } else if (!conditionStatuses.includes(str(pattern.status))) {
      errs.push(notSupported(`${at}[${j}].status`, pattern.status, conditionStatuses));
    }
  });
}

function validateOnExitCodes(errs: FieldError[], req: Obj, at: string, names: Set<string>): void {
  const op = req.operator;
  if (op === undefined || op === '') {
    errs.push(required(`${at}.operator`, 'valid values: ["In" "NotIn"]'));
  } else if (!onExitCodesOperators.includes(str(op))) {
    errs.push(notSupported(`${at}.operator`, op, onExitCodesOperators));
  }
  if (req.containerName != null && !names.has(str(req.containerName))) {
    errs.push(
      invalid(
        `${at}.containerName`,
        req.containerName,
        'must be one of the container or initContainer names in the pod template',
      ),
    );
  }
  const values = Array.isArray(req.values) ? (req.values as unknown[]) : [];
  if (values.length === 0)
    errs.push(invalid(`${at}.values`, values, 'at least one value is required'));
  else if (values.length > maxPodFailurePolicyOnExitCodesValues) {
    errs.push(tooMany(`${at}.values`, values.length, maxPodFailurePolicyOnExitCodesValues));
  }
  const seen = new Set<unknown>();
  let ordered = true;
  values.forEach((v, j) => {
    if (op === 'In' && v === 0)
      errs.push(invalid(`${at}.values[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(duplicate(`${at}.values[${j}]`, v));
    else seen.add(v);
    if (j > 0 && Number(values[j - 1]) > Number(v)) ordered = false;
  });
  if (!ordered) errs.push(invalid(`${at}.values`, values, 'must be ordered'));
}

function validateSuccessPolicy(errs: FieldError[], spec: Obj, at: string): void {
  const rules = obj(spec.successPolicy).rules;
  const list = Array.isArray(rules) ? rules : [];
  if (list.length === 0) {
    errs.push(
      required(
        `${at}.rules`,
        'at least one rules must be specified when the successPolicy is specified',
      ),
    );
  }
  if (list.length > maxSuccessPolicyRules)
    errs.push(tooMany(`${at}.rules`, list.length, maxSuccessPolicyRules));
  const completions = num(spec.completions) ?? 0;
  list.forEach((r, i) => {
    const rule = obj(r);
    const path = `${at}.rules[${i}]`;
    if (rule.succeededCount == null && rule.succeededIndexes == null) {
      errs.push(
        required(path, 'at least one of succeededCount or succeededIndexes must be specified'),
      );
    }
    let total = 0;
    if (rule.succeededIndexes != null) {
      const indexes = str(rule.succeededIndexes);
      if (indexes.length > maxSuccessPolicySucceededIndexes) {
        errs.push(tooLong(`${path}.succeededIndexes`, maxSuccessPolicySucceededIndexes));
      }
      try {
        total = validateIndexesFormat(indexes, completions);
      } catch (err) {
        errs.push(
          invalid(
            `${path}.succeededIndexes`,
            indexes,
            `error parsing succeededIndexes: ${(err as Error).message}`,
          ),
        );
      }
    }
    if (rule.succeededCount != null) {
      const count = num(rule.succeededCount) ?? 0;
      nonNegative(errs, `${path}.succeededCount`, rule.succeededCount);
      if (count > completions) {
        errs.push(
          invalid(
            `${path}.succeededCount`,
            count,
            `must be less than or equal to ${completions} (the number of specified completions)`,
          ),
        );
      }
      if (rule.succeededIndexes != null && count > total) {
        errs.push(
          invalid(
            `${path}.succeededCount`,
            count,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
      }
    }
  });
}

/** The selector and the labels generated for it (validateGeneratedSelector). */
function validateGeneratedSelector(
  errs: FieldError[],
  job: Obj,
  requirePrefixedLabels: boolean,
): void {
  const spec = obj(job.spec);
  if (spec.manualSelector === true || spec.selector == null) return;
  const meta = obj(job.metadata);
  const uid = str(meta.uid);
  const name = str(meta.name);
  if (uid === '') errs.push(required('metadata.uid'));
  const templateMeta = obj(obj(spec.template).metadata);
  const at = 'spec.template.metadata';
  hasLabel(errs, templateMeta, at, legacyControllerUidLabel, uid);
  hasLabel(errs, templateMeta, at, legacyJobNameLabel, name);
  const expected: Record<string, string> = {};
  if (requirePrefixedLabels) {
    hasLabel(errs, templateMeta, at, controllerUidLabel, uid);
    hasLabel(errs, templateMeta, at, jobNameLabel, name);
    expected[controllerUidLabel] = uid;
    expected[jobNameLabel] = name;
  }
  expected[legacyControllerUidLabel] = uid;
  expected[legacyJobNameLabel] = name;
  try {
    if (!labelSelectorAsSelector(spec.selector).matches(expected)) {
      errs.push(invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
    }
  } catch {
    // Reported by the selector's own validation.
  }
}

/** ValidateJobSpec: the spec, and a selector that selects the template's labels. */
function validateJobSpec(errs: FieldError[], spec: Obj): void {
  validateJobSpecFields(errs, spec, 'spec');
  const selector = spec.selector;
  if (selector == null) {
    errs.push(required('spec.selector'));
    return;
  }
  try {
    const parsed = labelSelectorAsSelector(selector);
    const labels = obj(obj(obj(spec.template).metadata).labels) as Record<string, string>;
    if (!parsed.matches(labels)) {
      errs.push(
        invalid(
          'spec.template.metadata.labels',
          obj(obj(spec.template).metadata).labels ?? {},
          '`selector` does not match template `labels`',
        ),
      );
    }
  } catch (err) {
    errs.push(invalid('spec.selector', selector, (err as Error).message));
  }
}

/** ValidateJob, on create: metadata is the generic store's; spec, selector and pod hostnames here. */
export function validateJob(job: Obj, old?: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(job.spec);
  // strategy.go, validationOptionsForJob: the prefixed labels are required
  // unless an old Job lacked them.
  let requirePrefixed = true;
  if (old) {
    const oldLabels = obj(obj(obj(obj(old.spec).template).metadata).labels);
    requirePrefixed =
      oldLabels[jobNameLabel] !== undefined && oldLabels[controllerUidLabel] !== undefined;
  }
  validateGeneratedSelector(errs, job, requirePrefixed);
  validateJobSpec(errs, spec);
  const completions = num(spec.completions);
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    const name = str(obj(job.metadata).name);
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(
        invalid(
          'metadata.name',
          name,
          `will not able to create pod with invalid DNS label: ${hostname}`,
        ),
      );
    }
  }
  return errs;
}

const immutable = (errs: FieldError[], field: string, next: unknown, old: unknown): void => {
  if (!sameJSON(next ?? null, old ?? null))
    errs.push(invalid(field, next ?? null, 'field is immutable'));
};

/**
 * ValidateJobUpdate's spec part: what may not change, with the template
 * open only as validatePodTemplateUpdate allows (node affinity, node
 * selector, tolerations, scheduling gates, labels and annotations of a
 * suspended Job that never started), and completions only in tandem with
 * parallelism for an Indexed Job (ElasticIndexedJob).
 */
export function validateJobUpdate(next: Obj, old: Obj): FieldError[] {
  // ValidateJobSpecUpdate validates the spec again, as Go does after ValidateJob.
  const errs: FieldError[] = [];
  const spec = obj(next.spec);
  validateJobSpec(errs, spec);
  const oldSpec = obj(old.spec);
  // validateCompletions
  if (spec.completionMode === 'Indexed') {
    if (
      !sameJSON(spec.completions ?? null, oldSpec.completions ?? null) &&
      spec.completions != null
    ) {
      if (spec.completions !== spec.parallelism) {
        errs.push(
          invalid(
            'spec.completions',
            spec.completions,
            'can only be modified in tandem with spec.parallelism',
          ),
        );
      }
    }
  } else immutable(errs, 'spec.completions', spec.completions, oldSpec.completions);
  immutable(errs, 'spec.selector', spec.selector, oldSpec.selector);
  const suspended = oldSpec.suspend === true;
  const notStarted = obj(old.status).startTime == null;
  let oldTemplate = obj(oldSpec.template);
  const template = obj(spec.template);
  if (suspended && notStarted) {
    const copy = structuredClone(oldTemplate);
    const podSpec = obj(copy.spec);
    const newPodSpec = obj(template.spec);
    const newAffinity = newPodSpec.affinity;
    if (newAffinity == null && podSpec.affinity != null) {
      const rest = { ...obj(podSpec.affinity) };
      delete rest.nodeAffinity;
      if (Object.keys(rest).length === 0) delete podSpec.affinity;
      else podSpec.affinity = rest;
    } else if (newAffinity != null && podSpec.affinity == null) {
      podSpec.affinity = { nodeAffinity: obj(newAffinity).nodeAffinity };
    } else if (newAffinity != null && podSpec.affinity != null) {
      podSpec.affinity = { ...obj(podSpec.affinity), nodeAffinity: obj(newAffinity).nodeAffinity };
    }
    for (const f of ['nodeSelector', 'tolerations', 'schedulingGates']) {
      if (newPodSpec[f] === undefined) delete podSpec[f];
      else podSpec[f] = newPodSpec[f];
    }
    const meta = obj(copy.metadata);
    const newMeta = obj(template.metadata);
    for (const f of ['annotations', 'labels']) {
      if (newMeta[f] === undefined) delete meta[f];
      else meta[f] = newMeta[f];
    }
    copy.metadata = meta;
    copy.spec = podSpec;
    oldTemplate = copy;
  }
  immutable(errs, 'spec.template', template, oldTemplate);
  for (const f of [
    'completionMode',
    'podFailurePolicy',
    'backoffLimitPerIndex',
    'managedBy',
    'successPolicy',
  ]) {
    immutable(errs, `spec.${f}`, spec[f], oldSpec[f]);
  }
  return errs;
}

/**
 * ValidateJobUpdateStatus with the options the status strategy passes while
 * JobManagedBy is on: each rule checked only when what it guards changed.
 */
export function validateJobStatusUpdate(next: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(next.spec);
  const s = obj(next.status);
  const o = obj(old.status);
  const at = 'status';
  const changed = (f: string) => !sameJSON(s[f] ?? null, o[f] ?? null);
  const finishedChanged = isFinished(o) !== isFinished(s);
  const completeChanged = isComplete(o) !== isComplete(s);
  const failedChanged = isFailed(o) !== isFailed(s);
  const failureTargetChanged = isFailureTarget(o) !== isFailureTarget(s);
  const completedIndexesChanged = str(o.completedIndexes) !== str(s.completedIndexes);
  const failedIndexesChanged = changed('failedIndexes');
  const indexed = spec.completionMode === 'Indexed';
  const completions = num(spec.completions);
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating'])
    nonNegative(errs, `${at}.${f}`, s[f]);
  const uncounted = s.uncountedTerminatedPods;
  if (isObj(uncounted)) {
    const seen = new Set<string>();
    for (const list of ['succeeded', 'failed']) {
      const uids = Array.isArray(uncounted[list]) ? (uncounted[list] as unknown[]) : [];
      uids.forEach((u, i) => {
        const p = `${at}.uncountedTerminatedPods.${list}[${i}]`;
        if (u === '') errs.push(invalid(p, u, 'must not be empty'));
        else if (seen.has(str(u))) errs.push(duplicate(p, u));
        else seen.add(str(u));
      });
    }
  }
  const omit = (detail: string, field = `${at}.conditions`): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    detail,
    value: omitValue,
  });
  if ((completeChanged || failedChanged) && isComplete(s) && isFailed(s)) {
    errs.push(omit('cannot set Complete=True and Failed=true conditions'));
  }
  if ((completeChanged || failureTargetChanged) && isComplete(s) && isFailureTarget(s)) {
    errs.push(omit('cannot set Complete=True and FailureTarget=true conditions'));
  }
  const completionChanged = completeChanged || changed('completionTime');
  if (completionChanged && s.completionTime != null && !isComplete(s)) {
    errs.push(
      invalid(
        `${at}.completionTime`,
        s.completionTime,
        'cannot set completionTime when there is no Complete=True condition',
      ),
    );
  }
  if (completionChanged && s.completionTime == null && isComplete(s)) {
    errs.push(required(`${at}.completionTime`, 'completionTime is required for Complete jobs'));
  }
  if (
    (changed('startTime') || changed('completionTime')) &&
    typeof s.startTime === 'string' &&
    typeof s.completionTime === 'string' &&
    Date.parse(s.completionTime) < Date.parse(s.startTime)
  ) {
    errs.push(
      invalid(
        `${at}.completionTime`,
        s.completionTime,
        'completionTime cannot be set before startTime',
      ),
    );
  }
  if (
    (finishedChanged || changed('active')) &&
    num(s.active) !== undefined &&
    (num(s.active) ?? 0) > 0 &&
    isFinished(s)
  ) {
    errs.push(invalid(`${at}.active`, s.active, 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || changed('startTime')) && s.startTime == null && isFinished(s)) {
    errs.push(required(`${at}.startTime`, 'startTime is required for finished job'));
  }
  if (
    (finishedChanged || changed('uncountedTerminatedPods')) &&
    isFinished(s) &&
    isObj(uncounted)
  ) {
    const n =
      (Array.isArray(uncounted.failed) ? uncounted.failed.length : 0) +
      (Array.isArray(uncounted.succeeded) ? uncounted.succeeded.length : 0);
    if (n > 0) {
      errs.push(
        invalid(
          `${at}.uncountedTerminatedPods`,
          uncounted,
          'uncountedTerminatedPods needs to be empty for finished job',
        ),
      );
    }
  }
  if (completedIndexesChanged && completions !== undefined) {
    try {
      validateIndexesFormat(str(s.completedIndexes), completions);
    } catch (err) {
      errs.push(
        invalid(
          `${at}.completedIndexes`,
          s.completedIndexes,
          `error parsing completedIndexes: ${(err as Error).message}`,
        ),
      );
    }
  }
  if (
    failedIndexesChanged &&
    completions !== undefined &&
    spec.backoffLimitPerIndex != null &&
    s.failedIndexes != null
  ) {
    try {
      validateIndexesFormat(str(s.failedIndexes), completions);
    } catch (err) {
      errs.push(
        invalid(
          `${at}.failedIndexes`,
          s.failedIndexes,
          `error parsing failedIndexes: ${(err as Error).message}`,
        ),
      );
    }
  }
  if (completedIndexesChanged && str(s.completedIndexes) !== '' && !indexed) {
    errs.push(
      invalid(
        `${at}.completedIndexes`,
        s.completedIndexes,
        'cannot set non-empty completedIndexes when non-indexed completion mode',
      ),
    );
  }
  if (failedIndexesChanged && spec.backoffLimitPerIndex == null && s.failedIndexes != null) {
    errs.push(
      invalid(
        `${at}.failedIndexes`,
        s.failedIndexes,
        'cannot set non-null failedIndexes when backoffLimitPerIndex is null',
      ),
    );
  }
  if (
    (failedIndexesChanged || completedIndexesChanged) &&
    completions !== undefined &&
    s.failedIndexes != null
  ) {
    const overlap = failedOverlapsCompleted(
      str(s.completedIndexes),
      str(s.failedIndexes),
      completions,
    );
    if (overlap) errs.push(invalid(`${at}.failedIndexes`, s.failedIndexes, overlap));
  }
  if (isSuccessCriteriaMet(s) && isFailed(s))
    errs.push(omit('cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (isSuccessCriteriaMet(s) && isFailureTarget(s)) {
    errs.push(omit('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  }
  if (spec.successPolicy != null && !isSuccessCriteriaMet(s) && isComplete(s)) {
    errs.push(
      omit('cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'),
    );
  }
  // ValidateJobStatusUpdate's transitions.
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (isConditionTrue(o, type) && !isConditionTrue(s, type)) {
      errs.push(omit(`cannot disable the terminal ${type}=True condition`));
    }
  }
  if ((num(s.failed) ?? 0) < (num(o.failed) ?? 0)) {
    errs.push(invalid(`${at}.failed`, s.failed ?? 0, 'cannot decrease the failed counter'));
  }
  const rejectDecreasingSucceeded = !indexed || spec.completions !== spec.parallelism;
  if (rejectDecreasingSucceeded && (num(s.succeeded) ?? 0) < (num(o.succeeded) ?? 0)) {
    errs.push(
      invalid(`${at}.succeeded`, s.succeeded ?? 0, 'cannot decrease the succeeded counter'),
    );
  }
  if (
    s.completionTime != null &&
    o.completionTime != null &&
    s.completionTime !== o.completionTime
  ) {
    errs.push(
      invalid(`${at}.completionTime`, s.completionTime, 'completionTime cannot be mutated'),
    );
  }
  // A resume (Suspended going from True to False) is when the Job
  // controller sets a new start time (kubernetes#134769).
  const resuming = isConditionTrue(o, 'Suspended') && !isConditionTrue(s, 'Suspended');
  if (changed('startTime') && !resuming && o.startTime != null && spec.suspend !== true) {
    errs.push(
      invalid(
        `${at}.startTime`,
        s.startTime ?? null,
        'field is immutable for unsuspended job once set',
      ),
    );
  }
  if (isSuccessCriteriaMet(o) && !isSuccessCriteriaMet(s)) {
    errs.push(omit('cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (isComplete(o) && !isSuccessCriteriaMet(o) && isSuccessCriteriaMet(s)) {
    errs.push(
      omit('cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'),
    );
  }
  return errs;
}

/** validateConcurrencyPolicy. */
function validateConcurrencyPolicy(errs: FieldError[], value: unknown, at: string): void {
  const policies = ['Allow', 'Forbid', 'Replace'];
  if (value === undefined || value === '') errs.push(required(at));
  else if (!policies.includes(str(value))) errs.push(notSupported(at, value, policies));
}

/** ValidateJobTemplateSpec: a Job spec whose selector will be generated. */
function validateJobTemplateSpec(errs: FieldError[], template: Obj, at: string): void {
  const spec = obj(template.spec);
  validateJobSpecFields(errs, spec, `${at}.spec`);
  if (spec.selector != null) {
    errs.push(invalid(`${at}.spec.selector`, spec.selector, '`selector` will be auto-generated'));
  }
  if (spec.manualSelector === true) {
    errs.push(notSupported(`${at}.spec.manualSelector`, true, ['nil', 'false']));
  }
}

/**
 * validateCronJobSpec (ValidateCronJobCreate, or with the old object
 * ValidateCronJobUpdate): the schedule as robfig/cron reads it, with the
 * TZ rule, and the time zone only when it is new or changed.
 */
export function validateCronJobSpec(cronJob: Obj, old: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(cronJob.spec);
  const oldSpec = old ? obj(old.spec) : undefined;
  const schedule = str(spec.schedule);
  const timeZone = spec.timeZone == null ? undefined : str(spec.timeZone);
  if (schedule === '') errs.push(required('spec.schedule'));
  else {
    errs.push(
      ...validateCronJobSchedule(schedule, 'spec.schedule', {
        allowTZInSchedule: oldSpec !== undefined && scheduleUsesTimeZone(str(oldSpec.schedule)),
        timeZone,
      }),
    );
  }
  nonNegative(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  if (oldSpec === undefined || oldSpec.timeZone !== spec.timeZone) {
    errs.push(...validateCronJobTimeZone(timeZone, 'spec.timeZone'));
  }
  validateConcurrencyPolicy(errs, spec.concurrencyPolicy, 'spec.concurrencyPolicy');
  validateJobTemplateSpec(errs, obj(spec.jobTemplate), 'spec.jobTemplate');
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  if (!old) {
    const name = str(obj(cronJob.metadata).name);
    // The controller names Jobs `<name>-<minutes>`, 11 characters more, and a
    // Job name is at most 63.
    if (name.length > 52)
      errs.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  }
  return errs;
}
