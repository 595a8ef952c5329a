// What a reconciler receives and returns: controller-runtime's
// pkg/reconcile/reconcile.go (Request, Result, Reconciler). A request names
// one object; the reconciler reads the rest from the cache, which holds the
// latest state, so events are never passed along (the level-triggered
// design of every controller in kube-controller-manager).
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
