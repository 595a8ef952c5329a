// controller-runtime's controller metrics for built controllers, read from
// the manager's registry after reconciles on the fake clock: every series
// is there at zero before the first reconcile, each outcome is counted under
// its result label, the reconcile time is measured on the injected clock,
// the worker gauges follow the workers, and a programming error counts as a
// panic.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { MetricValueWithName, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { informerResources } from '@kcm-ts/informer';
import {
  controllerRuntimeMetrics,
  newControllerManagedBy,
  startTestEnvironment,
  type TestEnvironment,
} from '../src/index.js';

const { configMaps } = informerResources;

let env: TestEnvironment;
afterEach(async () => {
  await env?.stop();
});

/** The value of one series, or undefined when the registry has none. */
async function value(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  const hit = values.find((v) =>
    Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want),
  );
  return hit?.value;
}

async function cm(name: string): Promise<void> {
  await env
    .client<ConfigMap>(configMaps, 'default')
    .create({ metadata: { name }, data: { k: 'v' } });
}

describe("controller-runtime's controller metrics", () => {
  it('has controller-runtime names, labels and buckets', () => {
    const d = controllerRuntimeMetrics;
    expect(
      Object.values(d).map((m: { name: string; labels: readonly string[] }) => [
        m.name,
        m.labels.join(','),
      ]),
    ).toEqual([
      ['controller_runtime_reconcile_total', 'controller,result'],
      ['controller_runtime_reconcile_errors_total', 'controller'],
      ['controller_runtime_terminal_reconcile_errors_total', 'controller'],
      ['controller_runtime_reconcile_panics_total', 'controller'],
      ['controller_runtime_reconcile_time_seconds', 'controller'],
      ['controller_runtime_max_concurrent_reconciles', 'controller'],
      ['controller_runtime_active_workers', 'controller'],
    ]);
    expect(d.reconcileTime.buckets).toHaveLength(40);
    expect(d.reconcileTime.buckets[0]).toBe(0.005);
    expect(d.reconcileTime.buckets.at(-1)).toBe(60);
  });

  it('counts each outcome and times it on the clock, in the manager registry', async () => {
    env = await startTestEnvironment();
    let againLeft = 1;
    let brokenLeft = 2;
    const c = newControllerManagedBy()
      .for(configMaps)
      .workers(3)
      .complete((ctx) => async (req) => {
        switch (req.name) {
          case 'slow':
            await ctx.clock.sleep(1500);
            return undefined;
          case 'later':
            return { requeueAfter: 60_000 };
          case 'again':
            return againLeft-- > 0 ? { requeue: true } : undefined;
          case 'broken':
            if (brokenLeft-- > 0) throw new Error('not yet');
            return undefined;
          default:
            return undefined;
        }
      });
    const manager = env.runManager({ customControllers: { c } });
    const registry = manager.metrics.registry;
    const total = (result: string) =>
      value(registry, 'controller_runtime_reconcile_total', { controller: 'c', result });

    await env.until(() => manager.started() !== undefined);
    await env.step(100);
    // Every series is there, at zero, before the first reconcile.
    for (const result of ['success', 'error', 'requeue', 'requeue_after'])
      expect(await total(result)).toBe(0);
    for (const name of ['ok', 'slow', 'later', 'again', 'broken']) await cm(name);
    await env.until(async () => (await total('success')) === 4, 10_000);
    expect(await total('requeue_after')).toBe(1);
    expect(await total('requeue')).toBe(1);
    expect(await total('error')).toBe(2);
    expect(
      await value(registry, 'controller_runtime_reconcile_errors_total', { controller: 'c' }),
    ).toBe(2);
    expect(
      await value(registry, 'controller_runtime_terminal_reconcile_errors_total', {
        controller: 'c',
      }),
    ).toBe(0);
    expect(
      await value(registry, 'controller_runtime_reconcile_panics_total', { controller: 'c' }),
    ).toBe(0);
    expect(
      await value(registry, 'controller_runtime_max_concurrent_reconciles', { controller: 'c' }),
    ).toBe(3);
    expect(await value(registry, 'controller_runtime_active_workers', { controller: 'c' })).toBe(0);

    // Eight reconciles; only `slow` took time on the fake clock, 1.5 s.
    const name = 'controller_runtime_reconcile_time_seconds';
    const values = (await registry.getSingleMetric(name)!.get())
      .values as MetricValueWithName<string>[];
    const count = values.find((v) => v.metricName === `${name}_count`)!;
    const sum = values.find((v) => v.metricName === `${name}_sum`)!;
    expect(count.value).toBe(8);
    expect(sum.value).toBeCloseTo(1.5, 5);
    const bucket = (le: number) =>
      values.find((v) => v.metricName === `${name}_bucket` && v.labels.le === le)!.value;
    expect(bucket(1.25)).toBe(7);
    expect(bucket(1.5)).toBe(8);

    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="c",result="success"} 4');
  });

  it('shows the workers that are busy, and counts a programming error as a panic', async () => {
    env = await startTestEnvironment();
    await cm('a');
    await cm('b');
    await cm('bug');
    const c = newControllerManagedBy()
      .for(configMaps)
      .workers(4)
      .complete((ctx) => async (req) => {
        if (req.name === 'bug') {
          const missing = ctx.get<ConfigMap>(configMaps, { namespace: 'default', name: 'none' });
          // A bug: reading a field of undefined throws a TypeError.
          if (missing!.data) return undefined;
        }
        await ctx.clock.sleep(1000);
        return undefined;
      });
    const manager = env.runManager({ customControllers: { c } });
    const registry = manager.metrics.registry;
    const active = () => value(registry, 'controller_runtime_active_workers', { controller: 'c' });
    await env.until(async () => (await active()) === 2);
    await env.step(1000);
    expect(await active()).toBe(0);
    expect(
      await value(registry, 'controller_runtime_reconcile_panics_total', { controller: 'c' }),
    ).toBeGreaterThanOrEqual(1);
    // A panic is an error too, retried with backoff.
    const errors = await value(registry, 'controller_runtime_reconcile_errors_total', {
      controller: 'c',
    });
    expect(errors).toBeGreaterThan(1);
  });
});
