// What every resource handler shares: the request scope (staging/src/k8s.io/
// apiserver/pkg/endpoints/handlers/rest.go, RequestScope and
// limitedReadBody), the decoding of bodies and patches, and the options
// each verb reads from the query (the parameter codec of
// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  StatusError,
  isStatusError,
  newBadRequest,
  newMethodNotSupported,
  newRequestEntityTooLarge,
} from '@kcm-ts/apimachinery';
import type { ListOptions, Patch } from '@kcm-ts/apimachinery';
import type { Registry } from '../registry/store.js';
import { checkFields } from '../field-validation.js';
import type { ResourceInfo } from '../resources.js';
import { DecodeError, checkNesting, parseYamlLimited, unrecognizedBody } from '../body-limits.js';
import { boolParam, int64Param } from '../query-params.js';
import { ProtobufDecodeError, decodeProtobufObject } from '../protobuf/decode.js';
import type { NegotiatedOutput } from '../negotiation.js';
import type { TransformContext } from '../response.js';
import type { Encoding } from './writers.js';
import type { UserInfo } from '../authn.js';

/**
 * One resource request once routed: what rest.go's RequestScope and the
 * route's parameters give a handler.
 */
export interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
  registry: Registry;
  info: ResourceInfo;
  namespace: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
  /** The API verb, as RequestInfo names it. */
  verb: string;
  /** Who the request acts as (after impersonation). */
  user: UserInfo;
  /** The negotiated output and how it is encoded. */
  output: NegotiatedOutput;
  ctx: TransformContext;
  encoding: Encoding;
  /** Writes `result` transformed as negotiated, with status `code`. */
  reply(code: number, result: unknown): void;
}

/** A routed request for one named object. */
export type ObjectScope = RequestScope & { name: string };

/** kube-apiserver's default limit on a request body (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export const unknownFormat = (accepted: string): StatusError =>
  new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  });

export const notFoundPath = (): StatusError =>
  new StatusError({
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    details: {},
  });

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxRequestBodyBytes)
    throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxRequestBodyBytes)
      throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function parseJson(buf: Buffer, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw newBadRequest(`${what}: invalid JSON: ${(err as Error).message}`);
  }
  try {
    checkNesting(value);
  } catch (err) {
    throw newBadRequest(`${what}: ${(err as Error).message}`);
  }
  return value;
}

/** The body of a create or update: JSON, YAML, or protobuf (kubectl's `create <kind>` sends it) for the kinds in kube-proto.json. */
export function decodeObjectBody(req: IncomingMessage, buf: Buffer, info: ResourceInfo): unknown {
  const type = mediaType(req);
  if (type === '' || type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8'));
    } catch (err) {
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: invalid JSON: ${(err as Error).message}`,
      );
    }
    try {
      checkNesting(value);
    } catch (err) {
      // The decoder fails before it knows the kind (handlers/rest.go, transformDecodeError).
      throw unrecognizedBody(info.kind, err, buf);
    }
    return value;
  }
  if (type === 'application/yaml') {
    try {
      return parseYamlLimited(buf.toString('utf8'));
    } catch (err) {
      if (isStatusError(err)) throw err;
      if (err instanceof DecodeError) throw unrecognizedBody(info.kind, err, buf);
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: invalid YAML: ${(err as Error).message}`,
      );
    }
  }
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(buf, info);
  throw unknownFormat('application/json, application/yaml, application/vnd.kubernetes.protobuf');
}

function decodeProtobuf(buf: Buffer, info: ResourceInfo): unknown {
  try {
    return decodeProtobufObject(buf);
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    if (err.unsupportedKind)
      throw unknownFormat(
        `application/json, application/yaml (${err.message}; send this kind as JSON, as \`kubectl apply -f\` and \`kubectl create -f\` do)`,
      );
    throw newBadRequest(
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${err.message}`,
    );
  }
}

export function decodePatch(req: IncomingMessage, buf: Buffer, query: URLSearchParams): Patch {
  const type = mediaType(req);
  switch (type) {
    case 'application/json-patch+json':
      return { type: 'json', ops: parseJson(buf, 'json patch') as never };
    case 'application/merge-patch+json':
      return { type: 'merge', body: parseJson(buf, 'merge patch') as object };
    case 'application/strategic-merge-patch+json':
      return { type: 'strategic', body: parseJson(buf, 'strategic merge patch') as object };
    case 'application/apply-patch+yaml': {
      let body: unknown;
      try {
        body = parseYamlLimited(buf.toString('utf8'));
      } catch (err) {
        if (isStatusError(err)) throw err;
        // applyPatcher hands sigs.k8s.io/yaml's error over as it is.
        if (err instanceof DecodeError)
          throw newBadRequest(`error converting YAML to JSON: ${err.message}`);
        throw newBadRequest(`apply patch: invalid YAML: ${(err as Error).message}`);
      }
      return {
        type: 'apply',
        body: body as object,
        fieldManager: query.get('fieldManager') ?? '',
        ...(boolParam(query, 'force') === true ? { force: true } : {}),
      };
    }
    default:
      throw unknownFormat(
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
      );
  }
}

export function listOptions(query: URLSearchParams): ListOptions {
  const opts: ListOptions = {};
  const str = (name: 'labelSelector' | 'fieldSelector' | 'continue' | 'resourceVersion') => {
    const v = query.get(name);
    if (v !== null && v !== '') opts[name] = v;
  };
  str('labelSelector');
  str('fieldSelector');
  str('continue');
  str('resourceVersion');
  const match = query.get('resourceVersionMatch');
  if (match) opts.resourceVersionMatch = match as ListOptions['resourceVersionMatch'] & string;
  const limit = int64Param(query, 'limit');
  if (limit !== undefined) opts.limit = limit;
  const timeout = int64Param(query, 'timeoutSeconds');
  if (timeout !== undefined) opts.timeoutSeconds = timeout;
  const bookmarks = boolParam(query, 'allowWatchBookmarks');
  if (bookmarks !== undefined) opts.allowWatchBookmarks = bookmarks;
  const initial = boolParam(query, 'sendInitialEvents');
  if (initial !== undefined) opts.sendInitialEvents = initial;
  return opts;
}

export function writeOptions(query: URLSearchParams): {
  dryRun?: 'All';
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
} {
  const out: {
    dryRun?: 'All';
    fieldManager?: string;
    fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  } = {};
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) {
    if (dryRun.some((d) => d !== 'All'))
      throw newBadRequest(
        `dryRun: Unsupported value: ${JSON.stringify(dryRun.find((d) => d !== 'All'))}: supported values: "All"`,
      );
    out.dryRun = 'All';
  }
  const manager = query.get('fieldManager');
  if (manager) {
    if (manager.length > 128)
      throw newBadRequest('fieldManager: Too long: may not be more than 128 bytes');
    out.fieldManager = manager;
  }
  const validation = query.get('fieldValidation');
  if (validation) {
    if (!['Ignore', 'Warn', 'Strict'].includes(validation)) {
      throw newBadRequest(`invalid fieldValidation directive: ${validation}`);
    }
    out.fieldValidation = validation as 'Ignore' | 'Warn' | 'Strict';
  }
  return out;
}

/**
 * Drops the unknown fields of a written body as `fieldValidation` says (400
 * when Strict), and adds a Warning header for each under Warn, the default.
 */
export function validateFields(
  res: ServerResponse,
  query: URLSearchParams,
  apiVersion: string,
  kind: string,
  body: unknown,
  how: { patch?: boolean; apply?: string } = {},
): void {
  const warnings = checkFields(apiVersion, kind, body, writeOptions(query).fieldValidation, how);
  if (warnings.length > 0) {
    res.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  }
}

/** The object a patch describes, for field validation; JSON patches are lists of operations. */
export const patchObject = (patch: Patch): unknown =>
  patch.type === 'json' ? undefined : patch.body;

export function verbNotAllowed(verb: string, info: ResourceInfo): StatusError {
  return newMethodNotSupported({ group: info.group, resource: info.resource }, verb);
}
