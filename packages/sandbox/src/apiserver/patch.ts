// Applying the four patch types to an object, with the Status codes
// kube-apiserver answers with when a patch is malformed or does not apply
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go: jsonPatcher,
// smpPatcher, applyPatcher, interpretStrategicMergePatchError), with the
// bounds it puts on JSON patches (maxJSONPatchOperations, the copy limit).
import {
  StatusError,
  StrategicMergePatchError,
  isStatusError,
  newBadRequest,
  newGenericServerResponse,
  newRequestEntityTooLarge,
  patchMetaForKind,
  strategicMergePatch,
} from '@kcm-ts/apimachinery';
import type { KubeObject, Patch, PatchMeta } from '@kcm-ts/apimachinery';
import fastJsonPatch from 'fast-json-patch';
import { mergePatch } from './merge-patch.js';
import { apiVersionOf } from './resources.js';
import type { ResourceInfo } from './resources.js';
import { type Obj, isObj } from './unstructured.js';

const patchMetaFor = (info: ResourceInfo): PatchMeta | undefined =>
  patchMetaForKind(apiVersionOf(info), info.kind);

function unprocessable(message: string): StatusError {
  return new StatusError({ code: 422, reason: 'Invalid', message });
}

/** kube-apiserver's bound on the operations of one JSON patch (handlers/patch.go). */
export const maxJsonPatchOperations = 10_000;

/**
 * How many bytes `copy` operations may add up to in one JSON patch: the
 * apiserver's JSONPatchMaxCopyBytes (3 MiB), given to json-patch as its
 * AccumulatedCopySizeLimit. Without it, each `copy` of a list onto itself
 * doubles the object.
 */
export const maxJsonPatchCopyBytes = 3 * 1024 * 1024;

function jsonPatch(current: Obj, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw newBadRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  if (ops.length > maxJsonPatchOperations) {
    throw newRequestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${ops.length}`,
    );
  }
  const invalidOp = fastJsonPatch.validate(ops as fastJsonPatch.Operation[]);
  if (invalidOp)
    throw newBadRequest(
      `invalid JSON patch: ${invalidOp.message.split('\n')[0] ?? invalidOp.name}`,
    );
  let doc: unknown = structuredClone(current);
  let copied = 0;
  try {
    for (const [i, op] of (ops as fastJsonPatch.Operation[]).entries()) {
      if (op.op === 'copy') {
        const value: unknown = fastJsonPatch.getValueByPointer(doc, op.from);
        copied += (JSON.stringify(value) ?? '').length;
        if (copied > maxJsonPatchCopyBytes) {
          // kube-apiserver turns json-patch's error into a bare 422
          // (NewGenericServerResponse without the server's message).
          throw newGenericServerResponse({
            code: 422,
            verb: 'PATCH',
            serverMessage: `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxJsonPatchCopyBytes}`,
          });
        }
      }
      doc = fastJsonPatch.applyOperation(doc, op, true, true, true, i).newDocument;
    }
    return doc;
  } catch (err) {
    if (isStatusError(err)) throw err;
    const e = err as {
      name?: string;
      message?: string;
      operation?: { op?: string; path?: string };
    };
    const first = (e.message ?? String(err)).split('\n')[0] ?? '';
    if (e.name === 'TEST_OPERATION_FAILED')
      throw unprocessable(
        'the server rejected our request due to an error in our request: testing value failed',
      );
    const at = e.operation?.path ? ` at ${e.operation.path}` : '';
    throw unprocessable(
      `the server rejected our request due to an error in our request: ${first}${at}`,
    );
  }
}

/**
 * Applies `patch` to `current` (as its resource presents it) and returns the
 * patched object. `info` is undefined for subresources with no strategic
 * schema of their own (Scale is patched with merge semantics).
 */
export function applyPatch(info: ResourceInfo | undefined, current: KubeObject, patch: Patch): Obj {
  let out: unknown;
  switch (patch.type) {
    case 'json':
      out = jsonPatch(current as unknown as Obj, patch.ops);
      break;
    case 'merge':
      if (!isObj(patch.body)) {
        throw newBadRequest('the body of a merge patch must be a JSON object');
      }
      out = mergePatch(current, patch.body);
      break;
    case 'strategic':
    case 'apply': {
      if (!isObj(patch.body))
        throw newBadRequest(
          `the body of a ${patch.type === 'apply' ? 'apply' : 'strategic merge'} patch must be a JSON object`,
        );
      if (!info) {
        out = mergePatch(current, patch.body);
        break;
      }
      const meta = patchMetaFor(info);
      if (!meta) {
        throw new StatusError({
          code: 415,
          reason: 'UnsupportedMediaType',
          message: `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        });
      }
      try {
        out = strategicMergePatch(current, patch.body, meta);
      } catch (err) {
        if (err instanceof StrategicMergePatchError) {
          throw err.code === 400 ? newBadRequest(err.message) : unprocessable(err.message);
        }
        throw err;
      }
      break;
    }
  }
  if (!isObj(out)) throw unprocessable('the patched object is not a JSON object');
  return out;
}
