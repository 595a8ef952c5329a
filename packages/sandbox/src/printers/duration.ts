// Durations for humans: k8s.io/apimachinery pkg/util/duration (HumanDuration,
// ShortHumanDuration) and the printers' translateTimestampSince.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

// Go converts with int(), which truncates toward zero.
const whole = (ms: number, unit: number): number => Math.trunc(ms / unit);

/**
 * A duration in milliseconds as kubectl shows ages, with two or three
 * significant figures: `45s`, `119s`, `3m10s`, `70m`, `3h1m`, `47h`, `2d1h`,
 * `367d`, `2y1d`, `8y`. Go's `duration.HumanDuration`. A clock skew of up to
 * two seconds reads as `0s`; anything more negative is `<invalid>`.
 *
 * @category Tables
 */
export function humanDuration(ms: number): string {
  const seconds = whole(ms, second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = whole(ms, minute);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = whole(ms, hour);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * A duration in milliseconds with one unit only: `59s`, `1m`, `23h`, `364d`,
 * `2y`. Go's `duration.ShortHumanDuration` (kubectl uses it for event ages
 * it computes itself; the server's Tables use {@link humanDuration}).
 *
 * @category Tables
 */
export function shortHumanDuration(ms: number): string {
  const seconds = whole(ms, second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = whole(ms, minute);
  if (minutes < 60) return `${minutes}m`;
  const hours = whole(ms, hour);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

// Go's zero time.Time, which a Time field holds when it was never set.
const goZeroTime = Date.parse('0001-01-01T00:00:00Z');

/**
 * Milliseconds since the epoch for an RFC 3339 `Time` or `MicroTime`, or
 * `undefined` when it is missing, unparseable or Go's zero time.
 */
export function parseTime(value: string | null | undefined): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) || t === goZeroTime ? undefined : t;
}

/**
 * How long ago `timestamp` was, as {@link humanDuration} writes it, or
 * `<unknown>` when it is unset: the printers' `translateTimestampSince`.
 *
 * @param now - the current time, epoch milliseconds.
 */
export function translateTimestampSince(timestamp: string | null | undefined, now: number): string {
  const t = parseTime(timestamp);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}
