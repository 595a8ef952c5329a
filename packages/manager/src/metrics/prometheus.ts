// What kube-controller-manager's /metrics shows, through prom-client: the
// providers that component-base/metrics/prometheus registers for client-go
// (workqueue/metrics.go, clientgo/leaderelection/metrics.go,
// restclient/metrics.go), the process metrics of
// prometheus/client_golang's process collector, and, for controllers made
// with the builder, controller-runtime's controller metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LeaderMetric, LeaderMetricsProvider } from '@kcm-ts/leader-election';
import { leaderElectionMetrics } from '@kcm-ts/leader-election';
import type { MetricDescriptor, MetricsProvider } from '@kcm-ts/workqueue';
import { workqueueMetrics } from '@kcm-ts/workqueue';
import type { HistogramDefinition, MetricDefinition } from './definition.js';
import {
  controllerRuntimeMetrics,
  reconcileResultLabels,
  type ControllerMetrics,
} from './controller-runtime.js';

/**
 * The REST client's two request metrics (client-go `tools/metrics`, as
 * component-base registers them).
 *
 * @category Metrics
 */
export const restClientMetrics: RestClientMetricDefinitions = {
  requests: {
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests to the API server, by status code, method and host.',
    labels: ['code', 'method', 'host'],
  },
  duration: {
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency to the API server in seconds, by verb and host.',
    labels: ['verb', 'host'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
  },
};

/**
 * The REST client metrics' definitions.
 *
 * @category Metrics
 */
export interface RestClientMetricDefinitions {
  /** `rest_client_requests_total{code,method,host}`. */
  readonly requests: MetricDefinition;
  /** `rest_client_request_duration_seconds{verb,host}` (the verb label holds the HTTP method). */
  readonly duration: HistogramDefinition;
}

/**
 * Records one request to the API server: what a client wrapper calls after
 * every response.
 *
 * @category Metrics
 */
export interface RestClientMetrics {
  /** Counts a request and observes its latency. `code` is the HTTP status, or `'<error>'`. */
  observe(method: string, host: string, code: string, seconds: number): void;
}

/**
 * A Prometheus registry holding every metric the manager exports, with the
 * providers that feed it.
 *
 * @category Metrics
 */
export interface ManagerMetrics {
  /** The registry `/metrics` serves. */
  readonly registry: Registry;
  /** The workqueue metrics provider (label `name`). */
  readonly workqueue: MetricsProvider;
  /** The leader-election metrics provider (label `name`). */
  readonly leaderElection: LeaderMetricsProvider;
  /** The REST client request metrics. */
  readonly restClient: RestClientMetrics;
  /** controller-runtime's metrics of the controllers the builder makes (label `controller`). */
  readonly controller: ControllerMetrics;
}

function counter(registry: Registry, d: MetricDescriptor): Counter<'name'> {
  return new Counter({ name: d.name, help: d.help, labelNames: ['name'], registers: [registry] });
}
function gauge(registry: Registry, d: MetricDescriptor): Gauge<'name'> {
  return new Gauge({ name: d.name, help: d.help, labelNames: ['name'], registers: [registry] });
}
function histogram(registry: Registry, d: MetricDescriptor): Histogram<'name'> {
  return new Histogram({
    name: d.name,
    help: d.help,
    labelNames: ['name'],
    buckets: [...(d.buckets ?? [])],
    registers: [registry],
  });
}

/**
 * Makes a registry with the workqueue, leader-election, REST client,
 * controller-runtime controller and process metrics, and the providers that
 * write to it. Hand the providers to
 * `setProvider` of `@kcm-ts/workqueue` and `@kcm-ts/leader-election` (the
 * manager's `run` does) so every queue and elector made afterwards reports
 * here.
 *
 * @category Metrics
 */
export function newManagerMetrics(opts: { processMetrics?: boolean } = {}): ManagerMetrics {
  const registry = new Registry();
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  const depth = gauge(registry, workqueueMetrics.depth);
  const adds = counter(registry, workqueueMetrics.adds);
  const latency = histogram(registry, workqueueMetrics.latency);
  const work = histogram(registry, workqueueMetrics.workDuration);
  const unfinished = gauge(registry, workqueueMetrics.unfinishedWork);
  const longest = gauge(registry, workqueueMetrics.longestRunningProcessor);
  const retries = counter(registry, workqueueMetrics.retries);
  const workqueue: MetricsProvider = {
    newDepthMetric: (name) => {
      const g = depth.labels(name);
      return { inc: () => g.inc(), dec: () => g.dec() };
    },
    newAddsMetric: (name) => {
      const c = adds.labels(name);
      return { inc: () => c.inc() };
    },
    newLatencyMetric: (name) => {
      const h = latency.labels(name);
      return { observe: (v) => h.observe(v) };
    },
    newWorkDurationMetric: (name) => {
      const h = work.labels(name);
      return { observe: (v) => h.observe(v) };
    },
    newUnfinishedWorkSecondsMetric: (name) => {
      const g = unfinished.labels(name);
      return { set: (v) => g.set(v) };
    },
    newLongestRunningProcessorSecondsMetric: (name) => {
      const g = longest.labels(name);
      return { set: (v) => g.set(v) };
    },
    newRetriesMetric: (name) => {
      const c = retries.labels(name);
      return { inc: () => c.inc() };
    },
  };

  const master = new Gauge({
    name: leaderElectionMetrics.masterStatus.name,
    help: leaderElectionMetrics.masterStatus.help,
    labelNames: ['name'],
    registers: [registry],
  });
  const slowpath = new Counter({
    name: leaderElectionMetrics.slowpathTotal.name,
    help: leaderElectionMetrics.slowpathTotal.help,
    labelNames: ['name'],
    registers: [registry],
  });
  const leaderMetric: LeaderMetric = {
    on: (name) => master.labels(name).set(1),
    off: (name) => master.labels(name).set(0),
    slowpathExercised: (name) => slowpath.labels(name).inc(),
  };
  const leaderElection: LeaderMetricsProvider = { newLeaderMetric: () => leaderMetric };

  const requests = new Counter({
    name: restClientMetrics.requests.name,
    help: restClientMetrics.requests.help,
    labelNames: [...restClientMetrics.requests.labels],
    registers: [registry],
  });
  const duration = new Histogram({
    name: restClientMetrics.duration.name,
    help: restClientMetrics.duration.help,
    labelNames: [...restClientMetrics.duration.labels],
    buckets: [...restClientMetrics.duration.buckets],
    registers: [registry],
  });
  const restClient: RestClientMetrics = {
    observe(method, host, code, seconds) {
      requests.labels(code, method, host).inc();
      duration.labels(method, host).observe(seconds);
    },
  };

  return {
    registry,
    workqueue,
    leaderElection,
    restClient,
    controller: newControllerMetrics(registry),
  };
}

/** controller-runtime's controller metrics in `registry`. */
function newControllerMetrics(registry: Registry): ControllerMetrics {
  const d = controllerRuntimeMetrics;
  const byController = (def: MetricDefinition) => ({
    name: def.name,
    help: def.help,
    labelNames: [...def.labels],
    registers: [registry],
  });
  const total = new Counter(byController(d.reconcileTotal));
  const errors = new Counter(byController(d.reconcileErrors));
  const terminal = new Counter(byController(d.terminalReconcileErrors));
  const panics = new Counter(byController(d.reconcilePanics));
  const time = new Histogram({
    ...byController(d.reconcileTime),
    buckets: [...d.reconcileTime.buckets],
  });
  const workerCount = new Gauge(byController(d.workerCount));
  const active = new Gauge(byController(d.activeWorkers));
  return {
    forController(name, workers) {
      active.labels(name).set(0);
      errors.labels(name).inc(0);
      terminal.labels(name).inc(0);
      panics.labels(name).inc(0);
      for (const result of reconcileResultLabels) total.labels(name, result).inc(0);
      workerCount.labels(name).set(workers);
      const activeWorkers = active.labels(name);
      const seconds = time.labels(name);
      return {
        addActiveWorkers: (delta) => activeWorkers.inc(delta),
        reconciled(outcome, s) {
          total.labels(name, outcome.result).inc();
          if (outcome.result === 'error') errors.labels(name).inc();
          if (outcome.terminal) terminal.labels(name).inc();
          if (outcome.panic) panics.labels(name).inc();
          seconds.observe(s);
        },
      };
    },
  };
}
