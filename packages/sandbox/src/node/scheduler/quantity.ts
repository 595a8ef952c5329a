// Resource quantities as the scheduler reads them: k8s.io/apimachinery/pkg/
// api/resource (quantity.go, ParseQuantity, Value and MilliValue). A
// quantity is a decimal number with a suffix: a binary one (`Ki`, `Mi`,
// `Gi`, `Ti`, `Pi`, `Ei`), a decimal SI one (`n`, `u`, `m`, `k`, `M`, `G`,
// `T`, `P`, `E`) or an exponent (`1e3`, `2E-1`). Parsed exactly (with
// BigInt), then rounded up to whole units, or whole thousandths for a CPU,
// as Go's Value and MilliValue do.

const binary: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimal: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const quantityPattern =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** `n / d` rounded up, for a positive `d`. */
function ceilDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d > 0n ? q + 1n : q;
}

/**
 * The quantity `text` in units of 10^`scale` (0: whole units, -3:
 * thousandths), rounded up; undefined when it is not a quantity.
 */
function scaled(text: string, scale: number): bigint | undefined {
  const m = quantityPattern.exec(text.trim());
  if (m === null) return undefined;
  const [, sign, number, exponent, suffix] = m as unknown as [
    string,
    string,
    string,
    string?,
    string?,
  ];
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let power10 = -fraction.length - scale;
  let denominator = 1n;
  if (exponent !== undefined) power10 += Number(exponent.slice(1));
  else if (suffix !== undefined && suffix in binary) numerator *= 2n ** BigInt(binary[suffix]!);
  else power10 += decimal[suffix ?? '']!;
  if (power10 >= 0) numerator *= 10n ** BigInt(power10);
  else denominator = 10n ** BigInt(-power10);
  const magnitude = ceilDiv(numerator, denominator);
  // Rounding away from zero, as Go's Value does for a negative quantity too.
  return sign === '-' ? -magnitude : magnitude;
}

const toNumber = (n: bigint): number =>
  n > BigInt(Number.MAX_SAFE_INTEGER)
    ? Number.MAX_SAFE_INTEGER
    : n < -BigInt(Number.MAX_SAFE_INTEGER)
      ? -Number.MAX_SAFE_INTEGER
      : Number(n);

/**
 * The quantity in whole units, rounded up: Go's `Quantity.Value`. `2Gi` is
 * 2147483648, `1.5` is 2. Something that is not a quantity counts as 0
 * (the API server refuses such a pod, so the scheduler never sees one).
 */
export function quantityValue(q: string | number | undefined): number {
  if (q === undefined) return 0;
  return toNumber(scaled(String(q), 0) ?? 0n);
}

/** The quantity in thousandths, rounded up: Go's `Quantity.MilliValue`. `250m` is 250, `1` is 1000. */
export function quantityMilliValue(q: string | number | undefined): number {
  if (q === undefined) return 0;
  return toNumber(scaled(String(q), -3) ?? 0n);
}

/** Whether `q` parses as a quantity. */
export function isQuantity(q: string | number): boolean {
  return scaled(String(q), 0) !== undefined;
}
