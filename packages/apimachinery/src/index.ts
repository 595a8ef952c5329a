/**
 * The shared vocabulary of kcm-ts: the counterpart of `k8s.io/apimachinery`,
 * the key helpers of client-go's `tools/cache`, and `k8s.io/utils/clock`.
 * Objects are plain wire-format JSON typed with `kubernetes-types`; this
 * package reads their metadata, builds cache keys, parses and matches label
 * and field selectors, validates names, models API errors as
 * {@link StatusError}, applies strategic merge patches
 * ({@link strategicMergePatch}), and declares the client interfaces
 * ({@link ListerWatcher}, {@link ResourceClient}) that the core packages
 * program against. It also holds the injected {@link Clock}.
 *
 * @packageDocumentation
 */

// Time
export { FakeClock, RealClock, realClock } from './clock.js';
export { parseDuration } from './duration.js';
export { formatMicroTime, formatTime, parseMicroTime } from './time.js';
export type { Clock, PassiveClock, Ticker, Timer } from './clock.js';

// Cron schedules (robfig/cron v3) and kube-apiserver's checks of them
export { parseStandard } from './cron-parser.js';
export type { CronSchedule } from './cron-schedule.js';
export { isValidTimeZone, loadLocation } from './cron-time-zone.js';
export {
  scheduleUsesTimeZone,
  validateCronJobSchedule,
  validateCronJobTimeZone,
} from './cron-validation.js';
export type { CronJobScheduleValidationOptions } from './cron-validation.js';

// Objects, their metadata and owners
export {
  getControllerOf,
  isControlledBy,
  labelsOf,
  nameOf,
  namespaceOf,
  newControllerRef,
  resourceVersionOf,
  uidOf,
} from './object-meta.js';
export type { KubeObject } from './object-meta.js';
export {
  groupKindString,
  groupResourceString,
  groupVersionString,
  parseGroupVersion,
} from './schema.js';
export type {
  GroupKind,
  GroupResource,
  GroupVersion,
  GroupVersionKind,
  GroupVersionResource,
} from './schema.js';
export { builtinResources } from './resources.js';
export type { BuiltinResourceName, ResourceInfo } from './resources.js';

// Semantic equality (pkg/api/equality)
export { semanticDeepEqual } from './equality.js';

// Cache keys
export {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from './keys.js';
export type { KeyFunc, ObjectName } from './keys.js';

// Validation
export {
  dns1123LabelMaxLength,
  dns1123SubdomainMaxLength,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  labelValueMaxLength,
} from './validation.js';

// Label and field selectors
export {
  everything,
  labelSelectorAsSelector,
  lexSelector,
  newRequirement,
  nothing,
  parseSelector,
  selectorRequirements,
  selectorFromSet,
} from './labels.js';
export type {
  Labels,
  Requirement,
  SelectionOperator,
  Selector,
  SelectorToken,
  SelectorTokenKind,
} from './labels.js';
export {
  escapeFieldValue,
  fieldSelectorFromSet,
  oneTermEqualSelector,
  parseFieldSelector,
  fieldSelectorRequirements,
  unescapeFieldValue,
} from './fields.js';
export type { FieldRequirement, FieldSelector, Fields } from './fields.js';

// Field errors, the causes of 422 Invalid
export {
  GoLiteral,
  fieldDuplicate,
  fieldErrorBody,
  fieldErrorsToCauses,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  omitValue,
} from './field-errors.js';
export type { FieldError, FieldErrorType } from './field-errors.js';

// Status errors
export {
  StatusError,
  hasStatusCause,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  findStatusError,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isStatus,
  isStatusError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  newAlreadyExists,
  newApplyConflict,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenericServerResponse,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  newUnauthorized,
  optimisticLockErrorMsg,
  reasonForError,
  suggestsClientDelay,
} from './status.js';
export type { CauseType, GenericServerResponse, StatusErrorInit, StatusReason } from './status.js';

// Watch events
export { initialEventsEndAnnotation, isWatchEventType, watchEventTypes } from './watch.js';
export type { ErrorWatchEvent, ObjectWatchEvent, WatchEvent, WatchEventType } from './watch.js';

// The client interfaces
export type {
  ApplyPatch,
  CreateOptions,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  JsonPatch,
  JsonPatchOperation,
  ListOptions,
  ListerWatcher,
  MergePatch,
  ObjectList,
  Patch,
  PatchOptions,
  Preconditions,
  PropagationPolicy,
  ResourceClient,
  ResourceVersionMatch,
  StrategicMergePatch,
  UpdateOptions,
} from './client.js';

// Queues
export { FifoBuffer } from './fifo-buffer.js';

// Logging
export { noopLogger } from './logger.js';
export type { LogValues, Logger } from './logger.js';

// Events
export { FakeRecorder, noopEventRecorder } from './record/event-recorder.js';
export type {
  EventRecorder,
  EventRecorderLogger,
  EventSubject,
  EventType,
} from './record/event-recorder.js';
export {
  defaultSleepDuration,
  maxQueuedEvents,
  maxTriesPerEvent,
  newBroadcaster,
} from './record/event-broadcaster.js';
export type {
  EventBroadcaster,
  EventBroadcasterOptions,
  EventWatcher,
} from './record/event-broadcaster.js';
export { EventSinkImpl } from './record/event-sink.js';
export type { EventSink } from './record/event-sink.js';
export {
  EventAggregator,
  EventCorrelator,
  EventSourceObjectSpamFilter,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
} from './record/events-cache.js';
export type {
  CorrelatorOptions,
  EventAggregatorKeyFunc,
  EventAggregatorMessageFunc,
  EventCorrelateResult,
  EventFilterFunc,
  EventSpamKeyFunc,
} from './record/events-cache.js';
export { getReference } from './record/reference.js';
export { EventNamer } from './record/util.js';

// Strategic merge patch
export { StrategicMergePatchError, strategicMergePatch } from './strategic-merge-patch.js';
export { patchMetaForKind } from './patch-meta.js';
export type { FieldPatchMeta, PatchMeta, PatchStrategy } from './patch-meta.js';

// Discovery
export {
  GroupDiscoveryFailedError,
  groupDiscoveryFailedErrorGroups,
  isGroupDiscoveryFailedError,
} from './discovery.js';
export type { ResourceDiscovery } from './discovery.js';
