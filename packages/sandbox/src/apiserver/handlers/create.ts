// create: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
// (createHandler: decode, field validation, then the registry's Create).
import { apiVersionOf } from '../resources.js';
import {
  decodeObjectBody,
  readBody,
  validateFields,
  writeOptions,
  type RequestScope,
} from './rest.js';

/** POST to a collection: 201 with the object as stored. */
export async function createResource(scope: RequestScope): Promise<void> {
  const { req, res, query, info, registry } = scope;
  const body = decodeObjectBody(req, await readBody(req), info);
  validateFields(res, query, apiVersionOf(info), info.kind, body);
  scope.reply(
    201,
    registry.create(info, scope.namespace, body, { ...writeOptions(query), user: scope.user }),
  );
}
