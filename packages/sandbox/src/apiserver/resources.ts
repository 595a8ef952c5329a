// The resources the sandbox serves, with the discovery facts kube-apiserver
// v1.32 advertises for them (api/discovery/aggregated_v2.json in
// kubernetes/kubernetes). Behaviour per kind lives in strategy.ts.

/**
 * The verbs a resource supports, as discovery lists them.
 *
 * @category Resources
 */
export type Verb =
  'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/**
 * The subresources the sandbox implements.
 *
 * @category Resources
 */
export type Subresource =
  'status' | 'scale' | 'finalize' | 'binding' | 'log' | 'exec' | 'attach' | 'portforward';

/**
 * One resource the sandbox serves: what discovery says about it.
 *
 * @category Resources
 */
export interface ResourceInfo {
  /** API group; `''` for the core group. */
  readonly group: string;
  /** API version, such as `v1`. */
  readonly version: string;
  /** The plural resource name used in URLs, such as `deployments`. */
  readonly resource: string;
  /** The singular name, such as `deployment`. */
  readonly singular: string;
  /** The object kind, such as `Deployment`. */
  readonly kind: string;
  /** True for namespaced resources. */
  readonly namespaced: boolean;
  /** Short names kubectl accepts, such as `deploy`. */
  readonly shortNames: readonly string[];
  /** Categories, such as `all` (what `kubectl get all` expands). */
  readonly categories: readonly string[];
  /** The verbs on the collection and its objects. */
  readonly verbs: readonly Verb[];
  /** The subresources served. */
  readonly subresources: readonly Subresource[];
  /**
   * Where objects are stored. Two resources can share storage and differ only
   * in how they present it: core/v1 and events.k8s.io/v1 events. `''` for
   * resources that are answered and never stored (TokenReview,
   * SubjectAccessReview).
   */
  readonly storage: string;
}

const allVerbs: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

function info(
  gv: string,
  resource: string,
  kind: string,
  rest: Partial<Omit<ResourceInfo, 'group' | 'version' | 'resource' | 'kind'>> = {},
): ResourceInfo {
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  return Object.freeze({
    group: group ?? '',
    version: version ?? gv,
    resource,
    kind,
    singular: rest.singular ?? kind.toLowerCase(),
    namespaced: rest.namespaced ?? true,
    shortNames: Object.freeze([...(rest.shortNames ?? [])]),
    categories: Object.freeze([...(rest.categories ?? [])]),
    verbs: Object.freeze([...(rest.verbs ?? allVerbs)]),
    subresources: Object.freeze([...(rest.subresources ?? [])]),
    storage: rest.storage ?? (group ? `${resource}.${group}` : resource),
  });
}

/**
 * Every resource the sandbox serves, core group first, in the order discovery
 * lists them.
 *
 * @category Resources
 */
export const resources: readonly ResourceInfo[] = Object.freeze([
  info('v1', 'namespaces', 'Namespace', {
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status', 'finalize'],
  }),
  info('v1', 'pods', 'Pod', {
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['attach', 'binding', 'exec', 'log', 'portforward', 'status'],
  }),
  info('v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  info('v1', 'secrets', 'Secret'),
  info('v1', 'events', 'Event', { shortNames: ['ev'] }),
  info('v1', 'nodes', 'Node', { namespaced: false, shortNames: ['no'], subresources: ['status'] }),
  // kube-apiserver also serves services/proxy, which a sandbox with no
  // network behind its ClusterIPs leaves out.
  info('v1', 'services', 'Service', {
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
  }),
  info('apps/v1', 'deployments', 'Deployment', {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  info('apps/v1', 'replicasets', 'ReplicaSet', {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  info('coordination.k8s.io/v1', 'leases', 'Lease'),
  info('events.k8s.io/v1', 'events', 'Event', { shortNames: ['ev'], storage: 'events' }),
  // Reviews are answered, never stored (storage ''): see reviews.ts.
  info('authentication.k8s.io/v1', 'tokenreviews', 'TokenReview', {
    namespaced: false,
    verbs: ['create'],
    storage: '',
  }),
  info('authorization.k8s.io/v1', 'subjectaccessreviews', 'SubjectAccessReview', {
    namespaced: false,
    verbs: ['create'],
    storage: '',
  }),
]);

/**
 * The `apiVersion` string of a resource: `v1` or `apps/v1`.
 *
 * @category Resources
 */
export function apiVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/**
 * Finds a served resource by group, version and plural name.
 *
 * @category Resources
 */
export function findResource(
  group: string,
  version: string,
  resource: string,
): ResourceInfo | undefined {
  return resources.find(
    (r) => r.group === group && r.version === version && r.resource === resource,
  );
}

/**
 * The group-qualified resource as it appears in error messages:
 * `deployments.apps`, or `pods` for the core group.
 */
export function qualifiedResource(info: ResourceInfo): { group: string; resource: string } {
  return { group: info.group, resource: info.resource };
}
