// The mirroring controller's metrics: pkg/controller/endpointslicemirroring/
// metrics/metrics.go (EndpointSliceMirroringSubsystem,
// EndpointsAddedPerSync, EndpointsUpdatedPerSync, EndpointsRemovedPerSync,
// AddressesSkippedPerSync, EndpointsSyncDuration, EndpointsDesired,
// NumEndpointSlices, DesiredEndpointSlices, EndpointSliceChanges) and
// metrics/cache.go (Cache, EndpointPortCache, EfficiencyInfo,
// UpdateEndpointPortCache, DeleteEndpoints, updateMetrics,
// numDesiredSlices). Made through the same provider as the EndpointSlice
// controller's metrics.
import {
  noopEndpointSliceMetricsProvider,
  type CounterVecMetric,
  type EfficiencyInfo,
  type EfficiencyTotals,
  type EndpointSliceMetricDescriptor,
  type EndpointSliceMetricsProvider,
  type GaugeVecMetric,
  type HistogramVecMetric,
} from '../metrics.js';

/**
 * The subsystem every mirroring metric is named under
 * (`endpoint_slice_mirroring_controller`). Go's
 * `EndpointSliceMirroringSubsystem`.
 *
 * @category Metrics
 */
export const endpointSliceMirroringSubsystem = 'endpoint_slice_mirroring_controller';

const name = (short: string) => `${endpointSliceMirroringSubsystem}_${short}`;
// ExponentialBuckets(2, 2, 15): 2 to 32768.
const perSyncBuckets = Object.freeze(Array.from({ length: 15 }, (_, i) => 2 * 2 ** i));
// ExponentialBuckets(0.001, 2, 15): 1 ms to about 16 s.
const durationBuckets = Object.freeze(Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i));

/**
 * The metrics of the mirroring controller, named as in
 * {@link EndpointSliceMirroringMetrics}'s fields.
 *
 * @category Metrics
 */
export type EndpointSliceMirroringMetricName =
  | 'endpointsAddedPerSync'
  | 'endpointsUpdatedPerSync'
  | 'endpointsRemovedPerSync'
  | 'addressesSkippedPerSync'
  | 'endpointsSyncDuration'
  | 'endpointsDesired'
  | 'numEndpointSlices'
  | 'desiredEndpointSlices'
  | 'endpointSliceChanges';

const histogram = (
  short: string,
  help: string,
  buckets: readonly number[],
): EndpointSliceMetricDescriptor => ({
  name: name(short),
  type: 'histogram',
  help,
  labels: [],
  stabilityLevel: 'ALPHA',
  buckets,
});
const gauge = (short: string, help: string): EndpointSliceMetricDescriptor => ({
  name: name(short),
  type: 'gauge',
  help,
  labels: [],
  stabilityLevel: 'ALPHA',
});

/**
 * The nine metrics with the names, labels and buckets kube-controller-manager
 * exports for the mirroring controller.
 *
 * @category Metrics
 */
export const endpointSliceMirroringMetricDescriptors: Readonly<
  Record<EndpointSliceMirroringMetricName, EndpointSliceMetricDescriptor>
> = Object.freeze({
  endpointsAddedPerSync: histogram(
    'endpoints_added_per_sync',
    'Number of endpoints added on each Endpoints sync',
    perSyncBuckets,
  ),
  endpointsUpdatedPerSync: histogram(
    'endpoints_updated_per_sync',
    'Number of endpoints updated on each Endpoints sync',
    perSyncBuckets,
  ),
  endpointsRemovedPerSync: histogram(
    'endpoints_removed_per_sync',
    'Number of endpoints removed on each Endpoints sync',
    perSyncBuckets,
  ),
  addressesSkippedPerSync: histogram(
    'addresses_skipped_per_sync',
    'Number of addresses skipped on each Endpoints sync due to being invalid or exceeding MaxEndpointsPerSubset',
    perSyncBuckets,
  ),
  endpointsSyncDuration: histogram(
    'endpoints_sync_duration',
    'Duration of syncEndpoints() in seconds',
    durationBuckets,
  ),
  endpointsDesired: gauge('endpoints_desired', 'Number of endpoints desired'),
  numEndpointSlices: gauge('num_endpoint_slices', 'Number of EndpointSlices'),
  desiredEndpointSlices: gauge(
    'desired_endpoint_slices',
    'Number of EndpointSlices that would exist with perfect endpoint allocation',
  ),
  endpointSliceChanges: {
    name: name('changes'),
    type: 'counter',
    help: 'Number of EndpointSlice changes',
    labels: ['operation'],
    stabilityLevel: 'ALPHA',
  },
});

/**
 * The mirroring controller's metrics, with Go's cache of the endpoints and
 * slices of every mirrored Endpoints object behind the three gauges of
 * allocation efficiency.
 *
 * @category Metrics
 */
export class EndpointSliceMirroringMetrics {
  /** `endpoint_slice_mirroring_controller_endpoints_added_per_sync`. */
  readonly endpointsAddedPerSync: HistogramVecMetric;
  /** `endpoint_slice_mirroring_controller_endpoints_updated_per_sync`. */
  readonly endpointsUpdatedPerSync: HistogramVecMetric;
  /** `endpoint_slice_mirroring_controller_endpoints_removed_per_sync`. */
  readonly endpointsRemovedPerSync: HistogramVecMetric;
  /** `endpoint_slice_mirroring_controller_addresses_skipped_per_sync`. */
  readonly addressesSkippedPerSync: HistogramVecMetric;
  /** `endpoint_slice_mirroring_controller_endpoints_sync_duration` (seconds). */
  readonly endpointsSyncDuration: HistogramVecMetric;
  /** `endpoint_slice_mirroring_controller_endpoints_desired`. */
  readonly endpointsDesired: GaugeVecMetric;
  /** `endpoint_slice_mirroring_controller_num_endpoint_slices`. */
  readonly numEndpointSlices: GaugeVecMetric;
  /** `endpoint_slice_mirroring_controller_desired_endpoint_slices`. */
  readonly desiredEndpointSlices: GaugeVecMetric;
  /** `endpoint_slice_mirroring_controller_changes`, by `operation`. */
  readonly endpointSliceChanges: CounterVecMetric;

  readonly #max: number;
  readonly #cache = new Map<string, ReadonlyMap<string, EfficiencyInfo>>();

  /**
   * @param maxEndpointsPerSubset - the controller's cap, for the desired slices
   * @param provider - makes the metrics; default ones that do nothing
   */
  constructor(
    maxEndpointsPerSubset: number,
    provider: EndpointSliceMetricsProvider = noopEndpointSliceMetricsProvider,
  ) {
    this.#max = maxEndpointsPerSubset;
    const d = endpointSliceMirroringMetricDescriptors;
    this.endpointsAddedPerSync = provider.newHistogramVec(d.endpointsAddedPerSync);
    this.endpointsUpdatedPerSync = provider.newHistogramVec(d.endpointsUpdatedPerSync);
    this.endpointsRemovedPerSync = provider.newHistogramVec(d.endpointsRemovedPerSync);
    this.addressesSkippedPerSync = provider.newHistogramVec(d.addressesSkippedPerSync);
    this.endpointsSyncDuration = provider.newHistogramVec(d.endpointsSyncDuration);
    this.endpointsDesired = provider.newGaugeVec(d.endpointsDesired);
    this.numEndpointSlices = provider.newGaugeVec(d.numEndpointSlices);
    this.desiredEndpointSlices = provider.newGaugeVec(d.desiredEndpointSlices);
    this.endpointSliceChanges = provider.newCounterVec(d.endpointSliceChanges);
  }

  /**
   * Replaces the endpoints and slices per group of ports of one Endpoints
   * object and updates the gauges. Go's `Cache.UpdateEndpointPortCache`.
   */
  updateEndpointPortCache(endpointsKey: string, info: ReadonlyMap<string, EfficiencyInfo>): void {
    this.#cache.set(endpointsKey, new Map(info));
    this.#updateMetrics();
  }

  /** Forgets an Endpoints object. Go's `Cache.DeleteEndpoints`. */
  deleteEndpoints(endpointsKey: string): void {
    if (this.#cache.delete(endpointsKey)) this.#updateMetrics();
  }

  /** The totals behind the three gauges: endpoints, slices, and slices with perfect packing. */
  totals(): EfficiencyTotals {
    let endpoints = 0;
    let actualSlices = 0;
    let desiredSlices = 0;
    for (const ports of this.#cache.values()) {
      for (const e of ports.values()) {
        endpoints += e.endpoints;
        actualSlices += e.slices;
        desiredSlices += Math.ceil(e.endpoints / this.#max);
      }
    }
    return { endpoints, actualSlices, desiredSlices };
  }

  #updateMetrics(): void {
    const t = this.totals();
    this.numEndpointSlices.withLabelValues().set(t.actualSlices);
    this.desiredEndpointSlices.withLabelValues().set(t.desiredSlices);
    this.endpointsDesired.withLabelValues().set(t.endpoints);
  }
}
