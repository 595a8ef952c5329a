// Query parameters read the way kube-apiserver's parameter codec reads them:
// the string conversions of staging/src/k8s.io/apimachinery/pkg/runtime/
// conversion.go and pkg/apis/meta/v1/conversion.go (Convert_Slice_string_To_bool,
// Convert_Slice_string_To_int64, Convert_Slice_string_To_Pointer_int64). The
// first value of a repeated parameter counts; a malformed one is a 400 whose
// message is Go's strconv error.
import { newBadRequest } from '@kcm-ts/apimachinery';

/**
 * A boolean parameter: absent is `undefined`; present, it is false only for
 * `0` or `false` in any letter case, and true for anything else, the empty
 * string included (so `watch=True`, `watch=1` and `watch=` all watch).
 */
export function boolParam(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits,
 * nothing else (no spaces, no `1e3`, no `1.5`, not empty).
 *
 * @throws StatusError 400 with strconv's message.
 */
export function parseInt64(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) {
    throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  const n = BigInt(value);
  if (n < int64Min || n > int64Max) {
    throw newBadRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  }
  return Number(n);
}

/**
 * An int64 parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`,
 * `tailLines`...): absent is `undefined`; present, it must parse as
 * {@link parseInt64} does, so `limit=` is a 400 as it is in kube-apiserver.
 */
export function int64Param(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return parseInt64(v);
}

/** A string parameter: its first value, `undefined` when absent or empty. */
export function stringParam(query: URLSearchParams, name: string): string | undefined {
  const v = query.get(name);
  return v === null || v === '' ? undefined : v;
}
