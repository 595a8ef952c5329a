// The eviction subresource of pods: pkg/registry/core/pod/storage/
// eviction.go (EvictionREST.Create, propagateDryRun, canIgnorePDB,
// shouldEnforceResourceVersion, getPodDisruptionBudgets, checkAndDecrement,
// createTooManyRequestsError, addConditionAndDeletePod) with
// component-helpers' UpdateDisruptionAllowedCondition. A pod goes only if
// the one PodDisruptionBudget that selects it allows a disruption, which
// the eviction spends in a resourceVersion-guarded status write before the
// pod gets its DisruptionTarget condition and is deleted.
import {
  StatusError,
  formatTime,
  isConflict,
  labelSelectorAsSelector,
  newBadRequest,
  newConflict,
  newForbidden,
  newInternalError,
  newTimeoutError,
} from '@kcm-ts/apimachinery';
import type { KubeObject, ListOptions, ObjectList, UpdateOptions } from '@kcm-ts/apimachinery';
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { ResourceInfo } from '../../resources.js';
import type { RegistryDeleteOptions } from '../rest/delete.js';
import { plain } from '../field-errors.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * How many pods a budget may list as disrupted and not yet gone before
 * evictions under it are refused (MaxDisruptedPodSize).
 */
export const maxDisruptedPodSize = 2000;

/** Tries of a conflicting PDB status write, as EvictionsRetry's 20 steps. */
const evictionRetries = 20;

/** What an eviction needs of the registry: pods and PDBs, read, written, deleted. */
export interface EvictionStore {
  /** The clock's current time, epoch ms. */
  now(): number;
  resource(group: string, plural: string): ResourceInfo;
  get(info: ResourceInfo, namespace: string, name: string): KubeObject;
  list(info: ResourceInfo, namespace: string, opts?: ListOptions): ObjectList<KubeObject>;
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts: UpdateOptions & { subresource?: 'status' },
  ): { object: KubeObject };
  delete(
    info: ResourceInfo,
    namespace: string,
    name: string,
    opts: RegistryDeleteOptions,
  ): KubeObject | Status;
}

/** The Eviction's delete options, merged with the request's dryRun (propagateDryRun). */
function deleteOptionsOf(eviction: Obj, dryRun: 'All' | undefined): RegistryDeleteOptions {
  const raw = eviction.deleteOptions;
  const opts = obj(raw);
  const bodyDryRun = Array.isArray(opts.dryRun)
    ? opts.dryRun.filter((d): d is string => typeof d === 'string')
    : [];
  const requested = dryRun ? [dryRun] : [];
  const values = bodyDryRun.length > 0 ? bodyDryRun : requested;
  if (bodyDryRun.length > 0 && requested.length > 0 && plain(bodyDryRun) !== plain(requested)) {
    throw newInternalError(
      `Non-matching dry-run options in request and content: [${requested.join(' ')}] and [${bodyDryRun.join(' ')}]`,
    );
  }
  const out: RegistryDeleteOptions = {};
  if (values.length > 0) {
    out.dryRunValues = values;
    if (values.every((v) => v === 'All')) out.dryRun = 'All';
  }
  if (typeof opts.gracePeriodSeconds === 'number') out.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (typeof opts.propagationPolicy === 'string')
    out.propagationPolicy = opts.propagationPolicy as never;
  if (typeof opts.orphanDependents === 'boolean') out.orphanDependents = opts.orphanDependents;
  const pre = obj(opts.preconditions);
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  if (isObj(opts.preconditions)) out.preconditions = preconditions;
  return out;
}

const resourceVersionIsUnset = (o: RegistryDeleteOptions): boolean =>
  o.preconditions?.resourceVersion === undefined;

const withResourceVersion = (o: RegistryDeleteOptions, rv: string): RegistryDeleteOptions => ({
  ...o,
  preconditions: { ...o.preconditions, resourceVersion: rv },
});

const phaseOf = (pod: Obj): string => str(obj(pod.status).phase);

/** canIgnorePDB: finished, pending and terminating pods go without asking a budget. */
function canIgnorePDB(pod: Obj): boolean {
  const phase = phaseOf(pod);
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    obj(pod.metadata).deletionTimestamp !== undefined
  );
}

/** shouldEnforceResourceVersion: a pod that could still become ready is pinned. */
function shouldEnforceResourceVersion(pod: Obj): boolean {
  const phase = phaseOf(pod);
  return (
    phase !== 'Succeeded' && phase !== 'Failed' && obj(pod.metadata).deletionTimestamp === undefined
  );
}

/** podutil.IsPodReady: the Ready condition is True. */
function isPodReady(pod: Obj): boolean {
  const conditions = obj(pod.status).conditions;
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isObj(c) && c.type === 'Ready' && c.status === 'True')
  );
}

/** createTooManyRequestsError: 429, retry in 10 s, the budget still being processed. */
function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 429,
    reason: 'TooManyRequests',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: {
      ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
      causes: [{ reason: 'DisruptionBudget', message }],
    },
  });
}

const stillProcessing = (name: string): StatusError =>
  tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);

/**
 * Evicts a pod: POST `pods/{name}/eviction` with a policy/v1 (or v1beta1)
 * Eviction. Answers the Status kube-apiserver answers: Success once the pod
 * is deleted (or being deleted gracefully), or a Failure with code 500 when
 * more than one budget selects the pod; throws 429 TooManyRequests when the
 * budget has no disruption left, 404 for a missing pod, 409 for failed
 * preconditions.
 */
export function evictPod(
  store: EvictionStore,
  namespace: string,
  name: string,
  body: unknown,
  opts: { dryRun?: 'All' } = {},
): Status {
  if (!isObj(body)) throw newBadRequest('not a Eviction object');
  if (body.kind !== undefined && body.kind !== 'Eviction') {
    throw newBadRequest(`not a Eviction object: ${plain(body.kind)}`);
  }
  if (obj(body.metadata).name !== name) {
    throw newBadRequest('name in URL does not match name in Eviction object');
  }
  const original = deleteOptionsOf(body, opts.dryRun);
  const pods = store.resource('', 'pods');
  const pod = store.get(pods, namespace, name) as unknown as Obj;

  if (canIgnorePDB(pod)) {
    let options = original;
    if (shouldEnforceResourceVersion(pod) && resourceVersionIsUnset(original)) {
      options = withResourceVersion(original, String(obj(pod.metadata).resourceVersion));
    }
    addConditionAndDeletePod(store, pods, namespace, name, options);
    return success();
  }

  const budgets = podDisruptionBudgetsOf(store, pod, namespace);
  if (budgets.length > 1) {
    // Answered as an object, not an error: the create handler writes it with 201.
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      code: 500,
    };
  }
  let updateDeletionOptions = false;
  const pdb = budgets[0];
  const pdbName = str(obj(pdb?.metadata).name);
  if (pdb) {
    const spec = obj(pdb.spec);
    const status = obj(pdb.status);
    const count = (v: unknown): number => (typeof v === 'number' ? v : 0);
    if (!isPodReady(pod)) {
      // An unready pod is no part of the healthy count: with AlwaysAllow, or
      // while the budget is met, it goes without spending a disruption.
      if (
        spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' ||
        (count(status.currentHealthy) >= count(status.desiredHealthy) &&
          count(status.desiredHealthy) > 0)
      ) {
        updateDeletionOptions = true;
      }
    }
    if (!updateDeletionOptions) {
      spendDisruption(store, namespace, name, pdb, original.dryRun === 'All');
    }
  }
  let options = original;
  if (updateDeletionOptions) {
    options = withResourceVersion(original, String(obj(pod.metadata).resourceVersion));
  }
  try {
    addConditionAndDeletePod(store, pods, namespace, name, options);
  } catch (err) {
    if (isConflict(err) && updateDeletionOptions && resourceVersionIsUnset(original)) {
      throw stillProcessing(pdbName);
    }
    throw err;
  }
  return success();
}

function success(): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** getPodDisruptionBudgets: the budgets of the pod's namespace whose non-empty selector matches it. */
function podDisruptionBudgetsOf(store: EvictionStore, pod: Obj, namespace: string): Obj[] {
  const info = store.resource('policy', 'poddisruptionbudgets');
  const labels = obj(obj(pod.metadata).labels) as Record<string, string>;
  const out: Obj[] = [];
  for (const item of store.list(info, namespace).items) {
    const pdb = item as unknown as Obj;
    let selector;
    try {
      selector = labelSelectorAsSelector(obj(pdb.spec).selector as never);
    } catch {
      continue; // An invalid selector matches nothing.
    }
    // A missing or empty selector matches nothing here, not everything.
    if (selector.empty() || !selector.matches(labels)) continue;
    out.push(pdb);
  }
  return out;
}

/**
 * checkAndDecrement, retried on conflict with a fresh read: spends one of
 * the budget's allowed disruptions and records the pod as disrupted, in one
 * status write guarded by the budget's resourceVersion.
 */
function spendDisruption(
  store: EvictionStore,
  namespace: string,
  podName: string,
  first: Obj,
  dryRun: boolean,
): void {
  const info = store.resource('policy', 'poddisruptionbudgets');
  let pdb = first;
  for (let attempt = 0; ; attempt++) {
    try {
      checkAndDecrement(store, info, namespace, podName, structuredClone(pdb), dryRun);
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
      if (attempt + 1 >= evictionRetries) {
        const name = str(obj(pdb.metadata).name);
        throw newTimeoutError(`couldn't update PodDisruptionBudget "${name}" due to conflicts`, 10);
      }
      pdb = store.get(info, namespace, String(obj(pdb.metadata).name)) as unknown as Obj;
    }
  }
}

function checkAndDecrement(
  store: EvictionStore,
  info: ResourceInfo,
  namespace: string,
  podName: string,
  pdb: Obj,
  dryRun: boolean,
): void {
  const meta = obj(pdb.metadata);
  const name = str(meta.name);
  const status = obj(pdb.status);
  pdb.status = status;
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  if (num(status.observedGeneration) < num(meta.generation)) throw stillProcessing(name);
  const allowed = num(status.disruptionsAllowed);
  const forbidden = (why: string) =>
    newForbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, why);
  if (allowed < 0) throw forbidden('pdb disruptions allowed is negative');
  if (Object.keys(obj(status.disruptedPods)).length > maxDisruptedPodSize) {
    throw forbidden(
      'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
    );
  }
  if (allowed === 0) {
    throw tooManyRequests(
      `The disruption budget ${name} needs ${num(status.desiredHealthy)} healthy pods and has ${num(status.currentHealthy)} currently`,
      0,
    );
  }
  status.disruptionsAllowed = allowed - 1;
  const now = formatTime(store.now());
  if (status.disruptionsAllowed === 0) updateDisruptionAllowedCondition(status, now);
  if (dryRun) return;
  status.disruptedPods = { ...obj(status.disruptedPods), [podName]: now };
  store.update(info, namespace, name, pdb, { subresource: 'status' });
}

/**
 * UpdateDisruptionAllowedCondition (component-helpers' poddisruptionbudget
 * helpers) with meta.SetStatusCondition: DisruptionAllowed is True with
 * SufficientPods while disruptions are left, False with InsufficientPods
 * otherwise; the transition time moves only when the status does.
 */
export function updateDisruptionAllowedCondition(status: Obj, now: string): void {
  const allowed = typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed > 0;
  const wanted = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: status.observedGeneration ?? 0,
  };
  const conditions: unknown[] = Array.isArray(status.conditions)
    ? [...(status.conditions as unknown[])]
    : [];
  const at = conditions.findIndex((c) => isObj(c) && c.type === wanted.type);
  if (at === -1) {
    conditions.push({ ...wanted, lastTransitionTime: now });
  } else {
    const old = obj(conditions[at]);
    conditions[at] = {
      ...old,
      ...wanted,
      lastTransitionTime: old.status === wanted.status ? (old.lastTransitionTime ?? now) : now,
    };
  }
  status.conditions = conditions;
}

/**
 * addConditionAndDeletePod: unless a dry run, the pod gets the
 * DisruptionTarget condition (EvictionByEvictionAPI) through its status,
 * checked against the preconditions first, and a resourceVersion
 * precondition follows that write; then the pod is deleted.
 */
function addConditionAndDeletePod(
  store: EvictionStore,
  pods: ResourceInfo,
  namespace: string,
  name: string,
  options: RegistryDeleteOptions,
): void {
  let deleteOptions = options;
  if (options.dryRun !== 'All') {
    const latest = store.get(pods, namespace, name) as unknown as Obj;
    const meta = obj(latest.metadata);
    const pre = options.preconditions ?? {};
    const conflict = (why: string) => newConflict({ group: '', resource: 'Pod' }, name, why);
    if (pre.uid && pre.uid !== meta.uid) {
      throw conflict(
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(meta.uid)}). The object might have been deleted and then recreated`,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`,
      );
    }
    setDisruptionTarget(latest, formatTime(store.now()));
    const updated = store.update(pods, namespace, name, latest, { subresource: 'status' }).object;
    if (!resourceVersionIsUnset(options)) {
      deleteOptions = withResourceVersion(options, String(updated.metadata?.resourceVersion));
    }
  }
  store.delete(pods, namespace, name, deleteOptions);
}

/** podutil.UpdatePodCondition with the eviction's DisruptionTarget condition. */
function setDisruptionTarget(pod: Obj, now: string): void {
  const status = obj(pod.status);
  pod.status = status;
  const wanted = {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
  };
  const conditions: unknown[] = Array.isArray(status.conditions)
    ? [...(status.conditions as unknown[])]
    : [];
  const at = conditions.findIndex((c) => isObj(c) && c.type === wanted.type);
  if (at === -1) conditions.push({ ...wanted, lastProbeTime: null, lastTransitionTime: now });
  else {
    const old = obj(conditions[at]);
    conditions[at] = {
      ...wanted,
      lastProbeTime: null,
      lastTransitionTime: old.status === wanted.status ? (old.lastTransitionTime ?? now) : now,
    };
  }
  status.conditions = conditions;
}
