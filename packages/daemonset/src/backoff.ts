// The per-key backoff that keeps the controller from deleting a failing
// daemon pod in a hot loop: client-go util/flowcontrol/backoff.go (Backoff,
// NewBackOff, Get, Next, Reset, IsInBackOffSince, IsInBackOffSinceUpdate,
// GC, DeleteEntry, hasExpired), without jitter, as the DaemonSet controller
// makes it. Durations are milliseconds; times are ms since the epoch.
import { realClock, type PassiveClock } from '@kcm-ts/apimachinery';

interface BackoffEntry {
  backoff: number;
  lastUpdate: number;
}

/**
 * Delays per key that start at `initial` and double at each
 * {@link Backoff.next} up to `max`; a key not updated for twice `max` starts
 * over. Go's `flowcontrol.Backoff`.
 *
 * @example
 * ```ts
 * const backoff = new Backoff(1000, 15 * 60_000, clock);
 * backoff.next('ds-uid/1/node-1', clock.now()); // 1 s
 * backoff.isInBackOffSinceUpdate('ds-uid/1/node-1', clock.now()); // true
 * ```
 *
 * @category Failed pods backoff
 */
export class Backoff {
  /** The clock the controller reads "now" from for this backoff. */
  readonly clock: PassiveClock;
  readonly #initial: number;
  readonly #max: number;
  readonly #entries = new Map<string, BackoffEntry>();

  /**
   * @param initial - the first delay, in ms
   * @param max - the longest delay, in ms
   * @param clock - what {@link Backoff.gc} and the entries' updates read; default the real clock
   */
  constructor(initial: number, max: number, clock: PassiveClock = realClock) {
    this.#initial = initial;
    this.#max = max;
    this.clock = clock;
  }

  /** The current delay of `id`; 0 when it has none. Go's `Get`. */
  get(id: string): number {
    return this.#entries.get(id)?.backoff ?? 0;
  }

  /**
   * Moves `id` to its next delay: the initial one for a new or expired key,
   * else twice the last, at most `max`. Go's `Next`.
   */
  next(id: string, eventTime: number): void {
    const entry = this.#entries.get(id);
    if (entry === undefined || this.#hasExpired(eventTime, entry.lastUpdate)) {
      this.#entries.set(id, { backoff: this.#initial, lastUpdate: this.clock.now() });
      return;
    }
    entry.backoff = Math.min(entry.backoff * 2, this.#max);
    entry.lastUpdate = this.clock.now();
  }

  /** Forgets `id`. Go's `Reset`. */
  reset(id: string): void {
    this.#entries.delete(id);
  }

  /**
   * True when less than the delay of `id` has passed between its last update
   * and `eventTime`. Go's `IsInBackOffSinceUpdate`.
   */
  isInBackOffSinceUpdate(id: string, eventTime: number): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined || this.#hasExpired(eventTime, entry.lastUpdate)) return false;
    return eventTime - entry.lastUpdate < entry.backoff;
  }

  /** Drops the keys not updated for twice `max`. Go's `GC`. */
  gc(): void {
    const now = this.clock.now();
    for (const [id, entry] of this.#entries) {
      if (this.#hasExpired(now, entry.lastUpdate)) this.#entries.delete(id);
    }
  }

  /** The number of keys held (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  #hasExpired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > this.#max * 2;
  }
}
