// Retrying what the server asked to have retried: client-go rest/with_retry.go
// (withRetry's IsNextRetry and Before, checkWait, retryAfterResponse) and the
// retry loops of rest/request.go (Request.request and Request.Watch, each with
// its own test of which failed connections may be retried).
//
// A 429, or a 5xx carrying Retry-After, is retried for every method: the
// server refused the request without acting on it and said when to come back
// (kube-apiserver's max-in-flight and priority-and-fairness filters answer
// so). A connection that breaks before any answer is retried only for GET,
// since a write may have been applied already; a watch also retries a timeout.
import type { Clock } from '@kcm-ts/apimachinery';
import { onAbort } from './abort-listeners.js';
import { parseRetryAfter } from './errors.js';
import { readBody, type Exchange } from './transport.js';

/**
 * How many times client-go's REST client retries one request by default
 * (rest/request.go, NewRequest: `maxRetries: 10`), so up to 11 attempts.
 *
 * @category Resource clients
 */
export const defaultMaxRetries = 10;

/** Decides whether a request whose connection failed with `err` may be sent again. */
export type IsRetryableErrorFunc = (method: string, err: unknown) => boolean;

/** What {@link sendWithRetry} needs besides the attempt itself. */
export interface RetryPolicy {
  /** The HTTP method, for {@link RetryPolicy.isErrorRetryable}. */
  method: string;
  /** The most retries after the first attempt; 0 sends once. */
  maxRetries: number;
  /** The clock the waits are measured on. */
  clock: Clock;
  /** Aborts the waits and the attempts. */
  signal: AbortSignal | undefined;
  /** Which failed connections may be retried. */
  isErrorRetryable: IsRetryableErrorFunc;
}

function errorCode(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/** A connection the peer reset: Go's `net.IsConnectionReset` (ECONNRESET). */
export function isConnectionReset(err: unknown): boolean {
  return errorCode(err) === 'ECONNRESET';
}

/**
 * A connection that ended before the answer did, in Node's terms: Go's
 * `net.IsProbableEOF` (an EOF, a reset by the peer, a write on a broken
 * connection). Node reports a keep-alive socket the server closed under a
 * request as `socket hang up` with the code ECONNRESET.
 */
export function isProbableEOF(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** A connection attempt that timed out: Go's `net.IsTimeout`, for watches. */
export function isTimeout(err: unknown): boolean {
  return errorCode(err) === 'ETIMEDOUT';
}

/**
 * Request.request's test: only a GET may be sent again after its connection
 * broke, since the server may already have applied a write.
 */
export const retryBrokenGets: IsRetryableErrorFunc = (method, err) =>
  method === 'GET' && (isConnectionReset(err) || isProbableEOF(err));

/** Request.Watch's test: a watch survives a broken or timed-out connection. */
export const retryBrokenWatches: IsRetryableErrorFunc = (_method, err) =>
  isProbableEOF(err) || isTimeout(err);

/**
 * The seconds the server asked to wait before a retry, or `undefined` when
 * the answer is not to be retried: only a 429 or a 5xx with a `Retry-After`
 * of whole seconds qualifies. Go's `checkWait`.
 */
export function checkWait(code: number, retryAfter: string | undefined): number | undefined {
  if (code !== 429 && code < 500) return undefined;
  return parseRetryAfter(retryAfter);
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Resolves after `ms` on `clock`; rejects with the signal's reason if it aborts first. */
function wait(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = clock.afterFunc(ms, () => {
      unsubscribe();
      resolve();
    });
    const unsubscribe = onAbort(signal, () => {
      timer.stop();
      reject(signal?.reason as Error);
    });
  });
}

/**
 * Sends a request with `attempt` and sends it again, up to
 * `policy.maxRetries` times, while the server answers 429 or 5xx with
 * `Retry-After` (waiting that many seconds, on `policy.clock`, first) or the
 * connection fails in a way `policy.isErrorRetryable` accepts (waiting one
 * second, as client-go pretends such a failure was a 500 with
 * `Retry-After: 1`). The body of an answer that is retried is read and
 * dropped, so its connection can serve the next attempt.
 *
 * Resolves with the last answer, whatever its status, for the caller to
 * read; rejects with the last connection error when that is not retried,
 * and with the signal's reason when it aborts during a wait.
 */
export async function sendWithRetry(
  attempt: () => Promise<Exchange>,
  policy: RetryPolicy,
): Promise<Exchange> {
  const { signal } = policy;
  for (let attempts = 1; ; attempts++) {
    let exchange: Exchange | undefined;
    let error: unknown;
    try {
      exchange = await attempt();
    } catch (err) {
      error = err;
    }
    let seconds: number | undefined;
    if (attempts <= policy.maxRetries && !isAborted(signal)) {
      if (exchange === undefined) {
        seconds = policy.isErrorRetryable(policy.method, error) ? 1 : undefined;
      } else {
        seconds = checkWait(
          exchange.res.statusCode ?? 0,
          header(exchange.res.headers['retry-after']),
        );
      }
    }
    if (seconds === undefined) {
      if (exchange === undefined) throw error;
      return exchange;
    }
    if (exchange !== undefined) {
      try {
        await readBody(exchange, signal);
      } catch {
        // What the refused answer said no longer matters.
      }
    }
    if (isAborted(signal)) throw signal?.reason;
    await wait(policy.clock, seconds * 1000, signal);
  }
}

// A function, so that TypeScript does not narrow `signal.aborted` across awaits.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
