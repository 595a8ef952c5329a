// Structural sharing between a cached object and the version that replaces
// it. client-go has no counterpart: Go's decoder allocates a whole new
// object per event too, but Go's collector has no generations and never
// moves an object, while V8's copies every survivor. An informer that
// keeps every object of a resource pays, per update, for the new object to
// be promoted into the old generation and for the replaced one to be found
// dead there; most of an update (a pod's spec, most of its status) is equal
// to what it replaces.

import type { Deltas } from './queue.js';
import type { Store } from './store.js';

// Deeper than any Kubernetes object; a cycle made by a transform ends here.
const maxDepth = 64;

/**
 * Makes `next` share every part that equals the same part of `prev`: each
 * property or element of `next` whose value is JSON-equal to `prev`'s is
 * replaced by `prev`'s, so the copy decoded for `next` can be collected at
 * once and only what changed stays behind. `prev` is never changed.
 *
 * JSON-equal: the same primitives, arrays of equal elements in the same
 * order, and plain objects (made by `JSON.parse` or an object literal) with
 * the same keys and equal values, in any key order. Anything else (a
 * `Date`, a `Map`, a class instance, an object without a prototype) counts
 * as changed and is left as it is. A frozen part of `next` is left as it
 * is, too.
 *
 * The informer applies this to every object it caches over an older version
 * when made with `shareUnchanged` (see {@link SharedIndexInformerOptions}).
 *
 * @returns whether `next` is JSON-equal to `prev` as a whole
 *
 * @example
 * {@includeCode ../test/share-unchanged.test.ts#share-unchanged}
 *
 * @category Store
 */
export function shareUnchanged(next: unknown, prev: unknown): boolean {
  if (next === prev) return true;
  if (!isComposite(next) || !isComposite(prev)) return false;
  // Objects served frozen (as the sandbox's in-process watches serve them)
  // cannot take anything: compare only.
  if (Object.isFrozen(next)) return jsonEqual(next, prev, 0);
  try {
    return shareInto(next, prev, 0);
  } catch {
    // A frozen or otherwise unwritable part: what was shared before it is
    // equal, so next is still correct.
    return false;
  }
}

type Composite = Record<string, unknown> | unknown[];

function isComposite(v: unknown): v is Composite {
  return typeof v === 'object' && v !== null;
}

// Plain JSON objects only. Reading `constructor` is cheaper than asking for
// the prototype; an object whose own `constructor` member hides Object's
// merely counts as changed.
function isPlain(v: object): boolean {
  return (v as { constructor?: unknown }).constructor === Object;
}

// `o[k]`, but only if `o` has it itself: JSON may hold a `__proto__` key
// (JSON.parse makes it an own property), and reading one that `o` lacks
// gives Object.prototype, which would compare equal to `{}`.
function own(o: Record<string, unknown>, k: string): unknown {
  return k === '__proto__' && !Object.hasOwn(o, k) ? undefined : o[k];
}

// Equality is checked before anything is shared: a part that turns out
// equal as a whole is replaced once, by its parent, and the parts inside it
// are never written.
function shareInto(next: Composite, prev: Composite, depth: number): boolean {
  if (depth > maxDepth) return false;
  if (jsonEqual(next, prev, depth)) return true;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return false;
    const n = Math.min(next.length, prev.length);
    for (let i = 0; i < n; i++) {
      const nv: unknown = next[i];
      const pv: unknown = prev[i];
      if (nv !== pv && isComposite(nv) && isComposite(pv) && shareInto(nv, pv, depth + 1)) {
        next[i] = pv;
      }
    }
    return false;
  }
  if (Array.isArray(prev) || !isPlain(next) || !isPlain(prev)) return false;
  for (const k in next) {
    const nv = next[k];
    const pv = own(prev, k);
    if (nv !== pv && isComposite(nv) && isComposite(pv) && shareInto(nv, pv, depth + 1)) {
      next[k] = pv;
    }
  }
  return false;
}

function jsonEqual(a: Composite, b: Composite, depth: number): boolean {
  if (depth > maxDepth) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (x !== y && !(isComposite(x) && isComposite(y) && jsonEqual(x, y, depth + 1))) {
        return false;
      }
    }
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  // for-in rather than Object.keys: no array per object, and a plain object
  // has no enumerable inherited keys.
  let keys = 0;
  for (const k in a) {
    keys++;
    const x = a[k];
    const y = own(b, k);
    if (x === y) {
      if (x === undefined && !Object.hasOwn(b, k)) return false;
    } else if (!(isComposite(x) && isComposite(y) && jsonEqual(x, y, depth + 1))) {
      return false;
    }
  }
  for (const _ in b) keys--;
  return keys === 0;
}

/**
 * Applies {@link shareUnchanged} to each object of `deltas` that will
 * replace one in `store` (an add, update or replace, one by one or in a
 * whole relist), before the store takes it. `keys` are the changes' keys in
 * the store when the caller knows them: one for all, or one per change. An
 * object whose key cannot be computed is left to fail where the store
 * computes it.
 */
export function shareWithCached<T>(
  store: Store<T>,
  deltas: Deltas<T>,
  keys?: string | readonly string[],
): void {
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i] as Deltas<T>[number];
    switch (d.type) {
      case 'Added':
      case 'Updated':
      case 'Replaced': {
        const key = typeof keys === 'string' ? keys : keys?.[i];
        shareWithOld(store, d.object as T, key);
        break;
      }
      case 'ReplacedAll':
        for (const obj of d.object.objects) shareWithOld(store, obj, undefined);
        break;
      default:
      // A deletion replaces nothing; a sync carries the cached object itself.
    }
  }
}

function shareWithOld<T>(store: Store<T>, obj: T, key: string | undefined): void {
  let old: T | undefined;
  try {
    old = key === undefined ? store.get(obj) : store.getByKey(key);
  } catch {
    return;
  }
  // A frozen object (the sandbox's in-process watches serve them) can take
  // nothing, and the informer has no use for the comparison alone.
  if (old !== undefined && !Object.isFrozen(obj)) shareUnchanged(obj, old);
}
