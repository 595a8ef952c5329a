// A cap on requests being served at once, as kube-apiserver's
// --max-requests-inflight (400) and --max-mutating-requests-inflight (200)
// set it (staging/src/k8s.io/apiserver/pkg/server/filters/maxinflight.go,
// WithMaxInFlightLimit): long-running requests (watches, logs, exec) are not
// counted, and a request over the cap is answered 429 with Retry-After: 1.
import type { ServerResponse } from 'node:http';

/**
 * How many requests may be served at once.
 *
 * @category Server
 */
export interface InFlightLimits {
  /** Requests that only read (get, list); kube's default is 400. */
  readOnly: number;
  /** Requests that write; kube's default is 200. */
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

/** True for a request the cap does not count: a watch, or a streaming subresource. */
export function isLongRunning(verb: string, subresource: string | undefined): boolean {
  return (
    verb === 'watch' ||
    verb === 'proxy' ||
    (subresource !== undefined && longRunningSubresources.has(subresource))
  );
}

/** Counts requests in flight, read-only and mutating apart. */
export class InFlightLimiter {
  #readOnly = 0;
  #mutating = 0;

  constructor(private readonly limits: InFlightLimits = defaultInFlightLimits) {}

  /**
   * Admits a request with `verb` (get, list and watch read; anything else
   * writes). Returns the function to call once it is answered, or
   * `undefined` when the cap is reached.
   */
  admit(verb: string): (() => void) | undefined {
    const mutating = !['get', 'list', 'watch'].includes(verb);
    if (mutating ? this.#mutating >= this.limits.mutating : this.#readOnly >= this.limits.readOnly)
      return undefined;
    if (mutating) this.#mutating++;
    else this.#readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mutating) this.#mutating--;
      else this.#readOnly--;
    };
  }
}

/** maxinflight.go's tooManyRequests: Go's http.Error, plain text. */
export function sendTooManyRequests(res: ServerResponse): void {
  const text = 'Too many requests, please try again later.\n';
  res.writeHead(429, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Retry-After': '1',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
