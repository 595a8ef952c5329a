// The garbage collector (garbagecollector.go) against the sandbox: the
// deletion policies and the reference cases of garbagecollector_test.go.
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeClock,
  isStatus,
  newConflict,
  optimisticLockErrorMsg,
  type GetOptions,
  type GroupVersionResource,
  type KubeObject,
  type Patch,
  type PatchOptions,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  configMap,
  controllerRef,
  deployment,
  gone,
  ownerRef,
  pod,
  replicaSet,
  sandboxSource,
  startGC,
  TestDiscovery,
  until,
  type GCHarness,
} from './helpers.js';

let h: GCHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** A Deployment, a ReplicaSet it controls and two pods the ReplicaSet controls, made by hand. */
async function workload(harness: GCHarness, name = 'web') {
  const deployments = harness.client('apps', 'deployments');
  const replicaSets = harness.client('apps', 'replicasets');
  const pods = harness.client('', 'pods');
  const d = await deployments.create(deployment(name));
  const rs = await replicaSets.create(
    replicaSet(`${name}-rs`, name, [controllerRef(d, 'apps/v1', 'Deployment')]),
  );
  const p1 = await pods.create(pod(`${name}-a`, [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
  const p2 = await pods.create(pod(`${name}-b`, [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
  await harness.waitForGraph(...[d, rs, p1, p2].map((o) => o.metadata?.uid ?? ''));
  return { deployments, replicaSets, pods, d, rs, p1, p2 };
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata?.name).sort();

describe('GarbageCollector', () => {
  it('deletes a deleted Deployment’s ReplicaSet, then its pods (background)', async () => {
    h = await startGC();
    const { deployments, replicaSets, pods, rs } = await workload(h);
    await deployments.delete('web');
    await until(h.clock, async () => (await pods.list()).items.length === 0, 'pods gone');
    expect(await gone(replicaSets, 'web-rs')).toBe(true);
    expect(h.gc.graphHasUID(rs.metadata?.uid ?? '')).toBe(false);
  });

  it('orphans: removes the owner reference from dependents, then the finalizer', async () => {
    h = await startGC();
    const { deployments, replicaSets, pods, d } = await workload(h);
    await deployments.delete('web', { propagationPolicy: 'Orphan' });
    await until(h.clock, () => gone(deployments, 'web'), 'deployment gone');
    const rs = await replicaSets.get('web-rs');
    expect(rs.metadata?.ownerReferences ?? []).toEqual([]);
    const left = (await pods.list()).items;
    expect(names(left)).toEqual(['web-a', 'web-b']);
    // The pods keep their own owner: only references to the orphaning owner go.
    for (const p of left) expect(p.metadata?.ownerReferences?.[0]?.uid).toBe(rs.metadata?.uid);
    expect(d.metadata?.uid).toBeTruthy();
  });

  it('deletes in foreground: dependents first, their dependents before them, the owner last', async () => {
    h = await startGC();
    const { deployments, replicaSets, pods } = await workload(h);
    const order: string[] = [];
    const unsubscribe = h.sandbox.registry.storage.subscribe((e) => {
      if (e.type === 'DELETED') order.push(e.key);
    });
    const ack = await deployments.delete('web', { propagationPolicy: 'Foreground' });
    expect(isStatus(ack) ? [] : ack.metadata?.finalizers).toContain('foregroundDeletion');
    await until(h.clock, () => gone(deployments, 'web'), 'deployment gone');
    unsubscribe();
    expect(await gone(replicaSets, 'web-rs')).toBe(true);
    expect((await pods.list()).items).toEqual([]);
    expect(order.slice(0, 2).sort()).toEqual(['default/web-a', 'default/web-b']);
    expect(order.slice(2)).toEqual(['default/web-rs', 'default/web']);
  });

  it('deletes a dependent in foreground when it has dependents of its own', async () => {
    h = await startGC();
    const { deployments } = await workload(h);
    const rsFinalizers: string[][] = [];
    const unsubscribe = h.sandbox.registry.storage.subscribe((e) => {
      if (e.key === 'default/web-rs' && e.type === 'MODIFIED') {
        rsFinalizers.push(e.object.metadata?.finalizers ?? []);
      }
    });
    await deployments.delete('web', { propagationPolicy: 'Foreground' });
    await until(h.clock, () => gone(deployments, 'web'), 'deployment gone');
    unsubscribe();
    expect(rsFinalizers).toContainEqual(['foregroundDeletion']);
  });

  it('waits in foreground only for dependents with blockOwnerDeletion', async () => {
    h = await startGC();
    const cms = h.client('', 'configmaps');
    const owner = await cms.create(configMap('owner'));
    const hold = ['example.com/hold'];
    const blocking = await cms.create(
      configMap(
        'blocking',
        [ownerRef(owner, 'v1', 'ConfigMap', { blockOwnerDeletion: true })],
        hold,
      ),
    );
    const free = await cms.create(
      configMap('free', [ownerRef(owner, 'v1', 'ConfigMap', { blockOwnerDeletion: false })], hold),
    );
    await h.waitForGraph(...[owner, blocking, free].map((o) => o.metadata?.uid ?? ''));
    await cms.delete('owner', { propagationPolicy: 'Foreground' });
    const terminating = async (name: string) =>
      (await cms.get(name)).metadata?.deletionTimestamp !== undefined;
    await until(
      h.clock,
      async () => (await terminating('blocking')) && (await terminating('free')),
      'dependents deleted',
    );
    // Both dependents are being deleted, held by their finalizer; the owner waits for the blocking one.
    await h.clock.advance(5_000);
    expect((await cms.get('owner')).metadata?.finalizers).toEqual(['foregroundDeletion']);
    await cms.patch('blocking', { type: 'merge', body: { metadata: { finalizers: null } } });
    await until(h.clock, () => gone(cms, 'owner'), 'owner gone');
    // The non-blocking dependent is still held: the owner did not wait for it.
    expect(await terminating('free')).toBe(true);
    await cms.patch('free', { type: 'merge', body: { metadata: { finalizers: null } } });
    await until(h.clock, () => gone(cms, 'free'), 'free gone');
  });

  it('deletes a dependent whose owner was deleted before the collector saw it', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const cms = sandbox.client('', 'configmaps').inNamespace('default');
    const owner = await cms.create(configMap('owner'));
    await cms.create(configMap('dependent', [ownerRef(owner, 'v1', 'ConfigMap')]));
    await cms.create(configMap('bystander'));
    await cms.delete('owner');
    h = await startGC({ clock, sandbox });
    await until(h.clock, () => gone(cms, 'dependent'), 'dependent gone');
    expect(await gone(cms, 'bystander')).toBe(false);
    expect(h.gc.graphHasUID(owner.metadata?.uid ?? '')).toBe(false);
    await h.stop();
    await sandbox.stop();
  });

  it('asks the API server once about an owner many dependents name (absent-owner cache)', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const cms = sandbox.client('', 'configmaps').inNamespace('default');
    const owner = await cms.create(configMap('owner'));
    for (const name of ['d1', 'd2', 'd3', 'd4']) {
      await cms.create(configMap(name, [ownerRef(owner, 'v1', 'ConfigMap')]));
    }
    await cms.delete('owner');
    const gets: string[] = [];
    const source = sandboxSource(sandbox);
    const counting = {
      resource: <T extends KubeObject>(
        gvr: GroupVersionResource,
        opts: { namespaced: boolean; kind: string },
      ) => {
        const wrap = (c: ResourceClient<T>): ResourceClient<T> =>
          new Proxy(c, {
            get(target, prop, receiver) {
              if (prop === 'get') {
                return (name: string, o?: GetOptions) => {
                  gets.push(`${gvr.resource}/${name}`);
                  return target.get(name, o);
                };
              }
              if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns));
              return Reflect.get(target, prop, receiver) as unknown;
            },
          });
        return wrap(source.resource<T>(gvr, opts));
      },
    };
    h = await startGC({ clock, sandbox, metadataClient: counting });
    await until(h.clock, async () => (await cms.list()).items.length === 0, 'dependents gone');
    expect(gets.filter((g) => g === 'configmaps/owner')).toHaveLength(1);
    await h.stop();
    await sandbox.stop();
  });

  it('treats an owner with the same name but another uid as absent', async () => {
    h = await startGC();
    const deployments = h.client('apps', 'deployments');
    const pods = h.client('', 'pods');
    const d = await deployments.create(deployment('web'));
    const impostor = { ...controllerRef(d, 'apps/v1', 'Deployment'), uid: 'not-the-uid' };
    const p = await pods.create(pod('orphan-pod', [impostor]));
    await until(h.clock, () => gone(pods, 'orphan-pod'), 'pod gone');
    expect((await deployments.get('web')).metadata?.resourceVersion).toBe(
      d.metadata?.resourceVersion,
    );
    expect(h.gc.graphHasUID('not-the-uid')).toBe(false);
    expect(p.metadata?.uid).toBeTruthy();
  });

  it('treats an owner in another namespace as absent and records OwnerRefInvalidNamespace', async () => {
    h = await startGC();
    await h.client('', 'namespaces', '').create({ metadata: { name: 'other' } });
    const otherCms = h.client('', 'configmaps', 'other');
    const owner = await otherCms.create(configMap('owner'));
    await h.waitForGraph(owner.metadata?.uid ?? '');
    const pods = h.client('', 'pods');
    await pods.create(pod('cross', [ownerRef(owner, 'v1', 'ConfigMap')]));
    await until(h.clock, () => gone(pods, 'cross'), 'pod gone');
    expect(h.recorder.events).toContain(
      `Warning OwnerRefInvalidNamespace ownerRef [v1/ConfigMap, namespace: default, name: owner, uid: ${owner.metadata?.uid}] does not exist in namespace "default"`,
    );
    expect((await otherCms.get('owner')).metadata?.resourceVersion).toBe(
      owner.metadata?.resourceVersion,
    );
  });

  it('removes only the dangling reference of a dependent with a surviving owner', async () => {
    h = await startGC();
    const cms = h.client('', 'configmaps');
    const keep = await cms.create(configMap('keep'));
    const lose = await cms.create(configMap('lose'));
    const refs = [
      ownerRef(keep, 'v1', 'ConfigMap'),
      ownerRef(lose, 'v1', 'ConfigMap', { blockOwnerDeletion: true }),
    ];
    const dep = await cms.create(configMap('dep', refs));
    await h.waitForGraph(...[keep, lose, dep].map((o) => o.metadata?.uid ?? ''));
    await cms.delete('lose');
    await until(
      h.clock,
      async () => (await cms.get('dep')).metadata?.ownerReferences?.length === 1,
      'reference removed',
    );
    expect((await cms.get('dep')).metadata?.ownerReferences).toEqual([refs[0]]);
    await h.clock.advance(2_000);
    expect(await gone(cms, 'dep')).toBe(false);
  });

  it('deletes namespaced dependents of a cluster-scoped owner, and leaves a cluster-scoped object naming a namespaced owner', async () => {
    h = await startGC();
    const namespaces = h.client('', 'namespaces', '');
    const ns = await namespaces.create({ metadata: { name: 'owner-ns' } });
    const cms = h.client('', 'configmaps');
    await cms.create(configMap('owned-by-ns', [ownerRef(ns, 'v1', 'Namespace')]));
    const wrong = await namespaces.create({
      metadata: {
        name: 'wrong',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: 'nope' }],
      },
    });
    await h.waitForGraph(ns.metadata?.uid ?? '', wrong.metadata?.uid ?? '');
    await namespaces.delete('owner-ns');
    await until(h.clock, () => gone(cms, 'owned-by-ns'), 'configmap gone');
    await h.clock.advance(5_000);
    expect((await namespaces.get('wrong')).metadata?.deletionTimestamp).toBeUndefined();
  });

  it('retries orphaning when a dependent cannot be patched', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const source = sandboxSource(sandbox);
    let failures = 2;
    const flaky = {
      resource: <T extends KubeObject>(
        gvr: GroupVersionResource,
        opts: { namespaced: boolean; kind: string },
      ) => {
        const wrap = (c: ResourceClient<T>): ResourceClient<T> =>
          new Proxy(c, {
            get(target, prop, receiver) {
              if (prop === 'patch' && gvr.resource === 'pods') {
                return (name: string, p: Patch, o?: PatchOptions) => {
                  if (failures-- > 0) {
                    return Promise.reject(
                      newConflict({ group: '', resource: 'pods' }, name, optimisticLockErrorMsg),
                    );
                  }
                  return target.patch(name, p, o);
                };
              }
              if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns));
              return Reflect.get(target, prop, receiver) as unknown;
            },
          });
        return wrap(source.resource<T>(gvr, opts));
      },
    };
    h = await startGC({ clock, sandbox, metadataClient: flaky });
    const { deployments, replicaSets, pods } = await workload(h);
    await replicaSets.delete('web-rs', { propagationPolicy: 'Orphan' });
    await until(h.clock, () => gone(replicaSets, 'web-rs'), 'replicaset gone');
    expect(failures).toBeLessThan(0);
    for (const p of (await pods.list()).items)
      expect(p.metadata?.ownerReferences ?? []).toEqual([]);
    expect(
      h.logger.lines.some((l) => l.includes('orphanDependents for') && l.includes('failed with')),
    ).toBe(true);
    expect(await gone(deployments, 'web')).toBe(false);
    await h.stop();
    await sandbox.stop();
  });
});

describe('GarbageCollector lifecycle', () => {
  it('monitors every deletable resource but events, and picks up new ones at the next sync', async () => {
    const discovery = new TestDiscovery();
    const all = discovery.lists;
    discovery.lists = all
      .map((l) => ({ ...l, resources: l.resources.filter((r) => r.name !== 'configmaps') }))
      .filter((l) => l.resources.length > 0);
    h = await startGC({ discovery });
    const monitored = () => h!.gc.dependencyGraphBuilder.monitoredResources().sort();
    expect(monitored()).toEqual([
      '/v1/endpoints',
      '/v1/namespaces',
      '/v1/nodes',
      '/v1/persistentvolumeclaims',
      '/v1/persistentvolumes',
      '/v1/pods',
      '/v1/replicationcontrollers',
      '/v1/secrets',
      '/v1/serviceaccounts',
      '/v1/services',
      'apps/v1/controllerrevisions',
      'apps/v1/daemonsets',
      'apps/v1/deployments',
      'apps/v1/replicasets',
      'apps/v1/statefulsets',
      'batch/v1/cronjobs',
      'batch/v1/jobs',
      'coordination.k8s.io/v1/leases',
      'discovery.k8s.io/v1/endpointslices',
      'policy/v1/poddisruptionbudgets',
      'rbac.authorization.k8s.io/v1/clusterrolebindings',
      'rbac.authorization.k8s.io/v1/clusterroles',
      'rbac.authorization.k8s.io/v1/rolebindings',
      'rbac.authorization.k8s.io/v1/roles',
      'storage.k8s.io/v1/storageclasses',
    ]);
    const cms = h.client('', 'configmaps');
    const owner = await cms.create(configMap('owner'));
    const dep = await cms.create(configMap('dep', [ownerRef(owner, 'v1', 'ConfigMap')]));
    await h.clock.advance(1_000);
    expect(h.gc.graphHasUID(dep.metadata?.uid ?? '')).toBe(false);
    discovery.lists = all;
    await until(h.clock, () => h!.gc.graphHasUID(dep.metadata?.uid ?? ''), 'configmaps monitored', {
      step: 1_000,
      maxSteps: 60,
    });
    expect(monitored()).toContain('/v1/configmaps');
    await cms.delete('owner');
    await until(h.clock, () => gone(cms, 'dep'), 'dependent gone');
  });

  it('keeps monitoring through a failed discovery and drops resources no longer served', async () => {
    const discovery = new TestDiscovery();
    h = await startGC({ discovery });
    const before = h.gc.dependencyGraphBuilder.monitoredResources().length;
    discovery.error = new Error('discovery is down');
    await h.clock.advance(31_000);
    expect(h.gc.dependencyGraphBuilder.monitoredResources()).toHaveLength(before);
    discovery.error = undefined;
    discovery.lists = discovery.lists.filter((l) => l.groupVersion !== 'coordination.k8s.io/v1');
    await until(
      h.clock,
      () =>
        !h!.gc.dependencyGraphBuilder
          .monitoredResources()
          .includes('coordination.k8s.io/v1/leases'),
      'leases dropped',
      { step: 1_000, maxSteps: 60 },
    );
    expect(h.gc.dependencyGraphBuilder.monitoredResources()).toHaveLength(before - 1);
  });

  it('resolves run only when everything has stopped, leaving no timers', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const idle = clock.waiterCount();
    h = await startGC({ clock, sandbox });
    const { pods } = await workload(h);
    await pods.delete('web-a');
    await h.clock.advance(1_000);
    await h.stop();
    expect(clock.waiterCount()).toBe(idle);
    await sandbox.stop();
  });

  it('monitors through a shared informer factory, leaving its informers to their owner', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
    const pods = factory.pods().informer();
    const abort = new AbortController();
    factory.start(abort.signal);
    h = await startGC({ clock, sandbox, informerFactory: factory });
    const { deployments, replicaSets } = await workload(h);
    // The collector's graph and the program share one cache: full objects here.
    expect(pods.getStore().list()[0]).toHaveProperty('spec');
    await deployments.delete('web');
    await until(h.clock, () => gone(replicaSets, 'web-rs'), 'replicaset gone');
    await until(
      h.clock,
      async () => (await h!.client('', 'pods').list()).items.length === 0,
      'pods gone',
    );
    await h.stop();
    // Still running for the program after the collector stopped.
    expect(pods.isStopped()).toBe(false);
    abort.abort();
    await factory.shutdown();
    expect(pods.isStopped()).toBe(true);
    await sandbox.stop();
  });
});
