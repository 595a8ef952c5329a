// What a controller author reaches for in a reconcile: controller-runtime's
// pkg/controller/controllerutil/controllerutil.go (SetControllerReference,
// AlreadyOwnedError, CreateOrUpdate, AddFinalizer, RemoveFinalizer,
// ContainsFinalizer), client-go's util/retry/util.go (RetryOnConflict,
// DefaultRetry, OnError) and server-side apply as controller-runtime's
// client.Apply patch sends it (a field manager, and force to take fields
// over).
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  getControllerOf,
  isConflict,
  isNotFound,
  newControllerRef,
  parseGroupVersion,
  realClock,
  semanticDeepEqual,
  type Clock,
  type GroupVersionKind,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';

/**
 * Thrown by {@link setControllerReference} when another object already
 * controls the object: Go's `AlreadyOwnedError`.
 *
 * @category Controller helpers
 */
export class AlreadyOwnedError extends Error {
  /** The controller reference already there. */
  readonly owner: OwnerReference;
  /**
   * @param obj - the object that was to get a controller
   * @param owner - its controller reference already there
   */
  constructor(obj: KubeObject, owner: OwnerReference) {
    super(
      `Object ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
    this.owner = owner;
  }
}

/**
 * Makes `owner` the controller of `obj` (an ownerReference with
 * `controller: true` and `blockOwnerDeletion: true`), replacing an earlier
 * reference to the same owner, so the garbage collector deletes `obj` with
 * its owner and `owns()` maps `obj`'s events to it. Go's
 * `SetControllerReference`. `gvk` is the owner's group, version and kind
 * (objects from a cache may lack `apiVersion` and `kind`).
 *
 * @throws {@link AlreadyOwnedError} when another object controls `obj`, and
 *   an `Error` for an owner across namespaces or a namespaced owner of a
 *   cluster-scoped object
 * @category Controller helpers
 */
export function setControllerReference<T extends KubeObject>(
  owner: KubeObject,
  obj: T,
  gvk: GroupVersionKind,
): T {
  const ownerNs = owner.metadata?.namespace ?? '';
  const objNs = obj.metadata?.namespace ?? '';
  if (ownerNs !== '') {
    if (objNs === '')
      throw new Error(
        "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace " +
          ownerNs,
      );
    if (ownerNs !== objNs)
      throw new Error(
        `cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`,
      );
  }
  if (!owner.metadata?.uid)
    throw new Error(`owner ${owner.metadata?.name ?? ''} has no uid yet: create it first`);
  const ref = newControllerRef(owner, gvk);
  const existing = getControllerOf(obj);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(obj, existing);
  const meta = (obj.metadata ??= {});
  const refs = (meta.ownerReferences ?? []).filter((r) => !sameOwner(r, ref));
  meta.ownerReferences = [...refs, ref];
  return obj;
}

/** Same group, kind and name: Go's `referSameObject`. */
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return (
    parseGroupVersion(a.apiVersion).group === parseGroupVersion(b.apiVersion).group &&
    a.kind === b.kind &&
    a.name === b.name
  );
}

/**
 * Whether `obj` lists `finalizer`. Go's `ContainsFinalizer`.
 *
 * @category Controller helpers
 */
export function containsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * Adds `finalizer` to `obj` unless it is there; true when `obj` changed and
 * must be written back. Go's `AddFinalizer`.
 *
 * @category Controller helpers
 */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  if (containsFinalizer(obj, finalizer)) return false;
  const meta = (obj.metadata ??= {});
  meta.finalizers = [...(meta.finalizers ?? []), finalizer];
  return true;
}

/**
 * Removes every `finalizer` entry from `obj`; true when `obj` changed. Go's
 * `RemoveFinalizer`.
 *
 * @category Controller helpers
 */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const before = obj.metadata?.finalizers;
  if (!before?.includes(finalizer)) return false;
  obj.metadata!.finalizers = before.filter((f) => f !== finalizer);
  return true;
}

/**
 * How {@link retryOnConflict} backs off: client-go's `wait.Backoff`.
 *
 * @category Controller helpers
 */
export interface Backoff {
  /** Attempts in all. */
  steps: number;
  /** The first wait, in ms. */
  duration: number;
  /** Multiplies the wait after each attempt. */
  factor: number;
  /** Adds up to this fraction of the wait at random. */
  jitter: number;
}

/**
 * client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart, with 10 % jitter.
 *
 * @category Controller helpers
 */
export const defaultRetry: Readonly<Backoff> = Object.freeze({
  steps: 5,
  duration: 10,
  factor: 1,
  jitter: 0.1,
});

/**
 * Options of {@link retryOnConflict} and {@link createOrUpdate}.
 *
 * @category Controller helpers
 */
export interface RetryOptions {
  /** Default {@link defaultRetry}. */
  backoff?: Backoff;
  /** What the waits run on. Default the real clock. */
  clock?: Clock;
  /** Stops waiting between attempts. */
  signal?: AbortSignal;
  /** Random source of the jitter. Default `Math.random`. */
  random?: () => number;
}

/**
 * Runs `fn` again, after the backoff's wait, each time it throws a 409
 * Conflict, at most `backoff.steps` times in all; other errors and the last
 * conflict are thrown. `fn` must read the object afresh each attempt. Go's
 * `RetryOnConflict`.
 *
 * @category Controller helpers
 */
export async function retryOnConflict<R>(
  fn: () => Promise<R>,
  opts: RetryOptions = {},
): Promise<R> {
  const b = opts.backoff ?? defaultRetry;
  if (!Number.isInteger(b.steps) || b.steps < 1)
    throw new RangeError(`backoff steps must be an integer >= 1, got ${b.steps}`);
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  let wait = b.duration;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || attempt >= b.steps || opts.signal?.aborted) throw err;
    }
    await clock.sleep(wait + (b.jitter > 0 ? wait * b.jitter * random() : 0), opts.signal);
    wait *= b.factor;
  }
}

/**
 * What {@link createOrUpdate} did. Go's `OperationResult`.
 *
 * @category Controller helpers
 */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/**
 * What {@link createOrUpdate} resolves with.
 *
 * @category Controller helpers
 */
export interface CreateOrUpdateResult<T> {
  /** What was done. */
  result: OperationResult;
  /** The object as the server returned it (as read, when unchanged). */
  object: T;
}

/**
 * Makes the object named by `obj`'s namespace and name look as `mutate`
 * says: reads it; when missing, mutates `obj` and creates it; otherwise
 * mutates the current object and updates it only if that changed anything.
 * Conflicts (another writer came between) are retried with a fresh read.
 * Go's `CreateOrUpdate` under `RetryOnConflict`. `mutate` must not change
 * the name or namespace.
 *
 * @returns what was done, and the object as the server returned it
 * @category Controller helpers
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  opts: RetryOptions = {},
): Promise<CreateOrUpdateResult<T>> {
  const name = obj.metadata?.name;
  if (!name) throw new Error('createOrUpdate needs an object with metadata.name');
  const ns = obj.metadata?.namespace;
  const c = ns && client.namespace !== ns ? client.inNamespace(ns) : client;
  const signal = opts.signal ? { signal: opts.signal } : {};
  return retryOnConflict(async () => {
    let current: T;
    try {
      current = await c.get(name, signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const fresh = structuredClone(obj);
      await mutateChecked(fresh, mutate);
      return { result: 'created' as const, object: await c.create(fresh, signal) };
    }
    // Compared as the API compares (key order, empty and absent alike), so
    // a server that sorts map keys does not cause a write every time.
    const before = structuredClone(current);
    await mutateChecked(current, mutate);
    if (semanticDeepEqual(current, before))
      return { result: 'unchanged' as const, object: current };
    return { result: 'updated' as const, object: await c.update(current, signal) };
  }, opts);
}

async function mutateChecked<T extends KubeObject>(
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
): Promise<void> {
  const { name, namespace } = obj.metadata ?? {};
  await mutate(obj);
  if (obj.metadata?.name !== name || obj.metadata?.namespace !== namespace)
    throw new Error('MutateFn cannot mutate object name and/or object namespace');
}

/**
 * Options of {@link apply}.
 *
 * @category Controller helpers
 */
export interface ApplyOptions {
  /** Take over fields another manager owns instead of failing with 409 Conflict. Default false. */
  force?: boolean;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/**
 * Server-side apply: sends `obj` (a partial object with `apiVersion`,
 * `kind` and `metadata.name`, holding only the fields this manager cares
 * about) as an apply patch under `fieldManager`. The server creates the
 * object when missing, sets the fields, and removes those this manager set
 * before and has now dropped. controller-runtime's `client.Apply` patch.
 *
 * @category Controller helpers
 */
export function apply<T extends KubeObject>(
  client: ResourceClient<T>,
  obj: T,
  fieldManager: string,
  opts: ApplyOptions = {},
): Promise<T> {
  const name = obj.metadata?.name;
  if (!obj.apiVersion || !obj.kind || !name)
    throw new Error('apply needs an object with apiVersion, kind and metadata.name');
  if (!fieldManager) throw new Error('apply needs a field manager');
  const ns = obj.metadata?.namespace;
  const c = ns && client.namespace !== ns ? client.inNamespace(ns) : client;
  return c.patch(
    name,
    { type: 'apply', body: obj, fieldManager, ...(opts.force ? { force: true } : {}) },
    { fieldManager, ...(opts.signal ? { signal: opts.signal } : {}) },
  );
}
