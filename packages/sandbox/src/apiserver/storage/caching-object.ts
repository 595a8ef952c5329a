// Each watch event serialised once for all its watchers: kube-apiserver's
// cacher wraps an event's object in a cachingObject
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go) that
// keeps the bytes of each encoding it was asked for. Here the key is the
// frozen object every watcher of a resource shares (Registry.watch with
// `shared`), and the cache goes when the object does. Plain bytes, not a
// Node Buffer, so the watch cache stays free of `node:` modules.

const encoded = new WeakMap<object, Map<string, Uint8Array>>();
const utf8 = new TextEncoder();

/**
 * The encoding of `object` under `key` (the event type and the output
 * form), made by `encode` the first time and reused by every other watcher,
 * as bytes ready for the socket.
 */
export function encodeOnce(object: object, key: string, encode: () => string): Uint8Array {
  let forms = encoded.get(object);
  if (!forms) {
    forms = new Map();
    encoded.set(object, forms);
  }
  let bytes = forms.get(key);
  if (bytes === undefined) {
    bytes = utf8.encode(encode());
    forms.set(key, bytes);
  }
  return bytes;
}
