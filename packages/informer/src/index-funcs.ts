// Index functions and their types: client-go tools/cache index.go.
import { namespaceOf, type KubeObject } from '@kcm-ts/apimachinery';

//#region index-types
/**
 * Computes the values under which an object is indexed; an object may have
 * several (or none). Go's `cache.IndexFunc`; it throws where Go returns an
 * error.
 *
 * @category Indexing
 */
export type IndexFunc<T> = (obj: T) => string[];

/**
 * Index functions by index name: Go's `cache.Indexers`.
 *
 * @category Indexing
 */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/**
 * One index: indexed value to the set of storage keys of the objects that
 * have it. Go's `cache.Index`.
 *
 * @category Indexing
 */
export type Index = Map<string, Set<string>>;
//#endregion index-types

/**
 * The name of the built-in namespace index (Go's `cache.NamespaceIndex`).
 *
 * @category Indexing
 */
export const namespaceIndex = 'namespace';

/**
 * The index function behind {@link namespaceIndex}: an object's namespace,
 * `''` for a cluster-scoped object. Go's `cache.MetaNamespaceIndexFunc`;
 * it throws when `obj` is not an object with metadata.
 *
 * @category Indexing
 */
//#region namespace-index-func
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  // index.go, MetaNamespaceIndexFunc
  if (obj === null || typeof obj !== 'object' || typeof obj.metadata !== 'object') {
    throw new Error('object has no meta');
  }
  return [namespaceOf(obj)];
}
//#endregion namespace-index-func
