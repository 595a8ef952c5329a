// Ports of staging/src/k8s.io/endpointslice/reconciler_test.go: where the
// reconciler places endpoints (TestReconcileManyPods,
// TestReconcileEndpointSlicesSomePreexisting, ...WorseAllocation,
// ...Updating, ...ServicesLabelsUpdating, ...ServicesReservedLabels,
// ...Recycling, ...UpdatePacking, ...ReplaceDeprecated, ...Recreation,
// ...NamedPorts, TestReconcileMaxEndpointsPerSlice,
// TestReconcilerFinalizeSvcDeletionTimestamp, the placeholder cases of
// TestReconcileEmpty and TestPlaceholderSliceCompare, the pod cases of
// TestReconcile1Pod, TestLastTriggerChangeTimeAnnotation and its
// "Cleared" variant, TestReconcilerPodMissingNode).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { newInternalError, StatusError } from '@kcm-ts/apimachinery';
import { namespaceTerminatingCause } from '@kcm-ts/controller';
import { describe, expect, it } from 'vitest';
import {
  EndpointSliceTracker,
  Reconciler,
  controllerQualifiedName,
  endpointsLastChangeTriggerTime,
  isHeadlessServiceLabel,
  labelManagedBy,
  labelServiceName,
  podToEndpoint,
} from '../src/index.js';
import {
  FakeSliceAPI,
  newEmptyEndpointSlice,
  newNode,
  newPod,
  newService,
  nodeLister,
  namespace,
  mut,
} from './helpers.js';

function setup(max = 100, ...nodes: ReturnType<typeof newNode>[]) {
  const { lister, clock } = nodeLister(...nodes);
  const api = new FakeSliceAPI(clock);
  const tracker = new EndpointSliceTracker();
  const r = new Reconciler({
    client: api.client(),
    nodeLister: lister,
    maxEndpointsPerSlice: max,
    endpointSliceTracker: tracker,
    controllerName: controllerQualifiedName,
  });
  return { api, r, tracker };
}

const lengths = (slices: EndpointSlice[]) =>
  slices.map((s) => (s.endpoints ?? []).length).sort((a, b) => a - b);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const verbs = (api: FakeSliceAPI) => api.actions.map((a) => a.verb);

/** 250 (or n) pods, every third one not ready, as the upstream tests make them. */
const manyPods = (n: number): Pod[] =>
  Array.from({ length: n }, (_, i) => newPod(i, namespace, i % 3 !== 0));

describe('Reconciler placement (reconciler_test.go)', () => {
  it('creates one empty placeholder slice for a Service with no pods', async () => {
    const { api, r } = setup();
    const svc = newService();
    await r.reconcile(svc, [], [], undefined);
    expect(verbs(api)).toEqual(['create']);
    const [slice] = api.list();
    expect(slice!.endpoints).toEqual([]);
    expect(slice!.ports).toEqual([]);
    expect(slice!.addressType).toBe('IPv4');
    expect(slice!.metadata!.labels).toEqual({
      [labelServiceName]: 'foo',
      [labelManagedBy]: controllerQualifiedName,
      [isHeadlessServiceLabel]: '',
    });
    expect(slice!.metadata!.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'foo',
        uid: 'svc-uid-foo',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(slice!.metadata!.generateName).toBe('foo-');
  });

  it('keeps an existing placeholder instead of deleting and re-creating it', async () => {
    const { api, r } = setup();
    const svc = newService();
    await r.reconcile(svc, [], [], undefined);
    const existing = api.list();
    api.actions.length = 0;
    await r.reconcile(svc, [], existing, undefined);
    expect(api.actions).toEqual([]);
  });

  it('turns a slice whose last endpoint left into the placeholder with one update', async () => {
    const { api, r } = setup();
    const svc = newService();
    await r.reconcile(svc, [newPod(1)], [], undefined);
    const existing = api.list();
    api.actions.length = 0;
    await r.reconcile(svc, [], existing, undefined);
    expect(verbs(api)).toEqual(['update']);
    expect(api.list()).toHaveLength(1);
    expect(api.list()[0]!.endpoints).toEqual([]);
    expect(api.list()[0]!.ports).toEqual([]);
  });

  it('TestReconcileManyPods: 250 pods make 3 slices, 2 of them full', async () => {
    const { api, r } = setup();
    await r.reconcile(newService(), manyPods(250), [], undefined);
    expect(verbs(api)).toEqual(['create', 'create', 'create']);
    expect(lengths(api.list())).toEqual([50, 100, 100]);
  });

  it('SomePreexisting: 27 leftover endpoints go to the slice they fill best (1 create + 1 update)', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(250);
    const s1 = newEmptyEndpointSlice(1, svc);
    for (let i = 1; i < pods.length - 4; i += 4) {
      s1.endpoints.push(podToEndpoint(pods[i]!, undefined, svc, 'IPv4'));
    }
    const s2 = newEmptyEndpointSlice(2, svc);
    for (let i = 3; i < pods.length - 4; i += 4) {
      s2.endpoints.push(podToEndpoint(pods[i]!, undefined, svc, 'IPv4'));
    }
    const existing = api.seed(s1, s2);
    const before = structuredClone(existing);
    await r.reconcile(svc, pods, existing, undefined);
    expect(verbs(api)).toEqual(['create', 'update']);
    expect(lengths(api.list())).toEqual(sorted([89, 61, 100]));
    expect(existing).toEqual(before); // the cache's objects are never changed
  });

  it('SomePreexistingWorseAllocation: 52 leftover endpoints get a new slice (2 creates)', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(300);
    const s1 = newEmptyEndpointSlice(1, svc);
    for (let i = 1; i < pods.length - 4; i += 4) {
      s1.endpoints.push(podToEndpoint(pods[i]!, undefined, svc, 'IPv4'));
    }
    const s2 = newEmptyEndpointSlice(2, svc);
    for (let i = 3; i < pods.length - 4; i += 4) {
      s2.endpoints.push(podToEndpoint(pods[i]!, undefined, svc, 'IPv4'));
    }
    const existing = api.seed(s1, s2);
    await r.reconcile(svc, pods, existing, undefined);
    expect(verbs(api)).toEqual(['create', 'create']);
    expect(lengths(api.list())).toEqual(sorted([74, 74, 100, 52]));
  });

  it('Updating: a target port change updates every slice in place', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(250);
    await r.reconcile(svc, pods, [], undefined);
    api.actions.length = 0;
    svc.spec!.ports![0]!.targetPort = 81;
    await r.reconcile(svc, pods, api.list(), undefined);
    expect(verbs(api)).toEqual(['update', 'update', 'update']);
    expect(lengths(api.list())).toEqual([50, 100, 100]);
    for (const s of api.list())
      expect(s.ports).toEqual([{ name: 'foo', port: 81, protocol: 'TCP' }]);
  });

  it('ServicesLabelsUpdating: new Service labels are copied to every slice by update', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(250);
    await r.reconcile(svc, pods, [], undefined);
    api.actions.length = 0;
    svc.metadata!.labels = { foo: 'bar' };
    await r.reconcile(svc, pods, api.list(), undefined);
    expect(verbs(api)).toEqual(['update', 'update', 'update']);
    for (const s of api.list()) expect(s.metadata!.labels!.foo).toBe('bar');
  });

  it('ServicesReservedLabels: reserved labels on the Service change nothing', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(250);
    await r.reconcile(svc, pods, [], undefined);
    api.actions.length = 0;
    svc.metadata!.labels = {
      [labelServiceName]: 'bad',
      [labelManagedBy]: 'actor',
      [isHeadlessServiceLabel]: 'invalid',
    };
    await r.reconcile(svc, pods, api.list(), undefined);
    expect(api.actions).toEqual([]);
  });

  it('Recycling: 10 slices of 30 stay put, then a port change repacks them into 3 (3 updates + 7 deletes)', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods = manyPods(300);
    const slices: EndpointSlice[] = [];
    pods.forEach((pod, i) => {
      if (i % 30 === 0) slices.push(newEmptyEndpointSlice(i / 30, svc));
      slices[Math.floor(i / 30)]!.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
    });
    const existing = api.seed(...slices);
    await r.reconcile(svc, pods, existing, undefined);
    expect(api.actions).toEqual([]);
    svc.spec!.ports![0]!.targetPort = 81;
    await r.reconcile(svc, pods, existing, undefined);
    expect(verbs(api).filter((v) => v === 'update')).toHaveLength(3);
    expect(verbs(api).filter((v) => v === 'delete')).toHaveLength(7);
    expect(api.actions).toHaveLength(10);
    expect(lengths(api.list())).toEqual([100, 100, 100]);
  });

  it('UpdatePacking: new endpoints fill the fullest slice already being updated', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods: Pod[] = [];
    const s1 = newEmptyEndpointSlice(1, svc);
    for (let i = 0; i < 80; i++) {
      const pod = newPod(i);
      s1.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
      pods.push(pod);
    }
    const s2 = newEmptyEndpointSlice(2, svc);
    for (let i = 100; i < 120; i++) {
      const pod = newPod(i);
      s2.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
      pods.push(pod);
    }
    const existing = api.seed(s1, s2);
    pods.forEach((pod, i) => {
      if (i % 10 === 0) pod.status!.conditions = [{ type: 'Ready', status: 'False' }];
    });
    for (let i = 200; i < 215; i++) pods.push(newPod(i));
    await r.reconcile(svc, pods, existing, undefined);
    expect(verbs(api)).toEqual(['update', 'update']);
    expect(lengths(api.list())).toEqual([20, 95]);
  });

  it('ReplaceDeprecated: slices of the old "IP" address type are replaced by packed IPv4 ones', async () => {
    const { api, r } = setup();
    const svc = newService();
    const pods: Pod[] = [];
    const s1 = { ...newEmptyEndpointSlice(1, svc), addressType: 'IP' };
    for (let i = 0; i < 80; i++) {
      const pod = newPod(i);
      s1.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
      pods.push(pod);
    }
    const s2 = { ...newEmptyEndpointSlice(2, svc), addressType: 'IP' };
    for (let i = 100; i < 150; i++) {
      const pod = newPod(i);
      s2.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
      pods.push(pod);
    }
    const existing = api.seed(s1, s2);
    await r.reconcile(svc, pods, existing, undefined);
    expect(verbs(api).filter((v) => v === 'delete')).toHaveLength(2);
    expect(lengths(api.list())).toEqual([30, 100]);
    for (const s of api.list()) expect(s.addressType).toBe('IPv4');
  });

  it.each([
    { name: 'slice owned by the Service', owned: true, expected: [] as string[] },
    { name: 'slice owned by another Service uid', owned: false, expected: ['create', 'delete'] },
  ])('Recreation: $name', async ({ owned, expected }) => {
    const { api, r } = setup();
    const svc = newService();
    const pod = newPod(1);
    const slice = newEmptyEndpointSlice(1, svc);
    slice.endpoints.push(podToEndpoint(pod, undefined, svc, 'IPv4'));
    if (!owned) slice.metadata!.ownerReferences![0]!.uid = 'different';
    const existing = api.seed(slice);
    await r.reconcile(svc, [pod], existing, undefined);
    expect(verbs(api)).toEqual(expected);
    expect(api.list()).toHaveLength(1);
  });

  it('NamedPorts: pods resolving a named port differently get slices of their own', async () => {
    const { api, r } = setup();
    const svc: Service = {
      ...newService('named-port-example'),
      spec: {
        ports: [{ targetPort: 'http', protocol: 'TCP', port: 80 }],
        selector: { foo: 'bar' },
        ipFamilies: ['IPv4'],
      },
    };
    const pods = Array.from({ length: 300 }, (_, i) => {
      const pod = newPod(i, namespace, i % 3 !== 0);
      pod.spec!.containers[0]!.ports = [
        { name: 'http', containerPort: 8080 + (i % 5), protocol: 'TCP' },
      ];
      return pod;
    });
    await r.reconcile(svc, pods, [], undefined);
    expect(verbs(api)).toEqual(['create', 'create', 'create', 'create', 'create']);
    expect(lengths(api.list())).toEqual([60, 60, 60, 60, 60]);
    expect(
      api
        .list()
        .map((s) => s.ports![0]!.port)
        .sort(),
    ).toEqual([8080, 8081, 8082, 8083, 8084]);
    for (const s of api.list()) {
      expect(s.ports).toEqual([{ name: '', port: s.ports![0]!.port, protocol: 'TCP' }]);
      expect(s.addressType).toBe('IPv4');
    }
  });

  it.each([
    { max: 50, expected: [50, 50, 50, 50, 50] },
    { max: 80, expected: [10, 80, 80, 80] },
    { max: 150, expected: [100, 150] },
    { max: 250, expected: [250] },
    { max: 500, expected: [250] },
  ])('MaxEndpointsPerSlice $max', async ({ max, expected }) => {
    const { api, r } = setup(max);
    await r.reconcile(newService(), manyPods(250), [], undefined);
    expect(lengths(api.list())).toEqual(expected);
    expect(api.actions.every((a) => a.verb === 'create')).toBe(true);
  });
});

describe('finalize with a Service being deleted (TestReconcilerFinalizeSvcDeletionTimestamp)', () => {
  // toDeleteRemains: the slice named to-delete still exists afterwards (as
  // itself, or as the slice to create recycled into it).
  it.each([
    {
      name: 'create and update, not deleting',
      deleting: false,
      create: true,
      del: false,
      created: true,
      toDeleteRemains: true,
    },
    {
      name: 'create and update, deleting',
      deleting: true,
      create: true,
      del: false,
      created: false,
      toDeleteRemains: true,
    },
    {
      name: 'create, update and delete, not deleting (recycled)',
      deleting: false,
      create: true,
      del: true,
      created: false,
      toDeleteRemains: true,
    },
    {
      name: 'create, update and delete, deleting (recycled)',
      deleting: true,
      create: true,
      del: true,
      created: false,
      toDeleteRemains: true,
    },
    {
      name: 'update and delete, deleting',
      deleting: true,
      create: false,
      del: true,
      created: false,
      toDeleteRemains: false,
    },
  ])('$name', async ({ deleting, create, del, created, toDeleteRemains }) => {
    const { api, r } = setup();
    const svc = newService();
    if (deleting) mut(svc.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    const base = newEmptyEndpointSlice(0, svc);
    const mk = (name: string): EndpointSlice => ({
      ...structuredClone(base),
      metadata: { ...structuredClone(base.metadata), name },
    });
    const toCreate = mk('to-create');
    const [toUpdate, toDelete] = api.seed(mk('to-update'), mk('to-delete'));
    toUpdate!.endpoints = [{ addresses: ['10.2.3.4'] }];
    await r.finalize(
      svc,
      create ? [structuredClone(toCreate)] : [],
      [structuredClone(toUpdate!)],
      del ? [structuredClone(toDelete!)] : [],
      undefined,
    );
    const names = api.list().map((s) => s.metadata!.name);
    expect(names.includes('to-create')).toBe(created);
    expect(names.includes('to-delete')).toBe(toDeleteRemains);
    const updated = api.list().find((s) => s.metadata!.name === 'to-update');
    expect(updated!.endpoints).toEqual([{ addresses: ['10.2.3.4'] }]);
  });
});

describe('endpoints (TestReconcile1Pod and friends)', () => {
  it('one ready pod: addresses, conditions, target, node and zone', async () => {
    const { api, r } = setup(100, newNode('node-1', 'us-central1-a'));
    await r.reconcile(newService(), [newPod(1)], [], undefined);
    const [slice] = api.list();
    expect(slice!.endpoints).toEqual([
      {
        addresses: ['10.0.0.1'],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: 'Pod', namespace, name: 'pod1', uid: 'pod-uid-1' },
        nodeName: 'node-1',
        zone: 'us-central1-a',
      },
    ]);
    expect(slice!.ports).toEqual([{ name: 'foo', port: 80, protocol: 'TCP' }]);
  });

  it('a terminating pod: serving but not ready, unless publishNotReadyAddresses', async () => {
    const pod = newPod(1, namespace, true, 1, true);
    const { api, r } = setup();
    await r.reconcile(newService(), [pod], [], undefined);
    expect(api.list()[0]!.endpoints[0]!.conditions).toEqual({
      ready: false,
      serving: true,
      terminating: true,
    });
    const b = setup();
    const svc = newService();
    svc.spec!.publishNotReadyAddresses = true;
    await b.r.reconcile(svc, [newPod(2, namespace, false)], [], undefined);
    expect(b.api.list()[0]!.endpoints[0]!.conditions).toEqual({
      ready: true,
      serving: false,
      terminating: false,
    });
  });

  it('dual-stack and IPv6 Services get one slice per family; pods without an IP of a family are left out', async () => {
    const { api, r } = setup();
    const svc = newService();
    svc.spec!.ipFamilies = ['IPv4', 'IPv6'];
    await r.reconcile(svc, [newPod(1)], [], undefined);
    const byType = Object.fromEntries(api.list().map((s) => [s.addressType, s.endpoints.length]));
    expect(byType).toEqual({ IPv4: 1, IPv6: 0 });
  });

  it('pods that are terminal or have no IP are left out', async () => {
    const { api, r } = setup();
    const done = newPod(1);
    done.status!.phase = 'Succeeded';
    const noIP = newPod(2);
    mut(noIP).status = { phase: 'Pending' };
    await r.reconcile(newService(), [done, noIP, newPod(3)], [], undefined);
    expect(api.list()[0]!.endpoints.map((e) => e.targetRef!.name)).toEqual(['pod3']);
  });

  it('a pod whose node is missing is skipped and the sync fails, unless publishNotReadyAddresses', async () => {
    const { api, r } = setup();
    const pod = newPod(1);
    pod.spec!.nodeName = 'node-gone';
    await expect(r.reconcile(newService(), [pod, newPod(2)], [], undefined)).rejects.toThrow(
      /skipping Pod pod1 for Service test\/foo: Node node-gone Not Found/,
    );
    expect(api.list()[0]!.endpoints.map((e) => e.targetRef!.name)).toEqual(['pod2']);
    const b = setup();
    const svc = newService();
    svc.spec!.publishNotReadyAddresses = true;
    await b.r.reconcile(svc, [pod], [], undefined);
    expect(b.api.list()[0]!.endpoints[0]!.nodeName).toBe('node-gone');
  });

  it('writes the last-change-trigger-time annotation, and clears it when there is none', async () => {
    const { api, r } = setup();
    const svc = newService();
    const t = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
    await r.reconcile(svc, [newPod(1)], [], t);
    expect(api.list()[0]!.metadata!.annotations).toEqual({
      [endpointsLastChangeTriggerTime]: '2026-01-01T12:00:00.25Z',
    });
    await r.reconcile(svc, [newPod(1, namespace, false)], api.list(), undefined);
    expect(api.list()[0]!.metadata!.annotations).toEqual({});
  });

  it('drops the work quietly when the namespace is terminating, and reports other write errors', async () => {
    const { api, r } = setup();
    api.failNext.set(
      'create',
      new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: 'namespace test is being terminated',
        details: { causes: [{ reason: namespaceTerminatingCause }] },
      }),
    );
    await r.reconcile(newService(), [newPod(1)], [], undefined);
    expect(api.list()).toEqual([]);
    api.failNext.set('create', newInternalError(new Error('boom')));
    await expect(r.reconcile(newService(), [newPod(1)], [], undefined)).rejects.toThrow(
      /failed to create EndpointSlice for Service test\/foo/,
    );
  });

  it('records its writes in the tracker, and its deletions as expected', async () => {
    const { api, r, tracker } = setup();
    const svc = newService();
    await r.reconcile(svc, manyPods(150), [], undefined);
    for (const s of api.list()) expect(tracker.shouldSync(s)).toBe(false);
    const existing = api.list();
    api.actions.length = 0;
    await r.reconcile(svc, manyPods(150), existing, undefined);
    expect(api.actions).toEqual([]);
    await r.reconcile(svc, [], existing, undefined);
    expect(tracker.staleSlices(svc, api.list())).toBe(false);
    expect(tracker.staleSlices(svc, existing)).toBe(true);
  });
});
