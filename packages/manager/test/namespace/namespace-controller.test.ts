// The namespace controller (namespace_controller.go and
// deletion/namespaced_resources_deleter.go) against a sandbox that leaves a
// deleted namespace Terminating with its `kubernetes` finalizer.
import type { Namespace, NamespaceCondition } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeClock,
  newConflict,
  newInternalError,
  optimisticLockErrorMsg,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import { GroupDiscoveryFailedError } from '@kcm-ts/apimachinery';
import { ResourcesRemainingError } from '../../src/namespace/namespaced-resources-deleter.js';
import {
  configMap,
  deployment,
  pod,
  replicaSet,
  controllerRef,
} from '../garbagecollector/helpers.js';
import { TestDiscovery, startGC } from '../garbagecollector/helpers.js';
import { startNamespaceController, type NSHarness } from './helpers.js';

/** Creates a namespace as a user would; the API server adds the `kubernetes` finalizer. */
async function makeNamespace(harness: NSHarness, name: string): Promise<void> {
  await harness.namespaces.create({ metadata: { name } });
}

let h: NSHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** type=status reason: message, for each condition. */
function conditions(ns: Namespace): string[] {
  return (ns.status?.conditions ?? []).map(
    (c: NamespaceCondition) => `${c.type}=${c.status} ${c.reason}: ${c.message}`,
  );
}

const allWell = [
  'NamespaceDeletionDiscoveryFailure=False ResourcesDiscovered: All resources successfully discovered',
  'NamespaceDeletionGroupVersionParsingFailure=False ParsedGroupVersions: All legacy kube types successfully parsed',
  'NamespaceDeletionContentFailure=False ContentDeleted: All content successfully deleted, may be waiting on finalization',
  'NamespaceContentRemaining=False ContentRemoved: All content successfully removed',
  'NamespaceFinalizersRemaining=False ContentHasNoFinalizers: All content-preserving finalizers finished',
];

/** Every change the store made to the namespace, oldest first. */
function history(harness: NSHarness, name: string): { type: string; ns: Namespace }[] {
  const seen: { type: string; ns: Namespace }[] = [];
  harness.sandbox.registry.storage.subscribe((e) => {
    if (e.storage === 'namespaces' && e.key === name) {
      seen.push({ type: e.type, ns: structuredClone(e.object) as Namespace });
    }
  });
  return seen;
}

describe('NamespaceController', () => {
  it('empties a deleted namespace of pods, configmaps and a deployment, then finalizes it', async () => {
    h = await startNamespaceController();
    await makeNamespace(h, 'demo');
    const d = await h.client('apps', 'deployments', 'demo').create(deployment('web'));
    const rs = await h
      .client('apps', 'replicasets', 'demo')
      .create(replicaSet('web-rs', 'web', [controllerRef(d, 'apps/v1', 'Deployment')]));
    await h
      .client('', 'pods', 'demo')
      .create(pod('web-a', [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
    await h.client('', 'configmaps', 'demo').create(configMap('settings'));
    await h.client('', 'configmaps', 'default').create(configMap('elsewhere'));
    const changes = history(h, 'demo');

    await h.namespaces.delete('demo');
    const terminating = await h.namespaces.get('demo');
    expect(terminating.status?.phase).toBe('Terminating');
    expect(terminating.spec?.finalizers).toEqual(['kubernetes']);
    // Nothing happens during the grace period.
    await h.clock.advance(4_000);
    expect(h.calls).toEqual([]);

    await h.until(() => h!.isGone('demo'), 'namespace gone');
    for (const r of ['pods', 'configmaps', 'deployments', 'replicasets', 'leases', 'secrets']) {
      expect(h.calls).toContain(`deletecollection ${r}`);
    }
    expect(h.calls.at(-1)).toBe('finalize demo');
    // The status writes kept it; only the finalize, last, let the API server remove it.
    expect(changes.map((c) => c.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(changes[0]?.ns.metadata?.deletionTimestamp).toBeDefined();
    expect(conditions(changes[1]!.ns)).toEqual(allWell);
    expect(changes[2]?.ns.spec?.finalizers).toEqual([]);
    expect((await h.client('', 'configmaps', 'default').list()).items).toHaveLength(1);
  });

  it('reports content held by a finalizer, waits, and finishes once it is released', async () => {
    h = await startNamespaceController();
    await makeNamespace(h, 'held');
    const cms = h.client('', 'configmaps', 'held');
    await cms.create(configMap('kept', [], ['example.com/hold']));
    await cms.create(configMap('plain'));
    await h.namespaces.delete('held');
    await h.until(
      async () => conditions(await h!.namespaces.get('held')).length === 5,
      'conditions',
    );
    expect(conditions(await h.namespaces.get('held'))).toEqual([
      allWell[0],
      allWell[1],
      allWell[2],
      'NamespaceContentRemaining=True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances',
      'NamespaceFinalizersRemaining=True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    ]);
    // The finalizer estimate is 15 s: the namespace is looked at again after 15/2+1 = 8 s.
    await h.until(
      () => h!.logged('Content remaining in namespace {"namespace":"held","waitSeconds":8}'),
      'requeue',
    );
    await h.clock.advance(60_000);
    expect((await h.namespaces.get('held')).spec?.finalizers).toEqual(['kubernetes']);
    expect((await cms.list()).items.map((o) => o.metadata?.name)).toEqual(['kept']);

    await cms.patch('kept', { type: 'merge', body: { metadata: { finalizers: null } } });
    await h.until(() => h!.isGone('held'), 'namespace gone');
    expect(h.calls.at(-1)).toBe('finalize held');
  });

  it('waits out the pods’ grace period, then reports pods that did not go', async () => {
    h = await startNamespaceController();
    await makeNamespace(h, 'grace');
    const pods = h.client('', 'pods', 'grace');
    // A pod on a node has a graceful deletion that only its kubelet finishes.
    await pods.create({
      ...pod('slow'),
      spec: { nodeName: 'node-x', containers: [{ name: 'c', image: 'nginx' }] },
    } as KubeObject);
    await h.namespaces.delete('grace');
    await h.until(
      () => h!.logged('Content remaining in namespace {"namespace":"grace","waitSeconds":16}'),
      'requeue after the pods’ estimate',
    );
    expect(conditions(await h.namespaces.get('grace'))).toContain(
      'NamespaceContentRemaining=True SomeResourcesRemain: Some resources are remaining: pods. has 1 resource instances',
    );
    // After 30 s the estimate is spent, and a pod still there is a failure.
    await h.until(
      async () =>
        conditions(await h!.namespaces.get('grace')).includes(
          'NamespaceDeletionContentFailure=True ContentDeletionFailed: Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: grace for gvr: /v1, Resource=pods',
        ),
      'content failure',
    );
    expect((await h.namespaces.get('grace')).spec?.finalizers).toEqual(['kubernetes']);
    // The kubelet's part: the pod goes; the namespace follows.
    await pods.delete('slow', { gracePeriodSeconds: 0 });
    await h.until(() => h!.isGone('grace'), 'namespace gone');
  });

  it('lists and deletes each object when the server answers deletecollection with 405', async () => {
    const h1 = await startNamespaceController({ refuseCollections: ['configmaps'] });
    h = h1;
    await makeNamespace(h1, 'one-by-one');
    const cms = h1.client('', 'configmaps', 'one-by-one');
    for (const n of ['a', 'b', 'c']) await cms.create(configMap(n));
    await h1.client('', 'secrets', 'one-by-one').create({ metadata: { name: 's' } });
    await h1.namespaces.delete('one-by-one');
    await h1.until(() => h1.isGone('one-by-one'), 'namespace gone');
    const configMapCalls = h1.calls.filter((c) => c.includes('configmaps'));
    expect(configMapCalls).toEqual([
      'deletecollection configmaps',
      'delete configmaps/a',
      'delete configmaps/b',
      'delete configmaps/c',
    ]);
    // Other resources still go by collection.
    expect(h1.calls).toContain('deletecollection secrets');
    expect(h1.calls).not.toContain('delete secrets/s');
  });

  it('does not ask for deletecollection where discovery does not list it', async () => {
    const discovery = new TestDiscovery();
    for (const list of discovery.lists) {
      for (const r of list.resources) {
        if (r.name === 'configmaps') r.verbs = r.verbs.filter((v) => v !== 'deletecollection');
      }
    }
    h = await startNamespaceController({ discovery });
    await makeNamespace(h, 'verbs');
    await h.client('', 'configmaps', 'verbs').create(configMap('x'));
    await h.namespaces.delete('verbs');
    await h.until(() => h!.isGone('verbs'), 'namespace gone');
    expect(h.calls).toContain('delete configmaps/x');
    expect(h.calls).not.toContain('deletecollection configmaps');
    expect(h.calls).toContain('deletecollection secrets');
  });

  it('records a discovery failure in the conditions and finishes once discovery recovers', async () => {
    h = await startNamespaceController();
    await makeNamespace(h, 'disc');
    await h.client('', 'configmaps', 'disc').create(configMap('x'));
    h.discovery.error = new GroupDiscoveryFailedError(
      new Map([
        [
          'metrics.k8s.io/v1beta1',
          new Error('the server is currently unable to handle the request'),
        ],
      ]),
      h.discovery.lists,
    );
    await h.namespaces.delete('disc');
    await h.until(
      async () => conditions(await h!.namespaces.get('disc')).length === 5,
      'conditions',
    );
    expect(conditions(await h.namespaces.get('disc'))[0]).toBe(
      'NamespaceDeletionDiscoveryFailure=True DiscoveryFailed: Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
    );
    // What could be discovered was emptied; the failure keeps the namespace.
    expect((await h.client('', 'configmaps', 'disc').list()).items).toEqual([]);
    expect((await h.namespaces.get('disc')).spec?.finalizers).toEqual(['kubernetes']);
    expect(h.calls).not.toContain('finalize disc');
    h.discovery.error = undefined;
    await h.until(() => h!.isGone('disc'), 'namespace gone');
  });

  it('finalizes through namespaces/{name}/finalize, removing only its own token', async () => {
    h = await startNamespaceController();
    await h.namespaces.create({
      metadata: { name: 'shared' },
      spec: { finalizers: ['example.com/other', 'kubernetes'] },
    });
    await h.namespaces.delete('shared');
    await h.until(() => h!.calls.includes('finalize shared'), 'finalize');
    // The other token's owner finishes the namespace; until then it stays.
    expect((await h.namespaces.get('shared')).spec?.finalizers).toEqual(['example.com/other']);
    const ns = await h.namespaces.get('shared');
    await h.namespaces.update({ ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
    expect(await h.isGone('shared')).toBe(true);
  });

  it('uses a given finalizeNamespace, re-reading after a conflict and retrying after a failure', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, finishNamespaces: false });
    const namespaces = sandbox.client<Namespace>('', 'namespaces');
    const answers = ['conflict', 'failure'];
    let tries = 0;
    h = await startNamespaceController({
      clock,
      sandbox,
      finalizeNamespace: async (ns) => {
        tries++;
        const answer = answers.shift();
        if (answer === 'conflict') {
          throw newConflict({ group: '', resource: 'namespaces' }, 'f2', optimisticLockErrorMsg);
        }
        if (answer === 'failure') throw newInternalError(new Error('storage unavailable'));
        return namespaces.update(ns, { subresource: 'finalize' });
      },
    });
    await makeNamespace(h, 'f2');
    await h.namespaces.delete('f2');
    await h.until(() => h!.isGone('f2'), 'namespace gone');
    expect(tries).toBe(3);
    // The conflict is retried at once on the latest namespace; only the failure is reported.
    const failures = h.logger.lines.filter((l) => l.includes('deletion of namespace f2 failed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('storage unavailable');
    expect(h.calls).not.toContain('finalize f2');
  });

  it('leaves namespaces that are not being deleted alone, and stops cleanly', async () => {
    h = await startNamespaceController();
    await makeNamespace(h, 'live');
    await h.client('', 'configmaps', 'live').create(configMap('x'));
    await h.clock.advance(20_000);
    expect(h.calls).toEqual([]);
    const clock = h.clock;
    await h.stop();
    // The queue's timers, the informer's and the sandbox's are all gone.
    expect(clock.waiterCount()).toBe(0);
  });
});

describe('NamespaceController with the garbage collector', () => {
  it('empties a namespace whose Deployment owns ReplicaSets and pods while the collector runs', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, finishNamespaces: false });
    const gc = await startGC({ clock, sandbox });
    h = await startNamespaceController({ clock, sandbox });
    try {
      await makeNamespace(h, 'shop');
      const d = await h.client('apps', 'deployments', 'shop').create(deployment('cart'));
      const rs = await h
        .client('apps', 'replicasets', 'shop')
        .create(replicaSet('cart-rs', 'cart', [controllerRef(d, 'apps/v1', 'Deployment')]));
      for (const n of ['cart-a', 'cart-b']) {
        await h
          .client('', 'pods', 'shop')
          .create(pod(n, [controllerRef(rs, 'apps/v1', 'ReplicaSet')]));
      }
      await gc.waitForGraph(d.metadata?.uid ?? '', rs.metadata?.uid ?? '');
      await h.namespaces.delete('shop');
      await h.until(() => h!.isGone('shop'), 'namespace gone');
      for (const r of ['pods', 'replicasets', 'deployments']) {
        const group = r === 'pods' ? '' : 'apps';
        expect((await h.client(group, r, 'shop').list()).items).toEqual([]);
      }
      expect(gc.gc.graphHasUID(rs.metadata?.uid ?? '')).toBe(false);
    } finally {
      await gc.stop();
    }
  });
});

describe('ResourcesRemainingError', () => {
  it('carries the estimate in seconds', () => {
    const err = new ResourcesRemainingError(15);
    expect(err.estimate).toBe(15);
    expect(err.message).toBe(
      'some content remains in the namespace, estimate 15 seconds before it is removed',
    );
  });
});
