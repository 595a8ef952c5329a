// The wire formats of metav1.Time and metav1.MicroTime:
// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/time.go and micro_time.go
// (MarshalJSON: RFC 3339 in UTC, whole seconds for Time, six fractional
// digits for MicroTime).

/**
 * Formats a time as a `metav1.Time`: RFC 3339 in UTC, truncated to whole
 * seconds, such as `2026-01-01T00:00:00Z` (creationTimestamp, conditions'
 * lastTransitionTime, a container's startedAt).
 *
 * @param ms - milliseconds since the Unix epoch
 * @category Time
 */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Formats a time as a `metav1.MicroTime`: RFC 3339 in UTC with exactly six
 * fractional digits, such as `2026-01-01T00:00:00.123456Z`.
 *
 * @param ms - milliseconds since the Unix epoch; fractions carry microseconds
 * @category Time
 */
export function formatMicroTime(ms: number): string {
  let seconds = Math.floor(ms / 1000);
  let micros = Math.round((ms - seconds * 1000) * 1000);
  if (micros >= 1_000_000) {
    seconds += 1;
    micros -= 1_000_000;
  }
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(micros).padStart(6, '0')}Z`;
}

/**
 * Parses an RFC 3339 time (a `MicroTime` or a `Time`) into milliseconds since
 * the Unix epoch, keeping microseconds as fractions; throws on a malformed one.
 *
 * @category Time
 */
export function parseMicroTime(value: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i.exec(value);
  const whole = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(whole)) throw new Error(`invalid MicroTime ${JSON.stringify(value)}`);
  const micros = m[2] === undefined ? 0 : Number(m[2].padEnd(6, '0').slice(0, 6));
  return whole + micros / 1000;
}
