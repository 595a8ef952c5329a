// Pluggable leader metrics: client-go tools/leaderelection/metrics.go, with the
// names k8s.io/component-base/metrics/prometheus/clientgo/leaderelection registers.

/**
 * The elector's metrics, each call labelled with the elector's name: Go's
 * `leaderelection.LeaderMetric`.
 *
 * @category Metrics
 */
export interface LeaderMetric {
  /** Sets `leader_election_master_status{name}` to 1: this process leads. */
  on(name: string): void;
  /** Sets `leader_election_master_status{name}` to 0: this process does not lead. */
  off(name: string): void;
  /** Adds one to `leader_election_slowpath_total{name}`: a renewal needed a get before its update. */
  slowpathExercised(name: string): void;
}

/**
 * Makes the metric an elector reports to: Go's `leaderelection.MetricsProvider`.
 *
 * @category Metrics
 */
export interface LeaderMetricsProvider {
  /** Returns the metric a new elector will use. */
  newLeaderMetric(): LeaderMetric;
}

/**
 * A metric's Prometheus name, help text, type and labels, for providers to
 * register under client-go's names.
 *
 * @category Metrics
 */
export interface LeaderMetricDescriptor {
  /** The Prometheus name. */
  name: string;
  /** The help text. */
  help: string;
  /** The metric type. */
  type: 'gauge' | 'counter';
  /** The label names. */
  labels: readonly string[];
}

/**
 * The two metrics and their names, as kube-controller-manager registers them.
 *
 * @category Metrics
 */
export const leaderElectionMetrics: {
  /** 1 while this process holds the lease called `name`, else 0. */
  readonly masterStatus: LeaderMetricDescriptor;
  /** Renewals that had to read the Lease again after a failed update. */
  readonly slowpathTotal: LeaderMetricDescriptor;
} = {
  masterStatus: {
    name: 'leader_election_master_status',
    help: 'Whether this process leads the lease identified by the name label: 1 when leading, 0 when standing by.',
    type: 'gauge',
    labels: ['name'],
  },
  slowpathTotal: {
    name: 'leader_election_slowpath_total',
    help: 'Lease renewals that fell back to reading the lease before updating it, by lease name.',
    type: 'counter',
    labels: ['name'],
  },
};

const noopLeaderMetric: LeaderMetric = {
  on() {},
  off() {},
  slowpathExercised() {},
};

/**
 * The default provider: its metric does nothing.
 *
 * @category Metrics
 */
export const noopLeaderMetricsProvider: LeaderMetricsProvider = {
  newLeaderMetric: () => noopLeaderMetric,
};

let provider: LeaderMetricsProvider = noopLeaderMetricsProvider;
let providerSet = false;

/**
 * Installs the metrics provider for every elector built afterwards. As in
 * client-go, only the first call counts; later calls are ignored.
 *
 * @category Metrics
 */
export function setProvider(metricsProvider: LeaderMetricsProvider): void {
  if (providerSet) return;
  providerSet = true;
  provider = metricsProvider;
}

/** The metric a new elector reports to (Go's `globalMetricsFactory.newLeaderMetric`). */
export function newLeaderMetric(): LeaderMetric {
  return provider.newLeaderMetric();
}
