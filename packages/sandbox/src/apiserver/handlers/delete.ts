// delete and deletecollection: staging/src/k8s.io/apiserver/pkg/endpoints/
// handlers/delete.go (DeleteResource, DeleteCollection), DeleteOptions from
// the body or, without one, the query (./delete-options.ts).
import { decodeDeleteOptions } from './delete-options.js';
import { listOptions, readBody, type ObjectScope, type RequestScope } from './rest.js';

/** DELETE of one object: the object while finalizers hold it, else a Success Status. */
export async function deleteResource(scope: ObjectScope): Promise<void> {
  const opts = decodeDeleteOptions(scope.req, await readBody(scope.req), scope.query);
  scope.reply(200, scope.registry.delete(scope.info, scope.namespace, scope.name, opts));
}

/** DELETE of a collection, in one namespace: the list of what was deleted. */
export async function deleteCollection(scope: RequestScope): Promise<void> {
  const selection = listOptions(scope.query);
  const opts = decodeDeleteOptions(scope.req, await readBody(scope.req), scope.query);
  scope.reply(200, scope.registry.deleteCollection(scope.info, scope.namespace, selection, opts));
}
