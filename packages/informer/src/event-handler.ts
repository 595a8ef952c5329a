// What an informer calls when its cache changes: client-go tools/cache
// controller.go (ResourceEventHandler, ResourceEventHandlerFuncs,
// FilteringResourceEventHandler).
import type { DeletedFinalStateUnknown } from '@kcm-ts/apimachinery';

/**
 * Callbacks for changes to an informer's cache: Go's `ResourceEventHandler`
 * and `ResourceEventHandlerDetailedFuncs` in one. Every method is optional;
 * a missing one is skipped.
 *
 * Objects are the cache's own: handlers must not change them. `onUpdate` is
 * also called on a resync and after a relist, with `oldObj` and `newObj` at
 * the same resourceVersion. `onDelete` may receive a
 * {@link @kcm-ts/apimachinery!DeletedFinalStateUnknown | DeletedFinalStateUnknown}
 * when the informer missed the deletion and found out on a relist.
 *
 * A handler may return a promise: a shared informer then waits for it before
 * handing this handler its next notification (other handlers go on). Any
 * other return value is ignored.
 *
 * @category Shared informer
 */
export interface ResourceEventHandler<T> {
  /**
   * An object appeared in the cache. `isInInitialList` is true for the
   * objects of the first list, and for the cache's contents replayed to a
   * handler added after the informer started.
   */
  onAdd?(obj: T, isInInitialList: boolean): unknown;
  /** An object in the cache was replaced by a newer one, or resynced. */
  onUpdate?(oldObj: T, newObj: T): unknown;
  /** An object left the cache. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): unknown;
}

/**
 * A handler that passes on only the objects `filter` accepts: Go's
 * `FilteringResourceEventHandler`. An update whose new object passes but old
 * one did not becomes an add, and one whose old object passed but new one
 * does not becomes a delete, so the wrapped handler sees the filtered set
 * come and go consistently.
 *
 * @example
 * ```ts
 * informer.addEventHandler(
 *   filteringResourceEventHandler((pod) => pod.spec?.nodeName === 'node-1', {
 *     onAdd: (pod) => console.log('bound to node-1:', pod.metadata?.name),
 *   }),
 * );
 * ```
 *
 * @param filter - decides whether an object is of interest; for a deletion it
 *   sees the tombstone as it is
 * @param handler - receives the filtered notifications
 *
 * @category Shared informer
 */
export function filteringResourceEventHandler<T>(
  filter: (obj: T | DeletedFinalStateUnknown<T>) => boolean,
  handler: ResourceEventHandler<T>,
): ResourceEventHandler<T> {
  return {
    onAdd(obj, isInInitialList) {
      return filter(obj) ? handler.onAdd?.(obj, isInInitialList) : undefined;
    },
    onUpdate(oldObj, newObj) {
      const newer = filter(newObj);
      const older = filter(oldObj);
      if (newer && older) return handler.onUpdate?.(oldObj, newObj);
      if (newer) return handler.onAdd?.(newObj, false);
      if (older) return handler.onDelete?.(oldObj);
      return undefined;
    },
    onDelete(obj) {
      return filter(obj) ? handler.onDelete?.(obj) : undefined;
    },
  };
}
