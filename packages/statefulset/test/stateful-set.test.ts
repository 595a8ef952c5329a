// Ports of stateful_set_test.go's handler tests: TestStatefulSetControllerAddPod,
// AddPodOrphan, AddPodNoSet, UpdatePod, UpdatePodWithNoSet,
// UpdatePodWithSameVersion, UpdatePodOrphanWithNewLabels,
// UpdatePodChangeControllerRef, DeletePod, DeletePodOrphan, DeletePodTombstone,
// GetStatefulSetsForPod, the minReadySeconds requeue, and sync of a set
// gone from the cache or with an invalid selector. The informers are never
// started: the tests fill their caches and call the handlers, as Go's do.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  DeletedFinalStateUnknown,
  FakeClock,
  newControllerRef,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import { StatefulSetController } from '../src/stateful-set.js';
import { newStatefulSetPod, statefulSetKind } from '../src/stateful-set-utils.js';
import { mut, newStatefulSet } from './helpers.js';

const unused = new Proxy(
  {},
  {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      return () => {
        throw new Error(`no API calls expected (${String(prop)})`);
      };
    },
  },
);

function setup() {
  const clock = new FakeClock();
  const source = { resource: () => unused };
  const factory = new SharedInformerFactory(
    source as unknown as ConstructorParameters<typeof SharedInformerFactory>[0],
    0,
    { clock },
  );
  const controller = new StatefulSetController({
    pods: factory.pods(),
    statefulSets: factory.statefulSets(),
    controllerRevisions: factory.controllerRevisions(),
    persistentVolumeClaims: factory.persistentVolumeClaims(),
    client: {
      statefulSets: unused as ResourceClient<StatefulSet>,
      pods: unused as ResourceClient<Pod>,
      persistentVolumeClaims: unused as ResourceClient<PersistentVolumeClaim>,
      controllerRevisions: unused as ResourceClient<ControllerRevision>,
    },
    clock,
  });
  const sets = factory.statefulSets().informer().getIndexer();
  const queued = async (): Promise<string[]> => {
    const keys: string[] = [];
    while (controller.queue.len() > 0) {
      const [key] = await controller.queue.get();
      if (key === undefined) break;
      keys.push(key);
      controller.queue.done(key);
    }
    return keys.sort();
  };
  return { clock, controller, sets, queued };
}

const withRV = (pod: Pod, rv: string): Pod => ({
  ...pod,
  metadata: { ...pod.metadata, resourceVersion: rv },
});

describe('StatefulSetController handlers', () => {
  it('enqueues the set of a new pod, or every set matching an orphan, and none for an unknown owner', async () => {
    const { controller, sets, queued } = setup();
    const set = newStatefulSet('foo', 3);
    sets.add(set);
    const pod = newStatefulSetPod(set, 0);
    controller.addPod(pod);
    expect(await queued()).toEqual(['default/foo']);

    const other = newStatefulSet('bar', 3);
    sets.add(other);
    const orphan = { ...pod, metadata: { ...pod.metadata, ownerReferences: [] } };
    controller.addPod(orphan);
    expect(await queued()).toEqual(['default/bar', 'default/foo']);

    const stranger = newStatefulSet('baz', 1);
    controller.addPod(newStatefulSetPod(stranger, 0));
    expect(await queued()).toEqual([]);
  });

  it('ignores resyncs, and enqueues the old and new owner when the reference moves', async () => {
    const { controller, sets, queued } = setup();
    const a = newStatefulSet('foo', 3);
    const b = newStatefulSet('bar', 3);
    sets.add(a);
    sets.add(b);
    const pod = withRV(newStatefulSetPod(a, 0), '1');
    controller.updatePod(pod, pod);
    expect(await queued()).toEqual([]);
    const moved = withRV(
      {
        ...pod,
        metadata: { ...pod.metadata, ownerReferences: [newControllerRef(b, statefulSetKind)] },
      },
      '2',
    );
    controller.updatePod(pod, moved);
    expect(await queued()).toEqual(['default/bar', 'default/foo']);
  });

  it('offers an orphan whose labels changed to the matching sets', async () => {
    const { controller, sets, queued } = setup();
    const set = newStatefulSet('foo', 3);
    sets.add(set);
    const base = newStatefulSetPod(set, 0);
    const old = withRV(
      { ...base, metadata: { ...base.metadata, ownerReferences: [], labels: {} } },
      '1',
    );
    const cur = withRV({ ...base, metadata: { ...base.metadata, ownerReferences: [] } }, '2');
    controller.updatePod(old, cur);
    expect(await queued()).toEqual(['default/foo']);
  });

  it('syncs again after minReadySeconds + 1 s when a pod becomes ready', async () => {
    const { clock, controller, sets, queued } = setup();
    const set = newStatefulSet('foo', 1, { minReadySeconds: 10 });
    sets.add(set);
    const pod = withRV(newStatefulSetPod(set, 0), '1');
    const ready = withRV(
      { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      '2',
    );
    controller.updatePod(pod, ready);
    expect(await queued()).toEqual(['default/foo']);
    await clock.advance(10_999);
    expect(await queued()).toEqual([]);
    await clock.advance(1);
    expect(await queued()).toEqual(['default/foo']);
  });

  it('enqueues the owner of a deleted pod (also from a tombstone), never for an orphan', async () => {
    const { controller, sets, queued } = setup();
    const set = newStatefulSet('foo', 3);
    sets.add(set);
    const pod = newStatefulSetPod(set, 0);
    controller.deletePod(pod);
    expect(await queued()).toEqual(['default/foo']);
    controller.deletePod(new DeletedFinalStateUnknown('default/foo-0', pod));
    expect(await queued()).toEqual(['default/foo']);
    controller.deletePod({ ...pod, metadata: { ...pod.metadata, ownerReferences: [] } });
    expect(await queued()).toEqual([]);
    // A pod that arrives being deleted counts as a deletion.
    const deleting = structuredClone(pod);
    mut(deleting.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    controller.addPod(deleting);
    expect(await queued()).toEqual(['default/foo']);
  });

  it('resolves a controller reference only to a set of that kind, name and uid', () => {
    const { controller, sets } = setup();
    const set = newStatefulSet('foo', 3);
    sets.add(set);
    const ref = newControllerRef(set, statefulSetKind);
    expect(controller.resolveControllerRef('default', ref)).toBe(set);
    expect(controller.resolveControllerRef('default', { ...ref, uid: 'other' })).toBeUndefined();
    expect(
      controller.resolveControllerRef('default', { ...ref, kind: 'ReplicaSet' }),
    ).toBeUndefined();
    expect(controller.resolveControllerRef('other', ref)).toBeUndefined();
  });

  it('finds every set whose selector matches a pod, none for a pod without labels', () => {
    const { controller, sets } = setup();
    const a = newStatefulSet('foo', 3);
    const b = newStatefulSet('bar', 3, { selector: { matchLabels: { foo: 'other' } } });
    sets.add(a);
    sets.add(b);
    const pod = newStatefulSetPod(a, 0);
    expect(controller.getStatefulSetsForPod(pod).map((s) => s.metadata?.name)).toEqual(['foo']);
    expect(
      controller.getStatefulSetsForPod({ ...pod, metadata: { ...pod.metadata, labels: {} } }),
    ).toEqual([]);
  });

  it('finishes a key whose set is gone, or whose selector is invalid, without an error', async () => {
    const { controller, sets } = setup();
    await expect(controller.sync('default/gone')).resolves.toBeUndefined();
    const bad = newStatefulSet('bad', 1, {
      selector: { matchExpressions: [{ key: 'foo', operator: 'Bogus', values: [] }] },
    });
    sets.add(bad);
    await expect(controller.sync('default/bad')).resolves.toBeUndefined();
  });

  it('refuses a bad worker count, and a second run', async () => {
    const { controller } = setup();
    const abort = new AbortController();
    await expect(controller.run(-1, abort.signal)).rejects.toThrow(RangeError);
    abort.abort();
    await controller.run(1, abort.signal);
    await expect(controller.run(1, new AbortController().signal)).rejects.toThrow(/stopped/);
  });
});
