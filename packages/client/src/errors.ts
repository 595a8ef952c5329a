// Turning an error response into a StatusError, as client-go's rest client does
// (rest/request.go: transformResponse, newUnstructuredResponseError,
// Result.Error, retryAfterSeconds, isTextResponse): a Status body with
// `status: Failure` is trusted as it is; anything else (a proxy's HTML page, an
// empty 503) becomes a generic error derived from the HTTP code.
import type { Status, StatusDetails } from 'kubernetes-types/meta/v1.js';
import {
  StatusError,
  newGenericServerResponse,
  type GroupResource,
  type StatusErrorInit,
} from '@kcm-ts/apimachinery';

// request.go, maxUnstructuredResponseTextBytes: the most of a non-Status body
// that ends up in the message.
const maxUnstructuredResponseTextBytes = 2048;

/** What {@link errorFromResponse} needs to know about a failed request. */
export interface ErrorResponse {
  /** The HTTP status code. */
  code: number;
  /** The HTTP method, in capitals. */
  verb: string;
  /** The response's `Content-Type` header, if any. */
  contentType: string | undefined;
  /** The response's `Retry-After` header, if any. */
  retryAfter: string | undefined;
  /** The response body. */
  body: Buffer;
  /** The resource the request was for; `undefined` when it was for none. */
  resource: GroupResource | undefined;
  /** The object's name, `''` for a collection. */
  name: string;
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * `Retry-After` as whole seconds, or `undefined`. Like Go's `strconv.Atoi`, only
 * a plain decimal integer counts (an HTTP date does not).
 */
export function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined || !/^[+-]?\d+$/.test(header)) return undefined;
  const n = Number(header);
  return Number.isSafeInteger(n) ? n : undefined;
}

function isFailureStatus(value: unknown): value is Status {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { kind, apiVersion, status } = value as Record<string, unknown>;
  // Result.Error decodes with `v1` as the default version and then insists on
  // `status: Failure`, since a body that merely looks like a Status would pass.
  const versionOk =
    apiVersion === undefined || apiVersion === 'v1' || apiVersion === 'meta.k8s.io/v1';
  return kind === 'Status' && versionOk && status === 'Failure';
}

/**
 * The {@link StatusError} for a response outside 2xx. A JSON `Status` body with
 * `status: Failure` is used as sent (its `code` defaulting to the HTTP code);
 * for a 429 or a 5xx whose details carry no `retryAfterSeconds`, the
 * `Retry-After` header fills it in, since client-go honours that header for
 * exactly those codes (rest/with_retry.go, checkWait). Any other body gives
 * `newGenericServerResponse`, with the body's text as the server message when
 * it is text (and `unknown` otherwise).
 */
export function errorFromResponse(res: ErrorResponse): StatusError {
  const media = mediaTypeOf(res.contentType);
  const retryAfter = parseRetryAfter(res.retryAfter);
  // With no Content-Type, client-go assumes the content type it asked for: JSON.
  if (media === '' || media === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (isFailureStatus(parsed)) {
      const err = StatusError.fromStatus(parsed, res.code);
      if (
        retryAfter !== undefined &&
        retryAfter > 0 &&
        (err.code === 429 || err.code >= 500) &&
        (err.details?.retryAfterSeconds ?? 0) === 0
      ) {
        return withDetails(err, { ...err.details, retryAfterSeconds: retryAfter });
      }
      return err;
    }
  }
  const isText = media === '' || media.startsWith('text/');
  const serverMessage = isText
    ? res.body.subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim()
    : 'unknown';
  return newGenericServerResponse({
    code: res.code,
    verb: res.verb,
    ...(res.resource === undefined ? {} : { qualifiedResource: res.resource }),
    name: res.name,
    serverMessage,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    isUnexpectedResponse: true,
  });
}

function withDetails(err: StatusError, details: StatusDetails): StatusError {
  const init: StatusErrorInit = {
    status: err.status,
    code: err.code,
    reason: err.reason,
    message: err.message,
    details,
  };
  return new StatusError(init);
}
