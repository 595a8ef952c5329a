// How answers are written: the media type and indentation a request
// negotiated, and errors as Status bodies
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/
// writers.go, WriteObjectNegotiated and ErrorNegotiated; negotiation.go's
// isPrettyPrint).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStatusError, newGenericServerResponse, newInternalError } from '@kcm-ts/apimachinery';
import { stringify as stringifyYaml } from 'yaml';
import { negotiateOutput } from '../negotiation.js';

/** How an answer is written: its media type and whether it is indented. */
export interface Encoding {
  contentType: string;
  pretty?: boolean;
}

export const jsonEncoding: Encoding = { contentType: 'application/json' };

function encode(body: unknown, enc: Encoding): string {
  if (enc.contentType === 'application/yaml') {
    // sigs.k8s.io/yaml's JSONToYAML: keys sorted, sequences not indented.
    return stringifyYaml(body, { sortMapEntries: true, indentSeq: false });
  }
  return enc.pretty ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
}

export function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  enc: Encoding = jsonEncoding,
): void {
  const text = encode(body, enc);
  res.writeHead(code, {
    'Content-Type': enc.contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown, enc: Encoding = jsonEncoding): void {
  const status = isStatusError(err) ? err : newInternalError(err);
  if (status.code === 429 || status.code === 503 || status.code === 504) {
    const retry = status.details?.retryAfterSeconds;
    if (retry) res.setHeader('Retry-After', String(retry));
  }
  send(res, status.code || 500, status.toStatus(), enc);
}

// negotiation.go's isPrettyPrint: `?pretty=` as strconv.ParseBool reads it,
// else a User-Agent of a browser or a command-line HTTP tool.
export function prettyRequested(req: IncomingMessage, query: URLSearchParams): boolean {
  const pretty = query.get('pretty');
  if (pretty !== null && pretty !== '')
    return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pretty);
  const agent = req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** How an error is written: negotiated without transformations, JSON if nothing fits. */
export function errorEncoding(req: IncomingMessage, query: URLSearchParams): Encoding {
  try {
    const out = negotiateOutput(req.headers.accept, { allowConversion: false });
    return { contentType: out.mediaType, pretty: out.pretty || prettyRequested(req, query) };
  } catch {
    return jsonEncoding;
  }
}

/**
 * A method no go-restful route takes (discovery, `/version`): go-restful's
 * 405 with its Allow header, written by kube-apiserver's service error
 * handler (server/handler.go, serviceErrorHandler) as a Status.
 */
export function methodNotAllowed(
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): void {
  res.setHeader('Allow', 'GET');
  sendError(
    res,
    newGenericServerResponse({ code: 405, verb: req.method ?? '' }),
    errorEncoding(req, query),
  );
}
