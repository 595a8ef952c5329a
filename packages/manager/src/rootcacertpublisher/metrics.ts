// The root CA publisher's metrics: Go's
// pkg/controller/certificates/rootcacertpublisher/metrics.go (syncCounter,
// syncLatency, recordMetrics, registerMetrics). Names, help, buckets and the
// `code` label are upstream's (its help text of the histogram included).
// Go registers them once in the global legacy registry; here they go into
// the registry they are given.
import { isStatusError } from '@kcm-ts/apimachinery';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { HistogramDefinition, MetricDefinition } from '../metrics/definition.js';

/**
 * The definitions of the root CA publisher's metrics.
 *
 * @category Root CA publisher
 */
export interface RootCACertPublisherMetricDefinitions {
  /** `root_ca_cert_publisher_sync_total{code}`. */
  readonly syncTotal: MetricDefinition;
  /** `root_ca_cert_publisher_sync_duration_seconds{code}`. */
  readonly syncDuration: HistogramDefinition;
}

const subsystem = 'root_ca_cert_publisher';

/**
 * The root CA publisher's metrics as kube-controller-manager exports them.
 *
 * @category Root CA publisher
 */
export const rootCACertPublisherMetrics: RootCACertPublisherMetricDefinitions = {
  syncTotal: {
    name: `${subsystem}_sync_total`,
    help: 'Number of namespace syncs happened in root ca cert publisher.',
    labels: ['code'],
  },
  syncDuration: {
    name: `${subsystem}_sync_duration_seconds`,
    help: 'Number of namespace syncs happened in root ca cert publisher.',
    labels: ['code'],
    // ExponentialBuckets(0.001, 2, 15).
    buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
  },
};

/**
 * Where the publisher records each namespace sync.
 *
 * @category Root CA publisher
 */
export interface RootCACertPublisherMetrics {
  /** One sync that took `seconds` and ended with `err` (undefined for success). */
  recordSync(seconds: number, err: unknown): void;
}

/**
 * Records nothing: the default when the publisher is given no metrics.
 *
 * @category Root CA publisher
 */
export const noopRootCACertPublisherMetrics: RootCACertPublisherMetrics = Object.freeze({
  recordSync: () => undefined,
});

/**
 * The `code` label of a sync's outcome: `200` for success, the Status
 * code of an API error, `500` for anything else. Go's `recordMetrics`.
 *
 * @category Root CA publisher
 */
export function syncResultCode(err: unknown): string {
  if (err === undefined) return '200';
  if (isStatusError(err) && err.code) return String(err.code);
  return '500';
}

/**
 * Registers the publisher's metrics in `registry` (once: a second call uses
 * those already there) and records into them.
 *
 * @category Root CA publisher
 */
export function newRootCACertPublisherMetrics(registry: Registry): RootCACertPublisherMetrics {
  const d = rootCACertPublisherMetrics;
  const total =
    (registry.getSingleMetric(d.syncTotal.name) as Counter | undefined) ??
    new Counter({
      name: d.syncTotal.name,
      help: d.syncTotal.help,
      labelNames: [...d.syncTotal.labels],
      registers: [registry],
    });
  const latency =
    (registry.getSingleMetric(d.syncDuration.name) as Histogram | undefined) ??
    new Histogram({
      name: d.syncDuration.name,
      help: d.syncDuration.help,
      labelNames: [...d.syncDuration.labels],
      buckets: [...d.syncDuration.buckets],
      registers: [registry],
    });
  return {
    recordSync(seconds, err) {
      const code = syncResultCode(err);
      latency.labels(code).observe(seconds);
      total.labels(code).inc();
    },
  };
}
