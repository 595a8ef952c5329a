// The garbage collector and the namespace controller over HTTPS on
// metadata-only clients, as kube-controller-manager runs them: a sandbox
// API server, @kcm-ts/client's metadata clients (`Accept: ...;as=PartialObjectMetadata`)
// and discovery, real time. Deployment → ReplicaSet → pods are made by hand;
// no workload controller runs.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isNotFound,
  isStatus,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { createClient, newDiscoveryClient, type Client } from '@kcm-ts/client';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { serverPreferredNamespacedResources } from '../src/discovery.js';
import { GarbageCollector } from '../src/garbagecollector/garbage-collector.js';
import { NamespaceController } from '../src/namespace/namespace-controller.js';
import {
  configMap,
  controllerRef,
  deployment,
  pod,
  replicaSet,
} from './garbagecollector/helpers.js';

let sandbox: Sandbox;
let client: Client;
let gc: GarbageCollector;
const abort = new AbortController();
const running: Promise<void>[] = [];
let factory: SharedInformerFactory;

/** Polls `check` every 100 ms until it gives a value; fails after `ms`. */
async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() - start > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function exists(c: ResourceClient, name: string): Promise<boolean> {
  try {
    await c.get(name);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

const uid = (o: KubeObject) => o.metadata?.uid ?? '';

beforeAll(async () => {
  sandbox = await startSandbox({ finishNamespaces: false });
  client = createClient(sandbox.kubeconfigObject);
  const discovery = newDiscoveryClient(sandbox.kubeconfigObject);
  const whole: ResourceClientSource = {
    resource: <T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { namespaced: boolean; kind: string },
    ) => client.resource<T>(gvr, o),
  };
  // The collector through `metadata`, the namespace controller through `metadataOnly`.
  const metadata: ResourceClientSource = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource, o: { namespaced: boolean }) =>
      client.metadata(gvr, { namespaced: o.namespaced }) as unknown as ResourceClient<T>,
  };
  const metadataOnly: ResourceClientSource = {
    resource: <T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { namespaced: boolean; kind: string },
    ) => client.resource<T>(gvr, { ...o, metadataOnly: true }),
  };
  gc = new GarbageCollector({ metadataClient: metadata, discovery });
  factory = new SharedInformerFactory(whole, 0);
  const namespaces = new NamespaceController({
    kubeClient: whole,
    metadataClient: metadataOnly,
    discoverResourcesFn: () => serverPreferredNamespacedResources(discovery),
    namespaceInformer: factory.namespaces(),
  });
  factory.start(abort.signal);
  running.push(gc.run(5, abort.signal), namespaces.run(2, abort.signal));
  await eventually('the graph to sync', () => (gc.isSynced() ? true : undefined));
}, 90_000);

afterAll(async () => {
  abort.abort();
  await Promise.all(running);
  await factory?.shutdown();
  await sandbox?.stop();
}, 90_000);

/** A namespace holding a Deployment that owns a ReplicaSet that owns two pods. */
async function workload(namespace: string) {
  await client.namespaces.create({ metadata: { name: namespace } });
  const deployments = client.resource(
    { group: 'apps', version: 'v1', resource: 'deployments' },
    { namespaced: true, kind: 'Deployment', namespace },
  );
  const replicaSets = client.resource(
    { group: 'apps', version: 'v1', resource: 'replicasets' },
    { namespaced: true, kind: 'ReplicaSet', namespace },
  );
  const pods = client.resource(
    { group: '', version: 'v1', resource: 'pods' },
    { namespaced: true, kind: 'Pod', namespace },
  );
  const d = await deployments.create(deployment('web'));
  const rs = await replicaSets.create(
    replicaSet('web-rs', 'web', [controllerRef(d, 'apps/v1', 'Deployment')]),
  );
  const ps = [
    await pods.create(pod('web-a', [controllerRef(rs, 'apps/v1', 'ReplicaSet')])),
    await pods.create(pod('web-b', [controllerRef(rs, 'apps/v1', 'ReplicaSet')])),
  ];
  await eventually('the workload in the graph', () =>
    [d, rs, ...ps].every((o) => gc.graphHasUID(uid(o))) ? true : undefined,
  );
  return { deployments, replicaSets, pods, d, rs };
}

describe('garbage collector and namespace controller on metadata clients over HTTPS', () => {
  it('knows each object by its monitor’s kind, and collects in background', async () => {
    const { deployments, replicaSets, pods, d } = await workload('background');
    const graph = await gc.debuggingHandler()('/graph', new URLSearchParams({ uid: uid(d) }));
    expect(graph.body).toContain('Deployment.v1.apps/web');
    expect(graph.body).toContain('ReplicaSet.v1.apps/web-rs');
    expect(graph.body).toContain('Pod.v1/web-a');
    expect(graph.body).not.toContain('PartialObjectMetadata');
    await deployments.delete('web');
    await eventually('the pods gone', async () =>
      (await pods.list()).items.length === 0 ? true : undefined,
    );
    expect(await exists(replicaSets, 'web-rs')).toBe(false);
  }, 90_000);

  it('orphans: the ReplicaSet and pods stay, without a reference to the Deployment', async () => {
    const { deployments, replicaSets, pods, rs } = await workload('orphan');
    await deployments.delete('web', { propagationPolicy: 'Orphan' });
    await eventually('the deployment gone', async () =>
      (await exists(deployments, 'web')) ? undefined : true,
    );
    expect((await replicaSets.get('web-rs')).metadata?.ownerReferences ?? []).toEqual([]);
    const left = (await pods.list()).items;
    expect(left.map((p) => p.metadata?.ownerReferences?.[0]?.uid)).toEqual([uid(rs), uid(rs)]);
  }, 90_000);

  it('deletes in foreground: the Deployment goes only after its ReplicaSet and pods', async () => {
    const { deployments, replicaSets, pods } = await workload('foreground');
    const ack = await deployments.delete('web', { propagationPolicy: 'Foreground' });
    expect(isStatus(ack) ? [] : ack.metadata?.finalizers).toContain('foregroundDeletion');
    // It waits with the foregroundDeletion finalizer until its dependents are gone:
    // once it is seen gone, nothing of them may be left (nothing recreates them).
    const left = await eventually('the deployment gone', async () => {
      if (await exists(deployments, 'web')) return undefined;
      return (await pods.list()).items.length + ((await exists(replicaSets, 'web-rs')) ? 1 : 0);
    });
    expect(left).toBe(0);
  }, 90_000);

  it('empties a deleted namespace and finalizes it', async () => {
    const { rs } = await workload('shop');
    await client.configMaps.inNamespace('shop').create(configMap('settings') as ConfigMap);
    await client.namespaces.delete('shop');
    await eventually('the namespace gone', async () =>
      (await exists(client.namespaces, 'shop')) ? undefined : true,
    );
    for (const c of [client.pods, client.replicaSets, client.deployments, client.configMaps]) {
      expect((await c.inNamespace('shop').list()).items).toEqual([]);
    }
    await eventually('the graph updated', () => (gc.graphHasUID(uid(rs)) ? undefined : true));
  }, 90_000);
});
