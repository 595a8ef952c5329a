// Ports of pkg/controller/endpointslice/endpointslice_controller_test.go:
// TestSyncServiceNoSelector, TestServiceExternalNameTypeSync,
// TestSyncServiceMissing, TestSyncServicePodSelection,
// TestSyncServiceEndpointSliceLabelSelection (slices of other managers),
// TestSyncServicePendingDeletionEndpointSlice, TestSyncServiceStaleInformer,
// TestOnEndpointSliceUpdate / Add / Delete and the pod handler batching of
// TestPodAddsBatching / TestPodUpdatesBatching, plus run() through real
// informers.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder, newInternalError } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  EndpointSliceController,
  StaleInformerCacheError,
  controllerQualifiedName,
  endpointSliceChangeMinSyncDelay,
  isStaleInformerCacheError,
  labelManagedBy,
  labelServiceName,
} from '../src/index.js';
import {
  fixture,
  newEmptyEndpointSlice,
  newNode,
  newPod,
  newService,
  namespace,
  settle,
  mut,
} from './helpers.js';
import { MemoryAPI } from './memory-api.js';

const key = 'test/foo';

describe('syncService', () => {
  it('leaves a Service without a selector alone', async () => {
    const fx = fixture();
    const svc = newService();
    delete svc.spec!.selector;
    fx.addService(svc);
    fx.addPod(newPod(1));
    await fx.quiesce();
    expect(fx.api.actions).toEqual([]);
  });

  it('leaves an ExternalName Service alone', async () => {
    const fx = fixture();
    const svc = newService();
    svc.spec!.type = 'ExternalName';
    fx.addService(svc);
    fx.addPod(newPod(1));
    await fx.quiesce();
    expect(fx.api.actions).toEqual([]);
  });

  it('forgets a Service that is gone (its slices are left to the garbage collector)', async () => {
    const fx = fixture();
    fx.addService(newService());
    fx.addPod(newPod(1));
    await fx.quiesce();
    expect(fx.controller.endpointSliceTracker.generationsByService.has(key)).toBe(true);
    fx.serviceIndexer.delete(newService());
    fx.controller.onServiceDelete(newService());
    await fx.quiesce();
    expect(fx.controller.endpointSliceTracker.generationsByService.has(key)).toBe(false);
    expect(fx.controller.triggerTimeTracker.serviceStates.has(key)).toBe(false);
    expect(fx.api.actions.map((a) => a.verb)).toEqual(['create']);
  });

  it('a Service deleted and re-created under its name replaces the old slices (create, then delete)', async () => {
    const fx = fixture();
    fx.addService(newService());
    fx.addPod(newPod(1));
    await fx.quiesce();
    const [old] = fx.api.list();
    fx.serviceIndexer.delete(newService());
    fx.controller.onServiceDelete(newService());
    await fx.quiesce();
    const again = newService();
    mut(again.metadata!).uid = 'svc-uid-foo-2';
    fx.addService(again);
    await fx.quiesce();
    expect(fx.api.actions.map((a) => a.verb)).toEqual(['create', 'create', 'delete']);
    const [slice] = fx.api.list();
    expect(slice!.metadata!.name).not.toBe(old!.metadata!.name);
    expect(slice!.metadata!.ownerReferences![0]!.uid).toBe('svc-uid-foo-2');
    expect(slice!.endpoints.map((e) => e.targetRef!.name)).toEqual(['pod1']);
  });

  it('lists only the pods the selector picks, in the Service namespace', async () => {
    const fx = fixture();
    fx.addService(newService());
    fx.addPod(newPod(1));
    const other = newPod(2);
    other.metadata!.labels = { foo: 'baz' };
    fx.addPod(other);
    fx.addPod(newPod(3, 'elsewhere'));
    await fx.quiesce();
    const slices = fx.api.list();
    expect(slices).toHaveLength(1);
    expect(slices[0]!.endpoints.map((e) => e.targetRef!.name)).toEqual(['pod1']);
    expect(slices[0]!.metadata!.labels).toMatchObject({
      [labelServiceName]: 'foo',
      [labelManagedBy]: controllerQualifiedName,
    });
    expect(slices[0]!.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'Service',
      name: 'foo',
    });
  });

  it('ignores slices managed by someone else, and those being deleted', async () => {
    const fx = fixture();
    const svc = newService();
    const foreign = newEmptyEndpointSlice(9, svc);
    foreign.metadata!.labels![labelManagedBy] = 'someone-else';
    const dying = newEmptyEndpointSlice(8, svc);
    mut(dying.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    for (const s of fx.api.seed(foreign, dying)) fx.sliceIndexer.add(s);
    fx.api.actions.length = 0;
    fx.addService(svc);
    fx.addPod(newPod(1));
    await fx.quiesce();
    expect(fx.api.actions.map((a) => a.verb)).toEqual(['create']);
    expect(fx.api.list()).toHaveLength(3);
  });

  it('refuses a cache older than its own writes, and succeeds once the cache catches up', async () => {
    const fx = fixture({ watch: false });
    const results: string[] = [];
    fx.addService(newService());
    fx.addPod(newPod(1));
    await fx.controller.processNextServiceWorkItem();
    expect(fx.api.list()).toHaveLength(1);
    // The write has not come back through the informer: the cache lacks it.
    await expect(fx.controller.syncService(key)).rejects.toBeInstanceOf(StaleInformerCacheError);
    try {
      await fx.controller.syncService(key);
    } catch (err) {
      results.push(isStaleInformerCacheError(err) ? 'stale' : 'other');
    }
    expect(results).toEqual(['stale']);
    for (const s of fx.api.list()) fx.sliceIndexer.add(s);
    await fx.controller.syncService(key);
    expect(fx.api.actions.map((a) => a.verb)).toEqual(['create']);
  });

  it('records FailedToUpdateEndpointSlices and retries with backoff when a write fails', async () => {
    const fx = fixture();
    fx.api.failNext.set('create', newInternalError(new Error('etcd is sad')));
    fx.addService(newService());
    fx.addPod(newPod(1));
    await fx.controller.processNextServiceWorkItem();
    expect(fx.recorder.events).toEqual([
      expect.stringMatching(
        /^Warning FailedToUpdateEndpointSlices Error updating Endpoint Slices for Service test\/foo: failed to create EndpointSlice for Service test\/foo: .*etcd is sad/,
      ),
    ]);
    expect(fx.controller.serviceQueue.numRequeues(key)).toBe(1);
    await fx.quiesce();
    expect(fx.api.list()).toHaveLength(1);
    expect(fx.controller.serviceQueue.numRequeues(key)).toBe(0);
  });
});

describe('event handlers', () => {
  const managed = (svc: Service): EndpointSlice => newEmptyEndpointSlice(1, svc);

  it('its own writes coming back queue nothing; a newer generation by someone else queues the Service after 1 s', async () => {
    const fx = fixture();
    fx.addService(newService());
    fx.addPod(newPod(1));
    await fx.quiesce();
    expect(fx.controller.serviceQueue.len()).toBe(0);
    expect(fx.clock.hasWaiters()).toBe(false);
    const [mine] = fx.api.list();
    const edited = structuredClone(mine!);
    mut(edited.metadata!).generation = mine!.metadata!.generation! + 1;
    fx.controller.onEndpointSliceUpdate(mine!, edited);
    expect(fx.controller.serviceQueue.len()).toBe(0);
    await fx.clock.advance(endpointSliceChangeMinSyncDelay);
    expect(fx.controller.serviceQueue.len()).toBe(1);
  });

  it('a slice of a Service it does not manage is ignored; a change of manager queues it', async () => {
    const fx = fixture();
    const svc = newService();
    const foreign = managed(svc);
    foreign.metadata!.labels![labelManagedBy] = 'other';
    fx.controller.onEndpointSliceAdd(foreign);
    await fx.clock.advance(1000);
    expect(fx.controller.serviceQueue.len()).toBe(0);
    fx.controller.onEndpointSliceUpdate(foreign, managed(svc));
    await fx.clock.advance(1000);
    expect(fx.controller.serviceQueue.len()).toBe(1);
  });

  it('a changed service-name label queues both Services', async () => {
    const fx = fixture();
    const a = managed(newService('a'));
    const b = structuredClone(a);
    b.metadata!.labels![labelServiceName] = 'b';
    fx.controller.onEndpointSliceUpdate(a, b);
    await fx.clock.advance(1000);
    const keys = [];
    while (fx.controller.serviceQueue.len() > 0) {
      const [k] = await fx.controller.serviceQueue.get();
      keys.push(k);
    }
    expect(keys.sort()).toEqual(['test/a', 'test/b']);
  });

  it('a deletion it expected queues nothing; one by someone else queues the Service', async () => {
    const fx = fixture({ watch: false });
    const slice = {
      ...managed(newService()),
      metadata: { ...managed(newService()).metadata, uid: 's1', generation: 1 },
    };
    fx.controller.endpointSliceTracker.expectDeletion(slice);
    fx.controller.onEndpointSliceDelete(slice);
    fx.controller.endpointSliceTracker.update(slice);
    await fx.clock.advance(1000);
    expect(fx.controller.serviceQueue.len()).toBe(0);
    fx.controller.onEndpointSliceDelete(slice);
    await fx.clock.advance(1000);
    expect(fx.controller.serviceQueue.len()).toBe(1);
  });

  it('pod changes wait for the batch period, so several make one sync', async () => {
    const fx = fixture({ batchPeriod: 5000 });
    fx.addService(newService());
    await fx.controller.processNextServiceWorkItem();
    fx.api.actions.length = 0;
    for (let i = 0; i < 3; i++) fx.addPod(newPod(i));
    const p0 = structuredClone(fx.podIndexer.getByKey('test/pod0')!);
    p0.status!.conditions = [{ type: 'Ready', status: 'False' }];
    fx.updatePod(p0);
    await fx.clock.advance(4999);
    expect(fx.controller.serviceQueue.len()).toBe(0);
    await fx.clock.advance(1);
    expect(fx.controller.serviceQueue.len()).toBe(1);
    await fx.quiesce();
    expect(fx.api.actions.map((a) => a.verb)).toEqual(['update']);
    expect(fx.api.list()[0]!.endpoints).toHaveLength(3);
  });

  it('a pod resync or an update that changes nothing shown queues nothing; a relabel queues old and new Services', async () => {
    const fx = fixture();
    const a = newService('a');
    const b = newService('b');
    b.spec!.selector = { app: 'b' };
    fx.serviceIndexer.add(a);
    fx.serviceIndexer.add(b);
    const pod = newPod(1);
    fx.podIndexer.add(pod);
    fx.controller.updatePod(pod, pod);
    const annotated = {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: '99', annotations: { x: 'y' } },
    };
    fx.controller.updatePod(pod, annotated);
    expect(fx.controller.serviceQueue.len()).toBe(0);
    const relabelled = {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: '100', labels: { app: 'b' } },
    };
    fx.controller.updatePod(pod, relabelled);
    const keys = [];
    while (fx.controller.serviceQueue.len() > 0)
      keys.push((await fx.controller.serviceQueue.get())[0]);
    expect(keys.sort()).toEqual(['test/a', 'test/b']);
  });
});

describe('run', () => {
  it('syncs through real informers, and resolves with nothing left running once stopped', async () => {
    const clock = new FakeClock();
    const api = new MemoryAPI(clock);
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const factory = new SharedInformerFactory(api.source, 0, { clock });
    const endpointSlices = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const pods = api.client<Pod>('', 'pods');
    const services = api.client<Service>('', 'services');
    await api.client('', 'nodes').create(newNode('node-1', 'zone-a'));
    const controller = new EndpointSliceController({
      pods: factory.pods(),
      services: factory.services(),
      endpointSlices: factory.endpointSlices(),
      nodes: factory.nodes(),
      client: { endpointSlices },
      maxEndpointsPerSlice: 2,
      recorder,
      clock,
    });
    factory.start(stop.signal);
    const running = controller.run(5, stop.signal);
    await services.inNamespace(namespace).create(newService());
    for (let i = 0; i < 5; i++) {
      const { metadata, ...rest } = newPod(i);
      await pods
        .inNamespace(namespace)
        .create({ ...rest, metadata: { name: metadata!.name, labels: metadata!.labels } });
    }
    for (let i = 0; i < 50; i++) {
      await clock.advance(100);
      await settle();
    }
    const slices = (await endpointSlices.inNamespace(namespace).list()).items;
    expect(slices.map((s) => s.endpoints.length).sort()).toEqual([1, 2, 2]);
    expect(slices.flatMap((s) => s.endpoints.map((e) => e.zone))).toEqual(Array(5).fill('zone-a'));
    for (const s of slices) {
      expect(
        s.metadata!.annotations!['endpoints.kubernetes.io/last-change-trigger-time'],
      ).toBeDefined();
    }
    expect(recorder.events).toEqual([]);
    stop.abort();
    await running;
    await factory.shutdown();
    expect(controller.serviceQueue.shuttingDown()).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
    await expect(controller.run(1, stop.signal)).rejects.toThrow(/has stopped/);
  });

  it('rejects a bad worker count', async () => {
    const fx = fixture();
    await expect(fx.controller.run(-1, new AbortController().signal)).rejects.toThrow(RangeError);
  });
});
