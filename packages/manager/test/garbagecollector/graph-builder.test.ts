// The graph builder's bookkeeping (graph_builder.go), fed events by hand as
// garbagecollector_test.go's TestProcessEvent and TestConflictingData do.
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import { FakeClock, FakeRecorder, noopLogger, type KubeObject } from '@kcm-ts/apimachinery';
import { DeferredDiscoveryRESTMapper } from '../../src/discovery.js';
import { Node, type ObjectReference } from '../../src/garbagecollector/graph.js';
import {
  GraphBuilder,
  defaultIgnoredResources,
  deletionStartsWithFinalizer,
  getAlternateOwnerIdentity,
  partitionDependents,
  referencesDiffs,
  toPartialObjectMetadata,
  withoutManagedFields,
  type GraphEvent,
  type GraphEventType,
} from '../../src/garbagecollector/graph-builder.js';
import { TestDiscovery } from './helpers.js';

function newGraphBuilder(recorder = new FakeRecorder()): GraphBuilder {
  const clock = new FakeClock();
  return new GraphBuilder({
    mapper: new DeferredDiscoveryRESTMapper(new TestDiscovery()),
    metadataClient: {
      resource: () => {
        throw new Error('no client in this test');
      },
    },
    fullObjects: false,
    informerFactory: undefined,
    ignoredResources: defaultIgnoredResources(),
    informersStarted: Promise.resolve(),
    eventRecorder: recorder,
    clock,
    logger: noopLogger,
    absentOwnerCacheSize: 2,
  });
}

const podKind = { group: '', version: 'v1', kind: 'Pod' };

/** An event for a pod with uid `uid` owned by `owners` (uids only), as createEvent does. */
function podEvent(eventType: GraphEventType, uid: string, owners: string[]): GraphEvent {
  return {
    virtual: false,
    eventType,
    gvk: podKind,
    obj: {
      metadata: {
        uid,
        name: `pod-${uid}`,
        namespace: 'ns1',
        ownerReferences: owners.map((o) => ref(o)),
      },
    },
  };
}

function ref(uid: string, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: 'v1', kind: 'Pod', name: `pod-${uid}`, uid, ...extra };
}

/** Every owner lists its dependents and every dependent its owners: verifyGraphInvariants. */
function expectGraphInvariants(gb: GraphBuilder): void {
  for (const n of gb.uidToNode.nodes()) {
    for (const dep of n.dependents) {
      expect(dep.owners.some((o) => o.uid === n.identity.uid)).toBe(true);
    }
    for (const owner of n.owners) {
      const ownerNode = gb.uidToNode.read(owner.uid);
      if (ownerNode !== undefined) expect(ownerNode.dependents.has(n)).toBe(true);
    }
  }
}

function drain<T>(queue: {
  len(): number;
  get(): Promise<readonly [T | undefined, boolean]>;
  done(t: T): void;
}) {
  return (async () => {
    const out: T[] = [];
    while (queue.len() > 0) {
      const [item] = await queue.get();
      out.push(item as T);
      queue.done(item as T);
    }
    return out;
  })();
}

describe('GraphBuilder.processGraphChanges', () => {
  const scenarios: [string, GraphEvent[]][] = [
    [
      'three pods, two owners',
      [podEvent('add', '1', []), podEvent('add', '2', ['1']), podEvent('add', '3', ['1', '2'])],
    ],
    [
      'an owner deleted',
      [
        podEvent('add', '1', []),
        podEvent('add', '2', ['1']),
        podEvent('add', '3', ['1', '2']),
        podEvent('add', '4', ['2']),
        podEvent('delete', '2', ['x']),
      ],
    ],
    [
      'owners changed',
      [
        podEvent('add', '1', []),
        podEvent('add', '2', ['1']),
        podEvent('add', '3', ['1', '2']),
        podEvent('add', '4', ['3']),
        podEvent('update', '2', ['4']),
      ],
    ],
    [
      'dependents first',
      [
        podEvent('add', '4', ['2']),
        podEvent('add', '3', ['1', '2']),
        podEvent('add', '2', ['1']),
        podEvent('add', '1', []),
        podEvent('delete', '2', ['x']),
      ],
    ],
  ];
  for (const [name, events] of scenarios) {
    it(`keeps owners and dependents consistent: ${name}`, () => {
      const gb = newGraphBuilder();
      for (const e of events) {
        gb.processGraphChanges(noopLogger, e);
        expectGraphInvariants(gb);
      }
    });
  }

  it('makes a virtual node for an unseen owner, queues it, and marks it observed when seen', async () => {
    const gb = newGraphBuilder();
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    const owner = gb.uidToNode.read('1');
    expect(owner?.isObserved()).toBe(false);
    expect(owner?.dependents.size).toBe(1);
    expect(await drain(gb.attemptToDelete)).toEqual([owner]);
    gb.processGraphChanges(noopLogger, podEvent('add', '1', []));
    expect(gb.uidToNode.read('1')).toBe(owner);
    expect(owner?.isObserved()).toBe(true);
  });

  it('replaces a virtual owner observed under other coordinates and requeues its dependents', async () => {
    const gb = newGraphBuilder();
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    await drain(gb.attemptToDelete);
    // The owner turns out to be a ReplicaSet, not the Pod the reference says.
    gb.processGraphChanges(noopLogger, {
      virtual: false,
      eventType: 'add',
      gvk: { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
      obj: { metadata: { uid: '1', name: 'pod-1', namespace: 'ns1' } },
    });
    const owner = gb.uidToNode.read('1');
    expect(owner?.identity.kind).toBe('ReplicaSet');
    expect(owner?.isObserved()).toBe(true);
    const queued = await drain(gb.attemptToDelete);
    expect(queued.map((n) => n.identity.uid)).toEqual(['2']);
  });

  it('reports a namespaced owner in another namespace with OwnerRefInvalidNamespace', async () => {
    const recorder = new FakeRecorder();
    const gb = newGraphBuilder(recorder);
    gb.processGraphChanges(noopLogger, {
      virtual: false,
      eventType: 'add',
      gvk: podKind,
      obj: { metadata: { uid: '1', name: 'pod-1', namespace: 'other' } },
    });
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    expect(recorder.events).toEqual([
      'Warning OwnerRefInvalidNamespace ownerRef [v1/Pod, namespace: ns1, name: pod-1, uid: 1] does not exist in namespace "ns1"',
    ]);
    expect((await drain(gb.attemptToDelete)).map((n) => n.identity.uid)).toEqual(['2']);
  });

  it('queues an owner waiting in foreground when a blocking reference is removed or unblocked', async () => {
    const gb = newGraphBuilder();
    gb.processGraphChanges(noopLogger, podEvent('add', '1', []));
    const blocking = (uid: string, block: boolean | undefined): GraphEvent => ({
      ...podEvent('update', uid, []),
      obj: {
        metadata: {
          uid,
          name: `pod-${uid}`,
          namespace: 'ns1',
          ownerReferences: [ref('1', block === undefined ? {} : { blockOwnerDeletion: block })],
        },
      },
    });
    gb.processGraphChanges(noopLogger, blocking('2', true));
    gb.processGraphChanges(noopLogger, blocking('3', true));
    expect(await drain(gb.attemptToDelete)).toEqual([]);
    gb.processGraphChanges(noopLogger, blocking('2', false));
    gb.processGraphChanges(noopLogger, podEvent('update', '3', []));
    const queued = await drain(gb.attemptToDelete);
    expect(queued.map((n) => n.identity.uid)).toEqual(['1']);
    expect(gb.uidToNode.read('1')?.dependents.size).toBe(1);
  });

  it('queues orphaning and foreground deletion when they start, once', async () => {
    const gb = newGraphBuilder();
    gb.processGraphChanges(noopLogger, podEvent('add', '1', []));
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    await drain(gb.attemptToDelete);
    const deleting = (finalizer: string): KubeObject => ({
      metadata: {
        uid: '1',
        name: 'pod-1',
        namespace: 'ns1',
        deletionTimestamp: '2026-01-01T00:00:00Z',
        finalizers: [finalizer],
      },
    });
    const before = podEvent('add', '1', []).obj;
    gb.processGraphChanges(noopLogger, {
      ...podEvent('update', '1', []),
      oldObj: before,
      obj: deleting('orphan'),
    });
    expect((await drain(gb.attemptToOrphan)).map((n) => n.identity.uid)).toEqual(['1']);
    gb.processGraphChanges(noopLogger, {
      ...podEvent('update', '1', []),
      oldObj: deleting('orphan'),
      obj: deleting('orphan'),
    });
    expect(await drain(gb.attemptToOrphan)).toEqual([]);

    const gb2 = newGraphBuilder();
    gb2.processGraphChanges(noopLogger, podEvent('add', '1', []));
    gb2.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    await drain(gb2.attemptToDelete);
    gb2.processGraphChanges(noopLogger, {
      ...podEvent('update', '1', []),
      oldObj: before,
      obj: deleting('foregroundDeletion'),
    });
    expect(gb2.uidToNode.read('1')?.isDeletingDependents()).toBe(true);
    expect((await drain(gb2.attemptToDelete)).map((n) => n.identity.uid).sort()).toEqual([
      '1',
      '2',
    ]);
  });

  it('on deletion, queues the dependents, records the owner absent, and queues a foreground owner', async () => {
    const gb = newGraphBuilder();
    gb.processGraphChanges(noopLogger, podEvent('add', '1', []));
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    gb.processGraphChanges(noopLogger, podEvent('add', '3', ['2']));
    gb.uidToNode.read('1')?.markDeletingDependents();
    await drain(gb.attemptToDelete);
    gb.processGraphChanges(noopLogger, podEvent('delete', '2', []));
    expect(gb.uidToNode.read('2')).toBeUndefined();
    expect((await drain(gb.attemptToDelete)).map((n) => n.identity.uid).sort()).toEqual(['1', '3']);
    expect(
      gb.absentOwnerCache.has({
        apiVersion: 'v1',
        kind: 'Pod',
        name: 'pod-2',
        uid: '2',
        namespace: 'ns1',
      }),
    ).toBe(true);
  });

  it('keeps a virtual node whose dependents disagree on its coordinates, under the next identity', async () => {
    const gb = newGraphBuilder();
    // Two dependents name owner uid 1 differently.
    gb.processGraphChanges(noopLogger, podEvent('add', '2', ['1']));
    gb.processGraphChanges(noopLogger, {
      ...podEvent('add', '3', []),
      obj: {
        metadata: {
          uid: '3',
          name: 'pod-3',
          namespace: 'ns1',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1' }],
        },
      },
    });
    await drain(gb.attemptToDelete);
    const first = gb.uidToNode.read('1');
    expect(first?.identity.kind).toBe('Pod');
    // The API server says the Pod identity does not exist.
    gb.enqueueVirtualDeleteEvent(first!.identity);
    const [event] = await gb.graphChanges.get();
    gb.processGraphChanges(noopLogger, event!);
    gb.graphChanges.done(event!);
    const replaced = gb.uidToNode.read('1');
    expect(replaced?.identity).toMatchObject({ kind: 'ReplicaSet', name: 'rs', namespace: 'ns1' });
    expect((await drain(gb.attemptToDelete)).map((n) => n.identity.uid)).toEqual(['2']);
    expect(gb.absentOwnerCache.has(first!.identity)).toBe(true);
    gb.attemptToDelete.shutDown();
  });
});

describe('graph helpers', () => {
  it('referencesDiffs finds added, removed and changed references by uid', () => {
    const { added, removed, changed } = referencesDiffs(
      [ref('1'), ref('2', { blockOwnerDeletion: true })],
      [ref('2', { blockOwnerDeletion: false }), ref('3')],
    );
    expect(added.map((r) => r.uid)).toEqual(['3']);
    expect(removed.map((r) => r.uid)).toEqual(['1']);
    expect(changed).toEqual([
      {
        oldRef: ref('2', { blockOwnerDeletion: true }),
        newRef: ref('2', { blockOwnerDeletion: false }),
      },
    ]);
  });

  it('deletionStartsWithFinalizer is true only on the transition', () => {
    const live: KubeObject = { metadata: { finalizers: ['orphan'] } };
    const deleting: KubeObject = { metadata: { finalizers: ['orphan'], deletionTimestamp: 'x' } };
    expect(deletionStartsWithFinalizer(undefined, deleting, 'orphan')).toBe(true);
    expect(deletionStartsWithFinalizer(live, deleting, 'orphan')).toBe(true);
    expect(deletionStartsWithFinalizer(deleting, deleting, 'orphan')).toBe(false);
    expect(deletionStartsWithFinalizer(live, deleting, 'foregroundDeletion')).toBe(false);
    expect(deletionStartsWithFinalizer(undefined, live, 'orphan')).toBe(false);
  });

  it('partitionDependents and getAlternateOwnerIdentity sort dependents by how they name the owner', () => {
    const node = (uid: string, namespace: string, owners: OwnerReference[]) =>
      new Node({ identity: { apiVersion: 'v1', kind: 'Pod', name: uid, uid, namespace }, owners });
    const absent: ObjectReference = {
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'o',
      uid: 'o',
      namespace: 'ns1',
    };
    const same = node('a', 'ns1', [{ apiVersion: 'v1', kind: 'Pod', name: 'o', uid: 'o' }]);
    const otherKind = node('b', 'ns1', [{ apiVersion: 'v1', kind: 'Secret', name: 'o', uid: 'o' }]);
    const otherNs = node('c', 'ns2', [{ apiVersion: 'v1', kind: 'Pod', name: 'o', uid: 'o' }]);
    const [matching, nonmatching] = partitionDependents([same, otherKind, otherNs], absent);
    expect(matching).toEqual([same]);
    expect(nonmatching).toEqual([otherKind, otherNs]);
    // Sorted by kind first: Pod in ns2 follows Pod in ns1; Secret follows both.
    expect(getAlternateOwnerIdentity([otherKind, otherNs], absent)).toEqual({
      ...absent,
      namespace: 'ns2',
    });
    expect(getAlternateOwnerIdentity([same], absent)).toBeUndefined();
  });

  it('keeps only apiVersion, kind and metadata (without managedFields) in the caches', () => {
    expect(
      toPartialObjectMetadata({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', managedFields: [{ manager: 'x' }] },
        spec: { containers: [] },
      } as KubeObject),
    ).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
  });

  it('only drops managedFields from PartialObjectMetadata, as the manager’s informers do', () => {
    const partial: KubeObject = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'p', managedFields: [{ manager: 'x' }] },
    };
    expect(withoutManagedFields(partial)).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'p' },
    });
    const lean = withoutManagedFields(partial);
    expect(withoutManagedFields(lean)).toBe(lean);
  });
});
