// The per-zone queue of nodes waiting to be tainted, let through at the
// eviction rate: Go's pkg/controller/nodelifecycle/scheduler/
// rate_limited_queue.go (TimedValue, UniqueQueue, RateLimitedTimedQueue,
// NodeEvictionPeriod, EvictionRateLimiterBurst, NodeHealthUpdateRetry),
// with the limiters it swaps between from client-go's util/flowcontrol
// (NewTokenBucketRateLimiter, NewFakeNeverRateLimiter).
import type { Clock } from '@kcm-ts/apimachinery';

/**
 * How often the node lifecycle controller works through its taint queues,
 * in ms. Go's `NodeEvictionPeriod`.
 *
 * @category Node lifecycle controller
 */
export const nodeEvictionPeriod = 100;

/**
 * The burst of every eviction rate limiter. Go's `EvictionRateLimiterBurst`.
 *
 * @category Node lifecycle controller
 */
export const evictionRateLimiterBurst = 1;

/**
 * How many times a node's health update is tried per pass. Go's
 * `NodeHealthUpdateRetry`.
 *
 * @category Node lifecycle controller
 */
export const nodeHealthUpdateRetry = 5;

/**
 * A value to process at a given time. Go's `TimedValue`.
 *
 * @category Node lifecycle controller
 */
export interface TimedValue {
  /** The node name. */
  value: string;
  /** Whatever identifies the value further (the node's uid). */
  uid: unknown;
  /** When it was added, in ms. */
  addedAt: number;
  /** When it may be processed, in ms. */
  processAt: number;
}

/**
 * A rate limiter that is asked, never waited on. Go's
 * `flowcontrol.RateLimiter`, the parts the queue uses.
 *
 * @category Node lifecycle controller
 */
export interface TryRateLimiter {
  /** Takes a token if one is there. */
  tryAccept(): boolean;
  /** The steady rate, tokens per second. */
  qps(): number;
}

/**
 * A token bucket on the clock: `burst` tokens to start with, refilled at
 * `qps` a second up to `burst`. Go's `NewTokenBucketRateLimiter`.
 *
 * @category Node lifecycle controller
 */
export function newTokenBucketRateLimiter(
  qps: number,
  burst: number,
  clock: Clock,
): TryRateLimiter {
  let tokens = burst;
  let last = clock.now();
  return {
    tryAccept() {
      const now = clock.now();
      tokens = Math.min(burst, tokens + ((now - last) / 1000) * qps);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    qps: () => qps,
  };
}

/**
 * A limiter that never lets anything through. Go's `NewFakeNeverRateLimiter`.
 *
 * @category Node lifecycle controller
 */
export const neverRateLimiter: TryRateLimiter = Object.freeze({
  tryAccept: () => false,
  qps: () => 0,
});

/**
 * A queue ordered by `processAt` in which a value can be once until it is
 * removed. Go's `UniqueQueue`.
 */
class UniqueQueue {
  #queue: TimedValue[] = [];
  #set = new Set<string>();

  #sort(): void {
    // Stable: equal times keep the order they were added in.
    this.#queue.sort((a, b) => a.processAt - b.processAt);
  }

  add(value: TimedValue): boolean {
    if (this.#set.has(value.value)) return false;
    this.#queue.push(value);
    this.#sort();
    this.#set.add(value.value);
    return true;
  }

  replace(value: TimedValue): boolean {
    const i = this.#queue.findIndex((v) => v.value === value.value);
    if (i < 0) return false;
    this.#queue.splice(i, 1);
    this.#queue.push(value);
    this.#sort();
    return true;
  }

  /** Takes the value out of the queue but keeps it in the set, so it is not added again. */
  removeFromQueue(value: string): boolean {
    if (!this.#set.has(value)) return false;
    const i = this.#queue.findIndex((v) => v.value === value);
    if (i < 0) return false;
    this.#queue.splice(i, 1);
    return true;
  }

  /** Takes the value out of the queue and the set, so it can be added again. */
  remove(value: string): boolean {
    if (!this.#set.has(value)) return false;
    this.#set.delete(value);
    const i = this.#queue.findIndex((v) => v.value === value);
    if (i >= 0) this.#queue.splice(i, 1);
    return true;
  }

  get(): TimedValue | undefined {
    const head = this.#queue.shift();
    if (head !== undefined) this.#set.delete(head.value);
    return head;
  }

  head(): TimedValue | undefined {
    const head = this.#queue[0];
    return head === undefined ? undefined : { ...head };
  }

  clear(): void {
    this.#queue = [];
    this.#set.clear();
  }
}

/**
 * What {@link RateLimitedTimedQueue.try} does with a value: resolves
 * `[true]` when it is done with it, or `[false, wait]` to have it again no
 * sooner than `wait` ms later. Go's `ActionFunc`.
 *
 * @category Node lifecycle controller
 */
export type ActionFunc = (value: TimedValue) => Promise<[done: boolean, wait?: number]>;

/**
 * A queue of unique values ordered by when they are due, processed no
 * faster than its rate limiter allows. Go's `RateLimitedTimedQueue`.
 *
 * @category Node lifecycle controller
 */
export class RateLimitedTimedQueue {
  readonly #queue = new UniqueQueue();
  readonly #clock: Clock;
  #limiter: TryRateLimiter;

  /**
   * @param limiter - the limiter to start with
   * @param clock - the clock of `addedAt`, `processAt` and the limiters swapped in
   */
  constructor(limiter: TryRateLimiter, clock: Clock) {
    this.#limiter = limiter;
    this.#clock = clock;
  }

  /**
   * Processes the values that are due, earliest first, while the limiter
   * lets them through. A value `fn` is done with leaves the queue but stays
   * known, so it is not added again until {@link RateLimitedTimedQueue.remove}
   * is called for it; one it is not done with goes back with a later time.
   * Go's `Try`.
   */
  async try(fn: ActionFunc): Promise<void> {
    let val = this.#queue.head();
    while (val !== undefined) {
      if (!this.#limiter.tryAccept()) break;
      const now = this.#clock.now();
      if (now < val.processAt) break;
      const [done, wait = 0] = await fn(val);
      if (!done) {
        // Go adds one nanosecond; a millionth of a millisecond here.
        val.processAt = now + wait + 1e-6;
        this.#queue.replace(val);
      } else {
        this.#queue.removeFromQueue(val.value);
      }
      val = this.#queue.head();
    }
  }

  /**
   * Adds a value, due now, unless it is known already. Go's `Add`.
   *
   * @returns whether it was added
   */
  add(value: string, uid: unknown): boolean {
    const now = this.#clock.now();
    return this.#queue.add({ value, uid, addedAt: now, processAt: now });
  }

  /**
   * Forgets a value, so it is not processed and can be added again. Go's `Remove`.
   *
   * @returns whether it was known
   */
  remove(value: string): boolean {
    return this.#queue.remove(value);
  }

  /** Forgets every value. Go's `Clear`. */
  clear(): void {
    this.#queue.clear();
  }

  /** The limiter's rate, tokens per second. */
  qps(): number {
    return this.#limiter.qps();
  }

  /**
   * Swaps the limiter for one of `newQPS` (none at all at 0 or less),
   * unless the rate is the same. A new token bucket starts empty when the
   * old one was, so a swap never lets an extra value through. Go's
   * `SwapLimiter`.
   */
  swapLimiter(newQPS: number): void {
    if (this.#limiter.qps() === newQPS) return;
    let next: TryRateLimiter;
    if (newQPS <= 0) {
      next = neverRateLimiter;
    } else {
      next = newTokenBucketRateLimiter(newQPS, evictionRateLimiterBurst, this.#clock);
      if (!this.#limiter.tryAccept()) next.tryAccept();
    }
    this.#limiter = next;
  }
}
