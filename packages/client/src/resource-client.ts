// A ResourceClient over HTTP for any group, version and resource: what
// client-go's dynamic client (dynamic/simple.go, dynamicResourceClient) does,
// keeping objects as the JSON the server sends. Responses go through the same
// checks as rest/request.go's transformResponse and Result.Into, after the
// retries of rest/with_retry.go (with-retry.ts).
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  StatusError,
  realClock,
  groupResourceString,
  groupVersionString,
  isStatus,
  type CreateOptions,
  type DeleteOptions,
  type GetOptions,
  type GroupVersionResource,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type Patch,
  type PatchOptions,
  type Clock,
  type ResourceClient,
  type UpdateOptions,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { errorFromResponse, mediaTypeOf } from './errors.js';
import { checkPathSegment, getQuery, listQuery, resourcePath, writeQuery } from './paths.js';
import {
  readBody,
  transportFor,
  type Exchange,
  type OutgoingRequest,
  type Transport,
} from './transport.js';
import type { DecodeHints } from './drop-managed-fields.js';
import { watchEvents } from './watch-stream.js';
import {
  defaultMaxRetries,
  retryBrokenGets,
  retryBrokenWatches,
  sendWithRetry,
  type IsRetryableErrorFunc,
} from './with-retry.js';
import {
  metadataAccept,
  metadataListAccept,
  toPartialObjectMetadata,
  toPartialObjectMetadataList,
} from './metadata.js';

/**
 * How {@link newResourceClient} treats a resource.
 *
 * @category Resource clients
 */
export interface ResourceClientOptions {
  /**
   * True for a namespaced resource (pods, deployments), false for a
   * cluster-scoped one (nodes, namespaces). Decides whether `create` and
   * `update` on an unscoped client take the object's `metadata.namespace`,
   * and whether `get`, `patch` and `delete` need a namespace.
   */
  namespaced: boolean;
  /**
   * The Kind of the resource's objects, such as `Deployment`. When given,
   * objects written without `apiVersion` or `kind` (in `create`, `update`,
   * `updateStatus` and apply patches) are sent with them filled in, as a
   * typed Go client would; the caller's object is not changed.
   */
  kind?: string;
  /**
   * The namespace the client starts in; unset or `''` for an unscoped client
   * (see {@link ResourceClient.inNamespace}).
   */
  namespace?: string;
  /**
   * Read and write metadata only, as client-go's metadata client does
   * (`k8s.io/client-go/metadata`): get, patch, delete and watch ask for
   * `meta.k8s.io/v1` PartialObjectMetadata and list for
   * PartialObjectMetadataList, with
   * `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`;
   * a server that answers with whole objects has them cut down to their
   * metadata. `create`, `update` and `updateStatus` reject, as the metadata
   * client has none. Use {@link Client.metadata} for a typed one.
   */
  metadataOnly?: boolean;
  /**
   * The `User-Agent` of this client's requests, as client-go's
   * `rest.Config.UserAgent` (kube-controller-manager gives each controller
   * its own: `kube-controller-manager/v1.32.0 ... /replicaset-controller`).
   * Default: kcm-ts's client user agent.
   */
  userAgent?: string;
  /**
   * How many times a request is sent again when the server answers 429, or
   * 5xx with a `Retry-After` header (after waiting the seconds it names), or
   * when a GET's connection breaks before the answer (after a second), as
   * client-go's REST client does (rest/with_retry.go); the last answer is
   * what the call returns or rejects with. Default {@link defaultMaxRetries}
   * (10); 0 sends every request once.
   */
  maxRetries?: number;
  /** The clock the retries wait on. Default the real clock. */
  clock?: Clock;
}

// The content type of each patch type (apimachinery pkg/types/patch.go).
const patchContentTypes: Record<Patch['type'], string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

type Method = OutgoingRequest['method'];

interface Call {
  method: Method;
  namespace: string | undefined;
  name?: string;
  subresource?: string;
  query?: URLSearchParams;
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal | undefined;
}

/**
 * A client for one resource of the cluster `kubeconfig` points at, such as
 * `{ group: 'apps', version: 'v1', resource: 'deployments' }`, implementing
 * `ResourceClient` from `@kcm-ts/apimachinery` over HTTP.
 *
 * Objects go out and come back as plain wire-format JSON (timestamps stay
 * strings; no model classes). Requests go to `/api/v1/...` for the core group
 * (`group: ''`) and to `/apis/{group}/{version}/...` otherwise, with
 * `namespaces/{namespace}/` when the client has a namespace. Credentials and
 * TLS come from client-node's `KubeConfig.applyToHTTPSOptions`, applied to
 * every request (so exec plugins and the in-cluster token can refresh), and
 * clients made from the same `KubeConfig` share keep-alive connections.
 *
 * Retries: a 429, or a 5xx with `Retry-After`, is sent again after the
 * seconds the server names, up to {@link ResourceClientOptions.maxRetries}
 * times (10), whatever the method; a GET whose connection breaks before the
 * answer is sent again after a second. Other failures are not retried.
 *
 * Errors: a response outside 2xx rejects with a `StatusError` (the server's
 * `Status` body when it sent one, else one derived from the HTTP code, as
 * client-go does), with a `Retry-After` header in `details.retryAfterSeconds`
 * (for a Status body, on a 429 or 5xx that names no delay of its own). A
 * failed connection rejects with the original error (such as
 * `ECONNREFUSED`), an aborted signal with `signal.reason`, and a bad name or
 * missing namespace with an `Error` before any request is sent.
 *
 * @typeParam T - the object type, such as `Deployment` from `kubernetes-types`.
 * @param kubeconfig - a client-node `KubeConfig`, such as {@link loadKubeConfig} returns.
 * @param gvr - the resource: its group (`''` for core), version and plural name.
 * @param opts - whether it is namespaced, its Kind, the starting namespace.
 * @throws TypeError when `gvr.version` or `gvr.resource` is empty; RangeError
 *   when `opts.maxRetries` is not an integer ≥ 0.
 *
 * @example
 * ```ts
 * const deployments = newResourceClient<Deployment>(
 *   loadKubeConfig(),
 *   { group: 'apps', version: 'v1', resource: 'deployments' },
 *   { namespaced: true, kind: 'Deployment' },
 * );
 * const web = await deployments.inNamespace('default').get('web');
 * ```
 *
 * @category Resource clients
 */
export function newResourceClient<T extends KubeObject = KubeObject>(
  kubeconfig: KubeConfig,
  gvr: GroupVersionResource,
  opts: ResourceClientOptions,
): ResourceClient<T> {
  if (gvr.version === '' || gvr.resource === '') {
    throw new TypeError(
      `newResourceClient: the version and resource may not be empty (got ${JSON.stringify(gvr)})`,
    );
  }
  const resource = { group: gvr.group, version: gvr.version, resource: gvr.resource };
  const namespace =
    opts.namespace === undefined || opts.namespace === '' ? undefined : opts.namespace;
  if (namespace !== undefined) checkPathSegment('namespace', namespace);
  const maxRetries = opts.maxRetries ?? defaultMaxRetries;
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(
      `newResourceClient: maxRetries must be an integer >= 0, got ${String(opts.maxRetries)}`,
    );
  }
  return new HttpResourceClient<T>(transportFor(kubeconfig), resource, {
    namespaced: opts.namespaced,
    kind: opts.kind,
    namespace,
    metadataOnly: opts.metadataOnly === true,
    userAgent: opts.userAgent,
    maxRetries,
    clock: opts.clock ?? realClock,
  });
}

/**
 * DeleteOptions as a request body, as kubectl and client-go's typed clients
 * send them; the field order is Go's (apis/meta/v1/types.go, DeleteOptions).
 */
function deleteOptionsBody(opts: DeleteOptions): string {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.preconditions !== undefined) {
    const { uid, resourceVersion } = opts.preconditions;
    body.preconditions = {
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    };
  }
  if (opts.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
  if (opts.dryRun !== undefined) body.dryRun = [opts.dryRun];
  return JSON.stringify(body);
}

/** What an {@link HttpResourceClient} was made with. */
interface ClientSettings {
  namespaced: boolean;
  kind: string | undefined;
  namespace: string | undefined;
  metadataOnly: boolean;
  userAgent: string | undefined;
  maxRetries: number;
  clock: Clock;
}

class HttpResourceClient<T extends KubeObject> implements ResourceClient<T> {
  readonly #transport: Transport;
  readonly #gvr: GroupVersionResource;
  readonly #settings: ClientSettings;
  readonly #namespaced: boolean;
  readonly #kind: string | undefined;
  readonly #metadataOnly: boolean;
  readonly namespace: string | undefined;

  constructor(transport: Transport, gvr: GroupVersionResource, settings: ClientSettings) {
    this.#transport = transport;
    this.#gvr = gvr;
    this.#settings = settings;
    this.#namespaced = settings.namespaced;
    this.#kind = settings.kind;
    this.#metadataOnly = settings.metadataOnly;
    this.namespace = settings.namespace;
  }

  inNamespace(namespace: string): ResourceClient<T> {
    if (namespace !== '') checkPathSegment('namespace', namespace);
    return new HttpResourceClient<T>(this.#transport, this.#gvr, {
      ...this.#settings,
      namespace: namespace === '' ? undefined : namespace,
    });
  }

  // What a metadata-only client asks for, and how it reads the answer.
  get #accept(): string | undefined {
    return this.#metadataOnly ? metadataAccept : undefined;
  }

  #object<R>(value: R): R {
    return (this.#metadataOnly ? toPartialObjectMetadata(value) : value) as R;
  }

  #noWrites(verb: string): void {
    if (this.#metadataOnly) {
      throw new Error(
        `${verb} ${this.#qualified()}: a metadata-only client reads, watches, patches and deletes; it cannot write whole objects`,
      );
    }
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    const list = await this.#call<ObjectList<T>>({
      method: 'GET',
      namespace: this.namespace,
      query: listQuery(opts, false),
      ...(this.#metadataOnly ? { accept: metadataListAccept } : {}),
      signal: opts.signal,
    });
    return this.#metadataOnly ? (toPartialObjectMetadataList(list) as ObjectList<T>) : list;
  }

  async watch(opts: ListOptions & DecodeHints = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    const accept = this.#accept;
    let exchange: Exchange;
    try {
      exchange = await this.#send(
        {
          method: 'GET',
          userAgent: this.#settings.userAgent,
          path: resourcePath(this.#gvr, this.namespace),
          query: listQuery(opts, true),
          ...(accept === undefined ? {} : { accept }),
          signal: opts.signal,
        },
        retryBrokenWatches,
      );
    } catch (err) {
      // Request.Watch: out of retries on a broken connection, hand back a
      // watch that has already ended; the caller will simply watch again.
      if (!isAborted(opts.signal) && retryBrokenWatches('GET', err)) return emptyWatch();
      throw err;
    }
    const code = exchange.res.statusCode ?? 0;
    if (code === 200) {
      const events = watchEvents<T>(
        exchange,
        'GET',
        opts.signal,
        opts.dropManagedFields === true && !this.#metadataOnly,
      );
      return this.#metadataOnly ? metadataEvents(events) : events;
    }
    const body = await readBody(exchange, opts.signal);
    if (code >= 200 && code <= 206) {
      // rest/request.go, Watch: any other success code is an error too.
      throw new Error(`for request ${exchange.url}, got status: ${code}`);
    }
    throw this.#error(exchange.res, 'GET', '', body);
  }

  async get(name: string, opts: GetOptions = {}): Promise<T> {
    const accept = this.#accept;
    return this.#object(
      await this.#call<T>({
        method: 'GET',
        namespace: this.#namespaceFor('get', name),
        name,
        query: getQuery(opts.resourceVersion),
        ...(accept === undefined ? {} : { accept }),
        signal: opts.signal,
      }),
    );
  }

  async create(obj: T, opts: CreateOptions = {}): Promise<T> {
    this.#noWrites('create');
    return this.#call<T>({
      method: 'POST',
      namespace: this.#namespaceOf('create', obj),
      query: writeQuery(opts),
      body: JSON.stringify(this.#withTypeMeta(obj)),
      signal: opts.signal,
    });
  }

  async update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    const { subresource, ...rest } = opts;
    return this.#put(obj, rest, 'update', subresource);
  }

  async updateStatus(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.#put(obj, opts, 'updateStatus', 'status');
  }

  async patch(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.#patch(name, patch, opts, 'patch', undefined);
  }

  async patchStatus(name: string, patch: Patch, opts: PatchOptions = {}): Promise<T> {
    return this.#patch(name, patch, opts, 'patchStatus', 'status');
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const accept = this.#accept;
    const out = await this.#call<T | Status>(
      {
        method: 'DELETE',
        namespace: this.#namespaceFor('delete', name),
        name,
        body: deleteOptionsBody(opts),
        contentType: 'application/json',
        ...(accept === undefined ? {} : { accept }),
        signal: opts.signal,
      },
      true,
    );
    return isStatus(out) ? out : this.#object(out);
  }

  async deleteCollection(opts: DeleteOptions = {}, listOpts: ListOptions = {}): Promise<void> {
    if (this.namespace === undefined && this.#namespaced) {
      throw new Error(
        `deletecollection ${this.#qualified()}: this client has no namespace; call inNamespace(namespace) first`,
      );
    }
    const { signal: _signal, ...selection } = listOpts;
    await this.#call<unknown>(
      {
        method: 'DELETE',
        namespace: this.namespace,
        query: listQuery(selection, false),
        body: deleteOptionsBody(opts),
        contentType: 'application/json',
        signal: opts.signal ?? listOpts.signal,
      },
      true,
    );
  }

  async #put(
    obj: T,
    opts: UpdateOptions,
    verb: string,
    subresource: string | undefined,
  ): Promise<T> {
    this.#noWrites(verb);
    const name = obj.metadata?.name ?? '';
    if (name === '') {
      throw new Error(`${verb} ${this.#qualified()}: the object has no metadata.name`);
    }
    return this.#call<T>({
      method: 'PUT',
      namespace: this.#namespaceOf(verb, obj),
      name,
      ...(subresource === undefined ? {} : { subresource }),
      query: writeQuery(opts),
      body: JSON.stringify(this.#withTypeMeta(obj)),
      signal: opts.signal,
    });
  }

  async #patch(
    name: string,
    patch: Patch,
    opts: PatchOptions,
    verb: string,
    subresource: string | undefined,
  ): Promise<T> {
    const contentType = patchContentTypes[patch.type] as string | undefined;
    if (contentType === undefined) {
      throw new Error(
        `${verb} ${this.#qualified()} ${JSON.stringify(name)}: unknown patch type ${JSON.stringify((patch as { type: unknown }).type)} (expected json, merge, strategic or apply)`,
      );
    }
    let body: string;
    let query: URLSearchParams;
    if (patch.type === 'apply') {
      // client-go checks this before sending too (dynamic/simple.go, Apply).
      if (typeof patch.fieldManager !== 'string' || patch.fieldManager === '') {
        throw new Error(
          `${verb} ${this.#qualified()} ${JSON.stringify(name)}: an apply patch needs a fieldManager`,
        );
      }
      body = JSON.stringify(this.#withTypeMeta(patch.body as T));
      query = writeQuery(opts, patch.fieldManager, patch.force);
    } else {
      body = JSON.stringify(patch.type === 'json' ? patch.ops : patch.body);
      query = writeQuery(opts);
    }
    const accept = this.#accept;
    return this.#object(
      await this.#call<T>({
        method: 'PATCH',
        namespace: this.#namespaceFor(verb, name),
        name,
        ...(subresource === undefined ? {} : { subresource }),
        query,
        body,
        contentType,
        ...(accept === undefined ? {} : { accept }),
        signal: opts.signal,
      }),
    );
  }

  #qualified(): string {
    return groupResourceString(this.#gvr);
  }

  // get, patch and delete name an object, so a namespaced resource needs a namespace.
  #namespaceFor(verb: string, name: string): string | undefined {
    checkPathSegment('resource name', name);
    if (this.namespace === undefined && this.#namespaced) {
      throw new Error(
        `${verb} ${this.#qualified()} ${JSON.stringify(name)}: this client has no namespace; call inNamespace(namespace) first`,
      );
    }
    return this.namespace;
  }

  // create and update: the client's namespace, else the object's.
  #namespaceOf(verb: string, obj: T): string | undefined {
    if (this.namespace !== undefined) return this.namespace;
    if (!this.#namespaced) return undefined;
    const ns = obj.metadata?.namespace ?? '';
    if (ns === '') {
      const name = obj.metadata?.name ?? obj.metadata?.generateName ?? '';
      throw new Error(
        `${verb} ${this.#qualified()} ${JSON.stringify(name)}: the object has no metadata.namespace and this client has none; set one or call inNamespace(namespace) first`,
      );
    }
    checkPathSegment('namespace', ns);
    return ns;
  }

  #withTypeMeta(obj: T): T {
    if (this.#kind === undefined || typeof obj !== 'object' || obj === null) return obj;
    if (obj.apiVersion !== undefined && obj.kind !== undefined) return obj;
    const { apiVersion, kind, ...rest } = obj;
    return {
      apiVersion: apiVersion ?? groupVersionString(this.#gvr),
      kind: kind ?? this.#kind,
      ...rest,
    } as T;
  }

  #error(res: Exchange['res'], verb: Method, name: string, body: Buffer): StatusError {
    return errorFromResponse({
      code: res.statusCode ?? 0,
      verb,
      contentType: res.headers['content-type'],
      retryAfter: headerValue(res.headers['retry-after']),
      body,
      resource: { group: this.#gvr.group, resource: this.#gvr.resource },
      name,
    });
  }

  // Sends `request`, and again as the server or a broken connection allows.
  #send(request: OutgoingRequest, isErrorRetryable: IsRetryableErrorFunc): Promise<Exchange> {
    return sendWithRetry(() => this.#transport.send(request), {
      method: request.method,
      maxRetries: this.#settings.maxRetries,
      clock: this.#settings.clock,
      signal: request.signal,
      isErrorRetryable,
    });
  }

  // One request-response round trip, as rest/request.go's Do, transformResponse
  // and Result.Into do it, after the retries the server asked for.
  async #call<R>(call: Call, statusIsResult = false): Promise<R> {
    const exchange = await this.#send(
      {
        method: call.method,
        userAgent: this.#settings.userAgent,
        path: resourcePath(this.#gvr, call.namespace, call.name, call.subresource),
        ...(call.query === undefined ? {} : { query: call.query }),
        ...(call.body === undefined ? {} : { body: call.body }),
        ...(call.contentType === undefined ? {} : { contentType: call.contentType }),
        ...(call.accept === undefined ? {} : { accept: call.accept }),
        signal: call.signal,
      },
      retryBrokenGets,
    );
    const body = await readBody(exchange, call.signal);
    const { res } = exchange;
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 206) throw this.#error(res, call.method, call.name ?? '', body);
    const what = `${call.method} ${exchange.url}`;
    if (body.length === 0) {
      throw new Error(
        `${what}: 0-length response with status code ${code} and content type ${res.headers['content-type'] ?? '(none)'}`,
      );
    }
    const media = mediaTypeOf(res.headers['content-type']);
    if (media !== '' && media !== 'application/json') {
      throw new Error(
        `${what}: expected an application/json response, got ${media} (status ${code})`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new Error(`${what}: the response (status ${code}) is not valid JSON`, { cause: err });
    }
    // Result.Into: a Status in a 2xx response is an error unless it reports
    // success (which is what delete returns when the object is gone at once).
    if (isStatus(parsed)) {
      if (parsed.status !== 'Success') throw StatusError.fromStatus(parsed, code);
      if (!statusIsResult) {
        throw new Error(
          `${what}: expected an object, got a Status (${parsed.message ?? 'no message'})`,
        );
      }
    }
    return parsed as R;
  }
}

// The events of a metadata-only watch, each object cut down to its metadata
// (a server that sent whole objects included); ERROR events pass as they are.
function metadataEvents<T>(events: AsyncIterable<WatchEvent<T>>): AsyncIterable<WatchEvent<T>> {
  return {
    [Symbol.asyncIterator]() {
      const inner = events[Symbol.asyncIterator]();
      return {
        async next() {
          const next = await inner.next();
          if (next.done === true || next.value.type === 'ERROR') return next;
          return {
            done: false,
            value: { type: next.value.type, object: toPartialObjectMetadata(next.value.object) },
          } as IteratorResult<WatchEvent<T>>;
        },
        async return() {
          return (await inner.return?.()) ?? { done: true, value: undefined };
        },
      };
    },
  };
}

/** A watch that has already ended: Go's `watch.NewEmptyWatch`. */
function emptyWatch<T>(): AsyncIterable<WatchEvent<T>> {
  return {
    async *[Symbol.asyncIterator]() {
      // nothing to report
    },
  };
}

// A function, so that TypeScript does not narrow `signal.aborted` across awaits.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
