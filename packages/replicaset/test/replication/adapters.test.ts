// The adapters of conversion.go one by one: the informer adapter's
// conversionEventHandler (tombstones included, unconvertible objects
// dropped and logged), its lister and index, the conversionClient (reads
// converted, writes converted both ways, watch and patch refused) and the
// podControlAdapter.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import {
  DeletedFinalStateUnknown,
  isStatus,
  isNotFound,
  metaNamespaceKeyFunc,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  Lister,
  newIndexer,
  type ResourceEventHandler,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import { FakePodControl } from '@kcm-ts/controller';
import { describe, expect, it } from 'vitest';
import {
  conversionClient,
  convertRCtoRS,
  informerAdapter,
  podControlAdapter,
} from '../../src/index.js';
import { creatable } from '../helpers.js';
import { RCServer, newReplicationController } from './helpers.js';

/** A stand-in RC informer: a real indexer, and the handlers it was given. */
function fakeRCInformer() {
  const indexer = newIndexer<ReplicationController>(metaNamespaceKeyFunc, {});
  const handlers: ResourceEventHandler<ReplicationController>[] = [];
  let synced = false;
  const informer = {
    addEventHandler(h: ResourceEventHandler<ReplicationController>) {
      handlers.push(h);
      return { hasSynced: () => true };
    },
    addIndexers: (i: Parameters<typeof indexer.addIndexers>[0]) => indexer.addIndexers(i),
    getIndexer: () => indexer,
    hasSynced: () => synced,
  } as unknown as SharedIndexInformer<ReplicationController>;
  const rcs: ResourceInformer<ReplicationController> = {
    informer: () => informer,
    lister: () => new Lister(indexer, { group: '', resource: 'replicationcontroller' }),
  };
  return {
    rcs,
    indexer,
    handlers,
    sync: () => {
      synced = true;
    },
  };
}

function capturing(lines: string[]): Logger {
  const make = (): Logger => ({
    info: () => {},
    error: (err, msg) => lines.push(`${msg}: ${String(err)}`),
    v: () => make(),
    enabled: () => true,
    withValues: () => make(),
    withName: () => make(),
  });
  return make();
}

describe('informerAdapter', () => {
  it('hands the ReplicaSet handler converted objects, tombstones included (conversionEventHandler)', () => {
    const fake = fakeRCInformer();
    const seen: string[] = [];
    const adapter = informerAdapter(fake.rcs);
    adapter.informer().addEventHandler({
      onAdd: (rs, initial) => seen.push(`add ${JSON.stringify(rs.spec?.selector)} ${initial}`),
      onUpdate: (o, n) => seen.push(`update ${o.spec?.replicas}->${n.spec?.replicas}`),
      onDelete: (obj) =>
        seen.push(
          obj instanceof DeletedFinalStateUnknown
            ? `tombstone ${obj.key} ${JSON.stringify((obj.obj as ReplicaSet).spec?.selector)}`
            : `delete ${obj.metadata?.name}`,
        ),
    });
    const [h] = fake.handlers;
    const rc = newReplicationController('web', 2);
    h?.onAdd?.(rc, true);
    h?.onUpdate?.(rc, newReplicationController('web', 3));
    h?.onDelete?.(rc);
    h?.onDelete?.(new DeletedFinalStateUnknown('default/web', rc));
    expect(seen).toEqual([
      'add {"matchLabels":{"app":"web"}} true',
      'update 2->3',
      'delete web',
      'tombstone default/web {"matchLabels":{"app":"web"}}',
    ]);
  });

  it('drops and logs what it cannot convert', () => {
    const fake = fakeRCInformer();
    const logs: string[] = [];
    const seen: unknown[] = [];
    informerAdapter(fake.rcs, capturing(logs))
      .informer()
      .addEventHandler({
        onAdd: (rs) => seen.push(rs),
        onUpdate: (o) => seen.push(o),
        onDelete: (rs) => seen.push(rs),
      });
    const [h] = fake.handlers;
    const bad = {
      metadata: { name: 'bad', namespace: 'default' },
      spec: { selector: { app: 1 } },
    } as unknown as ReplicationController;
    h?.onAdd?.(bad, false);
    h?.onUpdate?.(newReplicationController('ok', 1), bad);
    h?.onDelete?.(new DeletedFinalStateUnknown('default/x', 'not an RC' as never));
    expect(seen).toEqual([]);
    expect(logs).toEqual([
      `dropping RC OnAdd event: can't convert object to RS: TypeError: can't convert ReplicationController default/bad to ReplicaSet: selector value of "app" is number, not a string`,
      `dropping RC OnUpdate event: can't convert object to RS: TypeError: can't convert ReplicationController default/bad to ReplicaSet: selector value of "app" is number, not a string`,
      'dropping RC OnDelete event: tombstone contained object that is not a RC: undefined',
    ]);
  });

  it('lists and gets converted objects; a missing one is the RC lister NotFound (conversionLister)', () => {
    const fake = fakeRCInformer();
    fake.indexer.add(newReplicationController('a', 1));
    fake.indexer.add(newReplicationController('b', 2, { namespace: 'other' }));
    const lister = informerAdapter(fake.rcs).lister().byNamespace('default');
    expect(lister.list().map((rs) => rs.spec?.selector)).toEqual([{ matchLabels: { app: 'a' } }]);
    expect(lister.get('a').spec?.replicas).toBe(1);
    expect(lister.tryGet('zzz')).toBeUndefined();
    let err: unknown;
    try {
      lister.get('zzz');
    } catch (e) {
      err = e;
    }
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('replicationcontroller "zzz" not found');
  });

  it('indexes RCs through the conversion, reports sync, and lists indexers for ReplicaSets', () => {
    const fake = fakeRCInformer();
    const informer = informerAdapter(fake.rcs).informer();
    informer.addIndexers({
      replicas: (rs: ReplicaSet) => [String(rs.spec?.replicas)],
      selector: (rs: ReplicaSet) => Object.keys(rs.spec?.selector.matchLabels ?? {}),
    });
    fake.indexer.add(newReplicationController('a', 1));
    fake.indexer.add(newReplicationController('b', 2));
    const indexer = informer.getIndexer();
    expect(indexer.byIndex('replicas', '2').map((rs) => rs.metadata?.name)).toEqual(['b']);
    expect(indexer.byIndex('selector', 'app')).toHaveLength(2);
    expect(Object.keys(indexer.getIndexers()).sort()).toEqual(['replicas', 'selector']);
    expect(
      indexer.getIndexers().replicas?.(convertRCtoRS(newReplicationController('c', 7))),
    ).toEqual(['7']);
    expect(informer.hasSynced()).toBe(false);
    fake.sync();
    expect(informer.hasSynced()).toBe(true);
  });
});

describe('conversionClient', () => {
  it('reads ReplicationControllers as ReplicaSets (Get, List)', async () => {
    const server = new RCServer();
    await server.client.inNamespace('default').create(creatable(newReplicationController('a', 2)));
    const client = conversionClient(server.client);
    const got = await client.inNamespace('default').get('a');
    expect(got.spec?.selector).toEqual({ matchLabels: { app: 'a' } });
    const list = await client.list();
    expect(list.kind).toBe('ReplicaSetList');
    expect(list.items.map((rs) => rs.metadata?.name)).toEqual(['a']);
    expect(client.namespace).toBeUndefined();
    expect(client.inNamespace('default').namespace).toBe('default');
  });

  it('writes ReplicaSets as ReplicationControllers and answers with the result converted (convertCall)', async () => {
    const server = new RCServer();
    const client = conversionClient(server.client).inNamespace('default');
    const created = await client.create({
      metadata: { name: 'w' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'w' } },
        template: { metadata: { labels: { app: 'w' } } },
      },
    });
    expect(server.peek('default', 'w')?.spec?.selector).toEqual({ app: 'w' });
    expect(created.metadata?.uid).toBeDefined();
    const updated = await client.updateStatus({
      ...created,
      status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
    });
    expect(server.peek('default', 'w')?.status).toEqual({
      replicas: 2,
      readyReplicas: 1,
      observedGeneration: 1,
    });
    expect(updated.status?.readyReplicas).toBe(1);
    await client.update({ ...updated, spec: { ...updated.spec!, replicas: 4 } });
    expect(server.peek('default', 'w')?.spec?.replicas).toBe(4);
    // A selector an RC cannot hold never reaches the server.
    server.counts.clear();
    await expect(
      client.update({
        ...updated,
        spec: {
          ...updated.spec!,
          selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
        },
      }),
    ).rejects.toThrow('operator "Exists" cannot be converted into the old label selector format');
    expect(server.counts.size).toBe(0);
    const deleted = await client.delete('w');
    expect(isStatus(deleted)).toBe(true);
  });

  it('refuses watches and patches, which the controller never makes', async () => {
    const client = conversionClient(new RCServer().client);
    await expect(client.watch()).rejects.toThrow(
      'watch is not implemented for the ReplicationController conversion client',
    );
    await expect(client.patch('x', { type: 'merge', body: {} })).rejects.toThrow(
      'patch is not implemented',
    );
    await expect(client.patchStatus('x', { type: 'merge', body: {} })).rejects.toThrow(
      'patchStatus is not implemented',
    );
  });
});

describe('podControlAdapter', () => {
  it('converts the object of creations and deletions; patches pass through', async () => {
    const seen: unknown[] = [];
    const inner = new FakePodControl();
    const adapter = podControlAdapter({
      createPods: (_ns, _t, obj) => {
        seen.push(obj);
        return Promise.resolve();
      },
      createPodsWithGenerateName: (ns, t, obj, ref, name) =>
        inner.createPodsWithGenerateName(ns, t, obj, ref, name),
      deletePod: (_ns, _n, obj) => {
        seen.push(obj);
        return Promise.resolve();
      },
      patchPod: (ns, name, patch) => inner.patchPod(ns, name, patch),
    });
    const rs = convertRCtoRS(newReplicationController('web', 1));
    const ref = { apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: 'u' };
    await adapter.createPods('default', {}, rs, ref);
    await adapter.deletePod('default', 'p', rs);
    await adapter.patchPod('default', 'p', { a: 1 });
    expect(seen).toEqual([
      expect.objectContaining({
        kind: 'ReplicationController',
        spec: expect.objectContaining({ selector: { app: 'web' } }) as unknown,
      }),
      expect.objectContaining({ kind: 'ReplicationController', apiVersion: 'v1' }),
    ]);
    expect(inner.patches).toEqual([{ a: 1 }]);
    // An owner that cannot be an RC is a rejection, not a crash.
    const bad = {
      metadata: { name: 'x' },
      spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } },
    };
    await expect(adapter.createPods('default', {}, bad, ref)).rejects.toThrow(
      "can't convert ReplicaSet to ReplicationController",
    );
  });
});
