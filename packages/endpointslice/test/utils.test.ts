// Ports of staging/src/k8s.io/endpointslice/utils_test.go
// (TestNewEndpointSlice, TestPodToEndpoint, TestServiceControllerKey,
// TestGetEndpointPorts, TestSetEndpointSliceLabels, TestGetSliceToFill,
// TestGetEndpointSlicePrefix / the FindPort cases) and of
// util/controller_utils_test.go (TestShouldPodBeInEndpoints,
// TestPodEndpointsChanged, TestDetermineNeededServiceUpdates,
// TestEndpointsEqualBeyondHash) and util/trigger_time_tracker_test.go.
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  TriggerTimeTracker,
  addTriggerTimeAnnotation,
  controllerQualifiedName,
  endpointsEqualBeyondHash,
  endpointsLastChangeTriggerTime,
  findPort,
  getAddressTypesForService,
  getEndpointAddresses,
  getEndpointPorts,
  getEndpointSlicePrefix,
  getSliceToFill,
  isHeadlessServiceLabel,
  labelManagedBy,
  labelServiceName,
  newEndpointSlice,
  podEndpointsChanged,
  podToEndpoint,
  serviceControllerKey,
  setEndpointSliceLabels,
  shouldPodBeInEndpoints,
} from '../src/index.js';
import { determineNeededServiceUpdates } from '../src/reconciler-util.js';
import { newNode, newPod, newService, namespace, mut } from './helpers.js';

describe('newEndpointSlice (TestNewEndpointSlice)', () => {
  it('is owned by the Service, labelled for it, named from it', () => {
    const svc = newService();
    svc.metadata!.labels = { foo: 'bar' };
    svc.spec!.clusterIP = '10.96.0.10';
    const slice = newEndpointSlice(
      svc,
      { ports: [{ name: 'foo', port: 80, protocol: 'TCP' }], addressType: 'IPv4' },
      controllerQualifiedName,
    );
    expect(slice).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        labels: {
          foo: 'bar',
          [labelServiceName]: 'foo',
          [labelManagedBy]: controllerQualifiedName,
        },
        generateName: 'foo-',
        namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Service',
            name: 'foo',
            uid: 'svc-uid-foo',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      ports: [{ name: 'foo', port: 80, protocol: 'TCP' }],
      addressType: 'IPv4',
      endpoints: [],
    });
  });

  it('a name prefix too long for a generated name drops the dash', () => {
    expect(getEndpointSlicePrefix('foo')).toBe('foo-');
    const long = 'a'.repeat(253);
    expect(getEndpointSlicePrefix(long)).toBe(long);
  });
});

describe('podToEndpoint (TestPodToEndpoint)', () => {
  const svc = newService();
  const node = newNode('node-1', 'us-central1-a');
  const base = (over: Partial<Endpoint> = {}): Endpoint => ({
    addresses: ['10.0.0.1'],
    conditions: { ready: true, serving: true, terminating: false },
    targetRef: { kind: 'Pod', namespace, name: 'pod1', uid: 'pod-uid-1' },
    nodeName: 'node-1',
    ...over,
  });
  it.each([
    { name: 'ready pod', pod: newPod(1), svc, node: undefined, want: base() },
    {
      name: 'ready pod with a zone',
      pod: newPod(1),
      svc,
      node,
      want: base({ zone: 'us-central1-a' }),
    },
    {
      name: 'not ready pod',
      pod: newPod(1, namespace, false),
      svc,
      node: undefined,
      want: base({ conditions: { ready: false, serving: false, terminating: false } }),
    },
    {
      name: 'not ready pod, publishNotReadyAddresses',
      pod: newPod(1, namespace, false),
      svc: { ...svc, spec: { ...svc.spec, publishNotReadyAddresses: true } },
      node: undefined,
      want: base({ conditions: { ready: true, serving: false, terminating: false } }),
    },
    {
      name: 'terminating ready pod',
      pod: newPod(1, namespace, true, 1, true),
      svc,
      node: undefined,
      want: base({ conditions: { ready: false, serving: true, terminating: true } }),
    },
    {
      name: 'terminating pod, publishNotReadyAddresses',
      pod: newPod(1, namespace, false, 1, true),
      svc: { ...svc, spec: { ...svc.spec, publishNotReadyAddresses: true } },
      node: undefined,
      want: base({ conditions: { ready: true, serving: false, terminating: true } }),
    },
  ] as {
    name: string;
    pod: Pod;
    svc: Service;
    node: ReturnType<typeof newNode> | undefined;
    want: Endpoint;
  }[])('$name', ({ pod, svc, node, want }) => {
    expect(podToEndpoint(pod, node, svc, 'IPv4')).toEqual(want);
  });

  it('sets the hostname when the pod’s subdomain is the Service', () => {
    const pod = newPod(1);
    pod.spec!.hostname = 'example-hostname';
    pod.spec!.subdomain = 'foo';
    expect(podToEndpoint(pod, undefined, svc, 'IPv4').hostname).toBe('example-hostname');
    pod.spec!.subdomain = 'other';
    expect(podToEndpoint(pod, undefined, svc, 'IPv4').hostname).toBeUndefined();
  });

  it('takes the addresses of the family, re-stringified', () => {
    const status = {
      podIPs: [{ ip: '010.000.001.002' }, { ip: 'FD00::1' }, { ip: '::ffff:1.2.3.4' }],
    };
    expect(getEndpointAddresses(status, 'IPv4')).toEqual(['10.0.1.2', '1.2.3.4']);
    expect(getEndpointAddresses(status, 'IPv6')).toEqual(['fd00::1']);
  });
});

describe('ports (TestGetEndpointPorts, FindPort)', () => {
  const pod = (): Pod => {
    const p = newPod(1);
    p.spec!.containers[0]!.ports = [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'dns', containerPort: 5353, protocol: 'UDP' },
    ];
    p.spec!.initContainers = [
      {
        name: 'sidecar',
        restartPolicy: 'Always',
        ports: [{ name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
      },
      { name: 'init', ports: [{ name: 'once', containerPort: 7070, protocol: 'TCP' }] },
    ];
    return p;
  };
  it('resolves named target ports per pod, with the protocol, sidecars included', () => {
    expect(findPort(pod(), { port: 80, targetPort: 'http', protocol: 'TCP' })).toBe(8080);
    expect(findPort(pod(), { port: 80, targetPort: 'dns', protocol: 'UDP' })).toBe(5353);
    expect(findPort(pod(), { port: 80, targetPort: 'dns', protocol: 'TCP' })).toBeInstanceOf(Error);
    expect(findPort(pod(), { port: 80, targetPort: 'metrics', protocol: 'TCP' })).toBe(9090);
    expect(findPort(pod(), { port: 80, targetPort: 'once', protocol: 'TCP' })).toBeInstanceOf(
      Error,
    );
    expect(findPort(pod(), { port: 80, targetPort: 8443, protocol: 'TCP' })).toBe(8443);
  });

  it('leaves out ports the pod lacks, and keeps appProtocol', () => {
    const svc: Service = {
      ...newService(),
      spec: {
        selector: { foo: 'bar' },
        ports: [
          { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', appProtocol: 'http' },
          { name: 'missing', port: 81, targetPort: 'nope', protocol: 'TCP' },
          { name: 'num', port: 82, targetPort: 9000, protocol: 'SCTP' },
        ],
      },
    };
    expect(getEndpointPorts(svc, pod())).toEqual([
      { name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' },
      { name: 'num', port: 9000, protocol: 'SCTP' },
    ]);
  });

  it('a headless Service without ports has none', () => {
    const svc: Service = { ...newService(), spec: { clusterIP: 'None', selector: { foo: 'bar' } } };
    expect(getEndpointPorts(svc, pod())).toEqual([]);
  });
});

describe('labels and keys (TestSetEndpointSliceLabels, TestServiceControllerKey)', () => {
  const slice = (labels: Record<string, string>): EndpointSlice => ({
    addressType: 'IPv4',
    endpoints: [],
    metadata: { namespace, name: 'foo-abc', labels },
  });
  it.each([
    {
      name: 'Service labels copied; reserved ones ours',
      svcLabels: { foo: 'bar', [labelServiceName]: 'bad' },
      clusterIP: '10.0.0.1',
      sliceLabels: {},
      want: { foo: 'bar', [labelServiceName]: 'foo', [labelManagedBy]: controllerQualifiedName },
      updated: true,
    },
    {
      name: 'headless Service',
      svcLabels: {},
      clusterIP: 'None',
      sliceLabels: {},
      want: {
        [isHeadlessServiceLabel]: '',
        [labelServiceName]: 'foo',
        [labelManagedBy]: controllerQualifiedName,
      },
      updated: false,
    },
    {
      name: 'a label removed from the Service is removed from the slice',
      svcLabels: {},
      clusterIP: '10.0.0.1',
      sliceLabels: { old: 'x', [labelServiceName]: 'foo' },
      want: { [labelServiceName]: 'foo', [labelManagedBy]: controllerQualifiedName },
      updated: true,
    },
    {
      name: 'nothing changed',
      svcLabels: { a: 'b' },
      clusterIP: '10.0.0.1',
      sliceLabels: { a: 'b', [labelServiceName]: 'foo', [labelManagedBy]: 'someone' },
      want: { a: 'b', [labelServiceName]: 'foo', [labelManagedBy]: controllerQualifiedName },
      updated: false,
    },
  ] as {
    name: string;
    svcLabels: Record<string, string>;
    clusterIP: string;
    sliceLabels: Record<string, string>;
    want: Record<string, string>;
    updated: boolean;
  }[])('$name', ({ svcLabels, clusterIP, sliceLabels, want, updated }) => {
    const svc = newService();
    svc.metadata!.labels = svcLabels;
    svc.spec!.clusterIP = clusterIP;
    expect(setEndpointSliceLabels(slice(sliceLabels), svc, controllerQualifiedName)).toEqual([
      want,
      updated,
    ]);
  });

  it('serviceControllerKey reads the service-name label', () => {
    expect(serviceControllerKey(slice({ [labelServiceName]: 'foo' }))).toBe('test/foo');
    expect(() => serviceControllerKey(slice({}))).toThrow(
      /missing kubernetes.io\/service-name label/,
    );
  });

  it('address types come from ipFamilies, else the cluster IP, else both', () => {
    const svc = newService();
    expect([...getAddressTypesForService(svc)]).toEqual(['IPv4']);
    svc.spec!.ipFamilies = ['IPv6', 'IPv4'];
    expect([...getAddressTypesForService(svc)].sort()).toEqual(['IPv4', 'IPv6']);
    svc.spec!.ipFamilies = undefined;
    svc.spec!.clusterIP = 'fd00::10';
    expect([...getAddressTypesForService(svc)]).toEqual(['IPv6']);
    svc.spec!.clusterIP = 'None';
    expect([...getAddressTypesForService(svc)].sort()).toEqual(['IPv4', 'IPv6']);
  });
});

describe('getSliceToFill (TestGetSliceToFill)', () => {
  const withN = (name: string, n: number): EndpointSlice => ({
    addressType: 'IPv4',
    metadata: { name },
    endpoints: Array.from({ length: n }, (_, i) => ({ addresses: [`10.0.0.${i}`] })),
  });
  it.each([
    { name: 'no slices', slices: [], n: 1, max: 100, want: undefined },
    { name: 'one slice with room', slices: [withN('a', 50)], n: 10, max: 100, want: 'a' },
    { name: 'one slice without room', slices: [withN('a', 95)], n: 10, max: 100, want: undefined },
    {
      name: 'closest to full wins',
      slices: [withN('a', 50), withN('b', 80), withN('c', 95)],
      n: 10,
      max: 100,
      want: 'b',
    },
    {
      name: 'exact fit',
      slices: [withN('a', 10), withN('b', 90), withN('c', 89)],
      n: 10,
      max: 100,
      want: 'b',
    },
    { name: 'empty slice can take it', slices: [withN('a', 0)], n: 99, max: 100, want: 'a' },
  ])('$name', ({ slices, n, max, want }) => {
    expect(getSliceToFill(slices, n, max)?.metadata?.name).toBe(want);
  });
});

describe('pods (TestShouldPodBeInEndpoints, TestPodEndpointsChanged, determineNeededServiceUpdates)', () => {
  it.each([
    { name: 'running with IP', mut: (_p: Pod) => {}, terminating: false, want: true },
    {
      name: 'succeeded',
      mut: (p: Pod) => void (p.status!.phase = 'Succeeded'),
      terminating: false,
      want: false,
    },
    {
      name: 'failed',
      mut: (p: Pod) => void (p.status!.phase = 'Failed'),
      terminating: false,
      want: false,
    },
    {
      name: 'no IP',
      mut: (p: Pod) => void (mut(p).status = { phase: 'Running' }),
      terminating: false,
      want: false,
    },
    {
      name: 'only podIP',
      mut: (p: Pod) => void (p.status!.podIPs = []),
      terminating: false,
      want: true,
    },
    {
      name: 'terminating, excluded',
      mut: (p: Pod) => void (mut(p.metadata!).deletionTimestamp = 'x'),
      terminating: false,
      want: false,
    },
    {
      name: 'terminating, included',
      mut: (p: Pod) => void (mut(p.metadata!).deletionTimestamp = 'x'),
      terminating: true,
      want: true,
    },
  ])('$name', ({ mut, terminating, want }) => {
    const pod = newPod(1);
    mut(pod);
    expect(shouldPodBeInEndpoints(pod, terminating)).toBe(want);
  });

  it.each([
    { name: 'nothing', mut: (_p: Pod) => {}, want: [false, false] },
    {
      name: 'labels',
      mut: (p: Pod) => void (p.metadata!.labels = { x: 'y' }),
      want: [false, true],
    },
    { name: 'hostname', mut: (p: Pod) => void (p.spec!.hostname = 'h'), want: [false, true] },
    { name: 'subdomain', mut: (p: Pod) => void (p.spec!.subdomain = 's'), want: [false, true] },
    {
      name: 'deletion',
      mut: (p: Pod) => void (mut(p.metadata!).deletionTimestamp = 'x'),
      want: [true, false],
    },
    { name: 'readiness', mut: (p: Pod) => void (p.status!.conditions = []), want: [true, false] },
    {
      name: 'IP',
      mut: (p: Pod) => void (p.status!.podIPs = [{ ip: '10.9.9.9' }]),
      want: [true, false],
    },
    {
      name: 'second IP',
      mut: (p: Pod) => void p.status!.podIPs!.push({ ip: 'fd00::1' }),
      want: [true, false],
    },
    {
      name: 'readiness and labels',
      mut: (p: Pod) => {
        p.status!.conditions = [];
        p.metadata!.labels = {};
      },
      want: [true, true],
    },
  ])('changed: $name', ({ mut, want }) => {
    const old = newPod(1);
    const cur = structuredClone(old);
    mut(cur);
    expect(podEndpointsChanged(old, cur)).toEqual(want);
  });

  it.each([
    { a: ['a', 'b'], b: ['a', 'b'], changed: false, want: [] },
    { a: ['a', 'b'], b: ['a', 'b'], changed: true, want: ['a', 'b'] },
    { a: ['a'], b: ['b'], changed: false, want: ['a', 'b'] },
    { a: ['a', 'c'], b: ['a', 'b'], changed: false, want: ['b', 'c'] },
    { a: ['a', 'c'], b: ['a', 'b'], changed: true, want: ['a', 'b', 'c'] },
  ])('services to update: $a → $b (pod changed $changed)', ({ a, b, changed, want }) => {
    expect([...determineNeededServiceUpdates(new Set(a), new Set(b), changed)].sort()).toEqual(
      want,
    );
  });

  it('endpointsEqualBeyondHash compares what the identity leaves out, but not resourceVersion', () => {
    const ep = podToEndpoint(newPod(1), undefined, newService(), 'IPv4');
    expect(endpointsEqualBeyondHash(ep, structuredClone(ep))).toBe(true);
    expect(
      endpointsEqualBeyondHash(ep, { ...ep, targetRef: { ...ep.targetRef, resourceVersion: '9' } }),
    ).toBe(true);
    expect(endpointsEqualBeyondHash(ep, { ...ep, zone: 'z' })).toBe(false);
    expect(endpointsEqualBeyondHash(ep, { ...ep, nodeName: 'node-2' })).toBe(false);
    expect(
      endpointsEqualBeyondHash(ep, { ...ep, conditions: { ...ep.conditions, serving: false } }),
    ).toBe(false);
    expect(
      endpointsEqualBeyondHash(ep, { ...ep, conditions: { ready: true, serving: true } }),
    ).toBe(false);
    expect(endpointsEqualBeyondHash(ep, { ...ep, targetRef: { ...ep.targetRef, uid: 'x' } })).toBe(
      false,
    );
  });
});

describe('trigger time (trigger_time_tracker_test.go, addTriggerTimeAnnotation)', () => {
  const t0 = Date.UTC(2026, 0, 1);
  const at = (s: number) => new Date(t0 + s * 1000).toISOString().replace('.000Z', 'Z');
  const svc = (): Service => ({
    ...newService(),
    metadata: { ...newService().metadata, creationTimestamp: at(0) },
  });
  const pod = (n: number, readyAt: number): Pod => {
    const p = newPod(n);
    p.status!.conditions = [{ type: 'Ready', status: 'True', lastTransitionTime: at(readyAt) }];
    return p;
  };

  it('is the Service creation first, then the earliest change since the last sync', () => {
    const t = new TriggerTimeTracker();
    expect(t.computeEndpointLastChangeTriggerTime(namespace, svc(), [pod(1, 5)])).toBe(t0);
    expect(t.computeEndpointLastChangeTriggerTime(namespace, svc(), [pod(1, 5)])).toBeUndefined();
    expect(t.computeEndpointLastChangeTriggerTime(namespace, svc(), [pod(1, 9), pod(2, 7)])).toBe(
      t0 + 7000,
    );
    t.deleteService(namespace, 'foo');
    expect(t.computeEndpointLastChangeTriggerTime(namespace, svc(), [pod(1, 9)])).toBe(t0);
  });

  it('is written as RFC 3339 with nanoseconds in UTC, or removed', () => {
    const slice: EndpointSlice = { addressType: 'IPv4', endpoints: [] };
    addTriggerTimeAnnotation(slice, t0 + 120);
    expect(slice.metadata!.annotations![endpointsLastChangeTriggerTime]).toBe(
      '2026-01-01T00:00:00.12Z',
    );
    addTriggerTimeAnnotation(slice, t0);
    expect(slice.metadata!.annotations![endpointsLastChangeTriggerTime]).toBe(
      '2026-01-01T00:00:00Z',
    );
    addTriggerTimeAnnotation(slice, undefined);
    expect(slice.metadata!.annotations).toEqual({});
  });
});
