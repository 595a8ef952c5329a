// What a reconciler receives and returns: controller-runtime's
// pkg/reconcile/reconcile.go (Request, Result, Reconciler, TerminalError).
// A request names one object; the reconciler reads the rest from the cache,
// which holds the latest state, so events are never passed along (the
// level-triggered design of every controller in kube-controller-manager).
import { splitMetaNamespaceKey } from '@kcm-ts/apimachinery';

/**
 * The object to reconcile: Go's `reconcile.Request`. `namespace` is `''` for
 * a cluster-scoped object.
 *
 * @category Controller builder
 */
export interface Request {
  /** The namespace, `''` for a cluster-scoped object. */
  readonly namespace: string;
  /** The name. */
  readonly name: string;
}

/**
 * What a reconcile asks for next: Go's `reconcile.Result`. Nothing (or
 * `undefined`) means done: the key's failure count is forgotten.
 * `requeueAfter` brings the key back after that many milliseconds (and also
 * forgets its failures); `requeue` brings it back after the rate limiter's
 * delay. Throwing an error retries with the rate limiter's backoff.
 *
 * @category Controller builder
 */
export type Result = void | undefined | Requeue;

/**
 * A reconcile's request to see its key again.
 *
 * @category Controller builder
 */
export interface Requeue {
  /** Reconcile the key again after this many milliseconds. */
  readonly requeueAfter?: number;
  /** Reconcile the key again after the rate limiter's delay. */
  readonly requeue?: boolean;
}

/**
 * Brings one object's world in line with its spec: Go's `reconcile.Reconciler`.
 * Called by one worker at a time per key; `signal` aborts when the
 * controller stops.
 *
 * @category Controller builder
 */
export type Reconciler = (request: Request, signal: AbortSignal) => Promise<Result> | Result;

/** `namespace/name`, or `name` when cluster-scoped: the queue's key of a request. */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/** The request a queue key names. */
export function requestOf(key: string): Request {
  const { namespace, name } = splitMetaNamespaceKey(key);
  return { namespace, name };
}

const terminalBrand = Symbol.for('@kcm-ts/manager.TerminalError');

/**
 * A failure that retrying cannot fix, such as a spec the controller cannot
 * act on: Go's `reconcile.TerminalError`. A reconciler that throws one has
 * its key forgotten instead of retried; the error is logged and counted in
 * `controller_runtime_terminal_reconcile_errors_total`. The key comes back
 * only with the next event of its object (or a resync). Throw it with
 * {@link terminalError}; recognise it with {@link isTerminalError}.
 *
 * @category Controller builder
 */
export class TerminalError extends Error {
  /** Marks the error across copies of this package (no `instanceof` needed). */
  readonly [terminalBrand] = true;

  /** @param cause - what went wrong */
  constructor(cause: unknown) {
    super(`terminal error: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'TerminalError';
  }
}

/**
 * Wraps `err` so that the controller does not retry it: Go's
 * `reconcile.TerminalError(err)`.
 *
 * @category Controller builder
 */
export function terminalError(err: unknown): TerminalError {
  return new TerminalError(err);
}

/**
 * True when `err`, or an error in its `cause` chain, is a
 * {@link TerminalError}: Go's `errors.Is(err, reconcile.TerminalError(nil))`.
 *
 * @category Controller builder
 */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 100; depth++) {
    if ((e as { [terminalBrand]?: unknown })[terminalBrand] === true) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
