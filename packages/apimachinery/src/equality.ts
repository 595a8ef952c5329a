// Whether two API objects say the same thing: apimachinery's
// pkg/api/equality (Semantic.DeepEqual) on objects as they travel, as JSON.
// Key order never counts (kube-apiserver sorts map keys, a client may
// not), a member set to undefined is absent, and an empty list or map is
// the same as none, as Go's forked reflect treats nil and empty alike.
// Quantities are compared as written ("1" and "1000m" differ here).

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object') return false;
  return Object.values(v).every((m) => m === undefined);
}

/**
 * True when `a` and `b` are the same object for the API: equal JSON values
 * whatever their key order, with absent, `undefined`, `null`, `[]` and `{}`
 * members all alike. Go's `equality.Semantic.DeepEqual` as
 * controller-runtime's `CreateOrUpdate` uses it to decide whether to write.
 *
 * @example
 * ```ts
 * semanticDeepEqual({ data: { a: '1', b: '2' } }, { data: { b: '2', a: '1' } }); // true
 * semanticDeepEqual({ metadata: { labels: {} } }, { metadata: {} }); // true
 * ```
 *
 * @category Equality
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmptyish(a) && isEmptyish(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => semanticDeepEqual(v, other[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    if (!semanticDeepEqual(ao[k], bo[k])) return false;
  }
  return true;
}
