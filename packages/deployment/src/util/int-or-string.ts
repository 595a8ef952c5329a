// Resolving `maxSurge` and `maxUnavailable`, which are either a count or a
// percentage of the replicas: k8s.io/apimachinery/pkg/util/intstr/intstr.go
// (GetScaledValueFromIntOrPercent, getIntOrPercentValueSafely).
import { atoi } from './strconv.js';

/**
 * A count or a percentage as the API carries it: `2` or `'25%'`. Go's
 * `intstr.IntOrString`.
 *
 * @category Surge and unavailability
 */
export type IntOrString = number | string;

/**
 * Resolves `intOrPercent` against `total`: a number is returned as it is; a
 * string must end in `%` and is that percentage of `total`, rounded up or
 * down. Go's `intstr.GetScaledValueFromIntOrPercent`.
 *
 * @throws Error with upstream's text: `nil value for IntOrString`, or
 *   `invalid value for IntOrString: invalid type: string is not a percentage`,
 *   or `invalid value for IntOrString: invalid value "x%": strconv.Atoi: ...`
 *
 * @category Surge and unavailability
 */
export function getScaledValueFromIntOrPercent(
  intOrPercent: IntOrString | null | undefined,
  total: number,
  roundUp: boolean,
): number {
  if (intOrPercent === null || intOrPercent === undefined) {
    throw new Error('nil value for IntOrString');
  }
  if (typeof intOrPercent === 'number') return Math.trunc(intOrPercent);
  if (!intOrPercent.endsWith('%')) {
    throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  }
  let value: number;
  try {
    value = atoi(intOrPercent.slice(0, -1));
  } catch (err) {
    throw new Error(
      `invalid value for IntOrString: invalid value ${JSON.stringify(intOrPercent)}: ${(err as Error).message}`,
    );
  }
  // Same double arithmetic as Go's math.Ceil/Floor over float64.
  return roundUp ? Math.ceil((value * total) / 100) : Math.floor((value * total) / 100);
}
