// Rate limiters: client-go util/workqueue/default_rate_limiters.go. The token
// bucket follows golang.org/x/time/rate (`Limiter.reserveN` and `advance`).
import { realClock, type PassiveClock } from '@kcm-ts/apimachinery';

/**
 * Decides how long an item waits before it is retried: Go's `TypedRateLimiter[T]`.
 * Durations are milliseconds.
 *
 * @category Rate limiters
 */
export interface RateLimiter<T> {
  /** Records a failure of `item` and returns how long it should wait before the next try. */
  when(item: T): number;
  /** Forgets `item`'s failures, so its next failure starts over. */
  forget(item: T): void;
  /** How many failures of `item` are recorded. */
  numRequeues(item: T): number;
}

// The largest Go time.Duration, in milliseconds: backoffs beyond it count as overflow.
const maxGoDurationMs = (2 ** 63 - 1) / 1e6;

//#region exponential
/**
 * Waits `baseDelay * 2^failures`, capped at `maxDelay`, counted per item:
 * Go's `ItemExponentialFailureRateLimiter`.
 *
 * @category Rate limiters
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();

  /**
   * @param baseDelay - the first wait, in ms
   * @param maxDelay - the longest wait, in ms
   */
  constructor(
    readonly baseDelay: number,
    readonly maxDelay: number,
  ) {
    assertDuration('baseDelay', baseDelay);
    assertDuration('maxDelay', maxDelay);
  }

  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    // A zero base stays zero (0 * 2^1024 would be NaN).
    const backoff = this.baseDelay === 0 ? 0 : this.baseDelay * 2 ** exp;
    if (backoff > maxGoDurationMs || backoff > this.maxDelay) return this.maxDelay;
    return backoff;
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }
}
//#endregion exponential

//#region bucket
/**
 * One token bucket shared by all items, so the total retry rate stays under
 * `qps`: Go's `BucketRateLimiter` around `rate.NewLimiter(qps, burst)`.
 *
 * The bucket starts full with `burst` tokens and refills at `qps` tokens per
 * second. Every `when` takes a token at once, running into debt when none is
 * left, and returns how long until that debt is paid: with 10 qps and burst
 * 100, a hundred calls in the same instant wait 0, the next ones 100ms, 200ms, ...
 *
 * @category Rate limiters
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  /** Tokens added per second. */
  readonly qps: number;
  /** The bucket's size: how many retries may happen at once. */
  readonly burst: number;
  readonly #clock: PassiveClock;
  #tokens: number;
  #last: number;

  /** @param options - `qps` and `burst` as above; `clock` defaults to the real clock. */
  constructor(options: { qps: number; burst: number; clock?: PassiveClock }) {
    const { qps, burst } = options;
    if (!(qps > 0)) throw new RangeError(`BucketRateLimiter: qps must be positive, got ${qps}`);
    if (!Number.isInteger(burst) || burst < 1) {
      throw new RangeError(`BucketRateLimiter: burst must be an integer >= 1, got ${burst}`);
    }
    this.qps = qps;
    this.burst = burst;
    this.#clock = options.clock ?? realClock;
    this.#tokens = burst;
    this.#last = this.#clock.now();
  }

  when(_item: T): number {
    if (this.qps === Infinity) return 0;
    const now = this.#clock.now();
    // Refill for the time since the last reservation, never beyond the burst.
    const elapsed = Math.max(0, now - this.#last);
    const tokens = Math.min(this.burst, this.#tokens + (elapsed / 1000) * this.qps) - 1;
    this.#tokens = tokens;
    this.#last = now;
    // Whole nanoseconds, as Go's time.Duration truncates them.
    return tokens < 0 ? Math.floor((-tokens / this.qps) * 1e9) / 1e6 : 0;
  }

  numRequeues(_item: T): number {
    return 0;
  }

  forget(_item: T): void {}
}
//#endregion bucket

/**
 * `fastDelay` for the first `maxFastAttempts` failures of an item, `slowDelay`
 * after that: Go's `ItemFastSlowRateLimiter`.
 *
 * @category Rate limiters
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();

  constructor(
    /** The wait for the first `maxFastAttempts` failures, in ms. */
    readonly fastDelay: number,
    /** The wait for every failure after those, in ms. */
    readonly slowDelay: number,
    /** How many failures get the fast delay. */
    readonly maxFastAttempts: number,
  ) {
    assertDuration('fastDelay', fastDelay);
    assertDuration('slowDelay', slowDelay);
    if (!Number.isInteger(maxFastAttempts) || maxFastAttempts < 0) {
      throw new RangeError(`maxFastAttempts must be an integer >= 0, got ${maxFastAttempts}`);
    }
  }

  when(item: T): number {
    const failures = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, failures);
    return failures <= this.maxFastAttempts ? this.fastDelay : this.slowDelay;
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }
}

//#region max-of
/**
 * Asks every limiter and waits for the longest answer: Go's `MaxOfRateLimiter`.
 * Each limiter records every failure, whichever one wins.
 *
 * @category Rate limiters
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    let longest = 0;
    for (const limiter of this.#limiters) longest = Math.max(longest, limiter.when(item));
    return longest;
  }

  numRequeues(item: T): number {
    let most = 0;
    for (const limiter of this.#limiters) most = Math.max(most, limiter.numRequeues(item));
    return most;
  }

  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }
}
//#endregion max-of

/**
 * Caps another limiter's waits at `maxDelay`: Go's `WithMaxWaitRateLimiter`.
 *
 * @category Rate limiters
 */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  constructor(
    /** The limiter whose waits are capped. */
    readonly limiter: RateLimiter<T>,
    /** The longest wait, in ms. */
    readonly maxDelay: number,
  ) {
    assertDuration('maxDelay', maxDelay);
  }

  when(item: T): number {
    return Math.min(this.limiter.when(item), this.maxDelay);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  forget(item: T): void {
    this.limiter.forget(item);
  }
}

/**
 * Per-item exponential backoff from 1ms to 1000s: Go's `DefaultTypedItemBasedRateLimiter`.
 *
 * @category Rate limiters
 */
export function defaultItemBasedRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1_000_000);
}

//#region default-controller
/**
 * The limiter kube-controller-manager's controllers use: per-item exponential
 * backoff from 5ms to 1000s, and an overall bucket of 10 qps with a burst of 100,
 * whichever is slower. Go's `DefaultTypedControllerRateLimiter`.
 *
 * @category Rate limiters
 */
export function defaultControllerRateLimiter<T>(clock?: PassiveClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, clock }),
  );
}
//#endregion default-controller

function assertDuration(what: string, ms: number): void {
  if (!(ms >= 0)) throw new RangeError(`${what} must be a duration in ms >= 0, got ${ms}`);
}
