// The client interfaces every core package programs against: what client-go's
// cache.ListerWatcher (tools/cache/listwatch.go) and a typed or dynamic
// resource client (client-go/dynamic, ResourceInterface) offer, with options
// shaped like metav1.ListOptions and friends (apis/meta/v1/types.go).
// Types only: `@kcm-ts/client` implements them against a real API server,
// `@kcm-ts/sandbox` in process.
import type { ListMeta, Status } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from './object-meta.js';
import type { WatchEvent } from './watch.js';

/**
 * How `resourceVersion` constrains a list: `NotOlderThan` returns data at least
 * as new as it, `Exact` the data at exactly that version (410 Expired if it has
 * been compacted). Only meaningful with `resourceVersion` set.
 *
 * @category Client
 */
export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

/**
 * Options for {@link ListerWatcher.list} and {@link ListerWatcher.watch}: Go's
 * `metav1.ListOptions`, plus an abort signal.
 *
 * @category Client
 */
export interface ListOptions {
  /** Only objects whose labels match this label selector (see `parseSelector`). */
  labelSelector?: string;
  /** Only objects whose fields match this field selector (see `parseFieldSelector`). */
  fieldSelector?: string;
  /** List: the largest number of items to return; the rest come with `continue`. */
  limit?: number;
  /** List: the `metadata.continue` token of the previous page. */
  continue?: string;
  /**
   * List: unset for the most recent data; `'0'` for any data the server has
   * (possibly stale, cheapest); a version together with `resourceVersionMatch`.
   * Watch: unset or `'0'` to start with synthetic `ADDED` events for every
   * current object; a version to receive every change after it.
   */
  resourceVersion?: string;
  /** How `resourceVersion` constrains a list. */
  resourceVersionMatch?: ResourceVersionMatch;
  /** Watch: the server ends the stream after this many seconds. */
  timeoutSeconds?: number;
  /** Watch: ask for `BOOKMARK` events, which report progress without a change. */
  allowWatchBookmarks?: boolean;
  /**
   * Watch: start with `ADDED` events for the current state, then a `BOOKMARK`
   * with the `k8s.io/initial-events-end` annotation, then live changes (a
   * streaming list). Needs `resourceVersionMatch: 'NotOlderThan'` and
   * `allowWatchBookmarks: true`.
   */
  sendInitialEvents?: boolean;
  /**
   * Cancels the request. Before the response arrives the promise rejects with
   * `signal.reason`; a watch already under way simply ends.
   */
  signal?: AbortSignal;
}

/**
 * Options for {@link ResourceClient.get}.
 *
 * @category Client
 */
export interface GetOptions {
  /** Unset for the most recent version; `'0'` accepts any cached version. */
  resourceVersion?: string;
  /** Cancels the request; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * What the server does with unknown or duplicate fields in a written object:
 * drop them silently (`Ignore`), drop them with a warning (`Warn`, the server's
 * default), or reject the request (`Strict`).
 *
 * @category Client
 */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * Options for {@link ResourceClient.create}: Go's `metav1.CreateOptions`.
 *
 * @category Client
 */
export interface CreateOptions {
  /** `'All'` to run every stage of the request but persist nothing. */
  dryRun?: 'All';
  /** The name of the actor making the change, recorded in `managedFields`. */
  fieldManager?: string;
  /** How to treat unknown or duplicate fields. */
  fieldValidation?: FieldValidation;
  /** Cancels the request; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Options for {@link ResourceClient.update} and {@link ResourceClient.updateStatus}:
 * Go's `metav1.UpdateOptions`.
 *
 * @category Client
 */
export interface UpdateOptions {
  /**
   * Replace through this subresource instead of the object itself, such as
   * `finalize` for a namespace (Go's dynamic client takes the same as
   * `Update(obj, opts, subresources...)`). `updateStatus` is the shorthand
   * for `status`.
   */
  subresource?: string;
  /** `'All'` to run every stage of the request but persist nothing. */
  dryRun?: 'All';
  /** The name of the actor making the change, recorded in `managedFields`. */
  fieldManager?: string;
  /** How to treat unknown or duplicate fields. */
  fieldValidation?: FieldValidation;
  /** Cancels the request; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Options for {@link ResourceClient.patch} and {@link ResourceClient.patchStatus}:
 * Go's `metav1.PatchOptions`, less what {@link ApplyPatch} carries itself.
 *
 * @category Client
 */
export interface PatchOptions {
  /** `'All'` to run every stage of the request but persist nothing. */
  dryRun?: 'All';
  /**
   * The name of the actor making the change, recorded in `managedFields`. For
   * an {@link ApplyPatch}, its own `fieldManager` is used instead.
   */
  fieldManager?: string;
  /** How to treat unknown or duplicate fields. */
  fieldValidation?: FieldValidation;
  /** Cancels the request; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * What happens to an object's dependents (the objects whose ownerReferences
 * point at it) when it is deleted: they are left alone (`Orphan`), deleted by
 * the garbage collector afterwards (`Background`), or deleted first, the owner
 * waiting for them (`Foreground`).
 *
 * @category Client
 */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/**
 * Conditions a delete must meet, or it fails with 409 Conflict.
 *
 * @category Client
 */
export interface Preconditions {
  /** The object must have this uid (it is not a newer object of the same name). */
  uid?: string;
  /** The object must be at this resourceVersion (nobody changed it since it was read). */
  resourceVersion?: string;
}

/**
 * Options for {@link ResourceClient.delete}: Go's `metav1.DeleteOptions`.
 *
 * @category Client
 */
export interface DeleteOptions {
  /**
   * Seconds the object may take to terminate; `0` deletes at once. Unset uses
   * the object's default (30 s for a pod, immediate for most kinds).
   */
  gracePeriodSeconds?: number;
  /** What happens to dependents; the default depends on the resource. */
  propagationPolicy?: PropagationPolicy;
  /** Conditions the object must meet to be deleted. */
  preconditions?: Preconditions;
  /** `'All'` to run every stage of the request but persist nothing. */
  dryRun?: 'All';
  /** Cancels the request; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * One operation of a JSON Patch (RFC 6902). `path` and `from` are JSON Pointers
 * (RFC 6901), such as `/spec/replicas`.
 *
 * @category Client
 */
export interface JsonPatchOperation {
  /** The operation. */
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  /** Where the operation applies. */
  path: string;
  /** For `move` and `copy`: where the value comes from. */
  from?: string;
  /** For `add`, `replace` and `test`: the value. */
  value?: unknown;
}

/**
 * A JSON Patch (RFC 6902), sent as `application/json-patch+json`: a list of
 * operations applied in order; a failing `test` rejects the whole patch.
 *
 * @category Client
 */
export interface JsonPatch {
  /** Selects this kind of patch. */
  type: 'json';
  /** The operations, applied in order. */
  ops: JsonPatchOperation[];
}

/**
 * A JSON Merge Patch (RFC 7386), sent as `application/merge-patch+json`: the
 * fields to change, `null` to remove one; lists are replaced whole.
 *
 * @category Client
 */
export interface MergePatch {
  /** Selects this kind of patch. */
  type: 'merge';
  /** The partial object to merge in. */
  body: object;
}

/**
 * A strategic merge patch, sent as `application/strategic-merge-patch+json`:
 * like a merge patch, but lists of named items (containers, conditions) are
 * merged by key. Built-in kinds only; custom resources reject it.
 *
 * @category Client
 */
export interface StrategicMergePatch {
  /** Selects this kind of patch. */
  type: 'strategic';
  /** The partial object to merge in. */
  body: object;
}

/**
 * A server-side apply, sent as `application/apply-patch+yaml` (JSON is valid
 * YAML): the full intent of one field manager, which the server merges with
 * the other managers' fields and records in `managedFields`.
 *
 * @category Client
 */
export interface ApplyPatch {
  /** Selects this kind of patch. */
  type: 'apply';
  /** The object as this manager wants it, with `apiVersion`, `kind` and `metadata.name`. */
  body: object;
  /** The field manager applying; required by the server for apply. */
  fieldManager: string;
  /** Take over fields owned by other managers instead of failing with 409 Conflict. */
  force?: boolean;
}

/**
 * A patch, with its type: the four content types the API server accepts.
 *
 * @category Client
 */
export type Patch = JsonPatch | MergePatch | StrategicMergePatch | ApplyPatch;

/**
 * A page of a list, in wire format: `PodList`, `DeploymentList`, ...
 *
 * @category Client
 */
export interface ObjectList<T> {
  /** The group and version, such as `apps/v1`. */
  apiVersion: string;
  /** The list kind, such as `DeploymentList`. */
  kind: string;
  /**
   * `resourceVersion`: the version of the data, where a watch can pick up;
   * `continue`: the token for the next page, if any; `remainingItemCount`: an
   * estimate of the items left, when the server knows it.
   */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}

/**
 * Lists and watches one resource: what an informer's reflector needs. Go's
 * `cache.ListerWatcher`.
 *
 * Both methods reject with a {@link StatusError} when the server answers with
 * an error status (4xx or 5xx), and with `signal.reason` when `opts.signal`
 * aborts before the response.
 *
 * @category Client
 */
export interface ListerWatcher<T> {
  /** Lists the objects matching `opts`: one page when `opts.limit` is set. */
  list(opts?: ListOptions): Promise<ObjectList<T>>;
  /**
   * Starts a watch. The promise resolves once the server has accepted it, with
   * an iterable of its events, and rejects with a {@link StatusError} if the
   * server refuses it (such as 410 Expired for a resourceVersion too old, when
   * the server says so in the response status rather than in the stream).
   *
   * The iterable can be iterated once, and iterating it never throws:
   *
   * - an `ERROR` event reports a failure the server sends in the stream
   *   (kube-apiserver reports a too old resourceVersion this way: HTTP 200,
   *   then an `ERROR` event with a 410 Expired `Status`); the stream ends
   *   right after it;
   * - otherwise the iterable ends when the server closes the stream (at
   *   `timeoutSeconds`, or at will) or the connection breaks, and when
   *   `opts.signal` aborts;
   * - leaving a `for await` loop early (`break`, `return`, a throw) closes the
   *   stream and releases the connection.
   */
  watch(opts?: ListOptions): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * Reads and writes one resource (pods, apps/v1 deployments, ...), in one
 * namespace or, unscoped, across all: what a typed clientset or Go's dynamic
 * `ResourceInterface` offers. Objects go in and come out in wire format.
 *
 * Every method rejects with a {@link StatusError} when the server answers with
 * an error status (4xx or 5xx), and with `signal.reason` when `opts.signal`
 * aborts before the response.
 *
 * On an unscoped client for a namespaced resource, `list` and `watch` cover all
 * namespaces and `create`, `update` and `updateStatus` use the object's
 * `metadata.namespace`; `get`, `patch`, `patchStatus` and `delete` need a
 * namespace, so call {@link ResourceClient.inNamespace} first.
 *
 * @example
 * ```ts
 * async function scale(deployments: ResourceClient<Deployment>, name: string, replicas: number) {
 *   await deployments.inNamespace('default').patch(name, {
 *     type: 'merge',
 *     body: { spec: { replicas } },
 *   });
 * }
 * ```
 *
 * @category Client
 */
export interface ResourceClient<T extends KubeObject = KubeObject> extends ListerWatcher<T> {
  /** The namespace requests go to; `undefined` for an unscoped client. */
  readonly namespace: string | undefined;
  /**
   * A client for the same resource in `namespace`. `''` gives the unscoped
   * client (Go's `NamespaceAll`). For a cluster-scoped resource, a namespaced
   * client's requests fail with 404 NotFound, as the server answers.
   */
  inNamespace(namespace: string): ResourceClient<T>;
  /** Reads the object called `name`; 404 NotFound if there is none. */
  get(name: string, opts?: GetOptions): Promise<T>;
  /**
   * Creates `obj` (named by `metadata.name`, or generated from
   * `metadata.generateName`) and resolves with it as stored, with uid,
   * resourceVersion and defaults filled in; 409 AlreadyExists if the name is
   * taken, 422 Invalid if validation fails.
   */
  create(obj: T, opts?: CreateOptions): Promise<T>;
  /**
   * Replaces the object named by `obj.metadata.name` (its status is ignored:
   * use {@link ResourceClient.updateStatus}). With `metadata.resourceVersion`
   * set, the update fails with 409 Conflict unless the stored object is still
   * at that version.
   */
  update(obj: T, opts?: UpdateOptions): Promise<T>;
  /** Replaces only the `status` of the object, through the status subresource. */
  updateStatus(obj: T, opts?: UpdateOptions): Promise<T>;
  /** Patches the object called `name` (its status is ignored); 404 NotFound if there is none. */
  patch(name: string, patch: Patch, opts?: PatchOptions): Promise<T>;
  /** Patches only the `status` of the object, through the status subresource. */
  patchStatus(name: string, patch: Patch, opts?: PatchOptions): Promise<T>;
  /**
   * Deletes the object called `name`. Resolves with a success `Status` when the
   * object is gone at once, or with the object, now carrying a
   * `deletionTimestamp`, when finalizers or a grace period keep it a while
   * longer (tell them apart with `isStatus`). 404 NotFound if there is none.
   */
  delete(name: string, opts?: DeleteOptions): Promise<T | Status>;
  /**
   * Deletes every object `listOpts` selects in one request (Go's
   * `DeleteCollection`): in the client's namespace for a namespaced
   * resource (the server refuses it across all namespaces), each object as
   * `opts` says. 405 MethodNotAllowed where the resource does not support it.
   */
  deleteCollection(opts?: DeleteOptions, listOpts?: ListOptions): Promise<void>;
}
