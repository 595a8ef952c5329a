// Read-only views of an informer's cache: client-go tools/cache listers.go
// (ListAll, ListAllByNamespace, GenericLister) and the generated listers'
// ResourceIndexer (listers/generic_helpers.go).
import {
  everything,
  labelsOf,
  namespaceOf,
  newNotFound,
  type GroupResource,
  type KubeObject,
  type Selector,
} from '@kcm-ts/apimachinery';
import { namespaceIndex } from './index-funcs.js';
import type { Indexer, Store } from './store.js';

/**
 * The objects of `store` whose labels match `selector`: Go's `ListAll`. A
 * selector that matches nothing returns at once; the empty selector returns
 * everything without looking at labels.
 *
 * @category Listers
 */
export function listAll<T extends KubeObject>(store: Store<T>, selector: Selector): T[] {
  if (selector.matchesNothing()) return [];
  const all = store.list();
  if (selector.empty()) return all;
  return all.filter((obj) => selector.matches(labelsOf(obj)));
}

/**
 * The objects of `namespace` whose labels match `selector`, read through the
 * `namespace` index when the indexer has it: Go's `ListAllByNamespace`. `''`
 * means every namespace. Without the index it scans everything.
 *
 * @category Listers
 */
export function listAllByNamespace<T extends KubeObject>(
  indexer: Indexer<T>,
  namespace: string,
  selector: Selector,
): T[] {
  if (namespace === '') return listAll(indexer, selector);
  if (selector.matchesNothing()) return [];
  const inNamespace =
    namespaceIndex in indexer.getIndexers()
      ? indexer.byIndex(namespaceIndex, namespace)
      : indexer.list().filter((obj) => namespaceOf(obj) === namespace);
  if (selector.empty()) return inNamespace;
  return inNamespace.filter((obj) => selector.matches(labelsOf(obj)));
}

/**
 * The objects of one namespace in a {@link Lister}: what Go's generated
 * `PodNamespaceLister` and friends offer.
 *
 * @category Listers
 */
export interface NamespaceLister<T> {
  /** The objects in the namespace whose labels match `selector` (default: all). */
  list(selector?: Selector): T[];
  /**
   * The object called `name` in the namespace.
   *
   * @throws StatusError 404 NotFound, as the API server would answer, if the cache lacks it
   */
  get(name: string): T;
  /** The object called `name` in the namespace, or `undefined` if the cache lacks it. */
  tryGet(name: string): T | undefined;
}

/**
 * Reads one resource from an informer's cache: Go's generated listers
 * (`PodLister`, `DeploymentLister`, ...) and `GenericLister` in one. Objects
 * are the cache's own: treat them as read-only and copy before changing.
 *
 * @example
 * ```ts
 * const pods = new Lister<Pod>(informer.getIndexer(), { group: '', resource: 'pod' });
 * const web = pods.byNamespace('default').list(parseSelector('app=web'));
 * ```
 *
 * @category Listers
 */
export class Lister<T extends KubeObject> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;

  /**
   * @param indexer - the cache, usually {@link SharedIndexInformer.getIndexer}
   * @param resource - names the resource in NotFound errors; client-go's
   *   listers use the singular, such as `{ group: '', resource: 'pod' }`
   *   (so the message reads `pod "web-1" not found`)
   */
  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#indexer = indexer;
    this.#resource = resource;
  }

  /** The objects in every namespace whose labels match `selector` (default: all). */
  list(selector: Selector = everything()): T[] {
    return listAll(this.#indexer, selector);
  }

  /**
   * The cluster-scoped object called `name` (for a namespaced resource use
   * {@link Lister.byNamespace}).
   *
   * @throws StatusError 404 NotFound if the cache lacks it
   */
  get(name: string): T {
    return this.#getByKey(name, name);
  }

  /**
   * The cluster-scoped object called `name`, or `undefined` if the cache
   * lacks it: {@link Lister.get} without the NotFound error, for code that
   * only asks whether it is there.
   */
  tryGet(name: string): T | undefined {
    return this.#indexer.getByKey(name);
  }

  /** A view of one namespace. */
  byNamespace(namespace: string): NamespaceLister<T> {
    return {
      list: (selector = everything()) => listAllByNamespace(this.#indexer, namespace, selector),
      get: (name) => this.#getByKey(`${namespace}/${name}`, name),
      tryGet: (name) => this.#indexer.getByKey(`${namespace}/${name}`),
    };
  }

  #getByKey(key: string, name: string): T {
    const obj = this.#indexer.getByKey(key);
    if (obj === undefined) throw newNotFound(this.#resource, name);
    return obj;
  }
}
