// The EndpointSlice controller's metrics: staging/src/k8s.io/endpointslice/
// metrics/metrics.go (EndpointSliceSubsystem, EndpointsAddedPerSync,
// EndpointsRemovedPerSync, EndpointsDesired, NumEndpointSlices,
// DesiredEndpointSlices, EndpointSliceChanges, EndpointSliceChangesTotal,
// EndpointSlicesChangedPerSync, EndpointSliceSyncs,
// ServicesCountByTrafficDistribution) and metrics/cache.go (Cache,
// ServicePortCache, EfficiencyInfo, UpdateServicePortCache,
// UpdateTrafficDistributionForService, DeleteService, updateMetrics,
// numDesiredSlices). Go registers them in a global registry; here a
// provider makes them, as @kcm-ts/job's metrics are made, and the default
// provider makes metrics that do nothing.
import type { EndpointSliceControllerObserver } from './endpointslice-controller.js';

/**
 * One series of a counter, picked by its label values.
 *
 * @category Metrics
 */
export interface LabeledCounter {
  /** Adds one. */
  inc(): void;
  /** Adds `value`. */
  add(value: number): void;
}

/**
 * One series of a histogram, picked by its label values.
 *
 * @category Metrics
 */
export interface LabeledHistogram {
  /** Records one observation. */
  observe(value: number): void;
}

/**
 * One series of a gauge, picked by its label values.
 *
 * @category Metrics
 */
export interface LabeledGauge {
  /** Sets the value. */
  set(value: number): void;
}

/**
 * A counter with labels: Go's `metrics.CounterVec`.
 *
 * @category Metrics
 */
export interface CounterVecMetric {
  /** The series of these label values, in the order the descriptor lists the labels. */
  withLabelValues(...values: string[]): LabeledCounter;
}

/**
 * A histogram with labels: Go's `metrics.HistogramVec`.
 *
 * @category Metrics
 */
export interface HistogramVecMetric {
  /** The series of these label values, in the order the descriptor lists the labels. */
  withLabelValues(...values: string[]): LabeledHistogram;
}

/**
 * A gauge with labels: Go's `metrics.GaugeVec`.
 *
 * @category Metrics
 */
export interface GaugeVecMetric {
  /** The series of these label values, in the order the descriptor lists the labels. */
  withLabelValues(...values: string[]): LabeledGauge;
}

/**
 * The name, type, help, labels and buckets of one EndpointSlice controller
 * metric, as a Prometheus provider registers it.
 *
 * @category Metrics
 */
export interface EndpointSliceMetricDescriptor {
  /** The full Prometheus name, such as `endpoint_slice_controller_syncs`. */
  readonly name: string;
  /** The Prometheus metric type. */
  readonly type: 'counter' | 'histogram' | 'gauge';
  /** The help text shown on `/metrics`. */
  readonly help: string;
  /** The label names, in the order `withLabelValues` takes their values. */
  readonly labels: readonly string[];
  /** Kubernetes' stability level of the metric. */
  readonly stabilityLevel: 'BETA' | 'ALPHA';
  /** The release that deprecated the metric, if any. */
  readonly deprecatedVersion?: string;
  /** Histogram bucket upper bounds. */
  readonly buckets?: readonly number[];
}

/**
 * Makes the EndpointSlice controller's metrics from their descriptors. The
 * manager passes one backed by Prometheus;
 * {@link noopEndpointSliceMetricsProvider} is the default.
 *
 * @category Metrics
 */
export interface EndpointSliceMetricsProvider {
  /** A counter with the descriptor's name and labels. */
  newCounterVec(descriptor: EndpointSliceMetricDescriptor): CounterVecMetric;
  /** A histogram with the descriptor's name, labels and buckets. */
  newHistogramVec(descriptor: EndpointSliceMetricDescriptor): HistogramVecMetric;
  /** A gauge with the descriptor's name and labels. */
  newGaugeVec(descriptor: EndpointSliceMetricDescriptor): GaugeVecMetric;
}

const noopSeries: LabeledCounter & LabeledHistogram & LabeledGauge = Object.freeze({
  inc() {},
  add() {},
  observe() {},
  set() {},
});
const noopVec: CounterVecMetric & HistogramVecMetric & GaugeVecMetric = Object.freeze({
  withLabelValues: () => noopSeries,
});

/**
 * The default provider: every metric it makes does nothing.
 *
 * @category Metrics
 */
export const noopEndpointSliceMetricsProvider: EndpointSliceMetricsProvider = Object.freeze({
  newCounterVec: () => noopVec,
  newHistogramVec: () => noopVec,
  newGaugeVec: () => noopVec,
});

/**
 * The subsystem every metric is named under (`endpoint_slice_controller`).
 * Go's `EndpointSliceSubsystem`.
 *
 * @category Metrics
 */
export const endpointSliceSubsystem = 'endpoint_slice_controller';

const name = (short: string) => `${endpointSliceSubsystem}_${short}`;
// ExponentialBuckets(2, 2, 15): 2 to 32768.
const perSyncBuckets = Object.freeze(Array.from({ length: 15 }, (_, i) => 2 * 2 ** i));
// Prometheus' default buckets, which a histogram without buckets gets.
const defaultBuckets = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/**
 * The metrics of the controller, named as in {@link EndpointSliceMetrics}'s
 * fields.
 *
 * @category Metrics
 */
export type EndpointSliceMetricName =
  | 'endpointsAddedPerSync'
  | 'endpointsRemovedPerSync'
  | 'endpointsDesired'
  | 'numEndpointSlices'
  | 'desiredEndpointSlices'
  | 'endpointSliceChanges'
  | 'endpointSliceChangesTotal'
  | 'endpointSlicesChangedPerSync'
  | 'endpointSliceSyncs'
  | 'servicesCountByTrafficDistribution';

/**
 * The ten metrics with the names, labels and buckets kube-controller-manager
 * exports.
 *
 * @category Metrics
 */
export const endpointSliceMetricDescriptors: Readonly<
  Record<EndpointSliceMetricName, EndpointSliceMetricDescriptor>
> = Object.freeze({
  endpointsAddedPerSync: {
    name: name('endpoints_added_per_sync'),
    type: 'histogram',
    help: 'Number of endpoints added on each Service sync',
    labels: [],
    stabilityLevel: 'BETA',
    buckets: perSyncBuckets,
  },
  endpointsRemovedPerSync: {
    name: name('endpoints_removed_per_sync'),
    type: 'histogram',
    help: 'Number of endpoints removed on each Service sync',
    labels: [],
    stabilityLevel: 'BETA',
    buckets: perSyncBuckets,
  },
  endpointsDesired: {
    name: name('endpoints_desired'),
    type: 'gauge',
    help: 'Number of endpoints desired',
    labels: [],
    stabilityLevel: 'BETA',
  },
  numEndpointSlices: {
    name: name('num_endpoint_slices'),
    type: 'gauge',
    help: 'Number of EndpointSlices',
    labels: [],
    stabilityLevel: 'BETA',
  },
  desiredEndpointSlices: {
    name: name('desired_endpoint_slices'),
    type: 'gauge',
    help: 'Number of EndpointSlices that would exist with perfect endpoint allocation',
    labels: [],
    stabilityLevel: 'BETA',
  },
  endpointSliceChanges: {
    name: name('changes'),
    type: 'counter',
    help: 'Number of EndpointSlice changes',
    labels: ['operation'],
    stabilityLevel: 'ALPHA',
    deprecatedVersion: '1.38.0',
  },
  endpointSliceChangesTotal: {
    name: name('changes_total'),
    type: 'counter',
    help: 'Number of EndpointSlice changes',
    labels: ['operation'],
    stabilityLevel: 'ALPHA',
  },
  endpointSlicesChangedPerSync: {
    name: name('endpointslices_changed_per_sync'),
    type: 'histogram',
    help: 'Number of EndpointSlices changed on each Service sync',
    labels: ['topology', 'traffic_distribution'],
    stabilityLevel: 'ALPHA',
    buckets: defaultBuckets,
  },
  endpointSliceSyncs: {
    name: name('syncs'),
    type: 'counter',
    help: 'Number of EndpointSlice syncs',
    labels: ['result'],
    stabilityLevel: 'ALPHA',
  },
  servicesCountByTrafficDistribution: {
    name: name('services_count_by_traffic_distribution'),
    type: 'gauge',
    help: 'Number of Services using some specific trafficDistribution',
    labels: ['traffic_distribution'],
    stabilityLevel: 'BETA',
  },
});

/**
 * The endpoints and slices of one group of ports of one Service. Go's
 * `EfficiencyInfo`.
 *
 * @category Metrics
 */
export interface EfficiencyInfo {
  /** Endpoints in the group. */
  endpoints: number;
  /** Slices the group has. */
  slices: number;
}

/**
 * The totals behind the three gauges of allocation efficiency.
 *
 * @category Metrics
 */
export interface EfficiencyTotals {
  /** Endpoints of every Service (`endpoint_slice_controller_endpoints_desired`). */
  endpoints: number;
  /** Slices they are in (`endpoint_slice_controller_num_endpoint_slices`). */
  actualSlices: number;
  /** Slices they would need if packed (`endpoint_slice_controller_desired_endpoint_slices`). */
  desiredSlices: number;
}

/** The slices `numEndpoints` need when packed. Go's `numDesiredSlices`. */
function numDesiredSlices(numEndpoints: number, maxEndpointsPerSlice: number): number {
  return Math.ceil(numEndpoints / maxEndpointsPerSlice);
}

/**
 * The controller's metrics, fed by the controller and its reconciler (it is
 * their observer) and keeping Go's `metrics.Cache` of every Service's
 * endpoints and slices for the three gauges of allocation efficiency.
 *
 * @category Metrics
 */
export class EndpointSliceMetrics implements EndpointSliceControllerObserver {
  /** `endpoint_slice_controller_endpoints_added_per_sync`. */
  readonly endpointsAddedPerSync: HistogramVecMetric;
  /** `endpoint_slice_controller_endpoints_removed_per_sync`. */
  readonly endpointsRemovedPerSync: HistogramVecMetric;
  /** `endpoint_slice_controller_endpoints_desired`. */
  readonly endpointsDesired: GaugeVecMetric;
  /** `endpoint_slice_controller_num_endpoint_slices`. */
  readonly numEndpointSlices: GaugeVecMetric;
  /** `endpoint_slice_controller_desired_endpoint_slices`. */
  readonly desiredEndpointSlices: GaugeVecMetric;
  /** `endpoint_slice_controller_changes` (deprecated name). */
  readonly endpointSliceChanges: CounterVecMetric;
  /** `endpoint_slice_controller_changes_total`. */
  readonly endpointSliceChangesTotal: CounterVecMetric;
  /** `endpoint_slice_controller_endpointslices_changed_per_sync`. */
  readonly endpointSlicesChangedPerSync: HistogramVecMetric;
  /** `endpoint_slice_controller_syncs`. */
  readonly endpointSliceSyncs: CounterVecMetric;
  /** `endpoint_slice_controller_services_count_by_traffic_distribution`. */
  readonly servicesCountByTrafficDistribution: GaugeVecMetric;

  readonly #max: number;
  readonly #servicePorts = new Map<string, Map<string, EfficiencyInfo>>();
  readonly #trafficDistributions = new Map<string, string>();
  #lastTrafficDistributions = new Set<string>();

  /**
   * @param maxEndpointsPerSlice - the controller's cap, for the desired slices
   * @param provider - makes the metrics; default ones that do nothing
   */
  constructor(
    maxEndpointsPerSlice: number,
    provider: EndpointSliceMetricsProvider = noopEndpointSliceMetricsProvider,
  ) {
    this.#max = maxEndpointsPerSlice;
    const d = endpointSliceMetricDescriptors;
    this.endpointsAddedPerSync = provider.newHistogramVec(d.endpointsAddedPerSync);
    this.endpointsRemovedPerSync = provider.newHistogramVec(d.endpointsRemovedPerSync);
    this.endpointsDesired = provider.newGaugeVec(d.endpointsDesired);
    this.numEndpointSlices = provider.newGaugeVec(d.numEndpointSlices);
    this.desiredEndpointSlices = provider.newGaugeVec(d.desiredEndpointSlices);
    this.endpointSliceChanges = provider.newCounterVec(d.endpointSliceChanges);
    this.endpointSliceChangesTotal = provider.newCounterVec(d.endpointSliceChangesTotal);
    this.endpointSlicesChangedPerSync = provider.newHistogramVec(d.endpointSlicesChangedPerSync);
    this.endpointSliceSyncs = provider.newCounterVec(d.endpointSliceSyncs);
    this.servicesCountByTrafficDistribution = provider.newGaugeVec(
      d.servicesCountByTrafficDistribution,
    );
  }

  /** Counts a sync by result. Go's `trackSync`. */
  onSync(result: 'success' | 'stale' | 'error'): void {
    this.endpointSliceSyncs.withLabelValues(result).inc();
  }

  /** Counts one slice written. */
  onEndpointSliceChange(operation: 'create' | 'update' | 'delete'): void {
    this.endpointSliceChanges.withLabelValues(operation).inc();
    this.endpointSliceChangesTotal.withLabelValues(operation).inc();
  }

  /** Observes the endpoints one sync of one address type added and removed. */
  onEndpointsPerSync(added: number, removed: number): void {
    this.endpointsAddedPerSync.withLabelValues().observe(added);
    this.endpointsRemovedPerSync.withLabelValues().observe(removed);
  }

  /** Observes the slices one sync of one address type wrote. */
  onSlicesChangedPerSync(changed: number, topology: string, trafficDistribution: string): void {
    this.endpointSlicesChangedPerSync
      .withLabelValues(topology, trafficDistribution)
      .observe(changed);
  }

  /**
   * Replaces the Service's endpoints and slices per group of ports and
   * updates the gauges. Go's `Cache.UpdateServicePortCache`.
   */
  onServicePortCache(serviceKey: string, info: ReadonlyMap<string, EfficiencyInfo>): void {
    this.#servicePorts.set(serviceKey, new Map(info));
    this.#updateMetrics();
  }

  /**
   * Records the Service's traffic distribution (undefined: none honoured)
   * and updates the gauge. Go's `Cache.UpdateTrafficDistributionForService`.
   */
  onTrafficDistribution(serviceKey: string, trafficDistribution: string | undefined): void {
    if (trafficDistribution === undefined) this.#trafficDistributions.delete(serviceKey);
    else this.#trafficDistributions.set(serviceKey, trafficDistribution);
    this.#updateTrafficDistributionMetric();
  }

  /** Forgets a deleted Service. Go's `Cache.DeleteService`. */
  onServiceDeleted(serviceKey: string): void {
    this.#servicePorts.delete(serviceKey);
    this.#trafficDistributions.delete(serviceKey);
    this.#updateMetrics();
    this.#updateTrafficDistributionMetric();
  }

  /** The totals behind the three gauges: endpoints, slices, and slices with perfect packing. */
  totals(): EfficiencyTotals {
    let endpoints = 0;
    let actualSlices = 0;
    let desiredSlices = 0;
    for (const ports of this.#servicePorts.values()) {
      let serviceDesired = 0;
      for (const e of ports.values()) {
        endpoints += e.endpoints;
        actualSlices += e.slices;
        serviceDesired += numDesiredSlices(e.endpoints, this.#max);
      }
      // A Service always has a slice: the placeholder when it has no endpoints.
      desiredSlices += serviceDesired === 0 ? 1 : serviceDesired;
    }
    return { endpoints, actualSlices, desiredSlices };
  }

  #updateMetrics(): void {
    const t = this.totals();
    this.endpointsDesired.withLabelValues().set(t.endpoints);
    this.numEndpointSlices.withLabelValues().set(t.actualSlices);
    this.desiredEndpointSlices.withLabelValues().set(t.desiredSlices);
  }

  #updateTrafficDistributionMetric(): void {
    const counts = new Map<string, number>();
    for (const td of this.#trafficDistributions.values()) counts.set(td, (counts.get(td) ?? 0) + 1);
    // Values no Service uses any more drop to zero, as Go resets the gauge.
    for (const td of this.#lastTrafficDistributions) if (!counts.has(td)) counts.set(td, 0);
    for (const [td, n] of counts)
      this.servicesCountByTrafficDistribution.withLabelValues(td).set(n);
    this.#lastTrafficDistributions = new Set(this.#trafficDistributions.values());
  }
}
