// Go's duration strings, as kube-controller-manager's flags and the course's
// annotations take them: time/format.go, ParseDuration.
import { goQuote } from './strconv.js';

const units: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parses a Go duration string such as `15s`, `1.5s`, `500ms` or `1h30m` into
 * milliseconds: Go's `time.ParseDuration`. A sign may lead (`-1m`); `0` alone
 * needs no unit. Anything else throws an `Error` with Go's message, such as
 * `time: invalid duration "15"` or `time: missing unit in duration "15"`.
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
  const invalid = (): Error => new Error(`time: invalid duration ${goQuote(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const m = part.exec(rest);
    if (m === null) {
      if (/^(\d+\.?\d*|\.\d+)$/.test(rest)) {
        throw new Error(`time: missing unit in duration ${goQuote(text)}`);
      }
      const unit = /^(\d+\.?\d*|\.\d+)(\D+)/.exec(rest);
      if (unit !== null) {
        throw new Error(`time: unknown unit ${goQuote(unit[2]!)} in duration ${goQuote(text)}`);
      }
      throw invalid();
    }
    total += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
