/**
 * client-go's `tools/cache` in TypeScript: the local caches that informers
 * fill. This first slice holds the keyed {@link Store}, the {@link Indexer}
 * with its index functions, and the {@link DeltaFIFO} queue that a reflector
 * feeds and an informer drains. Key functions and the
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
export { errZeroLengthDeltasObject, newDeltaFIFO } from './delta-fifo.js';
export type {
  Delta,
  DeltaFIFO,
  DeltaFIFOOptions,
  DeltaType,
  Deltas,
  KeyListerGetter,
  PopProcessFunc,
  PopResult,
} from './delta-fifo.js';
