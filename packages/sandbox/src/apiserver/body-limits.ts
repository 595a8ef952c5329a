// Bounds on what one request body can make the server build: YAML aliases
// limited as sigs.k8s.io/yaml's goyaml.v2 fork limits them (decode.go,
// allowedAliasRatio and the check in decoder.unmarshal), a nesting depth
// bound checked before anything recursive runs (encoding/json stops at
// 10,000 levels; the sandbox's own recursion needs a lower bound), and the
// size etcd refuses to store (its --max-request-bytes default of 1.5 MiB).
import { StatusError, newBadRequest } from '@kcm-ts/apimachinery';
import { isAlias, isMap, isPair, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';

/**
 * How deeply JSON or YAML may nest (objects and arrays within each other)
 * before the sandbox refuses it with 400. Real objects stay under 30 levels;
 * the YAML parser the sandbox uses recurses and overflows its stack (which
 * can end the process) some way past 500.
 *
 * @category Server
 */
export const maxNestingDepth = 500;

/** The most bytes one stored object may take, as etcd's default request limit. */
export const maxStoredObjectBytes = 1.5 * 1024 * 1024;

/** An error raised while decoding, with the text kube-apiserver's decoder would give. */
export class DecodeError extends Error {}

/**
 * Throws {@link DecodeError} if `value` nests deeper than
 * {@link maxNestingDepth}. Iterative, so it cannot itself overflow the stack.
 */
export function checkNesting(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxNestingDepth) {
      throw new DecodeError(`exceeded max depth of ${maxNestingDepth} nested objects and arrays`);
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}

// goyaml.v2: up to 400,000 decode operations 99% may come from aliases,
// from 4,000,000 only 10%, scaled linearly in between.
function allowedAliasRatio(decodeCount: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - low) / (high - low));
}

/**
 * Counts the nodes decoding `doc` visits, following aliases as goyaml does,
 * and throws once aliases account for too many of them: the billion-laughs
 * guard. Walks with an explicit stack.
 */
function checkAliasing(doc: Document): void {
  let decodeCount = 0;
  let aliasCount = 0;
  const stack: [unknown, number][] = [[doc.contents, 0]];
  while (stack.length > 0) {
    const [node, aliasDepth] = stack.pop()!;
    if (node === null || node === undefined) continue;
    decodeCount++;
    if (aliasDepth > 0) aliasCount++;
    if (
      aliasCount > 100 &&
      decodeCount > 1000 &&
      aliasCount / decodeCount > allowedAliasRatio(decodeCount)
    ) {
      throw new DecodeError('yaml: document contains excessive aliasing');
    }
    if (isAlias(node)) {
      stack.push([node.resolve(doc), aliasDepth + 1]);
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) {
          stack.push([item.value, aliasDepth], [item.key, aliasDepth]);
        } else {
          stack.push([item, aliasDepth]);
        }
      }
    } else if (isPair(node)) {
      stack.push([node.value, aliasDepth], [node.key, aliasDepth]);
    }
  }
}

/**
 * Throws the etcd size error as soon as a decoded value would clearly not
 * fit in storage, counting its JSON text without making it: aliases can
 * repeat a long string many times in few nodes.
 */
export function checkDecodedSize(value: unknown, limit = maxStoredObjectBytes): void {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v !== 'object' || v === null) size += 8;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const child of v) stack.push(child);
    } else {
      for (const [k, child] of Object.entries(v)) {
        size += k.length + 4;
        stack.push(child);
      }
    }
    if (size > limit) throw requestTooLarge();
  }
}

/**
 * Looks at YAML text, before any parser does, for nesting deeper than
 * {@link maxNestingDepth}: flow collections (`[`, `{` where a node may
 * start, outside quotes and comments) and block nesting (indentation and
 * `- ` indicators at the start of a line). An overestimate, never an
 * underestimate, and one pass without recursion.
 */
export function checkYamlTextNesting(text: string): void {
  let flow = 0;
  let lineStart = true;
  let indent = 0;
  let prev = '\n';
  const tooDeep = () =>
    new DecodeError(`exceeded max depth of ${maxNestingDepth} nested objects and arrays`);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') {
      lineStart = true;
      indent = 0;
      prev = c;
      continue;
    }
    if (lineStart) {
      if (c === ' ' || (c === '-' && (text[i + 1] === ' ' || text[i + 1] === '\n'))) {
        if (++indent > maxNestingDepth) throw tooDeep();
        continue;
      }
      lineStart = false;
    }
    if (c === '#' && (prev === ' ' || prev === '\n' || prev === '\t')) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    if (c === '"' || c === "'") {
      // Skip the quoted scalar ('' escapes a single quote, \ a double one's characters).
      for (i++; i < text.length; i++) {
        if (c === '"' && text[i] === '\\') i++;
        else if (text[i] === c) {
          if (c === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
      prev = c;
      continue;
    }
    if ((c === '[' || c === '{') && (flow > 0 || /[\s:,[{?-]/.test(prev))) {
      if (++flow > maxNestingDepth) throw tooDeep();
    } else if ((c === ']' || c === '}') && flow > 0) {
      flow--;
    }
    if (c !== ' ' && c !== '\t') prev = c;
    else prev = ' ';
  }
}

/**
 * Parses one YAML document with goyaml's alias limit and the nesting bound.
 * Throws {@link DecodeError} for those, or the parser's own error.
 */
export function parseYamlLimited(text: string): unknown {
  checkYamlTextNesting(text);
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first) throw first;
  checkAliasing(doc);
  const value: unknown = doc.toJS({ maxAliasCount: -1 });
  checkNesting(value);
  checkDecodedSize(value);
  return value;
}

/** The UTF-8 bytes of a string, counted without Buffer (storage runs in a browser too). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Throws the etcd size error if `object`, as JSON, is over {@link maxStoredObjectBytes}. */
export function checkStoredSize(object: unknown): void {
  checkStoredJson(JSON.stringify(object));
}

/** {@link checkStoredSize} for an object already serialised as JSON. */
export function checkStoredJson(text: string): void {
  // Three bytes per UTF-16 unit at most: short texts need no counting.
  if (text.length * 3 <= maxStoredObjectBytes) return;
  if (utf8Length(text) > maxStoredObjectBytes) throw requestTooLarge();
}

/**
 * The answer when an object is too big to store: etcd's error, passed on by
 * kube-apiserver as a 500 with no reason of its own.
 */
export function requestTooLarge(): StatusError {
  return new StatusError({ code: 500, reason: '', message: 'etcdserver: request is too large' });
}

/**
 * Go's `summarizeData` (handlers/rest.go): how a decode error quotes a body,
 * the first 30 bytes, as hex unless it starts like a JSON object.
 */
export function summarizeBody(body: Uint8Array): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const more = body.length > 30 ? ' ...' : '';
  return body[0] === 0x7b
    ? `${new TextDecoder().decode(head)}${more}`
    : `${Array.from(head, (b) => b.toString(16).padStart(2, '0')).join('')}${more}`;
}

/** A 400 for a body that cannot be decoded at all, in kube-apiserver's words. */
export function unrecognizedBody(kind: string, err: unknown, body: Uint8Array): StatusError {
  const why = err instanceof Error ? err.message : String(err);
  return newBadRequest(
    `the object provided is unrecognized (must be of type ${kind}): ${why} (${summarizeBody(body)})`,
  );
}
