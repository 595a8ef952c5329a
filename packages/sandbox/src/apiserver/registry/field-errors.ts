// Field errors as kube-apiserver reports them in a 422 Invalid Status:
// k8s.io/apimachinery/pkg/util/validation/field/errors.go (Error.ErrorBody,
// the ErrorType strings) and its value formatting.
import type { StatusCause } from 'kubernetes-types/meta/v1.js';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong';

export interface FieldError {
  type: FieldErrorType;
  /** The JSON path of the field, such as `spec.template.metadata.labels`. */
  field: string;
  /** The offending value, printed in Go's style; absent for Required and Forbidden. */
  value?: unknown;
  detail?: string;
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
};

/**
 * A value already written as Go prints it (`[]string{"None"}`, a struct
 * literal), for the errors whose value is not a plain scalar or map.
 */
export class GoLiteral {
  constructor(readonly text: string) {}
}

/** A value as Go's `%#v`-ish field error printing shows it (errors.go, `ErrorBody`). */
export function goValue(value: unknown): string {
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

/** A value as a message shows it: strings bare, anything else as JSON. */
export function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value) ?? String(value);
}

/** The message of one cause: `Invalid value: "Foo": a lowercase RFC 1123 ...`. */
export function errorBody(err: FieldError): string {
  let body = typeText[err.type];
  const showsValue =
    err.type !== 'FieldValueRequired' &&
    err.type !== 'FieldValueForbidden' &&
    err.type !== 'FieldValueTooLong';
  if (showsValue) body += `: ${goValue(err.value)}`;
  if (err.detail) body += `: ${err.detail}`;
  return body;
}

export function toCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
}

export const required = (field: string, detail?: string): FieldError => ({
  type: 'FieldValueRequired',
  field,
  ...(detail ? { detail } : {}),
});
export const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  value,
  detail,
});
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  value,
  detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});
export const duplicate = (field: string, value: unknown): FieldError => ({
  type: 'FieldValueDuplicate',
  field,
  value,
});
export const forbidden = (field: string, detail: string): FieldError => ({
  type: 'FieldValueForbidden',
  field,
  detail,
});
