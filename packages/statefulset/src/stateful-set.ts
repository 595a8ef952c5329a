// The StatefulSet controller: pkg/controller/statefulset/stateful_set.go
// (controllerKind, podKind, StatefulSetController, NewStatefulSetController,
// Run, addPod, updatePod, deletePod, getPodsForStatefulSet, canAdoptFunc,
// adoptOrphanRevisions, getStatefulSetsForPod, resolveControllerRef,
// enqueueStatefulSet, enqueueSSAfter, processNextWorkItem, worker, sync,
// syncStatefulSet), client-go's StatefulSet lister expansion
// (listers/apps/v1/statefulset_expansion.go, GetPodStatefulSets) and the
// default of `--concurrent-statefulset-syncs`
// (pkg/controller/statefulset/config/v1alpha1/defaults.go).
//
// The controller keeps no expectations, as Go's does not: every pass reads
// the caches, and the API server's one-object-per-name rule is what keeps
// two pods of one identity from ever existing.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  deletionHandlingMetaNamespaceKeyFunc,
  getControllerOf,
  isDeletedFinalStateUnknown,
  labelSelectorAsSelector,
  noopEventRecorder,
  noopLogger,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type Logger,
  type ResourceClient,
  type Selector,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Indexer,
  type Lister,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  PodControllerRefManager,
  RealHistory,
  RealPodControl,
  addControllerRevisionControllerIndexer,
  addPodControllerUIDIndexer,
  filterPodsByOwner,
  isPodReady,
  recheckDeletionTimestamp,
  type History,
  type PodControl,
} from '@kcm-ts/controller';
import {
  RealStatefulPodControlObjectManager,
  StatefulPodControl,
  claimsClientFor,
  type PersistentVolumeClaimsClient,
} from './stateful-pod-control.js';
import {
  DefaultStatefulSetControl,
  orphanRevisions,
  type StatefulSetControlInterface,
} from './stateful-set-control.js';
import { RealStatefulSetStatusUpdater } from './stateful-set-status-updater.js';
import { isMemberOf, replicasOf, statefulSetKind } from './stateful-set-utils.js';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-statefulset-syncs` flag, the default of Go's
 * `ConcurrentStatefulSetSyncs`.
 *
 * @category StatefulSet controller
 */
export const concurrentStatefulSetSyncs = 5;

/**
 * The clients the controller writes through (unscoped: it picks each
 * object's namespace), as `startStatefulSetController` hands it a clientset.
 *
 * @category StatefulSet controller
 */
export interface StatefulSetControllerClients {
  /** apps/v1 statefulsets: status writes and the fresh read before adopting. */
  statefulSets: ResourceClient<StatefulSet>;
  /** core/v1 pods: creations, updates, deletions, and adoption patches. */
  pods: ResourceClient<Pod>;
  /**
   * core/v1 persistentvolumeclaims: claim creations and owner reference
   * updates; a `ResourceClient` or a {@link PersistentVolumeClaimsClient}.
   */
  persistentVolumeClaims: ResourceClient<PersistentVolumeClaim> | PersistentVolumeClaimsClient;
  /** apps/v1 controllerrevisions: the set's revision history. */
  controllerRevisions: ResourceClient<ControllerRevision>;
}

/**
 * Options for {@link StatefulSetController}: what Go's
 * `NewStatefulSetController` takes.
 *
 * @category StatefulSet controller
 */
export interface StatefulSetControllerOptions {
  /** The pod informer, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The StatefulSet informer, usually `factory.statefulSets()`. */
  statefulSets: ResourceInformer<StatefulSet>;
  /**
   * The claim informer, usually `factory.persistentVolumeClaims()`. Without
   * one (for an API server that serves no claims to watch) claims are read
   * from the API server as they are needed.
   */
  persistentVolumeClaims?: ResourceInformer<PersistentVolumeClaim> | undefined;
  /** The ControllerRevision informer, usually `factory.controllerRevisions()`. */
  controllerRevisions: ResourceInformer<ControllerRevision>;
  /** The clients to write through. */
  client: StatefulSetControllerClients;
  /**
   * Records the events about sets (`SuccessfulCreate` "create Pod web-0 in
   * StatefulSet web successful", `SuccessfulDelete`, claim creations, ...);
   * kube-controller-manager's comes from a broadcaster with the component
   * name `statefulset-controller`. Default none.
   */
  recorder?: EventRecorder | undefined;
  /** Time for availability, the queue and retries. Default the real clock. */
  clock?: Clock | undefined;
  /** Where logs go. Default none. */
  logger?: Logger | undefined;
  /** Patches pods for adoption and release; default a `RealPodControl` on `client.pods`. */
  podControl?: PodControl | undefined;
}

/** The set with its kind, so events and owner references name it even when a list left the kind out. */
function withKind(set: StatefulSet): StatefulSet {
  return { ...set, apiVersion: 'apps/v1', kind: 'StatefulSet' };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * kube-controller-manager's StatefulSet controller: gives each pod of a
 * StatefulSet a stable identity (`<set>-<ordinal>`, hostname and subdomain,
 * the `statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`
 * labels) and its own claims from the volume claim templates, created
 * before the pod; creates and deletes pods in ordinal order, each waiting
 * for its predecessors to be Running and Ready (OrderedReady) or all at
 * once (Parallel); rolls pods onto a new revision from the highest ordinal
 * down to the partition, `maxUnavailable` at a time (or only as they are
 * deleted, OnDelete); keeps the revision history as ControllerRevisions
 * (so `kubectl rollout undo` works); sets the claims' owner references as
 * `persistentVolumeClaimRetentionPolicy` asks; and writes the status. Go's
 * `StatefulSetController`.
 *
 * @example
 * ```ts
 * const factory = new SharedInformerFactory(source, 0);
 * const controller = new StatefulSetController({
 *   pods: factory.pods(),
 *   statefulSets: factory.statefulSets(),
 *   controllerRevisions: factory.controllerRevisions(),
 *   persistentVolumeClaims: factory.persistentVolumeClaims(),
 *   client: { statefulSets, pods, persistentVolumeClaims, controllerRevisions },
 * });
 * factory.start(signal);
 * await controller.run(concurrentStatefulSetSyncs, signal);
 * ```
 *
 * @category StatefulSet controller
 */
export class StatefulSetController {
  /** The work queue (named `statefulset`), of StatefulSet keys. */
  readonly queue: RateLimitingQueue<string>;
  /**
   * The reconciliation of one set.
   *
   * @internal
   */
  readonly control: StatefulSetControlInterface;

  readonly #setInformer: SharedIndexInformer<StatefulSet>;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #pvcInformer: SharedIndexInformer<PersistentVolumeClaim> | undefined;
  readonly #revInformer: SharedIndexInformer<ControllerRevision>;
  readonly #setLister: Lister<StatefulSet>;
  readonly #podIndexer: Indexer<Pod>;
  readonly #client: StatefulSetControllerClients;
  readonly #podControl: PodControl;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #running = false;

  /** @param options - see {@link StatefulSetControllerOptions} */
  constructor(options: StatefulSetControllerOptions) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    const recorder = options.recorder ?? noopEventRecorder;
    this.#client = options.client;
    this.#podControl =
      options.podControl ??
      new RealPodControl({ client: options.client.pods, recorder, logger: this.#logger });
    const claims =
      'inNamespace' in options.client.persistentVolumeClaims
        ? claimsClientFor(options.client.persistentVolumeClaims)
        : options.client.persistentVolumeClaims;

    this.#podInformer = options.pods.informer();
    this.#setInformer = options.statefulSets.informer();
    this.#pvcInformer = options.persistentVolumeClaims?.informer();
    this.#revInformer = options.controllerRevisions.informer();
    this.#setLister = options.statefulSets.lister();
    addControllerRevisionControllerIndexer(this.#revInformer);
    const history: History = new RealHistory({
      client: options.client.controllerRevisions,
      lister: options.controllerRevisions.lister(),
      indexer: this.#revInformer.getIndexer(),
      clock: this.#clock,
    });
    this.control = new DefaultStatefulSetControl(
      new StatefulPodControl(
        new RealStatefulPodControlObjectManager({
          pods: options.client.pods,
          claims,
          podLister: options.pods.lister(),
          claimLister: options.persistentVolumeClaims?.lister(),
        }),
        { recorder, clock: this.#clock, logger: this.#logger },
      ),
      new RealStatefulSetStatusUpdater({
        client: options.client.statefulSets,
        lister: this.#setLister,
        clock: this.#clock,
        logger: this.#logger,
      }),
      history,
      { clock: this.#clock, logger: this.#logger },
    );
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'statefulset',
      clock: this.#clock,
    });

    this.#podInformer.addEventHandler({
      onAdd: (pod) => this.#handle(() => this.addPod(pod)),
      onUpdate: (oldPod, curPod) => this.#handle(() => this.updatePod(oldPod, curPod)),
      onDelete: (pod) => this.#handle(() => this.deletePod(pod)),
    });
    addPodControllerUIDIndexer(this.#podInformer);
    this.#podIndexer = this.#podInformer.getIndexer();
    this.#setInformer.addEventHandler({
      onAdd: (set) => this.#handle(() => this.enqueueStatefulSet(set)),
      onUpdate: (oldSet, curSet) =>
        this.#handle(() => {
          if ((oldSet.status?.replicas ?? 0) !== (curSet.status?.replicas ?? 0)) {
            this.#logger.v(4).info('Observed updated replica count for StatefulSet', {
              statefulSet: `${curSet.metadata?.namespace ?? ''}/${curSet.metadata?.name ?? ''}`,
              oldReplicas: oldSet.status?.replicas ?? 0,
              newReplicas: curSet.status?.replicas ?? 0,
            });
          }
          this.enqueueStatefulSet(curSet);
        }),
      onDelete: (set) => this.#handle(() => this.enqueueStatefulSet(set)),
    });
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` workers
   * (kube-controller-manager runs {@link concurrentStatefulSetSyncs}) until
   * `signal` aborts; resolves once every worker has stopped and the queue
   * is shut down. The keys still queued are dropped. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('StatefulSetController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('StatefulSetController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    log.info('Starting stateful set controller');
    try {
      const synced = await waitForNamedCacheSync(
        'stateful set',
        signal,
        [
          () => this.#podInformer.hasSynced(),
          () => this.#setInformer.hasSynced(),
          () => this.#pvcInformer?.hasSynced() ?? true,
          () => this.#revInformer.hasSynced(),
        ],
        {
          clock: this.#clock,
          logger: { info: (m) => log.info(m), error: (m) => log.error(undefined, m) },
        },
      );
      if (!synced) return;
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down statefulset controller');
    }
  }

  /** Processes keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one key, syncs it and marks it done: forgotten by the rate limiter
   * on success, re-added with backoff on failure. Resolves false once the
   * queue has shut down. Go's `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      await this.sync(key, signal);
      this.queue.forget(key);
    } catch (err) {
      if (!signal?.aborted) {
        this.#logger.error(err, 'error syncing StatefulSet, requeuing', { key });
      }
      this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  //#region handlers
  /**
   * A new pod: its set is synced, or, for an orphan, every set whose
   * selector matches it (one may adopt it). A pod that arrives already
   * being deleted counts as a deletion. Go's `addPod`.
   */
  addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      const set = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (set === undefined) return;
      this.#logger.v(4).info('Pod created with labels', { pod: pod.metadata?.name });
      this.enqueueStatefulSet(set);
      return;
    }
    for (const set of this.getStatefulSetsForPod(pod)) this.enqueueStatefulSet(set);
  }

  /**
   * A changed pod: the old controller is synced when the reference moved;
   * the current one is synced (again after `minReadySeconds` + 1 s when
   * the pod just became ready); an orphan whose labels or reference changed
   * is offered to the matching sets. Resyncs (same resourceVersion) are
   * ignored. Go's `updatePod`.
   */
  updatePod(oldPod: Pod, curPod: Pod): void {
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    const labelChanged = !sameJSON(curPod.metadata?.labels, oldPod.metadata?.labels);
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !sameJSON(curRef, oldRef);
    if (refChanged && oldRef !== undefined) {
      const set = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (set !== undefined) this.enqueueStatefulSet(set);
    }
    if (curRef !== undefined) {
      const set = this.resolveControllerRef(curPod.metadata?.namespace ?? '', curRef);
      if (set === undefined) return;
      this.enqueueStatefulSet(set);
      const minReadySeconds = set.spec?.minReadySeconds ?? 0;
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReadySeconds > 0) {
        this.#logger
          .v(2)
          .info('StatefulSet will be enqueued after minReadySeconds for availability check', {
            statefulSet: set.metadata?.name,
            minReadySeconds,
          });
        this.enqueueSSAfter(set, minReadySeconds * 1000 + 1000);
      }
      return;
    }
    if (labelChanged || refChanged) {
      for (const set of this.getStatefulSetsForPod(curPod)) this.enqueueStatefulSet(set);
    }
  }

  /** A deleted pod (or its tombstone): its set is synced. Go's `deletePod`. */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    let pod: Pod | undefined;
    if (isDeletedFinalStateUnknown(obj)) {
      const inner: unknown = obj.obj;
      if (inner === undefined || inner === null || typeof inner !== 'object') {
        this.#logger.error(undefined, 'tombstone contained object that is not a pod', {
          key: obj.key,
        });
        return;
      }
      pod = inner;
    } else pod = obj;
    const ref = getControllerOf(pod);
    if (ref === undefined) return;
    const set = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (set === undefined) return;
    this.#logger.v(4).info('Pod deleted.', { pod: pod.metadata?.name });
    this.enqueueStatefulSet(set);
  }

  /** Adds the set's key to the queue. Go's `enqueueStatefulSet`. */
  enqueueStatefulSet(obj: StatefulSet | DeletedFinalStateUnknown<StatefulSet>): void {
    this.queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  }

  /** Adds the set's key to the queue after `ms`. Go's `enqueueSSAfter`. */
  enqueueSSAfter(set: StatefulSet, ms: number): void {
    this.queue.addAfter(deletionHandlingMetaNamespaceKeyFunc(set), ms);
  }
  //#endregion handlers

  /**
   * The cached set a controller reference names (kind StatefulSet, same
   * uid), or `undefined`. Go's `resolveControllerRef`.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): StatefulSet | undefined {
    if (ref.kind !== statefulSetKind.kind) return undefined;
    const set = this.#setLister.byNamespace(namespace).tryGet(ref.name);
    if (set === undefined || set.metadata?.uid !== ref.uid) return undefined;
    return set;
  }

  /**
   * The cached sets in the pod's namespace whose selector matches its labels
   * (none for a pod without labels); logs a user error when there are
   * several. Go's `getStatefulSetsForPod` and client-go's `GetPodStatefulSets`.
   */
  getStatefulSetsForPod(pod: Pod): StatefulSet[] {
    const labels = pod.metadata?.labels;
    if (labels === undefined || Object.keys(labels).length === 0) return [];
    const sets: StatefulSet[] = [];
    for (const set of this.#setLister.byNamespace(pod.metadata?.namespace ?? '').list()) {
      let selector: Selector;
      try {
        selector = labelSelectorAsSelector(set.spec?.selector);
      } catch {
        continue;
      }
      if (selector.empty() || !selector.matches(labels)) continue;
      sets.push(set);
    }
    if (sets.length > 1) {
      this.#logger.error(
        undefined,
        `user error: more than one StatefulSet is selecting pods with labels: ${JSON.stringify(labels)}. Sets: [${sets.map((s) => s.metadata?.name ?? '').join(' ')}]`,
      );
    }
    return sets;
  }

  //#region sync
  /**
   * Syncs the set a key names: adopts its orphan revisions, claims its pods
   * (adopting orphans whose name and labels fit, releasing pods that no
   * longer fit), then runs the reconciliation; a set gone from the cache is
   * done, and a set with an invalid selector is logged and not retried. Go's
   * `sync`.
   *
   * @throws what the adoption or reconciliation threw: the key is retried
   */
  async sync(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      const { namespace, name } = splitMetaNamespaceKey(key);
      const cached = this.#setLister.byNamespace(namespace).tryGet(name);
      if (cached === undefined) {
        this.#logger.info('StatefulSet has been deleted', { key });
        return;
      }
      const set = withKind(cached);
      let selector: Selector;
      try {
        selector = labelSelectorAsSelector(set.spec?.selector);
      } catch (err) {
        this.#logger.error(err, `error converting StatefulSet ${key} selector`);
        return;
      }
      await this.adoptOrphanRevisions(set, signal);
      const pods = await this.getPodsForStatefulSet(set, selector, signal);
      await this.syncStatefulSet(set, pods, signal);
    } finally {
      this.#logger.v(4).info('Finished syncing statefulset', {
        key,
        time: `${this.#clock.since(start)}ms`,
      });
    }
  }

  /** A check, by a fresh read, that the set is not going away, before adopting. Go's `canAdoptFunc`. */
  #canAdopt(set: StatefulSet, signal: AbortSignal | undefined): () => Promise<void> {
    const namespace = set.metadata?.namespace ?? '';
    const name = set.metadata?.name ?? '';
    const uid = set.metadata?.uid ?? '';
    return recheckDeletionTimestamp(async () => {
      const fresh = await this.#client.statefulSets
        .inNamespace(namespace)
        .get(name, signal ? { signal } : {});
      if (fresh.metadata?.uid !== uid) {
        throw new Error(
          `original StatefulSet ${namespace}/${name} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${uid}`,
        );
      }
      return fresh;
    });
  }

  /** Adopts the orphan revisions the set's selector matches. Go's `adoptOrphanRevisions`. */
  async adoptOrphanRevisions(set: StatefulSet, signal?: AbortSignal): Promise<void> {
    const orphans = orphanRevisions(this.control.listRevisions(set));
    if (orphans.length === 0) return;
    try {
      await this.#canAdopt(set, signal)();
    } catch (err) {
      throw new Error(`can't adopt ControllerRevisions: ${messageOf(err)}`, { cause: err });
    }
    await this.control.adoptOrphanRevisions(set, orphans, signal);
  }

  /**
   * The pods the set owns after claiming: those it controls and orphans,
   * from the pod cache's index by owner, kept when the selector matches
   * and the name makes them members. Go's `getPodsForStatefulSet`.
   */
  async getPodsForStatefulSet(
    set: StatefulSet,
    selector: Selector,
    signal?: AbortSignal,
  ): Promise<Pod[]> {
    const pods = filterPodsByOwner(
      this.#podIndexer,
      set.metadata ?? {},
      statefulSetKind.kind,
      true,
    );
    const cm = new PodControllerRefManager(
      this.#podControl,
      set,
      selector,
      statefulSetKind,
      this.#canAdopt(set, signal),
      this.#logger,
    );
    return await cm.claimPods(pods, (pod) => isMemberOf(set, pod));
  }

  /**
   * Runs the reconciliation, then, with `minReadySeconds`, syncs again
   * after it while some replicas are not yet available. Go's `syncStatefulSet`.
   */
  async syncStatefulSet(
    set: StatefulSet,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<void> {
    this.#logger.v(4).info('Syncing StatefulSet with pods', {
      statefulSet: `${set.metadata?.namespace ?? ''}/${set.metadata?.name ?? ''}`,
      pods: pods.length,
    });
    const status = await this.control.updateStatefulSet(set, pods, signal);
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (
      minReadySeconds > 0 &&
      status !== undefined &&
      (status.availableReplicas ?? 0) !== replicasOf(set)
    ) {
      this.enqueueSSAfter(set, minReadySeconds * 1000);
    }
  }
  //#endregion sync

  /** Runs an informer notification, logging what it throws. */
  #handle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error(err, 'Failed to handle an informer notification');
    }
  }
}

/** Structural equality of JSON values (owner references, label maps). */
function sameJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    sameJSON((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
