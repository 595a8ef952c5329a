/**
 * kube-controller-manager in TypeScript: {@link run} starts the controllers
 * kcm-ts implements (ReplicaSet, Deployment, Job, CronJob, the garbage collector,
 * the namespace controller, the pod garbage collector, TTL after finished,
 * ServiceAccounts, the root CA publisher, ClusterRole aggregation and
 * PodDisruptionBudgets, among others)
 * on one shared informer factory, behind leader
 * election, with kube-controller-manager's flags, health checks, metrics and
 * `/configz`. The `kcm-ts` command runs it against a cluster
 * (`kcm-ts controller-manager`) or together with a sandbox (`kcm-ts up`).
 * Controllers of your own are built with {@link newControllerManagedBy},
 * run by the same {@link run}, and tested with {@link startTestEnvironment}.
 *
 * @packageDocumentation
 */

// The controller manager
export { implementedControllers, run } from './controller-manager.js';
export type { ApiServerConnection, RunOptions } from './controller-manager.js';
export { createControllerContext } from './controller-context.js';
export { trimManagedFields } from '@kcm-ts/informer';
export type {
  ControllerContext,
  ControllerContextOptions,
  CreatedControllerContext,
  InitFunc,
  StartedController,
} from './controller-context.js';
export { configz, defaultConfiguration, formatDuration } from './config.js';
export type { ControllerManagerConfiguration, LeaderElectionConfiguration } from './config.js';

// Your own controllers: the builder, its predicates and helpers
export { ControllerBuilder, newControllerManagedBy } from './builder/controller.js';
export type { ReconcileContext, ReconcilerSetup, WatchOptions } from './builder/controller.js';
export type { MapFunc } from './builder/handler.js';
export { TerminalError, isTerminalError, terminalError } from './builder/reconcile.js';
export type { Reconciler, Request, Requeue, Result } from './builder/reconcile.js';
export {
  and,
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  labelSelectorPredicate,
  newPredicateFuncs,
  not,
  or,
  resourceVersionChangedPredicate,
} from './builder/predicate.js';
export type { Predicate } from './builder/predicate.js';
export {
  AlreadyOwnedError,
  addFinalizer,
  apply,
  containsFinalizer,
  createOrUpdate,
  defaultRetry,
  removeFinalizer,
  retryOnConflict,
  setControllerReference,
} from './controllerutil/controllerutil.js';
export type {
  ApplyOptions,
  Backoff,
  CreateOrUpdateResult,
  OperationResult,
  RetryOptions,
} from './controllerutil/controllerutil.js';
export { startTestEnvironment } from './envtest/environment.js';
export type {
  TestEnvironment,
  TestEnvironmentOptions,
  TestManager,
  TestManagerOptions,
} from './envtest/environment.js';

// The controller registry
export {
  canonicalControllers,
  controllerAliases,
  controllersDisabledByDefault,
  controllersFlagHelp,
  isControllerEnabled,
  isDescriptorEnabled,
  knownControllers,
  names,
  newControllerDescriptors,
  validateControllers,
} from './controller-descriptors.js';
export type { ControllerDescriptor } from './controller-descriptors.js';

// Controllers
export {
  serverHasResource,
  startDaemonSetController,
  startDeploymentController,
  startReplicaSetController,
  startStatefulSetController,
} from './apps.js';
export { startCronJobController, startJobController } from './batch.js';
export {
  startEndpointSliceController,
  startEndpointSliceMirroringController,
} from './discovery-controllers.js';
export {
  prometheusCronJobMetricsProvider,
  prometheusJobMetricsProvider,
} from './metrics/job-controller.js';
export { prometheusEndpointSliceMetricsProvider } from './metrics/endpointslice-controller.js';
export {
  startEndpointsController,
  startGarbageCollectorController,
  startNamespaceController,
  startNodeIpamController,
  startNodeLifecycleController,
  startPersistentVolumeClaimProtectionController,
  startPersistentVolumeProtectionController,
  startPodGCController,
  startReplicationController,
  startServiceAccountController,
  startTaintEvictionController,
  startTTLAfterFinishedController,
} from './core.js';
export {
  clusterCABundle,
  startRootCACertificatePublisherController,
  verifyCABundle,
} from './certificates.js';
export { startClusterRoleAggregationController } from './rbac.js';
export { startDisruptionController } from './policy.js';

// Clients
export { newClientBuilder } from './client-builder.js';
export type {
  ClientBuilderOptions,
  ClientScale,
  ControllerClientBuilder,
  RestClientSource,
} from './client-builder.js';

// Endpoints
export { DelegatingAuth, anonymousUser, maxReviewsPerSource } from './server/delegated-auth.js';
export type { DelegatingAuthOptions, UserInfo } from './server/delegated-auth.js';
export { MutableHealthChecks, namedPingChecker, pingHealthz } from './server/healthz.js';
export type { HealthAnswer, HealthChecker } from './server/healthz.js';
export { serveSecurely } from './server/secure-serving.js';
export type {
  DebuggingHandler,
  DebuggingResponse,
  SecureServer,
  SecureServingOptions,
  ServingCertificate,
} from './server/secure-serving.js';

// Metrics
export { newManagerMetrics, restClientMetrics } from './metrics/prometheus.js';
export { controllerRuntimeMetrics, noopControllerMetrics } from './metrics/controller-runtime.js';
export type {
  ControllerMetrics,
  ControllerMetricsRecorder,
  ControllerRuntimeMetricDefinitions,
  ReconcileOutcome,
  ReconcileResultLabel,
} from './metrics/controller-runtime.js';
export type { HistogramDefinition, MetricDefinition } from './metrics/definition.js';
export type {
  ManagerMetrics,
  RestClientMetricDefinitions,
  RestClientMetrics,
} from './metrics/prometheus.js';

// Logging
export { newLogger } from './logging/logger.js';
export type { LogRecord } from './logging/log-record.js';
export type { LoggerOptions, LoggingFormat } from './logging/logger.js';
export { formatTextLine } from './logging/text.js';
export { formatJsonLine } from './logging/json.js';

// Command line
export { FlagError, flagUsages, parseFlags } from './cli/flags.js';
export type { FlagKind, FlagSpec, FlagValue, ParsedFlags } from './cli/flags.js';
export { completeOptions, controllerManagerFlags } from './cli/options.js';
export type { CommandOptions } from './cli/options.js';

// Garbage collector
export {
  DeferredDiscoveryRESTMapper,
  filteredBy,
  groupVersionResourceKey,
  groupVersionResources,
  serverPreferredNamespacedResources,
  serverPreferredResources,
  supportsAllVerbs,
} from './discovery.js';
export type { DiscoveryResult, RESTMapping } from './discovery.js';
export {
  GarbageCollector,
  defaultConcurrentGCSyncs,
  getDeletableResources,
} from './garbagecollector/garbage-collector.js';
export type {
  DeletableResources,
  GarbageCollectorOptions,
} from './garbagecollector/garbage-collector.js';
export { defaultIgnoredResources } from './garbagecollector/graph-builder.js';

// Namespace controller
export {
  NamespaceController,
  defaultConcurrentNamespaceSyncs,
  namespaceDeletionGracePeriod,
} from './namespace/namespace-controller.js';
export type { NamespaceControllerOptions } from './namespace/namespace-controller.js';
export {
  NamespacedResourcesDeleter,
  ResourcesRemainingError,
} from './namespace/namespaced-resources-deleter.js';
export type {
  FinalizeNamespaceFunc,
  NamespacedResourcesDeleterInterface,
  NamespacedResourcesDeleterOptions,
} from './namespace/namespaced-resources-deleter.js';
export { namespaceConditionTypes } from './namespace/status-condition-utils.js';
export type { NamespaceConditionType } from './namespace/status-condition-utils.js';

// TTL after finished
export {
  TTLAfterFinishedController,
  defaultConcurrentTTLSyncs,
} from './ttlafterfinished/ttl-after-finished-controller.js';
export type { TTLAfterFinishedControllerOptions } from './ttlafterfinished/ttl-after-finished-controller.js';
export { newTTLAfterFinishedMetrics, ttlAfterFinishedMetrics } from './ttlafterfinished/metrics.js';
export type {
  TTLAfterFinishedMetricDefinitions,
  TTLAfterFinishedMetrics,
} from './ttlafterfinished/metrics.js';

// Pod garbage collector
export {
  PodGCController,
  defaultTerminatedPodGCThreshold,
  gcCheckPeriod,
  quarantineTime,
} from './podgc/gc-controller.js';
export type { PodGCControllerOptions } from './podgc/gc-controller.js';
export { newPodGCMetrics, podGCMetrics } from './podgc/metrics.js';
export type { PodGCMetricDefinitions, PodGCMetrics, PodGCReason } from './podgc/metrics.js';

// Node lifecycle
export {
  NodeLifecycleController,
  defaultLargeClusterSizeThreshold,
  defaultNodeEvictionRate,
  defaultNodeMonitorGracePeriod,
  defaultNodeMonitorPeriod,
  defaultNodeStartupGracePeriod,
  defaultSecondaryNodeEvictionRate,
  defaultUnhealthyZoneThreshold,
  notReadyTaintTemplate,
  unreachableTaintTemplate,
} from './nodelifecycle/node-lifecycle-controller.js';
export type {
  NodeLifecycleControllerOptions,
  ZoneState,
} from './nodelifecycle/node-lifecycle-controller.js';
export {
  RateLimitedTimedQueue,
  evictionRateLimiterBurst,
  neverRateLimiter,
  newTokenBucketRateLimiter,
  nodeEvictionPeriod,
  nodeHealthUpdateRetry,
} from './nodelifecycle/rate-limited-queue.js';
export type { ActionFunc, TimedValue, TryRateLimiter } from './nodelifecycle/rate-limited-queue.js';
export { newNodeLifecycleMetrics, nodeLifecycleMetrics } from './nodelifecycle/metrics.js';
export type {
  NodeLifecycleMetricDefinitions,
  NodeLifecycleMetrics,
} from './nodelifecycle/metrics.js';

// Volume protection
export {
  PVCProtectionController,
  podPVCIndex,
  podPVCIndexFunc,
  podUsesPVC,
} from './volume/pvc-protection-controller.js';
export type { PVCProtectionControllerOptions } from './volume/pvc-protection-controller.js';
export { PVProtectionController } from './volume/pv-protection-controller.js';
export type { PVProtectionControllerOptions } from './volume/pv-protection-controller.js';
export { pvProtectionFinalizer, pvcProtectionFinalizer } from './volume/protection-util.js';

// Taint eviction
export {
  TaintEvictionController,
  getMinTolerationTime,
  getNoExecuteTaints,
} from './nodelifecycle/tainteviction/taint-eviction.js';
export type { TaintEvictionControllerOptions } from './nodelifecycle/tainteviction/taint-eviction.js';
export { TimedWorkerQueue, keyFromWorkArgs } from './nodelifecycle/tainteviction/timed-workers.js';
export type {
  TimedWorker,
  WorkArgs,
  WorkFunc,
} from './nodelifecycle/tainteviction/timed-workers.js';
export {
  newTaintEvictionMetrics,
  taintEvictionMetrics,
} from './nodelifecycle/tainteviction/metrics.js';
export type {
  TaintEvictionMetricDefinitions,
  TaintEvictionMetrics,
} from './nodelifecycle/tainteviction/metrics.js';

// ServiceAccounts
export {
  ServiceAccountsController,
  defaultServiceAccountsToEnsure,
} from './serviceaccount/serviceaccounts-controller.js';
export type { ServiceAccountsControllerOptions } from './serviceaccount/serviceaccounts-controller.js';

// Root CA publisher
export {
  Publisher,
  descriptionAnnotation,
  rootCACertConfigMapName,
  rootCACertDescription,
} from './rootcacertpublisher/publisher.js';
export type { PublisherOptions } from './rootcacertpublisher/publisher.js';
export {
  newRootCACertPublisherMetrics,
  noopRootCACertPublisherMetrics,
  rootCACertPublisherMetrics,
  syncResultCode,
} from './rootcacertpublisher/metrics.js';
export type {
  RootCACertPublisherMetricDefinitions,
  RootCACertPublisherMetrics,
} from './rootcacertpublisher/metrics.js';

// ClusterRole aggregation
export {
  ClusterRoleAggregationController,
  aggregatedRules,
  clusterRoleAggregationFieldManager,
} from './clusterroleaggregation/clusterroleaggregation-controller.js';
export type { ClusterRoleAggregationControllerOptions } from './clusterroleaggregation/clusterroleaggregation-controller.js';

// Disruption
export {
  DisruptionController,
  countHealthyPods,
  deletionTimeout,
  stalePodDisruptionTimeout,
} from './disruption/disruption.js';
export type { ControllerAndScale, DisruptionControllerOptions } from './disruption/disruption.js';
export {
  conditionsAreUpToDate,
  disruptionAllowedCondition,
  disruptionReasons,
  disruptionTargetCondition,
  formatLabelSelector,
  podDisruptionBudgetsForPod,
  updateDisruptionAllowedCondition,
} from './disruption/pdb-helpers.js';

// Kubernetes object types (type-only namespaces: corev1, appsv1, metav1, ...)
export type * from './api.js';
