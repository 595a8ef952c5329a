// get and list: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go
// (GetResource, ListResource; a list asked to watch goes to watch.ts). Its
// selectors are read, and a long list written, in slices (./list-writer.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listParts } from '../response.js';
import { sendListInSlices, sliceListsLongerThan } from './list-writer.js';
import { listOptions, type ObjectScope, type RequestScope } from './rest.js';

/** GET of one object (or of its status subresource, which reads the same object). */
export function getResource(scope: ObjectScope): void {
  scope.reply(200, scope.registry.get(scope.info, scope.namespace, scope.name));
}

/** GET of a collection, with selectors, pagination and resourceVersion semantics. */
export async function listResource(scope: RequestScope): Promise<void> {
  const opts = listOptions(scope.query);
  const selectors = await scope.registry.compileSelectors(scope.info, opts, nextTurn);
  const list = scope.registry.list(scope.info, scope.namespace, opts, { shared: true, selectors });
  if (list.items.length <= sliceListsLongerThan) return scope.reply(200, list);
  await sendListInSlices(
    scope.res,
    listParts(list, scope.output.convert, scope.ctx),
    scope.encoding,
  );
}
