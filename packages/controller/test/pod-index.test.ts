// The pod informer's controller-uid index (controller_utils.go,
// AddPodControllerUIDIndexer and FilterPodsByOwner, with the cases of
// TestFilterPodsByOwner): owned pods by uid, orphans by namespace, and the
// index added once to a shared informer.
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  metaNamespaceKeyFunc,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  SharedInformerFactory,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  type ResourceClientSource,
} from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  addPodControllerUIDIndexer,
  filterPodsByOwner,
  orphanPodIndexKeyForNamespace,
  podControllerUIDIndex,
  podControllerUIDIndexFunc,
} from '../src/index.js';
import { newPod, newReplicaSet } from './helpers.js';

const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name).sort();

function indexerWith(...pods: Pod[]) {
  const indexer = newIndexer<Pod>(metaNamespaceKeyFunc, {
    [namespaceIndex]: metaNamespaceIndexFunc,
    [podControllerUIDIndex]: podControllerUIDIndexFunc,
  });
  for (const p of pods) indexer.add(p);
  return indexer;
}

describe('podControllerUIDIndexFunc', () => {
  it("files a pod under its controller's uid, an orphan under its namespace", () => {
    const rs = newReplicaSet('rs', 1);
    expect(podControllerUIDIndexFunc(newPod('owned', rs))).toEqual(['uid-rs']);
    expect(podControllerUIDIndexFunc(newPod('orphan', undefined, { namespace: 'ns1' }))).toEqual([
      '_ORPHAN_POD/ns1',
    ]);
    expect(orphanPodIndexKeyForNamespace('ns1')).toBe('_ORPHAN_POD/ns1');
  });

  it('treats a pod whose owners include no controller as an orphan', () => {
    const rs = newReplicaSet('rs', 1);
    const pod = newPod('p', rs);
    pod.metadata!.ownerReferences![0]!.controller = false;
    expect(podControllerUIDIndexFunc(pod)).toEqual(['_ORPHAN_POD/default']);
  });
});

describe('filterPodsByOwner', () => {
  const rs = newReplicaSet('rs', 1);
  const other = newReplicaSet('other', 1);
  const elsewhere = newReplicaSet('rs', 1, { namespace: 'ns2', uid: 'uid-elsewhere' });
  const pods = [
    newPod('mine-1', rs),
    newPod('mine-2', rs, { labels: { changed: 'labels' } }),
    newPod('theirs', other),
    newPod('orphan', undefined, { labels: { app: 'rs' } }),
    newPod('orphan-unmatched', undefined, { labels: { app: 'zzz' } }),
    newPod('orphan-elsewhere', undefined, { namespace: 'ns2' }),
    newPod('mine-elsewhere', elsewhere),
  ];

  it("gives the owner's pods, whatever their labels, then the orphans of its namespace", () => {
    const got = filterPodsByOwner(indexerWith(...pods), rs.metadata!, 'ReplicaSet', true);
    expect(names(got)).toEqual(['mine-1', 'mine-2', 'orphan', 'orphan-unmatched']);
    // Owned first, as upstream reads the owner key before the orphan key.
    expect(got.slice(0, 2).map((p) => p.metadata!.name)).toEqual(['mine-1', 'mine-2']);
  });

  it('leaves the orphans out when asked to', () => {
    const got = filterPodsByOwner(indexerWith(...pods), rs.metadata!, 'ReplicaSet', false);
    expect(names(got)).toEqual(['mine-1', 'mine-2']);
  });

  it('skips a pod filed under the uid whose reference names another kind or namespace', () => {
    const wrongKind = newPod('wrong-kind', rs);
    wrongKind.metadata!.ownerReferences![0]!.kind = 'StatefulSet';
    const wrongNamespace = newPod('wrong-namespace', rs, { namespace: 'ns3' });
    const got = filterPodsByOwner(
      indexerWith(newPod('mine', rs), wrongKind, wrongNamespace),
      rs.metadata!,
      'ReplicaSet',
      false,
    );
    expect(names(got)).toEqual(['mine']);
  });

  it('follows adoption and release: the index moves a pod between keys', () => {
    const indexer = indexerWith(newPod('p', undefined, { labels: { app: 'rs' } }));
    expect(names(filterPodsByOwner(indexer, rs.metadata!, 'ReplicaSet', false))).toEqual([]);
    indexer.update(newPod('p', rs));
    expect(names(filterPodsByOwner(indexer, rs.metadata!, 'ReplicaSet', false))).toEqual(['p']);
    indexer.update(newPod('p', undefined, { labels: { app: 'rs' } }));
    expect(names(filterPodsByOwner(indexer, rs.metadata!, 'ReplicaSet', false))).toEqual([]);
  });

  it('refuses an owner without a namespace or uid, and an empty kind', () => {
    const indexer = indexerWith(...pods);
    expect(() => filterPodsByOwner(indexer, { uid: 'x' }, 'ReplicaSet', true)).toThrow(
      'no owner namespace provided',
    );
    expect(() => filterPodsByOwner(indexer, { namespace: 'default' }, 'ReplicaSet', true)).toThrow(
      'no owner uid provided',
    );
    expect(() => filterPodsByOwner(indexer, rs.metadata!, '', true)).toThrow(
      'no owner kind provided',
    );
  });
});

describe('addPodControllerUIDIndexer', () => {
  // The informer is never started: no request is made.
  const source: ResourceClientSource = {
    resource: <T extends KubeObject>() => ({}) as ResourceClient<T>,
  };

  it('adds the index to a shared informer once, indexing what it holds already', () => {
    const factory = new SharedInformerFactory(source, 0, { clock: new FakeClock() });
    const informer = factory.pods().informer();
    const rs = newReplicaSet('rs', 1);
    informer.getIndexer().add(newPod('before', rs));
    addPodControllerUIDIndexer(informer);
    const index = informer.getIndexer().getIndexers()[podControllerUIDIndex];
    expect(index).toBe(podControllerUIDIndexFunc);
    // A second controller on the same factory asks again: no conflict, same index.
    expect(() => addPodControllerUIDIndexer(informer)).not.toThrow();
    expect(informer.getIndexer().getIndexers()[podControllerUIDIndex]).toBe(index);
    informer.getIndexer().add(newPod('after', rs));
    expect(
      names(filterPodsByOwner(informer.getIndexer(), rs.metadata!, 'ReplicaSet', false)),
    ).toEqual(['after', 'before']);
  });
});
