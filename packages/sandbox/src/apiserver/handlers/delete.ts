// delete and deletecollection: staging/src/k8s.io/apiserver/pkg/endpoints/
// handlers/delete.go (DeleteResource, DeleteCollection), DeleteOptions from
// the body or the query.
import {
  deleteOptions,
  listOptions,
  parseJson,
  readBody,
  type ObjectScope,
  type RequestScope,
} from './rest.js';

/** The DeleteOptions a body carries, if any. */
async function deleteBody(scope: RequestScope): Promise<unknown> {
  const buf = await readBody(scope.req);
  return buf.length > 0 ? parseJson(buf, 'DeleteOptions') : undefined;
}

/** DELETE of one object: the object while finalizers hold it, else a Success Status. */
export async function deleteResource(scope: ObjectScope): Promise<void> {
  const opts = deleteOptions(scope.query, await deleteBody(scope));
  scope.reply(200, scope.registry.delete(scope.info, scope.namespace, scope.name, opts));
}

/** DELETE of a collection, in one namespace: the list of what was deleted. */
export async function deleteCollection(scope: RequestScope): Promise<void> {
  const opts = deleteOptions(scope.query, await deleteBody(scope));
  const selection = listOptions(scope.query);
  scope.reply(200, scope.registry.deleteCollection(scope.info, scope.namespace, selection, opts));
}
