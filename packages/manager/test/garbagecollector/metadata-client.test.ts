// The garbage collector and the namespace controller on metadata-only
// clients, as the manager runs them: every object they read is a
// `meta.k8s.io/v1` PartialObjectMetadata, so the graph must take each
// object's kind from the resource its monitor watches.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, isStatus, type KubeObject } from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import type { RESTMapping } from '../../src/discovery.js';
import { startNamespaceController, type NSHarness } from '../namespace/helpers.js';
import {
  configMap,
  controllerRef,
  deployment,
  gone,
  pod,
  replicaSet,
  startGC,
  until,
  type GCHarness,
} from './helpers.js';

let h: GCHarness | undefined;
let ns: NSHarness | undefined;
afterEach(async () => {
  await ns?.stop();
  await h?.stop();
  ns = undefined;
  h = undefined;
});

/** A Deployment owning a ReplicaSet owning two pods, all made by hand in `namespace`. */
async function workload(harness: GCHarness, namespace = 'default') {
  const deployments = harness.client('apps', 'deployments', namespace);
  const replicaSets = harness.client('apps', 'replicasets', namespace);
  const pods = harness.client('', 'pods', namespace);
  const d = await deployments.create(deployment('web'));
  const rs = await replicaSets.create(
    replicaSet('web-rs', 'web', [controllerRef(d, 'apps/v1', 'Deployment')]),
  );
  const p1 = await pods.create(pod('web-a', [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
  const p2 = await pods.create(pod('web-b', [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
  await harness.waitForGraph(...[d, rs, p1, p2].map(uid));
  return { deployments, replicaSets, pods, d, rs, p1, p2 };
}

const uid = (o: KubeObject) => o.metadata?.uid ?? '';

const deploymentsMapping: RESTMapping = {
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  namespaced: true,
  singular: 'deployment',
};

describe('GarbageCollector on metadata-only clients', () => {
  it('takes each object’s identity from the resource its monitor watches', async () => {
    h = await startGC({ metadata: true });
    const { d, rs, p1 } = await workload(h);
    const identity = (o: KubeObject) => {
      const { apiVersion, kind, name } = h!.gc.dependencyGraphBuilder.uidToNode.read(
        uid(o),
      )!.identity;
      return `${apiVersion} ${kind} ${name}`;
    };
    expect(identity(d)).toBe('apps/v1 Deployment web');
    expect(identity(rs)).toBe('apps/v1 ReplicaSet web-rs');
    expect(identity(p1)).toBe('v1 Pod web-a');
    // The cache keeps what the metadata client gave, not cut down further.
    const cached = h.gc.dependencyGraphBuilder.cachedObject(deploymentsMapping, 'default', 'web');
    expect(cached?.apiVersion).toBe('meta.k8s.io/v1');
    expect(cached?.kind).toBe('PartialObjectMetadata');
    expect(cached?.metadata?.uid).toBe(uid(d));
    // The debugging graph names the same kinds.
    const graph = await h.gc.debuggingHandler()('/graph', new URLSearchParams({ uid: uid(d) }));
    expect(graph.body).toContain('Deployment.v1.apps/web');
    expect(graph.body).toContain('ReplicaSet.v1.apps/web-rs');
    expect(graph.body).toContain('Pod.v1/web-b');
    expect(graph.body).not.toContain('PartialObjectMetadata');
  });

  it('cuts whole objects down in its caches only when told the client gives them', async () => {
    h = await startGC({ metadata: false });
    const { d } = await workload(h);
    const cached = h.gc.dependencyGraphBuilder.cachedObject(deploymentsMapping, 'default', 'web');
    expect(cached).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: expect.objectContaining({ uid: uid(d), name: 'web' }) as unknown,
    });
  });

  it('background: deletes the ReplicaSet of a deleted Deployment, then its pods', async () => {
    h = await startGC({ metadata: true });
    const { deployments, replicaSets, pods } = await workload(h);
    await deployments.delete('web');
    await until(h.clock, async () => (await pods.list()).items.length === 0, 'pods gone');
    expect(await gone(replicaSets, 'web-rs')).toBe(true);
  });

  it('orphan: removes the references to the Deployment, then its finalizer', async () => {
    h = await startGC({ metadata: true });
    const { deployments, replicaSets, pods, rs } = await workload(h);
    await deployments.delete('web', { propagationPolicy: 'Orphan' });
    await until(h.clock, () => gone(deployments, 'web'), 'deployment gone');
    expect((await replicaSets.get('web-rs')).metadata?.ownerReferences ?? []).toEqual([]);
    const left = (await pods.list()).items;
    expect(left.map((p) => p.metadata?.ownerReferences?.[0]?.uid)).toEqual([uid(rs), uid(rs)]);
  });

  it('foreground: pods first, then the ReplicaSet, the Deployment last', async () => {
    h = await startGC({ metadata: true });
    const { deployments } = await workload(h);
    const order: string[] = [];
    const unsubscribe = h.sandbox.registry.storage.subscribe((e) => {
      if (e.type === 'DELETED') order.push(e.key);
    });
    const ack = await deployments.delete('web', { propagationPolicy: 'Foreground' });
    expect(isStatus(ack) ? [] : ack.metadata?.finalizers).toContain('foregroundDeletion');
    await until(h.clock, () => gone(deployments, 'web'), 'deployment gone');
    unsubscribe();
    expect(order.slice(0, 2).sort()).toEqual(['default/web-a', 'default/web-b']);
    expect(order.slice(2)).toEqual(['default/web-rs', 'default/web']);
  });
});

describe('NamespaceController beside the collector, both on metadata-only clients', () => {
  it('empties a namespace holding a Deployment, its ReplicaSet and pods, and finalizes it', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, finishNamespaces: false });
    h = await startGC({ clock, sandbox, metadata: true });
    ns = await startNamespaceController({ clock, sandbox });
    await ns.namespaces.create({ metadata: { name: 'shop' } });
    const { rs } = await workload(h, 'shop');
    await h.client('', 'configmaps', 'shop').create(configMap('held', [], ['example.com/hold']));
    await ns.namespaces.delete('shop');
    // A finalizer the namespace controller does not own keeps the namespace.
    await ns.until(() => ns!.logged('Content remaining in namespace {"namespace":"shop"'), 'wait');
    expect(await ns.isGone('shop')).toBe(false);
    await h
      .client('', 'configmaps', 'shop')
      .patch('held', { type: 'merge', body: { metadata: { finalizers: null } } });
    await ns.until(() => ns!.isGone('shop'), 'namespace gone');
    for (const [group, resource] of [
      ['', 'pods'],
      ['apps', 'replicasets'],
      ['apps', 'deployments'],
      ['', 'configmaps'],
    ] as const) {
      expect((await h.client(group, resource, 'shop').list()).items).toEqual([]);
    }
    expect(ns.calls.at(-1)).toBe('finalize shop');
    await until(clock, () => !h!.gc.graphHasUID(uid(rs)), 'graph updated');
    await ns.stop();
    await h.stop();
    await sandbox.stop();
  });
});
