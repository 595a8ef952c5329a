// Emptying a terminating namespace and finalizing it: Go's
// pkg/controller/namespace/deletion/namespaced_resources_deleter.go.
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import {
  isConflict,
  isMethodNotSupported,
  isNotFound,
  noopLogger,
  parseGroupVersion,
  realClock,
  type Clock,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type ObjectList,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import {
  filteredBy,
  groupVersionResourceKey,
  groupVersionResources,
  supportsAllVerbs,
} from '../discovery.js';
import { isGroupDiscoveryFailedError } from '@kcm-ts/apimachinery';
import { NamespaceConditionUpdater } from './status-condition-utils.js';

/**
 * Some content of the namespace is still going away: try again in about
 * half of {@link ResourcesRemainingError.estimate} seconds. Go's
 * `ResourcesRemainingError`.
 *
 * @category Namespace controller
 */
export class ResourcesRemainingError extends Error {
  /** Always `'ResourcesRemainingError'`. */
  override readonly name = 'ResourcesRemainingError';
  /** Seconds the remaining content is expected to take. */
  readonly estimate: number;

  /** @param estimate - seconds the remaining content is expected to take */
  constructor(estimate: number) {
    super(
      `some content remains in the namespace, estimate ${estimate} seconds before it is removed`,
    );
    this.estimate = estimate;
  }
}

/**
 * Empties and finalizes a namespace: Go's `NamespacedResourcesDeleterInterface`.
 *
 * @category Namespace controller
 */
export interface NamespacedResourcesDeleterInterface {
  /**
   * Deletes the content of the namespace called `nsName` if it is being
   * deleted, then removes the finalizer token. Rejects with a
   * {@link ResourcesRemainingError} while content is going away; the caller
   * calls again until it resolves.
   */
  delete(nsName: string): Promise<void>;
}

/**
 * Calls the namespace's `finalize` subresource (`PUT
 * /api/v1/namespaces/{name}/finalize`), which alone may change
 * `spec.finalizers`: Go's `NamespaceInterface.Finalize`.
 *
 * @category Namespace controller
 */
export type FinalizeNamespaceFunc = (namespace: Namespace) => Promise<Namespace>;

/**
 * What a {@link NamespacedResourcesDeleter} is made from: the arguments of
 * Go's `NewNamespacedResourcesDeleter`, plus the injected clock and logger.
 *
 * @category Namespace controller
 */
export interface NamespacedResourcesDeleterOptions {
  /** Reads and updates namespaces (cluster-scoped, unscoped client). */
  nsClient: ResourceClient<Namespace>;
  /**
   * Lists and deletes the content, by resource, with `deletecollection`
   * where the resource supports it and a list and a delete per object
   * otherwise. Objects are read for their metadata only.
   */
  metadataClient: ResourceClientSource;
  /** Lists a namespace's pods, for their termination grace periods. */
  podsGetter: ResourceClient<Pod>;
  /** The namespaced resources the server offers (Go's `ServerPreferredNamespacedResources`). */
  discoverResourcesFn: () => Promise<APIResourceList[]>;
  /** The finalizer this controller removes: `kubernetes`. */
  finalizerToken: string;
  /**
   * Sends the namespace to the `finalize` subresource. Default: `nsClient`'s
   * update with `subresource: 'finalize'`.
   */
  finalizeNamespace?: FinalizeNamespaceFunc;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/** An operation the cache remembers as unsupported. Go's `operation`. */
type Operation = 'deletecollection' | 'list';

/**
 * The estimate for objects held by finalizers when nothing better is
 * known, in seconds. Go's `finalizerEstimateSeconds`.
 */
const finalizerEstimateSeconds = 15;

/** What is left of one resource. Go's `gvrDeletionMetadata`. */
interface GVRDeletionMetadata {
  /** Seconds to wait; 0 does not mean nothing is left. */
  finalizerEstimateSeconds: number;
  numRemaining: number;
  finalizersToNumRemaining?: Map<string, number>;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One error for many, as Go's `utilerrors.NewAggregate` prints them. */
function aggregate(errs: readonly unknown[]): Error | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return errs[0] instanceof Error ? errs[0] : new Error(errorText(errs[0]));
  return new Error(`[${errs.map(errorText).join(', ')}]`);
}

/** `apps/v1, Resource=deployments` (`/v1, Resource=pods`), as Go prints a GroupVersionResource. */
function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/** `PUT /api/v1/namespaces/{name}/finalize` through `nsClient`: Go's `NamespaceInterface.Finalize`. */
function finalizeThroughClient(nsClient: ResourceClient<Namespace>): FinalizeNamespaceFunc {
  return (namespace) => nsClient.update(namespace, { subresource: 'finalize' });
}

/**
 * Deletes everything in a terminating namespace, keeps its status
 * conditions, and finally removes its finalizer token through the
 * `finalize` subresource. Go's `namespacedResourcesDeleter`.
 *
 * @category Namespace controller
 */
export class NamespacedResourcesDeleter implements NamespacedResourcesDeleterInterface {
  readonly #opts: NamespacedResourcesDeleterOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #finalize: FinalizeNamespaceFunc;
  /** Operations that resources do not support, keyed `op gvr`. Go's `operationNotSupportedCache`. */
  readonly #notSupported = new Set<string>();
  /** The kind of each discovered resource, keyed by groupVersionResourceKey. */
  readonly #kinds = new Map<string, string>();

  /** @param opts - see {@link NamespacedResourcesDeleterOptions} */
  constructor(opts: NamespacedResourcesDeleterOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#finalize = opts.finalizeNamespace ?? finalizeThroughClient(opts.nsClient);
  }

  /**
   * Fills the cache of unsupported operations from discovery: a resource
   * without the `list` or `deletecollection` verb is never asked for it.
   * Go calls it from `NewNamespacedResourcesDeleter` and exits when
   * discovery gives nothing; here it rejects instead.
   */
  async initOpCache(): Promise<void> {
    let resources: APIResourceList[] = [];
    try {
      resources = await this.#opts.discoverResourcesFn();
    } catch (err) {
      this.#logger.error(
        new Error(`unable to get all supported resources from server: ${errorText(err)}`),
        'Unhandled Error',
      );
      if (isGroupDiscoveryFailedError(err)) resources = [...err.resources];
    }
    if (resources.length === 0) {
      throw new Error('Unable to get any supported resources from server');
    }
    for (const list of resources) {
      let gv;
      try {
        gv = parseGroupVersion(list.groupVersion);
      } catch (err) {
        this.#logger.error(err, 'Failed to parse GroupVersion, skipping', {
          groupVersion: list.groupVersion,
        });
        continue;
      }
      for (const r of list.resources) {
        const gvr = { group: gv.group, version: gv.version, resource: r.name };
        this.#kinds.set(groupVersionResourceKey(gvr), r.kind);
        if (!r.verbs.includes('delete')) {
          this.#logger.v(6).info('Skipping resource because it cannot be deleted', {
            resource: gvrString(gvr),
          });
        }
        for (const op of ['list', 'deletecollection'] as const) {
          if (!r.verbs.includes(op)) this.#notSupported.add(opKey(op, gvr));
        }
      }
    }
  }

  async delete(nsName: string): Promise<void> {
    const logger = this.#logger;
    let namespace: Namespace;
    try {
      // Others may change the namespace while it terminates: start from its latest state.
      namespace = await this.#opts.nsClient.get(nsName);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (namespace.metadata?.deletionTimestamp == null) return;
    logger.v(5).info('Namespace controller - syncNamespace', {
      namespace: nsName,
      finalizerToken: this.#opts.finalizerToken,
    });
    try {
      namespace = await this.#retryOnConflictError(namespace, (ns) =>
        this.#updateNamespaceStatusFunc(ns),
      );
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (namespace.metadata?.deletionTimestamp == null) return;
    if (finalized(namespace)) return;

    const { estimate, error } = await this.#deleteAllContent(namespace);
    if (error !== undefined) throw error;
    if (estimate > 0) throw new ResourcesRemainingError(estimate);

    try {
      await this.#retryOnConflictError(namespace, (ns) => this.#finalizeNamespace(ns));
    } catch (err) {
      // Another controller sharing the token may have finished it.
      if (isNotFound(err)) return;
      throw err;
    }
  }

  #isSupported(op: Operation, gvr: GroupVersionResource): boolean {
    return !this.#notSupported.has(opKey(op, gvr));
  }

  /** Calls `fn` again on the latest namespace after each conflict. Go's `retryOnConflictError`. */
  async #retryOnConflictError(
    namespace: Namespace,
    fn: (ns: Namespace) => Promise<Namespace>,
  ): Promise<Namespace> {
    let latest = namespace;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      const prev = latest;
      latest = await this.#opts.nsClient.get(latest.metadata?.name ?? '');
      if (prev.metadata?.uid !== latest.metadata?.uid) {
        throw new Error('namespace uid has changed across retries');
      }
    }
  }

  /** Marks the namespace Terminating if it is not yet. Go's `updateNamespaceStatusFunc`. */
  async #updateNamespaceStatusFunc(namespace: Namespace): Promise<Namespace> {
    if (
      namespace.metadata?.deletionTimestamp == null ||
      namespace.status?.phase === 'Terminating'
    ) {
      return namespace;
    }
    const next = structuredClone(namespace);
    next.status = { ...next.status, phase: 'Terminating' };
    return this.#opts.nsClient.updateStatus(next);
  }

  /** Removes the finalizer token from `spec.finalizers`. Go's `finalizeNamespace`. */
  async #finalizeNamespace(namespace: Namespace): Promise<Namespace> {
    const token = this.#opts.finalizerToken;
    const remaining = [...new Set(namespace.spec?.finalizers ?? [])]
      .filter((f) => f !== token)
      .sort();
    const finalize: Namespace = {
      ...structuredClone(namespace),
      spec: { ...namespace.spec, finalizers: remaining },
    };
    try {
      return await this.#finalize(finalize);
    } catch (err) {
      // Already gone: nothing left to finalize.
      if (isNotFound(err)) return namespace;
      throw err;
    }
  }

  #client(gvr: GroupVersionResource, namespace: string): ResourceClient {
    const kind = this.#kinds.get(groupVersionResourceKey(gvr)) ?? '';
    return this.#opts.metadataClient
      .resource(gvr, { namespaced: true, kind })
      .inNamespace(namespace);
  }

  /**
   * Deletes the whole collection at once; false when the resource does not
   * support it. Go's `deleteCollection`.
   */
  async #deleteCollection(gvr: GroupVersionResource, namespace: string): Promise<boolean> {
    const logger = this.#logger;
    logger
      .v(5)
      .info('Namespace controller - deleteCollection', { namespace, resource: gvrString(gvr) });
    if (!this.#isSupported('deletecollection', gvr)) {
      logger
        .v(5)
        .info('namespace controller - deleteCollection ignored since not supported - namespace', {
          namespace,
          resource: gvrString(gvr),
        });
      return false;
    }
    // Background, so the garbage collector adds no orphan finalizer: everything here must go.
    try {
      await this.#client(gvr, namespace).deleteCollection({ propagationPolicy: 'Background' });
      return true;
    } catch (err) {
      // A resource discovery lists may still answer 404 or 405 to a collection call.
      if (isMethodNotSupported(err) || isNotFound(err)) {
        logger.v(5).info('Namespace controller - deleteCollection not supported', {
          namespace,
          resource: gvrString(gvr),
        });
        return false;
      }
      logger.v(5).info('Namespace controller - deleteCollection unexpected error', {
        namespace,
        resource: gvrString(gvr),
        err: errorText(err),
      });
      throw err;
    }
  }

  /** The objects of the collection; `undefined` when listing is not supported. Go's `listCollection`. */
  async #listCollection(
    gvr: GroupVersionResource,
    namespace: string,
  ): Promise<ObjectList<KubeObject> | undefined> {
    const logger = this.#logger;
    logger
      .v(5)
      .info('Namespace controller - listCollection', { namespace, resource: gvrString(gvr) });
    if (!this.#isSupported('list', gvr)) {
      logger
        .v(5)
        .info('namespace controller - listCollection ignored since not supported - namespace', {
          namespace,
          resource: gvrString(gvr),
        });
      return undefined;
    }
    try {
      return await this.#client(gvr, namespace).list();
    } catch (err) {
      if (isMethodNotSupported(err) || isNotFound(err)) {
        logger.v(5).info('Namespace controller - listCollection not supported', {
          namespace,
          resource: gvrString(gvr),
        });
        return undefined;
      }
      throw err;
    }
  }

  /** Lists the collection and deletes each object. Go's `deleteEachItem`. */
  async #deleteEachItem(gvr: GroupVersionResource, namespace: string): Promise<void> {
    this.#logger.v(5).info('Namespace controller - deleteEachItem', {
      namespace,
      resource: gvrString(gvr),
    });
    const list = await this.#listCollection(gvr, namespace);
    if (list === undefined) return;
    const client = this.#client(gvr, namespace);
    for (const item of list.items) {
      try {
        await client.delete(item.metadata?.name ?? '', { propagationPolicy: 'Background' });
      } catch (err) {
        if (!isNotFound(err) && !isMethodNotSupported(err)) throw err;
      }
    }
  }

  /**
   * Deletes the resource's content and reports what is left, with an
   * estimate of how long it will take. Go's `deleteAllContentForGroupVersionResource`.
   */
  async #deleteAllContentForGroupVersionResource(
    gvr: GroupVersionResource,
    namespace: string,
    namespaceDeletedAt: number,
  ): Promise<{ metadata: GVRDeletionMetadata; error?: unknown }> {
    const logger = this.#logger;
    const resource = gvrString(gvr);
    logger.v(5).info('Namespace controller - deleteAllContentForGroupVersionResource', {
      namespace,
      resource,
    });
    let estimate: number;
    try {
      estimate = await this.#estimateGracefulTermination(gvr, namespace, namespaceDeletedAt);
    } catch (err) {
      return { metadata: { finalizerEstimateSeconds: 0, numRemaining: 0 }, error: err };
    }
    const withEstimate = { finalizerEstimateSeconds: estimate, numRemaining: 0 };
    try {
      if (!(await this.#deleteCollection(gvr, namespace))) {
        await this.#deleteEachItem(gvr, namespace);
      }
    } catch (err) {
      return { metadata: withEstimate, error: err };
    }
    // Items may remain without error while the estimate is not zero.
    let list: ObjectList<KubeObject> | undefined;
    try {
      list = await this.#listCollection(gvr, namespace);
    } catch (err) {
      return { metadata: withEstimate, error: err };
    }
    if (list === undefined) return { metadata: withEstimate };
    if (list.items.length === 0)
      return { metadata: { finalizerEstimateSeconds: 0, numRemaining: 0 } };

    const finalizersToNumRemaining = new Map<string, number>();
    for (const item of list.items) {
      for (const f of item.metadata?.finalizers ?? []) {
        finalizersToNumRemaining.set(f, (finalizersToNumRemaining.get(f) ?? 0) + 1);
      }
    }
    const numRemaining = list.items.length;
    if (estimate !== 0) {
      return {
        metadata: { finalizerEstimateSeconds: estimate, numRemaining, finalizersToNumRemaining },
      };
    }
    // Finalizers are normal: give them the default time to finish.
    if (finalizersToNumRemaining.size > 0) {
      return {
        metadata: {
          finalizerEstimateSeconds,
          numRemaining,
          finalizersToNumRemaining,
        },
      };
    }
    return {
      metadata: { finalizerEstimateSeconds: estimate, numRemaining },
      error: new Error(
        `unexpected items still remain in namespace: ${namespace} for gvr: ${resource}`,
      ),
    };
  }

  /**
   * Deletes the content of every deletable namespaced resource, then writes
   * the namespace's conditions. Returns the longest estimate and the errors.
   * Go's `deleteAllContent`.
   */
  async #deleteAllContent(ns: Namespace): Promise<{ estimate: number; error: Error | undefined }> {
    const logger = this.#logger;
    const namespace = ns.metadata?.name ?? '';
    const namespaceDeletedAt = Date.parse(ns.metadata?.deletionTimestamp ?? '');
    const errs: unknown[] = [];
    const conditionUpdater = new NamespaceConditionUpdater(this.#clock);
    let estimate = 0;
    logger.v(4).info('namespace controller - deleteAllContent', { namespace });

    let resources: APIResourceList[] = [];
    try {
      resources = await this.#opts.discoverResourcesFn();
    } catch (err) {
      // Not fatal: act on what could be discovered.
      errs.push(err);
      conditionUpdater.processDiscoverResourcesErr(err);
      if (isGroupDiscoveryFailedError(err)) resources = [...err.resources];
    }
    const deletable = filteredBy(supportsAllVerbs(['delete']), resources);
    for (const list of deletable) {
      for (const r of list.resources) {
        try {
          const gv = parseGroupVersion(list.groupVersion);
          this.#kinds.set(groupVersionResourceKey({ ...gv, resource: r.name }), r.kind);
        } catch {
          // Reported below, where the group versions are parsed for deletion.
        }
      }
    }
    let gvrs = new Map<string, GroupVersionResource>();
    try {
      gvrs = groupVersionResources(deletable);
    } catch (err) {
      errs.push(err);
      conditionUpdater.processGroupVersionErr(err);
    }

    const gvrToNumRemaining = new Map<string, number>();
    const finalizersToNumRemaining = new Map<string, number>();
    for (const gvr of gvrs.values()) {
      const { metadata, error } = await this.#deleteAllContentForGroupVersionResource(
        gvr,
        namespace,
        namespaceDeletedAt,
      );
      if (error !== undefined) {
        // Keep going with the other resources.
        errs.push(error);
        conditionUpdater.processDeleteContentErr(error);
      }
      if (metadata.finalizerEstimateSeconds > estimate)
        estimate = metadata.finalizerEstimateSeconds;
      if (metadata.numRemaining > 0) {
        gvrToNumRemaining.set(`${gvr.resource}.${gvr.group}`, metadata.numRemaining);
        for (const [f, n] of metadata.finalizersToNumRemaining ?? []) {
          if (n === 0) continue;
          finalizersToNumRemaining.set(f, (finalizersToNumRemaining.get(f) ?? 0) + n);
        }
      }
    }
    conditionUpdater.processContentTotals({ gvrToNumRemaining, finalizersToNumRemaining });

    // Always written: a condition that was failing may be fine now.
    const updated = structuredClone(ns);
    if (conditionUpdater.update(updated)) {
      try {
        await this.#opts.nsClient.updateStatus(updated);
      } catch (err) {
        logger.error(
          new Error(
            `couldn't update status condition for namespace "${namespace}": ${errorText(err)}`,
          ),
          'Unhandled Error',
        );
      }
    }
    const error = aggregate(errs);
    logger.v(4).info('namespace controller - deleteAllContent', {
      namespace,
      estimate,
      err: error?.message,
    });
    return { estimate, error };
  }

  /**
   * How long the resource's objects may take to terminate: for pods, the
   * longest grace period of those not finished, unless that much time has
   * passed since the namespace's deletion. Go's `estimateGracefulTermination`.
   */
  async #estimateGracefulTermination(
    gvr: GroupVersionResource,
    namespace: string,
    namespaceDeletedAt: number,
  ): Promise<number> {
    this.#logger.v(5).info('Namespace controller - estimateGracefulTermination', {
      group: gvr.group,
      resource: gvr.resource,
    });
    let estimate = 0;
    if (gvr.group === '' && gvr.resource === 'pods') {
      estimate = await this.#estimateGracefulTerminationForPods(namespace);
    }
    const duration = this.#clock.now() - namespaceDeletedAt;
    if (duration >= estimate * 1000) estimate = 0;
    return estimate;
  }

  /** The longest termination grace period of the pods still running. Go's `estimateGracefulTerminationForPods`. */
  async #estimateGracefulTerminationForPods(namespace: string): Promise<number> {
    this.#logger
      .v(5)
      .info('Namespace controller - estimateGracefulTerminationForPods', { namespace });
    let estimate = 0;
    const pods = await this.#opts.podsGetter.inNamespace(namespace).list();
    for (const pod of pods.items) {
      const phase = pod.status?.phase;
      // Finished pods need no time.
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const grace = pod.spec?.terminationGracePeriodSeconds;
      if (grace !== undefined && grace > estimate) estimate = grace;
    }
    return estimate;
  }
}

function opKey(op: Operation, gvr: GroupVersionResource): string {
  return `${op} ${groupVersionResourceKey(gvr)}`;
}

/** True when the namespace has no spec finalizers left. Go's `finalized`. */
function finalized(namespace: Namespace): boolean {
  return (namespace.spec?.finalizers ?? []).length === 0;
}
