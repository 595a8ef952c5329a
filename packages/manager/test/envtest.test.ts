// The test environment: one call gives a sandbox, a client source the
// informer factory takes as it is, one fake clock under everything it makes,
// the fault lab reaching in-process clients, and the manager's run() with
// leader election.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { informerResources } from '@kcm-ts/informer';
import {
  newControllerManagedBy,
  startTestEnvironment,
  type TestEnvironment,
} from '../src/index.js';

const { configMaps, leases } = informerResources;
let env: TestEnvironment | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

describe('startTestEnvironment', () => {
  it('gives an informer factory and queues on its one fake clock', async () => {
    //#region envtest
    env = await startTestEnvironment();
    await env.client<ConfigMap>(configMaps, 'default').create({ metadata: { name: 'a' } });
    const factory = env.informerFactory();
    const cms = factory.configMaps();
    cms.informer();
    const stop = new AbortController();
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal);
    expect(
      cms
        .lister()
        .list()
        .map((c) => c.metadata?.name),
    ).toEqual(['a']);
    //#endregion envtest
    const queue = env.queue<string>('test');
    queue.addAfter('later', 1000);
    await env.step(999);
    expect(queue.len()).toBe(0);
    await env.step(1);
    expect(queue.len()).toBe(1);
    stop.abort();
    queue.shutDown();
    await factory.shutdown();
    await expect(env.step(-1)).rejects.toThrow(RangeError);
  });

  it('applies the fault lab to in-process clients, timed by the fake clock', async () => {
    env = await startTestEnvironment();
    const started = Date.now();
    const cms = env.client<ConfigMap>(configMaps, 'default');
    env.faults.failNext(2, { code: 500 }, { verbs: ['list'], resource: 'configmaps' });
    await expect(cms.list()).rejects.toMatchObject({ code: 500 });

    // An informer meets the second failure, backs off on the fake clock, and syncs.
    const factory = env.informerFactory();
    const informer = factory.configMaps().informer();
    const stop = new AbortController();
    factory.start(stop.signal);
    await env.until(() => informer.hasSynced());
    expect(env.faults.counts()['list configmaps']).toBe(3);

    // A dropped in-process watch is watched again.
    await env.until(() => (env!.faults.counts()['watch configmaps'] ?? 0) >= 1);
    expect(env.faults.dropWatches('configmaps')).toBe(1);
    await env.until(() => (env!.faults.counts()['watch configmaps'] ?? 0) >= 2);
    await cms.create({ metadata: { name: 'after-drop' } });
    await env.until(() => informer.getStore().getByKey('default/after-drop') !== undefined);

    // Latency is waited out on the fake clock.
    env.faults.latency(5000, { verbs: ['get'] });
    let got = false;
    void cms.get('after-drop').then(() => (got = true));
    await env.step(4990);
    expect(got).toBe(false);
    await env.step(20);
    expect(got).toBe(true);
    env.faults.clear();
    stop.abort();
    await factory.shutdown();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('runs the manager with leader election and a built controller', async () => {
    env = await startTestEnvironment();
    const seen: string[] = [];
    const c = newControllerManagedBy()
      .for(configMaps)
      .complete(() => (req) => void seen.push(req.name));
    const manager = env.runManager({ leaderElect: true, customControllers: { c } });
    await env.client<ConfigMap>(configMaps, 'default').create({ metadata: { name: 'x' } });
    await env.until(() => seen.includes('x'));
    const lease = await env.client<Lease>(leases, 'kube-system').get('kube-controller-manager');
    expect(lease.spec?.holderIdentity).toBe('manager');
    await manager.stop();
    // Released on a clean stop.
    const after = await env.client<Lease>(leases, 'kube-system').get('kube-controller-manager');
    expect(after.spec?.holderIdentity ?? '').toBe('');
  });

  it('steps by the tick it is given, and waits for a healthy API server', async () => {
    env = await startTestEnvironment({ tick: 100 });
    const e = env;
    const start = e.clock.now();
    let checks = 0;
    await e.until(() => ++checks === 3);
    // Two steps between three checks, 100 ms each.
    expect(e.clock.now() - start).toBe(200);
    await e.step(250);
    expect(e.clock.now() - start).toBe(450);
    await expect(startTestEnvironment({ tick: 0 })).rejects.toThrow(RangeError);

    const healthzAsked: number[] = [];
    const manager = e.runManager({
      healthz: () => {
        healthzAsked.push(e.clock.now() - start);
        return healthzAsked.length < 3
          ? Promise.reject(new Error('[-]etcd failed'))
          : Promise.resolve();
      },
    });
    await e.until(() => manager.started() !== undefined);
    // Polled once a second until it answers ok; only then do controllers start.
    expect(healthzAsked).toHaveLength(3);
    expect(healthzAsked[2]! - healthzAsked[0]!).toBe(2000);
  });
});
