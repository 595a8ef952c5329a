// Status errors: k8s.io/apimachinery/pkg/api/errors (errors.go), and the Status
// body of pkg/apis/meta/v1 (types.go). Every failed API call becomes a
// StatusError carrying the Status the server sent, and the is* helpers classify
// it the way client-go's do.
import type { Status, StatusCause, StatusDetails } from 'kubernetes-types/meta/v1.js';
import {
  groupKindString,
  groupResourceString,
  type GroupKind,
  type GroupResource,
} from './schema.js';
import { fieldErrorBody, type FieldError, type FieldErrorType } from './field-errors.js';
import { goQuote } from './strconv.js';

/**
 * Why a request failed, in machine-readable form: the `reason` field of a
 * `Status`. `''` is Go's `StatusReasonUnknown` (the server gave no reason);
 * servers may send reasons newer than this list, so any string is accepted.
 *
 * | reason | usual code |
 * |---|---|
 * | `BadRequest` | 400 |
 * | `Unauthorized` | 401 |
 * | `Forbidden` | 403 |
 * | `NotFound` | 404 |
 * | `MethodNotAllowed` | 405 |
 * | `NotAcceptable` | 406 |
 * | `AlreadyExists`, `Conflict` | 409 |
 * | `Gone`, `Expired` | 410 |
 * | `RequestEntityTooLarge` | 413 |
 * | `UnsupportedMediaType` | 415 |
 * | `Invalid` | 422 |
 * | `TooManyRequests` | 429 |
 * | `InternalError`, `ServerTimeout`, `StoreReadError` | 500 |
 * | `ServiceUnavailable` | 503 |
 * | `Timeout` | 504 |
 *
 * @category Status errors
 */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  | (string & {});

// Every reason but Unknown: a classifier falls back to the HTTP code only when
// the reason is not one of these (errors.go, knownReasons).
const knownReasons: ReadonlySet<string> = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

/**
 * The `reason` of a `StatusCause`: what was wrong with one field. Validation
 * errors use the `FieldValue*` types.
 *
 * @category Status errors
 */
export type CauseType =
  | FieldErrorType
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  | (string & {});

/**
 * The second half of the message the API server sends with a 409 Conflict when
 * an update carries a stale `resourceVersion`; pass it as the `err` of
 * {@link newConflict}. Go's `registry/storage.OptimisticLockErrorMsg`.
 *
 * @category Status errors
 */
export const optimisticLockErrorMsg =
  'the object has been modified; please apply your changes to the latest version and try again';

/**
 * What {@link StatusError}'s constructor takes.
 *
 * @category Status errors
 */
export interface StatusErrorInit {
  /** `'Failure'` (the default) or `'Success'`. */
  status?: string;
  /** The HTTP status code. */
  code: number;
  /** The machine-readable reason. */
  reason: StatusReason;
  /** The human-readable message. */
  message: string;
  /** Extra data: the object concerned, field causes, a retry delay. */
  details?: StatusDetails;
}

const statusErrorBrand = Symbol.for('@kcm-ts/apimachinery/StatusError');

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && typeof (err as Error).message === 'string') {
    return (err as Error).message;
  }
  return String(err);
}

// The JSON the server sends omits empty fields (Go's `omitempty`); so do we,
// and in Go's field order.
function cleanCause(c: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (typeof c.reason === 'string' && c.reason !== '') out.reason = c.reason;
  if (typeof c.message === 'string' && c.message !== '') out.message = c.message;
  if (typeof c.field === 'string' && c.field !== '') out.field = c.field;
  return out;
}

function cleanDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (typeof d.name === 'string' && d.name !== '') out.name = d.name;
  if (typeof d.group === 'string' && d.group !== '') out.group = d.group;
  if (typeof d.kind === 'string' && d.kind !== '') out.kind = d.kind;
  if (typeof d.uid === 'string' && d.uid !== '') out.uid = d.uid;
  if (Array.isArray(d.causes) && d.causes.length > 0) {
    out.causes = d.causes.filter((c) => typeof c === 'object' && c !== null).map(cleanCause);
  }
  if (typeof d.retryAfterSeconds === 'number' && d.retryAfterSeconds !== 0) {
    out.retryAfterSeconds = d.retryAfterSeconds;
  }
  return out;
}

/**
 * A failed API request, carrying the `Status` body the server sent: Go's
 * `errors.StatusError`. Every client in kcm-ts rejects with one on a 4xx or
 * 5xx response, and the sandbox API server sends {@link StatusError.toStatus}
 * as its error body.
 *
 * Classify it with {@link isNotFound}, {@link isConflict} and the other
 * helpers, which also look through `Error.cause`; test for it with
 * {@link isStatusError}, which works across copies of this package, rather
 * than `instanceof`.
 *
 * @example
 * ```ts
 * try {
 *   await pods.get('web-0');
 * } catch (err) {
 *   if (!isNotFound(err)) throw err;
 * }
 * ```
 *
 * @category Status errors
 */
export class StatusError extends Error {
  static {
    Object.defineProperty(this.prototype, statusErrorBrand, { value: true });
  }

  /** Always `'StatusError'`. */
  override readonly name: string = 'StatusError';
  /** `'Failure'` for an error. */
  readonly status: string;
  /** The HTTP status code, such as 404. */
  readonly code: number;
  /** The machine-readable reason, such as `'NotFound'`; `''` when unknown. */
  readonly reason: StatusReason;
  /**
   * Extra data: for errors about one object its `name`, `group` and `kind`
   * (the resource plural, or the Kind for `Invalid`), field `causes`, and
   * `retryAfterSeconds`. `undefined` when the server sent none.
   */
  readonly details: StatusDetails | undefined;

  /** @param init - the fields of the Status; `message` becomes the Error message. */
  constructor(init: StatusErrorInit) {
    super(init.message);
    this.status = init.status ?? 'Failure';
    this.code = init.code;
    this.reason = init.reason;
    this.details = init.details === undefined ? undefined : cleanDetails(init.details);
  }

  /**
   * The `Status` body kube-apiserver would send for this error, with the same
   * fields in the same order and empty ones left out:
   * `{ kind: 'Status', apiVersion: 'v1', metadata: {}, status, message, reason, details, code }`.
   */
  toStatus(): Status {
    const body: Status = { kind: 'Status', apiVersion: 'v1', metadata: {} };
    if (this.status !== '') body.status = this.status;
    if (this.message !== '') body.message = this.message;
    if (this.reason !== '') body.reason = this.reason;
    if (this.details !== undefined) body.details = cleanDetails(this.details);
    if (this.code !== 0) body.code = this.code;
    return body;
  }

  /** Makes `JSON.stringify(err)` give the Status body ({@link StatusError.toStatus}). */
  toJSON(): Status {
    return this.toStatus();
  }

  /**
   * Rebuilds the error from a `Status` body received from a server (an error
   * response, a watch `ERROR` event). Fields of the wrong type are ignored.
   *
   * @param httpCode - the response's status code, used when the body has no `code`.
   */
  static fromStatus(body: Status, httpCode?: number): StatusError {
    const { status, code, reason, message, details } = body as Record<string, unknown>;
    return new StatusError({
      status: typeof status === 'string' ? status : 'Failure',
      code: typeof code === 'number' && code !== 0 ? code : (httpCode ?? 0),
      reason: typeof reason === 'string' ? reason : '',
      message: typeof message === 'string' ? message : '',
      details:
        typeof details === 'object' && details !== null && !Array.isArray(details)
          ? details
          : undefined,
    });
  }
}

/**
 * True when `value` is a {@link StatusError}, made by any copy of this package.
 *
 * @category Status errors
 */
export function isStatusError(value: unknown): value is StatusError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[statusErrorBrand] === true
  );
}

/**
 * True when `value` is a `Status` object (`kind: 'Status'`, `apiVersion` `v1`
 * or `meta.k8s.io/v1`), such as the body of an error response, the object of a
 * watch `ERROR` event, or what a delete returns when the object is gone at once.
 *
 * @category Status errors
 */
export function isStatus(value: unknown): value is Status {
  // errors.go, FromObject accepts the same
  if (typeof value !== 'object' || value === null) return false;
  const { kind, apiVersion } = value as Status;
  return kind === 'Status' && (apiVersion === 'v1' || apiVersion === 'meta.k8s.io/v1');
}

function objectDetails(qr: GroupResource, name: string): StatusDetails {
  return { name, group: qr.group, kind: qr.resource };
}

/**
 * 404 NotFound: `pods "x" not found`, `deployments.apps "x" not found`.
 *
 * @category Status errors
 */
export function newNotFound(qualifiedResource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 404,
    reason: 'NotFound',
    details: objectDetails(qualifiedResource, name),
    message: `${groupResourceString(qualifiedResource)} ${goQuote(name)} not found`,
  });
}

/**
 * 409 AlreadyExists: `deployments.apps "x" already exists`.
 *
 * @category Status errors
 */
export function newAlreadyExists(qualifiedResource: GroupResource, name: string): StatusError {
  return new StatusError({
    code: 409,
    reason: 'AlreadyExists',
    details: objectDetails(qualifiedResource, name),
    message: `${groupResourceString(qualifiedResource)} ${goQuote(name)} already exists`,
  });
}

/**
 * 401 Unauthorized, with `reason` as the message (`not authorized` if empty).
 *
 * @category Status errors
 */
export function newUnauthorized(reason: string): StatusError {
  return new StatusError({
    code: 401,
    reason: 'Unauthorized',
    message: reason === '' ? 'not authorized' : reason,
  });
}

/**
 * 403 Forbidden: `pods "x" is forbidden: <err>`, `pods is forbidden: <err>`
 * without a name, or `forbidden: <err>` without a resource.
 *
 * @category Status errors
 */
export function newForbidden(
  qualifiedResource: GroupResource,
  name: string,
  err: unknown,
): StatusError {
  const qr = groupResourceString(qualifiedResource);
  const why = errorMessage(err);
  let message: string;
  if (qualifiedResource.group === '' && qualifiedResource.resource === '') {
    message = `forbidden: ${why}`;
  } else if (name === '') {
    message = `${qr} is forbidden: ${why}`;
  } else {
    message = `${qr} ${goQuote(name)} is forbidden: ${why}`;
  }
  return new StatusError({
    code: 403,
    reason: 'Forbidden',
    details: objectDetails(qualifiedResource, name),
    message,
  });
}

/**
 * 409 Conflict: `Operation cannot be fulfilled on deployments.apps "x": <err>`.
 * For a stale `resourceVersion`, pass {@link optimisticLockErrorMsg} as `err`.
 *
 * @category Status errors
 */
export function newConflict(
  qualifiedResource: GroupResource,
  name: string,
  err: unknown,
): StatusError {
  return new StatusError({
    code: 409,
    reason: 'Conflict',
    details: objectDetails(qualifiedResource, name),
    message: `Operation cannot be fulfilled on ${groupResourceString(qualifiedResource)} ${goQuote(name)}: ${errorMessage(err)}`,
  });
}

/**
 * 409 Conflict from server-side apply, listing the conflicting fields as causes.
 *
 * @category Status errors
 */
export function newApplyConflict(causes: StatusCause[], message: string): StatusError {
  return new StatusError({ code: 409, reason: 'Conflict', details: { causes }, message });
}

/**
 * 410 Gone with reason `Gone`. The API server uses {@link newResourceExpired}
 * for an expired resourceVersion; this older form is kept for servers that
 * still send it.
 *
 * @category Status errors
 */
export function newGone(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Gone', message });
}

/**
 * 410 Gone with reason `Expired`: the requested resourceVersion is too old
 * (compacted away), so a list or watch must start over from a fresh list.
 * Message example: `too old resource version: 5 (10)`.
 *
 * @category Status errors
 */
export function newResourceExpired(message: string): StatusError {
  return new StatusError({ code: 410, reason: 'Expired', message });
}

/**
 * 422 Invalid: `Deployment.apps "x" is invalid: spec.replicas: Invalid value: -1: ...`,
 * or `... is invalid: [<e1>, <e2>]` with several causes. Each cause's `field`
 * and `message` are printed as `field: message`, duplicates once. Note that
 * `details.kind` holds the Kind here, not the resource.
 *
 * @param errors - one per invalid field: a {@link FieldError} (Go's
 *   `field.Error`, such as `fieldInvalid('spec.replicas', -1, 'must be greater
 *   than or equal to 0')`), or a Status cause already written: `reason` (such
 *   as `FieldValueInvalid`), `field` and `message` (such as `Invalid value: -1:
 *   must be greater than or equal to 0`).
 *
 * @category Status errors
 */
export function newInvalid(
  qualifiedKind: GroupKind,
  name: string,
  errors: readonly (StatusCause | FieldError)[],
): StatusError {
  // errors.go, NewInvalid: the message aggregates field errors the way
  // field.ErrorList.ToAggregate does.
  const causes: StatusCause[] = errors.map((e) =>
    isFieldError(e) ? { reason: e.type, message: fieldErrorBody(e), field: e.field } : e,
  );
  const messages = [...new Set(causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`))];
  const subject = `${groupKindString(qualifiedKind)} ${goQuote(name)} is invalid`;
  let message = subject;
  if (messages.length === 1) message = `${subject}: ${messages[0]}`;
  if (messages.length > 1) message = `${subject}: [${messages.join(', ')}]`;
  return new StatusError({
    code: 422,
    reason: 'Invalid',
    details: { name, group: qualifiedKind.group, kind: qualifiedKind.kind, causes },
    message,
  });
}

/**
 * 400 BadRequest, with `reason` as the message.
 *
 * @category Status errors
 */
export function newBadRequest(reason: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message: reason });
}

/**
 * 429 TooManyRequests, asking the client to wait `retryAfterSeconds` (sent
 * also as the `Retry-After` header).
 *
 * @category Status errors
 */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 429,
    reason: 'TooManyRequests',
    message,
    details: { retryAfterSeconds },
  });
}

/**
 * 503 ServiceUnavailable, with `reason` as the message.
 *
 * @category Status errors
 */
export function newServiceUnavailable(reason: string): StatusError {
  return new StatusError({ code: 503, reason: 'ServiceUnavailable', message: reason });
}

/**
 * 405 MethodNotAllowed: `<action> is not supported on resources of kind "<resource>"`.
 *
 * @category Status errors
 */
export function newMethodNotSupported(
  qualifiedResource: GroupResource,
  action: string,
): StatusError {
  return new StatusError({
    code: 405,
    reason: 'MethodNotAllowed',
    details: { group: qualifiedResource.group, kind: qualifiedResource.resource },
    message: `${action} is not supported on resources of kind ${goQuote(groupResourceString(qualifiedResource))}`,
  });
}

/**
 * 500 ServerTimeout: the operation could not be completed in time and the
 * client should retry after `retryAfterSeconds`.
 *
 * @category Status errors
 */
export function newServerTimeout(
  qualifiedResource: GroupResource,
  operation: string,
  retryAfterSeconds: number,
): StatusError {
  return new StatusError({
    code: 500,
    reason: 'ServerTimeout',
    details: {
      name: operation,
      group: qualifiedResource.group,
      kind: qualifiedResource.resource,
      retryAfterSeconds,
    },
    message: `The ${operation} operation against ${groupResourceString(qualifiedResource)} could not be completed at this time, please try again.`,
  });
}

/**
 * 500 InternalError: `Internal error occurred: <err>`.
 *
 * @category Status errors
 */
export function newInternalError(err: unknown): StatusError {
  const why = errorMessage(err);
  return new StatusError({
    code: 500,
    reason: 'InternalError',
    details: { causes: [{ message: why }] },
    message: `Internal error occurred: ${why}`,
  });
}

/**
 * 504 Timeout: `Timeout: <message>`. The request may still complete; clients
 * may retry after `retryAfterSeconds`.
 *
 * @category Status errors
 */
export function newTimeoutError(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: ${message}`,
    details: { retryAfterSeconds },
  });
}

/**
 * 413 RequestEntityTooLarge: `Request entity too large: <message>`.
 *
 * @category Status errors
 */
export function newRequestEntityTooLarge(message: string): StatusError {
  return new StatusError({
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: `Request entity too large: ${message}`,
  });
}

/**
 * What {@link newGenericServerResponse} takes.
 *
 * @category Status errors
 */
export interface GenericServerResponse {
  /** The HTTP status code. */
  code: number;
  /** The HTTP method in capitals, such as `GET` (a 409 to a `POST` means AlreadyExists). */
  verb: string;
  /** The resource requested, if known. */
  qualifiedResource?: GroupResource;
  /** The object's name, if known. */
  name?: string;
  /** The body or message the server sent. */
  serverMessage?: string;
  /** A delay the server asked for (from `Retry-After`), in seconds. */
  retryAfterSeconds?: number;
  /** True when the body was not a Status at all: adds an `UnexpectedServerResponse` cause. */
  isUnexpectedResponse?: boolean;
}

/**
 * The error for a response that carried no `Status` body (a proxy's HTML page,
 * an empty 503): reason and message are derived from the HTTP code, as
 * client-go does. For clients; servers send a real Status.
 *
 * @category Status errors
 */
export function newGenericServerResponse(response: GenericServerResponse): StatusError {
  // errors.go, NewGenericServerResponse
  const { code, verb, name = '', serverMessage = '', retryAfterSeconds = 0 } = response;
  const qr = response.qualifiedResource ?? { group: '', resource: '' };
  let reason: StatusReason = '';
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = verb === 'POST' ? 'AlreadyExists' : 'Conflict';
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = 'NotFound';
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = 'BadRequest';
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = 'Unauthorized';
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = 'Forbidden';
      message = serverMessage; // it says who may not do what
      break;
    case 406:
      reason = 'NotAcceptable';
      message =
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage;
      break;
    case 415:
      reason = 'UnsupportedMediaType';
      message = serverMessage;
      break;
    case 405:
      reason = 'MethodNotAllowed';
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = 'Invalid';
      message = 'the server rejected our request due to an error in our request';
      break;
    case 503:
      reason = 'ServiceUnavailable';
      message = 'the server is currently unable to handle the request';
      break;
    case 504:
      reason = 'Timeout';
      message =
        'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = 'TooManyRequests';
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (code >= 500) {
        reason = 'InternalError';
        message = `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const hasResource = qr.group !== '' || qr.resource !== '';
  if (hasResource) {
    const target = name === '' ? groupResourceString(qr) : `${groupResourceString(qr)} ${name}`;
    message = `${message} (${verb.toLowerCase()} ${target})`;
  }
  return new StatusError({
    code,
    reason,
    details: {
      name,
      group: qr.group,
      kind: qr.resource,
      causes: response.isUnexpectedResponse
        ? [{ reason: 'UnexpectedServerResponse', message: serverMessage }]
        : [],
      retryAfterSeconds,
    },
    message,
  });
}

/**
 * The {@link StatusError} `err` is, or the first one among its causes
 * (`Error.cause`, JavaScript's wrapping): what Go's `errors.As` finds, and
 * what every `is*` check of this module looks at. `undefined` if there is
 * none; a cycle of causes ends the search.
 *
 * @category Status errors
 */
export function findStatusError(err: unknown): StatusError | undefined {
  const seen = new Set<unknown>();
  let current = err;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    if (isStatusError(current)) return current;
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// True for `reason`, or for `code` when the error's reason is not a known one.
function hasReasonOrCode(err: unknown, reason: StatusReason, code: number): boolean {
  const se = findStatusError(err);
  if (se === undefined) return false;
  return se.reason === reason || (!knownReasons.has(se.reason) && se.code === code);
}

/**
 * The reason of the {@link StatusError} in `err` (or its `cause` chain), or
 * `''` (unknown) when there is none.
 *
 * @category Status errors
 */
export function reasonForError(err: unknown): StatusReason {
  return findStatusError(err)?.reason ?? '';
}

/**
 * Reason `NotFound`, or code 404 with an unknown reason.
 *
 * @category Status errors
 */
export function isNotFound(err: unknown): boolean {
  return hasReasonOrCode(err, 'NotFound', 404);
}

/**
 * Reason `AlreadyExists` (code alone does not count: 409 is also Conflict).
 *
 * @category Status errors
 */
export function isAlreadyExists(err: unknown): boolean {
  return reasonForError(err) === 'AlreadyExists';
}

/**
 * Reason `Conflict`, or code 409 with an unknown reason.
 *
 * @category Status errors
 */
export function isConflict(err: unknown): boolean {
  return hasReasonOrCode(err, 'Conflict', 409);
}

/**
 * Reason `Invalid`, or code 422 with an unknown reason.
 *
 * @category Status errors
 */
export function isInvalid(err: unknown): boolean {
  return hasReasonOrCode(err, 'Invalid', 422);
}

/**
 * Reason `Gone`, or code 410 with an unknown reason. An `Expired` error (also
 * 410) is not "gone": test it with {@link isResourceExpired}.
 *
 * @category Status errors
 */
export function isGone(err: unknown): boolean {
  return hasReasonOrCode(err, 'Gone', 410);
}

/**
 * Reason `Expired`: a list or watch asked for a resourceVersion that is too old.
 *
 * @category Status errors
 */
export function isResourceExpired(err: unknown): boolean {
  return reasonForError(err) === 'Expired';
}

/**
 * Reason `TooManyRequests`, or code 429 whatever the reason.
 *
 * @category Status errors
 */
export function isTooManyRequests(err: unknown): boolean {
  // Unlike the others, this one has always trusted the code alone.
  const se = findStatusError(err);
  return se !== undefined && (se.reason === 'TooManyRequests' || se.code === 429);
}

/**
 * Reason `ServerTimeout` (no HTTP code is specific to it).
 *
 * @category Status errors
 */
export function isServerTimeout(err: unknown): boolean {
  return reasonForError(err) === 'ServerTimeout';
}

/**
 * Reason `Timeout`, or code 504 with an unknown reason.
 *
 * @category Status errors
 */
export function isTimeout(err: unknown): boolean {
  return hasReasonOrCode(err, 'Timeout', 504);
}

/**
 * Reason `BadRequest`, or code 400 with an unknown reason.
 *
 * @category Status errors
 */
export function isBadRequest(err: unknown): boolean {
  return hasReasonOrCode(err, 'BadRequest', 400);
}

/**
 * Reason `Unauthorized`, or code 401 with an unknown reason.
 *
 * @category Status errors
 */
export function isUnauthorized(err: unknown): boolean {
  return hasReasonOrCode(err, 'Unauthorized', 401);
}

/**
 * Reason `Forbidden`, or code 403 with an unknown reason.
 *
 * @category Status errors
 */
export function isForbidden(err: unknown): boolean {
  return hasReasonOrCode(err, 'Forbidden', 403);
}

/**
 * Reason `MethodNotAllowed`, or code 405 with an unknown reason.
 *
 * @category Status errors
 */
export function isMethodNotSupported(err: unknown): boolean {
  return hasReasonOrCode(err, 'MethodNotAllowed', 405);
}

/**
 * Reason `NotAcceptable`, or code 406 with an unknown reason.
 *
 * @category Status errors
 */
export function isNotAcceptable(err: unknown): boolean {
  return hasReasonOrCode(err, 'NotAcceptable', 406);
}

/**
 * Reason `UnsupportedMediaType`, or code 415 with an unknown reason.
 *
 * @category Status errors
 */
export function isUnsupportedMediaType(err: unknown): boolean {
  return hasReasonOrCode(err, 'UnsupportedMediaType', 415);
}

/**
 * Reason `RequestEntityTooLarge`, or code 413 whatever the reason.
 *
 * @category Status errors
 */
export function isRequestEntityTooLarge(err: unknown): boolean {
  const se = findStatusError(err);
  return se !== undefined && (se.reason === 'RequestEntityTooLarge' || se.code === 413);
}

/**
 * Reason `InternalError`, or code 500 with an unknown reason.
 *
 * @category Status errors
 */
export function isInternalError(err: unknown): boolean {
  return hasReasonOrCode(err, 'InternalError', 500);
}

/**
 * Reason `ServiceUnavailable`, or code 503 with an unknown reason.
 *
 * @category Status errors
 */
export function isServiceUnavailable(err: unknown): boolean {
  return hasReasonOrCode(err, 'ServiceUnavailable', 503);
}

/**
 * True when the error's details list a cause of type `type`, such as
 * `ResourceVersionTooLarge`.
 *
 * @category Status errors
 */
export function hasStatusCause(err: unknown, type: CauseType): boolean {
  return findStatusError(err)?.details?.causes?.some((c) => c.reason === type) ?? false;
}

/**
 * The number of seconds the server asked the client to wait before retrying,
 * or `undefined` if it asked for no delay: a `ServerTimeout` always suggests
 * one (possibly 0), any other error when its `retryAfterSeconds` is positive.
 * It says nothing about whether to retry at all.
 *
 * @category Status errors
 */
export function suggestsClientDelay(err: unknown): number | undefined {
  // errors.go, SuggestsClientDelay
  const se = findStatusError(err);
  if (se?.details === undefined) return undefined;
  const seconds = se.details.retryAfterSeconds ?? 0;
  if (se.reason === 'ServerTimeout') return seconds;
  return seconds > 0 ? seconds : undefined;
}

function isFieldError(e: StatusCause | FieldError): e is FieldError {
  return typeof (e as FieldError).type === 'string' && !('reason' in e);
}
