// Cache keys: k8s.io/client-go/tools/cache (store.go for the key functions,
// controller.go for the deletion-handling one, delta_fifo.go for the tombstone).
// A key is `namespace/name`, or `name` for a cluster-scoped object.
import { goQuote } from './strconv.js';

/**
 * Computes the key under which a cache stores an object. Go's `cache.KeyFunc`;
 * it throws where Go returns an error.
 *
 * @category Keys
 */
export type KeyFunc = (obj: unknown) => string;

/**
 * The parts of a key: Go's `cache.ObjectName`.
 *
 * @category Keys
 */
export interface ObjectName {
  /** The namespace, or `''` for a cluster-scoped object. */
  readonly namespace: string;
  /** The object's name. */
  readonly name: string;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const kind = (value as { kind?: unknown }).kind;
  return typeof kind === 'string' && kind !== '' ? `a ${kind}` : 'an object';
}

/**
 * The default key function: `namespace/name`, or just `name` when the object
 * has no namespace. A string is taken to be a key already and returned as is
 * (Go's `ExplicitKey`).
 *
 * Throws an Error saying what is wrong when `obj` is neither a string nor an
 * object with `metadata.name`. (Go returns `""` for an object without a name;
 * no object read from a server lacks one, so we treat it as a bug.)
 *
 * @category Keys
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  // store.go, MetaNamespaceKeyFunc
  if (typeof obj === 'string') return obj;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new Error(`object has no meta: expected an object with metadata, got ${describe(obj)}`);
  }
  const metadata: unknown = (obj as { metadata?: unknown }).metadata;
  if (metadata === null || typeof metadata !== 'object') {
    throw new Error(`object has no meta: ${describe(obj)} without metadata`);
  }
  const { name, namespace } = metadata as { name?: unknown; namespace?: unknown };
  if (typeof name !== 'string' || name === '') {
    throw new Error(`object has no name: ${describe(obj)} whose metadata.name is missing or empty`);
  }
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    throw new Error(
      `object has a bad namespace: metadata.namespace of ${goQuote(name)} is not a string`,
    );
  }
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * Splits a key made by {@link metaNamespaceKeyFunc} back into namespace and
 * name. Like Go, it accepts empty parts (`''` gives an empty name, `'/x'` an
 * empty namespace, `'a/'` an empty name) and throws only when the key has more
 * than one slash.
 *
 * @category Keys
 */
export function splitMetaNamespaceKey(key: string): ObjectName {
  // store.go, SplitMetaNamespaceKey
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: key };
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  throw new Error(`unexpected key format: ${goQuote(key)}`);
}

// Registered in the global symbol registry, so that a tombstone made by one copy
// of this package is recognised by another (instanceof would fail across copies).
const tombstoneBrand = Symbol.for('@kcm-ts/apimachinery/DeletedFinalStateUnknown');

/**
 * A tombstone: an object the cache knew about whose deletion was noticed only
 * when a relist no longer returned it, so the final state is unknown. `obj` is
 * the last state the cache saw, which may be stale (or missing). Delete
 * handlers receive either an object or one of these. Go's
 * `cache.DeletedFinalStateUnknown`.
 *
 * Test for it with {@link isDeletedFinalStateUnknown}, which works across
 * copies of this package, rather than `instanceof`.
 *
 * @category Keys
 */
export class DeletedFinalStateUnknown<T = unknown> {
  static {
    Object.defineProperty(this.prototype, tombstoneBrand, { value: true });
  }

  /** The key the object was stored under. */
  readonly key: string;
  /** The last known state of the object, possibly stale; `undefined` if unknown. */
  readonly obj: T | undefined;

  /**
   * @param key - the key the object was stored under.
   * @param obj - its last known state, if any.
   */
  constructor(key: string, obj?: T) {
    this.key = key;
    this.obj = obj;
  }
}

/**
 * True when `value` is a {@link DeletedFinalStateUnknown}, made by any copy of
 * this package.
 *
 * @category Keys
 */
export function isDeletedFinalStateUnknown(value: unknown): value is DeletedFinalStateUnknown {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[tombstoneBrand] === true
  );
}

/**
 * The key function for delete handlers: the tombstone's key for a
 * {@link DeletedFinalStateUnknown}, otherwise {@link metaNamespaceKeyFunc}.
 *
 * @category Keys
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  // controller.go, DeletionHandlingMetaNamespaceKeyFunc
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  return metaNamespaceKeyFunc(obj);
}
