// Go's duration strings, as kube-controller-manager's flags, the course's
// annotations and cron's `@every` take them: time/format.go (ParseDuration,
// leadingInt, leadingFraction, quote).

// Nanoseconds per unit.
const units: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxInt64 = (1n << 63n) - 1n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * A string quoted as Go's time package quotes one in its errors: `"` and `\`
 * escaped, and every byte of a non-ASCII or control character written as
 * `\xNN` (time/format.go, `quote`).
 */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of new TextEncoder().encode(ch)) {
        out += `\\x${byte.toString(16).padStart(2, '0')}`;
      }
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/**
 * Parses a Go duration string such as `15s`, `1.5s`, `500ms` or `1h30m` into
 * milliseconds: Go's `time.ParseDuration`, step for step, in exact
 * nanoseconds. A sign may lead (`-1m`); `0` alone needs no unit. Anything
 * else throws an `Error` with Go's message, such as `time: invalid duration
 * "15x"`, `time: missing unit in duration "15"` or `time: unknown unit "d" in
 * duration "1d"`; so does a duration beyond Go's int64 of nanoseconds
 * (about 292 years).
 *
 * @example
 * ```ts
 * parseDuration('1m30s'); // 90_000
 * parseDuration('250ms'); // 250
 * ```
 *
 * @category Duration
 */
export function parseDuration(text: string): number {
  const invalid = (): Error => new Error(`time: invalid duration ${timeQuote(text)}`);
  let s = text;
  let negative = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    // The integer part (leadingInt: an overflow is an invalid duration).
    let i = 0;
    let whole = 0n;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > 1n << 63n) throw invalid();
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction (leadingFraction: digits past int64 precision are dropped).
    let post = false;
    let fraction = 0n;
    let scale = 1n;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          if (fraction > maxInt64 / 10n) overflow = true;
          else {
            const next = fraction * 10n + BigInt(s.charCodeAt(j) - 48);
            if (next > 1n << 63n) overflow = true;
            else {
              fraction = next;
              scale *= 10n;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid(); // no digits, such as "." or ".s"
    // The unit: everything up to the next digit or dot.
    let k = 0;
    while (k < s.length && s[k] !== '.' && !isDigit(s[k])) k++;
    if (k === 0) throw new Error(`time: missing unit in duration ${timeQuote(text)}`);
    const name = s.slice(0, k);
    s = s.slice(k);
    const unit = units[name];
    if (unit === undefined) {
      throw new Error(`time: unknown unit ${timeQuote(name)} in duration ${timeQuote(text)}`);
    }
    if (whole > (1n << 63n) / unit) throw invalid();
    let v = whole * unit;
    if (fraction > 0n) {
      // Go adds the fraction as a float64 truncated to whole nanoseconds.
      v += BigInt(Math.trunc(Number(fraction) * (Number(unit) / Number(scale))));
      if (v > 1n << 63n) throw invalid();
    }
    total += v;
    if (total > 1n << 63n) throw invalid();
  }
  if (negative) total = -total;
  else if (total > maxInt64) throw invalid();
  return Number(total) / 1e6;
}
