/**
 * client-go's `tools/leaderelection` in TypeScript: several replicas of a
 * controller compete for a `coordination.k8s.io/v1` Lease, one leads, and the
 * others take over when it stops renewing. Chapter 4 of the course walks
 * through it.
 *
 * @packageDocumentation
 */
export {
  leaderElectionRecordAnnotationKey,
  leaderElectionRecordJSON,
  leasesResourceLock,
} from './resource-lock.js';
export type {
  LeaderElectionRecord,
  LockReadResult,
  ResourceLock,
  ResourceLockConfig,
} from './resource-lock.js';
export { newResourceLock } from './new-resource-lock.js';
export {
  LeaseLock,
  leaderElectionRecordToLeaseSpec,
  leaseSpecToLeaderElectionRecord,
} from './lease-lock.js';
export type { LeaseLockOptions, LeaseSpecWithStrategy } from './lease-lock.js';
export {
  LeaderElectionLostError,
  LeaderElector,
  defaultLeaseDuration,
  defaultRenewDeadline,
  defaultRetryPeriod,
  jitterFactor,
  runOrDie,
} from './leader-elector.js';
export type { LeaderCallbacks, LeaderElectionConfig } from './leader-elector.js';
export { HealthzAdaptor } from './healthz.js';
export { leaderElectionMetrics, noopLeaderMetricsProvider, setProvider } from './metrics.js';
export type { LeaderMetric, LeaderMetricDescriptor, LeaderMetricsProvider } from './metrics.js';
