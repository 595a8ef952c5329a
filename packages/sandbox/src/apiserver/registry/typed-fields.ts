import { type Obj, isObj } from '../unstructured.js';
// The map fields of ConfigMaps and Secrets as Go's decoder reads them into
// their typed structs (sigs.k8s.io/json, a fork of encoding/json): `data`
// and `stringData` hold strings, `binaryData` and a Secret's `data` hold
// bytes, written as standard base64 (encoding/base64's StdEncoding). A value
// of another type fails the decode with Go's own words, so typed clients
// never read back what they could not have written.

// The JSON type names encoding/json's UnmarshalTypeError uses.
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

const base64Alphabet = /[A-Za-z0-9+/]/;

/**
 * Where encoding/base64's StdEncoding.Decode stops with "illegal base64 data
 * at input byte N" for `s`, or `undefined` if it decodes. Line breaks are
 * skipped; padding must be complete; nothing may follow it.
 */
export function base64ErrorOffset(s: string): number | undefined {
  let i = 0;
  for (;;) {
    // One quantum: four characters of the alphabet, or padding at its end.
    let j = 0;
    while (j < 4) {
      if (i === s.length) {
        if (j === 0) return undefined;
        return i - j;
      }
      const c = s.charAt(i++);
      if (c === '\n' || c === '\r') continue;
      if (base64Alphabet.test(c)) {
        j++;
        continue;
      }
      if (c !== '=') return i - 1;
      if (j < 2) return i - 1;
      if (j === 2) {
        while (i < s.length && (s[i] === '\n' || s[i] === '\r')) i++;
        if (i === s.length) return s.length;
        if (s[i] !== '=') return i - 1;
        i++;
      }
      while (i < s.length && (s[i] === '\n' || s[i] === '\r')) i++;
      return i < s.length ? i : undefined;
    }
  }
}

/**
 * The error Go's decoder gives for the map fields of a ConfigMap or Secret
 * body, or `undefined` when they decode. Null values become empty strings in
 * string maps, as decoding null into a Go string leaves it empty.
 */
export function typedFieldError(kind: string, body: Obj): string | undefined {
  const fields: [string, 'string' | 'bytes'][] =
    kind === 'ConfigMap'
      ? [
          ['data', 'string'],
          ['binaryData', 'bytes'],
        ]
      : kind === 'Secret'
        ? [
            ['data', 'bytes'],
            ['stringData', 'string'],
          ]
        : [];
  for (const [field, type] of fields) {
    const map = body[field];
    if (map === undefined || map === null) continue;
    const goType = type === 'string' ? 'string' : '[]uint8';
    if (!isObj(map)) {
      return `json: cannot unmarshal ${jsonType(map)} into Go struct field ${kind}.${field} of type map[string]${goType}`;
    }
    for (const [key, value] of Object.entries(map)) {
      if (value === null) {
        if (type === 'string') map[key] = '';
        continue;
      }
      if (typeof value !== 'string') {
        return `json: cannot unmarshal ${jsonType(value)} into Go struct field ${kind}.${field} of type ${goType}`;
      }
      if (type === 'bytes') {
        const offset = base64ErrorOffset(value);
        if (offset !== undefined) return `illegal base64 data at input byte ${offset}`;
      }
    }
  }
  return undefined;
}
