// The resources the sandbox serves, with the discovery facts kube-apiserver
// v1.32 advertises for them (api/discovery/aggregated_v2.json in
// kubernetes/kubernetes): apimachinery's table of built-in resources, plus
// the Services and reviews it lacks, with what only discovery tells
// (short names, categories, verbs, subresources) and where each is stored.
// Behaviour per kind lives in registry/strategy.ts.
import { builtinResources } from '@kcm-ts/apimachinery';
import type { ResourceInfo as BuiltinResourceInfo } from '@kcm-ts/apimachinery';

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
  | 'status'
  | 'scale'
  | 'finalize'
  | 'binding'
  | 'eviction'
  | 'log'
  | 'exec'
  | 'attach'
  | 'portforward'
  | 'token';

/**
 * One resource the sandbox serves: what discovery says about it. The
 * group, version, kind, scope and singular name are those of
 * `@kcm-ts/apimachinery`'s resource table; the rest is the sandbox's.
 *
 * @category Resources
 */
export interface ResourceInfo extends BuiltinResourceInfo {
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

/** What the sandbox adds to a resource's identity. */
type Served = Partial<Omit<ResourceInfo, keyof BuiltinResourceInfo>>;

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

function info(identity: BuiltinResourceInfo, rest: Served = {}): ResourceInfo {
  const { group, version, resource, kind, namespaced, singular } = identity;
  return Object.freeze({
    group,
    version,
    resource,
    kind,
    singular,
    namespaced,
    shortNames: Object.freeze([...(rest.shortNames ?? [])]),
    categories: Object.freeze([...(rest.categories ?? [])]),
    verbs: Object.freeze([...(rest.verbs ?? allVerbs)]),
    subresources: Object.freeze([...(rest.subresources ?? [])]),
    storage: rest.storage ?? (group ? `${resource}.${group}` : resource),
  });
}

/** A resource apimachinery's table does not have: served here only. */
function own(gv: string, resource: string, kind: string, namespaced: boolean): BuiltinResourceInfo {
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  return {
    group: group ?? '',
    version: version ?? gv,
    resource,
    kind,
    namespaced,
    singular: kind.toLowerCase(),
  };
}

const builtin = builtinResources;

/**
 * Every resource the sandbox serves, core group first, in the order discovery
 * lists them.
 *
 * @category Resources
 */
export const resources: readonly ResourceInfo[] = Object.freeze([
  info(builtin.namespaces, {
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status', 'finalize'],
  }),
  info(builtin.pods, {
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['attach', 'binding', 'eviction', 'exec', 'log', 'portforward', 'status'],
  }),
  info(builtin.configMaps, { shortNames: ['cm'] }),
  info(builtin.secrets),
  info(builtin.events, { shortNames: ['ev'] }),
  info(builtin.nodes, { shortNames: ['no'], subresources: ['status'] }),
  // kube-apiserver also serves services/proxy, which a sandbox with no
  // network behind its ClusterIPs leaves out.
  info(builtin.services, {
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
  }),
  info(builtin.endpoints, { shortNames: ['ep'] }),
  info(builtin.persistentVolumeClaims, { shortNames: ['pvc'], subresources: ['status'] }),
  info(builtin.persistentVolumes, { shortNames: ['pv'], subresources: ['status'] }),
  info(builtin.replicationControllers, {
    shortNames: ['rc'],
    categories: ['all'],
    subresources: ['scale', 'status'],
  }),
  info(builtin.serviceAccounts, { shortNames: ['sa'], subresources: ['token'] }),
  info(builtin.deployments, {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  info(builtin.replicaSets, {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  info(builtin.daemonSets, { shortNames: ['ds'], categories: ['all'], subresources: ['status'] }),
  info(builtin.statefulSets, {
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  info(builtin.controllerRevisions),
  info(builtin.jobs, { categories: ['all'], subresources: ['status'] }),
  info(builtin.cronJobs, { shortNames: ['cj'], categories: ['all'], subresources: ['status'] }),
  info(builtin.endpointSlices),
  info(builtin.leases),
  info(builtin.podDisruptionBudgets, { shortNames: ['pdb'], subresources: ['status'] }),
  info(builtin.clusterRoleBindings),
  info(builtin.clusterRoles),
  info(builtin.roleBindings),
  info(builtin.roles),
  info(builtin.storageClasses, { shortNames: ['sc'] }),
  info(builtin.eventsV1, { shortNames: ['ev'], storage: 'events' }),
  // Reviews are answered, never stored (storage ''): see reviews.ts.
  info(own('authentication.k8s.io/v1', 'selfsubjectreviews', 'SelfSubjectReview', false), {
    verbs: ['create'],
    storage: '',
  }),
  info(own('authentication.k8s.io/v1', 'tokenreviews', 'TokenReview', false), {
    verbs: ['create'],
    storage: '',
  }),
  info(
    own('authorization.k8s.io/v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
    { verbs: ['create'], storage: '' },
  ),
  info(
    own('authorization.k8s.io/v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false),
    { verbs: ['create'], storage: '' },
  ),
  info(own('authorization.k8s.io/v1', 'subjectaccessreviews', 'SubjectAccessReview', false), {
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
