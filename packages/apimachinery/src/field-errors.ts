// Field errors, the causes of a 422 Invalid: k8s.io/apimachinery/pkg/util/
// validation/field/errors.go (Error, ErrorType and its String, Error.ErrorBody,
// and the constructors Required, Invalid, NotSupported, Duplicate, Forbidden,
// TooLong, TooMany, NotFound, InternalError).
import type { StatusCause } from 'kubernetes-types/meta/v1.js';

/**
 * What is wrong with a field: Go's `field.ErrorType`, as the `reason` of a
 * Status cause.
 *
 * @category Field errors
 */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/**
 * One invalid field: Go's `field.Error`. {@link newInvalid} turns a list of
 * them into a 422 Invalid error, each as a Status cause.
 *
 * @category Field errors
 */
export interface FieldError {
  /** What is wrong. */
  type: FieldErrorType;
  /** The JSON path of the field, such as `spec.template.metadata.labels`. */
  field: string;
  /** The offending value; not shown for Required, Forbidden, TooLong and InternalError. */
  value?: unknown;
  /** Why, such as `must be greater than or equal to 0`. */
  detail?: string;
}

// errors.go, ErrorType.String
const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/**
 * A value already written as Go prints it (`[]string{"None"}`, a struct
 * literal), for field errors whose value is not a plain scalar or map.
 *
 * @category Field errors
 */
export class GoLiteral {
  /** @param text - the value as Go's `%#v` prints it */
  constructor(readonly text: string) {}
}

/**
 * Go's `field.OmitValueType{}`: a field error whose message names no value,
 * for errors about a whole list or structure (`Invalid value: cannot disable
 * the terminal Complete=True condition`).
 *
 * @category Field errors
 */
export const omitValue: unique symbol = Symbol('omitValue');

// errors.go, ErrorBody: strings quoted, numbers and booleans bare, string
// maps as Go prints a map[string]string, anything else as JSON.
function goValue(value: unknown): string {
  if (value instanceof GoLiteral) return value.text;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.every(([, v]) => typeof v === 'string')) {
      const body = entries
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
        .join(', ');
      return `map[string]string{${body}}`;
    }
  }
  return JSON.stringify(value);
}

/**
 * The message of one field error without its field: Go's `Error.ErrorBody`,
 * such as `Invalid value: -1: must be greater than or equal to 0`.
 *
 * @category Field errors
 */
export function fieldErrorBody(err: FieldError): string {
  let body = typeText[err.type];
  const omitsValue =
    err.type === 'FieldValueRequired' ||
    err.type === 'FieldValueForbidden' ||
    err.type === 'FieldValueTooLong' ||
    err.type === 'InternalError' ||
    err.value === omitValue;
  if (!omitsValue) body += `: ${goValue(err.value)}`;
  if (err.detail) body += `: ${err.detail}`;
  return body;
}

/**
 * The Status causes of field errors, as `NewInvalid` writes them: `reason`
 * the type, `message` the body, `field` the path.
 *
 * @category Field errors
 */
export function fieldErrorsToCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
}

/**
 * Go's `field.Required`: a required field is missing.
 *
 * @category Field errors
 */
export function fieldRequired(field: string, detail?: string): FieldError {
  return { type: 'FieldValueRequired', field, ...(detail ? { detail } : {}) };
}

/**
 * Go's `field.Invalid`: a value is malformed or out of range.
 *
 * @category Field errors
 */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

/**
 * Go's `field.NotSupported`: a value is not one of `supported`.
 *
 * @category Field errors
 */
export function fieldNotSupported(
  field: string,
  value: unknown,
  supported: readonly string[],
): FieldError {
  const detail = `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;
  return { type: 'FieldValueNotSupported', field, value, detail };
}

/**
 * Go's `field.Duplicate`: a value that must be unique is repeated.
 *
 * @category Field errors
 */
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value };
}

/**
 * Go's `field.Forbidden`: a field may not be set here.
 *
 * @category Field errors
 */
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

/**
 * Go's `field.TooLong`: a value is longer than `maxLength` bytes.
 *
 * @category Field errors
 */
export function fieldTooLong(field: string, value: unknown, maxLength: number): FieldError {
  return {
    type: 'FieldValueTooLong',
    field,
    value,
    detail: `may not be more than ${maxLength} bytes`,
  };
}
