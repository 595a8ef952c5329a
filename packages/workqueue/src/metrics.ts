// Pluggable queue metrics: client-go util/workqueue/metrics.go, with the names
// that k8s.io/component-base/metrics/prometheus/workqueue registers.
import type { PassiveClock } from '@kcm-ts/apimachinery';

/**
 * A value that goes up and down by one.
 *
 * @category Metrics
 */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}

/**
 * A value that is set outright.
 *
 * @category Metrics
 */
export interface SettableGaugeMetric {
  /** Replaces the value. */
  set(value: number): void;
}

/**
 * A value that only goes up.
 *
 * @category Metrics
 */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/**
 * Records observations into buckets.
 *
 * @category Metrics
 */
export interface HistogramMetric {
  /** Records one observation (for the workqueue's histograms, a duration in seconds). */
  observe(value: number): void;
}

/**
 * Makes the seven metrics of a named queue. Each method receives the queue's
 * name, which providers use as the `name` label. Go's `workqueue.MetricsProvider`.
 *
 * @category Metrics
 */
export interface MetricsProvider {
  /** `workqueue_depth`: items waiting to be handed out (dirty items, including those parked behind processing). */
  newDepthMetric(name: string): GaugeMetric;
  /** `workqueue_adds_total`: adds that made an item newly dirty. */
  newAddsMetric(name: string): CounterMetric;
  /** `workqueue_queue_duration_seconds`: seconds from add to get. */
  newLatencyMetric(name: string): HistogramMetric;
  /** `workqueue_work_duration_seconds`: seconds from get to done. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** `workqueue_unfinished_work_seconds`: summed age of all items in processing, refreshed every 500ms. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_longest_running_processor_seconds`: age of the oldest item in processing. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_retries_total`: `addAfter` calls on a delaying queue. */
  newRetriesMetric(name: string): CounterMetric;
}

const noopMetric: GaugeMetric & SettableGaugeMetric & CounterMetric & HistogramMetric = {
  inc() {},
  dec() {},
  set() {},
  observe() {},
};

/**
 * The default provider: every metric it makes does nothing, and queues built
 * with it skip their metrics bookkeeping entirely.
 *
 * @category Metrics
 */
export const noopMetricsProvider: MetricsProvider = Object.freeze({
  newDepthMetric: () => noopMetric,
  newAddsMetric: () => noopMetric,
  newLatencyMetric: () => noopMetric,
  newWorkDurationMetric: () => noopMetric,
  newUnfinishedWorkSecondsMetric: () => noopMetric,
  newLongestRunningProcessorSecondsMetric: () => noopMetric,
  newRetriesMetric: () => noopMetric,
});

// The global provider lives on globalThis under a registered symbol, so the ESM
// and CJS builds of this package, if both get loaded, share one setting.
const globalKey = Symbol.for('@kcm-ts/workqueue/metrics-provider');
type GlobalSlot = { [globalKey]?: MetricsProvider };

/**
 * Sets the metrics provider for every queue created afterwards that does not
 * name its own. As in client-go, only the first call has an effect; it returns
 * whether this call was that one.
 *
 * @category Metrics
 */
export function setProvider(provider: MetricsProvider): boolean {
  const slot = globalThis as GlobalSlot;
  if (slot[globalKey] !== undefined) return false;
  slot[globalKey] = provider;
  return true;
}

/** The provider set by {@link setProvider}, or the no-op provider. */
export function globalMetricsProvider(): MetricsProvider {
  return (globalThis as GlobalSlot)[globalKey] ?? noopMetricsProvider;
}

/**
 * The name, type and help of one workqueue metric, as a Prometheus provider
 * registers it (label: `name`, the queue name).
 *
 * @category Metrics
 */
export interface MetricDescriptor {
  /** The full Prometheus name, e.g. `workqueue_depth`. */
  readonly name: string;
  /** The Prometheus metric type. */
  readonly type: 'gauge' | 'counter' | 'histogram';
  /** The help text shown on `/metrics`. */
  readonly help: string;
  /** Histogram bucket upper bounds, in seconds. */
  readonly buckets?: readonly number[];
}

/**
 * `count` buckets starting at `start`, each `factor` times the previous
 * (Prometheus' `ExponentialBuckets`).
 *
 * @category Metrics
 */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (!(start > 0) || !(factor > 1) || !(count >= 1)) {
    throw new RangeError(
      `exponentialBuckets needs start > 0, factor > 1 and count >= 1; got ${start}, ${factor}, ${count}`,
    );
  }
  // Built from powers rather than repeated multiplication, so 1e-6 stays 1e-6.
  return Array.from({ length: count }, (_, i) => Number((start * factor ** i).toPrecision(12)));
}

const durationBuckets = exponentialBuckets(1e-6, 10, 10);

/**
 * The seven workqueue metrics, one {@link MetricDescriptor} each, keyed like
 * the {@link MetricsProvider} methods that make them.
 *
 * @category Metrics
 */
export interface WorkqueueMetricDescriptors {
  /** `workqueue_depth`, gauge. */
  readonly depth: MetricDescriptor;
  /** `workqueue_adds_total`, counter. */
  readonly adds: MetricDescriptor;
  /** `workqueue_queue_duration_seconds`, histogram (1µs to 1000s). */
  readonly latency: MetricDescriptor;
  /** `workqueue_work_duration_seconds`, histogram (1µs to 1000s). */
  readonly workDuration: MetricDescriptor;
  /** `workqueue_unfinished_work_seconds`, gauge. */
  readonly unfinishedWork: MetricDescriptor;
  /** `workqueue_longest_running_processor_seconds`, gauge. */
  readonly longestRunningProcessor: MetricDescriptor;
  /** `workqueue_retries_total`, counter. */
  readonly retries: MetricDescriptor;
}

/**
 * The seven metrics, with the names, types and buckets that kube-controller-manager
 * exports (`k8s.io/component-base/metrics/prometheus/workqueue`).
 *
 * @category Metrics
 */
export const workqueueMetrics: WorkqueueMetricDescriptors = {
  depth: { name: 'workqueue_depth', type: 'gauge', help: 'Current depth of the workqueue.' },
  adds: {
    name: 'workqueue_adds_total',
    type: 'counter',
    help: 'Total number of adds the workqueue has handled.',
  },
  latency: {
    name: 'workqueue_queue_duration_seconds',
    type: 'histogram',
    help: 'Seconds an item waits in the workqueue before a worker takes it.',
    buckets: durationBuckets,
  },
  workDuration: {
    name: 'workqueue_work_duration_seconds',
    type: 'histogram',
    help: 'Seconds a worker spends processing an item taken from the workqueue.',
    buckets: durationBuckets,
  },
  unfinishedWork: {
    name: 'workqueue_unfinished_work_seconds',
    type: 'gauge',
    help: 'Seconds of work in progress not yet observed by work_duration; a steady rise means stuck workers, and its slope tells how many.',
  },
  longestRunningProcessor: {
    name: 'workqueue_longest_running_processor_seconds',
    type: 'gauge',
    help: 'Seconds the longest-running worker of the workqueue has been busy with its item.',
  },
  retries: {
    name: 'workqueue_retries_total',
    type: 'counter',
    help: 'Total number of retries the workqueue has handled.',
  },
};

/** The bookkeeping a queue does for its metrics (Go's `queueMetrics`). */
export interface QueueMetrics<T> {
  readonly enabled: boolean;
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  updateUnfinishedWork(): void;
}

const noQueueMetrics: QueueMetrics<never> = {
  enabled: false,
  add() {},
  get() {},
  done() {},
  updateUnfinishedWork() {},
};

class DefaultQueueMetrics<T> implements QueueMetrics<T> {
  readonly enabled = true;
  readonly #addTimes = new Map<T, number>();
  readonly #processingStartTimes = new Map<T, number>();
  readonly #depth: GaugeMetric;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #unfinishedWorkSeconds: SettableGaugeMetric;
  readonly #longestRunningProcessor: SettableGaugeMetric;
  readonly #clock: PassiveClock;

  constructor(provider: MetricsProvider, name: string, clock: PassiveClock) {
    this.#clock = clock;
    this.#depth = provider.newDepthMetric(name);
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.#longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  add(item: T): void {
    this.#adds.inc();
    this.#depth.inc();
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  get(item: T): void {
    this.#depth.dec();
    this.#processingStartTimes.set(item, this.#clock.now());
    const addedAt = this.#addTimes.get(item);
    if (addedAt !== undefined) {
      this.#latency.observe(this.#secondsSince(addedAt));
      this.#addTimes.delete(item);
    }
  }

  done(item: T): void {
    const startedAt = this.#processingStartTimes.get(item);
    if (startedAt !== undefined) {
      this.#workDuration.observe(this.#secondsSince(startedAt));
      this.#processingStartTimes.delete(item);
    }
  }

  updateUnfinishedWork(): void {
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.#processingStartTimes.values()) {
      const age = this.#secondsSince(startedAt);
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinishedWorkSeconds.set(total);
    this.#longestRunningProcessor.set(oldest);
  }

  #secondsSince(t: number): number {
    return this.#clock.since(t) / 1000;
  }
}

/**
 * Queue metrics for a queue named `name`: disabled when the name is empty or
 * the provider is the no-op one, as in client-go's `newQueueMetrics`.
 */
export function newQueueMetrics<T>(
  provider: MetricsProvider,
  name: string,
  clock: PassiveClock,
): QueueMetrics<T> {
  if (name === '' || provider === noopMetricsProvider) return noQueueMetrics;
  return new DefaultQueueMetrics<T>(provider, name, clock);
}

/** The retries counter of a delaying queue: disabled only when the name is empty. */
export function newRetryMetric(provider: MetricsProvider, name: string): CounterMetric {
  return name === '' ? noopMetric : provider.newRetriesMetric(name);
}
