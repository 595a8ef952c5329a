// Strategic merge patch as kube-apiserver applies it to built-in kinds:
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go, StrategicMergeMapPatch
// (merging parallel lists, ignoring unmatched nulls). It is a JSON merge patch
// in which some lists merge item by item, plus the `$` directives kubectl
// sends. The server decodes the result into a Go struct, which drops unknown
// keys and turns nulls into omitted zero values; we emulate that by never
// copying a `$` key or a null field from the patch into the result.
import type { FieldPatchMeta, PatchMeta } from './patch-meta.js';

type Obj = Record<string, unknown>;
type Kind = 'object' | 'string' | 'number' | 'boolean';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ORDER = '$setElementOrder';
const DELETE_FROM = '$deleteFromPrimitiveList';

/**
 * Why {@link strategicMergePatch} refused a patch, with the HTTP status
 * kube-apiserver answers it with.
 *
 * `interpretStrategicMergePatchError` (apiserver
 * `pkg/endpoints/handlers/patch.go`) maps strategicpatch's errors about badly
 * formed directives (`$retainKeys`, `$setElementOrder/…`,
 * `$deleteFromPrimitiveList/…`) to 400 and a list of lists to 422. Everything else strategicpatch reports (a
 * missing merge key, an unknown `$patch` value, items of mixed types) slips
 * through that switch and reaches the client as a 500 with reason `Unknown`;
 * here those are 400, since the patch is at fault.
 *
 * @category Patches
 */
export class StrategicMergePatchError extends Error {
  /** Always `'StrategicMergePatchError'`. */
  override readonly name: string = 'StrategicMergePatchError';
  /** 400 for a malformed patch, 422 for a list of lists. */
  readonly code: 400 | 422;
  /** Where in the patch the problem is, such as `spec.template.spec.containers[1]`; `''` at the top. */
  readonly path: string;

  /**
   * @param code - the HTTP status to answer with.
   * @param path - where the problem is, in the form of {@link StrategicMergePatchError.path}.
   * @param problem - what is wrong there; the message is `path: problem`.
   */
  constructor(code: 400 | 422, path: string, problem: string) {
    super(path ? `${path}: ${problem}` : problem);
    this.code = code;
    this.path = path;
  }
}

/**
 * Applies a strategic merge patch to `original` as kube-apiserver does for a
 * built-in kind, and returns the result as a new object; neither input is
 * changed. `meta` says how the kind's fields merge (see
 * {@link patchMetaForKind}); `{}` makes it a JSON merge patch with the
 * directives below.
 *
 * - `null` deletes a field.
 * - Maps merge recursively, unless the field's strategy is `replace`.
 * - Lists with strategy `merge` merge: lists of objects by merge key (a patch
 *   item updates the item with the same key, or is added), lists of
 *   primitives as a union without duplicates. The result takes the patch's
 *   order for the items it names and the object's order for the rest, as
 *   patch.go's `normalizeElementOrder` does. Other lists are replaced whole.
 * - `$patch: replace` in a map replaces the map; `$patch: delete` empties it.
 * - In a merging list, `{"$patch": "delete", <key>: v}` removes the items
 *   with that key, and an item `{"$patch": "replace"}` makes the other items
 *   the whole list.
 * - `$retainKeys: [...]` drops the map's other fields before merging; the
 *   patch may set only the fields it lists.
 * - `$setElementOrder/<list>: [...]` orders the merged list.
 * - `$deleteFromPrimitiveList/<list>: [...]` removes values from a list.
 *
 * Two corners follow the Go code rather than intuition: `$patch: merge` is
 * refused, and a map carrying `$patch` where the object has no value yet is
 * dropped rather than applied.
 *
 * @throws {@link StrategicMergePatchError} for a malformed patch, such as a
 *   merging-list item without its merge key or an unknown `$patch` value.
 *
 * @example
 * ```ts
 * // kubectl set image deployment/web web=nginx:1.28
 * const patched = strategicMergePatch(
 *   deployment,
 *   { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
 *   patchMetaForKind('apps/v1', 'Deployment')!,
 * );
 * ```
 *
 * @category Patches
 */
export function strategicMergePatch(
  original: object,
  patch: object,
  meta: PatchMeta,
): Record<string, unknown> {
  if (!isObj(original)) throw bad('', 'the object to patch must be a JSON object');
  if (!isObj(patch)) throw bad('', 'the patch must be a JSON object');
  // Only the copy is changed; values taken from the patch are always copied.
  return mergeMap(structuredClone(original), patch, meta, '');
}

// patch.go mergeMap. `original` is ours to change; `patch` is only read.
function mergeMap(original: Obj, patch: Obj, meta: PatchMeta | undefined, path: string): Obj {
  if (Object.hasOwn(patch, PATCH)) return mapDirective(patch, path);
  retainKeys(original, patch, path);
  const ordered = applyElementOrders(original, patch, meta, path);

  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS || key.startsWith(SET_ORDER) || ordered.has(key)) continue;
    let field = key;
    const deleteList = key.startsWith(DELETE_FROM);
    if (deleteList) field = directiveField(key, DELETE_FROM, path);
    // Any other `$` key is unknown to the Go struct, so decoding drops it.
    else if (key.startsWith('$')) continue;

    if (value === null) {
      delete original[field];
      continue;
    }
    const current = original[field];
    if (!Object.hasOwn(original, field) || shape(current) !== shape(value)) {
      // Nothing to merge with: take the patch's value (a deletion list adds nothing).
      if (!deleteList) putNew(original, field, value);
      continue;
    }
    const fieldMeta = fieldMetaOf(meta, field);
    const where = join(path, field);
    if (isObj(value)) {
      put(
        original,
        field,
        strategyOf(fieldMeta) === 'replace'
          ? copyRaw(value)
          : mergeMap(current as Obj, value, fieldMeta?.meta, where),
      );
    } else if (Array.isArray(value)) {
      put(
        original,
        field,
        mergeList(current as unknown[], value, fieldMeta, deleteList, where).list,
      );
    } else {
      put(original, field, value);
    }
  }
  return original;
}

// patch.go handleDirectiveInMergeMap: `$patch` in a map.
function mapDirective(patch: Obj, path: string): Obj {
  const directive = patch[PATCH];
  if (directive === 'replace') {
    const { [PATCH]: _directive, ...rest } = patch;
    return copyRaw(rest) as Obj;
  }
  if (directive === 'delete') return {};
  throw bad(
    path,
    `unknown patch type ${show(directive)} in ${PATCH}: a map takes "replace" or "delete"`,
  );
}

// patch.go applyRetainKeysDirective.
function retainKeys(original: Obj, patch: Obj, path: string): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw bad(path, `${RETAIN_KEYS} must be a list of field names`);
  const keep = new Set(list);
  for (const [key, value] of Object.entries(patch)) {
    if (key === RETAIN_KEYS || value === null) continue;
    if (key.startsWith(DELETE_FROM) || key.startsWith(SET_ORDER)) continue;
    if (!keep.has(key)) {
      throw bad(path, `the patch sets ${show(key)}, which ${RETAIN_KEYS} does not list`);
    }
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

// patch.go mergePatchIntoOriginal: each `$setElementOrder/<list>` merges its
// list first and then orders it. Returns the lists it handled.
function applyElementOrders(
  original: Obj,
  patch: Obj,
  meta: PatchMeta | undefined,
  path: string,
): Set<string> {
  const done = new Set<string>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const field = directiveField(key, SET_ORDER, path);
    if (!Array.isArray(order)) throw bad(join(path, key), 'must be a list');
    const where = join(path, field);
    const inOriginal = Object.hasOwn(original, field);
    const inPatch = Object.hasOwn(patch, field);
    const originalList = original[field];
    const patchList = patch[field];
    if (inOriginal && !Array.isArray(originalList)) {
      throw bad(where, `${key} orders a list, but the object has no list here`);
    }
    if (inPatch && !Array.isArray(patchList)) {
      throw bad(where, `must be a list, as ${key} orders it`);
    }
    const server = (originalList ?? []) as unknown[];
    const patched = (patchList ?? []) as unknown[];
    const fieldMeta = fieldMetaOf(meta, field);
    const mergeKey = fieldMeta?.mergeKey ?? '';
    checkOrder(patched, order, mergeKey, where, join(path, key));

    let merged: unknown[];
    let view = server;
    if (inOriginal && inPatch) {
      ({ list: merged, view } = mergeList(server, patched, fieldMeta, false, where));
    } else if (inOriginal) {
      merged = server;
    } else if (inPatch) {
      merged = copyNew(patched) as unknown[];
    } else {
      continue;
    }
    done.add(field);

    const kind = kindOf([server, patched], where);
    // Go fails when neither list has an item to take the type from; there
    // is nothing to order either way.
    if (kind === undefined) {
      put(original, field, merged);
      continue;
    }
    if (kind === 'object') {
      requireMergeKey(mergeKey, where);
      requireKeys(order, mergeKey, join(path, key));
    }
    const [named, rest] = partition(merged, order, mergeKey, kind, where);
    put(original, field, normalizeOrder(named, rest, order, view, mergeKey, kind, where));
  }
  return done;
}

// patch.go validatePatchWithSetOrderList: the patch's items must come in the
// order `$setElementOrder` gives; items carrying `$patch` are not counted.
function checkOrder(
  items: unknown[],
  order: unknown[],
  mergeKey: string,
  where: string,
  orderPath: string,
): void {
  if (items.length === 0 || order.length === 0) return;
  // Deletions are set aside first; other `$patch` items are stepped over.
  const listed: Array<[unknown, number]> = [];
  items.forEach((item, i) => {
    if (mergeKey && !isObj(item)) throw bad(`${where}[${i}]`, 'a merging list holds objects');
    if (!(mergeKey && isObj(item) && item[PATCH] === 'delete')) listed.push([item, i]);
  });
  let i = 0;
  let o = 0;
  while (i < listed.length && o < order.length) {
    const [item, at] = listed[i]!;
    if (isObj(item) && Object.hasOwn(item, PATCH)) {
      i++;
      continue;
    }
    if (mergeKey) {
      requireKey(item, mergeKey, `${where}[${at}]`);
      requireKey(order[o], mergeKey, `${orderPath}[${o}]`);
    }
    if (same(keyOf(item, mergeKey), keyOf(order[o], mergeKey))) i++;
    o++;
  }
  if (i < listed.length) {
    const directive = orderPath.slice(orderPath.lastIndexOf(SET_ORDER));
    throw bad(where, `the patch's items are not in the order ${directive} gives`);
  }
}

// A merged list, and the object's list as `$setElementOrder` then sees it.
// Go deletes items by shifting the rest left within the object's own list,
// and new items are appended into the slots that frees, so the order Go
// ranks by afterwards is the merged list cut to the object's list's length
// (its own tests expect this).
interface Merged {
  list: unknown[];
  view: unknown[];
}

// patch.go mergeSliceHandler: lists merge only with strategy `merge` (or
// when the patch lists values to delete); otherwise the patch's list wins.
function mergeList(
  original: unknown[],
  patch: unknown[],
  fieldMeta: FieldPatchMeta | undefined,
  deleteList: boolean,
  path: string,
): Merged {
  const view = original;
  if (!deleteList && strategyOf(fieldMeta) !== 'merge') {
    return { list: copyRaw(patch) as unknown[], view };
  }
  if (original.length === 0 && patch.length === 0) return { list: original, view };
  const kind = kindOf([original, patch], path)!; // some list has an item
  const mergeKey = fieldMeta?.mergeKey ?? '';

  // patch.go mergeSlice
  if (kind !== 'object') {
    if (deleteList) return { list: original.filter((v) => !patch.some((d) => same(d, v))), view };
    const merged: unknown[] = [];
    for (const v of [...original, ...patch]) if (!merged.some((m) => same(m, v))) merged.push(v);
    const [named, rest] = partition(merged, patch, '', kind, path);
    return { list: normalizeOrder(named, rest, patch, original, '', kind, path), view };
  }

  requireMergeKey(mergeKey, path);
  // patch.go mergeSliceWithSpecialElements: deletions, then a replace marker.
  let server = original;
  let items: Array<[Obj, number]> = [];
  let replace = false;
  patch.forEach((v, i) => {
    const item = v as Obj;
    if (!Object.hasOwn(item, PATCH)) {
      items.push([item, i]);
      return;
    }
    const where = `${path}[${i}]`;
    const directive = item[PATCH];
    if (directive === 'delete') {
      requireKey(item, mergeKey, where);
      server = server.filter((o) => !matches(o, mergeKey, item[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw bad(where, `${PATCH}: "merge" is not supported in a list`);
    } else {
      throw bad(
        where,
        `unknown patch type ${show(directive)} in ${PATCH}: a list item takes "replace" or "delete"`,
      );
    }
  });
  const remaining = server;
  if (replace) {
    for (const [item, i] of items) requireKey(item, mergeKey, `${path}[${i}]`);
    server = items.map(([item]) => copyRaw(item));
    items = [];
  }

  // patch.go mergeSliceWithoutSpecialElements: merge by key, or append.
  const merged = [...server];
  for (const [item, i] of items) {
    const where = `${path}[${i}]`;
    requireKey(item, mergeKey, where);
    const at = merged.findIndex((o) => matches(o, mergeKey, item[mergeKey]));
    if (at >= 0) merged[at] = mergeMap(merged[at] as Obj, item, fieldMeta?.meta, where);
    else merged.push(copyRaw(item));
  }
  const order = items.map(([item]) => item);
  const [named, rest] = partition(merged, order, mergeKey, kind, path);
  return {
    list: normalizeOrder(named, rest, order, server, mergeKey, kind, path),
    view: replace ? remaining : merged.slice(0, original.length),
  };
}

// Splits a merged list into the items `order` names and the others, keeping
// their relative order (patch.go partitionMapsByPresentInList and
// partitionPrimitivesByPresentInList).
function partition(
  merged: unknown[],
  order: unknown[],
  mergeKey: string,
  kind: Kind,
  path: string,
): [unknown[], unknown[]] {
  const named: unknown[] = [];
  const rest: unknown[] = [];
  const by = kind === 'object' ? mergeKey : '';
  merged.forEach((item, i) => {
    if (kind === 'object') requireKey(item, mergeKey, `${path}[${i}]`, 'the merged list');
    const key = keyOf(item, by);
    if (order.some((o) => same(keyOf(o, by), key))) named.push(item);
    else rest.push(item);
  });
  return [named, rest];
}

// patch.go normalizeElementOrder: the items the patch names, in the patch's
// order, interleaved with the object's other items, in the object's order.
// An object item stays ahead of a patch item only if it was ahead of it in
// the object (mergeSortedSlice), so new items come before the remaining
// object items.
function normalizeOrder(
  named: unknown[],
  rest: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: Kind,
  path: string,
): unknown[] {
  const key = kind === 'object' ? mergeKey : '';
  if (kind === 'object') requireKeys(serverOrder, mergeKey, path, 'the object');
  const rank = (list: unknown[], item: unknown) => {
    const k = keyOf(item, key);
    return list.findIndex((o) => same(keyOf(o, key), k));
  };
  const sortBy = (items: unknown[], order: unknown[]) =>
    items
      .map((item) => ({ item, at: rank(order, item) }))
      // Unranked items cannot occur here; Go's comparator leaves them to chance.
      .sort((a, b) => (a.at < 0 || b.at < 0 ? Number(a.at < 0) - Number(b.at < 0) : a.at - b.at))
      .map(({ item }) => item);

  const left = sortBy(rest, serverOrder);
  const right = sortBy(named, patchOrder);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const l = rank(serverOrder, left[i]);
      const r = rank(serverOrder, right[j]);
      out.push(l >= 0 && r >= 0 && l < r ? left[i++] : right[j++]);
    }
  }
  return out;
}

// patch.go sliceElementType: every item of the lists has one JSON type, and
// none is a list. `undefined` when the lists are empty.
function kindOf(lists: unknown[][], path: string): Kind | undefined {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const item of list) {
      if (Array.isArray(item)) {
        throw new StrategicMergePatchError(422, path, 'lists of lists are not supported');
      }
      if (item === null) throw bad(path, 'a list to merge or order cannot hold null');
      const k: Kind = isObj(item) ? 'object' : (typeof item as Kind);
      if (kind !== undefined && k !== kind) {
        throw bad(path, `list items must all have one type, found ${kind} and ${k}`);
      }
      kind = k;
    }
  }
  return kind;
}

function requireMergeKey(mergeKey: string, path: string): void {
  if (!mergeKey) throw bad(path, 'cannot merge a list of objects without a merge key');
}

function requireKeys(list: unknown[], mergeKey: string, path: string, whose?: string): void {
  list.forEach((item, i) => requireKey(item, mergeKey, `${path}[${i}]`, whose));
}

function requireKey(item: unknown, mergeKey: string, where: string, whose?: string): void {
  const of = whose ? ` (in ${whose})` : '';
  if (!isObj(item)) throw bad(where, `must be an object with merge key ${show(mergeKey)}${of}`);
  if (!Object.hasOwn(item, mergeKey)) throw bad(where, `missing merge key ${show(mergeKey)}${of}`);
}

// patch.go extractKey: `$prefix/<field>`.
function directiveField(key: string, prefix: string, path: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw bad(join(path, key), `invalid directive: expected ${prefix}/<field>`);
  }
  return key.slice(slash + 1);
}

// A patch value with nothing to merge into (patch.go discardNullValuesFromPatch
// and removeDirectives): null fields go, and so does any map carrying `$patch`,
// whether a field value or a list item.
const DROP = Symbol('drop');
function copyNew(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyNew).filter((v) => v !== DROP);
  if (!isObj(value)) return value;
  if (Object.hasOwn(value, PATCH)) return DROP;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || k.startsWith('$')) continue;
    const copy = copyNew(v);
    if (copy !== DROP) put(out, k, copy);
  }
  return out;
}

function putNew(target: Obj, field: string, value: unknown): void {
  const copy = copyNew(value);
  if (copy === DROP) delete target[field];
  else put(target, field, copy);
}

// A patch value Go takes as it stands (a replaced list or map, a new list
// item); decoding into the struct then drops its `$` keys and null fields.
function copyRaw(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyRaw);
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && !k.startsWith('$')) put(out, k, copyRaw(v));
  }
  return out;
}

function fieldMetaOf(meta: PatchMeta | undefined, field: string): FieldPatchMeta | undefined {
  if (meta?.fields && Object.hasOwn(meta.fields, field)) return meta.fields[field];
  return meta?.values ? { meta: meta.values } : undefined;
}

// patch.go extractRetainKeysPatchStrategy: `retainKeys` only matters to
// clients, so what is left decides.
function strategyOf(fieldMeta: FieldPatchMeta | undefined): string {
  return (fieldMeta?.strategy ?? '').split(',').find((s) => s !== 'retainKeys') ?? '';
}

function keyOf(item: unknown, mergeKey: string): unknown {
  return mergeKey ? (item as Obj)[mergeKey] : item;
}

function matches(item: unknown, mergeKey: string, value: unknown): boolean {
  return isObj(item) && Object.hasOwn(item, mergeKey) && same(item[mergeKey], value);
}

// Go compares with `==` on decoded JSON; objects compare by content here.
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => same(v, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]))
  );
}

function shape(v: unknown): 'object' | 'array' | 'other' {
  return Array.isArray(v) ? 'array' : isObj(v) ? 'object' : 'other';
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Assignment to `__proto__` would set the prototype instead of a field.
function put(target: Obj, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function show(v: unknown): string {
  return v === undefined ? 'undefined' : JSON.stringify(v);
}

function bad(path: string, problem: string): StrategicMergePatchError {
  return new StrategicMergePatchError(400, path, problem);
}
