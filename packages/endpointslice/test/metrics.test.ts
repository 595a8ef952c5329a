// Ports of staging/src/k8s.io/endpointslice/metrics/cache_test.go
// (TestNumEndpointsAndSlices, TestPlaceholderSlice, the traffic
// distribution counts) and of reconciler_test.go's
// TestReconcileEndpointSlicesMetrics and TestReconcileTrafficDistribution
// (the PreferClose hints), through a recording metrics provider.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { describe, expect, it } from 'vitest';
import {
  EndpointSliceMetrics,
  EndpointSliceTracker,
  Reconciler,
  controllerQualifiedName,
  endpointSliceMetricDescriptors,
  type EndpointSliceMetricDescriptor,
  type EndpointSliceMetricsProvider,
} from '../src/index.js';
import {
  FakeSliceAPI,
  fixture,
  newNode,
  newPod,
  newService,
  nodeLister,
  namespace,
} from './helpers.js';

/** A provider that keeps every value: counters summed, histograms listed, gauges set. */
function recordingProvider() {
  const values = new Map<string, number | number[]>();
  const key = (d: EndpointSliceMetricDescriptor, labels: string[]) =>
    labels.length > 0 ? `${d.name}{${labels.join(',')}}` : d.name;
  const provider: EndpointSliceMetricsProvider = {
    newCounterVec: (d) => ({
      withLabelValues: (...l) => ({
        inc: () => void values.set(key(d, l), ((values.get(key(d, l)) as number) ?? 0) + 1),
        add: (v) => void values.set(key(d, l), ((values.get(key(d, l)) as number) ?? 0) + v),
      }),
    }),
    newHistogramVec: (d) => ({
      withLabelValues: (...l) => ({
        observe: (v) =>
          void values.set(key(d, l), [...((values.get(key(d, l)) as number[]) ?? []), v]),
      }),
    }),
    newGaugeVec: (d) => ({
      withLabelValues: (...l) => ({ set: (v) => void values.set(key(d, l), v) }),
    }),
  };
  return { provider, values };
}

describe('metrics', () => {
  it('are named as kube-controller-manager names them', () => {
    expect(
      Object.values(endpointSliceMetricDescriptors)
        .map((d) => d.name)
        .sort(),
    ).toEqual([
      'endpoint_slice_controller_changes',
      'endpoint_slice_controller_changes_total',
      'endpoint_slice_controller_desired_endpoint_slices',
      'endpoint_slice_controller_endpoints_added_per_sync',
      'endpoint_slice_controller_endpoints_desired',
      'endpoint_slice_controller_endpoints_removed_per_sync',
      'endpoint_slice_controller_endpointslices_changed_per_sync',
      'endpoint_slice_controller_num_endpoint_slices',
      'endpoint_slice_controller_services_count_by_traffic_distribution',
      'endpoint_slice_controller_syncs',
    ]);
    expect(endpointSliceMetricDescriptors.endpointsAddedPerSync.buckets).toEqual([
      2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
    ]);
  });

  it('count a sync of 20 pods, then of 10 (TestReconcileEndpointSlicesMetrics)', async () => {
    const { provider, values } = recordingProvider();
    const { lister, clock } = nodeLister();
    const api = new FakeSliceAPI(clock);
    const metrics = new EndpointSliceMetrics(100, provider);
    const r = new Reconciler({
      client: api.client(),
      nodeLister: lister,
      maxEndpointsPerSlice: 100,
      endpointSliceTracker: new EndpointSliceTracker(),
      controllerName: controllerQualifiedName,
      observer: metrics,
    });
    const svc = newService();
    const pods = Array.from({ length: 20 }, (_, i) => newPod(i));
    await r.reconcile(svc, pods, [], undefined);
    expect(metrics.totals()).toEqual({ endpoints: 20, actualSlices: 1, desiredSlices: 1 });
    expect(values.get('endpoint_slice_controller_endpoints_added_per_sync')).toEqual([20]);
    expect(values.get('endpoint_slice_controller_changes_total{create}')).toBe(1);
    expect(
      values.get('endpoint_slice_controller_endpointslices_changed_per_sync{Disabled,}'),
    ).toEqual([1]);
    await r.reconcile(svc, pods.slice(0, 10), api.list(), undefined);
    expect(metrics.totals()).toEqual({ endpoints: 10, actualSlices: 1, desiredSlices: 1 });
    expect(values.get('endpoint_slice_controller_endpoints_removed_per_sync')).toEqual([0, 10]);
    expect(values.get('endpoint_slice_controller_changes{update}')).toBe(1);
    expect(values.get('endpoint_slice_controller_endpoints_desired')).toBe(10);
    expect(values.get('endpoint_slice_controller_num_endpoint_slices')).toBe(1);
    expect(values.get('endpoint_slice_controller_desired_endpoint_slices')).toBe(1);
  });

  it('keep the efficiency per Service, a placeholder counting as one desired slice (cache_test.go)', () => {
    const m = new EndpointSliceMetrics(100);
    m.onServicePortCache('ns/a', new Map([['p80', { endpoints: 250, slices: 4 }]]));
    m.onServicePortCache('ns/b', new Map([['p80', { endpoints: 0, slices: 1 }]]));
    m.onServicePortCache(
      'ns/c',
      new Map([
        ['p80', { endpoints: 10, slices: 1 }],
        ['p81', { endpoints: 101, slices: 3 }],
      ]),
    );
    expect(m.totals()).toEqual({ endpoints: 361, actualSlices: 9, desiredSlices: 3 + 1 + 3 });
    m.onServiceDeleted('ns/a');
    expect(m.totals()).toEqual({ endpoints: 111, actualSlices: 5, desiredSlices: 4 });
  });

  it('count Services by traffic distribution, and the controller counts syncs by result', async () => {
    const { provider, values } = recordingProvider();
    const m = new EndpointSliceMetrics(100, provider);
    m.onTrafficDistribution('ns/a', 'PreferClose');
    m.onTrafficDistribution('ns/b', 'PreferClose');
    m.onTrafficDistribution('ns/c', 'PreferSameNode');
    expect(
      values.get('endpoint_slice_controller_services_count_by_traffic_distribution{PreferClose}'),
    ).toBe(2);
    m.onTrafficDistribution('ns/c', undefined);
    expect(
      values.get(
        'endpoint_slice_controller_services_count_by_traffic_distribution{PreferSameNode}',
      ),
    ).toBe(0);

    const fx = fixture();
    fx.addService(newService());
    await fx.quiesce();
    expect(fx.controller.metrics.totals()).toEqual({
      endpoints: 0,
      actualSlices: 1,
      desiredSlices: 1,
    });
  });
});

describe('trafficDistribution hints (TestReconcileTrafficDistribution)', () => {
  const setup = () => {
    const { lister, clock } = nodeLister(newNode('node-1', 'zone-a'), newNode('node-2', 'zone-b'));
    const api = new FakeSliceAPI(clock);
    const r = new Reconciler({
      client: api.client(),
      nodeLister: lister,
      maxEndpointsPerSlice: 100,
      controllerName: controllerQualifiedName,
    });
    return { api, r };
  };
  const pods = () => {
    const a = newPod(1);
    const b = newPod(2);
    b.spec!.nodeName = 'node-2';
    const notReady = newPod(3, namespace, false);
    return [a, b, notReady];
  };
  const hints = (slices: EndpointSlice[]) =>
    Object.fromEntries(
      slices.flatMap((s) => s.endpoints.map((e) => [e.targetRef!.name, e.hints ?? null])),
    );

  it('PreferClose puts a zone hint on every ready endpoint; dropping it removes them', async () => {
    const { api, r } = setup();
    const svc = newService();
    svc.spec!.trafficDistribution = 'PreferClose';
    await r.reconcile(svc, pods(), [], undefined);
    expect(hints(api.list())).toEqual({
      pod1: { forZones: [{ name: 'zone-a' }] },
      pod2: { forZones: [{ name: 'zone-b' }] },
      pod3: null,
    });
    api.actions.length = 0;
    await r.reconcile(svc, pods(), api.list(), undefined);
    expect(api.actions).toEqual([]);
    delete svc.spec!.trafficDistribution;
    await r.reconcile(svc, pods(), api.list(), undefined);
    expect(api.actions.map((a) => a.verb)).toEqual(['update']);
    expect(hints(api.list())).toEqual({ pod1: null, pod2: null, pod3: null });
  });

  it('PreferSameNode adds a node hint; Topology Aware Routing by annotation wins over it (no hints)', async () => {
    const { api, r } = setup();
    const svc = newService();
    svc.spec!.trafficDistribution = 'PreferSameNode';
    await r.reconcile(svc, pods(), [], undefined);
    expect(hints(api.list()).pod2).toEqual({
      forZones: [{ name: 'zone-b' }],
      forNodes: [{ name: 'node-2' }],
    });
    svc.metadata!.annotations = { 'service.kubernetes.io/topology-mode': 'Auto' };
    await r.reconcile(svc, pods(), api.list(), undefined);
    expect(hints(api.list())).toEqual({ pod1: null, pod2: null, pod3: null });
  });
});
