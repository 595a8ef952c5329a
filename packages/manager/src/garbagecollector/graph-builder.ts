// Turns informer events into the ownership graph and into work for the
// garbage collector's queues: Go's
// pkg/controller/garbagecollector/graph_builder.go (GraphBuilder, its
// monitors, processGraphChanges and the helpers around it).
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  groupResourceString,
  groupVersionString,
  isDeletedFinalStateUnknown,
  parseGroupVersion,
  type Clock,
  type EventRecorder,
  type GroupResource,
  type GroupVersionKind,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  SharedIndexInformer,
  type ResourceClientSource,
  type ResourceEventHandler,
  type ResourceEventHandlerRegistration,
  type SharedInformerFactory,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  groupVersionResourceKey,
  type DeferredDiscoveryRESTMapper,
  type RESTMapping,
} from '../discovery.js';
import {
  Node,
  UIDToNode,
  objectReferenceString,
  ownerReferenceCoordinates,
  ownerReferenceMatchesCoordinates,
  referenceFromOwner,
  referenceKey,
  sameReference,
  type ObjectReference,
} from './graph.js';
import {
  errorText,
  finalizerDeleteDependents,
  finalizerOrphanDependents,
  ownerReferenceEqual,
} from './operations.js';
import { ReferenceCache } from './uid-cache.js';

/** What happened to an object. Go's `eventType`. */
export type GraphEventType = 'add' | 'update' | 'delete';

/** One change for the graph builder's loop. Go's `event`. */
export interface GraphEvent {
  /** True for an event made up by the collector, not seen from an informer. */
  readonly virtual: boolean;
  readonly eventType: GraphEventType;
  readonly obj: KubeObject;
  /** For an update: the object before it. */
  readonly oldObj?: KubeObject;
  /** The kind of the object, as its monitor knows it. */
  readonly gvk: GroupVersionKind;
}

/**
 * A watched resource: the informer feeding the graph, and our handler on it.
 * Go's `monitor`. An informer of the collector's own can be stopped alone; a
 * shared one only loses our handler.
 */
interface Monitor {
  readonly mapping: RESTMapping;
  readonly informer: SharedIndexInformer<KubeObject>;
  readonly registration: ResourceEventHandlerRegistration;
  readonly shared: boolean;
  started: boolean;
  /** For an informer of our own: stops it. */
  stop?: () => void;
}

/**
 * The resources the garbage collector does not watch by default: core/v1
 * and events.k8s.io/v1 events, which nobody owns and of which there are many.
 * Go's `DefaultIgnoredResources`.
 *
 * @category Garbage collector
 */
export function defaultIgnoredResources(): GroupResource[] {
  return [
    { group: '', resource: 'events' },
    { group: 'events.k8s.io', resource: 'events' },
  ];
}

/** Options of a {@link GraphBuilder}. */
export interface GraphBuilderOptions {
  readonly mapper: DeferredDiscoveryRESTMapper;
  /** Lists and watches resources for monitors of the collector's own. */
  readonly metadataClient: ResourceClientSource;
  /** True when `metadataClient` gives whole objects, which our caches then cut down. */
  readonly fullObjects: boolean;
  /** Shared informers to monitor through instead; their owner starts and stops them. */
  readonly informerFactory: SharedInformerFactory | undefined;
  readonly ignoredResources: readonly GroupResource[];
  readonly informersStarted: Promise<void>;
  readonly eventRecorder: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly absentOwnerCacheSize: number;
}

/** `apps/v1, Resource=deployments` (`/v1, Resource=pods`), as Go prints a GroupVersionResource. */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/**
 * Builds the ownership graph from the monitors' events in one loop and
 * queues objects for the workers: to `attemptToDelete` when they may be
 * garbage (or are waiting for their dependents), to `attemptToOrphan` when
 * their dependents must be orphaned. Go's `GraphBuilder`.
 */
export class GraphBuilder {
  readonly graphChanges: RateLimitingQueue<GraphEvent>;
  readonly uidToNode = new UIDToNode();
  readonly attemptToDelete: RateLimitingQueue<Node>;
  readonly attemptToOrphan: RateLimitingQueue<Node>;
  readonly absentOwnerCache: ReferenceCache;
  readonly #opts: GraphBuilderOptions;
  readonly #ignored: ReadonlySet<string>;
  #monitors: Map<string, Monitor> | undefined;
  /** Stops the informers of our own that run. */
  readonly #ownInformers = new Set<AbortController>();
  /** What those informers' runs return. */
  readonly #running = new Set<Promise<void>>();
  #isRunning = false;
  #signal: AbortSignal | undefined;

  constructor(opts: GraphBuilderOptions) {
    this.#opts = opts;
    this.#ignored = new Set(opts.ignoredResources.map((gr) => `${gr.group}/${gr.resource}`));
    const queue = <T>(name: string) =>
      newRateLimitingQueue<T>(defaultControllerRateLimiter<T>(opts.clock), {
        name,
        clock: opts.clock,
      });
    this.attemptToDelete = queue<Node>('garbage_collector_attempt_to_delete');
    this.attemptToOrphan = queue<Node>('garbage_collector_attempt_to_orphan');
    this.graphChanges = queue<GraphEvent>('garbage_collector_graph_changes');
    this.absentOwnerCache = new ReferenceCache(opts.absentOwnerCacheSize);
  }

  /** The monitor's informer and handler for `resource`: Go's `controllerFor`. */
  #controllerFor(mapping: RESTMapping): Monitor {
    const kind = mapping.groupVersionKind;
    const handlers: ResourceEventHandler<KubeObject> = {
      onAdd: (obj) => this.graphChanges.add({ virtual: false, eventType: 'add', obj, gvk: kind }),
      onUpdate: (oldObj, newObj) =>
        this.graphChanges.add({
          virtual: false,
          eventType: 'update',
          obj: newObj,
          oldObj,
          gvk: kind,
        }),
      onDelete: (obj) => {
        // The informer may have missed the deletion; its last known state will do.
        const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (last === undefined) return;
        this.graphChanges.add({ virtual: false, eventType: 'delete', obj: last, gvk: kind });
      },
    };
    const factory = this.#opts.informerFactory;
    let informer: SharedIndexInformer<KubeObject>;
    if (factory !== undefined) {
      informer = factory.informerFor<KubeObject>({
        ...mapping.resource,
        kind: kind.kind,
        namespaced: mapping.namespaced,
        singular: mapping.singular,
      });
    } else {
      const client = this.#opts.metadataClient.resource(mapping.resource, {
        namespaced: mapping.namespaced,
        kind: kind.kind,
      });
      informer = new SharedIndexInformer<KubeObject>(client, {
        clock: this.#opts.clock,
        objectDescription: groupResourceString(mapping.resource),
        // Whole objects are cut down to what the graph reads; PartialObjectMetadata
        // only loses managedFields, as kube-controller-manager's metadata informers do.
        transform: this.#opts.fullObjects ? toPartialObjectMetadata : withoutManagedFields,
      });
      const log = this.#opts.logger;
      informer.setWatchErrorHandler((_r, err) =>
        log.error(err, 'Failed to watch', { resource: gvrString(mapping.resource) }),
      );
    }
    this.#opts.logger.v(4).info('using a shared informer', {
      resource: gvrString(mapping.resource),
      kind: kind.kind,
    });
    const registration = informer.addEventHandler(handlers, { resyncPeriod: 0 });
    return { mapping, informer, registration, shared: factory !== undefined, started: false };
  }

  /**
   * Makes the monitors those of `resources` (keyed by
   * {@link groupVersionResourceKey}), creating and dropping monitors, without
   * starting the new ones: Go's `syncMonitors`. Tries every resource, then
   * rejects with the failures, if any.
   */
  async syncMonitors(
    logger: Logger,
    resources: ReadonlyMap<string, GroupVersionResource>,
  ): Promise<void> {
    const toRemove = new Map(this.#monitors ?? []);
    const current = new Map<string, Monitor>();
    const errs: string[] = [];
    let kept = 0;
    let added = 0;
    for (const [key, resource] of resources) {
      if (this.#ignored.has(`${resource.group}/${resource.resource}`)) continue;
      const existing = toRemove.get(key);
      if (existing !== undefined) {
        current.set(key, existing);
        toRemove.delete(key);
        kept++;
        continue;
      }
      let mapping: RESTMapping;
      try {
        mapping = await this.#opts.mapper.resourceMapping(resource);
      } catch (err) {
        errs.push(`couldn't look up resource "${gvrString(resource)}": ${errorText(err)}`);
        continue;
      }
      try {
        current.set(key, this.#controllerFor(mapping));
        added++;
      } catch (err) {
        errs.push(
          `couldn't start monitor for resource "${gvrString(resource)}": ${errorText(err)}`,
        );
      }
    }
    this.#monitors = current;
    for (const monitor of toRemove.values()) {
      // A shared informer cannot be stopped for one user: it only loses our handler.
      monitor.informer.removeEventHandler(monitor.registration);
      monitor.stop?.();
    }
    logger.v(4).info('synced monitors', { added, kept, removed: toRemove.size });
    if (errs.length === 1) throw new Error(errs[0]);
    if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`);
  }

  /**
   * Starts the monitors not running yet, once the program's informers have
   * been started: Go's `startMonitors`. Before {@link GraphBuilder.run} it does nothing.
   */
  async startMonitors(logger: Logger): Promise<void> {
    if (!this.#isRunning) return;
    const signal = this.#signal;
    if (signal === undefined) return;
    // Waiting for the other controllers' informers keeps their queues free of surprises.
    await untilAborted(signal, this.#opts.informersStarted);
    if (!this.#isRunning || signal.aborted) return;
    const monitors = this.#monitors ?? new Map<string, Monitor>();
    let started = 0;
    let startShared = false;
    for (const monitor of monitors.values()) {
      if (monitor.started) continue;
      monitor.started = true;
      started++;
      if (monitor.shared) {
        startShared = true;
        continue;
      }
      // Each informer of our own listens to a signal of its own, so it can stop alone.
      const stop = new AbortController();
      this.#ownInformers.add(stop);
      monitor.stop = () => stop.abort();
      const done = monitor.informer.run(stop.signal).finally(() => {
        this.#ownInformers.delete(stop);
        this.#running.delete(done);
      });
      this.#running.add(done);
    }
    if (startShared) this.#opts.informerFactory?.start(signal);
    logger.v(4).info('started new monitors', { new: started, current: monitors.size });
  }

  async #stopMonitors(logger: Logger): Promise<void> {
    const monitors = [...(this.#monitors ?? new Map<string, Monitor>()).values()];
    this.#monitors = undefined;
    const stopped = monitors.filter((m) => m.started).length;
    for (const stop of this.#ownInformers) stop.abort();
    await Promise.all([
      ...this.#running,
      ...monitors
        .filter((m) => m.shared)
        .map((m) => m.informer.shutDownEventHandler(m.registration)),
    ]);
    logger.info('stopped monitors', { stopped, total: monitors.length });
  }

  /** True when `resource` is monitored and its monitor has synced. Go's `IsResourceSynced`. */
  isResourceSynced(resource: GroupVersionResource): boolean {
    const monitor = this.#monitors?.get(groupVersionResourceKey(resource));
    return monitor !== undefined && monitor.registration.hasSynced();
  }

  /**
   * True when there are monitors and every one has synced: Go's `IsSynced`.
   * It may turn false again when new monitors are added.
   */
  isSynced(logger: Logger): boolean {
    const monitors = this.#monitors;
    if (monitors === undefined || monitors.size === 0) {
      logger.v(4).info('garbage controller monitor not synced: no monitors');
      return false;
    }
    for (const [key, monitor] of monitors) {
      if (!monitor.registration.hasSynced()) {
        logger.v(4).info('garbage controller monitor not yet synced', { resource: key });
        return false;
      }
    }
    return true;
  }

  /** The monitored resources, keyed by {@link groupVersionResourceKey}. */
  monitoredResources(): string[] {
    return [...(this.#monitors?.keys() ?? [])];
  }

  /** The monitor cache's copy of an object, if its resource is monitored. */
  cachedObject(mapping: RESTMapping, namespace: string, name: string): KubeObject | undefined {
    const monitor = this.#monitors?.get(groupVersionResourceKey(mapping.resource));
    if (monitor === undefined) return undefined;
    const key = mapping.namespaced && namespace ? `${namespace}/${name}` : name;
    return monitor.informer.getStore().getByKey(key);
  }

  /**
   * Starts the monitors and applies graph changes until the graph-changes
   * queue is shut down (the collector does that when `signal` aborts), then
   * stops the monitors: Go's `Run`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#opts.logger;
    logger.info('Running', { component: 'GraphBuilder' });
    this.#signal = signal;
    this.#isRunning = true;
    const onAbort = () => this.graphChanges.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.startMonitors(logger);
      for (;;) {
        const [event, shutdown] = await this.graphChanges.get();
        if (shutdown) break;
        try {
          this.processGraphChanges(logger, event);
        } catch (err) {
          logger.error(err, 'Failed to process a graph change');
        } finally {
          this.graphChanges.done(event);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      // No new monitors may start once stopping has begun.
      this.#isRunning = false;
      await this.#stopMonitors(logger);
      logger.info('Stopping', { component: 'GraphBuilder' });
    }
  }

  /**
   * Queues a made-up delete event for an object the API server says does
   * not exist, so that its node leaves the graph: Go's `enqueueVirtualDeleteEvent`.
   */
  enqueueVirtualDeleteEvent(ref: ObjectReference): void {
    let gv = { group: '', version: '' };
    try {
      gv = parseGroupVersion(ref.apiVersion);
    } catch {
      // Go ignores the parse error too and uses the zero group version.
    }
    this.graphChanges.add({
      virtual: true,
      eventType: 'delete',
      gvk: { ...gv, kind: ref.kind },
      obj: {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { namespace: ref.namespace, uid: ref.uid, name: ref.name },
      },
    });
  }

  /**
   * Adds `n` to the dependents of each of `owners`, creating a virtual node
   * (queued for verification) for an owner not in the graph. Queues `n`
   * itself when a reference looks wrong: an owner in another namespace
   * (reported with an `OwnerRefInvalidNamespace` event), coordinates that do
   * not match the observed owner, or a virtual cluster-scoped owner. Go's
   * `addDependentToOwners`.
   */
  addDependentToOwners(logger: Logger, n: Node, owners: readonly OwnerReference[]): void {
    let hasPotentiallyInvalidOwnerReference = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.read(owner.uid);
      const ok = ownerNode !== undefined;
      if (ownerNode === undefined) {
        ownerNode = new Node({
          identity: referenceFromOwner(owner, n.identity.namespace),
          virtual: true,
        });
        logger
          .v(5)
          .info('add virtual item', { identity: objectReferenceString(ownerNode.identity) });
        this.uidToNode.write(ownerNode);
      }
      ownerNode.addDependent(n);
      if (!ok) {
        // The workers ask the API server; a virtual delete event removes it if absent.
        this.attemptToDelete.add(ownerNode);
      } else if (!hasPotentiallyInvalidOwnerReference) {
        const ownerIsNamespaced = ownerNode.identity.namespace.length > 0;
        if (ownerIsNamespaced && ownerNode.identity.namespace !== n.identity.namespace) {
          if (ownerNode.isObserved()) {
            logger.v(2).info('item references an owner but does not match namespaces', {
              item: objectReferenceString(n.identity),
              owner: objectReferenceString(ownerNode.identity),
            });
            this.reportInvalidNamespaceOwnerRef(n, owner.uid);
          }
          hasPotentiallyInvalidOwnerReference = true;
        } else if (!ownerReferenceMatchesCoordinates(owner, ownerNode.identity)) {
          if (ownerNode.isObserved()) {
            logger
              .v(2)
              .info(
                'item references an owner with coordinates that do not match the observed identity',
                {
                  item: objectReferenceString(n.identity),
                  owner: objectReferenceString(ownerNode.identity),
                },
              );
          }
          hasPotentiallyInvalidOwnerReference = true;
        } else if (
          !ownerIsNamespaced &&
          ownerNode.identity.namespace !== n.identity.namespace &&
          !ownerNode.isObserved()
        ) {
          // Maybe a namespaced owner a cluster-scoped object wrongly names: let a worker check.
          hasPotentiallyInvalidOwnerReference = true;
        }
      }
    }
    if (hasPotentiallyInvalidOwnerReference) this.attemptToDelete.add(n);
  }

  /** Records the Warning event `OwnerRefInvalidNamespace` on `n`. Go's `reportInvalidNamespaceOwnerRef`. */
  reportInvalidNamespaceOwnerRef(n: Node, invalidOwnerUID: string): void {
    const invalidOwnerRef = n.owners.find((o) => o.uid === invalidOwnerUID);
    if (invalidOwnerRef === undefined) return;
    const { identity } = n;
    const invalidIdentity = referenceFromOwner(invalidOwnerRef, identity.namespace);
    this.#opts.eventRecorder.event(
      {
        kind: identity.kind,
        apiVersion: identity.apiVersion,
        namespace: identity.namespace,
        name: identity.name,
        uid: identity.uid,
      },
      'Warning',
      'OwnerRefInvalidNamespace',
      `ownerRef ${objectReferenceString(invalidIdentity)} does not exist in namespace ${JSON.stringify(identity.namespace)}`,
    );
  }

  /** Puts `n` in the graph and links it to its owners. Go's `insertNode`. */
  insertNode(logger: Logger, n: Node): void {
    this.uidToNode.write(n);
    this.addDependentToOwners(logger, n, n.owners);
  }

  /** Go's `removeDependentFromOwners`. */
  removeDependentFromOwners(n: Node, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.uidToNode.read(owner.uid)?.deleteDependent(n);
  }

  /** Takes `n` out of the graph and out of its owners' dependents. Go's `removeNode`. */
  removeNode(n: Node): void {
    this.uidToNode.delete(n.identity.uid);
    this.removeDependentFromOwners(n, n.owners);
  }

  /**
   * Queues the owners that a removed reference, or one whose
   * `blockOwnerDeletion` went from true to unset or false, may have
   * unblocked. Go's `addUnblockedOwnersToDeleteQueue`.
   */
  addUnblockedOwnersToDeleteQueue(
    logger: Logger,
    removed: readonly OwnerReference[],
    changed: readonly OwnerRefPair[],
  ): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const node = this.uidToNode.read(ref.uid);
      if (node === undefined) {
        logger.v(5).info('cannot find uid in uidToNode', { uid: ref.uid });
        continue;
      }
      this.attemptToDelete.add(node);
    }
    for (const c of changed) {
      const wasBlocked = c.oldRef.blockOwnerDeletion === true;
      const isUnblocked = c.newRef.blockOwnerDeletion !== true;
      if (!wasBlocked || !isUnblocked) continue;
      const node = this.uidToNode.read(c.newRef.uid);
      if (node === undefined) {
        logger.v(5).info('cannot find uid in uidToNode', { uid: c.newRef.uid });
        continue;
      }
      this.attemptToDelete.add(node);
    }
  }

  /**
   * Queues `n` when this event starts its deletion with the `orphan`
   * finalizer (to attemptToOrphan) or the `foregroundDeletion` finalizer
   * (its dependents and itself, to attemptToDelete). Go's `processTransitions`.
   */
  processTransitions(
    logger: Logger,
    oldObj: KubeObject | undefined,
    newObj: KubeObject,
    n: Node,
  ): void {
    if (deletionStartsWithFinalizer(oldObj, newObj, finalizerOrphanDependents)) {
      logger.v(5).info('add item to attemptToOrphan', { item: objectReferenceString(n.identity) });
      this.attemptToOrphan.add(n);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, newObj, finalizerDeleteDependents)) {
      logger
        .v(2)
        .info(
          "add item to attemptToDelete, because it's waiting for its dependents to be deleted",
          {
            item: objectReferenceString(n.identity),
          },
        );
      // A node first made virtual did not learn this flag: set it now.
      n.markDeletingDependents();
      for (const dep of n.dependents) this.attemptToDelete.add(dep);
      this.attemptToDelete.add(n);
    }
  }

  /** Applies one event to the graph and queues what it affects. Go's `processGraphChanges`. */
  processGraphChanges(logger: Logger, event: GraphEvent): void {
    const obj = event.obj;
    const meta = obj.metadata ?? {};
    const uid = meta.uid ?? '';
    const v5 = logger.v(5);
    if (v5.enabled()) {
      v5.info('GraphBuilder process object', {
        apiVersion: groupVersionString(event.gvk),
        kind: event.gvk.kind,
        object: meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? ''),
        uid,
        eventType: event.eventType,
        virtual: event.virtual,
      });
    }
    let existingNode = this.uidToNode.read(uid);
    if (existingNode !== undefined && !event.virtual && !existingNode.isObserved()) {
      // An informer saw the object at last: the virtual node becomes a real one.
      const observedIdentity = identityFromEvent(event);
      if (!sameReference(observedIdentity, existingNode.identity)) {
        // Dependents that named it by other coordinates get checked again.
        const [, potentiallyInvalidDependents] = partitionDependents(
          existingNode.getDependents(),
          observedIdentity,
        );
        for (const dep of potentiallyInvalidDependents) {
          if (
            observedIdentity.namespace.length > 0 &&
            dep.identity.namespace !== observedIdentity.namespace
          ) {
            logger.v(2).info('item references an owner but does not match namespaces', {
              item: objectReferenceString(dep.identity),
              owner: objectReferenceString(observedIdentity),
            });
            this.reportInvalidNamespaceOwnerRef(dep, observedIdentity.uid);
          }
          this.attemptToDelete.add(dep);
        }
        logger.v(2).info('replacing virtual item with observed item', {
          virtual: objectReferenceString(existingNode.identity),
          observed: objectReferenceString(observedIdentity),
        });
        existingNode = existingNode.clone();
        existingNode.identity = observedIdentity;
        this.uidToNode.write(existingNode);
      }
      existingNode.markObserved();
    }

    if (event.eventType === 'add' || event.eventType === 'update') {
      if (existingNode === undefined) {
        const beingDeleted = isBeingDeleted(obj);
        const newNode = new Node({
          identity: identityFromEvent(event),
          owners: [...(meta.ownerReferences ?? [])],
          deletingDependents: beingDeleted && hasFinalizer(obj, finalizerDeleteDependents),
          beingDeleted,
        });
        this.insertNode(logger, newNode);
        // The informer may have folded a creation and a deletion into one event.
        this.processTransitions(logger, event.oldObj, obj, newNode);
        return;
      }
      const gvString = groupVersionString(event.gvk);
      if (
        !event.virtual &&
        (existingNode.identity.apiVersion !== gvString ||
          existingNode.identity.kind !== event.gvk.kind)
      ) {
        const oldExistingNode = existingNode;
        existingNode = existingNode.clone();
        existingNode.identity = {
          ...existingNode.identity,
          apiVersion: gvString,
          kind: event.gvk.kind,
        };
        this.uidToNode.write(existingNode);
        for (const owner of existingNode.owners) {
          this.uidToNode.read(owner.uid)?.replaceDependentIfItExists(oldExistingNode, existingNode);
        }
      }
      const newRefs = [...(meta.ownerReferences ?? [])];
      const { added, removed, changed } = referencesDiffs(existingNode.owners, newRefs);
      if (added.length > 0 || removed.length > 0 || changed.length > 0) {
        // A removed or unblocked reference may let an owner waiting in foreground go.
        this.addUnblockedOwnersToDeleteQueue(logger, removed, changed);
        existingNode.setOwners(newRefs);
        this.addDependentToOwners(logger, existingNode, added);
        this.removeDependentFromOwners(existingNode, removed);
      }
      if (isBeingDeleted(obj)) existingNode.markBeingDeleted();
      this.processTransitions(logger, event.oldObj, obj, existingNode);
      return;
    }

    // eventType === 'delete'
    if (existingNode === undefined) {
      logger.v(5).info("item doesn't exist in the graph, this shouldn't happen", { item: uid });
      return;
    }
    let removeExistingNode = true;
    if (event.virtual) {
      const deletedIdentity = identityFromEvent(event);
      if (existingNode.virtual) {
        // Dependents may disagree on the virtual owner's coordinates.
        const [matchingDependents, nonmatchingDependents] = partitionDependents(
          existingNode.getDependents(),
          deletedIdentity,
        );
        if (nonmatchingDependents.length > 0) {
          removeExistingNode = false;
          if (matchingDependents.length > 0) {
            this.absentOwnerCache.add(deletedIdentity);
            for (const dep of matchingDependents) this.attemptToDelete.add(dep);
          }
          if (sameReference(existingNode.identity, deletedIdentity)) {
            // Verify the owner again under another identity its dependents use.
            const replacementIdentity = getAlternateOwnerIdentity(
              nonmatchingDependents,
              deletedIdentity,
            );
            if (replacementIdentity !== undefined) {
              const replacementNode = existingNode.clone();
              replacementNode.identity = replacementIdentity;
              this.uidToNode.write(replacementNode);
              this.attemptToDelete.addRateLimited(replacementNode);
            }
          }
        }
      } else if (!sameReference(existingNode.identity, deletedIdentity)) {
        // A real node stays; only the dependents that used the absent coordinates are affected.
        removeExistingNode = false;
        const [matchingDependents] = partitionDependents(
          existingNode.getDependents(),
          deletedIdentity,
        );
        if (matchingDependents.length > 0) {
          this.absentOwnerCache.add(deletedIdentity);
          for (const dep of matchingDependents) this.attemptToDelete.add(dep);
        }
      }
    }
    if (removeExistingNode) {
      this.removeNode(existingNode);
      if (existingNode.dependents.size > 0) {
        this.absentOwnerCache.add(identityFromEvent(event));
      }
      for (const dep of existingNode.dependents) this.attemptToDelete.add(dep);
      for (const owner of existingNode.owners) {
        const ownerNode = this.uidToNode.read(owner.uid);
        // An owner deleting in foreground may be waiting for just this dependent.
        if (ownerNode === undefined || !ownerNode.isDeletingDependents()) continue;
        this.attemptToDelete.add(ownerNode);
      }
    }
  }
}

/** A reference before and after an update. Go's `ownerRefPair`. */
export interface OwnerRefPair {
  readonly oldRef: OwnerReference;
  readonly newRef: OwnerReference;
}

/** The references `next` adds, removes and changes (by uid) compared with `old`. Go's `referencesDiffs`. */
export function referencesDiffs(
  old: readonly OwnerReference[],
  next: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: OwnerRefPair[] } {
  const oldByUID = new Map<string, OwnerReference>();
  for (const ref of old) oldByUID.set(ref.uid, ref);
  const remaining = new Set(oldByUID.keys());
  const added: OwnerReference[] = [];
  const changed: OwnerRefPair[] = [];
  for (const ref of next) {
    const before = oldByUID.get(ref.uid);
    if (before !== undefined && remaining.has(ref.uid)) {
      if (!ownerReferenceEqual(before, ref)) changed.push({ oldRef: before, newRef: ref });
      remaining.delete(ref.uid);
    } else {
      added.push(ref);
    }
  }
  const removed = [...remaining].map((uid) => oldByUID.get(uid) as OwnerReference);
  return { added, removed, changed };
}

/** True when the object has a deletionTimestamp. Go's `beingDeleted`. */
export function isBeingDeleted(obj: KubeObject): boolean {
  return obj.metadata?.deletionTimestamp != null;
}

/** True when the object carries `finalizer`. Go's `hasFinalizer`. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * True when `newObj` is being deleted with `finalizer` and `oldObj` was not
 * (or there is no old object): the moment a deletion starts. Go's
 * `deletionStartsWithFinalizer`.
 */
export function deletionStartsWithFinalizer(
  oldObj: KubeObject | undefined,
  newObj: KubeObject,
  finalizer: string,
): boolean {
  if (!isBeingDeleted(newObj) || !hasFinalizer(newObj, finalizer)) return false;
  if (oldObj === undefined) return true;
  return !isBeingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer);
}

/** The identity of the event's object, with the kind its monitor knows. Go's `identityFromEvent`. */
export function identityFromEvent(event: GraphEvent): ObjectReference {
  const meta = event.obj.metadata ?? {};
  return {
    apiVersion: groupVersionString(event.gvk),
    kind: event.gvk.kind,
    uid: meta.uid ?? '',
    name: meta.name ?? '',
    namespace: meta.namespace ?? '',
  };
}

/**
 * Splits `dependents` into those whose reference to the owner's uid matches
 * its identity and those with a reference that does not (or that live in
 * another namespace than a namespaced owner); a dependent can be in both.
 * Go's `partitionDependents`.
 */
export function partitionDependents(
  dependents: readonly Node[],
  matchOwnerIdentity: ObjectReference,
): [matching: Node[], nonmatching: Node[]] {
  const ownerIsNamespaced = matchOwnerIdentity.namespace.length > 0;
  const matching: Node[] = [];
  const nonmatching: Node[] = [];
  for (const dep of dependents) {
    let foundMatch = false;
    let foundMismatch = false;
    if (ownerIsNamespaced && matchOwnerIdentity.namespace !== dep.identity.namespace) {
      foundMismatch = true;
    } else {
      for (const ownerRef of dep.owners) {
        if (ownerRef.uid !== matchOwnerIdentity.uid) continue;
        if (ownerReferenceMatchesCoordinates(ownerRef, matchOwnerIdentity)) foundMatch = true;
        else foundMismatch = true;
      }
    }
    if (foundMatch) matching.push(dep);
    if (foundMismatch) nonmatching.push(dep);
  }
  return [matching, nonmatching];
}

/** Orders references by kind, apiVersion, namespace, name, uid. Go's `referenceLessThan`. */
export function referenceLessThan(a: ObjectReference, b: ObjectReference): boolean {
  if (a.kind !== b.kind) return a.kind < b.kind;
  if (a.apiVersion !== b.apiVersion) return a.apiVersion < b.apiVersion;
  if (a.namespace !== b.namespace) return a.namespace < b.namespace;
  if (a.name !== b.name) return a.name < b.name;
  return a.uid < b.uid;
}

/**
 * Another identity the dependents use for the uid of a verified-absent
 * owner: the first that sorts after it, else the first of all; `undefined`
 * when there is none. Go's `getAlternateOwnerIdentity`.
 */
export function getAlternateOwnerIdentity(
  deps: readonly Node[],
  verifiedAbsentIdentity: ObjectReference,
): ObjectReference | undefined {
  const absentIsClusterScoped = verifiedAbsentIdentity.namespace.length === 0;
  const seen = new Set<string>([referenceKey(verifiedAbsentIdentity)]);
  let first: ObjectReference | undefined;
  let firstFollowing: ObjectReference | undefined;
  for (const dep of deps) {
    for (const ownerRef of dep.owners) {
      if (ownerRef.uid !== verifiedAbsentIdentity.uid) continue;
      if (
        ownerReferenceMatchesCoordinates(ownerRef, verifiedAbsentIdentity) &&
        (absentIsClusterScoped || verifiedAbsentIdentity.namespace === dep.identity.namespace)
      ) {
        continue;
      }
      let ref: ObjectReference = {
        ...ownerReferenceCoordinates(ownerRef),
        namespace: dep.identity.namespace,
      };
      if (
        absentIsClusterScoped &&
        ref.apiVersion === verifiedAbsentIdentity.apiVersion &&
        ref.kind === verifiedAbsentIdentity.kind
      ) {
        // That apiVersion and kind are known to be cluster-scoped.
        ref = { ...ref, namespace: '' };
      }
      const key = referenceKey(ref);
      if (seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || referenceLessThan(ref, first)) first = ref;
      if (
        referenceLessThan(verifiedAbsentIdentity, ref) &&
        (firstFollowing === undefined || referenceLessThan(ref, firstFollowing))
      ) {
        firstFollowing = ref;
      }
    }
  }
  return firstFollowing ?? first;
}

/**
 * Resolves when `promise` settles or `signal` aborts, whichever comes first,
 * leaving no listener on the signal. `promise` defaults to one that never settles.
 */
export async function untilAborted(
  signal: AbortSignal,
  promise: Promise<unknown> = new Promise(() => undefined),
): Promise<void> {
  if (signal.aborted) return;
  let onAbort = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Cuts a whole object down to `apiVersion`, `kind` and `metadata` without
 * `managedFields`: for a client that gives whole objects, the memory of a
 * PartialObjectMetadata cache.
 */
export function toPartialObjectMetadata(obj: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = obj.metadata ?? {};
  return {
    ...(obj.apiVersion !== undefined ? { apiVersion: obj.apiVersion } : {}),
    ...(obj.kind !== undefined ? { kind: obj.kind } : {}),
    metadata,
  };
}

/**
 * The object without `metadata.managedFields`, or the object itself when it
 * has none: the trim kube-controller-manager gives its informers.
 */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
