/**
 * kube-controller-manager's EndpointSlice controller
 * (`pkg/controller/endpointslice`, with the library it stands on,
 * `k8s.io/endpointslice`) in TypeScript: {@link EndpointSliceController}
 * keeps, for every Service with a selector, EndpointSlices listing the
 * pods it selects, per address type and at most `maxEndpointsPerSlice`
 * endpoints each, with `ready`, `serving` and `terminating` conditions,
 * named target ports resolved per pod, node names and zones, the
 * last-change-trigger-time annotation and an owner reference to the
 * Service. The {@link Reconciler} places endpoints as upstream does
 * (update in place, fill the fullest slices, create only when needed), so
 * that one pod's change writes one slice, and the
 * {@link EndpointSliceTracker} lets the controller ignore its own writes
 * coming back through the informer. Beside it are the two sibling
 * controllers that publish a Service's endpoints: the
 * {@link EndpointsController} (`pkg/controller/endpoint`), which keeps the
 * legacy core/v1 Endpoints object of every Service with a selector, and the
 * {@link EndpointSliceMirroringController}
 * (`pkg/controller/endpointslicemirroring`), which mirrors hand-written
 * Endpoints of Services without a selector into EndpointSlices. Names
 * follow Go's, in camelCase.
 *
 * @packageDocumentation
 */

// The controller (endpointslice_controller.go)
export {
  EndpointSliceController,
  StaleInformerCacheError,
  concurrentServiceEndpointSyncs,
  controllerQualifiedName,
  defaultEndpointUpdatesBatchPeriod,
  defaultMaxEndpointsPerSlice,
  defaultSyncBackOff,
  endpointSliceChangeMinSyncDelay,
  endpointSliceControllerComponent,
  endpointSliceControllerName,
  failedToListEndpointSlicesReason,
  failedToListPodsReason,
  failedToUpdateEndpointSlicesReason,
  isStaleInformerCacheError,
  maxRetries,
  maxSyncBackOff,
} from './endpointslice-controller.js';
export type {
  EndpointSliceControllerObserver,
  EndpointSliceControllerOptions,
} from './endpointslice-controller.js';

// The reconciler (k8s.io/endpointslice reconciler.go)
export { Reconciler } from './reconciler.js';
export type { ReconcilerObserver, ReconcilerOptions } from './reconciler.js';

// Its helpers (k8s.io/endpointslice utils.go)
export {
  addTriggerTimeAnnotation,
  endpointsLastChangeTriggerTime,
  findPort,
  getAddressTypesForService,
  getEndpointAddresses,
  getEndpointPorts,
  getEndpointSlicePrefix,
  getSliceToFill,
  hintsEnabled,
  isHeadlessServiceLabel,
  isReservedLabelKey,
  isServiceIPSet,
  labelManagedBy,
  labelServiceName,
  labelTopologyZone,
  newEndpointSlice,
  ownedBy,
  podToEndpoint,
  serviceControllerKey,
  setEndpointSliceLabels,
} from './utils.js';
export type { AddressType, EndpointMeta } from './utils.js';

// Pods and Services (k8s.io/endpointslice util/controller_utils.go)
export {
  endpointsEqualBeyondHash,
  getPodServiceMemberships,
  getServicesToUpdateOnPodChange,
  podEndpointsChanged,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from './reconciler-util.js';

// The tracker of the controller's writes (util/endpointslice_tracker.go)
export { EndpointSliceTracker, deletionExpected } from './endpointslice-tracker.js';
export type { GenerationsBySlice } from './endpointslice-tracker.js';

// The trigger time (util/trigger_time_tracker.go)
export { TriggerTimeTracker } from './trigger-time-tracker.js';
export type { ServiceState } from './trigger-time-tracker.js';

// Hints (trafficdist/trafficdist.go)
export {
  reconcileHints,
  removeHintsFromSlices,
  trafficDistributionPreferClose,
  trafficDistributionPreferSameNode,
  trafficDistributionPreferSameZone,
} from './trafficdist.js';

// The Endpoints controller (pkg/controller/endpoint/endpoints_controller.go)
export {
  EndpointsController,
  capacityAnnotationSetCorrectly,
  concurrentEndpointSyncs,
  defaultEndpointsUpdatesBatchPeriod,
  endpointPortFromServicePort,
  endpointSubsetsEqualIgnoreResourceVersion,
  endpointsControllerComponent,
  endpointsControllerName,
  endpointsMaxRetries,
  endpointsOverCapacity,
  failedToCreateEndpointReason,
  failedToUpdateEndpointReason,
  leaderElectionRecordAnnotationKey,
  maxCapacity,
  podToEndpointAddressForService,
  truncateEndpoints,
  truncated,
} from './endpoint/endpoints-controller.js';
export type { EndpointsControllerOptions } from './endpoint/endpoints-controller.js';
// Its tracker of replaced versions (endpoints_tracker.go)
export { StaleEndpointsTracker } from './endpoint/endpoints-tracker.js';
// The canonical subsets (pkg/api/v1/endpoints/util.go)
export { lessEndpointAddress, repackSubsets, sortSubsets } from './endpoint/repack-subsets.js';

// The EndpointSlice mirroring controller
// (pkg/controller/endpointslicemirroring/endpointslicemirroring_controller.go)
export {
  EndpointSliceMirroringController,
  defaultMirroringEndpointUpdatesBatchPeriod,
  defaultMirroringMaxEndpointsPerSubset,
  endpointSliceMirroringControllerComponent,
  endpointSliceMirroringControllerName,
  mirroringConcurrentServiceEndpointSyncs,
  mirroringDefaultSyncBackOff,
  mirroringMaxRetries,
  mirroringMaxSyncBackOff,
} from './endpointslicemirroring/endpointslicemirroring-controller.js';
export type { EndpointSliceMirroringControllerOptions } from './endpointslicemirroring/endpointslicemirroring-controller.js';
// Its reconciler (reconciler.go, events.go)
export {
  MirroringReconciler,
  invalidIPAddressReason,
  tooManyAddressesToMirrorReason,
} from './endpointslicemirroring/reconciler.js';
export type { MirroringReconcilerOptions } from './endpointslicemirroring/reconciler.js';
// Its helpers (utils.go)
export {
  addressToEndpoint,
  endpointsControllerKey,
  epPortsToEpsPorts,
  hasLeaderElection,
  labelSkipMirror,
  lastAppliedConfigAnnotation,
  managedByMirroringController,
  mirroringControllerQualifiedName,
  mirroringManagedByChanged,
  newMirroredEndpointSlice,
  skipMirror,
} from './endpointslicemirroring/utils.js';
// Its metrics (metrics/metrics.go, metrics/cache.go)
export {
  EndpointSliceMirroringMetrics,
  endpointSliceMirroringMetricDescriptors,
  endpointSliceMirroringSubsystem,
} from './endpointslicemirroring/metrics.js';
export type { EndpointSliceMirroringMetricName } from './endpointslicemirroring/metrics.js';

// Metrics (metrics/metrics.go, metrics/cache.go)
export {
  EndpointSliceMetrics,
  endpointSliceMetricDescriptors,
  endpointSliceSubsystem,
  noopEndpointSliceMetricsProvider,
} from './metrics.js';
export type {
  CounterVecMetric,
  EfficiencyInfo,
  EfficiencyTotals,
  EndpointSliceMetricDescriptor,
  EndpointSliceMetricName,
  EndpointSliceMetricsProvider,
  GaugeVecMetric,
  HistogramVecMetric,
  LabeledCounter,
  LabeledGauge,
  LabeledHistogram,
} from './metrics.js';
