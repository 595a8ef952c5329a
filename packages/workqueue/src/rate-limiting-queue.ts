// The rate-limiting queue: client-go util/workqueue/rate_limiting_queue.go.
import { newDelayingQueue, type DelayingQueue } from './delaying-queue.js';
import type { MetricsProvider } from './metrics.js';
import { shutDownOnAbort } from './queue.js';
import type { Clock } from '@kcm-ts/apimachinery';
import type { RateLimiter } from './rate-limiters.js';

/**
 * A {@link DelayingQueue} that retries items after a delay chosen by a
 * {@link RateLimiter}: Go's `TypedRateLimitingInterface[T]`, the queue every
 * controller in kube-controller-manager uses.
 *
 * @category Queue
 */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** Adds `item` after the delay the rate limiter gives it (this counts as one more failure). */
  addRateLimited(item: T): void;
  /**
   * Tells the rate limiter to forget `item`'s failures, typically after it was
   * processed successfully. It does not remove the item from the queue: the
   * worker must still call {@link Queue.done}.
   */
  forget(item: T): void;
  /** How many times `item` has been retried since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Options for {@link newRateLimitingQueue}: Go's `TypedRateLimitingQueueConfig[T]`.
 *
 * @category Queue
 */
export interface RateLimitingQueueConfig<T> {
  /** Names the queue in its metrics. */
  name?: string;
  /** Overrides the provider set with {@link setProvider}. */
  metricsProvider?: MetricsProvider;
  /** Defaults to the real clock. */
  clock?: Clock;
  /** The delaying queue to use; by default a new one with the same name, provider and clock. */
  delayingQueue?: DelayingQueue<T>;
  /**
   * Shuts the queue down when it aborts, as a Go controller's
   * `defer queue.ShutDown()` does when its context ends. At once if already
   * aborted.
   */
  signal?: AbortSignal;
}

/**
 * Creates a rate-limiting queue: Go's `NewTypedRateLimitingQueueWithConfig`.
 *
 * @category Queue
 */
export function newRateLimitingQueue<T>(
  rateLimiter: RateLimiter<T>,
  config: RateLimitingQueueConfig<T> = {},
): RateLimitingQueue<T> {
  // The rate-limiting queue shuts down by shutting its delaying queue down,
  // so the signal goes to that one.
  let delaying: DelayingQueue<T>;
  if (config.delayingQueue === undefined) {
    delaying = newDelayingQueue<T>({
      name: config.name,
      metricsProvider: config.metricsProvider,
      clock: config.clock,
      signal: config.signal,
    });
  } else {
    delaying = config.delayingQueue;
    shutDownOnAbort(config.signal, () => delaying.shutDown());
  }
  //#region rate-limiting-queue
  return {
    add: (item) => delaying.add(item),
    addAfter: (item, ms) => delaying.addAfter(item, ms),
    len: () => delaying.len(),
    get: () => delaying.get(),
    done: (item) => delaying.done(item),
    shutDown: () => delaying.shutDown(),
    shutDownWithDrain: () => delaying.shutDownWithDrain(),
    shuttingDown: () => delaying.shuttingDown(),
    addRateLimited: (item) => delaying.addAfter(item, rateLimiter.when(item)),
    forget: (item) => rateLimiter.forget(item),
    numRequeues: (item) => rateLimiter.numRequeues(item),
  };
  //#endregion rate-limiting-queue
}
