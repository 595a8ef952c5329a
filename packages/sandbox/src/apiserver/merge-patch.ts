// JSON merge patch (RFC 7386), as kube-apiserver applies
// `application/merge-patch+json` (evanphx/json-patch's MergePatch). Written
// here rather than taken from json-merge-patch, which stops at keys named
// `constructor`, `prototype` or `__proto__`: those are ordinary label,
// annotation and ConfigMap keys to Kubernetes. Every key is set as an own
// property, so no key reaches an object's prototype.
import { isObj } from './unstructured.js';

/** `target` with `patch` merged in: objects merged key by key, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Record<string, unknown> = {};
  if (isObj(target)) {
    for (const key of Object.keys(target)) setOwn(out, key, target[key]);
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete out[key];
    } else {
      setOwn(out, key, mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
    }
  }
  return out;
}

function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
