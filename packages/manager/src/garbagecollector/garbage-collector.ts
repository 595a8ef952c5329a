// The garbage collector: Go's pkg/controller/garbagecollector/garbagecollector.go
// (GarbageCollector, Run, Sync, the attemptToDelete and attemptToOrphan
// workers, GetDeletableResources, DebuggingHandler). Run and Sync run
// together, with a 30 s period, as kube-controller-manager's
// startGarbageCollectorController (cmd/kube-controller-manager/app/core.go)
// starts them.
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  groupVersionString,
  isNotFound,
  noopEventRecorder,
  parseGroupVersion,
  noopLogger,
  realClock,
  type Clock,
  type EventRecorder,
  type GroupResource,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type PropagationPolicy,
} from '@kcm-ts/apimachinery';
import {
  waitForCacheSync,
  type ResourceClientSource,
  type SharedInformerFactory,
} from '@kcm-ts/informer';
import {
  DeferredDiscoveryRESTMapper,
  filteredBy,
  groupVersionResourceKey,
  serverPreferredResources,
  supportsAllVerbs,
} from '../discovery.js';
import { groupDiscoveryFailedErrorGroups, type ResourceDiscovery } from '@kcm-ts/apimachinery';
import {
  RESTMappingError,
  enqueuedVirtualDeleteEventErr,
  namespacedOwnerOfClusterScopedObjectErr,
} from './errors.js';
import type { DebuggingHandler } from '../server/secure-serving.js';
import { newDebugHandler } from './dump.js';
import { objectReferenceString, type Node, type ObjectReference } from './graph.js';
import {
  GraphBuilder,
  defaultIgnoredResources,
  hasFinalizer,
  untilAborted,
} from './graph-builder.js';
import {
  Operations,
  errorText,
  finalizerDeleteDependents,
  finalizerOrphanDependents,
} from './operations.js';
import {
  deleteOwnerRefJSONMergePatch,
  generateDeleteOwnerRefStrategicMergePatch,
  patch,
  unblockOwnerReferencesJSONMergePatch,
  unblockOwnerReferencesStrategicMergePatch,
  type PatchContext,
} from './patch.js';

/**
 * What a {@link GarbageCollector} is made from: the arguments of Go's
 * `NewGarbageCollector`, plus the injected clock, logger and event recorder.
 *
 * @category Garbage collector
 */
export interface GarbageCollectorOptions {
  /**
   * Reads, patches and deletes any resource, and lists and watches it for
   * the monitors: a metadata-only client, whose objects come as
   * `meta.k8s.io/v1` PartialObjectMetadata (client-go's `metadata` client).
   * Only `metadata` is read; an object's apiVersion and kind are always
   * those of the resource it was read from.
   */
  metadataClient: ResourceClientSource;
  /**
   * True when `metadataClient` gives whole objects instead (such as a
   * sandbox's `client`): the collector's own informers then cut each one
   * down to its metadata before caching it. Default false.
   */
  fullObjects?: boolean;
  /**
   * The API server's resources: which to monitor (re-read every
   * `syncPeriod`), and how owner references' kinds map to resources.
   */
  discovery: ResourceDiscovery;
  /**
   * Resources never monitored. Default {@link defaultIgnoredResources}:
   * core/v1 and events.k8s.io/v1 events.
   */
  ignoredResources?: readonly GroupResource[];
  /**
   * Shared informers for the monitors, such as the program's factory: the
   * collector adds its handlers and starts what is not running, and its
   * owner stops them. Default: informers of the collector's own over
   * `metadataClient`, caching metadata without `managedFields`, each
   * started and stopped with its monitor.
   */
  informerFactory?: SharedInformerFactory;
  /**
   * Resolves once the program has started its informers; monitors start
   * only after it. Go's `informersStarted`. Default: already resolved.
   */
  informersStarted?: Promise<void>;
  /** Records the `OwnerRefInvalidNamespace` events. Default: none recorded. */
  eventRecorder?: EventRecorder;
  /** Default: no logs. */
  logger?: Logger;
  /** Default: the real clock. */
  clock?: Clock;
  /**
   * How often discovery is read again to monitor new resources, in ms, and
   * how long `run` waits for the first sync. Default 30 000, as
   * kube-controller-manager.
   */
  syncPeriod?: number;
  /** How many absent owners to remember. Default 500. */
  absentOwnerCacheSize?: number;
}

/**
 * The default number of workers of each queue: kube-controller-manager's
 * `--concurrent-gc-syncs`.
 *
 * @category Garbage collector
 */
export const defaultConcurrentGCSyncs = 20;

/** What a worker does with its item afterwards. Go's `workQueueItemAction`. */
type WorkQueueItemAction = 'requeue' | 'forget';

/**
 * What {@link getDeletableResources} returns: Go's pair of result and error.
 *
 * @category Garbage collector
 */
export interface DeletableResources {
  /** The resources, keyed by {@link groupVersionResourceKey}. */
  resources: Map<string, GroupVersionResource>;
  /** Why discovery failed, in part or whole; `undefined` when it did not. */
  error: unknown;
}

/**
 * Lists the resources the garbage collector can work with: the preferred
 * resources that support `delete`, `list` and `watch`, keyed by
 * {@link groupVersionResourceKey}. When discovery fails in part, what could be
 * read comes back with the error. Go's `GetDeletableResources`.
 *
 * @category Garbage collector
 */
export async function getDeletableResources(
  discovery: ResourceDiscovery,
  logger: Logger = noopLogger,
  signal?: AbortSignal,
): Promise<DeletableResources> {
  const { resources: preferred, error } = await serverPreferredResources(discovery, signal);
  if (error !== undefined) {
    const groups = groupDiscoveryFailedErrorGroups(error);
    if (groups !== undefined) {
      logger.info('failed to discover some groups', { groups: [...groups.keys()] });
    } else {
      logger.info('failed to discover preferred resources', { error: errorText(error) });
    }
  }
  const deletable = filteredBy(supportsAllVerbs(['delete', 'list', 'watch']), preferred);
  const resources = new Map<string, GroupVersionResource>();
  for (const list of deletable) {
    let gv: { group: string; version: string };
    try {
      gv = parseGroupVersion(list.groupVersion);
    } catch (err) {
      logger.info('ignoring invalid discovered resource', {
        groupversion: list.groupVersion,
        error: errorText(err),
      });
      continue;
    }
    for (const r of list.resources) {
      const gvr = { group: gv.group, version: gv.version, resource: r.name };
      resources.set(groupVersionResourceKey(gvr), gvr);
    }
  }
  return { resources, error };
}

/**
 * kube-controller-manager's garbage collector. Metadata informers over every
 * deletable resource feed a graph of owner references; when an owner goes,
 * its dependents whose owners are all gone are deleted (background), a
 * `foregroundDeletion` owner is finalized once its blocking dependents are
 * gone, and an `orphan` owner's references are removed from its dependents
 * before its finalizer. Go's `GarbageCollector`.
 *
 * @example
 * ```ts
 * const gc = new GarbageCollector({ metadataClient, discovery, clock, logger });
 * await gc.run(defaultConcurrentGCSyncs, signal); // until signal aborts
 * ```
 *
 * @category Garbage collector
 */
export class GarbageCollector {
  readonly #graphBuilder: GraphBuilder;
  readonly #operations: Operations;
  readonly #mapper: DeferredDiscoveryRESTMapper;
  readonly #discovery: ResourceDiscovery;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #syncPeriod: number;
  #signal: AbortSignal | undefined;

  /** @param opts - see {@link GarbageCollectorOptions} */
  constructor(opts: GarbageCollectorOptions) {
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#discovery = opts.discovery;
    this.#syncPeriod = opts.syncPeriod ?? 30_000;
    this.#mapper = new DeferredDiscoveryRESTMapper(opts.discovery);
    this.#graphBuilder = new GraphBuilder({
      mapper: this.#mapper,
      metadataClient: opts.metadataClient,
      fullObjects: opts.fullObjects ?? false,
      informerFactory: opts.informerFactory,
      ignoredResources: opts.ignoredResources ?? defaultIgnoredResources(),
      informersStarted: opts.informersStarted ?? Promise.resolve(),
      eventRecorder: opts.eventRecorder ?? noopEventRecorder,
      clock: this.#clock,
      logger: this.#logger,
      absentOwnerCacheSize: opts.absentOwnerCacheSize ?? 500,
    });
    this.#operations = new Operations(this.#mapper, opts.metadataClient, this.#clock);
  }

  /** The controller's name, `garbagecollector`. Go's `Name`. */
  name(): string {
    return 'garbagecollector';
  }

  /**
   * The graph builder, for tests that look inside. Go's `GetDependencyGraphBuilder`.
   *
   * @internal
   */
  get dependencyGraphBuilder(): GraphBuilder {
    return this.#graphBuilder;
  }

  /** True when every monitor has synced. Go's `IsSynced`. */
  isSynced(): boolean {
    return this.#graphBuilder.isSynced(this.#logger);
  }

  /**
   * The collector's debugging handler, which the manager serves under
   * `/debug/controllers/garbage-collector-controller`: its `/graph` answers
   * the dependency graph in Graphviz DOT, or only the part connected to the
   * objects named by `uid` query parameters. Go's `DebuggingHandler`.
   *
   * @example
   * ```ts
   * const { body } = await gc.debuggingHandler()('/graph', new URLSearchParams({ uid }));
   * ```
   */
  debuggingHandler(): DebuggingHandler {
    return newDebugHandler(this.#graphBuilder.uidToNode);
  }

  /** True when the graph holds a node for `uid`. Go's `GraphHasUID`. */
  graphHasUID(uid: string): boolean {
    return this.#graphBuilder.uidToNode.read(uid) !== undefined;
  }

  /**
   * Runs the collector until `signal` aborts: the graph builder, the periodic
   * discovery sync that starts and stops monitors (Go's `Sync`), and, once
   * the monitors have synced or `syncPeriod` has passed, `workers` workers on
   * each of the attemptToDelete and attemptToOrphan queues. Resolves when all
   * of it has stopped. Go's `Run`, with `Sync` beside it as
   * kube-controller-manager starts them.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    const gb = this.#graphBuilder;
    this.#signal = signal;
    logger.info('Starting controller', { controller: 'garbagecollector' });
    const running: Promise<void>[] = [gb.run(signal), this.#sync(signal)];
    try {
      const synced = await this.#waitForSync(signal, this.#syncPeriod);
      if (!signal.aborted) {
        if (synced) logger.info('Garbage collector: all resource monitors have synced');
        else
          logger.info(
            'Garbage collector: not all resource monitors could be synced, proceeding anyways',
          );
        logger.info('Proceeding to collect garbage');
        for (let i = 0; i < workers; i++) {
          running.push(this.#runAttemptToDeleteWorker(), this.#runAttemptToOrphanWorker());
        }
      }
      await untilAborted(signal);
    } finally {
      logger.info('Shutting down controller', { controller: 'garbagecollector' });
      gb.graphChanges.shutDown();
      gb.attemptToOrphan.shutDown();
      gb.attemptToDelete.shutDown();
      await Promise.all(running);
    }
  }

  /** Polls {@link GarbageCollector.isSynced} every 100 ms for at most `timeout` ms. */
  async #waitForSync(signal: AbortSignal, timeout: number): Promise<boolean> {
    const deadline = new AbortController();
    const timer = this.#clock.afterFunc(timeout, () => deadline.abort());
    const onAbort = () => deadline.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await waitForCacheSync(deadline.signal, [() => this.isSynced()], {
        clock: this.#clock,
      });
    } finally {
      timer.stop();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Reads discovery every `syncPeriod`; when the deletable resources change,
   * resets the REST mapper, starts and stops monitors, and waits (at most a
   * period) for them to sync. Go's `Sync`.
   */
  async #sync(signal: AbortSignal): Promise<void> {
    let oldResources = new Map<string, GroupVersionResource>();
    const logger = this.#logger;
    while (!signal.aborted) {
      try {
        oldResources = await this.#syncOnce(signal, oldResources);
      } catch (err) {
        logger.error(err, 'garbage collector sync failed');
      }
      await this.#clock.sleep(this.#syncPeriod, signal);
    }
  }

  async #syncOnce(
    signal: AbortSignal,
    oldResources: Map<string, GroupVersionResource>,
  ): Promise<Map<string, GroupVersionResource>> {
    const logger = this.#logger;
    const gb = this.#graphBuilder;
    const { resources: newResources, error } = await getDeletableResources(
      this.#discovery,
      logger,
      signal,
    );
    if (signal.aborted) return oldResources;
    if (newResources.size === 0) {
      logger.v(2).info('no resources reported by discovery, skipping garbage collector sync');
      return oldResources;
    }
    const failedGroups = groupDiscoveryFailedErrorGroups(error);
    if (failedGroups !== undefined) {
      // Keep the synced monitors of groups discovery could not read this time.
      for (const [key, gvr] of oldResources) {
        if (failedGroups.has(groupVersionString(gvr)) && gb.isResourceSynced(gvr))
          newResources.set(key, gvr);
      }
    }
    if (sameKeys(oldResources, newResources)) {
      logger.v(5).info('no resource updates from discovery, skipping garbage collector sync');
      return oldResources;
    }
    logger.v(2).info('syncing garbage collector with updated resources from discovery', {
      diff: printDiff(oldResources, newResources),
    });
    this.#mapper.reset();
    logger.v(4).info('reset restmapper');
    try {
      await gb.syncMonitors(logger, newResources);
      await gb.startMonitors(logger);
    } catch (err) {
      logger.error(
        new Error(`failed to sync resource monitors: ${errorText(err)}`),
        'Unhandled Error',
      );
      return oldResources;
    }
    logger.v(4).info('resynced monitors');
    if (await this.#waitForSync(signal, this.#syncPeriod)) {
      logger.v(2).info('synced garbage collector');
    } else if (!signal.aborted) {
      logger.error(
        new Error('timed out waiting for dependency graph builder sync during GC sync'),
        'Unhandled Error',
      );
    }
    return newResources;
  }

  async #runAttemptToDeleteWorker(): Promise<void> {
    while (await this.#processAttemptToDeleteWorker()) {
      // Loop until the queue shuts down.
    }
  }

  async #processAttemptToDeleteWorker(): Promise<boolean> {
    const queue = this.#graphBuilder.attemptToDelete;
    const [item, quit] = await queue.get();
    if (quit) return false;
    try {
      const action = await this.#attemptToDeleteWorker(item);
      if (action === 'forget') queue.forget(item);
      else queue.addRateLimited(item);
    } finally {
      queue.done(item);
    }
    return true;
  }

  async #attemptToDeleteWorker(item: Node): Promise<WorkQueueItemAction> {
    const logger = this.#logger;
    const uidToNode = this.#graphBuilder.uidToNode;
    let n = item;
    if (!n.isObserved()) {
      const nodeFromGraph = uidToNode.read(n.identity.uid);
      if (nodeFromGraph === undefined) {
        // Retried while its real object's deletion was observed.
        logger.v(5).info('item no longer in the graph, skipping attemptToDeleteItem', {
          item: objectReferenceString(n.identity),
        });
        return 'forget';
      }
      if (nodeFromGraph.isObserved()) {
        // Retried while its real object was observed.
        logger
          .v(5)
          .info(
            'item no longer virtual in the graph, skipping attemptToDeleteItem on virtual node',
            {
              item: objectReferenceString(n.identity),
            },
          );
        return 'forget';
      }
    }
    // The queued node may be older than the graph's: take the graph's apiVersion and kind.
    const nodeFromGraph = uidToNode.read(n.identity.uid);
    if (
      nodeFromGraph !== undefined &&
      (n.identity.apiVersion !== nodeFromGraph.identity.apiVersion ||
        n.identity.kind !== nodeFromGraph.identity.kind)
    ) {
      n = n.clone();
      n.identity = {
        ...n.identity,
        apiVersion: nodeFromGraph.identity.apiVersion,
        kind: nodeFromGraph.identity.kind,
      };
    }
    try {
      await this.#attemptToDeleteItem(n);
    } catch (err) {
      if (err === enqueuedVirtualDeleteEventErr) return 'forget';
      if (err === namespacedOwnerOfClusterScopedObjectErr) return 'forget';
      if (this.#signal?.aborted) return 'forget';
      if (err instanceof RESTMappingError) {
        logger.error(err, 'error syncing item', { item: objectReferenceString(n.identity) });
      } else {
        logger.error(
          new Error(`error syncing item ${objectReferenceString(n.identity)}: ${errorText(err)}`),
          'Unhandled Error',
        );
      }
      return 'requeue';
    }
    if (!n.isObserved()) {
      // Keep checking until an informer sees it, or a virtual node could outlive an
      // object created and deleted while a watch was down (kubernetes issue 56121).
      logger.v(5).info("item hasn't been observed via informer yet", {
        item: objectReferenceString(n.identity),
      });
      return 'requeue';
    }
    return 'forget';
  }

  #patchContext(): PatchContext {
    const gb = this.#graphBuilder;
    return {
      operations: this.#operations,
      cachedObject: (mapping, namespace, name) => gb.cachedObject(mapping, namespace, name),
    };
  }

  /**
   * True when `reference` points at nothing: its owner is known absent, or
   * the API server has no object of that name with that uid. Otherwise also
   * the owner as read. Go's `isDangling`.
   */
  async #isDangling(
    reference: OwnerReference,
    item: Node,
  ): Promise<{ dangling: boolean; owner?: KubeObject }> {
    const logger = this.#logger;
    const coordinates = {
      apiVersion: reference.apiVersion,
      kind: reference.kind,
      name: reference.name,
      uid: reference.uid,
    };
    let absentOwnerCacheKey: ObjectReference = { ...coordinates, namespace: '' };
    const cache = this.#graphBuilder.absentOwnerCache;
    if (cache.has(absentOwnerCacheKey)) {
      logger.v(5).info("according to the absentOwnerCache, item's owner does not exist", {
        item: objectReferenceString(item.identity),
        owner: reference.uid,
      });
      return { dangling: true };
    }
    absentOwnerCacheKey = { ...coordinates, namespace: item.identity.namespace };
    if (cache.has(absentOwnerCacheKey)) {
      logger
        .v(5)
        .info("according to the absentOwnerCache, item's owner does not exist in namespace", {
          item: objectReferenceString(item.identity),
          owner: reference.uid,
        });
      return { dangling: true };
    }
    const mapping = await this.#operations.apiResource(reference.apiVersion, reference.kind);
    if (!mapping.namespaced) absentOwnerCacheKey = { ...absentOwnerCacheKey, namespace: '' };
    if (item.identity.namespace === '' && mapping.namespaced) {
      // Retrying cannot make this valid.
      logger.v(2).info('item is cluster-scoped, but refers to a namespaced owner', {
        item: objectReferenceString(item.identity),
        owner: reference.uid,
      });
      throw namespacedOwnerOfClusterScopedObjectErr;
    }
    let owner: KubeObject;
    try {
      owner = await this.#operations.client(mapping, item.identity.namespace).get(reference.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      cache.add(absentOwnerCacheKey);
      logger.v(5).info("item's owner is not found", {
        item: objectReferenceString(item.identity),
        owner: reference.uid,
      });
      return { dangling: true };
    }
    if (owner.metadata?.uid !== reference.uid) {
      logger.v(5).info("item's owner is not found, UID mismatch", {
        item: objectReferenceString(item.identity),
        owner: reference.uid,
      });
      cache.add(absentOwnerCacheKey);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  /**
   * Sorts `latestReferences` into solid (the owner exists and is not deleting
   * in foreground), dangling (the owner is gone), and waiting (the owner is
   * being deleted with `foregroundDeletion`). Go's `classifyReferences`.
   */
  async #classifyReferences(
    item: Node,
    latestReferences: readonly OwnerReference[],
  ): Promise<{
    solid: OwnerReference[];
    dangling: OwnerReference[];
    waitingForDependentsDeletion: OwnerReference[];
  }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waitingForDependentsDeletion: OwnerReference[] = [];
    for (const reference of latestReferences) {
      const result = await this.#isDangling(reference, item);
      if (result.dangling || result.owner === undefined) {
        dangling.push(reference);
        continue;
      }
      const owner = result.owner;
      if (
        owner.metadata?.deletionTimestamp != null &&
        hasFinalizer(owner, finalizerDeleteDependents)
      ) {
        waitingForDependentsDeletion.push(reference);
      } else {
        solid.push(reference);
      }
    }
    return { solid, dangling, waitingForDependentsDeletion };
  }

  /**
   * Reads the item and deletes it if its uid still matches, it is not
   * waiting for its own dependents, and every owner reference dangles;
   * removes the dangling and waiting references of an item that still has a
   * solid owner. An item the API server does not have leaves the graph
   * through a virtual delete event. Go's `attemptToDeleteItem`.
   */
  async #attemptToDeleteItem(item: Node): Promise<void> {
    const logger = this.#logger;
    const gb = this.#graphBuilder;
    const identity = objectReferenceString(item.identity);
    logger.v(2).info('Processing item', { item: identity, virtual: !item.isObserved() });
    // Once deleting, an object only waits for its final deletion; then its dependents get processed.
    if (item.isBeingDeleted() && !item.isDeletingDependents()) {
      logger
        .v(5)
        .info('processing item returned at once, because its DeletionTimestamp is non-nil', {
          item: identity,
        });
      return;
    }
    let latest: KubeObject;
    try {
      latest = await this.#operations.getObject(item.identity);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // A virtual node for an owner that does not exist: take it out of the graph.
      logger.v(5).info('item not found, generating a virtual delete event', { item: identity });
      gb.enqueueVirtualDeleteEvent(item.identity);
      throw enqueuedVirtualDeleteEventErr;
    }
    const meta = latest.metadata ?? {};
    if (meta.uid !== item.identity.uid) {
      logger.v(5).info("UID doesn't match, item not found, generating a virtual delete event", {
        item: identity,
      });
      gb.enqueueVirtualDeleteEvent(item.identity);
      throw enqueuedVirtualDeleteEventErr;
    }
    if (item.isDeletingDependents()) {
      await this.#processDeletingDependentsItem(item);
      return;
    }
    const ownerReferences = meta.ownerReferences ?? [];
    if (ownerReferences.length === 0) {
      logger.v(2).info("item doesn't have an owner, continue on next item", { item: identity });
      return;
    }
    const { solid, dangling, waitingForDependentsDeletion } = await this.#classifyReferences(
      item,
      ownerReferences,
    );
    logger.v(5).info("classify item's references", {
      item: identity,
      solid: solid.map((r) => r.uid),
      dangling: dangling.map((r) => r.uid),
      waitingForDependentsDeletion: waitingForDependentsDeletion.map((r) => r.uid),
    });

    if (solid.length !== 0) {
      logger.v(2).info('item has at least one existing owner, will not garbage collect', {
        item: identity,
        owner: solid.map((r) => r.uid),
      });
      if (dangling.length === 0 && waitingForDependentsDeletion.length === 0) return;
      logger.v(2).info('remove dangling references and waiting references for item', {
        item: identity,
        dangling: dangling.map((r) => r.uid),
        waitingForDependentsDeletion: waitingForDependentsDeletion.map((r) => r.uid),
      });
      // A waiting owner would otherwise never lose its foregroundDeletion finalizer.
      const ownerUIDs = [...dangling, ...waitingForDependentsDeletion].map((r) => r.uid);
      const ctx = this.#patchContext();
      await patch(
        ctx,
        item,
        generateDeleteOwnerRefStrategicMergePatch(item.identity.uid, ownerUIDs),
        (n) => deleteOwnerRefJSONMergePatch(ctx, n, ownerUIDs),
      );
      return;
    }

    let policy: PropagationPolicy;
    if (waitingForDependentsDeletion.length !== 0 && item.dependentsLength() !== 0) {
      for (const dep of item.getDependents()) {
        if (!dep.isDeletingDependents()) continue;
        // An owner and a dependent both deleting in foreground may wait on each other:
        // make this item's references non-blocking first (a cautious cycle check).
        logger
          .v(2)
          .info(
            'processing item, some of its owners and its dependent have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the item is going to be deleted with Foreground',
            { item: identity, dependent: objectReferenceString(dep.identity) },
          );
        const ctx = this.#patchContext();
        await patch(ctx, item, unblockOwnerReferencesStrategicMergePatch(item), (n) =>
          unblockOwnerReferencesJSONMergePatch(ctx, n),
        );
        break;
      }
      logger
        .v(2)
        .info(
          'at least one owner of item has FinalizerDeletingDependents, and the item itself has dependents, so it is going to be deleted in Foreground',
          { item: identity },
        );
      // Deleting in foreground brings the item back here, in processDeletingDependentsItem.
      policy = 'Foreground';
    } else if (hasFinalizer(latest, finalizerOrphanDependents)) {
      // No solid owner: it goes, honouring a policy its own finalizers already ask for.
      policy = 'Orphan';
    } else if (hasFinalizer(latest, finalizerDeleteDependents)) {
      policy = 'Foreground';
    } else {
      policy = 'Background';
    }
    logger.v(2).info('Deleting item', { item: identity, propagationPolicy: policy });
    try {
      await this.#operations.deleteObject(
        item.identity,
        meta.resourceVersion ?? '',
        meta.ownerReferences,
        policy,
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
      gb.enqueueVirtualDeleteEvent(item.identity);
      throw enqueuedVirtualDeleteEventErr;
    }
  }

  /**
   * An item deleting in foreground: remove its `foregroundDeletion`
   * finalizer once no blocking dependent is left, else queue those
   * dependents. Go's `processDeletingDependentsItem`.
   */
  async #processDeletingDependentsItem(item: Node): Promise<void> {
    const logger = this.#logger;
    const blockingDependents = item.blockingDependents();
    if (blockingDependents.length === 0) {
      logger.v(2).info('remove DeleteDependents finalizer for item', {
        item: objectReferenceString(item.identity),
      });
      await this.#operations.removeFinalizer(logger, item, finalizerDeleteDependents, this.#signal);
      return;
    }
    for (const dep of blockingDependents) {
      if (dep.isDeletingDependents()) continue;
      logger
        .v(2)
        .info('adding dependent to attemptToDelete, because its owner is deletingDependents', {
          item: objectReferenceString(item.identity),
          dependent: objectReferenceString(dep.identity),
        });
      this.#graphBuilder.attemptToDelete.add(dep);
    }
  }

  /**
   * Removes the owner's reference from every dependent, all at once. A
   * dependent already gone is fine. Go's `orphanDependents`.
   */
  async #orphanDependents(owner: ObjectReference, dependents: readonly Node[]): Promise<void> {
    const ctx = this.#patchContext();
    const results = await Promise.all(
      dependents.map(async (dependent) => {
        try {
          // The dependent's uid in the patch makes it a precondition.
          await patch(
            ctx,
            dependent,
            generateDeleteOwnerRefStrategicMergePatch(dependent.identity.uid, [owner.uid]),
            (n) => deleteOwnerRefJSONMergePatch(ctx, n, [owner.uid]),
          );
          return undefined;
        } catch (err) {
          // A dependent already gone needs no orphaning; a missing reference is no error anyway.
          if (isNotFound(err)) return undefined;
          return `orphaning ${objectReferenceString(dependent.identity)} failed, ${errorText(err)}`;
        }
      }),
    );
    const failures = results.filter((r): r is string => r !== undefined);
    if (failures.length > 0) {
      const aggregate = failures.length === 1 ? failures[0] : `[${failures.join(', ')}]`;
      throw new Error(
        `failed to orphan dependents of owner ${objectReferenceString(owner)}, got errors: ${aggregate}`,
      );
    }
    this.#logger.v(5).info('successfully updated all dependents', {
      owner: objectReferenceString(owner),
    });
  }

  async #runAttemptToOrphanWorker(): Promise<void> {
    while (await this.#processAttemptToOrphanWorker()) {
      // Loop until the queue shuts down.
    }
  }

  async #processAttemptToOrphanWorker(): Promise<boolean> {
    const queue = this.#graphBuilder.attemptToOrphan;
    const [item, quit] = await queue.get();
    if (quit) return false;
    try {
      const action = await this.#attemptToOrphanWorker(item);
      if (action === 'forget') queue.forget(item);
      else queue.addRateLimited(item);
    } finally {
      queue.done(item);
    }
    return true;
  }

  /**
   * Orphans the owner's dependents as the graph knows them, then removes its
   * `orphan` finalizer; retried on any failure. Go's `attemptToOrphanWorker`.
   */
  async #attemptToOrphanWorker(owner: Node): Promise<WorkQueueItemAction> {
    const logger = this.#logger;
    const identity = objectReferenceString(owner.identity);
    try {
      await this.#orphanDependents(owner.identity, owner.getDependents());
    } catch (err) {
      if (this.#signal?.aborted) return 'forget';
      logger.error(
        new Error(`orphanDependents for ${identity} failed with ${errorText(err)}`),
        'Unhandled Error',
      );
      return 'requeue';
    }
    try {
      await this.#operations.removeFinalizer(
        logger,
        owner,
        finalizerOrphanDependents,
        this.#signal,
      );
    } catch (err) {
      if (this.#signal?.aborted) return 'forget';
      logger.error(
        new Error(`removeOrphanFinalizer for ${identity} failed with ${errorText(err)}`),
        'Unhandled Error',
      );
      return 'requeue';
    }
    return 'forget';
  }
}

function sameKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a.keys()) if (!b.has(key)) return false;
  return true;
}

/** `added: [...], removed: [...]`, as Go's `printDiff`. */
function printDiff(
  oldResources: ReadonlyMap<string, GroupVersionResource>,
  newResources: ReadonlyMap<string, GroupVersionResource>,
): string {
  const fmt = (gvr: GroupVersionResource) =>
    `{Group:${gvr.group} Version:${gvr.version} Resource:${gvr.resource}}`;
  const removed = [...oldResources]
    .filter(([k]) => !newResources.has(k))
    .map(([, v]) => fmt(v))
    .sort();
  const added = [...newResources]
    .filter(([k]) => !oldResources.has(k))
    .map(([, v]) => fmt(v))
    .sort();
  return `added: [${added.join(' ')}], removed: [${removed.join(' ')}]`;
}
