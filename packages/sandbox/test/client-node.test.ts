// The sandbox through the real @kubernetes/client-node, over HTTPS with the
// sandbox's CA and token, as a Node controller would use it.
import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';

let sandbox: Sandbox;
let kc: k8s.KubeConfig;

beforeEach(async () => {
  sandbox = await startSandbox();
  kc = new k8s.KubeConfig();
  kc.loadFromString(sandbox.kubeconfig);
});

afterEach(async () => {
  await sandbox.stop();
});

function deployment(name: string): k8s.V1Deployment {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
      },
    },
  };
}

describe('@kubernetes/client-node against the sandbox', () => {
  it('creates, reads, lists with selectors and pages', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    for (const [name, tier] of [
      ['a', 'web'],
      ['b', 'db'],
      ['c', 'web'],
    ]) {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name, labels: { tier: tier ?? '' } }, data: { k: 'v' } },
      });
    }
    const a = await core.readNamespacedConfigMap({ name: 'a', namespace: 'default' });
    expect(a.data).toEqual({ k: 'v' });
    expect(a.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const web = await core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'tier=web',
    });
    expect(web.items.map((i) => i.metadata?.name)).toEqual(['a', 'c']);
    const page1 = await core.listNamespacedConfigMap({ namespace: 'default', limit: 2 });
    expect(page1.items).toHaveLength(2);
    const page2 = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      _continue: page1.metadata?._continue ?? '',
    });
    expect(page2.items.map((i) => i.metadata?.name)).toEqual(['c']);
  });

  it('surfaces Status errors as ApiException with the code and body', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'a' }, data: { k: '1' } },
    });
    await core.replaceNamespacedConfigMap({
      name: 'a',
      namespace: 'default',
      body: { ...created, data: { k: '2' } },
    });
    const stale = await core
      .replaceNamespacedConfigMap({
        name: 'a',
        namespace: 'default',
        body: { ...created, data: { k: '3' } },
      })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(k8s.ApiException);
    const err = stale as k8s.ApiException<string>;
    expect(err.code).toBe(409);
    expect(JSON.parse(err.body)).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    const missing = (await core
      .readNamespacedConfigMap({ name: 'nope', namespace: 'default' })
      .catch((e: unknown) => e)) as k8s.ApiException<string>;
    expect(missing.code).toBe(404);
    expect(JSON.parse(missing.body).message).toBe('configmaps "nope" not found');
  });

  it('patches a Deployment with each content type and scales it', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web') });
    const merged = await apps.patchNamespacedDeployment(
      { name: 'web', namespace: 'default', body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(merged.spec?.replicas).toBe(3);
    expect(merged.metadata?.generation).toBe(2);
    const json = await apps.patchNamespacedDeployment({
      name: 'web',
      namespace: 'default',
      body: [{ op: 'add', path: '/spec/paused', value: true }],
    });
    expect(json.spec?.paused).toBe(true);
    const strategic = await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: 'default',
        body: {
          spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.spec?.template.spec?.containers.map((c) => [c.name, c.image])).toEqual([
      ['c', 'nginx:1.28'],
    ]);
    const scale = await apps.patchNamespacedDeploymentScale(
      { name: 'web', namespace: 'default', body: { spec: { replicas: 5 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(scale.spec?.replicas).toBe(5);
    const status = await apps.replaceNamespacedDeploymentStatus({
      name: 'web',
      namespace: 'default',
      body: {
        ...(await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })),
        status: { observedGeneration: 5, replicas: 5 },
      },
    });
    expect(status.status?.replicas).toBe(5);
  });

  it('deletes with a propagation policy in the query, leaving a finalizer for the garbage collector', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web') });
    await apps.deleteNamespacedDeployment({
      name: 'web',
      namespace: 'default',
      propagationPolicy: 'Foreground',
    });
    // client-node reads the answer as a Status; the object itself shows what the server did.
    const out = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(out.metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect(out.metadata?.deletionTimestamp).toBeInstanceOf(Date);
  });

  it('binds a pod to a node through pods/binding, as a scheduler does', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    });
    await core.createNamespacedPodBinding({
      name: 'p',
      namespace: 'default',
      body: { metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' } },
    });
    const bound = await core.readNamespacedPod({ name: 'p', namespace: 'default' });
    expect(bound.spec?.nodeName).toBe('node-1');
    expect(bound.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['PodScheduled', 'True'],
    ]);
    const again = (await core
      .createNamespacedPodBinding({
        name: 'p',
        namespace: 'default',
        body: { metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-2' } },
      })
      .catch((e: unknown) => e)) as k8s.ApiException<string>;
    expect(again.code).toBe(409);
  });

  it("feeds client-node's informer: list, then watch from the list's resourceVersion", async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'before' } },
    });
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      informer.on('add', (obj) => {
        seen.push(`add ${obj.metadata?.name}`);
        if (obj.metadata?.name === 'after') resolve();
      });
    });
    await informer.start();
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after' } },
    });
    await done;
    await informer.stop();
    expect(seen).toEqual(['add before', 'add after']);
  });

  it('delivers a watch ERROR 410 to client-node when the resourceVersion was compacted', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'x' } },
    });
    sandbox.registry.storage.compact();
    const watch = new k8s.Watch(kc);
    const events: { type: string; code?: number }[] = [];
    await new Promise<void>((resolve, reject) => {
      watch
        .watch(
          '/api/v1/namespaces/default/configmaps',
          { resourceVersion: list.metadata?.resourceVersion },
          (type, obj: { code?: number }) => events.push({ type, code: obj.code }),
          () => resolve(),
        )
        .catch(reject);
    });
    expect(events).toEqual([{ type: 'ERROR', code: 410 }]);
  });
});
