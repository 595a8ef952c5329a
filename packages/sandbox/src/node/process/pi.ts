// π to N significant digits, as `perl -Mbignum=bpi -wle 'print bpi(N)'`
// prints it (Math::BigFloat's bpi: N digits in all, rounded to nearest,
// ties to even) — the example Job of the Kubernetes documentation. Machin's
// formula, π = 16·arctan(1/5) − 4·arctan(1/239), on BigInt fixed point with
// guard digits.

/** arctan(1/x) scaled by `unity`, by its Taylor series. */
function arctanInverse(x: bigint, unity: bigint): bigint {
  let sum = 0n;
  let term = unity / x;
  const x2 = x * x;
  for (let n = 1n, sign = 1n; term !== 0n; n += 2n, sign = -sign) {
    sum += (sign * term) / n;
    term /= x2;
  }
  return sum;
}

/**
 * π as a decimal string of `digits` significant digits (`3.14159` for 6).
 * `bpi(1)` is `3`.
 */
export function piDigits(digits: number): string {
  if (!Number.isInteger(digits) || digits < 1)
    throw new RangeError(`digits must be >= 1, got ${digits}`);
  const guard = 10;
  const unity = 10n ** BigInt(digits - 1 + guard);
  const pi = 16n * arctanInverse(5n, unity) - 4n * arctanInverse(239n, unity);
  // pi is π·10^(digits-1+guard); keep `digits` digits, rounding half to even.
  const scale = 10n ** BigInt(guard);
  let kept = pi / scale;
  const rest = pi % scale;
  const half = scale / 2n;
  if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
  const text = kept.toString();
  return text.length === 1 ? text : `${text[0]}.${text.slice(1)}`;
}
