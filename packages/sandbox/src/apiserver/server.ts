// The HTTP face of the sandbox: kube-apiserver's URL layout, content
// negotiation, authentication and Status error bodies over the registry
// (staging/src/k8s.io/apiserver/pkg/endpoints: installer.go for the routes,
// handlers/ for each verb, handlers/negotiation for Accept and Content-Type).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  StatusError,
  isStatusError,
  newBadRequest,
  newGenericServerResponse,
  newInternalError,
  newMethodNotSupported,
  newRequestEntityTooLarge,
  newUnauthorized,
} from '@kcm-ts/apimachinery';
import type { DeleteOptions, ListOptions, Patch, WatchEvent } from '@kcm-ts/apimachinery';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { stringify as stringifyYaml } from 'yaml';
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
import { plain } from './field-errors.js';
import type { FaultLab } from './faults.js';
import type { Registry } from './registry.js';
import { checkFields } from './field-validation.js';
import { apiVersionOf, findResource } from './resources.js';
import type { ResourceInfo, Verb } from './resources.js';
import { TokenAuthenticator } from './authn.js';
import { DecodeError, checkNesting, parseYamlLimited, unrecognizedBody } from './body-limits.js';
import {
  InFlightLimiter,
  defaultInFlightLimits,
  isLongRunning,
  sendTooManyRequests,
} from './inflight.js';
import type { InFlightLimits } from './inflight.js';
import type { ContainerLogs } from './container-logs.js';
import { negotiateOutput } from './negotiation.js';
import { noProcesses, servePodLog } from './pod-logs.js';
import { boolParam, int64Param } from './query-params.js';
import type { NegotiatedOutput } from './negotiation.js';
import { transformResponse } from './response.js';
import { encodeOnce } from './caching-object.js';
import { FlushRounds } from './flush-rounds.js';
import type { Watch } from './watch.js';
import type { TransformContext } from './response.js';
import { parseIncludeObject } from './table/index.js';

/** kube-apiserver's default limit on a request body (3 MiB). */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

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
  /** `host:port` for legacy discovery's serverAddressByClientCIDRs. */
  serverAddress: string;
  /** Called with every request, after it is answered (for logs and tests). */
  onRequest?: (method: string, url: string, code: number) => void;
  /** Faults to inject into resource requests (see {@link FaultLab}). */
  faults?: FaultLab;
  /** Requests served at once before 429s; kube-apiserver's 400 read-only and 200 mutating by default. */
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

const unknownFormat = (accepted: string): StatusError =>
  new StatusError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  });

const notFoundPath = (): StatusError =>
  new StatusError({
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    details: {},
  });

/** How an answer is written: its media type and whether it is indented. */
interface Encoding {
  contentType: string;
  pretty?: boolean;
}

const jsonEncoding: Encoding = { contentType: 'application/json' };

function encode(body: unknown, enc: Encoding): string {
  if (enc.contentType === 'application/yaml') {
    // sigs.k8s.io/yaml's JSONToYAML: keys sorted, sequences not indented.
    return stringifyYaml(body, { sortMapEntries: true, indentSeq: false });
  }
  return enc.pretty ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
}

function send(
  res: ServerResponse,
  code: number,
  body: unknown,
  enc: Encoding = jsonEncoding,
): void {
  const text = encode(body, enc);
  res.writeHead(code, {
    'Content-Type': enc.contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: unknown, enc: Encoding = jsonEncoding): void {
  const status = isStatusError(err) ? err : newInternalError(err);
  if (status.code === 429 || status.code === 503 || status.code === 504) {
    const retry = status.details?.retryAfterSeconds;
    if (retry) res.setHeader('Retry-After', String(retry));
  }
  send(res, status.code || 500, status.toStatus(), enc);
}

// negotiation.go's isPrettyPrint: `?pretty=` as strconv.ParseBool reads it,
// else a User-Agent of a browser or a command-line HTTP tool.
function prettyRequested(req: IncomingMessage, query: URLSearchParams): boolean {
  const pretty = query.get('pretty');
  if (pretty !== null && pretty !== '')
    return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pretty);
  const agent = req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** How an error is written: negotiated without transformations, JSON if nothing fits. */
function errorEncoding(req: IncomingMessage, query: URLSearchParams): Encoding {
  try {
    const out = negotiateOutput(req.headers.accept, { allowConversion: false });
    return { contentType: out.mediaType, pretty: out.pretty || prettyRequested(req, query) };
  } catch {
    return jsonEncoding;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxRequestBodyBytes)
    throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxRequestBodyBytes)
      throw newRequestEntityTooLarge(`limit is ${maxRequestBodyBytes}`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseJson(buf: Buffer, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw newBadRequest(`${what}: invalid JSON: ${(err as Error).message}`);
  }
  try {
    checkNesting(value);
  } catch (err) {
    throw newBadRequest(`${what}: ${(err as Error).message}`);
  }
  return value;
}

/** The body of a create or update: JSON or YAML. Protobuf (kubectl 1.32's `create <generator>`) is refused. */
function decodeObjectBody(req: IncomingMessage, buf: Buffer, info: ResourceInfo): unknown {
  const type = mediaType(req);
  if (type === '' || type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8'));
    } catch (err) {
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: invalid JSON: ${(err as Error).message}`,
      );
    }
    try {
      checkNesting(value);
    } catch (err) {
      // The decoder fails before it knows the kind (handlers/rest.go, transformDecodeError).
      throw unrecognizedBody(info.kind, err, buf);
    }
    return value;
  }
  if (type === 'application/yaml') {
    try {
      return parseYamlLimited(buf.toString('utf8'));
    } catch (err) {
      if (isStatusError(err)) throw err;
      if (err instanceof DecodeError) throw unrecognizedBody(info.kind, err, buf);
      throw newBadRequest(
        `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: invalid YAML: ${(err as Error).message}`,
      );
    }
  }
  if (type === 'application/vnd.kubernetes.protobuf') {
    throw unknownFormat(
      'application/json, application/yaml (the kcm-ts sandbox does not decode protobuf, which kubectl 1.32 sends for `kubectl create <kind>`: let kubectl write the manifest and apply it, `kubectl create <kind> ... --dry-run=client -o yaml | kubectl apply -f -`, or write one and use `kubectl apply -f` or `kubectl create -f`)',
    );
  }
  throw unknownFormat('application/json, application/yaml');
}

function decodePatch(req: IncomingMessage, buf: Buffer, query: URLSearchParams): Patch {
  const type = mediaType(req);
  switch (type) {
    case 'application/json-patch+json':
      return { type: 'json', ops: parseJson(buf, 'json patch') as never };
    case 'application/merge-patch+json':
      return { type: 'merge', body: parseJson(buf, 'merge patch') as object };
    case 'application/strategic-merge-patch+json':
      return { type: 'strategic', body: parseJson(buf, 'strategic merge patch') as object };
    case 'application/apply-patch+yaml': {
      let body: unknown;
      try {
        body = parseYamlLimited(buf.toString('utf8'));
      } catch (err) {
        if (isStatusError(err)) throw err;
        // applyPatcher hands sigs.k8s.io/yaml's error over as it is.
        if (err instanceof DecodeError)
          throw newBadRequest(`error converting YAML to JSON: ${err.message}`);
        throw newBadRequest(`apply patch: invalid YAML: ${(err as Error).message}`);
      }
      return {
        type: 'apply',
        body: body as object,
        fieldManager: query.get('fieldManager') ?? '',
        ...(boolParam(query, 'force') === true ? { force: true } : {}),
      };
    }
    default:
      throw unknownFormat(
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
      );
  }
}

function listOptions(query: URLSearchParams): ListOptions {
  const opts: ListOptions = {};
  const str = (name: 'labelSelector' | 'fieldSelector' | 'continue' | 'resourceVersion') => {
    const v = query.get(name);
    if (v !== null && v !== '') opts[name] = v;
  };
  str('labelSelector');
  str('fieldSelector');
  str('continue');
  str('resourceVersion');
  const match = query.get('resourceVersionMatch');
  if (match) opts.resourceVersionMatch = match as ListOptions['resourceVersionMatch'] & string;
  const limit = int64Param(query, 'limit');
  if (limit !== undefined) opts.limit = limit;
  const timeout = int64Param(query, 'timeoutSeconds');
  if (timeout !== undefined) opts.timeoutSeconds = timeout;
  const bookmarks = boolParam(query, 'allowWatchBookmarks');
  if (bookmarks !== undefined) opts.allowWatchBookmarks = bookmarks;
  const initial = boolParam(query, 'sendInitialEvents');
  if (initial !== undefined) opts.sendInitialEvents = initial;
  return opts;
}

function writeOptions(query: URLSearchParams): {
  dryRun?: 'All';
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
} {
  const out: {
    dryRun?: 'All';
    fieldManager?: string;
    fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  } = {};
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) {
    if (dryRun.some((d) => d !== 'All'))
      throw newBadRequest(
        `dryRun: Unsupported value: ${JSON.stringify(dryRun.find((d) => d !== 'All'))}: supported values: "All"`,
      );
    out.dryRun = 'All';
  }
  const manager = query.get('fieldManager');
  if (manager) {
    if (manager.length > 128)
      throw newBadRequest('fieldManager: Too long: may not be more than 128 bytes');
    out.fieldManager = manager;
  }
  const validation = query.get('fieldValidation');
  if (validation) {
    if (!['Ignore', 'Warn', 'Strict'].includes(validation)) {
      throw newBadRequest(`invalid fieldValidation directive: ${validation}`);
    }
    out.fieldValidation = validation as 'Ignore' | 'Warn' | 'Strict';
  }
  return out;
}

/**
 * Drops the unknown fields of a written body as `fieldValidation` says (400
 * when Strict), and adds a Warning header for each under Warn, the default.
 */
function validateFields(
  res: ServerResponse,
  query: URLSearchParams,
  apiVersion: string,
  kind: string,
  body: unknown,
  how: { patch?: boolean; apply?: string } = {},
): void {
  const warnings = checkFields(apiVersion, kind, body, writeOptions(query).fieldValidation, how);
  if (warnings.length > 0) {
    res.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  }
}

/** The object a patch describes, for field validation; JSON patches are lists of operations. */
const patchObject = (patch: Patch): unknown => (patch.type === 'json' ? undefined : patch.body);

function deleteOptions(
  query: URLSearchParams,
  body: unknown,
): DeleteOptions & { orphanDependents?: boolean } {
  const opts: DeleteOptions & { orphanDependents?: boolean } = {};
  if (body !== undefined) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw newBadRequest('the body of a delete must be a DeleteOptions object');
    const b = body as Record<string, unknown>;
    if (b.kind !== undefined && b.kind !== 'DeleteOptions')
      throw newBadRequest(`${plain(b.kind)} is not a DeleteOptions`);
    if (b.gracePeriodSeconds !== undefined && b.gracePeriodSeconds !== null)
      opts.gracePeriodSeconds = b.gracePeriodSeconds as number;
    if (typeof b.propagationPolicy === 'string')
      opts.propagationPolicy = b.propagationPolicy as DeleteOptions['propagationPolicy'] & string;
    if (typeof b.orphanDependents === 'boolean') opts.orphanDependents = b.orphanDependents;
    if (typeof b.preconditions === 'object' && b.preconditions !== null)
      opts.preconditions = b.preconditions;
    if (Array.isArray(b.dryRun) && b.dryRun.includes('All')) opts.dryRun = 'All';
  }
  const grace = int64Param(query, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const policy = query.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'] & string;
  const orphan = boolParam(query, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  if (query.getAll('dryRun').includes('All')) opts.dryRun = 'All';
  return opts;
}

/**
 * The request target split as kube-apiserver sees it: the path is never
 * normalised (no dot-segment removal, no merging of slashes), so what a
 * segment says is what gets routed; the query is decoded leniently, as Go's
 * `url.ParseQuery` callers do.
 */
interface Target {
  /** The raw path, without the query. */
  path: string;
  /** The path's segments, percent-decoded; empty ones are kept. */
  segments: string[];
  query: URLSearchParams;
}

function parseTarget(raw: string | undefined): Target {
  let target = raw ?? '/';
  // absolute-form (`GET http://host/path`) is legal HTTP/1.1; route its path.
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  if (!target.startsWith('/')) throw newBadRequest(`invalid request target ${JSON.stringify(raw)}`);
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
  // RequestInfoFactory trims the slashes at both ends, then splits on every one.
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  const segments =
    trimmed === ''
      ? []
      : trimmed.split('/').map((segment) => {
          try {
            return decodeURIComponent(segment);
          } catch {
            throw newBadRequest(
              `invalid percent-encoding in the request path: ${JSON.stringify(segment)}`,
            );
          }
        });
  return { path, segments, query };
}

/**
 * apimachinery's `path.IsValidPathSegmentName`: a name or namespace taken
 * from the path may not be `.` or `..`, nor contain `/` or `%`; the registry
 * answers 400 before touching storage (registry/generic/registry/store.go,
 * `NamespaceKeyFunc`).
 */
function checkPathSegment(what: 'Name' | 'Namespace', value: string): void {
  let problems: string[] = [];
  if (value === '.' || value === '..') problems = [`may not be '${value}'`];
  else {
    if (value.includes('/')) problems.push(`may not contain '/'`);
    if (value.includes('%')) problems.push(`may not contain '%'`);
  }
  if (problems.length > 0)
    throw newBadRequest(
      `${what} parameter invalid: ${JSON.stringify(value)}: ${problems.join(';')}`,
    );
}

interface Route {
  info: ResourceInfo;
  namespace: string;
  name?: string;
  subresource?: string;
}

/** Splits `/api/v1/...` or `/apis/{g}/{v}/...` into a resource route; undefined if none. */
function route(segments: string[]): Route | 'unknown' | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  const find = (resource: string | undefined) =>
    resource ? findResource(group, version, resource) : undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const namespaced = find(rest[2]);
    if (namespaced?.namespaced) {
      if (rest.length > 5) return 'unknown';
      return {
        info: namespaced,
        namespace: rest[1] ?? '',
        ...(rest[3] ? { name: rest[3] } : {}),
        ...(rest[4] ? { subresource: rest[4] } : {}),
      };
    }
  }
  const info = find(rest[0]);
  if (!info || rest.length > 3) return 'unknown';
  return {
    info,
    namespace: '',
    ...(rest[1] ? { name: rest[1] } : {}),
    ...(rest[2] ? { subresource: rest[2] } : {}),
  };
}

function verbNotAllowed(verb: string, info: ResourceInfo): StatusError {
  return newMethodNotSupported({ group: info.group, resource: info.resource }, verb);
}

/**
 * The request handler of the sandbox API server, for `http.createServer` or
 * `https.createServer`.
 */
export function apiHandler(
  registry: Registry,
  opts: ApiHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const authn = new TokenAuthenticator(opts.token);
  const limiter = new InFlightLimiter(opts.inFlightLimits ?? defaultInFlightLimits);
  const watchBufferBytes = opts.watchBufferBytes ?? defaultWatchBufferBytes;
  const rounds = new FlushRounds(watchFlushInterval);

  // No request may end the process: whatever a handler throws, synchronously
  // or not, becomes a Status answer (or a cut connection once the head is out).
  const fail = (
    req: IncomingMessage,
    res: ServerResponse,
    err: unknown,
    query?: URLSearchParams,
  ) => {
    try {
      if (res.headersSent) res.destroy();
      else sendError(res, err, query ? errorEncoding(req, query) : jsonEncoding);
    } catch {
      res.destroy();
    }
  };
  return (req, res) => {
    if (opts.onRequest) {
      const onRequest = opts.onRequest;
      res.on('finish', () => {
        try {
          onRequest(req.method ?? '', req.url ?? '', res.statusCode);
        } catch {
          // a failing observer must not take the server down
        }
      });
    }
    let target: Target | undefined;
    try {
      target = parseTarget(req.url);
      const t = target;
      filters(req, res, t).catch((err: unknown) => fail(req, res, err, t.query));
    } catch (err) {
      fail(req, res, err, target?.query);
    }
  };

  // The filters kube-apiserver runs before any handler, in its order
  // (server/config.go, DefaultBuildHandlerChain): public paths, then
  // authentication, then the in-flight cap.
  async function filters(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
    const path = target.path.replace(/\/+$/, '') || '/';
    if (
      ['/healthz', '/livez', '/readyz'].includes(path) ||
      /^\/(healthz|livez|readyz)\/[a-z-]+$/.test(path)
    ) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    if (path === '/version') {
      if (req.method !== 'GET') return methodNotAllowed(req, res, target.query);
      return send(res, 200, serverVersion);
    }
    if (!authn.authenticateHeader(req.headers.authorization)) {
      return send(res, 401, newUnauthorized('Unauthorized').toStatus());
    }
    const info = requestInfo(req.method ?? 'GET', target);
    if (isLongRunning(info.verb, info.subresource)) return handle(req, res, target);
    const release = limiter.admit(info.verb);
    if (!release) return sendTooManyRequests(res);
    res.once('close', release);
    return handle(req, res, target);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
    const path = target.path.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const { segments, query } = target;
    if (segments.includes('')) throw notFoundPath();
    const accept = req.headers.accept;

    // Discovery is served by go-restful routes registered for GET alone.
    const discovery =
      path === '/api' ||
      path === '/apis' ||
      (segments[0] === 'api' && segments.length === 2) ||
      (segments[0] === 'apis' && (segments.length === 2 || segments.length === 3));
    if (discovery && method !== 'GET') return methodNotAllowed(req, res, query);

    if (path === '/api' || path === '/apis') {
      if (wantsAggregatedDiscovery(accept))
        return send(res, 200, aggregatedDiscovery(path === '/api'), {
          contentType: aggregatedDiscoveryContentType,
        });
      return send(res, 200, path === '/api' ? apiVersions(opts.serverAddress) : apiGroupList());
    }
    if (segments[0] === 'openapi') {
      if (segments[1] === 'v3' && segments.length === 2) return send(res, 200, openApiIndex());
      if (segments[1] === 'v3') {
        const doc = openApiDocument(segments.slice(2).join('/'));
        if (doc) return send(res, 200, doc);
      }
      throw notFoundPath();
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      const doc = apiGroupDocument(segments[1] ?? '');
      if (doc) return send(res, 200, doc);
      throw notFoundPath();
    }
    if (
      (segments[0] === 'api' && segments.length === 2) ||
      (segments[0] === 'apis' && segments.length === 3)
    ) {
      const doc =
        segments[0] === 'api'
          ? apiResourceList('', segments[1] ?? '')
          : apiResourceList(segments[1] ?? '', segments[2] ?? '');
      if (doc) return send(res, 200, doc);
      throw notFoundPath();
    }

    const r = route(segments);
    if (!r || r === 'unknown') throw notFoundPath();
    const { info, namespace, name, subresource } = r;
    if (subresource && !(info.subresources as readonly string[]).includes(subresource))
      throw notFoundPath();
    if (info.namespaced && segments.includes('namespaces') && !namespace) throw notFoundPath();
    if (namespace) checkPathSegment('Namespace', namespace);
    if (name !== undefined) checkPathSegment('Name', name);
    const watching = !name && method === 'GET' && boolParam(query, 'watch') === true;
    const verb = verbOf(method, name, watching);
    // installer.go registers only list and watch on a namespaced resource's
    // all-namespaces path: a write there would reach every namespace.
    if (info.namespaced && !namespace) {
      if (name !== undefined) throw notFoundPath();
      if (method !== 'GET') throw verbNotAllowed(verb, info);
    }
    // installer.go registers a route per verb the storage supports.
    if (!subresource && !(info.verbs as readonly string[]).includes(verb))
      throw verbNotAllowed(verb, info);
    if (opts.faults) {
      await opts.faults.beforeRequest(
        verb as Verb,
        { group: info.group, resource: info.resource },
        name ?? '',
      );
    }

    if (info.resource === 'pods' && info.group === '' && name !== undefined) {
      if (subresource === 'log') {
        if (method !== 'GET') throw verbNotAllowed(verb, info);
        const pod = registry.get(info, namespace, name) as Pod;
        return servePodLog(req, res, pod, opts.podLogs, query, registry.clock.now());
      }
      if (subresource === 'exec' || subresource === 'attach' || subresource === 'portforward') {
        if (method !== 'GET' && method !== 'POST') throw verbNotAllowed(verb, info);
        registry.get(info, namespace, name);
        throw noProcesses(subresource, name);
      }
    }

    // Every handler negotiates its output first (handlers/get.go, create.go...).
    const output = negotiateOutput(accept, { stream: watching });
    const includeObject =
      output.convert?.kind === 'Table'
        ? parseIncludeObject(query.get('includeObject'))
        : 'Metadata';
    const ctx: TransformContext = {
      resource: subresource ? `${info.resource}/${subresource}` : info.resource,
      group: info.group,
      now: registry.clock.now(),
      includeObject,
    };
    const encoding: Encoding = {
      contentType: output.mediaType,
      pretty: output.pretty || prettyRequested(req, query),
    };
    const reply = (code: number, result: unknown): void =>
      send(res, code, transformResponse(result, output.convert, ctx), encoding);

    if (!name) {
      // The collection: list, watch, create, deletecollection.
      if (method === 'GET') {
        const lo = listOptions(query);
        if (watching) return serveWatch(req, res, info, namespace, lo, output, ctx);
        return reply(200, registry.list(info, namespace, lo));
      }
      if (method === 'POST') {
        const body = decodeObjectBody(req, await readBody(req), info);
        validateFields(res, query, apiVersionOf(info), info.kind, body);
        const created = registry.create(info, namespace, body, writeOptions(query));
        return reply(201, created);
      }
      if (method === 'DELETE') {
        const buf = await readBody(req);
        const body = buf.length > 0 ? parseJson(buf, 'DeleteOptions') : undefined;
        return reply(
          200,
          registry.deleteCollection(
            info,
            namespace,
            listOptions(query),
            deleteOptions(query, body),
          ),
        );
      }
      throw verbNotAllowed(verb, info);
    }

    if (subresource === 'scale') {
      if (method === 'GET') return reply(200, registry.getScale(info, namespace, name));
      const buf = await readBody(req);
      if (method === 'PUT') {
        const body = decodeObjectBody(req, buf, { ...info, kind: 'Scale' });
        validateFields(res, query, 'autoscaling/v1', 'Scale', body);
        return reply(200, registry.updateScale(info, namespace, name, body, writeOptions(query)));
      }
      if (method === 'PATCH') {
        const patch = decodePatch(req, buf, query);
        validateFields(res, query, 'autoscaling/v1', 'Scale', patchObject(patch), { patch: true });
        return reply(200, registry.patchScale(info, namespace, name, patch, writeOptions(query)));
      }
      throw verbNotAllowed(verb, info);
    }
    if (subresource === 'binding') {
      if (method !== 'POST') throw verbNotAllowed(verb, info);
      const body = decodeObjectBody(req, await readBody(req), { ...info, kind: 'Binding' });
      validateFields(res, query, 'v1', 'Binding', body);
      return send(res, 201, registry.bindPod(namespace, name, body), encoding);
    }
    if (subresource === 'finalize') {
      if (method !== 'PUT') throw verbNotAllowed(verb, info);
      return reply(
        200,
        registry.finalizeNamespace(name, decodeObjectBody(req, await readBody(req), info)),
      );
    }

    const status = subresource === 'status' ? { subresource: 'status' as const } : {};
    switch (method) {
      case 'GET':
        return reply(200, registry.get(info, namespace, name));
      case 'PUT': {
        const body = decodeObjectBody(req, await readBody(req), info);
        validateFields(res, query, apiVersionOf(info), info.kind, body);
        const out = registry.update(info, namespace, name, body, {
          ...writeOptions(query),
          ...status,
        });
        return reply(out.created ? 201 : 200, out.object);
      }
      case 'PATCH': {
        const patch = decodePatch(req, await readBody(req), query);
        validateFields(res, query, apiVersionOf(info), info.kind, patchObject(patch), {
          patch: true,
          ...(patch.type === 'apply' ? { apply: namespace ? `${namespace}/${name}` : name } : {}),
        });
        const out = registry.patch(info, namespace, name, patch, {
          ...writeOptions(query),
          ...status,
        });
        return reply(out.created ? 201 : 200, out.object);
      }
      case 'DELETE': {
        if (subresource) throw verbNotAllowed('delete', info);
        const buf = await readBody(req);
        const body = buf.length > 0 ? parseJson(buf, 'DeleteOptions') : undefined;
        return reply(200, registry.delete(info, namespace, name, deleteOptions(query, body)));
      }
      default:
        throw verbNotAllowed(verb, info);
    }
  }

  async function serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceInfo,
    namespace: string,
    lo: ListOptions,
    output: NegotiatedOutput,
    ctx: TransformContext,
  ): Promise<void> {
    const watch = registry.watch(info, namespace, lo, { shared: true });
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    // Headers go out at once: clients wait for them before they can stop a watch.
    res.flushHeaders();
    // In Node, the request's 'close' fires once its body is read; the response's marks the client leaving.
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    res.on('close', () => watch.stop());
    req.resume();
    // The fault lab can drop this watch (end the stream at once) or hang it
    // (send nothing, and stay open past the timeout until dropped).
    const tracked = opts.faults?.openWatch(info.resource, () => {
      watch.stop();
      if (!res.writableEnded) res.end();
    });
    try {
      await streamWatch(watch, res, output, ctx, tracked);
      if (tracked?.hung() && !res.writableEnded && !res.destroyed) await closed;
    } finally {
      tracked?.close();
    }
    if (!res.writableEnded) res.end();
  }

  /**
   * Writes a watch's events as they come, one line each, all the events
   * queued by then in one write (Go's watch server flushes only when its
   * channel is empty), each line made once for every watcher of the same
   * form. Resolves when the watch has ended and its queue is written.
   */
  function streamWatch(
    watch: Watch,
    res: ServerResponse,
    output: NegotiatedOutput,
    ctx: TransformContext,
    tracked: { hung(): boolean } | undefined,
  ): Promise<void> {
    const line = eventLine(output, ctx);
    return new Promise<void>((resolve) => {
      let scheduled = false;
      let done = false;
      const pump = (): void => {
        scheduled = false;
        if (done) return;
        const events = watch.take();
        if (res.destroyed || res.writableEnded) {
          done = true;
          watch.stop();
          return resolve();
        }
        if (events.length > 0 && !tracked?.hung()) {
          ctx.now = registry.clock.now();
          const lines = events.map(line);
          res.write(lines.length === 1 ? (lines[0] as Buffer) : Buffer.concat(lines));
          // A watcher that stops reading is cut off once this much waits for
          // it, as the watch cache closes a watcher whose buffer is full
          // (cacher.go, "Forcing watcher close due to unresponsiveness").
          if (res.writableLength > watchBufferBytes) {
            done = true;
            watch.stop();
            res.destroy();
            return resolve();
          }
        }
        if (watch.stopped) {
          done = true;
          resolve();
        }
      };
      // Events queued in one turn of the event loop (by every write it
      // served) go out together, after it.
      // An ended watch is finished at once: nothing more will join the batch.
      // Otherwise its events go out in the next round of writes.
      watch.onReady(() => {
        if (watch.stopped) return pump();
        if (scheduled) return;
        scheduled = true;
        rounds.add(pump);
      });
    });
  }
}

/**
 * How one event becomes a line of the stream. watchEmbeddedEncoder: each
 * event's object is transformed as the list's items would be; one that
 * cannot be (a list form asked of one object) goes out as it is. Tables are
 * made for object events only, and made anew (their ages move); every other
 * form of a shared object is encoded once for all watchers.
 */
function eventLine(
  output: NegotiatedOutput,
  ctx: TransformContext,
): (event: WatchEvent<unknown>) => Buffer {
  const convert = output.convert;
  const embedded = (event: WatchEvent<unknown>): WatchEvent<unknown> => {
    if (event.type === 'ERROR' || convert === undefined) return event;
    if (convert.kind === 'Table' && event.type === 'BOOKMARK') return event;
    try {
      return { type: event.type, object: transformResponse(event.object, convert, ctx) };
    } catch {
      return event;
    }
  };
  const encode = (event: WatchEvent<unknown>): string => `${JSON.stringify(embedded(event))}\n`;
  const form = convert ? `${convert.kind}/${convert.version}` : '';
  return (event) => {
    const shared =
      event.type !== 'ERROR' &&
      event.type !== 'BOOKMARK' &&
      convert?.kind !== 'Table' &&
      typeof event.object === 'object' &&
      event.object !== null &&
      Object.isFrozen(event.object);
    if (!shared) return Buffer.from(encode(event));
    return encodeOnce(event.object as object, `${event.type} ${form}`, () => encode(event));
  };
}

/** What the filters need to know of a request before it is routed (request/requestinfo.go). */
function requestInfo(method: string, target: Target): { verb: string; subresource?: string } {
  const r = route(target.segments);
  if (!r || r === 'unknown') return { verb: method.toLowerCase() === 'get' ? 'get' : 'create' };
  const watching = !r.name && method === 'GET' && boolParam(target.query, 'watch') === true;
  return {
    verb: verbOf(method, r.name, watching),
    ...(r.subresource ? { subresource: r.subresource } : {}),
  };
}

/**
 * A method no go-restful route takes (discovery, `/version`): go-restful's
 * 405 with its Allow header, written by kube-apiserver's service error
 * handler (server/handler.go, serviceErrorHandler) as a Status.
 */
function methodNotAllowed(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void {
  res.setHeader('Allow', 'GET');
  sendError(
    res,
    newGenericServerResponse({ code: 405, verb: req.method ?? '' }),
    errorEncoding(req, query),
  );
}

/**
 * The API verb of a resource request, as kube-apiserver's RequestInfo names
 * it; a method it does not map keeps its lower-cased name.
 */
function verbOf(method: string, name: string | undefined, watch: boolean): string {
  switch (method) {
    case 'GET':
      return name ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}
