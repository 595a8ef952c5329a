// A token bucket that never waits: client-go util/flowcontrol/throttle.go
// (tokenBucketPassiveRateLimiter, NewTokenBucketPassiveRateLimiterWithClock),
// over golang.org/x/time/rate's Limiter (AllowN with its advance step).
import type { PassiveClock } from '../clock.js';

/**
 * Allows `burst` calls at once, then `qps` calls per second, judged on the
 * injected clock. The bucket starts full. A refused call takes nothing, so it
 * does not push the next allowed call further away.
 */
export class TokenBucketPassiveRateLimiter {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: PassiveClock;
  #tokens = 0;
  /** When the bucket was last drawn from; undefined before the first draw, so it starts full. */
  #last: number | undefined;

  constructor(qps: number, burst: number, clock: PassiveClock) {
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
  }

  /** Takes a token if one is there now: Go's `TryAccept`. */
  tryAccept(): boolean {
    const now = this.#clock.now();
    let tokens: number;
    if (this.#last === undefined) {
      tokens = this.#burst;
    } else {
      // A clock that went backwards refills nothing.
      const elapsedSeconds = Math.max(0, now - this.#last) / 1000;
      tokens = Math.min(this.#burst, this.#tokens + elapsedSeconds * this.#qps);
    }
    if (this.#burst < 1 || tokens < 1) return false;
    this.#tokens = tokens - 1;
    this.#last = now;
    return true;
  }

  /** The refill rate in tokens per second. */
  qps(): number {
    return this.#qps;
  }
}
