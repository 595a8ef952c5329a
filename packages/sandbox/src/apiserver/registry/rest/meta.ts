// The object metadata every write settles the same way:
// staging/src/k8s.io/apiserver/pkg/registry/rest/meta.go
// (EnsureObjectNamespaceMatchesRequestNamespace, FillObjectMetaSystemFields).
import { formatTime, newBadRequest } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../../resources.js';
import { plain } from '../field-errors.js';
import { notFound } from '../resource-errors.js';
import { type Obj, obj } from '../../unstructured.js';

/**
 * Puts the request's namespace in the body's metadata: none for a
 * cluster-scoped resource (404 if the URL named one), the URL's for a
 * namespaced one (400 if the body names another, or the URL none).
 */
export function ensureNamespaceMatches(info: ResourceInfo, namespace: string, body: Obj): void {
  const meta = obj(body.metadata);
  if (!info.namespaced) {
    if (namespace) throw notFound(info, plain(meta.name ?? ''));
    delete meta.namespace;
    return;
  }
  if (!namespace)
    throw newBadRequest(
      'the server could not find the requested resource: a namespace is required',
    );
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw newBadRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  meta.namespace = namespace;
}

/** A new object's uid and creationTimestamp. */
export function fillObjectMetaSystemFields(meta: Obj, now: number): void {
  meta.uid = crypto.randomUUID();
  meta.creationTimestamp = formatTime(now);
}
