// The Status errors a resource's verbs answer with, qualified by its group
// and resource or kind as kube-apiserver qualifies them (apimachinery's
// pkg/api/errors/errors.go, NewNotFound and NewInvalid), and a cause added
// to one of them.
import { StatusError, newInvalid, newNotFound } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../resources.js';
import { toCauses } from './field-errors.js';
import type { FieldError } from './field-errors.js';

/** 404 NotFound for `name` of this resource. */
export function notFound(info: ResourceInfo, name: string): StatusError {
  return newNotFound({ group: info.group, resource: info.resource }, name);
}

/** 422 Invalid for `name` of this kind, one cause per field error. */
export function invalid(info: ResourceInfo, name: string, errs: FieldError[]): StatusError {
  return newInvalid({ group: info.group, kind: info.kind }, name, toCauses(errs));
}

/** `err` with one more cause in its details. */
export function withCause(
  err: StatusError,
  cause: { reason: string; message: string; field: string },
): StatusError {
  const status = err.toStatus();
  return new StatusError({
    code: err.code,
    reason: err.reason,
    message: err.message,
    details: { ...status.details, causes: [...(status.details?.causes ?? []), cause] },
  });
}
