// What every delete checks and does before the object goes or waits:
// the delete options' validation (apimachinery's pkg/apis/meta/v1/
// validation, ValidateDeleteOptions), the preconditions (the generic
// store's Delete), and graceful deletion
// (staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go, BeforeDelete,
// with the store's markAsDeleting bumping generation).
import {
  GoLiteral,
  fieldInvalid,
  fieldNotSupported,
  formatTime,
  newConflict,
  newInvalid,
} from '@kcm-ts/apimachinery';
import type { FieldError } from '@kcm-ts/apimachinery';
import type { DeleteOptions, KubeObject } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../../resources.js';
import { invalid } from '../resource-errors.js';
import type { Strategy } from '../strategy.js';
import { type Obj } from '../../unstructured.js';

const policies = ['Foreground', 'Background', 'Orphan'];

/**
 * The options a delete reaches the registry with: `metav1.DeleteOptions`,
 * with the deprecated `orphanDependents` and, from an HTTP request, every
 * dryRun value it named.
 */
export type RegistryDeleteOptions = DeleteOptions & {
  /** The deprecated choice between orphaning (true) and deleting (false) dependents. */
  orphanDependents?: boolean;
  /** Every dryRun value the request named; all must be `All`. */
  dryRunValues?: string[];
};

/**
 * 422 Invalid for options no delete accepts: apimachinery's
 * ValidateDeleteOptions (both `orphanDependents` and a propagation policy,
 * an unknown policy, a dryRun value other than `All`), as the handler and
 * BeforeDelete report it, against `DeleteOptions.meta.k8s.io`; and a
 * negative or fractional grace period, against the object.
 */
export function validateDeleteOptions(
  info: ResourceInfo,
  name: string,
  opts: RegistryDeleteOptions,
): void {
  const errs: FieldError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push(
      fieldInvalid(
        'propagationPolicy',
        opts.propagationPolicy,
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  }
  if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
    errs.push(fieldNotSupported('propagationPolicy', opts.propagationPolicy, [...policies, 'nil']));
  }
  const dryRun = opts.dryRunValues ?? (opts.dryRun !== undefined ? [opts.dryRun] : []);
  if (dryRun.some((d) => d !== 'All')) {
    const literal = `[]string{${dryRun.map((d) => JSON.stringify(d)).join(', ')}}`;
    errs.push(fieldNotSupported('dryRun', new GoLiteral(literal), ['All']));
  }
  if (errs.length > 0) {
    throw newInvalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  }
  if (
    opts.gracePeriodSeconds !== undefined &&
    (!Number.isInteger(opts.gracePeriodSeconds) || opts.gracePeriodSeconds < 0)
  ) {
    throw invalid(info, name, [
      {
        type: 'FieldValueInvalid',
        field: 'gracePeriodSeconds',
        value: opts.gracePeriodSeconds,
        detail: 'must be greater than or equal to 0',
      },
    ]);
  }
}

/** 409 Conflict when the stored object is not the one the preconditions name. */
export function checkPreconditions(
  info: ResourceInfo,
  name: string,
  meta: NonNullable<KubeObject['metadata']>,
  pre: NonNullable<DeleteOptions['preconditions']>,
): void {
  if (pre.uid && pre.uid !== meta.uid) {
    throw newConflict(
      { group: info.group, resource: info.resource },
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`,
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw newConflict(
      { group: info.group, resource: info.resource },
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

// The latest instant an RFC 3339 timestamp can name: a grace period of
// years on end (int64 allows 292 billion) stops there instead of failing.
const latestTime = Date.UTC(9999, 11, 31, 23, 59, 59);

/** When a deletion `grace` seconds from `now` falls due. */
function deletionTime(now: number, grace: number): string {
  return formatTime(Math.min(now + grace * 1000, latestTime));
}

/**
 * Marks `next` (a copy of the stored object, finalizers already settled) as
 * being deleted when it must wait for finalizers or a grace period, or
 * shortens the grace period of one already being deleted. Returns whether
 * deletion had already started, and whether this call started it.
 */
export function beforeDelete(
  strategy: Strategy,
  next: Obj,
  opts: DeleteOptions,
  now: number,
): { pending: boolean; started: boolean } {
  const m = next.metadata as Obj;
  const finalizers = Array.isArray(m.finalizers) ? m.finalizers : [];
  const defaultGrace = strategy.gracePeriod(next);
  // pod strategy, CheckGracefulDelete: a pod that never ran (or finished) goes at once.
  const grace = !defaultGrace ? 0 : (opts.gracePeriodSeconds ?? defaultGrace);
  if (m.deletionTimestamp !== undefined) {
    // Already deleting: only a shorter grace period (or new GC finalizers) changes anything.
    const current =
      typeof m.deletionGracePeriodSeconds === 'number' ? m.deletionGracePeriodSeconds : 0;
    if (grace < current) {
      m.deletionGracePeriodSeconds = grace;
      m.deletionTimestamp = deletionTime(now, grace);
    }
    return { pending: true, started: false };
  }
  if (finalizers.length === 0 && grace === 0) return { pending: false, started: false };
  m.deletionTimestamp = deletionTime(now, grace);
  m.deletionGracePeriodSeconds = grace;
  if (typeof m.generation === 'number') m.generation += 1;
  return { pending: false, started: true };
}
