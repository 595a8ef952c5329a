// The ReplicaSet controller: pkg/controller/replicaset/replica_set.go
// (ReplicaSetController, NewReplicaSetController, NewBaseController, Run,
// worker, processNextWorkItem, syncReplicaSet, claimPods, manageReplicas,
// the event handlers addRS, updateRS, deleteRS, addPod, updatePod, deletePod,
// getPodReplicaSets, resolveControllerRef, getReplicaSetsWithSameController,
// getIndirectlyRelatedPods, getPodsToDelete,
// getPodsRankedByRelatedPodsOnSameNode, getPodKeys) and the client-go lister
// expansion it uses (listers/apps/v1/replicaset_expansion.go,
// GetPodReplicaSets). It lists a ReplicaSet's pods through the pod
// informer's controller-uid index (pod-index.ts), as the newest upstream does.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  DeletedFinalStateUnknown,
  deletionHandlingMetaNamespaceKeyFunc,
  getControllerOf,
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isNotFound,
  labelSelectorAsSelector,
  newControllerRef,
  noopEventRecorder,
  noopLogger,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type EventRecorder,
  groupVersionString,
  type GroupVersionKind,
  type Logger,
  type ResourceClient,
  type Selector,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Indexer,
  type Indexers,
  type Lister,
  type NamespaceLister,
  type ResourceEventHandler,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  ControllerExpectations,
  PodControllerRefManager,
  RealPodControl,
  UIDTrackingControllerExpectations,
  activePodsWithRanks,
  addPodControllerUIDIndexer,
  filterActivePods,
  filterPodsByOwner,
  isPodActive,
  isPodReady,
  namespaceTerminatingCause,
  podKey,
  recheckDeletionTimestamp,
  slowStartBatch,
  slowStartInitialBatchSize,
  type PodControl,
  type RankedPod,
} from '@kcm-ts/controller';
import { deepEqual } from './deep-equal.js';
import { calculateStatus, specReplicas, updateReplicaSetStatus } from './replica-set-utils.js';

/**
 * The most pods a ReplicaSet controller creates or deletes in one sync of
 * one ReplicaSet (500). Go's `BurstReplicas`.
 *
 * @category ReplicaSet controller
 */
export const burstReplicas = 500;

/**
 * The name of the ReplicaSet informer's index of ReplicaSets by the uid of
 * their controller (a Deployment), used to find sibling ReplicaSets. Go's
 * `controllerUIDIndex`.
 *
 * @category ReplicaSet controller
 */
export const controllerUIDIndex = 'controllerUID';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-replicaset-syncs` flag, the default of Go's `ConcurrentRSSyncs`
 * (pkg/controller/replicaset/config/v1alpha1/defaults.go).
 *
 * @category ReplicaSet controller
 */
export const concurrentRSSyncs = 5;

/**
 * apps/v1 ReplicaSet: the kind the controller writes into the references of
 * the pods it owns.
 *
 * @category ReplicaSet controller
 */
export const replicaSetKind: GroupVersionKind = Object.freeze({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
});

/**
 * What the controller needs of the shared informer of the objects it
 * controls: a subset of {@link "@kcm-ts/informer"!SharedIndexInformer}, which
 * an informer of ReplicaSets is, and which the ReplicationController adapter
 * ({@link ReplicationManager}) implements over an informer of
 * ReplicationControllers. Go's `cache.SharedIndexInformer` as
 * `NewBaseController` uses it.
 *
 * @category ReplicaSet controller
 */
export interface ReplicaSetSharedInformer {
  /** Registers the controller's handlers; the return value is not used. */
  addEventHandler(handler: ResourceEventHandler<ReplicaSet>): unknown;
  /** Adds the controller's {@link controllerUIDIndex} index. */
  addIndexers(indexers: Indexers<ReplicaSet>): void;
  /** The cache, read through {@link controllerUIDIndex}. */
  getIndexer(): Pick<Indexer<ReplicaSet>, 'byIndex' | 'getIndexers'>;
  /** Whether the first list has been delivered. */
  hasSynced(): boolean;
}

/**
 * What the controller needs of a lister of the objects it controls: a subset
 * of {@link "@kcm-ts/informer"!Lister}. Go's `appslisters.ReplicaSetLister`.
 *
 * @category ReplicaSet controller
 */
export interface ReplicaSetLister {
  /** A view of one namespace. */
  byNamespace(namespace: string): NamespaceLister<ReplicaSet>;
}

/**
 * The ReplicaSet informer the controller takes: a
 * {@link "@kcm-ts/informer"!ResourceInformer} of ReplicaSets (usually
 * `factory.replicaSets()`) is one, and so is the ReplicationController
 * adapter of {@link ReplicationManager}. Go's `appsinformers.ReplicaSetInformer`
 * interface, which `NewBaseController` takes so that `NewReplicationManager`
 * can hand it an adapter.
 *
 * @category ReplicaSet controller
 */
export interface ReplicaSetInformer {
  /** The shared informer. */
  informer(): ReplicaSetSharedInformer;
  /** A lister over its cache. */
  lister(): ReplicaSetLister;
}

/**
 * The clients the controller writes through (unscoped: it picks each
 * object's namespace), as `startReplicaSetController` hands it a clientset.
 *
 * @category ReplicaSet controller
 */
export interface ReplicaSetControllerClients {
  /** apps/v1 replicasets: status writes and the fresh read before adopting. */
  replicaSets: ResourceClient<ReplicaSet>;
  /** core/v1 pods: creations, deletions and adoption patches. */
  pods: ResourceClient<Pod>;
}

/**
 * Options for {@link ReplicaSetController}: what Go's
 * `NewReplicaSetController` and `NewBaseController` take.
 *
 * @category ReplicaSet controller
 */
export interface ReplicaSetControllerOptions {
  /** The ReplicaSet informer, usually `factory.replicaSets()`. */
  replicaSets: ReplicaSetInformer;
  /** The pod informer of the same factory, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The clients to write through. */
  client: ReplicaSetControllerClients;
  /**
   * Records the pod events on ReplicaSets; kube-controller-manager's comes
   * from a broadcaster with the component name `replicaset-controller`.
   * Default none.
   */
  recorder?: EventRecorder;
  /** Time for expectations, the queue, requeues and availability. Default the real clock. */
  clock?: Clock;
  /** The most pods created or deleted per sync of one ReplicaSet. Default {@link burstReplicas} (500). */
  burstReplicas?: number;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Writes pods; default a {@link RealPodControl} on `client.pods` and `recorder` (tests inject a fake). */
  podControl?: PodControl;
  /**
   * The group, version and kind of the objects controlled: what the
   * controller writes into the references of the pods it owns and adopts,
   * the only kind of controller reference it follows, and the kind its logs
   * and cache-sync messages name. Default {@link replicaSetKind} (apps/v1
   * ReplicaSet); {@link ReplicationManager} passes
   * {@link replicationControllerKind}. Go's `gvk` argument of
   * `NewBaseController`.
   */
  kind?: GroupVersionKind;
  /**
   * The name of the work queue. Default `replicaset`; {@link ReplicationManager}
   * passes `replicationmanager`. Go's `queueName` argument of `NewBaseController`.
   */
  queueName?: string;
}

/**
 * The pods of `pods` to delete first, `diff` of them: all of them in their
 * order when `diff` covers them all, otherwise the first after sorting by
 * {@link activePodsWithRanks} at `now`, ranked by the active `relatedPods`
 * on the same node. Does not change `pods`. Go's `getPodsToDelete`.
 *
 * @param now - the reference time for the logarithmic comparison, in ms
 *
 * @category ReplicaSet controller
 */
export function getPodsToDelete(
  pods: readonly Pod[],
  relatedPods: readonly Pod[],
  diff: number,
  now: number,
): Pod[] {
  // No need to sort what is deleted whole.
  if (diff < pods.length) {
    const ranked = getPodsRankedByRelatedPodsOnSameNode(pods, relatedPods);
    ranked.sort(activePodsWithRanks(now));
    return ranked.slice(0, diff).map((r) => r.pod);
  }
  return pods.slice(0, diff);
}

/**
 * Ranks each pod of `podsToRank` by the number of active pods of
 * `relatedPods` on its node (pods not yet scheduled share the node `''`).
 * Go's `getPodsRankedByRelatedPodsOnSameNode`.
 *
 * @category ReplicaSet controller
 */
export function getPodsRankedByRelatedPodsOnSameNode(
  podsToRank: readonly Pod[],
  relatedPods: readonly Pod[],
): RankedPod[] {
  const podsOnNode = new Map<string, number>();
  for (const pod of relatedPods) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
  }
  return podsToRank.map((pod) => ({ pod, rank: podsOnNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
}

/**
 * The `namespace/name` keys of `pods`. Go's `getPodKeys`.
 *
 * @category ReplicaSet controller
 */
export function getPodKeys(pods: readonly Pod[]): string[] {
  return pods.map(podKey);
}

/** `err` if it is an Error, else an Error carrying it. */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err), { cause: err });
}

/**
 * The object with the controller's kind, so events name it even when a list
 * left the kind out (Go's recorder finds the kind from the object's type).
 */
function withKind(
  rs: ReplicaSet,
  gvk: GroupVersionKind,
): Omit<ReplicaSet, 'apiVersion' | 'kind'> & { apiVersion: string; kind: string } {
  return { ...rs, apiVersion: groupVersionString(gvk), kind: gvk.kind };
}

/** Whether `gvk` is apps/v1 ReplicaSet (the controller's own kind, not one behind an adapter). */
function isReplicaSetKind(gvk: GroupVersionKind): boolean {
  return gvk.group === replicaSetKind.group && gvk.kind === replicaSetKind.kind;
}

/**
 * Keeps `spec.replicas` pods running for every ReplicaSet: Go's
 * `ReplicaSetController`. It watches ReplicaSets and pods through shared
 * informers, queues the keys of ReplicaSets that may need work, and syncs
 * each key on one of several workers: claim the matching pods, create or
 * delete pods to reach `spec.replicas` (unless earlier writes are still
 * unseen, see {@link UIDTrackingControllerExpectations}), and write the
 * status.
 *
 * Construct it before starting the informer factory (it registers its event
 * handlers, the {@link controllerUIDIndex} index on ReplicaSets and the
 * {@link "@kcm-ts/controller"!podControllerUIDIndex} index on pods), then call
 * {@link ReplicaSetController.run}, as kube-controller-manager's
 * `startReplicaSetController` does.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#start-controller}
 *
 * @category ReplicaSet controller
 */
export class ReplicaSetController {
  /** The controller's work queue (named `replicaset` by default), of ReplicaSet keys. */
  readonly queue: RateLimitingQueue<string>;
  /** The creations and deletions each ReplicaSet still waits to see. */
  readonly expectations: UIDTrackingControllerExpectations;
  /**
   * The kind it controls: {@link replicaSetKind} unless the options said
   * otherwise. Go's embedded `schema.GroupVersionKind`.
   */
  readonly groupVersionKind: GroupVersionKind;

  readonly #rsInformer: ReplicaSetSharedInformer;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #rsLister: ReplicaSetLister;
  readonly #rsIndexer: Pick<Indexer<ReplicaSet>, 'byIndex' | 'getIndexers'>;
  readonly #podLister: Lister<Pod>;
  readonly #podIndexer: Indexer<Pod>;
  readonly #client: ReplicaSetControllerClients;
  readonly #podControl: PodControl;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #burstReplicas: number;
  /** The resourceVersion of each ReplicaSet whose bad selector was reported. */
  readonly #badSelectorReported = new Map<string, string>();
  #signal: AbortSignal | undefined;
  #running = false;

  /** @param options - see {@link ReplicaSetControllerOptions} */
  constructor(options: ReplicaSetControllerOptions) {
    const burst = options.burstReplicas ?? burstReplicas;
    if (!Number.isSafeInteger(burst) || burst < 1) {
      throw new RangeError(`burstReplicas must be an integer >= 1, got ${String(burst)}`);
    }
    this.#burstReplicas = burst;
    const gvk = options.kind ?? replicaSetKind;
    if (!gvk.kind || !gvk.version) {
      throw new TypeError(
        `kind must name a version and a kind, got ${JSON.stringify(options.kind)}`,
      );
    }
    this.groupVersionKind = gvk;
    const queueName = options.queueName ?? 'replicaset';
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#client = options.client;
    this.#podControl =
      options.podControl ??
      new RealPodControl({
        client: options.client.pods,
        recorder: options.recorder ?? noopEventRecorder,
        logger: this.#logger,
      });
    this.expectations = new UIDTrackingControllerExpectations(
      new ControllerExpectations({ clock: this.#clock, logger: this.#logger }),
      this.#logger,
    );
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: queueName,
      clock: this.#clock,
    });

    this.#rsInformer = options.replicaSets.informer();
    this.#rsInformer.addEventHandler({
      onAdd: (rs) => this.#handle(() => this.addRS(rs)),
      onUpdate: (oldRS, curRS) => this.#handle(() => this.updateRS(oldRS, curRS)),
      onDelete: (rs) => this.#handle(() => this.deleteRS(rs)),
    });
    // Another controller on the same factory may have added it already.
    if (!(controllerUIDIndex in this.#rsInformer.getIndexer().getIndexers())) {
      this.#rsInformer.addIndexers({
        [controllerUIDIndex]: (rs: ReplicaSet) => {
          // Go's index function takes only apps/v1 ReplicaSet objects; behind
          // the ReplicationController adapter it is handed the stored
          // ReplicationControllers and indexes none of them, so an RC never
          // finds related siblings (see getIndirectlyRelatedPods).
          if (!isReplicaSetKind(gvk)) return [];
          const ref = getControllerOf(rs);
          return ref === undefined ? [] : [ref.uid];
        },
      });
    }
    this.#rsIndexer = this.#rsInformer.getIndexer();
    this.#rsLister = options.replicaSets.lister();

    this.#podInformer = options.pods.informer();
    this.#podInformer.addEventHandler({
      onAdd: (pod) => this.#handle(() => this.addPod(pod)),
      // Every pod change wakes its owner (host assignment, status...): the
      // sync only reads caches, so this is cheap enough.
      onUpdate: (oldPod, curPod) => this.#handle(() => this.updatePod(oldPod, curPod)),
      onDelete: (pod) => this.#handle(() => this.deletePod(pod)),
    });
    // Shared with the Deployment controller when it runs on the same factory.
    addPodControllerUIDIndexer(this.#podInformer);
    this.#podIndexer = this.#podInformer.getIndexer();
    this.#podLister = options.pods.lister();
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` workers
   * (kube-controller-manager runs {@link concurrentRSSyncs}) until `signal`
   * aborts; resolves once every worker has stopped and the queue is shut
   * down. A sync in progress when the signal aborts ends at its next request
   * (the signal is passed to the client); the keys still queued are dropped.
   * Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('ReplicaSetController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('ReplicaSetController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    this.#signal = signal;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // Waking the workers: a worker blocked in get() returns once the queue shuts down.
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    const controllerName = this.groupVersionKind.kind.toLowerCase();
    log.info('Starting controller', { name: controllerName });
    try {
      const synced = await waitForNamedCacheSync(
        this.groupVersionKind.kind,
        signal,
        [() => this.#podInformer.hasSynced(), () => this.#rsInformer.hasSynced()],
        {
          clock: this.#clock,
          logger: { info: (m) => log.info(m), error: (m) => log.error(undefined, m) },
        },
      );
      if (!synced) return;
      const running = Array.from({ length: workers }, () => this.#worker(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down controller', { name: controllerName });
    }
  }

  /** Processes keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.#processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one key, syncs it and marks it done: forgotten by the rate
   * limiter on success, re-added with backoff on failure (with no retry
   * limit, as upstream). Go's `processNextWorkItem`.
   */
  async #processNextWorkItem(signal: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal.aborted) return false;
      await this.syncReplicaSet(key);
      this.queue.forget(key);
    } catch (err) {
      if (!signal.aborted) this.#logger.error(err, 'Sync failed', { key });
      this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  //#region sync
  /**
   * Brings the ReplicaSet `key` (`namespace/name`) to its desired state:
   * Go's `syncReplicaSet`, step by step:
   *
   * 1. read it from the cache; gone: forget its expectations, done;
   * 2. decide whether it may create or delete (its expectations are
   *    satisfied), before looking at pods, so a pod seen after this check
   *    cannot cause a second creation;
   * 3. convert its selector; a bad one is logged (once per version) and not retried;
   * 4. claim its active pods and the active orphans of its namespace
   *    (adopt, release), read through {@link "@kcm-ts/controller"!podControllerUIDIndex};
   * 5. create or delete pods ({@link ReplicaSetController.manageReplicas}),
   *    if allowed and the ReplicaSet is not being deleted;
   * 6. write the status ({@link calculateStatus}, {@link updateReplicaSetStatus});
   * 7. when every pod is ready but some not yet available, look again after
   *    `minReadySeconds`.
   *
   * Rejects with the error of step 4, 5 or 6, which the worker retries with backoff.
   */
  async syncReplicaSet(key: string): Promise<void> {
    const start = this.#clock.now();
    try {
      await this.#sync(key);
    } finally {
      this.#logger.v(4).info('Finished syncing', {
        kind: this.groupVersionKind.kind,
        key,
        duration: `${this.#clock.since(start)}ms`,
      });
    }
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.byNamespace(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.#logger.v(4).info('ReplicaSet has been deleted', { key });
      this.expectations.deleteExpectations(key);
      this.#badSelectorReported.delete(key);
      return;
    }

    const rsNeedsSync = this.expectations.satisfiedExpectations(key);
    let selector: Selector;
    try {
      selector = labelSelectorAsSelector(rs.spec?.selector);
    } catch (err) {
      // Retrying cannot help: only an edit of the ReplicaSet can.
      const version = rs.metadata?.resourceVersion ?? '';
      if (this.#badSelectorReported.get(key) !== version) {
        this.#badSelectorReported.set(key, version);
        this.#logger.error(err, 'Error converting pod selector to selector', { replicaSet: key });
      }
      return;
    }
    this.#badSelectorReported.delete(key);

    // The pods it controls (matching or not, so that those whose labels
    // changed are released) and the orphans of its namespace it may adopt;
    // pods of other controllers are never claimed, so they are not read.
    const allPods = filterPodsByOwner(
      this.#podIndexer,
      rs.metadata ?? {},
      this.groupVersionKind.kind,
      true,
    );
    const activePods = await this.claimPods(rs, selector, filterActivePods(allPods));

    let manageReplicasErr: Error | undefined;
    if (rsNeedsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await this.manageReplicas(activePods, rs);
      } catch (err) {
        manageReplicasErr = asError(err);
      }
    }
    const copy = structuredClone(rs);
    const newStatus = calculateStatus(copy, activePods, manageReplicasErr, this.#clock.now());
    const updated = await updateReplicaSetStatus(this.#client.replicaSets, copy, newStatus, {
      logger: this.#logger,
      ...(this.#signal && { signal: this.#signal }),
    });
    const minReadySeconds = updated.spec?.minReadySeconds ?? 0;
    const replicas = specReplicas(updated);
    if (
      manageReplicasErr === undefined &&
      minReadySeconds > 0 &&
      (updated.status?.readyReplicas ?? 0) === replicas &&
      (updated.status?.availableReplicas ?? 0) !== replicas
    ) {
      // A last line of defence against a missed availability change.
      this.queue.addAfter(key, minReadySeconds * 1000);
    }
    if (manageReplicasErr !== undefined) throw manageReplicasErr;
  }

  /**
   * Claims `pods` for `rs` with a {@link PodControllerRefManager} whose
   * adoption check re-reads `rs` from the API server (not the cache) and
   * refuses if it is gone, re-created or being deleted. Go's `claimPods`.
   */
  claimPods(rs: ReplicaSet, selector: Selector, pods: readonly Pod[]): Promise<Pod[]> {
    const namespace = rs.metadata?.namespace ?? '';
    const name = rs.metadata?.name ?? '';
    const signal = this.#signal;
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.#client.replicaSets
        .inNamespace(namespace)
        .get(name, signal ? { signal } : {});
      if (fresh.metadata?.uid !== rs.metadata?.uid) {
        throw new Error(
          `original ${this.groupVersionKind.kind} ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${rs.metadata?.uid ?? ''}`,
        );
      }
      return fresh;
    });
    const cm = new PodControllerRefManager(
      this.#podControl,
      rs,
      selector,
      this.groupVersionKind,
      canAdopt,
      this.#logger,
    );
    return cm.claimPods(pods);
  }

  /**
   * Creates or deletes pods so that `activePods` (the active pods `rs` owns)
   * reaches `spec.replicas`, at most the burst size per call. Expectations
   * are raised before any write and lowered for every write that failed or
   * never happened. Creations go through {@link slowStartBatch}; a namespace
   * being deleted makes a creation count as done, quietly. Deletions pick the
   * pods to lose with {@link getPodsToDelete}. Rejects with one of the
   * errors. Go's `manageReplicas`.
   */
  async manageReplicas(activePods: readonly Pod[], rs: ReplicaSet): Promise<void> {
    const rsKey = deletionHandlingMetaNamespaceKeyFunc(rs);
    const namespace = rs.metadata?.namespace ?? '';
    const owner = withKind(rs, this.groupVersionKind);
    const signal = this.#signal;
    const replicas = specReplicas(rs);
    let diff = activePods.length - replicas;
    if (diff < 0) {
      diff = Math.min(-diff, this.#burstReplicas);
      // Before any request: the informer may report a new pod before the
      // create call even returns.
      this.expectations.expectCreations(rsKey, diff);
      this.#logger
        .v(2)
        .info('Too few replicas', { replicaSet: rsKey, need: replicas, creating: diff });
      const controllerRef = newControllerRef(rs, this.groupVersionKind);
      const template = rs.spec?.template ?? {};
      const { successes, error } = await slowStartBatch(
        diff,
        slowStartInitialBatchSize,
        async () => {
          try {
            await this.#podControl.createPods(namespace, template, owner, controllerRef, signal);
          } catch (err) {
            // Nothing can be created in a namespace being deleted; not an error.
            if (hasStatusCause(err, namespaceTerminatingCause)) return;
            throw err;
          }
        },
      );
      // Pods never attempted (or failed) will not show up: stop waiting for them.
      const skipped = diff - successes;
      if (skipped > 0) {
        this.#logger
          .v(2)
          .info('Slow-start failure. Skipping creation of pods, decrementing expectations', {
            podsSkipped: skipped,
            kind: this.groupVersionKind.kind,
            replicaSet: rsKey,
          });
        for (let i = 0; i < skipped; i++) this.expectations.creationObserved(rsKey);
      }
      if (error !== undefined) throw error;
    } else if (diff > 0) {
      diff = Math.min(diff, this.#burstReplicas);
      this.#logger
        .v(2)
        .info('Too many replicas', { replicaSet: rsKey, need: replicas, deleting: diff });
      const relatedPods = this.getIndirectlyRelatedPods(rs);
      const podsToDelete = getPodsToDelete(activePods, relatedPods, diff, this.#clock.now());
      // By key, so a pod seen both terminating and gone counts once.
      this.expectations.expectDeletions(rsKey, getPodKeys(podsToDelete));
      const errors: Error[] = [];
      await Promise.all(
        podsToDelete.map(async (pod) => {
          try {
            await this.#podControl.deletePod(namespace, pod.metadata?.name ?? '', owner, signal);
          } catch (err) {
            // The informer will not report this deletion.
            const key = podKey(pod);
            this.expectations.deletionObserved(rsKey, key);
            if (!isNotFound(err)) {
              this.#logger.v(2).info('Failed to delete pod, decremented expectations', {
                pod: key,
                kind: this.groupVersionKind.kind,
                replicaSet: rsKey,
              });
              errors.push(asError(err));
            }
          }
        }),
      );
      // They were all reported as events already and are likely the same.
      const [first] = errors;
      if (first !== undefined) throw first;
    }
  }
  //#endregion sync

  /**
   * The ReplicaSets with the same controller (owner uid) as `rs`, `rs`
   * included, from the {@link controllerUIDIndex} index; none when `rs` has
   * no controller. Go's `getReplicaSetsWithSameController`.
   */
  getReplicaSetsWithSameController(rs: ReplicaSet): ReplicaSet[] {
    const ref = getControllerOf(rs);
    if (ref === undefined) {
      this.#logger.error(undefined, 'ReplicaSet has no controller', {
        replicaSet: deletionHandlingMetaNamespaceKeyFunc(rs),
      });
      return [];
    }
    const related = this.#rsIndexer.byIndex(controllerUIDIndex, ref.uid);
    this.#logger.v(2).info('Found related ReplicaSets', {
      replicaSet: deletionHandlingMetaNamespaceKeyFunc(rs),
      relatedReplicaSets: related.map((r) => deletionHandlingMetaNamespaceKeyFunc(r)),
    });
    return related;
  }

  /**
   * Every pod selected by a ReplicaSet with the same controller as `rs`
   * (such as the ReplicaSets of one Deployment), each once. Go's
   * `getIndirectlyRelatedPods`.
   */
  getIndirectlyRelatedPods(rs: ReplicaSet): Pod[] {
    const related: Pod[] = [];
    const seen = new Set<string>();
    for (const relatedRS of this.getReplicaSetsWithSameController(rs)) {
      let selector: Selector;
      try {
        selector = labelSelectorAsSelector(relatedRS.spec?.selector);
      } catch {
        continue; // an invalid selector matches no pods
      }
      const pods = this.#podLister.byNamespace(relatedRS.metadata?.namespace ?? '').list(selector);
      for (const pod of pods) {
        const uid = pod.metadata?.uid ?? '';
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }

  /**
   * The ReplicaSets of the pod's namespace whose (non-empty, valid) selector
   * matches its labels; none for a pod without labels. More than one is a
   * user error, logged. Go's `getPodReplicaSets` and the lister's
   * `GetPodReplicaSets`.
   */
  getPodReplicaSets(pod: Pod): ReplicaSet[] {
    const labels = pod.metadata?.labels;
    if (labels === undefined || Object.keys(labels).length === 0) return [];
    const rss = this.#rsLister
      .byNamespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((rs) => {
        let selector: Selector;
        try {
          selector = labelSelectorAsSelector(rs.spec?.selector);
        } catch {
          return false;
        }
        // An empty selector must match nothing here, not everything.
        return !selector.empty() && selector.matches(labels);
      });
    if (rss.length > 1) {
      // The controller references keep this safe, but it is still a mistake.
      this.#logger.error(undefined, 'More than one ReplicaSet is selecting pods with labels', {
        labels,
        replicaSets: rss.map((rs) => deletionHandlingMetaNamespaceKeyFunc(rs)),
      });
    }
    return rss;
  }

  /**
   * The ReplicaSet a controller reference points at, if it is one, is in the
   * cache under that name, and has that uid. Go's `resolveControllerRef`.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): ReplicaSet | undefined {
    if (ref.kind !== this.groupVersionKind.kind) return undefined;
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.byNamespace(namespace).get(ref.name);
    } catch {
      return undefined;
    }
    return rs.metadata?.uid === ref.uid ? rs : undefined;
  }

  #enqueue(rs: ReplicaSet): void {
    this.queue.add(deletionHandlingMetaNamespaceKeyFunc(rs));
  }

  //#region handlers
  /** A ReplicaSet appeared: sync it. Go's `addRS`. */
  addRS(rs: ReplicaSet): void {
    this.#logger.v(4).info('Adding', { replicaSet: deletionHandlingMetaNamespaceKeyFunc(rs) });
    this.#enqueue(rs);
  }

  /**
   * A ReplicaSet changed: sync it, every time (a resync then retries a
   * ReplicaSet whose creations failed). A different uid means it was
   * deleted and re-created: the old one's expectations go. Go's `updateRS`.
   */
  updateRS(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    if (curRS.metadata?.uid !== oldRS.metadata?.uid) {
      const key = deletionHandlingMetaNamespaceKeyFunc(oldRS);
      this.deleteRS(new DeletedFinalStateUnknown(key, oldRS));
    }
    if (specReplicas(oldRS) !== specReplicas(curRS)) {
      this.#logger.v(4).info('ReplicaSet updated. Desired pod count change.', {
        replicaSet: deletionHandlingMetaNamespaceKeyFunc(oldRS),
        oldReplicas: specReplicas(oldRS),
        newReplicas: specReplicas(curRS),
      });
    }
    this.#enqueue(curRS);
  }

  /**
   * A ReplicaSet is gone (or a tombstone says so): drop its expectations, so
   * a new one of the same name starts clean, and sync the key. Go's `deleteRS`.
   */
  deleteRS(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = this.#fromTombstone(obj, 'ReplicaSet');
    if (rs === undefined) return;
    const key = deletionHandlingMetaNamespaceKeyFunc(rs);
    this.#logger.v(4).info('Deleting', { replicaSet: key });
    this.expectations.deleteExpectations(key);
    this.queue.add(key);
  }

  /**
   * A pod appeared. Already being deleted: count it as a deletion (a restart
   * of the controller may show it so), never as a creation. Owned by a
   * ReplicaSet: one expected creation seen, sync the owner. An orphan: sync
   * every ReplicaSet that may adopt it. Go's `addPod`.
   */
  addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      const rs = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (rs === undefined) return;
      const rsKey = deletionHandlingMetaNamespaceKeyFunc(rs);
      this.#logger.v(4).info('Pod created', { pod: podKey(pod) });
      this.expectations.creationObserved(rsKey);
      this.queue.add(rsKey);
      return;
    }
    // No controller waits for an orphan: no expectation changes.
    const rss = this.getPodReplicaSets(pod);
    if (rss.length === 0) return;
    this.#logger.v(4).info('Orphan Pod created', { pod: podKey(pod) });
    for (const rs of rss) this.#enqueue(rs);
  }

  /**
   * A pod changed. Resyncs (same resourceVersion) are ignored. A pod being
   * deleted counts as deleted now (for its old labels' owner too), so its
   * replacement starts at once. A changed controller reference wakes the
   * old owner; the current owner is synced, and again just after
   * `minReadySeconds` when the pod just became ready; an orphan whose labels
   * or reference changed wakes every ReplicaSet that may adopt it. Go's
   * `updatePod`.
   */
  updatePod(oldPod: Pod, curPod: Pod): void {
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    const labelChanged = !deepEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    if (curPod.metadata?.deletionTimestamp) {
      this.deletePod(curPod);
      // A deletionTimestamp is never unset, so the old pod was not being deleted.
      if (labelChanged) this.deletePod(oldPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef !== undefined) {
      const rs = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (rs !== undefined) this.#enqueue(rs);
    }
    if (curRef !== undefined) {
      const rs = this.resolveControllerRef(curPod.metadata?.namespace ?? '', curRef);
      if (rs === undefined) return;
      this.#logger.v(4).info('Pod objectMeta updated.', { pod: podKey(oldPod) });
      this.#enqueue(rs);
      const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReadySeconds > 0) {
        this.#logger.v(2).info('pod will be enqueued after a while for availability check', {
          duration: minReadySeconds,
          kind: this.groupVersionKind.kind,
          pod: podKey(oldPod),
        });
        // One more second against clock skew between the kubelet and us.
        this.queue.addAfter(deletionHandlingMetaNamespaceKeyFunc(rs), (minReadySeconds + 1) * 1000);
      }
      return;
    }
    if (labelChanged || refChanged) {
      const rss = this.getPodReplicaSets(curPod);
      if (rss.length === 0) return;
      this.#logger.v(4).info('Orphan Pod objectMeta updated.', { pod: podKey(oldPod) });
      for (const rs of rss) this.#enqueue(rs);
    }
  }

  /**
   * A pod is gone, or being deleted (or a tombstone says so): one expected
   * deletion of its owner seen (by pod key), and the owner synced. Orphans
   * are ignored. Go's `deletePod`.
   */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = this.#fromTombstone(obj, 'Pod');
    if (pod === undefined) return;
    const ref = getControllerOf(pod);
    if (ref === undefined) return;
    const rs = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (rs === undefined) return;
    const rsKey = deletionHandlingMetaNamespaceKeyFunc(rs);
    this.#logger.v(4).info('Pod deleted', {
      pod: podKey(pod),
      deletionTimestamp: pod.metadata?.deletionTimestamp,
    });
    this.expectations.deletionObserved(rsKey, podKey(pod));
    this.queue.add(rsKey);
  }
  //#endregion handlers

  /**
   * Runs an event handler, logging what it throws (an object without a name,
   * say) instead of letting it reach the informer: Go's `HandleError`.
   */
  #handle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error(err, 'Failed to handle an informer notification');
    }
  }

  /** The object of a delete notification, or `undefined` (logged) for a tombstone without one. */
  #fromTombstone<T extends ReplicaSet | Pod>(
    obj: T | DeletedFinalStateUnknown<T>,
    kind: string,
  ): T | undefined {
    if (!isDeletedFinalStateUnknown(obj)) return obj;
    const tombstone: DeletedFinalStateUnknown<T> = obj;
    const inner = tombstone.obj;
    if (inner === undefined || inner === null || typeof inner !== 'object') {
      this.#logger.error(undefined, `Tombstone contained object that is not a ${kind}`, {
        key: tombstone.key,
      });
      return undefined;
    }
    return inner;
  }
}
