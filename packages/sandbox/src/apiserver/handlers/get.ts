// get and list: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go
// (GetResource, ListResource; a list asked to watch goes to watch.ts).
import { listOptions, type ObjectScope, type RequestScope } from './rest.js';

/** GET of one object (or of its status subresource, which reads the same object). */
export function getResource(scope: ObjectScope): void {
  scope.reply(200, scope.registry.get(scope.info, scope.namespace, scope.name));
}

/** GET of a collection, with selectors, pagination and resourceVersion semantics. */
export function listResource(scope: RequestScope): void {
  scope.reply(200, scope.registry.list(scope.info, scope.namespace, listOptions(scope.query)));
}
