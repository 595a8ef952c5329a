// How long a reflector keeps re-watching after internal errors: client-go
// tools/cache retry_with_deadline.go (RetryWithDeadline).
import type { PassiveClock } from '@kcm-ts/apimachinery';

/**
 * Decides whether a retryable error may be retried at once, allowing it for
 * at most `maxRetryDuration` after the first of a run of such errors: Go's
 * `cache.RetryWithDeadline`. A run ends when no retryable error has been
 * seen for `minResetPeriod`. A `maxRetryDuration` of 0 or less never retries.
 *
 * @category Reflector
 */
export class RetryWithDeadline {
  readonly #maxRetryDuration: number;
  readonly #minResetPeriod: number;
  readonly #isRetryable: (err: unknown) => boolean;
  readonly #clock: PassiveClock;
  // NaN stands for Go's zero time: never set.
  #firstErrorTime = Number.NaN;
  #lastErrorTime = Number.NaN;

  /**
   * @param maxRetryDuration - how long after the first error retries are allowed, in milliseconds
   * @param minResetPeriod - a quiet spell this long starts a new run, in milliseconds
   * @param isRetryable - which errors count
   * @param clock - the time source
   */
  constructor(
    maxRetryDuration: number,
    minResetPeriod: number,
    isRetryable: (err: unknown) => boolean,
    clock: PassiveClock,
  ) {
    this.#maxRetryDuration = maxRetryDuration;
    this.#minResetPeriod = minResetPeriod;
    this.#isRetryable = isRetryable;
    this.#clock = clock;
  }

  /** Records the outcome of an attempt; only retryable errors count. */
  after(err: unknown): void {
    if (err === undefined || !this.#isRetryable(err)) return;
    const now = this.#clock.now();
    // Comparisons with NaN are false, so a first error always starts a run.
    if (!(now - this.#lastErrorTime < this.#minResetPeriod)) this.#reset();
    if (Number.isNaN(this.#firstErrorTime)) this.#firstErrorTime = now;
    this.#lastErrorTime = now;
  }

  /** True while the current run of errors is younger than the maximum duration; false resets it. */
  shouldRetry(): boolean {
    if (this.#maxRetryDuration <= 0) return false;
    if (this.#clock.now() - this.#firstErrorTime <= this.#maxRetryDuration) return true;
    this.#reset();
    return false;
  }

  #reset(): void {
    this.#firstErrorTime = Number.NaN;
    this.#lastErrorTime = Number.NaN;
  }
}
