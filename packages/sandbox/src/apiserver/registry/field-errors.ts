// Field errors as kube-apiserver reports them in a 422 Invalid Status:
// k8s.io/apimachinery/pkg/util/validation/field/errors.go, which
// @kcm-ts/apimachinery ports (FieldError, ErrorBody, the constructors). This
// file keeps the short names the registry's validation is written with, and
// how a value reads in a plain message.
import {
  fieldDuplicate,
  fieldErrorBody,
  fieldErrorsToCauses,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '@kcm-ts/apimachinery';

export { GoLiteral } from '@kcm-ts/apimachinery';
export type { FieldError, FieldErrorType } from '@kcm-ts/apimachinery';

/** A value as a message shows it: strings bare, anything else as JSON. */
export function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? String(value);
}

/** The message of one cause: `Invalid value: "Foo": a lowercase RFC 1123 ...`. */
export const errorBody = fieldErrorBody;
/** The causes of a 422 Invalid Status, one per field error. */
export const toCauses = fieldErrorsToCauses;
/** errors.go, Required. */
export const required = fieldRequired;
/** errors.go, Invalid. */
export const invalid = fieldInvalid;
/** errors.go, NotSupported. */
export const notSupported = fieldNotSupported;
/** errors.go, Duplicate. */
export const duplicate = fieldDuplicate;
/** errors.go, Forbidden. */
export const forbidden = fieldForbidden;
