// The pod template hash: pkg/controller/controller_utils.go (ComputeHash),
// pkg/util/hash/hash.go (DeepHashObject), k8s.io/apimachinery/pkg/util/rand
// (SafeEncodeString) and k8s.io/api/apps/v1 (DefaultDeploymentUniqueLabelKey).
// The FNV functions and SafeEncodeString are shared with the ControllerRevision
// hash of history/revision.ts (Go's hash/fnv New32 and New32a).
//
// Go hashes a `spew` dump of the PodTemplateSpec Go struct, which names Go
// types and every struct field of one k8s.io/api version: no other language
// can reproduce those bytes (and Go's own hashes change between versions). We
// hash a canonical JSON form of the template instead, with the same FNV-1a,
// collision-count suffix and output alphabet. Nothing depends on equal hashes
// across implementations: a Deployment finds its new ReplicaSet by comparing
// templates, not hashes.
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';

/**
 * The label the Deployment controller puts on the ReplicaSets and pods it
 * creates, with {@link computeHash} as its value. Go's
 * `DefaultDeploymentUniqueLabelKey`.
 *
 * @category Pod template hash
 */
export const defaultDeploymentUniqueLabelKey = 'pod-template-hash';

// k8s.io/apimachinery/pkg/util/rand: no vowels, no 0, 1 or 3, so no words.
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * Maps each character through the alphabet above, by code mod 27, so that a
 * decimal hash reads as no word. Go's `rand.SafeEncodeString`.
 */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += alphanums[s.charCodeAt(i) % alphanums.length];
  return out;
}

/** 32-bit FNV-1 (multiply, then xor), continuing from `hash`. Go's `fnv.New32`. */
export function fnv32(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

/** 32-bit FNV-1a (xor, then multiply), continuing from `hash`. Go's `fnv.New32a`. */
function fnv1a32(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * JSON with object keys sorted at every level and `undefined` members left
 * out, so that two equal templates give the same bytes whatever the order
 * their fields were written in.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`computeHash: cannot hash a ${typeof value}`);
    return text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * A short, deterministic hash of a pod template and a collision count, made
 * of the characters `bcdfghjklmnpqrstvwxz2456789` (1 to 10 of them), for the
 * {@link defaultDeploymentUniqueLabelKey} label and the names of a
 * Deployment's ReplicaSets. Go's `ComputeHash`: FNV-1a (32-bit) over the
 * template, then, when `collisionCount` is given, over its 4 bytes
 * little-endian and 4 zero bytes; the decimal sum is encoded as
 * `SafeEncodeString` does.
 *
 * The template's bytes are its canonical JSON, not Go's `spew` dump, so the
 * values differ from kube-controller-manager's (see the package README).
 *
 * @throws TypeError if `collisionCount` is not an integer, or the template holds a non-JSON value
 *
 * @category Pod template hash
 */
export function computeHash(template: PodTemplateSpec, collisionCount?: number | null): string {
  let hash = fnv1a32(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined && collisionCount !== null) {
    if (!Number.isInteger(collisionCount)) {
      throw new TypeError(`computeHash: collisionCount must be an integer, got ${collisionCount}`);
    }
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv1a32(bytes, hash);
  }
  return safeEncodeString(String(hash));
}
