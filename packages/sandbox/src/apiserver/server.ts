// The HTTP face of the sandbox: kube-apiserver's handler chain
// (staging/src/k8s.io/apiserver/pkg/server/config.go,
// DefaultBuildHandlerChain: public paths, authentication, the request
// timeout, priority and fairness),
// discovery, and the routes of installer.go
// (staging/src/k8s.io/apiserver/pkg/endpoints/installer.go, registerResourceHandlers)
// that hand each resource request to its verb's handler in handlers/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newTimeoutError, newUnauthorized, realClock } from '@kcm-ts/apimachinery';
import {
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiDocument,
  openApiIndex,
  wantsAggregatedDiscovery,
} from './discovery.js';
import type { FaultLab } from '../lab/faults.js';
import type { Registry } from './registry/store.js';
import type { Verb } from './resources.js';
import { TokenAuthenticator, bearerToken, type StaticToken, type UserInfo } from './authn.js';
import { forbidden } from './authorization/authorizer.js';
import { impersonate } from './authorization/impersonation.js';
import type { Attributes } from './authorization/rbac.js';
import { defaultInFlightLimits, isLongRunning, sendTooManyRequests } from './inflight.js';
import { PriorityAndFairness } from './flowcontrol/priority-and-fairness.js';
import { listSeats, minimumSeats } from './flowcontrol/work-estimator.js';
import type { InFlightLimits } from './inflight.js';
import type { ContainerLogs } from '../node/container-logs.js';
import { negotiateOutput } from './negotiation.js';
import { boolParam } from './query-params.js';
import { transformResponse } from './response.js';
import { FlushRounds } from './flush-rounds.js';
import { parseIncludeObject } from '../printers/index.js';
import {
  checkPathSegment,
  parseTarget,
  requestInfo,
  route,
  verbOf,
  type Route,
  type Target,
} from './request-info.js';
import {
  notFoundPath,
  verbNotAllowed,
  type ObjectScope,
  type RequestScope,
} from './handlers/rest.js';
import {
  errorEncoding,
  jsonEncoding,
  methodNotAllowed,
  prettyRequested,
  send,
  sendError,
} from './handlers/writers.js';
import { getResource, listResource } from './handlers/get.js';
import { watchResource, type WatchServing } from './handlers/watch.js';
import { createResource } from './handlers/create.js';
import { updateResource } from './handlers/update.js';
import { patchResource } from './handlers/patch.js';
import { deleteCollection, deleteResource } from './handlers/delete.js';
import { servePodStream, serveSubresource } from './handlers/subresources.js';

export { maxRequestBodyBytes } from './handlers/rest.js';

/**
 * The body of `/version` (apimachinery's `version.Info`).
 *
 * @category Server
 */
export interface ServerVersion {
  /** The major version, `'1'`. */
  major: string;
  /** The minor version; kubectl picks its own build from it. */
  minor: string;
  /** The full version string. */
  gitVersion: string;
  /** The commit the server was built from. */
  gitCommit: string;
  /** `'clean'` or `'dirty'`. */
  gitTreeState: string;
  /** When the server was built, RFC 3339. */
  buildDate: string;
  /** The Go toolchain kube-apiserver would have been built with. */
  goVersion: string;
  /** The Go compiler. */
  compiler: string;
  /** `os/arch`. */
  platform: string;
}

/** The `/version` the sandbox reports: a 1.32 server. */
export const serverVersion: Readonly<ServerVersion> = Object.freeze({
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0+kcm-ts',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.3',
  compiler: 'gc',
  platform: 'linux/amd64',
});

/** Options for {@link apiHandler}. */
export interface ApiHandlerOptions {
  /** The bearer token every request but health and version checks must carry; none if unset. */
  token?: string;
  /** More tokens, each with its own user (the controller manager's). */
  tokens?: readonly StaticToken[];
  /**
   * How long a request other than a watch or a log stream may take, in ms,
   * before it is answered 504 and its seat given back (kube-apiserver's
   * `--request-timeout`, 60 s). A request waits in a priority level's queue
   * for at most a quarter of it.
   */
  requestTimeout?: number;
  /** `host:port` for legacy discovery's serverAddressByClientCIDRs. */
  serverAddress: string;
  /** Called with every request, after it is answered (for logs and tests). */
  onRequest?: (method: string, url: string, code: number) => void;
  /** Faults to inject into resource requests (see {@link FaultLab}). */
  faults?: FaultLab;
  /**
   * The server's concurrency, which priority and fairness shares among its
   * levels: their sum, as kube-apiserver's 400 read-only and 200 mutating.
   */
  inFlightLimits?: InFlightLimits;
  /** Bytes a watch may have waiting for a client that does not read before it is cut off; default 8 MiB. */
  watchBufferBytes?: number;
  /**
   * The simulated containers' output, served as `pods/log`; without it logs are empty.
   *
   * @internal
   */
  podLogs?: ContainerLogs;
}

/**
 * The least time between two rounds of writes to the watch streams, in real
 * milliseconds: under a burst of changes each write carries the events of
 * this long, and a watcher sees an event at most this much later.
 */
const watchFlushInterval = 5;

/** How many bytes a watch may have unread before the watcher is closed. */
export const defaultWatchBufferBytes = 8 * 1024 * 1024;

/**
 * The request handler of the sandbox API server, for `http.createServer` or
 * `https.createServer`.
 */
export function apiHandler(
  registry: Registry,
  opts: ApiHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const authn = new TokenAuthenticator(opts.token, opts.tokens);
  const limits = opts.inFlightLimits ?? defaultInFlightLimits;
  const requestTimeout = opts.requestTimeout ?? defaultRequestTimeout;
  const apf = new PriorityAndFairness({
    serverConcurrencyLimit: limits.readOnly + limits.mutating,
    clock: realClock,
    requestWaitLimitMs: Math.min(requestTimeout / 4, 60_000),
  });
  const serving: WatchServing = {
    rounds: new FlushRounds(watchFlushInterval),
    bufferBytes: opts.watchBufferBytes ?? defaultWatchBufferBytes,
    ...(opts.faults ? { faults: opts.faults } : {}),
  };

  // The filters kube-apiserver runs before any handler, in its order: public
  // paths, authentication, the request timeout, priority and fairness.
  async function filters(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
    if (servePublic(req, res, target)) return;
    const token = bearerToken(req.headers.authorization);
    // A ServiceAccount token is checked first: with no static token set,
    // the static authenticator takes every request as the admin's.
    const account =
      token === undefined
        ? undefined
        : registry.serviceAccountTokens.authenticate(token, registry.clock.now());
    const authenticated: UserInfo | undefined = account
      ? {
          username: account.username,
          groups: account.groups,
          uid: account.uid ?? '',
          ...(account.extra ? { extra: account.extra } : {}),
        }
      : authn.authenticateToken(token);
    if (!authenticated) return send(res, 401, newUnauthorized('Unauthorized').toStatus());
    // The sandbox's own identities keep every right, impersonating included.
    const privileged = account === undefined;
    const acting = impersonate(authenticated, req.headers, (attrs) =>
      privileged ? { allowed: true, reason: '' } : registry.authorize(attrs),
    );
    const user = acting.user;
    const checked = privileged && !acting.impersonated ? undefined : user;
    const info = requestInfo(req.method ?? 'GET', target);
    if (isLongRunning(info.verb, info.subresource || undefined))
      return handle(req, res, target, user, checked);
    timeOut(req, res, target.query, requestTimeout);
    const classification = apf.classify({ user, ...info });
    const seats =
      info.verb === 'list' && info.resourceInfo
        ? listSeats(
            {
              verb: info.verb,
              name: info.name,
              query: target.query,
              storedObjects: registry.storage.count(info.resourceInfo.storage),
            },
            apf.maxSeats(classification.priorityLevel),
          )
        : minimumSeats;
    const left = new AbortController();
    res.once('close', () => left.abort());
    const admission = await apf.start(classification, seats, left.signal);
    if (!admission.admitted) {
      if (res.headersSent || res.destroyed) return;
      closeIfBodyUnread(req, res);
      sendTooManyRequests(res, admission.retryAfter);
      return;
    }
    if (res.destroyed) return admission.finish();
    res.once('close', admission.finish);
    return handle(req, res, target, user, checked);
  }

  // `checked` is the user RBAC decides for (a ServiceAccount or someone
  // impersonated); undefined for the sandbox's own identities.
  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    user: UserInfo,
    checked: UserInfo | undefined,
  ): Promise<void> {
    if (checked) {
      const attrs = authorizationAttributes(checked, req.method ?? 'GET', target);
      const decision = registry.authorize(attrs);
      if (!decision.allowed) throw forbidden(attrs, decision.reason);
    }
    if (target.segments.includes('')) throw notFoundPath();
    if (target.path === '/debug/api_priority_and_fairness/dump_priority_levels') {
      if (req.method !== 'GET') return methodNotAllowed(req, res, target.query);
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(apf.dumpPriorityLevels());
      return;
    }
    if (serveDiscovery(req, res, target, opts.serverAddress)) return;
    const base = { ...routeResource(req, res, target, registry), user };
    if (opts.faults) {
      const { group, resource } = base.info;
      await opts.faults.beforeRequest(base.verb as Verb, { group, resource }, base.name ?? '');
    }
    if (base.name !== undefined && servePodStream({ ...base, name: base.name }, opts.podLogs))
      return;
    return dispatch(negotiated(base), serving);
  }

  return (req, res) => {
    if (opts.onRequest) observe(req, res, opts.onRequest);
    let target: Target | undefined;
    try {
      target = parseTarget(req.url);
      const t = target;
      filters(req, res, t).catch((err: unknown) => fail(req, res, err, t.query));
    } catch (err) {
      fail(req, res, err, target?.query);
    }
  };
}

/**
 * The authorizer's attributes of a request (authorization.go,
 * GetAuthorizerAttributes over RequestInfo); a namespace's own requests
 * are in that namespace, as RequestInfo puts them.
 */
function authorizationAttributes(user: UserInfo, method: string, target: Target): Attributes {
  const info = requestInfo(method, target);
  const ownNamespace = info.apiGroup === '' && info.resource === 'namespaces' && info.name !== '';
  return {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    namespace: ownNamespace ? info.name : info.namespace,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    path: info.path,
  };
}

/** kube-apiserver's `--request-timeout`. */
const defaultRequestTimeout = 60_000;

/**
 * The timeout filter (filters/timeout.go, WithTimeoutForNonLongRunningRequests):
 * a request not answered within `ms` gets a 504, its seat goes back, and a
 * body still on its way is no longer read; one already being written is
 * cut off.
 */
function timeOut(req: IncomingMessage, res: ServerResponse, query: URLSearchParams, ms: number) {
  const timer = setTimeout(() => {
    if (res.writableEnded || res.destroyed) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const err = newTimeoutError(
      'request did not complete within requested timeout - context deadline exceeded',
      0,
    );
    closeIfBodyUnread(req, res);
    sendError(res, err, errorEncoding(req, query));
  }, ms);
  res.once('close', () => clearTimeout(timer));
}

/**
 * An answer given before the request's body was read (refused, timed out)
 * ends the connection, as Go's server does with a body it will not drain:
 * a client stalling its body keeps nothing open once answered.
 */
function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.destroy());
}

/** The paths anyone may ask for, before authentication: the health checks and `/version`. */
function servePublic(req: IncomingMessage, res: ServerResponse, target: Target): boolean {
  const path = target.path.replace(/\/+$/, '') || '/';
  if (
    ['/healthz', '/livez', '/readyz'].includes(path) ||
    /^\/(healthz|livez|readyz)\/[a-z-]+$/.test(path)
  ) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return true;
  }
  if (path !== '/version') return false;
  if (req.method !== 'GET') methodNotAllowed(req, res, target.query);
  else send(res, 200, serverVersion);
  return true;
}

/**
 * No request may end the process: whatever a handler throws, synchronously
 * or not, becomes a Status answer (or a cut connection once the head is out).
 */
function fail(req: IncomingMessage, res: ServerResponse, err: unknown, query?: URLSearchParams) {
  try {
    // Already answered (the request timed out, say): nothing is left to say.
    if (res.writableEnded) return;
    if (res.headersSent) res.destroy();
    else sendError(res, err, query ? errorEncoding(req, query) : jsonEncoding);
  } catch {
    res.destroy();
  }
}

/** Reports each request once answered; a failing observer must not take the server down. */
function observe(
  req: IncomingMessage,
  res: ServerResponse,
  onRequest: (method: string, url: string, code: number) => void,
): void {
  res.on('finish', () => {
    try {
      onRequest(req.method ?? '', req.url ?? '', res.statusCode);
    } catch {
      // ignored on purpose
    }
  });
}

/**
 * Discovery and OpenAPI, served by go-restful routes registered for GET
 * alone. True when the request was one of them.
 */
function serveDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  serverAddress: string,
): boolean {
  const path = target.path.replace(/\/+$/, '') || '/';
  const { segments, query } = target;
  const groupVersion =
    (segments[0] === 'api' && segments.length === 2) ||
    (segments[0] === 'apis' && segments.length === 3);
  const group = segments[0] === 'apis' && segments.length === 2;
  const root = path === '/api' || path === '/apis';
  if (!root && !group && !groupVersion && segments[0] !== 'openapi') return false;
  if ((root || group || groupVersion) && req.method !== 'GET') {
    methodNotAllowed(req, res, query);
    return true;
  }
  const doc = root
    ? rootDiscovery(req, res, path === '/api', serverAddress)
    : group
      ? apiGroupDocument(segments[1] ?? '')
      : groupVersion
        ? segments[0] === 'api'
          ? apiResourceList('', segments[1] ?? '')
          : apiResourceList(segments[1] ?? '', segments[2] ?? '')
        : openApi(segments);
  if (doc === 'sent') return true;
  if (!doc) throw notFoundPath();
  send(res, 200, doc);
  return true;
}

/** `/api` and `/apis`: aggregated discovery when asked for, else the legacy documents. */
function rootDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  legacy: boolean,
  serverAddress: string,
): unknown {
  if (wantsAggregatedDiscovery(req.headers.accept)) {
    send(res, 200, aggregatedDiscovery(legacy), { contentType: aggregatedDiscoveryContentType });
    return 'sent';
  }
  return legacy ? apiVersions(serverAddress) : apiGroupList();
}

function openApi(segments: string[]): unknown {
  if (segments[1] !== 'v3') return undefined;
  return segments.length === 2 ? openApiIndex() : openApiDocument(segments.slice(2).join('/'));
}

/** A resource request routed as installer.go registers routes: 404 and 405 where it has none. */
function routeResource(
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  registry: Registry,
): Omit<RequestScope, 'output' | 'ctx' | 'encoding' | 'reply' | 'user'> {
  const { segments, query } = target;
  const method = req.method ?? 'GET';
  const r: Route | 'unknown' | undefined = route(segments);
  if (!r || r === 'unknown') throw notFoundPath();
  const { info, namespace, name, subresource } = r;
  if (subresource && !(info.subresources as readonly string[]).includes(subresource))
    throw notFoundPath();
  if (info.namespaced && segments.includes('namespaces') && !namespace) throw notFoundPath();
  if (namespace) checkPathSegment('Namespace', namespace);
  if (name !== undefined) checkPathSegment('Name', name);
  const watching = !name && method === 'GET' && boolParam(query, 'watch') === true;
  const verb = verbOf(method, name, watching);
  // Only list and watch are registered on a namespaced resource's
  // all-namespaces path: a write there would reach every namespace.
  if (info.namespaced && !namespace) {
    if (name !== undefined) throw notFoundPath();
    if (method !== 'GET') throw verbNotAllowed(verb, info);
  }
  // A route per verb the storage supports.
  if (!subresource && !(info.verbs as readonly string[]).includes(verb))
    throw verbNotAllowed(verb, info);
  return {
    req,
    res,
    registry,
    info,
    namespace,
    ...(name !== undefined ? { name } : {}),
    ...(subresource ? { subresource } : {}),
    query,
    verb,
  };
}

/** The scope with its negotiated output: every handler negotiates first (handlers/get.go, create.go...). */
function negotiated(
  base: Omit<RequestScope, 'output' | 'ctx' | 'encoding' | 'reply'>,
): RequestScope {
  const { req, res, query, info, subresource, registry } = base;
  const output = negotiateOutput(req.headers.accept, { stream: base.verb === 'watch' });
  const ctx = {
    resource: subresource ? `${info.resource}/${subresource}` : info.resource,
    group: info.group,
    now: registry.clock.now(),
    includeObject:
      output.convert?.kind === 'Table'
        ? parseIncludeObject(query.get('includeObject'))
        : ('Metadata' as const),
  };
  const encoding = {
    contentType: output.mediaType,
    pretty: output.pretty || prettyRequested(req, query),
  };
  return {
    ...base,
    output,
    ctx,
    encoding,
    reply: (code, result) =>
      send(res, code, transformResponse(result, output.convert, ctx), encoding),
  };
}

/** Hands a routed request to its verb's handler. */
async function dispatch(scope: RequestScope, serving: WatchServing): Promise<void> {
  const method = scope.req.method;
  if (scope.name === undefined) {
    // The collection: list, watch, create, deletecollection.
    if (scope.verb === 'watch') return watchResource(scope, serving);
    if (method === 'GET') return listResource(scope);
    if (method === 'POST') return createResource(scope);
    if (method === 'DELETE') return deleteCollection(scope);
    throw verbNotAllowed(scope.verb, scope.info);
  }
  const one: ObjectScope = { ...scope, name: scope.name };
  if (await serveSubresource(one)) return;
  switch (method) {
    case 'GET':
      return getResource(one);
    case 'PUT':
      return updateResource(one);
    case 'PATCH':
      return patchResource(one);
    case 'DELETE':
      if (one.subresource) throw verbNotAllowed('delete', one.info);
      return deleteResource(one);
    default:
      throw verbNotAllowed(scope.verb, scope.info);
  }
}
