// Semantic equality of wire-format objects: what apimachinery's
// pkg/api/equality (Semantic.DeepEqual, built on the forked reflect.DeepEqual
// of third_party/forked/golang/reflect) decides, as far as plain JSON can tell.
// Internal: not re-exported from the index.

/**
 * True for the values Go would read as a nil or empty map or slice, or a
 * struct of such (ObjectMeta with empty labels is its zero value).
 */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.values(v).every(isEmpty);
}

/**
 * Deep equality where a missing field, `null`, `[]` and `{}` are all the
 * same (Go's forked DeepEqual treats nil and empty maps and slices alike, and
 * JSON cannot tell a nil pointer from an absent field). Scalars compare
 * strictly: `0` and a missing field differ, as a set and an unset pointer do.
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) || isEmpty(b)) return isEmpty(a) && isEmpty(b);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => semanticDeepEqual(x, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (!semanticDeepEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/** A deep copy of a JSON value (Go's generated `DeepCopy`). */
export function deepCopy<T>(v: T): T {
  return structuredClone(v);
}
