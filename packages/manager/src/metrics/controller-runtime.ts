// The metrics of a built controller: controller-runtime's
// pkg/internal/controller/metrics/metrics.go. The names, labels and
// histogram buckets are controller-runtime's, so dashboards and alerts
// written for a Go operator read a kcm-ts one too. The definitions and the
// recorder interface live beside the manager's own metrics, below the
// builder and the controller context that both record through them;
// prometheus.ts registers them with prom-client in the manager's registry.
import type { HistogramDefinition, MetricDefinition } from './definition.js';

/**
 * The `result` label of `controller_runtime_reconcile_total`: how a
 * reconcile ended.
 *
 * @category Metrics
 */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Every value of {@link ReconcileResultLabel}, in controller-runtime's order. */
export const reconcileResultLabels: readonly ReconcileResultLabel[] = [
  'success',
  'error',
  'requeue',
  'requeue_after',
];

/**
 * The definitions of controller-runtime's controller metrics.
 *
 * @category Metrics
 */
export interface ControllerRuntimeMetricDefinitions {
  /** `controller_runtime_reconcile_total{controller,result}`. */
  readonly reconcileTotal: MetricDefinition;
  /** `controller_runtime_reconcile_errors_total{controller}`. */
  readonly reconcileErrors: MetricDefinition;
  /** `controller_runtime_terminal_reconcile_errors_total{controller}`. */
  readonly terminalReconcileErrors: MetricDefinition;
  /** `controller_runtime_reconcile_panics_total{controller}`. */
  readonly reconcilePanics: MetricDefinition;
  /** `controller_runtime_reconcile_time_seconds{controller}`. */
  readonly reconcileTime: HistogramDefinition;
  /** `controller_runtime_max_concurrent_reconciles{controller}`. */
  readonly workerCount: MetricDefinition;
  /** `controller_runtime_active_workers{controller}`. */
  readonly activeWorkers: MetricDefinition;
}

/**
 * controller-runtime's controller metrics, as the manager registers them for
 * every controller made with {@link newControllerManagedBy}.
 *
 * @category Metrics
 */
export const controllerRuntimeMetrics: ControllerRuntimeMetricDefinitions = {
  reconcileTotal: {
    name: 'controller_runtime_reconcile_total',
    help: 'Reconciles of each controller, by how they ended.',
    labels: ['controller', 'result'],
  },
  reconcileErrors: {
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Reconciles of each controller that failed, terminal failures included.',
    labels: ['controller'],
  },
  terminalReconcileErrors: {
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Reconciles of each controller that failed with a terminal error (not retried).',
    labels: ['controller'],
  },
  reconcilePanics: {
    name: 'controller_runtime_reconcile_panics_total',
    help: 'Reconciles of each controller that failed with a programming error (TypeError, RangeError, ...).',
    labels: ['controller'],
  },
  reconcileTime: {
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'How long the reconciles of each controller took, in seconds.',
    labels: ['controller'],
    buckets: [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
      1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50,
      60,
    ],
  },
  workerCount: {
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'How many workers each controller runs at most.',
    labels: ['controller'],
  },
  activeWorkers: {
    name: 'controller_runtime_active_workers',
    help: 'How many workers of each controller are reconciling now.',
    labels: ['controller'],
  },
};

/**
 * How one reconcile ended, for {@link ControllerMetricsRecorder.reconciled}.
 *
 * @category Metrics
 */
export interface ReconcileOutcome {
  /** The `result` label. */
  readonly result: ReconcileResultLabel;
  /** A failure with a terminal error: counted, not retried. */
  readonly terminal?: boolean;
  /** A failure with a programming error, Go's recovered panic. */
  readonly panic?: boolean;
}

/**
 * Writes one controller's metrics.
 *
 * @category Metrics
 */
export interface ControllerMetricsRecorder {
  /** One more (`+1`) or one fewer (`-1`) worker is reconciling. */
  addActiveWorkers(delta: number): void;
  /** Counts one reconcile by its outcome and observes how long it took. */
  reconciled(outcome: ReconcileOutcome, seconds: number): void;
}

/**
 * Makes each built controller's metrics recorder. The manager's
 * {@link ManagerMetrics} holds one that writes to its registry.
 *
 * @category Metrics
 */
export interface ControllerMetrics {
  /**
   * The recorder of the controller `name`, which runs `workers` workers.
   * Sets every series of the controller to zero (and the worker count), so
   * that they show on `/metrics` before the first reconcile, as
   * controller-runtime does when a controller starts.
   */
  forController(name: string, workers: number): ControllerMetricsRecorder;
}

const noopRecorder: ControllerMetricsRecorder = {
  addActiveWorkers: () => undefined,
  reconciled: () => undefined,
};

/**
 * Metrics that go nowhere: what a controller records when its context has
 * no {@link ControllerContext.controllerMetrics}.
 *
 * @category Metrics
 */
export const noopControllerMetrics: ControllerMetrics = { forController: () => noopRecorder };
