// JSON read into typed Go structs as kube-apiserver's decoder reads it
// (sigs.k8s.io/json, a fork of encoding/json: decode.go, UnmarshalTypeError).
// A value whose JSON type does not fit its Go field fails the whole decode
// with Go's words, so the request does nothing; `null` fits every field (Go
// leaves the field as it was); fields the struct does not declare are
// ignored, as in a non-strict decode.
import { isObj } from './unstructured.js';

/**
 * The Go type of one field, as far as decoding can tell: scalars with their
 * range, slices, string maps, and structs of named fields.
 */
export type GoType =
  | { kind: 'string'; name?: string }
  | { kind: 'bool' }
  | { kind: 'int32' }
  | { kind: 'int64' }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'map'; elem: GoType }
  | { kind: 'struct'; name: string; fields: Readonly<Record<string, GoType>> };

/** A decode that failed, with the text Go's decoder gives. */
export class GoDecodeError extends Error {}

const int32Range = 2 ** 31;
const int64Range = 2 ** 63;

/** The name Go prints for a type in an UnmarshalTypeError. */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return t.name ?? 'string';
    case 'slice':
      return `[]${goTypeName(t.elem)}`;
    case 'map':
      return `map[string]${goTypeName(t.elem)}`;
    case 'struct':
      return t.name;
    default:
      return t.kind;
  }
}

// What UnmarshalTypeError calls a JSON value: its kind, and for a number
// that does not fit, the number itself.
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return 'string';
}

function fits(v: unknown, t: GoType): boolean {
  switch (t.kind) {
    case 'string':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'int32':
      return typeof v === 'number' && Number.isInteger(v) && v >= -int32Range && v < int32Range;
    case 'int64':
      // JSON.parse rounds 2^63-1 up to 2^63, so the bound itself is let in.
      return typeof v === 'number' && Number.isInteger(v) && v >= -int64Range && v <= int64Range;
    case 'slice':
      return Array.isArray(v);
    case 'map':
    case 'struct':
      return isObj(v);
  }
}

/**
 * Checks `value` against the struct type `t` as Go's decoder would read it
 * into a `t`, and throws {@link GoDecodeError} at the first field that does
 * not fit (`json: cannot unmarshal string into Go struct field
 * DeleteOptions.dryRun of type []string`).
 */
export function checkGoStruct(value: unknown, t: GoType & { kind: 'struct' }): void {
  if (!isObj(value)) {
    if (value === null) return;
    throw new GoDecodeError(
      `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${t.name}`,
    );
  }
  walk(value, t, t.name.replace(/^.*\./, ''), '');
}

function walk(value: unknown, t: GoType, root: string, path: string): void {
  if (value === null || value === undefined) return;
  if (!fits(value, t)) {
    const what =
      typeof value === 'number' && (t.kind === 'int32' || t.kind === 'int64')
        ? `number ${String(value)}`
        : jsonKind(value);
    const where = path === '' ? `Go value` : `Go struct field ${root}.${path}`;
    throw new GoDecodeError(
      `json: cannot unmarshal ${what} into ${where} of type ${goTypeName(t)}`,
    );
  }
  if (t.kind === 'slice') {
    for (const item of value as unknown[]) walk(item, t.elem, root, path);
  } else if (t.kind === 'map') {
    for (const item of Object.values(value)) walk(item, t.elem, root, path);
  } else if (t.kind === 'struct') {
    const obj = value as Record<string, unknown>;
    for (const [name, fieldType] of Object.entries(t.fields)) {
      if (!Object.hasOwn(obj, name)) continue;
      walk(obj[name], fieldType, root, path === '' ? name : `${path}.${name}`);
    }
  }
}
