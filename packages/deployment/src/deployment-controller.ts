// The Deployment controller: pkg/controller/deployment/deployment_controller.go
// (NewDeploymentController, Run, the event handlers, syncDeployment,
// handleErr, getReplicaSetsForDeployment, getPodMapForDeployment). The pod
// map is read through the pod informer's controller-uid index that the
// ReplicaSet controller also uses (controller_utils.go,
// AddPodControllerUIDIndexer), one lookup per ReplicaSet.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  getControllerOf,
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isNotFound,
  labelSelectorAsSelector,
  metaNamespaceKeyFunc,
  nameOf,
  namespaceOf,
  noopEventRecorder,
  noopLogger,
  realClock,
  resourceVersionOf,
  splitMetaNamespaceKey,
  uidOf,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Indexer,
  type Lister,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  RealRSControl,
  ReplicaSetControllerRefManager,
  addPodControllerUIDIndexer,
  podControllerUIDIndex,
  recheckDeletionTimestamp,
} from '@kcm-ts/controller';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import { rollback } from './rollback.js';
import { getRollbackTo } from './rollback-to.js';
import {
  deploymentReference,
  type DeploymentControllerClients,
  type DeploymentSyncContext,
} from './sync-context.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import {
  checkPausedConditions,
  errorMessage,
  isScalingEvent,
  sync,
  syncStatusOnly,
} from './sync.js';
import {
  getDeploymentsForReplicaSet,
  listReplicaSets,
  recreateDeploymentStrategyType,
  rollingUpdateDeploymentStrategyType,
  rsListFromClient,
} from './util/deployment-util.js';
import { deepCopy, semanticDeepEqual } from './util/semantic.js';

/**
 * How many times a Deployment is retried before it is dropped from the queue
 * until its next change. Go's `maxRetries`: with 5 ms doubling, the last retry
 * waits about 82 s.
 *
 * @category Controller
 */
export const maxRetries = 15;

/** The group, version and kind this controller owns ReplicaSets as. Go's `controllerKind`. */
const controllerKind = { group: 'apps', version: 'v1', kind: 'Deployment' } as const;

/**
 * Options for {@link DeploymentController}: the arguments of Go's
 * `NewDeploymentController`, plus the injected clock and logger.
 *
 * @category Controller
 */
export interface DeploymentControllerOptions {
  /** The shared Deployment informer, such as `factory.deployments()`. */
  deployments: ResourceInformer<Deployment>;
  /** The shared ReplicaSet informer, such as `factory.replicaSets()`. */
  replicaSets: ResourceInformer<ReplicaSet>;
  /** The shared Pod informer, such as `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** Where the controller writes. */
  client: DeploymentControllerClients;
  /** Events about Deployments (component `deployment-controller`). Default: none. */
  recorder?: EventRecorder;
  /** Time for conditions, deadlines and the queue. Default: the real clock. */
  clock?: Clock;
  /** Structured logs; kube-controller-manager passes one named after the controller. Default: none. */
  logger?: Logger;
}

/**
 * Keeps Deployments' ReplicaSets in line with their spec: creates the new
 * ReplicaSet of a template, scales old and new ones by the strategy's rules,
 * rolls back, pauses, scales proportionally, reports progress and
 * availability conditions, and trims the revision history. Go's
 * `DeploymentController` in pkg/controller/deployment.
 *
 * @example
 * {@includeCode ../test/quick-start.test.ts#controller}
 *
 * @category Controller
 */
export class DeploymentController {
  /** The Deployments waiting to be synced, by `namespace/name`. */
  readonly queue: RateLimitingQueue<string>;
  readonly #client: DeploymentControllerClients;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #dLister: Lister<Deployment>;
  readonly #rsLister: Lister<ReplicaSet>;
  readonly #podIndexer: Indexer<Pod>;
  readonly #synced: (() => boolean)[];
  #signal: AbortSignal | undefined;
  #running = false;

  /**
   * Registers the event handlers on the three informers (add, update and
   * delete of Deployments and ReplicaSets, and pod deletions) and the
   * `podControllerUID` index on the pod informer, unless another controller
   * of the same factory has added it already.
   */
  constructor(options: DeploymentControllerOptions) {
    this.#client = options.client;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'deployment',
      clock: this.#clock,
    });
    const dInformer = options.deployments.informer();
    const rsInformer = options.replicaSets.informer();
    const podInformer = options.pods.informer();
    dInformer.addEventHandler({
      onAdd: (d) => this.#addDeployment(d),
      onUpdate: (oldD, curD) => this.#updateDeployment(oldD, curD),
      // Syncing a deleted Deployment finds nothing and does nothing.
      onDelete: (d) => this.#deleteDeployment(d),
    });
    rsInformer.addEventHandler({
      onAdd: (rs) => this.#addReplicaSet(rs),
      onUpdate: (oldRS, curRS) => this.#updateReplicaSet(oldRS, curRS),
      onDelete: (rs) => this.#deleteReplicaSet(rs),
    });
    podInformer.addEventHandler({ onDelete: (pod) => this.#deletePod(pod) });
    addPodControllerUIDIndexer(podInformer);
    this.#dLister = options.deployments.lister();
    this.#rsLister = options.replicaSets.lister();
    this.#podIndexer = podInformer.getIndexer();
    this.#synced = [
      () => dInformer.hasSynced(),
      () => rsInformer.hasSynced(),
      () => podInformer.hasSynced(),
    ];
  }

  /**
   * Waits for the three caches to sync, then runs `workers` workers until
   * `signal` aborts. Resolves once every worker has finished its current
   * Deployment and the queue is shut down. Go's `Run`.
   *
   * @param workers - how many Deployments sync at once (Go's
   *   `--concurrent-deployment-syncs`, default 5)
   */
  async run(workers = 5, signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('the deployment controller is already running');
    this.#running = true;
    this.#signal = signal;
    const logger = this.#logger;
    logger.info('Starting controller', { controller: 'deployment' });
    try {
      const synced = await waitForNamedCacheSync('deployment', signal, this.#synced, {
        clock: this.#clock,
        logger: {
          info: (message) => logger.v(2).info(message),
          error: (message) => logger.error(undefined, message),
        },
      });
      if (!synced) return;
      const loops = Array.from({ length: workers }, () => this.#worker());
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      this.queue.shutDown();
      await Promise.all(loops);
    } finally {
      this.queue.shutDown();
      logger.info('Shutting down controller', { controller: 'deployment' });
    }
  }

  /** One worker: takes keys until the queue shuts down. Go's `worker`. */
  async #worker(): Promise<void> {
    while (await this.#processNextWorkItem()) {
      // next key
    }
  }

  async #processNextWorkItem(): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit || key === undefined) return false;
    try {
      let err: unknown;
      try {
        await this.syncDeployment(key);
      } catch (e) {
        err = e ?? new Error('sync failed');
      }
      this.#handleErr(err, key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }

  #handleErr(err: unknown, key: string): void {
    // A terminating namespace refuses every create: no point in retrying.
    if (err === undefined || hasStatusCause(err, 'NamespaceTerminating')) {
      this.queue.forget(key);
      return;
    }
    if (this.queue.numRequeues(key) < maxRetries) {
      this.#logger
        .v(2)
        .info('Error syncing deployment', { deployment: key, err: errorMessage(err) });
      this.queue.addRateLimited(key);
      return;
    }
    this.#logger.error(err, 'Dropping deployment out of the queue', { deployment: key });
    this.queue.forget(key);
  }

  /** The context the sync functions run in. */
  #context(): DeploymentSyncContext {
    return {
      client: this.#client,
      recorder: this.#recorder,
      clock: this.#clock,
      logger: this.#logger,
      rsLister: this.#rsLister,
      signal: this.#signal,
      enqueueRateLimited: (d) => this.queue.addRateLimited(metaNamespaceKeyFunc(d)),
      enqueueAfter: (d, ms) => this.queue.addAfter(metaNamespaceKeyFunc(d), ms),
    };
  }

  //#region sync-deployment
  /**
   * Syncs the Deployment with this key once, in upstream's order: deleted →
   * nothing; empty selector → warn; claim ReplicaSets and list pods; being
   * deleted → status only; paused conditions; paused → sync; legacy rollback;
   * scaling event → sync; else the strategy's rollout. Go's `syncDeployment`.
   * Not to be called for one key from two places at once (the queue sees to
   * that).
   */
  async syncDeployment(key: string): Promise<void> {
    const logger = this.#logger.withValues({ deployment: key });
    const start = this.#clock.now();
    logger.v(4).info('Started syncing deployment');
    try {
      const { namespace, name } = splitMetaNamespaceKey(key);
      let deployment: Deployment;
      try {
        deployment = this.#dLister.byNamespace(namespace).get(name);
      } catch (err) {
        if (isNotFound(err)) {
          logger.v(2).info('Deployment has been deleted');
          return;
        }
        throw err;
      }
      // Work on a copy: the cache's object is shared.
      const d = deepCopy(deployment);
      const ctx = this.#context();

      const selector = d.spec?.selector;
      if (
        selector !== undefined &&
        selector.matchLabels === undefined &&
        selector.matchExpressions === undefined
      ) {
        this.#recorder.event(
          deploymentReference(d),
          'Warning',
          'SelectingAll',
          'This deployment is selecting all pods. A non-empty selector is required.',
        );
        if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
          (d.status ??= {}).observedGeneration = d.metadata?.generation ?? 0;
          await this.#client.deployments
            .inNamespace(namespace)
            .updateStatus(d, { signal: this.#signal })
            .catch(() => undefined);
        }
        return;
      }

      // Claim the ReplicaSets this Deployment should own, adopting orphans and
      // releasing those that no longer match.
      const rsList = await this.getReplicaSetsForDeployment(d);
      // Every pod of those ReplicaSets, grouped by ReplicaSet; inactive ones
      // too, since Recreate must wait for terminating pods to go.
      const podMap = this.getPodMapForDeployment(d, rsList);

      if (d.metadata?.deletionTimestamp) {
        await syncStatusOnly(ctx, d, rsList);
        return;
      }
      // Set the Paused/Resumed condition first, so that a paused Deployment
      // does not time out.
      await checkPausedConditions(ctx, d);
      if (d.spec?.paused) {
        await sync(ctx, d, rsList);
        return;
      }
      // Legacy rollbacks come before scaling: a scaling event while rolling
      // back would otherwise scale the wrong template.
      if (getRollbackTo(d) !== undefined) {
        await rollback(ctx, d, rsList);
        return;
      }
      if (await isScalingEvent(ctx, d, rsList)) {
        await sync(ctx, d, rsList);
        return;
      }
      switch (d.spec?.strategy?.type) {
        case recreateDeploymentStrategyType:
          await rolloutRecreate(ctx, d, rsList, podMap);
          return;
        case rollingUpdateDeploymentStrategyType:
          await rolloutRolling(ctx, d, rsList);
          return;
      }
      throw new Error(`unexpected deployment strategy type: ${d.spec?.strategy?.type ?? ''}`);
    } finally {
      logger.v(4).info('Finished syncing deployment', {
        duration: `${this.#clock.since(start)}ms`,
      });
    }
  }
  //#endregion sync-deployment

  /**
   * The ReplicaSets this Deployment owns, after adopting matching orphans and
   * releasing owned ones that no longer match. Adoption first re-reads the
   * Deployment from the API server, so a Deployment deleted a moment ago
   * adopts nothing. Go's `getReplicaSetsForDeployment`.
   */
  async getReplicaSetsForDeployment(d: Deployment): Promise<ReplicaSet[]> {
    // Every ReplicaSet of the namespace, so that owned ones whose labels no
    // longer match can be released.
    const rsList = this.#rsLister.byNamespace(namespaceOf(d)).list();
    let deploymentSelector;
    try {
      deploymentSelector = labelSelectorAsSelector(d.spec?.selector);
    } catch (err) {
      throw new Error(
        `deployment ${namespaceOf(d)}/${nameOf(d)} has invalid label selector: ${(err as Error).message}`,
      );
    }
    const canAdoptFunc = recheckDeletionTimestamp(async () => {
      const fresh = await this.#client.deployments
        .inNamespace(namespaceOf(d))
        .get(nameOf(d), { signal: this.#signal });
      if (uidOf(fresh) !== uidOf(d)) {
        throw new Error(
          `original Deployment ${namespaceOf(d)}/${nameOf(d)} is gone: got uid ${uidOf(fresh)}, wanted ${uidOf(d)}`,
        );
      }
      return fresh;
    });
    const cm = new ReplicaSetControllerRefManager(
      new RealRSControl(this.#client.replicaSets),
      d,
      deploymentSelector,
      controllerKind,
      canAdoptFunc,
      this.#logger,
    );
    return cm.claimReplicaSets(rsList);
  }

  /**
   * The pods of each ReplicaSet in `rsList`, by ReplicaSet uid: pods that
   * match the Deployment's selector and are controlled by one of them, every
   * ReplicaSet present even with no pods. Inactive pods are kept: Recreate
   * waits for the old ones to be gone. Go's `getPodMapForDeployment`; each
   * ReplicaSet's pods come from the `podControllerUID` index rather than a
   * scan of the namespace, which gives the same pods.
   */
  getPodMapForDeployment(d: Deployment, rsList: readonly ReplicaSet[]): Map<string, Pod[]> {
    const selector = labelSelectorAsSelector(d.spec?.selector);
    const namespace = namespaceOf(d);
    const podMap = new Map<string, Pod[]>();
    for (const rs of rsList) {
      const uid = uidOf(rs);
      if (podMap.has(uid)) continue;
      podMap.set(
        uid,
        this.#podIndexer
          .byIndex(podControllerUIDIndex, uid)
          .filter(
            (pod) => namespaceOf(pod) === namespace && selector.matches(pod.metadata?.labels),
          ),
      );
    }
    return podMap;
  }

  //#region handlers
  #enqueue(d: Deployment): void {
    this.queue.add(metaNamespaceKeyFunc(d));
  }

  #addDeployment(d: Deployment): void {
    this.#logger.v(4).info('Adding deployment', { deployment: key(d) });
    this.#enqueue(d);
  }

  #updateDeployment(oldD: Deployment, curD: Deployment): void {
    this.#logger.v(4).info('Updating deployment', { deployment: key(oldD) });
    this.#enqueue(curD);
  }

  #deleteDeployment(obj: Deployment | DeletedFinalStateUnknown<Deployment>): void {
    const d = isDeletedFinalStateUnknown(obj) ? (obj.obj as Deployment) : obj;
    this.#logger.v(4).info('Deleting deployment', { deployment: key(d) });
    this.#enqueue(d);
  }

  /** Enqueues the Deployment that manages a new ReplicaSet, or those that could adopt an orphan. */
  #addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata?.deletionTimestamp) {
      // After a restart an object may first appear already being deleted.
      this.#deleteReplicaSet(rs);
      return;
    }
    const ref = getControllerOf(rs);
    if (ref !== undefined) {
      const d = this.#resolveControllerRef(namespaceOf(rs), ref);
      if (d === undefined) return;
      this.#logger.v(4).info('ReplicaSet added', { replicaSet: key(rs) });
      this.#enqueue(d);
      return;
    }
    const ds = this.#getDeploymentsForReplicaSet(rs);
    if (ds.length === 0) return;
    this.#logger.v(4).info('Orphan ReplicaSet added', { replicaSet: key(rs) });
    for (const d of ds) this.#enqueue(d);
  }

  /** The Deployments that might adopt `rs`; more than one is a user error. */
  #getDeploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    let deployments: Deployment[];
    try {
      deployments = getDeploymentsForReplicaSet(this.#dLister, rs);
    } catch {
      return [];
    }
    if (deployments.length > 1) {
      this.#logger.v(4).info('More than one deployment selects this replica set (a user error)', {
        replicaSet: key(rs),
        labels: rs.metadata?.labels,
        deployment: key(deployments[0]!),
      });
    }
    return deployments;
  }

  /**
   * Wakes the Deployments concerned by a ReplicaSet change: the old owner if
   * the controller reference changed, the current owner, or for an orphan
   * whose labels or owner changed, every Deployment that might adopt it.
   */
  #updateReplicaSet(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    // Resyncs send updates of unchanged objects: nothing to do.
    if (resourceVersionOf(curRS) === resourceVersionOf(oldRS)) return;
    const curRef = getControllerOf(curRS);
    const oldRef = getControllerOf(oldRS);
    const controllerRefChanged = !semanticDeepEqual(curRef, oldRef);
    if (controllerRefChanged && oldRef !== undefined) {
      const d = this.#resolveControllerRef(namespaceOf(oldRS), oldRef);
      if (d !== undefined) this.#enqueue(d);
    }
    if (curRef !== undefined) {
      const d = this.#resolveControllerRef(namespaceOf(curRS), curRef);
      if (d === undefined) return;
      this.#logger.v(4).info('ReplicaSet updated', { replicaSet: key(curRS) });
      this.#enqueue(d);
      return;
    }
    const labelChanged = !semanticDeepEqual(curRS.metadata?.labels, oldRS.metadata?.labels);
    if (labelChanged || controllerRefChanged) {
      const ds = this.#getDeploymentsForReplicaSet(curRS);
      if (ds.length === 0) return;
      this.#logger.v(4).info('Orphan ReplicaSet updated', { replicaSet: key(curRS) });
      for (const d of ds) this.#enqueue(d);
    }
  }

  /** Enqueues the owner of a deleted ReplicaSet; nobody cares about deleted orphans. */
  #deleteReplicaSet(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    // A tombstone's object may be stale; if its labels changed, the new owner
    // hears of it on the next resync.
    const rs = isDeletedFinalStateUnknown(obj) ? (obj.obj as ReplicaSet) : obj;
    const ref = getControllerOf(rs);
    if (ref === undefined) return;
    const d = this.#resolveControllerRef(namespaceOf(rs), ref);
    if (d === undefined) return;
    this.#logger.v(4).info('ReplicaSet deleted', { replicaSet: key(rs) });
    this.#enqueue(d);
  }

  /**
   * Enqueues a Recreate Deployment once the last of its pods is gone, so its
   * new ReplicaSet can start. The ReplicaSets are listed live from the API
   * server, the pods from the cache. Go's `deletePod`.
   */
  async #deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): Promise<void> {
    const pod = isDeletedFinalStateUnknown(obj) ? (obj.obj as Pod) : obj;
    this.#logger.v(4).info('Pod deleted', { pod: key(pod) });
    const d = this.#getDeploymentForPod(pod);
    if (d === undefined || d.spec?.strategy?.type !== recreateDeploymentStrategyType) return;
    let rsList: ReplicaSet[];
    try {
      rsList = await listReplicaSets(d, rsListFromClient(this.#client.replicaSets));
    } catch {
      return;
    }
    let numPods = 0;
    for (const pods of this.getPodMapForDeployment(d, rsList).values()) numPods += pods.length;
    if (numPods === 0) this.#enqueue(d);
  }

  /** The Deployment whose ReplicaSet controls `pod`, through both controller references. */
  #getDeploymentForPod(pod: Pod): Deployment | undefined {
    const ref = getControllerOf(pod);
    if (ref === undefined || ref.kind !== 'ReplicaSet') return undefined;
    let rs: ReplicaSet;
    try {
      rs = this.#rsLister.byNamespace(namespaceOf(pod)).get(ref.name);
    } catch (err) {
      this.#logger.v(4).info('Cannot get replicaset for pod', {
        ownerReference: ref.name,
        pod: key(pod),
        err: String(err),
      });
      return undefined;
    }
    if (uidOf(rs) !== ref.uid) return undefined;
    const rsRef = getControllerOf(rs);
    if (rsRef === undefined) return undefined;
    return this.#resolveControllerRef(namespaceOf(rs), rsRef);
  }

  /**
   * The Deployment a controller reference points to, if it is one and the
   * cache has it with that uid (it may have been deleted and re-created under
   * the same name). Go's `resolveControllerRef`.
   */
  #resolveControllerRef(namespace: string, ref: OwnerReference): Deployment | undefined {
    if (ref.kind !== controllerKind.kind) return undefined;
    let d: Deployment;
    try {
      d = this.#dLister.byNamespace(namespace).get(ref.name);
    } catch {
      return undefined;
    }
    return uidOf(d) === ref.uid ? d : undefined;
  }
  //#endregion handlers
}

/** `namespace/name`, for log lines. */
function key(obj: Deployment | ReplicaSet | Pod): string {
  return `${namespaceOf(obj)}/${nameOf(obj)}`;
}
