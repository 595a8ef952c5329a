// A request's body decoded as the resource's kind, or 400 BadRequest with
// the decoder's words: the handlers decode with the scope's serializer
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go and
// update.go), which refuses another group, version or kind, fields of the
// wrong JSON type (typed-fields.ts) and MicroTime values without six
// fractional digits (apimachinery's pkg/apis/meta/v1/micro_time.go).
import { newBadRequest } from '@kcm-ts/apimachinery';
import { apiVersionOf } from '../resources.js';
import type { ResourceInfo } from '../resources.js';
import { plain } from './field-errors.js';
import type { Strategy } from './strategy.js';
import { typedFieldError } from './typed-fields.js';
import { type Obj, isObj, obj } from '../unstructured.js';

const microTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** `body` if it can be decoded as an object of `info`; 400 BadRequest otherwise. */
export function decodeBody(info: ResourceInfo, strategy: Strategy, body: unknown): Obj {
  if (!isObj(body)) {
    throw newBadRequest(
      `the body of the request must be a ${info.kind} object, got ${Array.isArray(body) ? 'an array' : JSON.stringify(body)}`,
    );
  }
  checkGroupVersionKind(info, body);
  const cannotHandle = `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}`;
  if (body.metadata !== undefined && !isObj(body.metadata)) {
    throw newBadRequest(`${cannotHandle}: metadata must be an object`);
  }
  const typeError = typedFieldError(info.kind, body);
  if (typeError !== undefined) throw newBadRequest(`${cannotHandle}: ${typeError}`);
  checkMicroTimes(strategy, body, cannotHandle);
  return body;
}

function checkGroupVersionKind(info: ResourceInfo, body: Obj): void {
  const expected = apiVersionOf(info);
  if (body.apiVersion !== undefined && body.apiVersion !== expected) {
    throw newBadRequest(
      `the API version in the data (${plain(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (body.kind !== undefined && body.kind !== info.kind) {
    throw newBadRequest(
      `${plain(body.kind)} in version "${info.version}" cannot be handled as a ${info.kind}: the kind in the data does not match the kind of the resource`,
    );
  }
}

function checkMicroTimes(strategy: Strategy, body: Obj, cannotHandle: string): void {
  for (const path of strategy.microTimeFields) {
    let v: unknown = body;
    for (const p of path) v = obj(v)[p];
    if (v !== undefined && v !== null && (typeof v !== 'string' || !microTimePattern.test(v))) {
      throw newBadRequest(
        `${cannotHandle}: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": ${path.join('.')} must be RFC 3339 with exactly six fractional digits`,
      );
    }
  }
}
