import { FakeClock } from '@kcm-ts/apimachinery';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  exponentialBuckets,
  newDelayingQueue,
  newQueue,
  noopMetricsProvider,
  setProvider,
  unfinishedWorkUpdatePeriod,
  workqueueMetrics,
} from '../src/index.js';
import type { MetricDescriptor } from '../src/index.js';
import { RecordingProvider, flush } from './helpers.js';

describe('TestMetrics', () => {
  it('counts adds and depth, and times latency and work with the queue clock', async () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'test', clock, metricsProvider: mp });
    expect(clock.hasWaiters()).toBe(true);

    q.add('foo');
    expect(mp.adds.value).toBe(1);
    expect(mp.depth.value).toBe(1);

    clock.step(0.05); // 50µs
    const [item] = await q.get();
    expect(item).toBe('foo');
    expect(mp.latency.lastObservation).toBeCloseTo(5e-5, 15);
    expect(mp.latency.observations).toHaveLength(1);
    expect(mp.depth.value).toBe(0);

    // Added back while processing, five times: counted once.
    for (let i = 0; i < 5; i++) q.add('foo');
    expect(mp.adds.value).toBe(2);
    // Depth counts the parked item, which len does not.
    expect(mp.depth.value).toBe(1);
    expect(q.len()).toBe(0);

    clock.step(0.025); // 25µs
    q.done('foo');
    expect(mp.duration.lastObservation).toBeCloseTo(2.5e-5, 15);
    expect(mp.duration.observations).toHaveLength(1);
    expect(mp.depth.value).toBe(1);

    const [again] = await q.get();
    expect(again).toBe('foo');
    // Latency runs from the re-add while processing, not from the first add.
    expect(mp.latency.lastObservation).toBeCloseTo(2.5e-5, 15);
    expect(mp.latency.observations).toHaveLength(2);
    expect(mp.depth.value).toBe(0);

    // The 500ms ticker, started at 0, reports the age of the item in processing.
    expect(mp.unfinished.sets).toEqual([]);
    clock.step(unfinishedWorkUpdatePeriod - 0.075);
    expect(clock.now()).toBe(unfinishedWorkUpdatePeriod);
    expect(mp.unfinished.sets).toHaveLength(1);
    expect(mp.unfinished.value).toBeCloseTo(0.499925, 12);
    expect(mp.longest.sets).toHaveLength(1);
    expect(mp.longest.value).toBeCloseTo(0.499925, 12);

    q.done('foo');
    expect(mp.duration.lastObservation).toBeCloseTo(0.499925, 12);
    expect(mp.duration.observations).toHaveLength(2);
    q.shutDown();
  });

  it('measures latency from the first of several adds', async () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'test', clock, metricsProvider: mp });
    q.add('x');
    clock.step(3);
    q.add('x');
    expect(mp.adds.value).toBe(1);
    clock.step(4);
    await q.get();
    expect(mp.latency.observations).toEqual([0.007]);
    q.shutDown();
  });

  it('sums the ages of all items in processing, and reports the oldest', async () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'test', clock, metricsProvider: mp });
    q.add('a');
    q.add('b');
    q.add('c');
    await q.get(); // a, at 0
    clock.step(100);
    await q.get(); // b, at 100
    clock.step(100);
    await q.get(); // c, at 200
    clock.step(300);
    // At 500: ages 0.5s, 0.4s and 0.3s.
    expect(mp.unfinished.value).toBeCloseTo(1.2, 12);
    expect(mp.longest.value).toBeCloseTo(0.5, 12);

    q.done('a');
    q.done('b');
    clock.step(500);
    // At 1000: only c, aged 0.8s.
    expect(mp.unfinished.value).toBeCloseTo(0.8, 12);
    expect(mp.longest.value).toBeCloseTo(0.8, 12);

    q.done('c');
    clock.step(500);
    expect(mp.unfinished.sets).toEqual([expect.closeTo(1.2, 12), expect.closeTo(0.8, 12), 0]);
    expect(mp.longest.sets).toEqual([expect.closeTo(0.5, 12), expect.closeTo(0.8, 12), 0]);
    q.shutDown();
  });

  it('observes no latency for an item done without being gotten', () => {
    const mp = new RecordingProvider();
    const q = newQueue<string>({ name: 'test', clock: new FakeClock(0), metricsProvider: mp });
    q.done('never-gotten');
    expect(mp.duration.observations).toEqual([]);
    q.shutDown();
  });
});

describe('TestMetricShutdown', () => {
  it('stops the unfinished-work updates on shutDown', async () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'test', clock, metricsProvider: mp });
    expect(clock.hasWaiters()).toBe(true);
    q.add('x');
    await q.get();
    clock.step(unfinishedWorkUpdatePeriod);
    expect(mp.unfinished.sets).toHaveLength(1);

    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
    clock.step(unfinishedWorkUpdatePeriod * 10);
    expect(mp.unfinished.sets).toHaveLength(1);
    expect(mp.longest.sets).toHaveLength(1);
  });

  it('stops the unfinished-work updates on shutDownWithDrain, while items are still in flight', async () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'test', clock, metricsProvider: mp });
    q.add('x');
    await q.get();
    const drained = q.shutDownWithDrain();
    clock.step(unfinishedWorkUpdatePeriod * 10);
    expect(mp.unfinished.sets).toEqual([]);
    expect(mp.longest.sets).toEqual([]);
    q.done('x');
    await drained;
    expect(mp.duration.observations).toHaveLength(1);
  });
});

describe('metrics enablement', () => {
  it('creates no metrics and no ticker for an unnamed queue', () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ clock, metricsProvider: mp });
    q.add('x');
    q.addAfter('y', 0);
    expect(mp.created).toEqual([]);
    expect(mp.adds.value).toBe(0);
    expect(mp.retries.value).toBe(0);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('starts no ticker for the no-op provider', () => {
    const clock = new FakeClock(0);
    newQueue<string>({ name: 'test', clock, metricsProvider: noopMetricsProvider });
    expect(clock.hasWaiters()).toBe(false);
  });

  it('names every metric after the queue', () => {
    const mp = new RecordingProvider();
    newDelayingQueue<string>({ name: 'my-queue', clock: new FakeClock(0), metricsProvider: mp });
    expect(mp.created.map(([kind]) => kind).sort()).toEqual(
      ['adds', 'depth', 'duration', 'latency', 'longest', 'retries', 'unfinished'].sort(),
    );
    expect(mp.created.every(([, name]) => name === 'my-queue')).toBe(true);
  });
});

describe('retries', () => {
  it('counts every addAfter, including delays <= 0, but not plain adds', () => {
    const mp = new RecordingProvider();
    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ name: 'test', clock, metricsProvider: mp });
    q.addAfter('a', 10);
    q.addAfter('a', 20);
    q.addAfter('b', 0);
    q.addAfter('c', -5);
    q.add('d');
    expect(mp.retries.value).toBe(4);
    q.shutDown();
  });

  it('does not count an addAfter once shutting down', () => {
    const mp = new RecordingProvider();
    const q = newDelayingQueue<string>({
      name: 'test',
      clock: new FakeClock(0),
      metricsProvider: mp,
    });
    q.addAfter('a', 10);
    q.shutDown();
    q.addAfter('a', 10);
    q.addAfter('b', 0);
    expect(mp.retries.value).toBe(1);
  });

  it('is not counted at all for an unnamed queue', () => {
    const mp = new RecordingProvider();
    const q = newDelayingQueue<string>({ clock: new FakeClock(0), metricsProvider: mp });
    q.addAfter('a', 10);
    q.addAfter('b', 0);
    expect(mp.retries.value).toBe(0);
    expect(mp.created).toEqual([]);
    q.shutDown();
  });
});

describe('setProvider', () => {
  // The provider is process-wide state, kept on globalThis: clear it for each
  // test and put back whatever was there before.
  const slot = globalThis as Record<symbol, unknown>;
  const key = Symbol.for('@kcm-ts/workqueue/metrics-provider');
  let saved: { value: unknown } | undefined;

  beforeEach(() => {
    saved = key in slot ? { value: slot[key] } : undefined;
    delete slot[key];
  });
  afterEach(() => {
    delete slot[key];
    if (saved) slot[key] = saved.value;
  });

  it('takes effect on the first call only', () => {
    const first = new RecordingProvider();
    const second = new RecordingProvider();
    expect(setProvider(first)).toBe(true);
    expect(setProvider(second)).toBe(false);

    const clock = new FakeClock(0);
    const q = newDelayingQueue<string>({ name: 'global', clock });
    q.add('x');
    q.addAfter('y', 0);
    expect(first.adds.value).toBe(2);
    expect(first.retries.value).toBe(1);
    expect(second.created).toEqual([]);
    expect(clock.hasWaiters()).toBe(true);
    q.shutDown();
  });

  it('is overridden by a provider given in the config', () => {
    const global = new RecordingProvider();
    const own = new RecordingProvider();
    setProvider(global);
    const q = newDelayingQueue<string>({
      name: 'own',
      clock: new FakeClock(0),
      metricsProvider: own,
    });
    q.addAfter('x', 0);
    expect(own.adds.value).toBe(1);
    expect(own.retries.value).toBe(1);
    expect(global.created).toEqual([]);
    q.shutDown();
  });

  it('leaves queues without metrics while unset', () => {
    const clock = new FakeClock(0);
    newQueue<string>({ name: 'unset', clock });
    expect(clock.hasWaiters()).toBe(false);
  });

  it('does not affect queues created before it', async () => {
    const clock = new FakeClock(0);
    const q = newQueue<string>({ name: 'before', clock });
    const late = new RecordingProvider();
    setProvider(late);
    q.add('x');
    await flush();
    expect(late.created).toEqual([]);
    expect(late.adds.value).toBe(0);
  });
});

describe('workqueueMetrics', () => {
  // An interface has no index signature, so Object.values would type these as any.
  const descriptors = (): MetricDescriptor[] =>
    Object.keys(workqueueMetrics).map(
      (key) => workqueueMetrics[key as keyof typeof workqueueMetrics],
    );

  it("uses client-go's metric names and types", () => {
    expect(descriptors().map(({ name, type }) => [name, type])).toEqual([
      ['workqueue_depth', 'gauge'],
      ['workqueue_adds_total', 'counter'],
      ['workqueue_queue_duration_seconds', 'histogram'],
      ['workqueue_work_duration_seconds', 'histogram'],
      ['workqueue_unfinished_work_seconds', 'gauge'],
      ['workqueue_longest_running_processor_seconds', 'gauge'],
      ['workqueue_retries_total', 'counter'],
    ]);
    for (const metric of descriptors()) expect(metric.help).not.toBe('');
  });

  it('buckets the two histograms from 1µs to 1000s, by tens', () => {
    const buckets = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];
    expect(workqueueMetrics.latency.buckets).toEqual(buckets);
    expect(workqueueMetrics.workDuration.buckets).toEqual(buckets);
  });

  it('builds exponential buckets like Prometheus, and rejects bad arguments', () => {
    expect(exponentialBuckets(1, 2, 4)).toEqual([1, 2, 4, 8]);
    expect(exponentialBuckets(10e-7, 10, 3)).toEqual([1e-6, 1e-5, 1e-4]);
    expect(() => exponentialBuckets(0, 2, 4)).toThrow(RangeError);
    expect(() => exponentialBuckets(1, 1, 4)).toThrow(RangeError);
    expect(() => exponentialBuckets(1, 2, 0)).toThrow(RangeError);
  });
});
