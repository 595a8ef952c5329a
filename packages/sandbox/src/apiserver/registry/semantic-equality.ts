// Whether a write changes anything: kube-apiserver compares the object it is
// about to store with the stored one (apimachinery's pkg/api/equality,
// Semantic.DeepEqual, as the etcd3 store's GuaranteedUpdate uses it) and
// skips a write that would change nothing.
import type { KubeObject } from '@kcm-ts/apimachinery';
import { type Obj } from '../unstructured.js';

/** Equal as JSON documents: key order and undefined members do not count. */
export function sameJSON(a: unknown, b: unknown): boolean {
  return jsonEqual(
    JSON.parse(JSON.stringify(a) ?? 'null'),
    JSON.parse(JSON.stringify(b) ?? 'null'),
  );
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Obj;
  return (
    ka.length === Object.keys(bo).length &&
    ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Obj)[k], bo[k]))
  );
}

/** Equal apart from `metadata.resourceVersion`: a write of it would change nothing. */
export function sameButResourceVersion(a: KubeObject | Obj, b: KubeObject | Obj): boolean {
  return sameJSON(withoutRV(a), withoutRV(b));
}

function withoutRV(o: KubeObject | Obj): unknown {
  return { ...o, metadata: { ...(o.metadata as Obj), resourceVersion: undefined } };
}
