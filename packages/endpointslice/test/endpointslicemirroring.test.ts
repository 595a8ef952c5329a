// Ports of pkg/controller/endpointslicemirroring: reconciler_test.go's
// TestReconcile (slice and client-action counts and the metrics), and
// endpointslicemirroring_controller_test.go's TestSyncEndpoints,
// TestShouldMirror and TestEndpointSlicesMirroredForService; plus the
// handlers, labels and annotations carried over, IP re-stringifying,
// recycling, a lagging cache and run() through real informers.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type {
  EndpointAddress,
  EndpointSubset,
  Endpoints,
  Service,
} from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  EndpointSliceMirroringController,
  EndpointSliceMirroringMetrics,
  EndpointSliceTracker,
  MirroringReconciler,
  addressToEndpoint,
  endpointSliceMirroringMetricDescriptors,
  labelManagedBy,
  labelServiceName,
  labelSkipMirror,
  leaderElectionRecordAnnotationKey,
  mirroringControllerQualifiedName,
  newMirroredEndpointSlice,
  type EndpointSliceMetricDescriptor,
  type EndpointSliceMetricsProvider,
} from '../src/index.js';
import { mirroringFixture } from './endpoints-helpers.js';
import { mut, settle } from './helpers.js';
import { MemoryAPI } from './memory-api.js';

/** A provider that keeps every value: counters and histograms summed, gauges set. */
function recordingProvider() {
  const values = new Map<string, number>();
  const key = (d: EndpointSliceMetricDescriptor, labels: string[]) =>
    labels.length > 0 ? `${d.name}{${labels.join(',')}}` : d.name;
  const add = (k: string, v: number) => void values.set(k, (values.get(k) ?? 0) + v);
  const provider: EndpointSliceMetricsProvider = {
    newCounterVec: (d) => ({
      withLabelValues: (...l) => ({ inc: () => add(key(d, l), 1), add: (v) => add(key(d, l), v) }),
    }),
    newHistogramVec: (d) => ({
      withLabelValues: (...l) => ({ observe: (v) => add(key(d, l), v) }),
    }),
    newGaugeVec: (d) => ({
      withLabelValues: (...l) => ({ set: (v) => void values.set(key(d, l), v) }),
    }),
  };
  return { provider, values };
}

const http = (port: number, name = 'http') => ({ name, port, protocol: 'TCP' });
const https = (port: number) => ({ name: 'https', port, protocol: 'UDP' });
const addr = (ip: string, hostname: string, node: string): EndpointAddress => ({
  ip,
  hostname,
  nodeName: node,
});
const twoSubsets = (first: EndpointAddress[], second: EndpointAddress[]): EndpointSubset[] => [
  { ports: [http(80), https(443)], addresses: first },
  { ports: [http(3000), https(3001)], addresses: second },
];
const v4first = [addr('10.0.0.1', 'pod-1', 'node-1'), addr('10.0.0.2', 'pod-2', 'node-2')];
const v4second = [
  addr('10.0.1.1', 'pod-11', 'node-1'),
  addr('10.0.1.2', 'pod-12', 'node-2'),
  addr('10.0.1.3', 'pod-13', 'node-3'),
];
const existingSlice = (endpoints: EndpointSlice['endpoints'] = []): EndpointSlice => ({
  metadata: { name: 'test-ep-1' },
  addressType: 'IPv4',
  ports: [http(80), https(443)],
  endpoints,
});

interface Want {
  desiredSlices?: number;
  actualSlices?: number;
  desiredEndpoints?: number;
  addedPerSync?: number;
  updatedPerSync?: number;
  removedPerSync?: number;
  skippedPerSync?: number;
  numCreated?: number;
  numUpdated?: number;
  numDeleted?: number;
}

describe('MirroringReconciler.reconcile (TestReconcile)', () => {
  const cases: {
    name: string;
    subsets: EndpointSubset[];
    deletionPending?: boolean;
    max?: number;
    existing?: EndpointSlice[];
    slices: number;
    actions: number;
    metrics?: Want;
  }[] = [
    { name: 'Endpoints with no subsets', subsets: [], slices: 0, actions: 0, metrics: {} },
    {
      name: 'Endpoints with no addresses',
      subsets: [{ ports: [http(80)] }],
      slices: 0,
      actions: 0,
      metrics: {},
    },
    {
      name: 'Endpoints with 1 subset, port, and address',
      subsets: [{ ports: [http(80)], addresses: [addr('10.0.0.1', 'pod-1', 'node-1')] }],
      slices: 1,
      actions: 1,
      metrics: {
        desiredSlices: 1,
        actualSlices: 1,
        desiredEndpoints: 1,
        addedPerSync: 1,
        numCreated: 1,
      },
    },
    {
      name: 'Endpoints with 1 subset, port, and address, pending deletion',
      subsets: [{ ports: [http(80)], addresses: [addr('10.0.0.1', 'pod-1', 'node-1')] }],
      deletionPending: true,
      slices: 0,
      actions: 0,
    },
    {
      name: 'Endpoints with 1 subset, 2 ports, and 2 addresses',
      subsets: [{ ports: [http(80), https(443)], addresses: v4first }],
      slices: 1,
      actions: 1,
      metrics: {
        desiredSlices: 1,
        actualSlices: 1,
        desiredEndpoints: 2,
        addedPerSync: 2,
        numCreated: 1,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports and addresses',
      subsets: twoSubsets(v4first, v4second),
      slices: 2,
      actions: 2,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 5,
        addedPerSync: 5,
        numCreated: 2,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports and addresses, existing empty EndpointSlice',
      subsets: twoSubsets(v4first, v4second),
      existing: [existingSlice()],
      slices: 2,
      actions: 2,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 5,
        addedPerSync: 5,
        numCreated: 1,
        numUpdated: 1,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice with some addresses',
      subsets: twoSubsets(v4first, v4second),
      existing: [
        existingSlice([
          { addresses: ['10.0.0.2'], hostname: 'pod-2' },
          { addresses: ['10.0.0.1', '10.0.0.3'], hostname: 'pod-1' },
        ]),
      ],
      slices: 2,
      actions: 2,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 5,
        addedPerSync: 4,
        updatedPerSync: 1,
        removedPerSync: 1,
        numCreated: 1,
        numUpdated: 1,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice identical to subset',
      subsets: twoSubsets(v4first, v4second),
      existing: [
        existingSlice([
          {
            addresses: ['10.0.0.1'],
            hostname: 'pod-1',
            nodeName: 'node-1',
            conditions: { ready: true },
          },
          {
            addresses: ['10.0.0.2'],
            hostname: 'pod-2',
            nodeName: 'node-2',
            conditions: { ready: true },
          },
        ]),
      ],
      slices: 2,
      actions: 1,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 5,
        addedPerSync: 3,
        numCreated: 1,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports, and dual stack addresses',
      subsets: twoSubsets(
        [
          addr('2001:db8:2222:3333:4444:5555:6666:7777', 'pod-1', 'node-1'),
          addr('10.0.0.2', 'pod-2', 'node-2'),
        ],
        [
          addr('10.0.1.1', 'pod-11', 'node-1'),
          addr('10.0.1.2', 'pod-12', 'node-2'),
          addr('2001:db8:3333:4444:5555:6666:7777:8888', 'pod-13', 'node-3'),
        ],
      ),
      slices: 4,
      actions: 4,
      metrics: {
        desiredSlices: 4,
        actualSlices: 4,
        desiredEndpoints: 5,
        addedPerSync: 5,
        numCreated: 4,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports, some invalid addresses',
      subsets: twoSubsets(
        [
          addr('2001:db8:1111:3333:4444:5555:6666:7777', 'pod-1', 'node-1'),
          addr('this-is-not-an-ip', 'pod-2', 'node-2'),
        ],
        [
          addr('this-is-also-not-an-ip', 'pod-11', 'node-1'),
          addr('2001:db8:4444:3333:4444:5555:6666:7777', 'pod-12', 'node-2'),
          addr('2001:db8:5555:3333:4444:5555:6666:7777', 'pod-13', 'node-3'),
        ],
      ),
      slices: 2,
      actions: 2,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 3,
        addedPerSync: 3,
        skippedPerSync: 2,
        numCreated: 2,
      },
    },
    {
      name: 'Endpoints with 2 subsets, multiple ports, all invalid addresses',
      subsets: twoSubsets(
        [
          addr('this-is-not-an-ip1', 'pod-1', 'node-1'),
          addr('this-is-not-an-ip12', 'pod-2', 'node-2'),
        ],
        [
          addr('this-is-not-an-ip11', 'pod-11', 'node-1'),
          addr('this-is-not-an-ip12', 'pod-12', 'node-2'),
          addr('this-is-not-an-ip3', 'pod-13', 'node-3'),
        ],
      ),
      slices: 0,
      actions: 0,
      metrics: { skippedPerSync: 5 },
    },
    {
      name: 'Endpoints with 2 subsets, 1 exceeding maxEndpointsPerSubset',
      subsets: twoSubsets(v4first, v4second),
      max: 2,
      slices: 2,
      actions: 2,
      metrics: {
        desiredSlices: 2,
        actualSlices: 2,
        desiredEndpoints: 4,
        addedPerSync: 4,
        skippedPerSync: 1,
        numCreated: 2,
      },
    },
  ];

  it.each(cases)('$name', async (tc) => {
    const clock = new FakeClock();
    const api = new MemoryAPI(clock);
    const client = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const { provider, values } = recordingProvider();
    const max = tc.max ?? 1000;
    const recorder = new FakeRecorder();
    const reconciler = new MirroringReconciler({
      client,
      maxEndpointsPerSubset: max,
      metrics: new EndpointSliceMirroringMetrics(max, provider),
      recorder,
    });
    const endpoints: Endpoints = {
      metadata: {
        name: 'test-ep',
        namespace: 'test',
        uid: 'ep-uid',
        ...(tc.deletionPending && { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      },
      subsets: tc.subsets,
    };
    const existing: EndpointSlice[] = [];
    for (const s of tc.existing ?? []) {
      const slice = structuredClone(s);
      slice.metadata!.labels = {
        [labelServiceName]: 'test-ep',
        [labelManagedBy]: mirroringControllerQualifiedName,
      };
      existing.push(await client.inNamespace('test').create(slice));
    }
    api.writes.length = 0;
    await reconciler.reconcile(endpoints, existing);
    expect(api.writes).toHaveLength(tc.actions);
    const slices = (await client.inNamespace('test').list()).items;
    expect(slices).toHaveLength(tc.slices);
    // Every slice is named after the Endpoints, labelled for it and holds at most `max`.
    for (const s of slices) {
      expect(s.metadata!.name!.startsWith('test-ep')).toBe(true);
      expect(s.metadata!.labels![labelServiceName]).toBe('test-ep');
      expect(s.endpoints.length).toBeLessThanOrEqual(max);
      // A slice written by the reconciler is owned by the Endpoints (a seeded one kept as is is not).
      if (s.metadata!.name === 'test-ep-1' && s.metadata!.ownerReferences === undefined) continue;
      expect(s.metadata!.ownerReferences).toEqual([
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          name: 'test-ep',
          uid: 'ep-uid',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    if (tc.metrics !== undefined) {
      const m = endpointSliceMirroringMetricDescriptors;
      const w = tc.metrics;
      expect({
        desiredSlices: values.get(m.desiredEndpointSlices.name) ?? 0,
        actualSlices: values.get(m.numEndpointSlices.name) ?? 0,
        desiredEndpoints: values.get(m.endpointsDesired.name) ?? 0,
        addedPerSync: values.get(m.endpointsAddedPerSync.name) ?? 0,
        updatedPerSync: values.get(m.endpointsUpdatedPerSync.name) ?? 0,
        removedPerSync: values.get(m.endpointsRemovedPerSync.name) ?? 0,
        skippedPerSync: values.get(m.addressesSkippedPerSync.name) ?? 0,
        numCreated: values.get(`${m.endpointSliceChanges.name}{create}`) ?? 0,
        numUpdated: values.get(`${m.endpointSliceChanges.name}{update}`) ?? 0,
        numDeleted: values.get(`${m.endpointSliceChanges.name}{delete}`) ?? 0,
      }).toEqual({
        desiredSlices: w.desiredSlices ?? 0,
        actualSlices: w.actualSlices ?? 0,
        desiredEndpoints: w.desiredEndpoints ?? 0,
        addedPerSync: w.addedPerSync ?? 0,
        updatedPerSync: w.updatedPerSync ?? 0,
        removedPerSync: w.removedPerSync ?? 0,
        skippedPerSync: w.skippedPerSync ?? 0,
        numCreated: w.numCreated ?? 0,
        numUpdated: w.numUpdated ?? 0,
        numDeleted: w.numDeleted ?? 0,
      });
    }
  });

  it('records InvalidIPAddress and TooManyAddressesToMirror on the Endpoints', async () => {
    const api = new MemoryAPI(new FakeClock());
    const recorder = new FakeRecorder();
    const reconciler = new MirroringReconciler({
      client: api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices'),
      maxEndpointsPerSubset: 2,
      recorder,
    });
    await reconciler.reconcile(
      {
        metadata: { name: 'e', namespace: 'test' },
        subsets: [
          {
            ports: [http(80)],
            addresses: [
              { ip: '1.2.3' /* not an IP; sorts first once repacked */ },
              { ip: '10.0.0.1' },
              { ip: '10.0.0.2' },
              { ip: '10.0.0.3' },
            ],
          },
        ],
      },
      [],
    );
    expect(recorder.events).toEqual([
      'Warning InvalidIPAddress Skipped 1 invalid IP addresses when mirroring to EndpointSlices',
      'Warning TooManyAddressesToMirror A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 2 addresses were skipped',
    ]);
  });

  it('recycles a slice to delete into a slice to create, for each address type', async () => {
    const api = new MemoryAPI(new FakeClock());
    const client = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const reconciler = new MirroringReconciler({ client, maxEndpointsPerSubset: 10 });
    const mk = async (addressType: 'IPv4' | 'IPv6', port: number, ip: string) =>
      client.inNamespace('test').create({
        metadata: {
          generateName: 'e-',
          labels: { [labelServiceName]: 'e', [labelManagedBy]: mirroringControllerQualifiedName },
        },
        addressType,
        ports: [http(port)],
        endpoints: [{ addresses: [ip], conditions: { ready: true } }],
      });
    const old = [await mk('IPv4', 80, '10.0.0.1'), await mk('IPv6', 80, '2001:db8::1')];
    api.writes.length = 0;
    // Port 80 became 81: each old slice is rewritten for the new port, none created or deleted.
    await reconciler.reconcile(
      {
        metadata: { name: 'e', namespace: 'test' },
        subsets: [{ ports: [http(81)], addresses: [{ ip: '10.0.0.1' }, { ip: '2001:db8::1' }] }],
      },
      old,
    );
    expect(api.writes.map((w) => w.split(' ')[0])).toEqual(['update', 'update']);
    const slices = (await client.inNamespace('test').list()).items;
    expect(slices.map((s) => [s.addressType, s.ports![0]!.port]).sort()).toEqual([
      ['IPv4', 81],
      ['IPv6', 81],
    ]);
  });

  it('rejects a cap below 1', () => {
    const api = new MemoryAPI(new FakeClock());
    expect(
      () =>
        new MirroringReconciler({
          client: api.client('discovery.k8s.io', 'endpointslices'),
          maxEndpointsPerSubset: 0,
        }),
    ).toThrow(RangeError);
  });
});

describe('mirrored slices', () => {
  it('carry the Endpoints’ labels and annotations but the trigger time and kubectl’s', () => {
    const slice = newMirroredEndpointSlice(
      {
        metadata: {
          name: 'e',
          namespace: 'ns',
          uid: 'u',
          labels: { app: 'x', [labelServiceName]: 'spoofed' },
          annotations: {
            keep: 'me',
            'endpoints.kubernetes.io/last-change-trigger-time': 't',
            'kubectl.kubernetes.io/last-applied-configuration': '{}',
          },
        },
      },
      [http(80)],
      'IPv4',
      '',
    );
    expect(slice.metadata).toMatchObject({
      generateName: 'e-',
      namespace: 'ns',
      labels: {
        app: 'x',
        [labelServiceName]: 'e',
        [labelManagedBy]: mirroringControllerQualifiedName,
      },
      annotations: { keep: 'me' },
    });
  });

  it('re-stringify IPs in canonical form, typed by family (addressToEndpoint)', () => {
    expect(addressToEndpoint({ ip: '010.000.000.001' }, true)).toEqual([
      { addresses: ['10.0.0.1'], conditions: { ready: true } },
      'IPv4',
    ]);
    expect(
      addressToEndpoint({ ip: '2001:DB8:0:0:0:0:0:1', nodeName: 'n', hostname: 'h' }, false),
    ).toEqual([
      { addresses: ['2001:db8::1'], conditions: { ready: false }, nodeName: 'n', hostname: 'h' },
      'IPv6',
    ]);
    expect(addressToEndpoint({ ip: '::ffff:1.2.3.4' }, true)?.[1]).toBe('IPv4');
    expect(addressToEndpoint({ ip: 'not-an-ip' }, true)).toBeUndefined();
    expect(addressToEndpoint({ ip: '1.2.3.256' }, true)).toBeUndefined();
  });
});

describe('EndpointSliceMirroringController.syncEndpoints (TestSyncEndpoints)', () => {
  const generateAddresses = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ ip: `10.0.${Math.floor(i / 255)}.${i % 255}` }));
  const name = 'testing-sync-endpoints';
  const cases: {
    name: string;
    service: Service | undefined;
    endpoints: Endpoints;
    slices?: EndpointSlice[];
    actions: number;
    events?: number;
    numSlices: number;
  }[] = [
    {
      name: 'Endpoints with no addresses',
      service: {},
      endpoints: { subsets: [{ ports: [{ port: 80 }] }] },
      actions: 0,
      numSlices: 0,
    },
    {
      name: 'Endpoints with skip label true',
      service: {},
      endpoints: {
        metadata: { labels: { [labelSkipMirror]: 'true' } },
        subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: '10.0.0.1' }] }],
      },
      actions: 0,
      numSlices: 0,
    },
    {
      name: 'Endpoints with skip label false',
      service: {},
      endpoints: {
        metadata: { labels: { [labelSkipMirror]: 'false' } },
        subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: '10.0.0.1' }] }],
      },
      actions: 1,
      numSlices: 1,
    },
    {
      name: 'Endpoints with missing Service',
      service: undefined,
      endpoints: { subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: '10.0.0.1' }] }] },
      actions: 0,
      numSlices: 0,
    },
    {
      name: 'Endpoints with Service with selector specified',
      service: { spec: { selector: { foo: 'bar' } } },
      endpoints: { subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: '10.0.0.1' }] }] },
      actions: 0,
      numSlices: 0,
    },
    {
      name: 'Existing EndpointSlices that need to be cleaned up',
      service: {},
      endpoints: { subsets: [{ ports: [{ port: 80 }] }] },
      slices: [
        {
          metadata: {
            name: `${name}-1`,
            labels: {
              [labelServiceName]: name,
              [labelManagedBy]: mirroringControllerQualifiedName,
            },
          },
          addressType: 'IPv4',
          endpoints: [],
        },
      ],
      actions: 1,
      numSlices: 0,
    },
    {
      name: 'Existing EndpointSlices managed by a different controller, no addresses to sync',
      service: {},
      endpoints: { subsets: [{ ports: [{ port: 80 }] }] },
      slices: [
        {
          metadata: { name: `${name}-1`, labels: { [labelManagedBy]: 'something-else' } },
          addressType: 'IPv4',
          endpoints: [],
        },
      ],
      actions: 0,
      numSlices: 0,
    },
    {
      name: 'Endpoints with 1000 addresses',
      service: {},
      endpoints: { subsets: [{ ports: [{ port: 80 }], addresses: generateAddresses(1000) }] },
      actions: 1,
      numSlices: 1,
    },
    {
      name: 'Endpoints with 1001 addresses - 1 should not be mirrored',
      service: {},
      endpoints: { subsets: [{ ports: [{ port: 80 }], addresses: generateAddresses(1001) }] },
      actions: 1,
      events: 1,
      numSlices: 1,
    },
  ];

  it.each(cases)('$name', async (tc) => {
    const fx = mirroringFixture();
    const endpoints = structuredClone(tc.endpoints);
    endpoints.metadata = { ...endpoints.metadata, name, namespace: 'default' };
    fx.endpointsIndexer.add(endpoints);
    if (tc.service !== undefined) {
      fx.serviceIndexer.add({
        ...structuredClone(tc.service),
        metadata: { name, namespace: 'default' },
      });
    }
    for (const s of tc.slices ?? [])
      await fx.seedSlice({ ...s, metadata: { ...s.metadata, namespace: 'default' } });
    await fx.controller.syncEndpoints(`default/${name}`);
    expect(fx.writes()).toHaveLength(tc.actions);
    expect(fx.recorder.events).toHaveLength(tc.events ?? 0);
    const mirrored = (await fx.slices()).filter(
      (s) => s.metadata!.labels![labelManagedBy] === mirroringControllerQualifiedName,
    );
    expect(mirrored).toHaveLength(tc.numSlices);
    for (const s of mirrored) expect(s.endpoints.length).toBeLessThanOrEqual(1000);
  });
});

describe('shouldMirror (TestShouldMirror)', () => {
  it.each([
    ['Standard Endpoints', {}, true],
    ['Endpoints with skip-mirror=true', { labels: { [labelSkipMirror]: 'true' } }, false],
    ['Endpoints with skip-mirror=invalid', { labels: { [labelSkipMirror]: 'invalid' } }, true],
    [
      'Endpoints with leader election annotation',
      { annotations: { [leaderElectionRecordAnnotationKey]: '' } },
      false,
    ],
  ])('%s', (_name, meta, want) => {
    const fx = mirroringFixture();
    expect(fx.controller.shouldMirror({ metadata: { name: 'test-endpoints', ...meta } })).toBe(
      want,
    );
  });
});

describe('endpointSlicesMirroredForService (TestEndpointSlicesMirroredForService)', () => {
  const ok = { [labelServiceName]: 'svc1', [labelManagedBy]: mirroringControllerQualifiedName };
  it.each([
    ['Service with matching EndpointSlice', 'ns1', ok, true],
    ['Service with EndpointSlice that has different namespace', 'ns2', ok, false],
    [
      'Service with EndpointSlice that has different service name',
      'ns1',
      { ...ok, [labelServiceName]: 'svc2' },
      false,
    ],
    [
      'Service with EndpointSlice that has different controller name',
      'ns1',
      { ...ok, [labelManagedBy]: `${mirroringControllerQualifiedName}foo` },
      false,
    ],
    [
      'Service with EndpointSlice that has missing controller name',
      'ns1',
      { [labelServiceName]: 'svc1' },
      false,
    ],
    [
      'Service with EndpointSlice that has missing service name',
      'ns1',
      { [labelManagedBy]: mirroringControllerQualifiedName },
      false,
    ],
  ] as [string, string, Record<string, string>, boolean][])('%s', (_name, ns, labels, want) => {
    const fx = mirroringFixture();
    fx.sliceIndexer.add({
      metadata: { name: 'example-1', namespace: ns, labels },
      addressType: 'IPv4',
      endpoints: [],
    });
    const got = fx.controller.endpointSlicesMirroredForService('ns1', 'svc1');
    expect(got.map((s) => s.metadata!.name)).toEqual(want ? ['example-1'] : []);
  });
});

describe('the mirroring controller', () => {
  const custom = (ips: string[], meta: Endpoints['metadata'] = {}): Endpoints => ({
    metadata: { name: 'ext', namespace: 'default', uid: 'ep-uid', ...meta },
    subsets: [
      {
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
        addresses: ips.map((ip) => ({ ip })),
      },
    ],
  });
  const selectorless: Service = {
    metadata: { name: 'ext', namespace: 'default' },
    spec: { ports: [{ port: 80 }] },
  };

  it('mirrors, updates in place, and deletes its slices when the Endpoints go or the Service gains a selector', async () => {
    const fx = mirroringFixture();
    fx.serviceIndexer.add(selectorless);
    fx.controller.onServiceAdd(selectorless);
    fx.endpointsIndexer.add(custom(['10.0.0.1']));
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    await fx.quiesce();
    expect(fx.writes()).toEqual([expect.stringMatching(/^create endpointslices default\/ext-/)]);
    const [slice] = await fx.slices();
    expect(slice!.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: { ready: true } }]);
    expect(slice!.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);

    // Nothing changed: nothing written, the controller's own write came back quietly.
    fx.controller.onEndpointsUpdate(custom(['10.0.0.1']), custom(['10.0.0.1']));
    await fx.quiesce();
    expect(fx.writes()).toHaveLength(1);

    const two = custom(['10.0.0.1', '10.0.0.2']);
    fx.endpointsIndexer.update(two);
    fx.controller.onEndpointsUpdate(custom(['10.0.0.1']), two);
    await fx.quiesce();
    expect(fx.writes().slice(1)).toEqual([
      `update endpointslices default/${slice!.metadata!.name!}`,
    ]);

    // The Service gains a selector: the EndpointSlice controller's business now.
    const withSelector = {
      ...selectorless,
      spec: { ...selectorless.spec, selector: { app: 'x' } },
    };
    fx.serviceIndexer.update(withSelector);
    fx.controller.onServiceUpdate(selectorless, withSelector);
    await fx.quiesce();
    expect(fx.writes().slice(2)).toEqual([
      `delete endpointslices default/${slice!.metadata!.name!}`,
    ]);
    expect(await fx.slices()).toEqual([]);
  });

  it('a slice edited by someone else is rewritten; one deleted by someone else is recreated', async () => {
    const fx = mirroringFixture();
    fx.serviceIndexer.add(selectorless);
    fx.endpointsIndexer.add(custom(['10.0.0.1']));
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    await fx.quiesce();
    const [slice] = await fx.slices();
    const sliceName = slice!.metadata!.name!;
    // Someone else rewrites the endpoints (a new generation the tracker did not write).
    const client = fx.api
      .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
      .inNamespace('default');
    const edited = await client.update({ ...slice!, endpoints: [] });
    fx.sliceIndexer.update(edited);
    fx.controller.onEndpointSliceUpdate(slice!, edited);
    await fx.quiesce();
    expect((await client.get(sliceName)).endpoints).toHaveLength(1);
    // Someone else deletes it.
    const current = await client.get(sliceName);
    await client.delete(sliceName);
    fx.sliceIndexer.delete(current);
    fx.controller.onEndpointSliceDelete(current);
    await fx.quiesce();
    expect((await fx.slices()).map((s) => s.endpoints.length)).toEqual([1]);
  });

  it('does not mirror skip-mirror or leader-election Endpoints, and cleans up when the label appears', async () => {
    const fx = mirroringFixture();
    fx.serviceIndexer.add(selectorless);
    const skipped = custom(['10.0.0.1'], { labels: { [labelSkipMirror]: 'true' } });
    fx.controller.onEndpointsAdd(skipped);
    fx.controller.onEndpointsAdd(
      custom(['10.0.0.1'], { annotations: { [leaderElectionRecordAnnotationKey]: '{}' } }),
    );
    expect(fx.controller.queue.len()).toBe(0);
    fx.endpointsIndexer.add(custom(['10.0.0.1']));
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    await fx.quiesce();
    expect(await fx.slices()).toHaveLength(1);
    fx.endpointsIndexer.update(skipped);
    fx.controller.onEndpointsUpdate(custom(['10.0.0.1']), skipped);
    await fx.quiesce();
    expect(await fx.slices()).toEqual([]);
  });

  it('Service handlers queue only selector-less Services and selector changes', () => {
    const fx = mirroringFixture();
    fx.controller.onServiceAdd({ ...selectorless, spec: { selector: { a: 'b' } } });
    fx.controller.onServiceUpdate(selectorless, {
      ...selectorless,
      metadata: { ...selectorless.metadata, labels: { x: 'y' } },
    });
    expect(fx.controller.queue.len()).toBe(0);
    fx.controller.onServiceAdd(selectorless);
    fx.controller.onServiceDelete(selectorless);
    expect(fx.controller.queue.len()).toBe(1); // the same key, once
  });

  it('waits for a cache that lags behind its writes (StaleInformerCache)', async () => {
    const fx = mirroringFixture({ watch: 'lag' });
    fx.serviceIndexer.add(selectorless);
    fx.endpointsIndexer.add(custom(['10.0.0.1']));
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    await fx.controller.processNextWorkItem();
    expect(fx.writes()).toHaveLength(1);
    // Synced again before its creation is in the cache: stale, no second slice.
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    await expect(fx.controller.syncEndpoints('default/ext')).rejects.toThrow(
      /informer cache is out of date/,
    );
    expect(fx.writes()).toHaveLength(1);
    fx.deliver();
    await fx.quiesce();
    expect(fx.writes()).toHaveLength(1);
    expect(await fx.slices()).toHaveLength(1);
  });

  it('a slice write that fails is retried with backoff from 1 s', async () => {
    const fx = mirroringFixture();
    fx.serviceIndexer.add(selectorless);
    fx.endpointsIndexer.add(custom(['10.0.0.1']));
    fx.controller.onEndpointsAdd(custom(['10.0.0.1']));
    fx.failNext.set('create', new Error('boom'));
    await fx.controller.processNextWorkItem();
    expect(fx.controller.queue.numRequeues('default/ext')).toBe(1);
    await fx.clock.advance(999);
    await settle(2);
    expect(fx.controller.queue.len()).toBe(0);
    await fx.clock.advance(1);
    await settle(2);
    expect(fx.controller.queue.len()).toBe(1);
    await fx.quiesce();
    expect(await fx.slices()).toHaveLength(1);
  });

  it('a slice change waits for the batch period', async () => {
    const fx = mirroringFixture({ batchPeriod: 5000 });
    const slice: EndpointSlice = {
      metadata: {
        name: 'ext-x',
        namespace: 'default',
        generation: 1,
        uid: 's',
        labels: { [labelServiceName]: 'ext', [labelManagedBy]: mirroringControllerQualifiedName },
      },
      addressType: 'IPv4',
      endpoints: [],
    };
    fx.controller.onEndpointSliceAdd(slice);
    expect(fx.controller.queue.len()).toBe(0);
    await fx.clock.advance(5000);
    await settle(2);
    expect(fx.controller.queue.len()).toBe(1);
    // A slice of another manager is none of its business.
    const other = structuredClone(slice);
    other.metadata!.labels![labelManagedBy] = 'someone-else';
    mut(other.metadata!).uid = 'o';
    fx.controller.onEndpointSliceAdd(other);
    await fx.clock.advance(5000);
    await settle(2);
    expect(fx.controller.queue.len()).toBe(1);
  });
});

describe('run', () => {
  it('mirrors through real informers and stops cleanly', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const api = new MemoryAPI(clock);
    const endpointSlices = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const factory = new SharedInformerFactory(api.source, 0, { clock });
    const controller = new EndpointSliceMirroringController({
      endpoints: factory.endpoints(),
      endpointSlices: factory.endpointSlices(),
      services: factory.services(),
      client: { endpointSlices },
      clock,
    });
    const stop = new AbortController();
    factory.start(stop.signal);
    const running = controller.run(5, stop.signal);
    await api
      .client<Service>('', 'services')
      .inNamespace('default')
      .create({ metadata: { name: 'db' }, spec: { ports: [{ port: 5432 }] } });
    await api
      .client<Endpoints>('', 'endpoints')
      .inNamespace('default')
      .create({
        metadata: { name: 'db', labels: { team: 'data' } },
        subsets: [
          { addresses: [{ ip: '192.168.1.10' }], ports: [{ port: 5432, protocol: 'TCP' }] },
        ],
      });
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      await settle();
    }
    const slices = (await endpointSlices.inNamespace('default').list()).items;
    expect(slices).toHaveLength(1);
    expect(slices[0]!.metadata!.labels).toEqual({
      team: 'data',
      [labelServiceName]: 'db',
      [labelManagedBy]: mirroringControllerQualifiedName,
    });
    expect(slices[0]!.endpoints.map((e) => e.addresses[0])).toEqual(['192.168.1.10']);
    expect(controller.endpointSliceTracker).toBeInstanceOf(EndpointSliceTracker);
    stop.abort();
    await running;
    await factory.shutdown();
    expect(clock.hasWaiters()).toBe(false);
    await expect(controller.run(1, stop.signal)).rejects.toThrow(/has stopped/);
  });
});
