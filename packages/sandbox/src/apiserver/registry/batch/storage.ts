// How Jobs and CronJobs are stored: pkg/registry/batch/job/strategy.go
// (PrepareForCreate with generateSelectorIfNeeded and generateSelector,
// PrepareForUpdate, the status strategy, JobToSelectableFields,
// DefaultGarbageCollectionPolicy) and pkg/registry/batch/cronjob/strategy.go
// (PrepareForCreate, PrepareForUpdate), on top of the defaults of
// defaults.ts.
import { copyTemplateLabels, defaultCronJob, defaultJob } from '../defaults.js';
import {
  controllerUidLabel,
  jobNameLabel,
  legacyControllerUidLabel,
  legacyJobNameLabel,
} from './validation.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * generateSelector: the labels that make a Job's pods its own (its name and
 * uid, under the legacy and the `batch.kubernetes.io/` keys) on the pod
 * template, unless already there, and a selector of the uid. Conflicting
 * values a client set are left for validation to refuse.
 */
export function generateSelector(job: Obj): void {
  const meta = obj(job.metadata);
  const spec = obj(job.spec);
  job.spec = spec;
  const template = obj(spec.template);
  spec.template = template;
  const templateMeta = obj(template.metadata);
  template.metadata = templateMeta;
  const labels = isObj(templateMeta.labels) ? templateMeta.labels : {};
  templateMeta.labels = labels;
  for (const key of [legacyJobNameLabel, jobNameLabel]) {
    if (!Object.hasOwn(labels, key)) labels[key] = str(meta.name);
  }
  for (const key of [legacyControllerUidLabel, controllerUidLabel]) {
    if (!Object.hasOwn(labels, key)) labels[key] = str(meta.uid);
  }
  const selector = obj(spec.selector);
  spec.selector = selector;
  const matchLabels = isObj(selector.matchLabels) ? selector.matchLabels : {};
  selector.matchLabels = matchLabels;
  if (!Object.hasOwn(matchLabels, controllerUidLabel))
    matchLabels[controllerUidLabel] = str(meta.uid);
}

/** A Job about to be created: defaults, a generated selector unless manual, no status. */
export function prepareJobForCreate(job: Obj): void {
  defaultJob(job);
  if (obj(job.spec).manualSelector !== true) generateSelector(job);
  // kube-apiserver defaults the Job again as it reads it back from storage,
  // so its labels are its template's, generated ones included.
  copyTemplateLabels(job);
  job.status = {};
}

/** A Job's fields a field selector may use besides its name and namespace. */
export function jobSelectableFields(job: Obj): Record<string, string> {
  const succeeded = obj(job.status).succeeded;
  return { 'status.successful': String(typeof succeeded === 'number' ? succeeded : 0) };
}

/** A CronJob about to be created: defaults, no status. */
export function prepareCronJobForCreate(cronJob: Obj): void {
  defaultCronJob(cronJob);
  cronJob.status = {};
}
