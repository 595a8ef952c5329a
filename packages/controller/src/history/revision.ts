// ControllerRevisions as values: pkg/controller/history/controller_history.go
// (ControllerRevisionHashLabel, ControllerRevisionName, NewControllerRevision,
// HashControllerRevision, SortControllerRevisions, EqualRevision,
// FindEqualRevisions and byRevision), with k8s.io/apimachinery's
// util/rand.SafeEncodeString from ../hash.ts.
//
// A DaemonSet or StatefulSet records each version of its pod template as a
// ControllerRevision named `<owner>-<hash of the data>`, so that an update
// back to an old template finds the old revision again instead of making a
// new one. Go hashes and compares `data.raw`, the revision's JSON bytes. Our
// `data` is parsed JSON, so its bytes are rebuilt as Go's encoding/json
// writes a decoded `map[string]interface{}`: keys sorted, `<`, `>` and `&`
// escaped. That is exactly how both Go controllers serialize the data they
// store, so names and hashes match kube-controller-manager's.
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { newControllerRef, type GroupVersionKind, type KubeObject } from '@kcm-ts/apimachinery';
import { fnv32, safeEncodeString } from '../hash.js';

/**
 * The label holding the hash of a ControllerRevision's data. Go's
 * `ControllerRevisionHashLabel`.
 *
 * @category History
 */
export const controllerRevisionHashLabel = 'controller.kubernetes.io/hash';

/**
 * `<prefix>-<hash>`, the name of a ControllerRevision; a prefix longer than
 * 223 characters is cut to 223, so the name stays within 253. Go's
 * `ControllerRevisionName` (which counts bytes; object names are ASCII, so
 * characters are bytes).
 *
 * @category History
 */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/**
 * A ControllerRevision of `parent` holding `data` at `revision`: the template
 * labels plus {@link controllerRevisionHashLabel}, a controller reference to
 * `parent`, and the name {@link controllerRevisionName} gives for the
 * parent's name and the hash of `data` with `collisionCount`. It has no
 * namespace yet. Go's `NewControllerRevision`.
 *
 * @param parent - the owner (a DaemonSet or StatefulSet)
 * @param parentKind - the owner's group, version and kind, for the reference
 * @param templateLabels - copied into the revision's labels
 * @param data - the state to record, as JSON (copied)
 * @param revision - the revision number
 * @param collisionCount - mixed into the hash, as {@link hashControllerRevision} does
 * @throws TypeError if `collisionCount` is not an integer, or `data` holds a non-JSON value
 *
 * @category History
 */
export function newControllerRevision(
  parent: KubeObject,
  parentKind: GroupVersionKind,
  templateLabels: Readonly<Record<string, string>> | undefined,
  data: unknown,
  revision: number,
  collisionCount?: number | null,
): ControllerRevision {
  const cr: ControllerRevision = {
    metadata: {
      labels: { ...templateLabels },
      ownerReferences: [newControllerRef(parent, parentKind)],
    },
    revision,
  };
  if (data !== undefined) cr.data = structuredClone(data) as object;
  const hash = hashControllerRevision(cr, collisionCount);
  cr.metadata!.name = controllerRevisionName(parent.metadata?.name ?? '', hash);
  cr.metadata!.labels![controllerRevisionHashLabel] = hash;
  return cr;
}

/**
 * The hash of a revision's data: 32-bit FNV-1 over the data's JSON bytes
 * (nothing for no data), then, when `probe` is given, over its decimal
 * digits; the decimal sum encoded with the alphabet
 * `bcdfghjklmnpqrstvwxz2456789`. Go's `HashControllerRevision`, byte for
 * byte: the data `{"metadata":{"name":"test"}}` hashes to `67794bdc49`, and
 * with probe 1 to `fdd8fd7c4`.
 *
 * @param probe - the collision count; each value gives another name for the same data
 * @throws TypeError if `probe` is not an integer, or the data holds a non-JSON value
 *
 * @category History
 */
export function hashControllerRevision(
  revision: Pick<ControllerRevision, 'data'>,
  probe?: number | null,
): string {
  let hash = fnv32(new TextEncoder().encode(rawData(revision.data)));
  if (probe !== undefined && probe !== null) {
    if (!Number.isInteger(probe)) {
      throw new TypeError(`hashControllerRevision: probe must be an integer, got ${probe}`);
    }
    hash = fnv32(new TextEncoder().encode(String(probe)), hash);
  }
  return safeEncodeString(String(hash));
}

const timeOf = (cr: ControllerRevision): number => {
  // Go's zero time (none, or none that parses) sorts before every real one.
  const t = Date.parse(cr.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? -Infinity : t;
};

/**
 * Orders revisions by revision number, then by creation time, then by name.
 * Go's `byRevision.Less`.
 */
function byRevision(a: ControllerRevision, b: ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision < b.revision ? -1 : 1;
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/**
 * Sorts `revisions` in place, oldest first: by revision number, ties by
 * creation time, then by name; the sort is stable. Returns the same array.
 * Go's `SortControllerRevisions`.
 *
 * @category History
 */
export function sortControllerRevisions(revisions: ControllerRevision[]): ControllerRevision[] {
  return revisions.sort(byRevision);
}

/**
 * The hash label's value as Go's `strconv.ParseInt(s, 10, 32)` reads it,
 * as a uint32, or `undefined` when that fails. Most hashes hold letters and
 * fail; only all-digit ones take part in the comparison.
 */
function labelHash(cr: ControllerRevision): number | undefined {
  const s = cr.metadata?.labels?.[controllerRevisionHashLabel];
  if (s === undefined || !/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  if (n < -2147483648 || n > 2147483647) return undefined;
  return n >>> 0;
}

/**
 * True when both are missing, or both hold the same data: two hash labels
 * that both read as numbers must agree, then the data's JSON bytes must be
 * equal. Go's `EqualRevision` (whose `data.object` half has no counterpart:
 * wire-format data is always raw JSON).
 *
 * @category History
 */
export function equalRevision(
  lhs: ControllerRevision | null | undefined,
  rhs: ControllerRevision | null | undefined,
): boolean {
  if (lhs === null || lhs === undefined || rhs === null || rhs === undefined) {
    return (lhs ?? undefined) === (rhs ?? undefined);
  }
  const lh = labelHash(lhs);
  const rh = labelHash(rhs);
  if (lh !== undefined && rh !== undefined && lh !== rh) return false;
  return rawData(lhs.data) === rawData(rhs.data);
}

/**
 * The revisions of `revisions` equal to `needle` by {@link equalRevision},
 * in their order. Go's `FindEqualRevisions`.
 *
 * @category History
 */
export function findEqualRevisions(
  revisions: readonly ControllerRevision[],
  needle: ControllerRevision,
): ControllerRevision[] {
  return revisions.filter((cr) => equalRevision(cr, needle));
}

/**
 * The JSON text Go's `data.raw` holds for `data`: empty for none (Go keeps
 * no bytes for a missing or `null` RawExtension).
 */
export function rawData(data: unknown): string {
  return data === undefined || data === null ? '' : goJSON(data);
}

/**
 * `value` as Go's `json.Marshal` writes an `interface{}` decoded from JSON:
 * object keys in byte (code point) order, numbers as JavaScript prints them
 * (Go's float64 format agrees), strings escaped as Go escapes them.
 */
function goJSON(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`unsupported value: ${value}`);
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        return `[${value.map((v: unknown) => (v === undefined ? 'null' : goJSON(v))).join(',')}]`;
      }
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, unknown] => [wellFormed(k), v])
        .sort(([a], [b]) => compareCodePoints(a, b));
      return `{${entries.map(([k, v]) => `${goQuote(k)}:${goJSON(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`unsupported type: ${typeof value}`);
  }
}

/** Lone surrogates become U+FFFD, as Go's JSON decoder leaves them. */
function wellFormed(s: string): string {
  return s.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/**
 * Compares by code point (the order of UTF-8 bytes, Go's string order). UTF-16
 * units only disagree with it between surrogates and U+E000..U+FFFF, so those
 * are shifted past each other.
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

const fixup = (u: number): number => (u < 0xd800 ? u : u >= 0xe000 ? u - 0x800 : u + 0x2000);

const shortEscapes: Record<number, string> = {
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0c: '\\f',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
};

/**
 * A JSON string as Go's encoder writes it: control characters escaped (short
 * forms where JSON has them), `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes
 * (Go's default HTML-safe output), everything else as it is.
 */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of wellFormed(s)) {
    const c = ch.codePointAt(0)!;
    const short = shortEscapes[c];
    if (short !== undefined) out += short;
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}
