import { metaNamespaceKeyFunc, type KubeObject } from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import { metaNamespaceIndexFunc, namespaceIndex, newDeltaFIFO, newIndexer } from '../src/index.js';

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
});
