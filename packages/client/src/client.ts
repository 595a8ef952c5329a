// A small clientset: one kubeconfig, a resource client for any resource, and
// ready-made ones for the resources the course uses, like the typed accessors
// of client-go's kubernetes.Clientset (CoreV1().Pods(), AppsV1().Deployments()).
import type { KubeConfig } from '@kubernetes/client-node';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  StatefulSet,
} from 'kubernetes-types/apps/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type {
  ConfigMap,
  Endpoints,
  Event as CoreEvent,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicationController,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from 'kubernetes-types/rbac/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import {
  builtinResources,
  type BuiltinResourceName,
  type Clock,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  contextNamespace,
  loadKubeConfig,
  type KubeConfigSource,
  type LoadKubeConfigOptions,
} from './kubeconfig.js';
import type { PartialObjectMetadata } from './metadata.js';
import { newResourceClient, type ResourceClientOptions } from './resource-client.js';

/**
 * Clients for one cluster, made by {@link createClient}. Every resource client
 * here is unscoped: call `inNamespace(ns)` for one namespace (for example
 * `client.pods.inNamespace(client.defaultNamespace)`).
 *
 * @category Resource clients
 */
export interface Client {
  /** The kubeconfig the clients use, with its current context chosen. */
  readonly kubeconfig: KubeConfig;
  /** The namespace of the kubeconfig's current context, or `default`: kubectl's default namespace. */
  readonly defaultNamespace: string;
  /**
   * A client for any resource, built-in or custom; see {@link newResourceClient}.
   *
   * @example
   * ```ts
   * const widgets = client.resource<Widget>(
   *   { group: 'example.com', version: 'v1', resource: 'widgets' },
   *   { namespaced: true, kind: 'Widget' },
   * );
   * ```
   */
  resource<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    opts: ResourceClientOptions,
  ): ResourceClient<T>;
  /**
   * A metadata-only client for any resource, like client-go's
   * `metadata.NewForConfig(config).Resource(gvr)`: get, list, watch, patch
   * and delete give `meta.k8s.io/v1` PartialObjectMetadata (see
   * {@link ResourceClientOptions.metadataOnly}), what a garbage collector
   * needs from every resource without reading whole objects.
   *
   * @example
   * ```ts
   * const rs = client.metadata({ group: 'apps', version: 'v1', resource: 'replicasets' }, { namespaced: true });
   * const owners = (await rs.inNamespace('default').list()).items.map((i) => i.metadata.ownerReferences);
   * ```
   */
  metadata(
    gvr: GroupVersionResource,
    opts: Omit<ResourceClientOptions, 'metadataOnly' | 'kind'>,
  ): ResourceClient<PartialObjectMetadata>;
  /** core/v1 pods. */
  readonly pods: ResourceClient<Pod>;
  /** core/v1 configmaps. */
  readonly configMaps: ResourceClient<ConfigMap>;
  /** core/v1 secrets. */
  readonly secrets: ResourceClient<Secret>;
  /** core/v1 events (the older Event API, still what most tools write). */
  readonly events: ResourceClient<CoreEvent>;
  /** core/v1 nodes (cluster-scoped). */
  readonly nodes: ResourceClient<Node>;
  /** core/v1 namespaces (cluster-scoped). */
  readonly namespaces: ResourceClient<Namespace>;
  /** apps/v1 deployments. */
  readonly deployments: ResourceClient<Deployment>;
  /** apps/v1 replicasets. */
  readonly replicaSets: ResourceClient<ReplicaSet>;
  /** apps/v1 daemonsets. */
  readonly daemonSets: ResourceClient<DaemonSet>;
  /** apps/v1 statefulsets. */
  readonly statefulSets: ResourceClient<StatefulSet>;
  /** apps/v1 controllerrevisions (the history of DaemonSets and StatefulSets). */
  readonly controllerRevisions: ResourceClient<ControllerRevision>;
  /** core/v1 services. */
  readonly services: ResourceClient<Service>;
  /** core/v1 endpoints (what `kubectl describe svc` shows). */
  readonly endpoints: ResourceClient<Endpoints>;
  /** discovery.k8s.io/v1 endpointslices. */
  readonly endpointSlices: ResourceClient<EndpointSlice>;
  /** core/v1 serviceaccounts. */
  readonly serviceAccounts: ResourceClient<ServiceAccount>;
  /** core/v1 replicationcontrollers. */
  readonly replicationControllers: ResourceClient<ReplicationController>;
  /** policy/v1 poddisruptionbudgets. */
  readonly podDisruptionBudgets: ResourceClient<PodDisruptionBudget>;
  /** rbac.authorization.k8s.io/v1 roles. */
  readonly roles: ResourceClient<Role>;
  /** rbac.authorization.k8s.io/v1 rolebindings. */
  readonly roleBindings: ResourceClient<RoleBinding>;
  /** rbac.authorization.k8s.io/v1 clusterroles (cluster-scoped). */
  readonly clusterRoles: ResourceClient<ClusterRole>;
  /** rbac.authorization.k8s.io/v1 clusterrolebindings (cluster-scoped). */
  readonly clusterRoleBindings: ResourceClient<ClusterRoleBinding>;
  /** core/v1 persistentvolumeclaims. */
  readonly persistentVolumeClaims: ResourceClient<PersistentVolumeClaim>;
  /** core/v1 persistentvolumes (cluster-scoped). */
  readonly persistentVolumes: ResourceClient<PersistentVolume>;
  /** storage.k8s.io/v1 storageclasses (cluster-scoped). */
  readonly storageClasses: ResourceClient<StorageClass>;
  /** batch/v1 jobs. */
  readonly jobs: ResourceClient<Job>;
  /** batch/v1 cronjobs. */
  readonly cronJobs: ResourceClient<CronJob>;
  /** coordination.k8s.io/v1 leases (leader election). */
  readonly leases: ResourceClient<Lease>;
  /** events.k8s.io/v1 events (the newer Event API). */
  readonly eventsV1: ResourceClient<EventsV1Event>;
}

/**
 * Options for {@link createClient}: which context to use, and how its clients
 * retry.
 *
 * @category Resource clients
 */
export interface CreateClientOptions extends LoadKubeConfigOptions {
  /** See {@link ResourceClientOptions.maxRetries}; default 10, as client-go. */
  maxRetries?: number;
  /** The clock the retries wait on. Default the real clock. */
  clock?: Clock;
}

/**
 * Loads a kubeconfig with {@link loadKubeConfig} (or takes a client-node
 * `KubeConfig` as it is) and returns {@link Client}: resource clients for the
 * course's built-in resources and any other one, sharing connections.
 *
 * @param source - where the kubeconfig comes from; unset for kubectl's default
 *   places (`$KUBECONFIG`, `~/.kube/config`, in-cluster).
 * @param opts - `context` to use instead of the current one; `maxRetries`
 *   and `clock` for every client made (see {@link ResourceClientOptions.maxRetries}).
 * @throws Error when the kubeconfig cannot be found, read or used (see
 *   {@link loadKubeConfig}).
 *
 * @category Resource clients
 */
export function createClient(source?: KubeConfigSource, opts: CreateClientOptions = {}): Client {
  const kubeconfig = loadKubeConfig(source, opts);
  const retries = {
    ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
    ...(opts.clock === undefined ? {} : { clock: opts.clock }),
  };
  const resource = <T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    resourceOpts: ResourceClientOptions,
  ): ResourceClient<T> => newResourceClient<T>(kubeconfig, gvr, { ...retries, ...resourceOpts });
  // The typed clients, from the one table of built-in resources.
  const builtin = <T extends KubeObject>(name: BuiltinResourceName) => {
    const { group, version, resource: plural, namespaced, kind } = builtinResources[name];
    return resource<T>({ group, version, resource: plural }, { namespaced, kind });
  };
  return {
    kubeconfig,
    defaultNamespace: contextNamespace(kubeconfig),
    resource,
    metadata: (gvr, metadataOpts) =>
      newResourceClient<PartialObjectMetadata>(kubeconfig, gvr, {
        ...retries,
        ...metadataOpts,
        metadataOnly: true,
      }),
    pods: builtin<Pod>('pods'),
    configMaps: builtin<ConfigMap>('configMaps'),
    secrets: builtin<Secret>('secrets'),
    events: builtin<CoreEvent>('events'),
    nodes: builtin<Node>('nodes'),
    namespaces: builtin<Namespace>('namespaces'),
    deployments: builtin<Deployment>('deployments'),
    replicaSets: builtin<ReplicaSet>('replicaSets'),
    daemonSets: builtin<DaemonSet>('daemonSets'),
    statefulSets: builtin<StatefulSet>('statefulSets'),
    controllerRevisions: builtin<ControllerRevision>('controllerRevisions'),
    services: builtin<Service>('services'),
    endpoints: builtin<Endpoints>('endpoints'),
    endpointSlices: builtin<EndpointSlice>('endpointSlices'),
    serviceAccounts: builtin<ServiceAccount>('serviceAccounts'),
    replicationControllers: builtin<ReplicationController>('replicationControllers'),
    podDisruptionBudgets: builtin<PodDisruptionBudget>('podDisruptionBudgets'),
    roles: builtin<Role>('roles'),
    roleBindings: builtin<RoleBinding>('roleBindings'),
    clusterRoles: builtin<ClusterRole>('clusterRoles'),
    clusterRoleBindings: builtin<ClusterRoleBinding>('clusterRoleBindings'),
    persistentVolumeClaims: builtin<PersistentVolumeClaim>('persistentVolumeClaims'),
    persistentVolumes: builtin<PersistentVolume>('persistentVolumes'),
    storageClasses: builtin<StorageClass>('storageClasses'),
    jobs: builtin<Job>('jobs'),
    cronJobs: builtin<CronJob>('cronJobs'),
    leases: builtin<Lease>('leases'),
    eventsV1: builtin<EventsV1Event>('eventsV1'),
  };
}
