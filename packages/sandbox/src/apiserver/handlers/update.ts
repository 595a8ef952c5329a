// update: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/update.go
// (UpdateResource: 200, or 201 when the update created the object).
import { apiVersionOf } from '../resources.js';
import {
  decodeObjectBody,
  readBody,
  validateFields,
  writeOptions,
  type ObjectScope,
} from './rest.js';

/** PUT of an object or of its status subresource. */
export async function updateResource(scope: ObjectScope): Promise<void> {
  const { req, res, query, info, registry } = scope;
  const body = decodeObjectBody(req, await readBody(req), info);
  validateFields(res, query, apiVersionOf(info), info.kind, body);
  const out = registry.update(info, scope.namespace, scope.name, body, {
    ...writeOptions(query),
    ...(scope.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  scope.reply(out.created ? 201 : 200, out.object);
}
