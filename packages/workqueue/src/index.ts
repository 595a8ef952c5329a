/**
 * client-go's `util/workqueue` in TypeScript: the queue every controller feeds
 * with keys and drains with a few workers. It deduplicates keys, never hands
 * one key to two workers at once, delays items, and retries failures with
 * backoff. Chapter 1 of the course walks through it.
 *
 * @packageDocumentation
 */
export { defaultPendingQueue, newQueue, unfinishedWorkUpdatePeriod } from './queue.js';
export type { GetResult, PendingQueue, Queue, QueueConfig } from './queue.js';
export { newDelayingQueue } from './delaying-queue.js';
export type { DelayingQueue, DelayingQueueConfig } from './delaying-queue.js';
export { newRateLimitingQueue } from './rate-limiting-queue.js';
export type { RateLimitingQueue, RateLimitingQueueConfig } from './rate-limiting-queue.js';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
} from './rate-limiters.js';
export type { RateLimiter } from './rate-limiters.js';
export {
  exponentialBuckets,
  noopMetricsProvider,
  setProvider,
  workqueueMetrics,
} from './metrics.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricDescriptor,
  MetricsProvider,
  SettableGaugeMetric,
  WorkqueueMetricDescriptors,
} from './metrics.js';
export { parallelizeUntil } from './parallelizer.js';
export type { ParallelizeOptions } from './parallelizer.js';
