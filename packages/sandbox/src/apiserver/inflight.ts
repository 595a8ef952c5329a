// What bounds the requests being served at once. kube-apiserver's
// --max-requests-inflight (400) and --max-mutating-requests-inflight (200)
// no longer cap each kind of request on their own: with priority and
// fairness their sum is the server's concurrency, shared among the priority
// levels (./flowcontrol/). Long-running requests (watches, logs, exec) hold
// no seat (server/options/server_run_options.go's long-running check), and a
// request refused is answered 429 with Retry-After as
// filters/priority-and-fairness.go's tooManyRequests writes it.
import type { ServerResponse } from 'node:http';

/**
 * How many requests may be served at once.
 *
 * @category Server
 */
export interface InFlightLimits {
  /** kube's --max-requests-inflight, default 400. */
  readOnly: number;
  /** kube's --max-mutating-requests-inflight, default 200. */
  mutating: number;
}

/** kube-apiserver's defaults. */
export const defaultInFlightLimits: Readonly<InFlightLimits> = Object.freeze({
  readOnly: 400,
  mutating: 200,
});

// server/options/server_run_options.go's long-running check: these verbs and
// subresources hold their connection open as long as the client wants.
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** True for a request that holds no seat: a watch, or a streaming subresource. */
export function isLongRunning(verb: string, subresource: string | undefined): boolean {
  return (
    verb === 'watch' ||
    verb === 'proxy' ||
    (subresource !== undefined && longRunningSubresources.has(subresource))
  );
}

/** priority-and-fairness.go's tooManyRequests: Go's http.Error, plain text. */
export function sendTooManyRequests(res: ServerResponse, retryAfter: number): void {
  const text = 'Too many requests, please try again later.\n';
  res.writeHead(429, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Retry-After': String(retryAfter),
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
