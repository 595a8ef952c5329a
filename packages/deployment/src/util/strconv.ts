// The parts of Go's strconv (atoi.go: ParseInt, ParseUint, Atoi, and the
// NumError text) that deployment_util.go relies on, so that parse failures
// read exactly as upstream's. Internal: not re-exported from the index.

/** Go's `*strconv.NumError` message: `strconv.ParseInt: parsing "x": invalid syntax`. */
function numError(fn: string, s: string, reason: 'invalid syntax' | 'value out of range'): Error {
  return new Error(`strconv.${fn}: parsing ${JSON.stringify(s)}: ${reason}`);
}

/**
 * Parses a base-10 integer with an optional sign that must fit in `bits`
 * signed bits: Go's `strconv.ParseInt(s, 10, bits)`. Values beyond
 * `Number.MAX_SAFE_INTEGER` are reported as out of range, since a revision
 * that large cannot round-trip through a JavaScript number.
 */
export function parseGoInt(s: string, bits: 32 | 64, fn = 'ParseInt'): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw numError(fn, s, 'invalid syntax');
  const n = BigInt(s);
  const limit = 2n ** BigInt(bits - 1);
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  if (n < -limit || n >= limit || n > safe || n < -safe) {
    throw numError(fn, s, 'value out of range');
  }
  return Number(n);
}

/** Go's `strconv.Atoi`: a signed integer of Go's 64-bit `int`. */
export function atoi(s: string): number {
  return parseGoInt(s, 64, 'Atoi');
}

/**
 * Parses a base-10 unsigned integer of `bits` bits: Go's
 * `strconv.ParseUint(s, 10, bits)`. A sign is a syntax error.
 */
export function parseUint(s: string, bits: number): number {
  if (!/^[0-9]+$/.test(s)) throw numError('ParseUint', s, 'invalid syntax');
  const n = BigInt(s);
  if (n > 2n ** BigInt(bits) - 1n) throw numError('ParseUint', s, 'value out of range');
  return Number(n);
}
