// Request paths and query strings: what client-go's rest.Request builds
// (rest/request.go: URL, Namespace, Resource, Name, SubResource,
// SpecificallyVersionedParams) and the query form of metav1.ListOptions and
// friends (apis/meta/v1/types.go, converted by zz_generated.conversion.go).
import type {
  CreateOptions,
  GroupVersionResource,
  ListOptions,
  PatchOptions,
  UpdateOptions,
} from '@kcm-ts/apimachinery';

// rest/request.go, NameMayNotBe and NameMayNotContain: a name or namespace must
// be usable as one path segment.
function pathSegmentProblems(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const problems: string[] = [];
  for (const bad of ['/', '%']) {
    if (value.includes(bad)) problems.push(`may not contain '${bad}'`);
  }
  return problems;
}

/** Throws unless `value` can be a name or namespace in a URL path. */
export function checkPathSegment(what: 'resource name' | 'namespace', value: string): void {
  if (value === '') throw new Error(`${what} may not be empty`);
  const problems = pathSegmentProblems(value);
  if (problems.length > 0) {
    throw new Error(`invalid ${what} ${JSON.stringify(value)}: ${problems.join(', ')}`);
  }
}

// Go's url.URL escapes a path with `encodePath`: everything but letters,
// digits, `-_.~` and the reserved `$&+,/:;=@` becomes %XX (`?` included). A
// name has already been checked for `/` and `%`, so segments stay segments, and
// names such as `system:controller:deployment-controller` go out as they are.
function escapePathSegment(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    )
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The path of a collection, an object or an object's subresource:
 * `/api/v1/namespaces/default/pods/web/status`,
 * `/apis/apps/v1/deployments` (all namespaces), `/api/v1/nodes/n1`.
 * The namespace and name must already have passed {@link checkPathSegment}.
 */
export function resourcePath(
  gvr: GroupVersionResource,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  const parts = gvr.group === '' ? ['api', gvr.version] : ['apis', gvr.group, gvr.version];
  if (namespace !== undefined && namespace !== '') {
    parts.push('namespaces', escapePathSegment(namespace));
  }
  parts.push(gvr.resource);
  if (name !== undefined) parts.push(escapePathSegment(name));
  if (subresource !== undefined) parts.push(subresource);
  return `/${parts.join('/')}`;
}

// Go's query parameter conversion leaves out zero values of `omitempty` fields
// (an empty string, 0, false) but keeps pointer fields that are set, such as
// timeoutSeconds=0 or sendInitialEvents=false.
function set(
  q: URLSearchParams,
  key: string,
  value: string | number | boolean | undefined,
  keepZero = false,
): void {
  if (value === undefined) return;
  if (!keepZero && (value === '' || value === 0 || value === false)) return;
  q.set(key, String(value));
}

/** Query parameters of a list, or of a watch when `watch` is true. */
export function listQuery(opts: ListOptions, watch: boolean): URLSearchParams {
  const q = new URLSearchParams();
  set(q, 'labelSelector', opts.labelSelector);
  set(q, 'fieldSelector', opts.fieldSelector);
  set(q, 'limit', opts.limit);
  set(q, 'continue', opts.continue);
  set(q, 'resourceVersion', opts.resourceVersion);
  set(q, 'resourceVersionMatch', opts.resourceVersionMatch);
  set(q, 'timeoutSeconds', opts.timeoutSeconds, true);
  set(q, 'allowWatchBookmarks', opts.allowWatchBookmarks);
  set(q, 'sendInitialEvents', opts.sendInitialEvents, true);
  if (watch) q.set('watch', 'true');
  return q;
}

/** Query parameters of a get. */
export function getQuery(resourceVersion: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  set(q, 'resourceVersion', resourceVersion);
  return q;
}

/** Query parameters of a create, update or patch (apply adds `force`). */
export function writeQuery(
  opts: CreateOptions | UpdateOptions | PatchOptions,
  fieldManager = opts.fieldManager,
  force?: boolean,
): URLSearchParams {
  const q = new URLSearchParams();
  set(q, 'dryRun', opts.dryRun);
  set(q, 'fieldManager', fieldManager);
  set(q, 'fieldValidation', opts.fieldValidation);
  set(q, 'force', force, true);
  return q;
}
