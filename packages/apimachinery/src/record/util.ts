// Small helpers of the event recorder: client-go tools/record/util/util.go
// (ValidateEventType, IsKeyNotFoundError, GenerateEventName).
import { isStatusError } from '../status.js';
import { isDNS1123Subdomain } from '../validation.js';
import type { EventType } from './event-recorder.js';

/** True for the two event types the API accepts, `Normal` and `Warning`: Go's `ValidateEventType`. */
export function validateEventType(type: string): type is EventType {
  return type === 'Normal' || type === 'Warning';
}

/**
 * True when `err` is itself a Status error with code 404: Go's
 * `IsKeyNotFoundError`, which looks at the code only and not through wrappers.
 */
export function isKeyNotFoundError(err: unknown): boolean {
  return isStatusError(err) && err.code === 404;
}

/**
 * A time in nanoseconds since the Unix epoch, as Go's `Time.UnixNano` gives
 * it. Computed on bigints: nanoseconds today exceed what a double holds
 * exactly. A double of today's milliseconds resolves about a quarter of a
 * microsecond, so the fraction is kept to whole microseconds, not noise.
 *
 * @param ms - milliseconds since the epoch; fractions carry the sub-millisecond part
 */
export function unixNano(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e3)) * 1_000n;
}

/**
 * Hands out the nanoseconds new Events are named after: the Unix nanoseconds of
 * the time (Go's `UnixNano`), or one more than the last when the clock has not moved past it.
 * A real clock always has by the next Event; a fake one stands still, and two
 * Events about one object would get one name and the second be refused. One
 * per broadcaster, shared by its recorders and its correlator.
 *
 * @category Events
 */
export class EventNamer {
  #last = 0n;

  /** The nanoseconds for an Event made at `ms`, never the same twice. */
  nanos(ms: number): bigint {
    let nanos = unixNano(ms);
    if (nanos <= this.#last) nanos = this.#last + 1n;
    this.#last = nanos;
    return nanos;
  }
}

/**
 * The name of a new Event: `<object name>.<unix nanoseconds in hex>`, or a
 * fresh UUID when that is not a valid DNS subdomain (the object's name may be
 * valid for its kind yet not for an Event): Go's `GenerateEventName`.
 */
export function generateEventName(refName: string, nanos: bigint, uuid: () => string): string {
  const name = `${refName}.${nanos.toString(16)}`;
  return isDNS1123Subdomain(name).length > 0 ? uuid() : name;
}
