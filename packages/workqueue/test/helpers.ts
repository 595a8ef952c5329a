// Shared test doubles for the workqueue suites.
import type { FakeClock } from '@kcm-ts/apimachinery';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  PendingQueue,
  SettableGaugeMetric,
} from '../src/index.js';
import { defaultPendingQueue } from '../src/index.js';

/** Lets every queued promise callback, and anything they queue in turn, run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, and with what, without awaiting it. */
export function track<V>(p: Promise<V>): { done: boolean; value: V | undefined } {
  const state: { done: boolean; value: V | undefined } = { done: false, value: undefined };
  void p.then((value) => {
    state.done = true;
    state.value = value;
  });
  return state;
}

/**
 * Advances the fake clock `stepMs` at a time until `done()` holds, failing
 * after `maxSteps` so that a hang shows as a failure rather than a timeout.
 */
export async function advanceUntil(
  clock: FakeClock,
  done: () => boolean,
  stepMs = 1,
  maxSteps = 100_000,
): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i >= maxSteps) throw new Error(`condition not met after ${maxSteps} steps of ${stepMs}ms`);
    await clock.advance(stepMs);
  }
}

/** A gauge, counter, settable gauge and histogram in one, that remembers everything. */
export class RecordingMetric
  implements GaugeMetric, CounterMetric, SettableGaugeMetric, HistogramMetric
{
  value = 0;
  /** Every value passed to `set`, in order. */
  readonly sets: number[] = [];
  /** Every value passed to `observe`, in order. */
  readonly observations: number[] = [];

  inc(): void {
    this.value++;
  }
  dec(): void {
    this.value--;
  }
  set(value: number): void {
    this.value = value;
    this.sets.push(value);
  }
  observe(value: number): void {
    this.observations.push(value);
  }
  /** The last observed value. */
  get lastObservation(): number | undefined {
    return this.observations[this.observations.length - 1];
  }
}

/** Client-go's `testMetricsProvider`: one recording metric per kind, plus the names asked for. */
export class RecordingProvider implements MetricsProvider {
  readonly depth = new RecordingMetric();
  readonly adds = new RecordingMetric();
  readonly latency = new RecordingMetric();
  readonly duration = new RecordingMetric();
  readonly unfinished = new RecordingMetric();
  readonly longest = new RecordingMetric();
  readonly retries = new RecordingMetric();
  /** `[method, queue name]` for every metric created. */
  readonly created: [string, string][] = [];

  newDepthMetric(name: string): GaugeMetric {
    this.created.push(['depth', name]);
    return this.depth;
  }
  newAddsMetric(name: string): CounterMetric {
    this.created.push(['adds', name]);
    return this.adds;
  }
  newLatencyMetric(name: string): HistogramMetric {
    this.created.push(['latency', name]);
    return this.latency;
  }
  newWorkDurationMetric(name: string): HistogramMetric {
    this.created.push(['duration', name]);
    return this.duration;
  }
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric {
    this.created.push(['unfinished', name]);
    return this.unfinished;
  }
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric {
    this.created.push(['longest', name]);
    return this.longest;
  }
  newRetriesMetric(name: string): CounterMetric {
    this.created.push(['retries', name]);
    return this.retries;
  }
}

/** Client-go's `testQueue`: the default FIFO, counting calls to `touch`. */
export class TouchCountingQueue<T> implements PendingQueue<T> {
  touchCounter = 0;
  readonly #inner = defaultPendingQueue<T>();

  touch(item: T): void {
    this.touchCounter++;
    this.#inner.touch(item);
  }
  push(item: T): void {
    this.#inner.push(item);
  }
  len(): number {
    return this.#inner.len();
  }
  pop(): T {
    return this.#inner.pop();
  }
}
