// A ResourceClient over HTTP for any group, version and resource: what
// client-go's dynamic client (dynamic/simple.go, dynamicResourceClient) does,
// keeping objects as the JSON the server sends. Responses go through the same
// checks as rest/request.go's transformResponse and Result.Into.
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  StatusError,
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
import { watchEvents } from './watch-stream.js';

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
 * @throws TypeError when `gvr.version` or `gvr.resource` is empty.
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
  return new HttpResourceClient<T>(
    transportFor(kubeconfig),
    resource,
    opts.namespaced,
    opts.kind,
    namespace,
  );
}

class HttpResourceClient<T extends KubeObject> implements ResourceClient<T> {
  readonly #transport: Transport;
  readonly #gvr: GroupVersionResource;
  readonly #namespaced: boolean;
  readonly #kind: string | undefined;

  constructor(
    transport: Transport,
    gvr: GroupVersionResource,
    namespaced: boolean,
    kind: string | undefined,
    readonly namespace: string | undefined,
  ) {
    this.#transport = transport;
    this.#gvr = gvr;
    this.#namespaced = namespaced;
    this.#kind = kind;
  }

  inNamespace(namespace: string): ResourceClient<T> {
    if (namespace !== '') checkPathSegment('namespace', namespace);
    return new HttpResourceClient<T>(
      this.#transport,
      this.#gvr,
      this.#namespaced,
      this.#kind,
      namespace === '' ? undefined : namespace,
    );
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.#call<ObjectList<T>>({
      method: 'GET',
      namespace: this.namespace,
      query: listQuery(opts, false),
      signal: opts.signal,
    });
  }

  async watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<T>>> {
    const exchange = await this.#transport.send({
      method: 'GET',
      path: resourcePath(this.#gvr, this.namespace),
      query: listQuery(opts, true),
      signal: opts.signal,
    });
    const code = exchange.res.statusCode ?? 0;
    if (code === 200) return watchEvents<T>(exchange, 'GET', opts.signal);
    const body = await readBody(exchange, opts.signal);
    if (code >= 200 && code <= 206) {
      // rest/request.go, Watch: any other success code is an error too.
      throw new Error(`for request ${exchange.url}, got status: ${code}`);
    }
    throw this.#error(exchange.res, 'GET', '', body);
  }

  async get(name: string, opts: GetOptions = {}): Promise<T> {
    return this.#call<T>({
      method: 'GET',
      namespace: this.#namespaceFor('get', name),
      name,
      query: getQuery(opts.resourceVersion),
      signal: opts.signal,
    });
  }

  async create(obj: T, opts: CreateOptions = {}): Promise<T> {
    return this.#call<T>({
      method: 'POST',
      namespace: this.#namespaceOf('create', obj),
      query: writeQuery(opts),
      body: JSON.stringify(this.#withTypeMeta(obj)),
      signal: opts.signal,
    });
  }

  async update(obj: T, opts: UpdateOptions = {}): Promise<T> {
    return this.#put(obj, opts, 'update', undefined);
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
    // Sent as a body, as kubectl and client-go's typed clients do; the
    // field order is Go's (apis/meta/v1/types.go, DeleteOptions).
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
    return this.#call<T | Status>(
      {
        method: 'DELETE',
        namespace: this.#namespaceFor('delete', name),
        name,
        body: JSON.stringify(body),
        contentType: 'application/json',
        signal: opts.signal,
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
    return this.#call<T>({
      method: 'PATCH',
      namespace: this.#namespaceFor(verb, name),
      name,
      ...(subresource === undefined ? {} : { subresource }),
      query,
      body,
      contentType,
      signal: opts.signal,
    });
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

  // One request-response round trip, as rest/request.go's Do, transformResponse
  // and Result.Into do it.
  async #call<R>(call: Call, statusIsResult = false): Promise<R> {
    const exchange = await this.#transport.send({
      method: call.method,
      path: resourcePath(this.#gvr, call.namespace, call.name, call.subresource),
      ...(call.query === undefined ? {} : { query: call.query }),
      ...(call.body === undefined ? {} : { body: call.body }),
      ...(call.contentType === undefined ? {} : { contentType: call.contentType }),
      signal: call.signal,
    });
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

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
