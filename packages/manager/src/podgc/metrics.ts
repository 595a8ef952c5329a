// The pod garbage collector's metrics: Go's
// pkg/controller/podgc/metrics/metrics.go (DeletingPodsTotal,
// DeletingPodsErrorTotal, the PodGCReason* label values, RegisterMetrics).
// Names, help and labels are upstream's. Go registers them once in the
// global legacy registry; here they go into the registry they are given.
import { Counter, type Registry } from 'prom-client';
import type { MetricDefinition } from '../metrics/definition.js';

/**
 * Why PodGC force-deleted a pod: the `reason` label of its metrics. Go's
 * `PodGCReasonTerminated` (too many terminated pods),
 * `PodGCReasonTerminatingOutOfService` (terminating on a node that is not
 * ready and tainted `node.kubernetes.io/out-of-service`),
 * `PodGCReasonOrphaned` (its node is gone) and
 * `PodGCReasonTerminatingUnscheduled` (terminating and never scheduled).
 *
 * @category Pod garbage collector
 */
export type PodGCReason = 'terminated' | 'out-of-service' | 'orphaned' | 'unscheduled';

/**
 * The definitions of PodGC's metrics.
 *
 * @category Pod garbage collector
 */
export interface PodGCMetricDefinitions {
  /** `pod_gc_collector_force_delete_pods_total{namespace,reason}`. */
  readonly deletingPodsTotal: MetricDefinition;
  /** `pod_gc_collector_force_delete_pod_errors_total{namespace,reason}`. */
  readonly deletingPodsErrorTotal: MetricDefinition;
}

const podGCSubsystem = 'pod_gc_collector';

/**
 * PodGC's metrics as kube-controller-manager exports them.
 *
 * @category Pod garbage collector
 */
export const podGCMetrics: PodGCMetricDefinitions = {
  deletingPodsTotal: {
    name: `${podGCSubsystem}_force_delete_pods_total`,
    help: 'Number of pods that are being forcefully deleted since the Pod GC Controller started.',
    labels: ['namespace', 'reason'],
  },
  deletingPodsErrorTotal: {
    name: `${podGCSubsystem}_force_delete_pod_errors_total`,
    help: 'Number of errors encountered when forcefully deleting the pods since the Pod GC Controller started.',
    labels: ['namespace', 'reason'],
  },
};

/**
 * Where PodGC records: one method per metric.
 *
 * @category Pod garbage collector
 */
export interface PodGCMetrics {
  /** Counts a pod force-deleted (or attempted) in `namespace` for `reason`. */
  deletingPod(namespace: string, reason: PodGCReason): void;
  /** Counts a force deletion of a pod in `namespace` for `reason` that failed. */
  deletingPodError(namespace: string, reason: PodGCReason): void;
}

/**
 * Records nothing: the default when a controller is given no metrics.
 *
 * @category Pod garbage collector
 */
export const noopPodGCMetrics: PodGCMetrics = Object.freeze({
  deletingPod: () => undefined,
  deletingPodError: () => undefined,
});

/**
 * Registers PodGC's metrics in `registry` (once: a second call with the
 * same registry uses the counters already there, as Go's `RegisterMetrics`
 * runs once) and records into them.
 *
 * @example
 * ```ts
 * const metrics = newPodGCMetrics(managerMetrics.registry);
 * new PodGCController({ kubeClient, podInformer, nodeInformer, metrics });
 * ```
 *
 * @category Pod garbage collector
 */
export function newPodGCMetrics(registry: Registry): PodGCMetrics {
  const counter = (d: MetricDefinition): Counter =>
    (registry.getSingleMetric(d.name) as Counter | undefined) ??
    new Counter({ name: d.name, help: d.help, labelNames: [...d.labels], registers: [registry] });
  const total = counter(podGCMetrics.deletingPodsTotal);
  const errors = counter(podGCMetrics.deletingPodsErrorTotal);
  return {
    deletingPod: (namespace, reason) => total.labels(namespace, reason).inc(),
    deletingPodError: (namespace, reason) => errors.labels(namespace, reason).inc(),
  };
}
