import {
  metaNamespaceKeyFunc,
  type KubeObject,
  type ListerWatcher,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  SharedIndexInformer,
  SharedInformerFactory,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newDeltaFIFO,
  newIndexer,
  newRealFIFO,
  trimManagedFields,
  type ResourceClientSource,
} from '../src/index.js';
import { FakeSource } from './fake-source.js';

describe('quick start', () => {
  it('indexes objects by namespace', () => {
    //#region indexer
    const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {
      [namespaceIndex]: metaNamespaceIndexFunc,
    });
    indexer.add({ metadata: { namespace: 'default', name: 'web' } });
    indexer.add({ metadata: { namespace: 'default', name: 'db' } });
    indexer.add({ metadata: { namespace: 'kube-system', name: 'dns' } });

    const keys = indexer.indexKeys(namespaceIndex, 'default'); // ['default/db', 'default/web']
    const web = indexer.getByKey('default/web'); // the object, or undefined
    //#endregion indexer
    expect(keys).toEqual(['default/db', 'default/web']);
    expect(web).toEqual({ metadata: { namespace: 'default', name: 'web' } });
  });

  it('queues deltas and applies them to a store', async () => {
    //#region delta-fifo
    const store = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
    const fifo = newDeltaFIFO<KubeObject>({ knownObjects: store, emitDeltaTypeReplaced: true });

    // What a reflector does: a relist, then a watch event.
    fifo.replace([{ metadata: { namespace: 'default', name: 'web' } }], '1');
    fifo.update({ metadata: { namespace: 'default', name: 'web', labels: { tier: 'front' } } });

    // What an informer does: pop one key's deltas and apply them.
    const [deltas] = await fifo.pop((deltas) => {
      for (const delta of deltas) {
        // delta.type is 'Replaced', then 'Updated'
        if (delta.type === 'Deleted') store.delete(delta.object as KubeObject);
        else store.update(delta.object as KubeObject);
      }
    });
    //#endregion delta-fifo
    expect(deltas?.map((d) => d.type)).toEqual(['Replaced', 'Updated']);
    expect(store.getByKey('default/web')?.metadata?.labels).toEqual({ tier: 'front' });
    expect(fifo.hasSynced()).toBe(true);
  });

  it('queues every change in order and applies them to a store', async () => {
    //#region real-fifo
    const store = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
    const fifo = newRealFIFO<KubeObject>({ knownObjects: store });

    // What a reflector does: a relist, then two watch events for one object.
    fifo.replace([{ metadata: { namespace: 'default', name: 'web' } }], '1');
    fifo.update({ metadata: { namespace: 'default', name: 'web', labels: { tier: 'front' } } });
    fifo.update({ metadata: { namespace: 'default', name: 'web', labels: { tier: 'back' } } });

    // What an informer does: pop one change at a time, in order; nothing is merged.
    const types: string[] = [];
    while (fifo.queued().length > 0) {
      await fifo.pop(([delta]) => {
        if (delta === undefined) return;
        types.push(delta.type); // 'Replaced', then 'Updated', then 'Updated'
        if (delta.type === 'Deleted') store.delete(delta.object as KubeObject);
        else store.update(delta.object as KubeObject);
      });
    }
    //#endregion real-fifo
    expect(types).toEqual(['Replaced', 'Updated', 'Updated']);
    expect(store.getByKey('default/web')?.metadata?.labels).toEqual({ tier: 'back' });
    expect(fifo.hasSynced()).toBe(true);
  });

  it('drops managedFields before caching, as kube-controller-manager does', () => {
    //#region trim-managed-fields
    const pod: KubeObject = {
      metadata: { name: 'web', managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    };
    const cached = trimManagedFields(pod); // the same object, managedFields now undefined
    const json = JSON.stringify(cached); // '{"metadata":{"name":"web"}}'
    //#endregion trim-managed-fields
    expect(cached).toBe(pod);
    expect(json).toBe('{"metadata":{"name":"web"}}');
    expect('managedFields' in (pod.metadata ?? {})).toBe(true);
    expect(trimManagedFields(null)).toBe(null);
    expect(trimManagedFields({ kind: 'List' })).toEqual({ kind: 'List' });
  });

  it('shares one watch of pods among handlers', async () => {
    const source = new FakeSource();
    source.add('web-1', 'Running');
    const pods = source as unknown as ListerWatcher<Pod>;
    const controller = new AbortController();
    const signal = controller.signal;
    const seen: string[] = [];

    //#region shared-informer
    const informer = new SharedIndexInformer<Pod>(pods, { objectDescription: 'pods' });
    const registration = informer.addEventHandler({
      onAdd: (pod) => seen.push(`added ${metaNamespaceKeyFunc(pod)}`),
      onUpdate: (_old, pod) => seen.push(`updated ${metaNamespaceKeyFunc(pod)}`),
      onDelete: (pod) => seen.push(`deleted ${metaNamespaceKeyFunc(pod)}`),
    });
    void informer.run(signal); // lists, then watches until the signal aborts
    await registration.whenSynced(); // the handler has seen the whole first list
    const cached = informer.getStore().listKeys(); // ['web-1']
    //#endregion shared-informer

    expect(cached).toEqual(['web-1']);
    expect(seen).toEqual(['added web-1']);
    controller.abort();
  });

  it('hands out shared informers and listers from a factory', async () => {
    const source = new FakeSource();
    source.add('web-1', 'Running');
    const client: ResourceClientSource = {
      resource: <T extends KubeObject>() => source as unknown as ResourceClient<T>,
    };
    const controller = new AbortController();
    const signal = controller.signal;

    //#region factory
    const factory = new SharedInformerFactory(client, 0); // client: a @kcm-ts/client Client
    const podLister = factory.pods().lister(); // creates the pod informer
    factory.start(signal);
    const synced = await factory.waitForCacheSync(signal); // Map { 'pods' => true }
    const web = podLister.get('web-1'); // from the cache; NotFound if absent
    //#endregion factory

    expect([...synced]).toEqual([['pods', true]]);
    expect(web.metadata?.name).toBe('web-1');
    controller.abort();
    await factory.shutdown();
  });
});
