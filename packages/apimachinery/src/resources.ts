// The built-in resources that clients and informers know by name, in one
// table: what client-go spreads over its generated clientset
// (kubernetes/typed/*/v1, each resource's client) and its generated informers
// (informers/generic.go, ForResource). The kind, scope and singular name are
// those the API server's discovery reports for each.
import type { GroupVersionResource } from './schema.js';

/**
 * A built-in resource: its group, version and plural name, its kind,
 * whether it is namespaced, and its singular name (listers use it in
 * NotFound messages).
 *
 * @category Schema
 */
export interface ResourceInfo extends GroupVersionResource {
  /** The kind of its objects, such as `Pod`. */
  readonly kind: string;
  /** True for a namespaced resource. */
  readonly namespaced: boolean;
  /** The singular lowercase name, such as `pod`. */
  readonly singular: string;
}

/**
 * The names of the resources in {@link builtinResources}.
 *
 * @category Schema
 */
export type BuiltinResourceName =
  | 'pods'
  | 'configMaps'
  | 'secrets'
  | 'nodes'
  | 'namespaces'
  | 'events'
  | 'services'
  | 'endpoints'
  | 'persistentVolumeClaims'
  | 'persistentVolumes'
  | 'replicaSets'
  | 'deployments'
  | 'daemonSets'
  | 'statefulSets'
  | 'controllerRevisions'
  | 'jobs'
  | 'cronJobs'
  | 'leases'
  | 'storageClasses'
  | 'endpointSlices'
  | 'serviceAccounts'
  | 'replicationControllers'
  | 'podDisruptionBudgets'
  | 'roles'
  | 'roleBindings'
  | 'clusterRoles'
  | 'clusterRoleBindings'
  | 'eventsV1';

function info(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  singular: string,
): ResourceInfo {
  return Object.freeze({ group, version: 'v1', resource, kind, namespaced, singular });
}

/**
 * The built-in resources the clientset of `@kcm-ts/client` and the informer
 * factory of `@kcm-ts/informer` have typed accessors for: the one table both
 * are built from.
 *
 * @example
 * ```ts
 * builtinResources.replicaSets; // { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', ... }
 * ```
 *
 * @category Schema
 */
export const builtinResources: Readonly<Record<BuiltinResourceName, ResourceInfo>> = Object.freeze({
  pods: info('', 'pods', 'Pod', true, 'pod'),
  configMaps: info('', 'configmaps', 'ConfigMap', true, 'configmap'),
  secrets: info('', 'secrets', 'Secret', true, 'secret'),
  nodes: info('', 'nodes', 'Node', false, 'node'),
  namespaces: info('', 'namespaces', 'Namespace', false, 'namespace'),
  events: info('', 'events', 'Event', true, 'event'),
  services: info('', 'services', 'Service', true, 'service'),
  endpoints: info('', 'endpoints', 'Endpoints', true, 'endpoints'),
  persistentVolumeClaims: info(
    '',
    'persistentvolumeclaims',
    'PersistentVolumeClaim',
    true,
    'persistentvolumeclaim',
  ),
  persistentVolumes: info('', 'persistentvolumes', 'PersistentVolume', false, 'persistentvolume'),
  replicaSets: info('apps', 'replicasets', 'ReplicaSet', true, 'replicaset'),
  deployments: info('apps', 'deployments', 'Deployment', true, 'deployment'),
  daemonSets: info('apps', 'daemonsets', 'DaemonSet', true, 'daemonset'),
  statefulSets: info('apps', 'statefulsets', 'StatefulSet', true, 'statefulset'),
  controllerRevisions: info(
    'apps',
    'controllerrevisions',
    'ControllerRevision',
    true,
    'controllerrevision',
  ),
  jobs: info('batch', 'jobs', 'Job', true, 'job'),
  cronJobs: info('batch', 'cronjobs', 'CronJob', true, 'cronjob'),
  leases: info('coordination.k8s.io', 'leases', 'Lease', true, 'lease'),
  storageClasses: info('storage.k8s.io', 'storageclasses', 'StorageClass', false, 'storageclass'),
  endpointSlices: info(
    'discovery.k8s.io',
    'endpointslices',
    'EndpointSlice',
    true,
    'endpointslice',
  ),
  serviceAccounts: info('', 'serviceaccounts', 'ServiceAccount', true, 'serviceaccount'),
  replicationControllers: info(
    '',
    'replicationcontrollers',
    'ReplicationController',
    true,
    'replicationcontroller',
  ),
  podDisruptionBudgets: info(
    'policy',
    'poddisruptionbudgets',
    'PodDisruptionBudget',
    true,
    'poddisruptionbudget',
  ),
  roles: info('rbac.authorization.k8s.io', 'roles', 'Role', true, 'role'),
  roleBindings: info(
    'rbac.authorization.k8s.io',
    'rolebindings',
    'RoleBinding',
    true,
    'rolebinding',
  ),
  clusterRoles: info(
    'rbac.authorization.k8s.io',
    'clusterroles',
    'ClusterRole',
    false,
    'clusterrole',
  ),
  clusterRoleBindings: info(
    'rbac.authorization.k8s.io',
    'clusterrolebindings',
    'ClusterRoleBinding',
    false,
    'clusterrolebinding',
  ),
  eventsV1: info('events.k8s.io', 'events', 'Event', true, 'event'),
});
