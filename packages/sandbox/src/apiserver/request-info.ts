// Which resource a request is for, and with which verb: kube-apiserver's
// RequestInfoFactory (staging/src/k8s.io/apiserver/pkg/endpoints/request/
// requestinfo.go, NewRequestInfo) over a target that is never normalised,
// and the path checks of apimachinery's path.IsValidPathSegmentName.
import { newBadRequest } from '@kcm-ts/apimachinery';
import { findResource } from './resources.js';
import type { ResourceInfo } from './resources.js';
import { boolParam } from './query-params.js';

/**
 * The request target split as kube-apiserver sees it: the path is never
 * normalised (no dot-segment removal, no merging of slashes), so what a
 * segment says is what gets routed; the query is decoded leniently, as Go's
 * `url.ParseQuery` callers do.
 */
export interface Target {
  /** The raw path, without the query. */
  path: string;
  /** The path's segments, percent-decoded; empty ones are kept. */
  segments: string[];
  query: URLSearchParams;
}

export function parseTarget(raw: string | undefined): Target {
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
export function checkPathSegment(what: 'Name' | 'Namespace', value: string): void {
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

export interface Route {
  info: ResourceInfo;
  namespace: string;
  name?: string;
  subresource?: string;
}

/** Splits `/api/v1/...` or `/apis/{g}/{v}/...` into a resource route; undefined if none. */
export function route(segments: string[]): Route | 'unknown' | undefined {
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

/**
 * What the filters need to know of a request before it is routed: Go's
 * RequestInfo (request/requestinfo.go). A path that names no served
 * resource (discovery, `/version`, an unknown one) is a non-resource
 * request, whose verb is its lower-cased method.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  /** The served resource, for a resource request. */
  resourceInfo?: ResourceInfo;
}

/** The RequestInfo of a request. */
export function requestInfo(method: string, target: Target): RequestInfo {
  const r = route(target.segments);
  if (!r || r === 'unknown') {
    return {
      isResourceRequest: false,
      verb: method.toLowerCase(),
      apiGroup: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: target.path,
    };
  }
  const watching = !r.name && method === 'GET' && boolParam(target.query, 'watch') === true;
  return {
    isResourceRequest: true,
    verb: verbOf(method, r.name, watching),
    apiGroup: r.info.group,
    resource: r.info.resource,
    subresource: r.subresource ?? '',
    namespace: r.namespace,
    name: r.name ?? '',
    path: target.path,
    resourceInfo: r.info,
  };
}

/**
 * The API verb of a resource request, as kube-apiserver's RequestInfo names
 * it; a method it does not map keeps its lower-cased name.
 */
export function verbOf(method: string, name: string | undefined, watch: boolean): string {
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
