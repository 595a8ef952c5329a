// The node lifecycle controller's metrics: Go's
// pkg/controller/nodelifecycle/metrics.go (zoneHealth, zoneSize,
// unhealthyNodes, evictionsTotal, updateNodeHealthDuration,
// updateAllNodesHealthDuration, Register). Names, help, labels and buckets
// are upstream's; node_collector_evictions_number, deprecated in 1.24, is
// hidden upstream and left out. Go registers them once in the global legacy
// registry; here they go into the registry they are given.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { exponentialBuckets } from '@kcm-ts/workqueue';
import type { HistogramDefinition, MetricDefinition } from '../metrics/definition.js';

const subsystem = 'node_collector';

/**
 * The definitions of the node lifecycle controller's metrics.
 *
 * @category Node lifecycle controller
 */
export interface NodeLifecycleMetricDefinitions {
  /** `node_collector_zone_health{zone}`. */
  readonly zoneHealth: MetricDefinition;
  /** `node_collector_zone_size{zone}`. */
  readonly zoneSize: MetricDefinition;
  /** `node_collector_unhealthy_nodes_in_zone{zone}`. */
  readonly unhealthyNodes: MetricDefinition;
  /** `node_collector_evictions_total{zone}`. */
  readonly evictionsTotal: MetricDefinition;
  /** `node_collector_update_node_health_duration_seconds`. */
  readonly updateNodeHealthDuration: HistogramDefinition;
  /** `node_collector_update_all_nodes_health_duration_seconds`. */
  readonly updateAllNodesHealthDuration: HistogramDefinition;
}

/**
 * The node lifecycle controller's metrics as kube-controller-manager exports them.
 *
 * @category Node lifecycle controller
 */
export const nodeLifecycleMetrics: NodeLifecycleMetricDefinitions = {
  zoneHealth: {
    name: `${subsystem}_zone_health`,
    help: 'Gauge measuring percentage of healthy nodes per zone.',
    labels: ['zone'],
  },
  zoneSize: {
    name: `${subsystem}_zone_size`,
    help: 'Gauge measuring number of registered Nodes per zones.',
    labels: ['zone'],
  },
  unhealthyNodes: {
    name: `${subsystem}_unhealthy_nodes_in_zone`,
    help: 'Gauge measuring number of not Ready Nodes per zones.',
    labels: ['zone'],
  },
  evictionsTotal: {
    name: `${subsystem}_evictions_total`,
    help: 'Number of Node evictions that happened since current instance of NodeController started.',
    labels: ['zone'],
  },
  updateNodeHealthDuration: {
    name: `${subsystem}_update_node_health_duration_seconds`,
    help: 'Duration in seconds for NodeController to update the health of a single node.',
    labels: [],
    buckets: exponentialBuckets(0.001, 4, 8),
  },
  updateAllNodesHealthDuration: {
    name: `${subsystem}_update_all_nodes_health_duration_seconds`,
    help: 'Duration in seconds for NodeController to update the health of all nodes.',
    labels: [],
    buckets: exponentialBuckets(0.01, 4, 8),
  },
};

/**
 * Where the node lifecycle controller records: one method per metric.
 *
 * @category Node lifecycle controller
 */
export interface NodeLifecycleMetrics {
  /** Sets the zone's size, its percentage of healthy nodes and its count of unhealthy ones. */
  setZone(zone: string, size: number, health: number, unhealthy: number): void;
  /** Counts a node tainted for eviction in `zone` (`n` = 0 just makes the series). */
  addEviction(zone: string, n: number): void;
  /** Observes how long one node's health update took, in seconds. */
  observeNodeHealthUpdate(seconds: number): void;
  /** Observes how long a pass over every node took, in seconds. */
  observeAllNodesHealthUpdate(seconds: number): void;
}

/**
 * Records nothing: the default when the controller is given no metrics.
 *
 * @category Node lifecycle controller
 */
export const noopNodeLifecycleMetrics: NodeLifecycleMetrics = Object.freeze({
  setZone: () => undefined,
  addEviction: () => undefined,
  observeNodeHealthUpdate: () => undefined,
  observeAllNodesHealthUpdate: () => undefined,
});

/**
 * Registers the node lifecycle controller's metrics in `registry` (once: a
 * second call with the same registry uses the metrics already there) and
 * records into them.
 *
 * @category Node lifecycle controller
 */
export function newNodeLifecycleMetrics(registry: Registry): NodeLifecycleMetrics {
  const existing = <M>(d: MetricDefinition) => registry.getSingleMetric(d.name) as M | undefined;
  const gauge = (d: MetricDefinition): Gauge =>
    existing<Gauge>(d) ??
    new Gauge({ name: d.name, help: d.help, labelNames: [...d.labels], registers: [registry] });
  const counter = (d: MetricDefinition): Counter =>
    existing<Counter>(d) ??
    new Counter({ name: d.name, help: d.help, labelNames: [...d.labels], registers: [registry] });
  const histogram = (d: HistogramDefinition): Histogram =>
    existing<Histogram>(d) ??
    new Histogram({ name: d.name, help: d.help, buckets: [...d.buckets], registers: [registry] });
  const m = nodeLifecycleMetrics;
  const zoneHealth = gauge(m.zoneHealth);
  const zoneSize = gauge(m.zoneSize);
  const unhealthy = gauge(m.unhealthyNodes);
  const evictions = counter(m.evictionsTotal);
  const one = histogram(m.updateNodeHealthDuration);
  const all = histogram(m.updateAllNodesHealthDuration);
  return {
    setZone(zone, size, health, unhealthyCount) {
      zoneSize.labels(zone).set(size);
      zoneHealth.labels(zone).set(health);
      unhealthy.labels(zone).set(unhealthyCount);
    },
    addEviction: (zone, n) => evictions.labels(zone).inc(n),
    observeNodeHealthUpdate: (s) => one.observe(s),
    observeAllNodesHealthUpdate: (s) => all.observe(s),
  };
}
