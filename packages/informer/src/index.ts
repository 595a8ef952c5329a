/**
 * client-go's `tools/cache` in TypeScript: the local caches that informers
 * fill. It holds the keyed {@link Store}, the {@link Indexer} with its index
 * functions, the {@link DeltaFIFO} queue that a reflector feeds and an
 * informer drains, and the {@link Reflector} that lists and watches a resource
 * (through a {@link ListWatch} and the {@link ListPager}) into a store. On
 * these stands the {@link SharedIndexInformer}: one watch and one cache per
 * resource, with any number of event handlers, each fed through its own
 * buffer; the {@link SharedInformerFactory} hands out one per resource, and
 * {@link Lister}s read their caches. Key functions and the
 * `DeletedFinalStateUnknown` tombstone come from `@kcm-ts/apimachinery`.
 *
 * @packageDocumentation
 */
export { KeyError, errorIs } from './keys.js';
export { metaNamespaceIndexFunc, namespaceIndex } from './index-funcs.js';
export type { Index, IndexFunc, Indexers } from './index-funcs.js';
export { newThreadSafeStore } from './thread-safe-store.js';
export type { ThreadSafeStore } from './thread-safe-store.js';
export { newIndexer, newStore } from './store.js';
export type { Indexer, Store, StoreOptions, TransformFunc } from './store.js';
export type {
  BookmarkInfo,
  Delta,
  DeltaType,
  Deltas,
  PopProcessFunc,
  PopResult,
  ProcessBatchFunc,
  Queue,
  QueueWithBatch,
  ReplacedAllInfo,
  SyncAllInfo,
} from './queue.js';
export { errZeroLengthDeltasObject, newDeltaFIFO } from './delta-fifo.js';
export { newRealFIFO } from './real-fifo.js';
export type { RealFIFO, RealFIFOOptions } from './real-fifo.js';
export { defaultInformerFeatureGates } from './feature-gates.js';
export type { InformerFeatureGates } from './feature-gates.js';
export type { DeltaFIFO, DeltaFIFOOptions, KeyListerGetter } from './delta-fifo.js';
export { DoneSignal } from './done-checker.js';
export type { DoneChecker } from './done-checker.js';
export { ListWatch } from './list-watch.js';
export type { ListFunc, ListOptionsModifier, WatchFunc } from './list-watch.js';
export { ListPager, defaultPageSize } from './pager.js';
export type { ListPagerOptions, PagedList } from './pager.js';
export {
  Reflector,
  VeryShortWatchError,
  defaultReflectorBackoff,
  isTooLargeResourceVersion,
} from './reflector.js';
export type {
  ReflectorBackoff,
  ReflectorOptions,
  ReflectorStore,
  WatchErrorHandler,
} from './reflector.js';
export { RetryWithDeadline } from './retry-with-deadline.js';
export { shareUnchanged } from './share-unchanged.js';
export { trimManagedFields } from './trim-managed-fields.js';
export { Controller, newInformer, processDeltas, processDeltasInBatch } from './controller.js';
export type { ControllerConfig, Informer, InformerOptions } from './controller.js';
export { filteringResourceEventHandler } from './event-handler.js';
export type { ResourceEventHandler } from './event-handler.js';
export { SingleFileTracker } from './synctrack.js';
export type { ResourceEventHandlerRegistration } from './shared-processor.js';
export { SharedIndexInformer, minimumResyncPeriod } from './shared-index-informer.js';
export type { HandlerOptions, SharedIndexInformerOptions } from './shared-index-informer.js';
export { Lister, listAll, listAllByNamespace } from './listers.js';
export type { NamespaceLister } from './listers.js';
export { waitForCacheSync, waitForNamedCacheSync } from './wait-for-cache-sync.js';
export type {
  InformerSynced,
  SyncLogger,
  WaitForCacheSyncOptions,
  WaitForNamedCacheSyncOptions,
} from './wait-for-cache-sync.js';
export { InformerOptionsConflictError } from './by-resource.js';
export type { ByResourceOptions } from './by-resource.js';
export {
  CacheSyncError,
  SharedInformerFactory,
  informerResources,
} from './shared-informer-factory.js';
export type {
  BuiltinInformerResource,
  FactoryWaitOptions,
  InformerResource,
  ResourceClientSource,
  ResourceInformer,
  SharedInformerFactoryOptions,
} from './shared-informer-factory.js';
