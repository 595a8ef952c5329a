// patch: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
// (PatchResource: the patch type from the Content-Type, field validation of
// the patch, apply's field manager; the patching itself is ../patch.ts).
import { apiVersionOf } from '../resources.js';
import {
  decodePatch,
  patchObject,
  readBody,
  validateFields,
  writeOptions,
  type ObjectScope,
} from './rest.js';

/** PATCH of an object or of its status subresource, in any of the four patch types. */
export async function patchResource(scope: ObjectScope): Promise<void> {
  const { req, res, query, info, registry, namespace, name } = scope;
  const patch = decodePatch(req, await readBody(req), query);
  validateFields(res, query, apiVersionOf(info), info.kind, patchObject(patch), {
    patch: true,
    ...(patch.type === 'apply' ? { apply: namespace ? `${namespace}/${name}` : name } : {}),
  });
  const out = registry.patch(info, namespace, name, patch, {
    ...writeOptions(query),
    ...(scope.subresource === 'status' ? { subresource: 'status' as const } : {}),
  });
  scope.reply(out.created ? 201 : 200, out.object);
}
