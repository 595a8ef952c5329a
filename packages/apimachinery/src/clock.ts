// Time, injected. The counterpart of k8s.io/utils/clock (`clock.go` for the
// interfaces and RealClock, `testing/fake_clock.go` for FakeClock).
//
// Times are milliseconds since the Unix epoch and durations are milliseconds;
// both may carry fractions, because the workqueue metrics observe latencies in
// microseconds.

/**
 * A clock that can only be read: Go's `clock.PassiveClock`.
 *
 * @category Clock
 */
export interface PassiveClock {
  /** The current time, in milliseconds since the Unix epoch (fractions allowed). */
  now(): number;
  /** Milliseconds elapsed since `t`, a time earlier read from this clock. */
  since(t: number): number;
}

/**
 * A scheduled callback, as returned by {@link Clock.afterFunc}: Go's `clock.Timer`.
 *
 * @category Clock
 */
export interface Timer {
  /** Cancels the timer. Returns `true` if it was pending, `false` if it had already fired or been stopped. */
  stop(): boolean;
  /**
   * Re-arms the timer to fire `ms` from now, whether or not it has fired.
   * Returns `true` if it was still pending.
   */
  reset(ms: number): boolean;
}

/**
 * A repeating callback, as returned by {@link Clock.newTicker}: Go's `clock.Ticker`.
 *
 * @category Clock
 */
export interface Ticker {
  /** Stops the ticker; no further ticks are delivered. */
  stop(): void;
}

/**
 * Everything in kcm-ts that waits, expires or measures takes a `Clock`, so that
 * tests can drive time by hand with {@link FakeClock}. It combines Go's
 * `clock.Clock`, `clock.WithTicker` and `clock.WithDelayedExecution`, with
 * callbacks and promises in place of channels.
 *
 * @category Clock
 */
export interface Clock extends PassiveClock {
  /** Calls `fn` once, `ms` from now. Go's `AfterFunc`. */
  afterFunc(ms: number, fn: () => void): Timer;
  /** Calls `fn` every `period` ms until stopped. Go's `NewTicker`. */
  newTicker(period: number, fn: () => void): Ticker;
  /**
   * Resolves after `ms`. If `signal` aborts first, it resolves at once (it does
   * not reject), so a loop can `await clock.sleep(d, signal)` and then check
   * `signal.aborted`.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Negative, NaN and infinite-negative durations all mean "now". */
function nonNegative(ms: number): number {
  return ms > 0 ? ms : 0;
}

function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      timer.stop();
      resolve();
    };
    const timer = clock.afterFunc(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days), so
// longer waits are split into hops.
const MAX_TIMEOUT = 2 ** 31 - 1;

/**
 * The wall clock. `now()` is read from the monotonic `performance` timer, so
 * durations measured with it never go backwards, and it has sub-millisecond
 * resolution. Use the {@link realClock} instance.
 *
 * @category Clock
 */
export class RealClock implements Clock {
  now(): number {
    return performance.timeOrigin + performance.now();
  }

  since(t: number): number {
    return this.now() - t;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    let handle: NodeJS.Timeout | undefined;
    let deadline = 0;
    const arm = () => {
      const remaining = deadline - this.now();
      if (remaining > MAX_TIMEOUT) {
        handle = setTimeout(arm, MAX_TIMEOUT);
      } else {
        handle = setTimeout(() => {
          handle = undefined;
          fn();
        }, nonNegative(remaining));
      }
    };
    const timer: Timer = {
      stop: () => {
        if (handle === undefined) return false;
        clearTimeout(handle);
        handle = undefined;
        return true;
      },
      reset: (next) => {
        const wasPending = timer.stop();
        deadline = this.now() + nonNegative(next);
        arm();
        return wasPending;
      },
    };
    timer.reset(ms);
    return timer;
  }

  newTicker(period: number, fn: () => void): Ticker {
    if (!(period > 0)) throw new RangeError(`ticker period must be positive, got ${period}`);
    // A chain of timers rather than setInterval, so that periods beyond
    // setTimeout's limit still tick on time.
    let deadline = this.now() + period;
    const tick = () => {
      deadline += period;
      timer.reset(deadline - this.now());
      fn();
    };
    const timer = this.afterFunc(period, tick);
    return { stop: () => void timer.stop() };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/**
 * The shared {@link RealClock}; the default wherever a clock is optional.
 *
 * @category Clock
 */
export const realClock: Clock = new RealClock();

interface Waiter {
  deadline: number;
  seq: number;
  /** Zero for one-shot timers. */
  period: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to, for tests: Go's `testing.FakeClock`.
 *
 * {@link FakeClock.step} moves time and runs every callback that has come due,
 * in deadline order, synchronously. {@link FakeClock.advance} does the same but
 * yields to the event loop after each deadline, so that code awaiting
 * {@link Clock.sleep} (and whatever it schedules next) runs in between, as it
 * would under real time.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * const woke = clock.sleep(1000);
 * await clock.advance(1000); // `woke` has resolved, and code after it has run
 * ```
 *
 * @category Clock
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #waiters = new Set<Waiter>();

  /** @param start - the initial time in ms since the epoch, or a `Date`; defaults to 2026-01-01T00:00:00Z. */
  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  since(t: number): number {
    return this.#now - t;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    let waiter: Waiter | undefined;
    const timer: Timer = {
      stop: () => {
        const pending = waiter !== undefined && this.#waiters.delete(waiter);
        waiter = undefined;
        return pending;
      },
      reset: (next) => {
        const pending = timer.stop();
        const w: Waiter = {
          deadline: this.#now + nonNegative(next),
          seq: this.#seq++,
          period: 0,
          fn: () => {
            waiter = undefined;
            fn();
          },
        };
        waiter = w;
        this.#waiters.add(w);
        return pending;
      },
    };
    timer.reset(ms);
    return timer;
  }

  newTicker(period: number, fn: () => void): Ticker {
    if (!(period > 0)) throw new RangeError(`ticker period must be positive, got ${period}`);
    const waiter: Waiter = { deadline: this.#now + period, seq: this.#seq++, period, fn };
    this.#waiters.add(waiter);
    return { stop: () => void this.#waiters.delete(waiter) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** True while any timer, ticker or sleep is pending. */
  hasWaiters(): boolean {
    return this.#waiters.size > 0;
  }

  /** The number of pending timers, tickers and sleeps. */
  waiterCount(): number {
    return this.#waiters.size;
  }

  /**
   * Moves time forward by `ms` and synchronously runs every callback due by then,
   * earliest first. A ticker that fell several periods behind ticks once per period.
   */
  step(ms: number): void {
    this.#moveTo(this.#now + nonNegative(ms));
  }

  /** Sets the time to `t` (which may be in the past) and runs whatever has come due. */
  setTime(t: number | Date): void {
    const target = typeof t === 'number' ? t : t.getTime();
    if (target < this.#now) {
      this.#now = target;
      return;
    }
    this.#moveTo(target);
  }

  /**
   * Moves time forward by `ms` like {@link FakeClock.step}, but lets the event
   * loop run after each deadline it passes (and once at the end), so promise
   * chains woken by a timer can schedule the next one before time moves on.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + nonNegative(ms);
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.deadline > target) break;
      this.#fire(next);
      await settle();
    }
    this.#now = target;
    await settle();
  }

  #moveTo(target: number): void {
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.deadline > target) break;
      this.#fire(next);
    }
    this.#now = target;
  }

  #fire(w: Waiter): void {
    if (w.deadline > this.#now) this.#now = w.deadline;
    if (w.period > 0) {
      w.deadline += w.period;
      w.seq = this.#seq++;
    } else {
      this.#waiters.delete(w);
    }
    w.fn();
  }

  #earliest(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const w of this.#waiters) {
      if (
        !best ||
        w.deadline < best.deadline ||
        (w.deadline === best.deadline && w.seq < best.seq)
      ) {
        best = w;
      }
    }
    return best;
  }
}

/** Lets every queued promise callback, and anything they queue in turn, run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
