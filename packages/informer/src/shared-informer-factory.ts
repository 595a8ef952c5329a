// One shared informer per resource for a whole program: client-go
// informers/factory.go (sharedInformerFactory) and the generated typed
// informers (informers/core/v1/pod.go and friends).
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  StatefulSet,
} from 'kubernetes-types/apps/v1.js';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type {
  ConfigMap,
  Endpoints,
  Event,
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
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import {
  builtinResources,
  groupResourceString,
  isForbidden,
  isUnauthorized,
  type BuiltinResourceName,
  type GroupVersionResource,
  type ResourceInfo,
  type KubeObject,
  type ListerWatcher,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  byResourceConflict,
  combinedListOptions,
  InformerOptionsConflictError,
  normalizeByResource,
  type ByResourceOptions,
} from './by-resource.js';
import { metaNamespaceIndexFunc, namespaceIndex } from './index-funcs.js';
import { ListWatch, type ListOptionsModifier } from './list-watch.js';
import { Lister } from './listers.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-index-informer.js';
import type { TransformFunc } from './store.js';

/**
 * A resource an informer factory can watch: its group, version and plural
 * name, its kind, whether it is namespaced, and the singular name listers
 * use in NotFound messages. The shape of `ResourceInfo` in
 * `@kcm-ts/apimachinery`.
 *
 * @category Informer factory
 */
export type InformerResource = ResourceInfo;

/**
 * The names of the built-in resources in {@link informerResources}.
 *
 * @category Informer factory
 */
export type BuiltinInformerResource = Exclude<BuiltinResourceName, 'eventsV1'>;

/**
 * The built-in resources with typed accessors on {@link SharedInformerFactory}:
 * those of `builtinResources` in `@kcm-ts/apimachinery`, the table the
 * clientset of `@kcm-ts/client` is built from too.
 *
 * @category Informer factory
 */
export const informerResources: Readonly<Record<BuiltinInformerResource, InformerResource>> = {
  pods: builtinResources.pods,
  configMaps: builtinResources.configMaps,
  secrets: builtinResources.secrets,
  nodes: builtinResources.nodes,
  namespaces: builtinResources.namespaces,
  events: builtinResources.events,
  services: builtinResources.services,
  endpoints: builtinResources.endpoints,
  persistentVolumeClaims: builtinResources.persistentVolumeClaims,
  persistentVolumes: builtinResources.persistentVolumes,
  replicaSets: builtinResources.replicaSets,
  deployments: builtinResources.deployments,
  daemonSets: builtinResources.daemonSets,
  statefulSets: builtinResources.statefulSets,
  controllerRevisions: builtinResources.controllerRevisions,
  jobs: builtinResources.jobs,
  cronJobs: builtinResources.cronJobs,
  leases: builtinResources.leases,
  storageClasses: builtinResources.storageClasses,
  endpointSlices: builtinResources.endpointSlices,
  serviceAccounts: builtinResources.serviceAccounts,
  replicationControllers: builtinResources.replicationControllers,
  podDisruptionBudgets: builtinResources.podDisruptionBudgets,
  roles: builtinResources.roles,
  roleBindings: builtinResources.roleBindings,
  clusterRoles: builtinResources.clusterRoles,
  clusterRoleBindings: builtinResources.clusterRoleBindings,
};

/**
 * Where a factory gets its clients: anything with a `resource` method that
 * returns a resource client, such as the `Client` of `@kcm-ts/client`.
 *
 * @category Informer factory
 */
export interface ResourceClientSource {
  /** An unscoped client for `gvr`. */
  resource<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: { namespaced: boolean; kind: string },
  ): ResourceClient<T>;
}

/**
 * Options for a {@link SharedInformerFactory}: Go's `SharedInformerOption`s,
 * with the informer's own options ({@link SharedIndexInformerOptions}),
 * passed on to every informer as they are.
 *
 * @category Informer factory
 */
export interface SharedInformerFactoryOptions extends Omit<
  SharedIndexInformerOptions<unknown>,
  'resyncPeriod' | 'indexers' | 'objectDescription' | 'transform'
> {
  /** Watch only this namespace. Default: all namespaces. */
  namespace?: string;
  /** Changes the options of every list and watch, such as adding a label selector. */
  tweakListOptions?: ListOptionsModifier;
  /**
   * Resync periods by resource, overriding the factory default, keyed like
   * `pods` or `deployments.apps` (plural name, then the group if any).
   */
  customResync?: Readonly<Record<string, number>>;
  /**
   * Set as every informer's transform, such as {@link trimManagedFields},
   * unless `byResource` gives a resource its own.
   */
  transform?: TransformFunc<unknown>;
  /**
   * Options of single resources, keyed like `customResync` (`pods`,
   * `deployments.apps`): a label or field selector, a list options tweak or
   * a transform for that resource's informer only, as controller-runtime's
   * `cache.Options.ByObject`. See {@link ByResourceOptions} for how they
   * combine with the factory's own. A request for the resource with other
   * options fails with an {@link InformerOptionsConflictError}.
   *
   * @example
   * ```ts
   * const factory = new SharedInformerFactory(client, 0, {
   *   transform: trimManagedFields,
   *   byResource: { pods: { labelSelector: 'app=web' } },
   * });
   * ```
   */
  byResource?: Readonly<Record<string, ByResourceOptions>>;
}

/**
 * Options for {@link SharedInformerFactory.waitForCacheSync}.
 *
 * @category Informer factory
 */
export interface FactoryWaitOptions {
  /**
   * Reject with a {@link CacheSyncError} when an informer that has not
   * synced fails with 401 Unauthorized or 403 Forbidden, rather than wait
   * for its retries. Default `false`, as client-go.
   */
  failOnAuthErrors?: boolean;
}

/**
 * Why {@link SharedInformerFactory.waitForCacheSync} gave up: an informer
 * could not list its resource. The API error is its `cause`, so
 * `isUnauthorized(err)` and `isForbidden(err)` from `@kcm-ts/apimachinery`
 * answer for it.
 *
 * @category Informer factory
 */
export class CacheSyncError extends Error {
  /** Always `'CacheSyncError'`. */
  override readonly name: string = 'CacheSyncError';
  /** The resource, keyed like `pods` or `deployments.apps`. */
  readonly resource: string;

  /**
   * @param resource - the resource, keyed like `pods`
   * @param cause - the error its informer failed with
   */
  constructor(resource: string, cause: unknown) {
    super(
      `failed to wait for caches to sync: ${resource}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.resource = resource;
  }
}

/**
 * The informer and lister of one resource, as the factory's typed accessors
 * return them (Go's `PodInformer` and friends).
 *
 * @category Informer factory
 */
export interface ResourceInformer<T extends KubeObject> {
  /** The shared informer, created on first use. */
  informer(): SharedIndexInformer<T>;
  /** A lister over the informer's cache. */
  lister(): Lister<T>;
}

/**
 * Hands out one {@link SharedIndexInformer} per resource, so every part of a
 * program that watches pods shares one watch and one cache: Go's
 * `SharedInformerFactory`. Ask for informers first, then
 * {@link SharedInformerFactory.start}, then
 * {@link SharedInformerFactory.waitForCacheSync}.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#factory}
 *
 * @category Informer factory
 */
export class SharedInformerFactory {
  readonly #source: ResourceClientSource;
  readonly #defaultResync: number;
  readonly #options: SharedInformerFactoryOptions;
  readonly #informers = new Map<string, SharedIndexInformer<KubeObject>>();
  readonly #informerOptions = new Map<string, ByResourceOptions>();
  readonly #started = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  #shuttingDown = false;

  /**
   * @param source - makes the clients the informers list and watch through
   * @param defaultResync - the resync period of informers, in milliseconds; `0` for none
   * @param options - see {@link SharedInformerFactoryOptions}
   */
  constructor(
    source: ResourceClientSource,
    defaultResync = 0,
    options: SharedInformerFactoryOptions = {},
  ) {
    this.#source = source;
    this.#defaultResync = defaultResync;
    this.#options = options;
  }

  /**
   * The shared informer of `resource`, created on the first call with the
   * `namespace` index and the factory's options; later calls return the same
   * one. Go's `InformerFor`.
   *
   * `options` are the resource's own ({@link ByResourceOptions}); without
   * them the factory's `byResource` entry for the resource applies, if any.
   * One factory keeps one informer per resource, so a request whose options
   * differ from those of the informer already made (or from the factory's
   * `byResource` entry) throws an {@link InformerOptionsConflictError}
   * rather than hand out an informer that watches something else. Selectors
   * compare as strings, functions by identity.
   *
   * @example
   * ```ts
   * const web = factory.informerFor<Pod>(informerResources.pods, { labelSelector: 'app=web' });
   * factory.informerFor<Pod>(informerResources.pods, { labelSelector: 'app=web' }); // the same one
   * factory.informerFor<Pod>(informerResources.pods); // throws: no selector asked for
   * ```
   */
  informerFor<T extends KubeObject>(
    resource: InformerResource,
    options?: ByResourceOptions,
  ): SharedIndexInformer<T> {
    const key = resourceKey(resource);
    const configured = this.#options.byResource?.[key];
    const wanted = normalizeByResource(options ?? configured);
    if (options !== undefined && configured !== undefined) {
      const conflict = byResourceConflict(
        key,
        normalizeByResource(configured),
        wanted,
        "set by the factory's byResource option",
        'this request',
      );
      if (conflict !== undefined) throw new InformerOptionsConflictError(key, conflict);
    }
    let informer = this.#informers.get(key);
    if (informer !== undefined) {
      const conflict = byResourceConflict(
        key,
        this.#informerOptions.get(key) ?? {},
        wanted,
        'already made',
        'this request',
      );
      if (conflict !== undefined) throw new InformerOptionsConflictError(key, conflict);
    } else {
      const {
        namespace,
        tweakListOptions: tweak,
        customResync,
        transform,
        byResource: _byResource,
        ...passed
      } = this.#options;
      let client: ListerWatcher<KubeObject> = this.#source.resource(resource, {
        namespaced: resource.namespaced,
        kind: resource.kind,
      });
      if (resource.namespaced && namespace) {
        client = (client as ResourceClient).inNamespace(namespace);
      }
      const modify = combinedListOptions(tweak, wanted);
      const lw = modify ? ListWatch.filtered(client, modify) : client;
      informer = new SharedIndexInformer<KubeObject>(lw, {
        ...passed,
        resyncPeriod: customResync?.[key] ?? this.#defaultResync,
        indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
        objectDescription: key,
        transform: (wanted.transform ?? transform) as TransformFunc<KubeObject> | undefined,
      });
      this.#informers.set(key, informer);
      this.#informerOptions.set(key, wanted);
    }
    return informer as unknown as SharedIndexInformer<T>;
  }

  /**
   * The informer and lister of any resource, such as a custom one. Go's
   * `ForResource`. `options` are as for {@link SharedInformerFactory.informerFor}.
   */
  forResource<T extends KubeObject>(
    resource: InformerResource,
    options?: ByResourceOptions,
  ): ResourceInformer<T> {
    return {
      informer: () => this.informerFor<T>(resource, options),
      lister: () =>
        new Lister<T>(this.informerFor<T>(resource, options).getIndexer(), {
          group: resource.group,
          resource: resource.singular,
        }),
    };
  }

  /** core/v1 pods. */
  pods(options?: ByResourceOptions): ResourceInformer<Pod> {
    return this.forResource<Pod>(informerResources.pods, options);
  }
  /** core/v1 configmaps. */
  configMaps(options?: ByResourceOptions): ResourceInformer<ConfigMap> {
    return this.forResource<ConfigMap>(informerResources.configMaps, options);
  }
  /** core/v1 secrets. */
  secrets(options?: ByResourceOptions): ResourceInformer<Secret> {
    return this.forResource<Secret>(informerResources.secrets, options);
  }
  /** core/v1 nodes. */
  nodes(options?: ByResourceOptions): ResourceInformer<Node> {
    return this.forResource<Node>(informerResources.nodes, options);
  }
  /** core/v1 namespaces. */
  namespaces(options?: ByResourceOptions): ResourceInformer<Namespace> {
    return this.forResource<Namespace>(informerResources.namespaces, options);
  }
  /** core/v1 events. */
  events(options?: ByResourceOptions): ResourceInformer<Event> {
    return this.forResource<Event>(informerResources.events, options);
  }
  /** core/v1 services. */
  services(options?: ByResourceOptions): ResourceInformer<Service> {
    return this.forResource<Service>(informerResources.services, options);
  }
  /** core/v1 endpoints. */
  endpoints(options?: ByResourceOptions): ResourceInformer<Endpoints> {
    return this.forResource<Endpoints>(informerResources.endpoints, options);
  }
  /** core/v1 persistentvolumeclaims. */
  persistentVolumeClaims(options?: ByResourceOptions): ResourceInformer<PersistentVolumeClaim> {
    return this.forResource<PersistentVolumeClaim>(
      informerResources.persistentVolumeClaims,
      options,
    );
  }
  /** core/v1 persistentvolumes. */
  persistentVolumes(options?: ByResourceOptions): ResourceInformer<PersistentVolume> {
    return this.forResource<PersistentVolume>(informerResources.persistentVolumes, options);
  }
  /** apps/v1 replicasets. */
  replicaSets(options?: ByResourceOptions): ResourceInformer<ReplicaSet> {
    return this.forResource<ReplicaSet>(informerResources.replicaSets, options);
  }
  /** apps/v1 deployments. */
  deployments(options?: ByResourceOptions): ResourceInformer<Deployment> {
    return this.forResource<Deployment>(informerResources.deployments, options);
  }
  /** apps/v1 daemonsets. */
  daemonSets(options?: ByResourceOptions): ResourceInformer<DaemonSet> {
    return this.forResource<DaemonSet>(informerResources.daemonSets, options);
  }
  /** apps/v1 statefulsets. */
  statefulSets(options?: ByResourceOptions): ResourceInformer<StatefulSet> {
    return this.forResource<StatefulSet>(informerResources.statefulSets, options);
  }
  /** apps/v1 controllerrevisions. */
  controllerRevisions(options?: ByResourceOptions): ResourceInformer<ControllerRevision> {
    return this.forResource<ControllerRevision>(informerResources.controllerRevisions, options);
  }
  /** batch/v1 jobs. */
  jobs(options?: ByResourceOptions): ResourceInformer<Job> {
    return this.forResource<Job>(informerResources.jobs, options);
  }
  /** batch/v1 cronjobs. */
  cronJobs(options?: ByResourceOptions): ResourceInformer<CronJob> {
    return this.forResource<CronJob>(informerResources.cronJobs, options);
  }
  /** coordination.k8s.io/v1 leases. */
  leases(options?: ByResourceOptions): ResourceInformer<Lease> {
    return this.forResource<Lease>(informerResources.leases, options);
  }
  /** storage.k8s.io/v1 storageclasses. */
  storageClasses(options?: ByResourceOptions): ResourceInformer<StorageClass> {
    return this.forResource<StorageClass>(informerResources.storageClasses, options);
  }
  /** discovery.k8s.io/v1 endpointslices. */
  endpointSlices(options?: ByResourceOptions): ResourceInformer<EndpointSlice> {
    return this.forResource<EndpointSlice>(informerResources.endpointSlices, options);
  }
  /** core/v1 serviceaccounts. */
  serviceAccounts(options?: ByResourceOptions): ResourceInformer<ServiceAccount> {
    return this.forResource<ServiceAccount>(informerResources.serviceAccounts, options);
  }
  /** core/v1 replicationcontrollers. */
  replicationControllers(options?: ByResourceOptions): ResourceInformer<ReplicationController> {
    return this.forResource<ReplicationController>(
      informerResources.replicationControllers,
      options,
    );
  }
  /** policy/v1 poddisruptionbudgets. */
  podDisruptionBudgets(options?: ByResourceOptions): ResourceInformer<PodDisruptionBudget> {
    return this.forResource<PodDisruptionBudget>(informerResources.podDisruptionBudgets, options);
  }
  /** rbac.authorization.k8s.io/v1 roles. */
  roles(options?: ByResourceOptions): ResourceInformer<Role> {
    return this.forResource<Role>(informerResources.roles, options);
  }
  /** rbac.authorization.k8s.io/v1 rolebindings. */
  roleBindings(options?: ByResourceOptions): ResourceInformer<RoleBinding> {
    return this.forResource<RoleBinding>(informerResources.roleBindings, options);
  }
  /** rbac.authorization.k8s.io/v1 clusterroles (cluster-scoped). */
  clusterRoles(options?: ByResourceOptions): ResourceInformer<ClusterRole> {
    return this.forResource<ClusterRole>(informerResources.clusterRoles, options);
  }
  /** rbac.authorization.k8s.io/v1 clusterrolebindings (cluster-scoped). */
  clusterRoleBindings(options?: ByResourceOptions): ResourceInformer<ClusterRoleBinding> {
    return this.forResource<ClusterRoleBinding>(informerResources.clusterRoleBindings, options);
  }

  /**
   * Runs every informer asked for so far that is not running yet, until
   * `signal` aborts. Does not wait. Call it again after asking for more
   * informers; after {@link SharedInformerFactory.shutdown} it does nothing.
   */
  start(signal: AbortSignal): void {
    if (this.#shuttingDown) return;
    for (const [key, informer] of this.#informers) {
      if (this.#started.has(key)) continue;
      this.#started.add(key);
      const running = informer.run(signal);
      this.#running.add(running);
      void running.finally(() => this.#running.delete(running));
    }
  }

  /**
   * Waits until every started informer has synced or `signal` aborts, and
   * reports each one's state, keyed like `pods` or `deployments.apps`.
   *
   * Like client-go it waits through every failure, since the informers
   * retry: a 403 may pass once RBAC catches up. With `failOnAuthErrors` it
   * rejects instead with a {@link CacheSyncError} as soon as an informer not
   * yet synced fails with 401 Unauthorized or 403 Forbidden; the informers
   * go on retrying.
   */
  async waitForCacheSync(
    signal: AbortSignal,
    options: FactoryWaitOptions = {},
  ): Promise<Map<string, boolean>> {
    const started = [...this.#informers].filter(([key]) => this.#started.has(key));
    if (!signal.aborted) {
      const cleanups: (() => void)[] = [];
      const stopped = new Promise<void>((resolve, reject) => {
        const onAbort = (): void => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
        if (options.failOnAuthErrors !== true) return;
        for (const [key, informer] of started) {
          const remove = informer.onWatchError((err) => {
            if (!informer.hasSynced() && (isUnauthorized(err) || isForbidden(err))) {
              reject(new CacheSyncError(key, err));
            }
          });
          cleanups.push(remove);
        }
      });
      try {
        await Promise.race([Promise.all(started.map(([, i]) => i.whenSynced())), stopped]);
      } finally {
        for (const cleanup of cleanups) cleanup();
      }
    }
    return new Map(started.map(([key, informer]) => [key, informer.hasSynced()]));
  }

  /**
   * Stops starting informers and resolves once every informer started has
   * returned. It does not stop them: abort the signal given to
   * {@link SharedInformerFactory.start} first.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    await Promise.all([...this.#running]);
  }
}

/** `pods`, `deployments.apps`: the key of a resource in a factory. */
function resourceKey(resource: GroupVersionResource): string {
  return groupResourceString(resource);
}
