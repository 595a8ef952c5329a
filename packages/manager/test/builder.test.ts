// The controller builder inside the manager's run(), on the test
// environment's fake clock: owner mapping, predicates, a label selector for
// one informer, requeueAfter, rate-limited retries, one key never in two
// workers, metrics with the controller's name, and bad input.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { informerResources } from '@kcm-ts/informer';
import {
  generationChangedPredicate,
  labelSelectorPredicate,
  newControllerManagedBy,
  newPredicateFuncs,
  setControllerReference,
  startTestEnvironment,
  type Reconciler,
  type ReconcilerSetup,
  type Request,
  type TestEnvironment,
} from '../src/index.js';
import { memoryLogger } from './garbagecollector/helpers.js';

const { configMaps, secrets, deployments } = informerResources;
const cmKind = { group: '', version: 'v1', kind: 'ConfigMap' };

let env: TestEnvironment;
afterEach(async () => {
  await env?.stop();
});

/** A reconciler that records each request with the fake time it ran at. */
function recorder(inner: Reconciler = () => undefined) {
  const calls: { key: string; at: number }[] = [];
  const setup: ReconcilerSetup = (ctx) => (req, signal) => {
    calls.push({ key: `${req.namespace}/${req.name}`, at: ctx.clock.now() });
    return inner(req, signal);
  };
  const keys = () => calls.map((c) => c.key);
  return { calls, keys, setup };
}

async function cm(name: string, labels: Record<string, string> = {}): Promise<ConfigMap> {
  return env
    .client<ConfigMap>(configMaps, 'default')
    .create({ metadata: { name, labels }, data: { k: 'v' } });
}

describe('the controller builder', () => {
  it('maps an owned object to its controller, and nothing else', async () => {
    env = await startTestEnvironment();
    const owner = await cm('owner');
    const other = await cm('other');
    const sec = env.client<Secret>(secrets, 'default');
    const owned = await sec.create(
      setControllerReference(owner, { metadata: { name: 'owned', namespace: 'default' } }, cmKind),
    );
    // A non-controller reference, and a controller of another kind.
    await sec.create({
      metadata: {
        name: 'referenced',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: other.metadata!.uid! },
        ],
      },
    });
    await sec.create({
      metadata: {
        name: 'by-deployment',
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'other',
            uid: 'u-1',
            controller: true,
          },
        ],
      },
    });
    const r = recorder();
    //#region builder
    const mirror = newControllerManagedBy()
      .for(configMaps)
      .owns(secrets)
      .workers(2)
      .complete(r.setup);
    const manager = env.runManager({ customControllers: { mirror } });
    //#endregion builder
    await env.until(() => r.keys().includes('default/owner') && r.keys().includes('default/other'));
    expect(manager.started()).toEqual(['mirror']);
    await env.step(1000);
    r.calls.length = 0;

    await sec.update({ ...owned, data: { x: 'eA==' } });
    await env.until(() => r.calls.length > 0);
    await env.step(100);
    expect(r.keys()).toEqual(['default/owner']);

    r.calls.length = 0;
    for (const name of ['referenced', 'by-deployment']) {
      const s = await sec.get(name);
      await sec.update({ ...s, data: { y: 'eQ==' } });
    }
    await env.step(1000);
    expect(r.keys()).toEqual([]);

    // Deleting the owned object wakes its owner too.
    await sec.delete('owned');
    await env.until(() => r.calls.length > 0);
    expect(r.keys()).toEqual(['default/owner']);

    const text = await manager.metrics.registry.metrics();
    expect(text).toMatch(/workqueue_adds_total\{name="mirror"\} [1-9]/);
  });

  it('filters with predicates, and keeps a label-selected informer to its objects', async () => {
    env = await startTestEnvironment();
    await cm('plain');
    await cm('marked', { mirror: 'true' });
    const r = recorder();
    let cached: string[] = [];
    const mirror = newControllerManagedBy()
      .for(configMaps, { labelSelector: 'mirror=true' })
      .complete((ctx) => {
        const inner = r.setup(ctx);
        return (req, signal) => {
          cached = ctx
            .lister<ConfigMap>(configMaps)
            .list()
            .map((c) => c.metadata!.name!);
          return inner(req, signal);
        };
      });
    const byPredicate = recorder();
    const filtered = newControllerManagedBy()
      .for(configMaps, { predicates: [labelSelectorPredicate('mirror=true')] })
      .complete(byPredicate.setup);
    const generation = recorder();
    const generational = newControllerManagedBy()
      .for(deployments, { predicates: [generationChangedPredicate] })
      .complete(generation.setup);
    env.runManager({ customControllers: { mirror, filtered, generational } });
    await env.until(() => r.calls.length > 0 && byPredicate.calls.length > 0);
    await env.step(500);
    expect(r.keys()).toEqual(['default/marked']);
    expect(cached).toEqual(['marked']);
    expect(byPredicate.keys()).toEqual(['default/marked']);

    const ds = env.client<Deployment>(deployments, 'default');
    const d = await ds.create({
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    await env.until(() => generation.calls.length === 1);
    await ds.updateStatus({ ...d, status: { observedGeneration: 1 } });
    await env.step(500);
    expect(generation.calls).toHaveLength(1);
    const now = await ds.get('web');
    await ds.update({ ...now, spec: { ...now.spec!, replicas: 3 } });
    await env.until(() => generation.calls.length === 2);
  });

  it('gives each controller its own selection, and one selector per resource within one', async () => {
    env = await startTestEnvironment();
    await cm('red', { color: 'red' });
    await cm('blue', { color: 'blue' });
    const reds = recorder();
    const blues = recorder();
    const red = newControllerManagedBy()
      .for(configMaps, { labelSelector: 'color=red' })
      .complete(reds.setup);
    const blue = newControllerManagedBy()
      .for(configMaps, { labelSelector: 'color=blue' })
      .complete(blues.setup);
    const both = recorder();
    const plain = newControllerManagedBy().for(configMaps).complete(both.setup);
    const m = env.runManager({ customControllers: { red, blue, plain } });
    await env.until(() => reds.calls.length > 0 && blues.calls.length > 0);
    await env.until(() => both.calls.length === 2);
    await env.step(500);
    expect(reds.keys()).toEqual(['default/red']);
    expect(blues.keys()).toEqual(['default/blue']);
    expect(both.keys().sort()).toEqual(['default/blue', 'default/red']);
    await m.stop();

    const twice = newControllerManagedBy()
      .for(configMaps, { labelSelector: 'color=red' })
      .watches(configMaps, (o) => [{ namespace: 'default', name: o.metadata!.name! }], {
        labelSelector: 'color=blue',
      })
      .complete(() => () => undefined);
    await expect(env.runManager({ customControllers: { twice } }).done).rejects.toThrow(
      /configmaps: the informer already made has labelSelector "color=red"/,
    );
  });

  it('requeues after the asked delay, and retries failures with backoff', async () => {
    env = await startTestEnvironment();
    await cm('later');
    await cm('flaky');
    let flakyFailures = 3;
    const r = recorder((req) => {
      if (req.name === 'later') return { requeueAfter: 5000 };
      if (flakyFailures-- > 0) throw new Error('flaky');
      return undefined;
    });
    const c = newControllerManagedBy().for(configMaps).complete(r.setup);
    env.runManager({ customControllers: { c } });
    await env.until(() => r.keys().filter((k) => k === 'default/flaky').length === 4);
    const flaky = r.calls.filter((x) => x.key === 'default/flaky').map((x) => x.at);
    // client-go's per-item backoff: 5 ms, 10 ms, 20 ms.
    expect(flaky.slice(1).map((t, i) => t - flaky[i]!)).toEqual([5, 10, 20]);
    await env.step(1000);
    expect(r.keys().filter((k) => k === 'default/flaky')).toHaveLength(4);

    const later = () => r.calls.filter((x) => x.key === 'default/later').map((x) => x.at);
    expect(later()).toHaveLength(1);
    await env.until(() => later().length === 2);
    expect(later()[1]! - later()[0]!).toBe(5000);
  });

  it('never hands one key to two workers', async () => {
    env = await startTestEnvironment();
    for (const n of ['a', 'b', 'c']) await cm(n);
    const running = new Map<string, number>();
    let maxSameKey = 0;
    let maxAll = 0;
    const seen: Request[] = [];
    const c = newControllerManagedBy()
      .for(configMaps)
      .workers(4)
      .complete((ctx) => async (req) => {
        seen.push(req);
        const n = (running.get(req.name) ?? 0) + 1;
        running.set(req.name, n);
        maxSameKey = Math.max(maxSameKey, n);
        maxAll = Math.max(
          maxAll,
          [...running.values()].reduce((a, b) => a + b, 0),
        );
        await ctx.clock.sleep(200);
        running.set(req.name, n - 1);
      });
    env.runManager({ customControllers: { c } });
    await env.until(() => seen.length >= 3);
    const cms = env.client<ConfigMap>(configMaps, 'default');
    for (let i = 0; i < 5; i++) {
      const a = await cms.get('a');
      await cms.update({ ...a, data: { i: String(i) } });
      await env.step(50);
    }
    await env.step(1000);
    expect(maxSameKey).toBe(1);
    expect(maxAll).toBeGreaterThan(1);
    // Updates while `a` was being reconciled fold into one more pass at a time.
    expect(seen.filter((r) => r.name === 'a').length).toBeLessThanOrEqual(4);
    expect(seen.filter((r) => r.name === 'a').length).toBeGreaterThanOrEqual(2);
  });

  it('maps other objects with watches(), filters globally, and requeues with the rate limiter', async () => {
    env = await startTestEnvironment();
    await cm('target');
    await cm('skipped', { skip: 'yes' });
    let requeues = 2;
    const r = recorder((req) =>
      req.name === 'target' && requeues-- > 0 ? { requeue: true } : undefined,
    );
    const c = newControllerManagedBy()
      .for(configMaps)
      .watches<Secret>(secrets, (s) => {
        const target = s.metadata?.labels?.target;
        return target ? [{ namespace: s.metadata!.namespace!, name: target }] : [];
      })
      .withEventFilter(newPredicateFuncs((o) => o.metadata?.labels?.skip !== 'yes'))
      .complete(r.setup);
    env.runManager({ customControllers: { c } });
    // The first pass and two requeues, 5 and 10 ms apart.
    await env.until(() => r.keys().filter((k) => k === 'default/target').length === 3);
    const at = r.calls.filter((x) => x.key === 'default/target').map((x) => x.at);
    expect([at[1]! - at[0]!, at[2]! - at[1]!]).toEqual([5, 10]);
    await env.step(500);
    expect(r.keys()).not.toContain('default/skipped');
    r.calls.length = 0;
    await env
      .client<Secret>(secrets, 'default')
      .create({ metadata: { name: 'pointer', labels: { target: 'target' } } });
    await env
      .client<Secret>(secrets, 'default')
      .create({ metadata: { name: 'filtered', labels: { target: 'x', skip: 'yes' } } });
    await env.until(() => r.calls.length > 0);
    await env.step(500);
    expect(r.keys()).toEqual(['default/target']);
  });

  it('stops with an error when a cache does not sync in time', async () => {
    env = await startTestEnvironment();
    const logger = memoryLogger();
    env.faults.failNext(1_000_000, { code: 500 }, { verbs: ['list'], resource: 'configmaps' });
    const c = newControllerManagedBy()
      .for(configMaps)
      .withCacheSyncTimeout(10_000)
      .complete(() => () => undefined);
    env.runManager({ customControllers: { c }, logger });
    await env.until(
      () => logger.lines.some((l) => l.startsWith('ERROR Controller stopped')),
      20_000,
    );
    expect(logger.lines.find((l) => l.startsWith('ERROR Controller stopped'))).toContain(
      'failed to wait for c caches to sync: timed out waiting for cache to be synced',
    );
    expect(() => newControllerManagedBy().withCacheSyncTimeout(0)).toThrow(RangeError);
  });

  it('says what is wrong with bad input', async () => {
    const b = newControllerManagedBy().for(configMaps);
    expect(() => b.for(secrets)).toThrow(/only once/);
    expect(() => newControllerManagedBy().complete(() => () => undefined)).toThrow(/for\(\) first/);
    expect(() => newControllerManagedBy().workers(0)).toThrow(/integer >= 1/);
    expect(() => newControllerManagedBy().for({ resource: 'x' } as never)).toThrow(
      /InformerResource/,
    );
    env = await startTestEnvironment();
    const init = b.complete(() => () => undefined);
    await expect(
      env.runManager({ customControllers: { 'replicaset-controller': init } }).done,
    ).rejects.toThrow(/names no kube-controller-manager controller/);
    await expect(env.runManager({ customControllers: { Bad_Name: init } }).done).rejects.toThrow(
      /DNS-1123/,
    );
    const errors: string[] = [];
    const cacheless = newControllerManagedBy()
      .for(configMaps)
      .complete((ctx) => () => {
        try {
          ctx.lister(secrets);
        } catch (err) {
          errors.push((err as Error).message);
        }
      });
    await cm('x');
    const m = env.runManager({ customControllers: { cacheless } });
    await env.until(() => errors.length > 0);
    expect(errors[0]).toBe(
      'controller cacheless does not watch secrets: add it with for(), owns() or watches()',
    );
    await m.stop();
  });
});
