// Cutting `metadata.managedFields` out of a watch event's JSON text before it
// is parsed. No client-go counterpart: client-go decodes whole objects and
// kube-controller-manager's informers drop the field afterwards
// (k8s.io/client-go/tools/cache, TransformFunc; trim.TrimManagedFields). Here
// the parse never builds the field, which is most of a typical object's
// small allocations.
//
// The scanner walks only as much of the text as it needs: the members of the
// event, then those of its object, then those of the object's metadata,
// hopping over strings with indexOf. It cuts only when the text is plain
// enough to be sure (keys written without escapes, the path found as a real
// member); anything else leaves the text as it is, and the caller's
// transform still drops the field after parsing, so the result is the same
// either way.

/**
 * A hint a caller may add to the options of `list` and `watch` (they are
 * `ListOptions` from `@kcm-ts/apimachinery` plus these): the caller is going
 * to drop `metadata.managedFields` from every object anyway (an informer
 * whose transform is `trimManagedFields`), so the client may leave the field
 * out while decoding. The resource clients of this package cut it from each
 * watch event's text before parsing it; a `ListerWatcher` that knows nothing
 * of the hint ignores it, and the caller's transform drops the field as
 * before, so what the caller ends with is the same either way.
 *
 * @category Resource clients
 */
export interface DecodeHints {
  /** Leave `metadata.managedFields` out of the objects, if that is cheaper. */
  dropManagedFields?: boolean;
}

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const COMMA = 44; // ,
const COLON = 58; // :
const OPEN_BRACE = 123; // {
const CLOSE_BRACE = 125; // }
const OPEN_BRACKET = 91; // [
const CLOSE_BRACKET = 93; // ]

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The index after the string opening at `i`, or -1 if it never closes. */
function skipString(s: string, i: number): number {
  for (;;) {
    const q = s.indexOf('"', i + 1);
    if (q < 0) return -1;
    // A quote after an odd run of backslashes is escaped.
    let b = q - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    i = q;
  }
}

/** The index after the value starting at `i`, or -1 if it is cut off. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; i < s.length; i++) {
      const d = s.charCodeAt(i);
      if (d === QUOTE) {
        i = skipString(s, i);
        if (i < 0) return -1;
        i--;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  while (i < s.length) {
    const d = s.charCodeAt(i);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    i++;
  }
  return i;
}

/** Where one member of an object is: its key, its value, and the comma before it. */
interface Member {
  /** The comma before the key, or -1 for the first member. */
  comma: number;
  keyStart: number;
  valueStart: number;
}

/**
 * Finds the member `key` of the object opening at `open`, skipping the
 * members before it; `undefined` if it has none or the text is not what
 * the scanner can be sure of.
 */
function findMember(s: string, open: number, key: string): Member | undefined {
  if (s.charCodeAt(open) !== OPEN_BRACE) return undefined;
  let i = skipSpace(s, open + 1);
  let comma = -1;
  if (s.charCodeAt(i) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyStart = i;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0) return undefined;
    i = skipSpace(s, keyEnd);
    if (s.charCodeAt(i) !== COLON) return undefined;
    const valueStart = skipSpace(s, i + 1);
    if (keyEnd - keyStart - 2 === key.length && s.startsWith(key, keyStart + 1)) {
      return { comma, keyStart, valueStart };
    }
    i = skipValue(s, valueStart);
    if (i < 0) return undefined;
    i = skipSpace(s, i);
    if (s.charCodeAt(i) !== COMMA) return undefined;
    comma = i;
    i = skipSpace(s, i + 1);
  }
}

/**
 * The watch event `line` (`{"type":...,"object":{...}}`) without its
 * object's `metadata.managedFields` member, or `line` itself when it has
 * none or the scanner cannot be sure where it is. Parsing the result gives
 * what parsing `line` and then deleting the field gives.
 */
export function cutManagedFieldsFromEvent(line: string): string {
  const start = skipSpace(line, 0);
  const object = findMember(line, start, 'object');
  if (object === undefined) return line;
  const metadata = findMember(line, object.valueStart, 'metadata');
  if (metadata === undefined) return line;
  return cutMember(line, metadata.valueStart, 'managedFields');
}

/** `s` without the member `key` of the object opening at `open`, if it has one. */
function cutMember(s: string, open: number, key: string): string {
  const member = findMember(s, open, key);
  if (member === undefined) return s;
  const end = skipValue(s, member.valueStart);
  if (end < 0) return s;
  if (member.comma >= 0) {
    // `,"managedFields":[...]`: from the comma before it.
    return s.slice(0, member.comma) + s.slice(end);
  }
  // The first member: up to and including the comma after it, if any.
  const next = skipSpace(s, end);
  const c = s.charCodeAt(next);
  if (c === COMMA) return s.slice(0, member.keyStart) + s.slice(next + 1);
  if (c === CLOSE_BRACE) return s.slice(0, member.keyStart) + s.slice(next);
  return s;
}
