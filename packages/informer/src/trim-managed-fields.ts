// The transform kube-controller-manager sets on its shared informer factory:
// cmd/kube-controller-manager/app/controllermanager.go (CreateControllerContext,
// informers.WithTransform(trim.TrimManagedFields)).
import type { ListerWatcher } from '@kcm-ts/apimachinery';
import { ListWatch } from './list-watch.js';
import type { TransformFunc } from './store.js';

/**
 * Drops `metadata.managedFields` from an object before it is cached: the
 * transform kube-controller-manager gives its informer factory, since no
 * controller reads the field and it is often the largest part of an object.
 * Pass it as an informer's or a factory's `transform`.
 *
 * The field is set to `undefined` rather than deleted: deleting a property
 * turns the object into a slow dictionary-mode object, while assigning keeps
 * its shape, so lookups stay fast and the rest of the cache keeps sharing
 * one hidden class. `JSON.stringify` leaves an `undefined` property out, so
 * the object still serialises as if the field were absent. The object is
 * changed in place and returned; one without metadata is returned as it is.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#trim-managed-fields}
 *
 * As a factory's transform:
 * ```ts
 * const factory = new SharedInformerFactory(client, 0, { transform: trimManagedFields });
 * ```
 *
 * @category Store
 */
//#region trim-managed-fields
export function trimManagedFields<T>(obj: T): T {
  const meta = (obj as { metadata?: { managedFields?: unknown } | null } | null)?.metadata;
  if (meta?.managedFields !== undefined) meta.managedFields = undefined;
  return obj;
}
//#endregion trim-managed-fields

/**
 * `lw` with the decode hint `dropManagedFields` added to every list and
 * watch when `transform` is {@link trimManagedFields}: the `DecodeHints` of
 * `@kcm-ts/client`, whose resource clients then leave the field out while
 * decoding, so it is never built. A `ListerWatcher` that knows nothing of
 * the hint ignores it, and the transform still drops the field, so the
 * cache holds the same either way.
 */
export function withTrimDecodeHint<T>(
  lw: ListerWatcher<T>,
  transform: TransformFunc<T> | undefined,
): ListerWatcher<T> {
  if (transform !== (trimManagedFields as TransformFunc<T>)) return lw;
  return ListWatch.filtered(lw, (opts) => {
    (opts as { dropManagedFields?: boolean }).dropManagedFields = true;
  });
}
