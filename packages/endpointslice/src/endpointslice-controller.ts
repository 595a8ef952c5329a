// The EndpointSlice controller: pkg/controller/endpointslice/
// endpointslice_controller.go (the constants maxRetries,
// endpointSliceChangeMinSyncDelay, defaultSyncBackOff, maxSyncBackOff,
// controllerQualifiedName; NewController, Controller, Run,
// serviceQueueWorker, processNextServiceWorkItem, handleErr, syncService,
// onServiceUpdate, onServiceDelete, onEndpointSliceAdd,
// onEndpointSliceUpdate, onEndpointSliceDelete,
// queueServiceForEndpointSlice, addPod, updatePod, deletePod, trackSync,
// dropEndpointSlicesPendingDeletion, getEndpointSliceFromDeleteAction), the
// StaleInformerCache error of pkg/controller/util/endpointslice/errors.go,
// and the defaults of its flags (pkg/controller/endpointslice/config/
// v1alpha1/defaults.go). The topology queue and its node handlers belong to
// the topology cache, which is not ported.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  noopEventRecorder,
  noopLogger,
  realClock,
  selectorFromSet,
  splitMetaNamespaceKey,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Lister,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import { EndpointSliceTracker } from './endpointslice-tracker.js';
import { Reconciler, type ReconcilerObserver } from './reconciler.js';
import {
  getPodFromDeleteAction,
  getPodServiceMemberships,
  getServicesToUpdateOnPodChange,
} from './reconciler-util.js';
import { TriggerTimeTracker } from './trigger-time-tracker.js';
import { EndpointSliceMetrics, type EndpointSliceMetricsProvider } from './metrics.js';
import { labelManagedBy, labelServiceName, serviceControllerKey } from './utils.js';

/**
 * How many times a Service's sync is retried before it is dropped from the
 * queue (15). Go's `maxRetries`.
 *
 * @category EndpointSlice controller
 */
export const maxRetries = 15;

/**
 * The least delay before a Service is synced after one of its slices
 * changed (1 s), so that changes to several slices are handled together.
 * Go's `endpointSliceChangeMinSyncDelay`.
 *
 * @category EndpointSlice controller
 */
export const endpointSliceChangeMinSyncDelay = 1000;

/**
 * The first retry delay of a failed sync (1 s), doubling each time. Go's
 * `defaultSyncBackOff`.
 *
 * @category EndpointSlice controller
 */
export const defaultSyncBackOff = 1000;

/**
 * The longest retry delay of a failed sync (1000 s). Go's `maxSyncBackOff`.
 *
 * @category EndpointSlice controller
 */
export const maxSyncBackOff = 1_000_000;

/**
 * The value of the `endpointslice.kubernetes.io/managed-by` label on the
 * slices this controller manages (`endpointslice-controller.k8s.io`). Go's
 * `controllerQualifiedName`.
 *
 * @category Names
 */
export const controllerQualifiedName = 'endpointslice-controller.k8s.io';

/**
 * The controller's name in kube-controller-manager (`endpointslice-controller`),
 * as `--controllers` knows it. Go's `names.EndpointSliceController`.
 *
 * @category Names
 */
export const endpointSliceControllerName = 'endpointslice-controller';

/**
 * The component name of the controller's events (`endpoint-slice-controller`).
 *
 * @category Names
 */
export const endpointSliceControllerComponent = 'endpoint-slice-controller';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-service-endpoint-syncs` flag.
 *
 * @category EndpointSlice controller
 */
export const concurrentServiceEndpointSyncs = 5;

/**
 * The most endpoints in one slice by default (100): kube-controller-manager's
 * `--max-endpoints-per-slice` flag.
 *
 * @category EndpointSlice controller
 */
export const defaultMaxEndpointsPerSlice = 100;

/**
 * The delay added to every sync a pod change triggers, by default (0):
 * kube-controller-manager's `--endpointslice-updates-batch-period` flag.
 *
 * @category EndpointSlice controller
 */
export const defaultEndpointUpdatesBatchPeriod = 0;

/**
 * `Warning FailedToListPods`. The reasons of the controller's events.
 *
 * @category Events
 */
export const failedToListPodsReason = 'FailedToListPods';
/**
 * `Warning FailedToListEndpointSlices`.
 *
 * @category Events
 */
export const failedToListEndpointSlicesReason = 'FailedToListEndpointSlices';
/**
 * `Warning FailedToUpdateEndpointSlices`: a sync's writes failed; the
 * Service is retried with backoff.
 *
 * @category Events
 */
export const failedToUpdateEndpointSlicesReason = 'FailedToUpdateEndpointSlices';

const staleBrand = Symbol.for('@kcm-ts/endpointslice.StaleInformerCacheError');

/**
 * The sync saw a cache older than the controller's own writes and will be
 * retried. Go's `StaleInformerCache` (pkg/controller/util/endpointslice).
 *
 * @category EndpointSlice controller
 */
export class StaleInformerCacheError extends Error {
  static {
    Object.defineProperty(this.prototype, staleBrand, { value: true });
  }
  /** @param message - what was stale */
  constructor(message: string) {
    super(message);
    this.name = 'StaleInformerCacheError';
  }
}

/**
 * Whether `err` is a {@link StaleInformerCacheError}, from any copy of the
 * package. Go's `IsStaleInformerCacheErr`.
 *
 * @category EndpointSlice controller
 */
export function isStaleInformerCacheError(err: unknown): err is StaleInformerCacheError {
  return typeof err === 'object' && err !== null && staleBrand in err;
}

/**
 * What the controller tells about its syncs and writes, for the metrics of
 * Go's `k8s.io/endpointslice/metrics` (`endpoint_slice_controller_syncs`
 * counts the `result` of each sync).
 *
 * @category EndpointSlice controller
 */
export interface EndpointSliceControllerObserver extends ReconcilerObserver {
  /** A sync ended: `success`, `stale` (the cache lagged behind) or `error`. */
  onSync?(result: 'success' | 'stale' | 'error'): void;
}

/**
 * Options for {@link EndpointSliceController}: what Go's `NewController`
 * takes.
 *
 * @category EndpointSlice controller
 */
export interface EndpointSliceControllerOptions {
  /** The pod informer, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The Service informer, usually `factory.services()`. */
  services: ResourceInformer<Service>;
  /** The EndpointSlice informer, usually `factory.endpointSlices()`. */
  endpointSlices: ResourceInformer<EndpointSlice>;
  /** The node informer, usually `factory.nodes()`: endpoints' zones. */
  nodes: ResourceInformer<Node>;
  /** The clients to write through (unscoped). */
  client: {
    /** discovery.k8s.io/v1 endpointslices. */
    endpointSlices: ResourceClient<EndpointSlice>;
  };
  /**
   * The most endpoints in one slice: `--max-endpoints-per-slice`; default
   * {@link defaultMaxEndpointsPerSlice} (100).
   */
  maxEndpointsPerSlice?: number;
  /**
   * Milliseconds added before every sync a pod change triggers, so that
   * several changes make one write: `--endpointslice-updates-batch-period`;
   * default 0.
   */
  endpointUpdatesBatchPeriod?: number;
  /**
   * Records events about Services (`FailedToUpdateEndpointSlices`, ...);
   * kube-controller-manager's comes from a broadcaster with the component
   * name `endpoint-slice-controller`. Default none.
   */
  recorder?: EventRecorder;
  /** Time for the queue's delays. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Honour `PreferSameZone` and `PreferSameNode` traffic distributions (default true). */
  preferSameTrafficDistribution?: boolean;
  /** Makes the `endpoint_slice_controller_*` metrics. Default metrics that do nothing. */
  metricsProvider?: EndpointSliceMetricsProvider;
  /** Also told about syncs and writes, beside the metrics. Default none. */
  observer?: EndpointSliceControllerObserver;
}

/** An observer that tells both. */
function combineObservers(
  a: EndpointSliceControllerObserver,
  b: EndpointSliceControllerObserver | undefined,
): EndpointSliceControllerObserver {
  if (b === undefined) return a;
  return {
    onSync(r) {
      a.onSync?.(r);
      b.onSync?.(r);
    },
    onEndpointSliceChange(op) {
      a.onEndpointSliceChange?.(op);
      b.onEndpointSliceChange?.(op);
    },
    onEndpointsPerSync(added, removed) {
      a.onEndpointsPerSync?.(added, removed);
      b.onEndpointsPerSync?.(added, removed);
    },
    onSlicesChangedPerSync(n, topology, td) {
      a.onSlicesChangedPerSync?.(n, topology, td);
      b.onSlicesChangedPerSync?.(n, topology, td);
    },
    onServicePortCache(key, info) {
      a.onServicePortCache?.(key, info);
      b.onServicePortCache?.(key, info);
    },
    onTrafficDistribution(key, td) {
      a.onTrafficDistribution?.(key, td);
      b.onTrafficDistribution?.(key, td);
    },
    onServiceDeleted(key) {
      a.onServiceDeleted?.(key);
      b.onServiceDeleted?.(key);
    },
  };
}

const nsName = (o: { metadata?: { name?: string; namespace?: string } }) =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The slices not being deleted. Go's `dropEndpointSlicesPendingDeletion`.
 *
 * @internal
 */
export function dropEndpointSlicesPendingDeletion(
  endpointSlices: readonly EndpointSlice[],
): EndpointSlice[] {
  return endpointSlices.filter((s) => s.metadata?.deletionTimestamp == null);
}

/**
 * kube-controller-manager's EndpointSlice controller: for every Service
 * with a selector, keeps EndpointSlices (per address type, at most
 * `maxEndpointsPerSlice` endpoints each) listing the pods it selects, with
 * their addresses, ports (named target ports resolved per pod), `ready`,
 * `serving` and `terminating` conditions, node and zone; slices are owned
 * by the Service and labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`.
 * Slices are updated in place and filled fullest first, so that one pod's
 * change writes one slice. A tracker of the generations it wrote lets it
 * ignore its own writes coming back and wait for a cache that lags behind
 * them. Services without a selector, and ExternalName Services, are left
 * alone. Go's `endpointslice.Controller`.
 *
 * @example
 * ```ts
 * const controller = new EndpointSliceController({
 *   pods: factory.pods(),
 *   services: factory.services(),
 *   endpointSlices: factory.endpointSlices(),
 *   nodes: factory.nodes(),
 *   client: { endpointSlices },
 * });
 * factory.start(signal);
 * await controller.run(concurrentServiceEndpointSyncs, signal);
 * ```
 *
 * @category EndpointSlice controller
 */
export class EndpointSliceController {
  /** The work queue (named `endpoint_slice`), of Service keys. */
  readonly serviceQueue: RateLimitingQueue<string>;
  /** The generations of the slices the controller wrote, per Service. */
  readonly endpointSliceTracker: EndpointSliceTracker;
  /** The source of the last-change-trigger-time annotation. */
  readonly triggerTimeTracker: TriggerTimeTracker;
  /** The reconciler that writes the slices. */
  readonly reconciler: Reconciler;
  /** The most endpoints in one slice. */
  readonly maxEndpointsPerSlice: number;
  /** The delay (ms) added to every sync a pod change triggers. */
  readonly endpointUpdatesBatchPeriod: number;
  /** The `endpoint_slice_controller_*` metrics. */
  readonly metrics: EndpointSliceMetrics;

  readonly #serviceInformer: SharedIndexInformer<Service>;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #sliceInformer: SharedIndexInformer<EndpointSlice>;
  readonly #nodeInformer: SharedIndexInformer<Node>;
  readonly #serviceLister: Lister<Service>;
  readonly #podLister: Lister<Pod>;
  readonly #sliceLister: Lister<EndpointSlice>;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #observer: EndpointSliceControllerObserver;
  #running = false;

  /** @param options - see {@link EndpointSliceControllerOptions} */
  constructor(options: EndpointSliceControllerOptions) {
    const batch = options.endpointUpdatesBatchPeriod ?? defaultEndpointUpdatesBatchPeriod;
    if (!(batch >= 0)) {
      throw new RangeError(`endpointUpdatesBatchPeriod must be >= 0, got ${String(batch)}`);
    }
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.maxEndpointsPerSlice = options.maxEndpointsPerSlice ?? defaultMaxEndpointsPerSlice;
    this.metrics = new EndpointSliceMetrics(this.maxEndpointsPerSlice, options.metricsProvider);
    this.#observer = combineObservers(this.metrics, options.observer);
    this.endpointUpdatesBatchPeriod = batch;
    // Like the default controller rate limiter, but backing off from 1 s:
    // a sync may rewrite many slices, and the API server is spared.
    this.serviceQueue = newRateLimitingQueue<string>(
      new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(defaultSyncBackOff, maxSyncBackOff),
        new BucketRateLimiter<string>({ qps: 10, burst: 100, clock: this.#clock }),
      ),
      { name: 'endpoint_slice', clock: this.#clock },
    );

    this.#serviceInformer = options.services.informer();
    this.#serviceInformer.addEventHandler({
      onAdd: (svc) => this.onServiceUpdate(svc),
      onUpdate: (_old, cur) => this.onServiceUpdate(cur),
      onDelete: (svc) => this.onServiceDelete(svc),
    });
    this.#serviceLister = options.services.lister();

    this.#podInformer = options.pods.informer();
    this.#podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (old, cur) => this.updatePod(old, cur),
      onDelete: (pod) => this.deletePod(pod),
    });
    this.#podLister = options.pods.lister();

    this.#nodeInformer = options.nodes.informer();

    this.#sliceInformer = options.endpointSlices.informer();
    this.#sliceInformer.addEventHandler({
      onAdd: (slice) => this.onEndpointSliceAdd(slice),
      onUpdate: (old, cur) => this.onEndpointSliceUpdate(old, cur),
      onDelete: (slice) => this.onEndpointSliceDelete(slice),
    });
    this.#sliceLister = options.endpointSlices.lister();

    this.endpointSliceTracker = new EndpointSliceTracker();
    this.triggerTimeTracker = new TriggerTimeTracker();
    this.reconciler = new Reconciler({
      client: options.client.endpointSlices,
      nodeLister: options.nodes.lister(),
      maxEndpointsPerSlice: this.maxEndpointsPerSlice,
      endpointSliceTracker: this.endpointSliceTracker,
      controllerName: controllerQualifiedName,
      preferSameTrafficDistribution: options.preferSameTrafficDistribution,
      logger: this.#logger,
      observer: this.#observer,
    });
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` workers
   * (kube-controller-manager runs {@link concurrentServiceEndpointSyncs})
   * until `signal` aborts; resolves once every worker has stopped and the
   * queue is shut down. A sync in progress when the signal aborts ends at
   * its next request (the signal is passed to the clients); keys still
   * queued are dropped. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('EndpointSliceController.run: already running');
    if (this.serviceQueue.shuttingDown()) {
      throw new Error('EndpointSliceController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    void stopped.then(() => this.serviceQueue.shutDown());
    const log = this.#logger;
    // Upstream's own words, and its cache-sync name `endpoint_slice`.
    log.info('Starting endpoint slice controller');
    try {
      const synced = await waitForNamedCacheSync(
        'endpoint_slice',
        signal,
        [
          () => this.#podInformer.hasSynced(),
          () => this.#serviceInformer.hasSynced(),
          () => this.#sliceInformer.hasSynced(),
          () => this.#nodeInformer.hasSynced(),
        ],
        {
          clock: this.#clock,
          logger: { info: (m) => log.info(m), error: (m) => log.error(undefined, m) },
        },
      );
      if (!synced) return;
      log.v(2).info('Starting service queue worker threads', { total: workers });
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.serviceQueue.shutDown();
      this.#running = false;
      log.info('Shutting down endpoint slice controller');
    }
  }

  /** Processes keys until the queue shuts down. Go's `serviceQueueWorker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextServiceWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one Service key, syncs it and marks it done; resolves false once
   * the queue has shut down. Go's `processNextServiceWorkItem`.
   */
  async processNextServiceWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.serviceQueue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      let err: unknown;
      try {
        await this.syncService(key, signal);
      } catch (e) {
        err = e ?? new Error('sync failed');
      }
      if (!signal?.aborted || err === undefined) this.handleErr(err, key);
    } finally {
      this.serviceQueue.done(key);
    }
    return true;
  }
  //#endregion run

  /**
   * Counts the sync's result, then forgets the key on success, or retries
   * it with backoff up to {@link maxRetries} times and then drops it. Go's
   * `handleErr`.
   */
  handleErr(err: unknown, key: string): void {
    this.#observer.onSync?.(
      err === undefined ? 'success' : isStaleInformerCacheError(err) ? 'stale' : 'error',
    );
    if (err === undefined) {
      this.serviceQueue.forget(key);
      return;
    }
    if (this.serviceQueue.numRequeues(key) < maxRetries) {
      this.#logger.info('Error syncing endpoint slices for service, retrying', {
        key,
        err: messageOf(err),
      });
      this.serviceQueue.addRateLimited(key);
      return;
    }
    this.#logger.info('Retry budget exceeded, dropping service out of the queue', {
      key,
      err: messageOf(err),
    });
    this.serviceQueue.forget(key);
    this.#logger.error(err, 'Dropping service out of the queue');
  }

  //#region sync-service
  /**
   * Syncs one Service by key: a deleted one is forgotten (the garbage
   * collector deletes its slices through their owner references);
   * ExternalName Services and those without a selector are left alone;
   * otherwise its pods and managed slices are read from the caches, slices
   * being deleted are ignored, a cache older than the controller's writes
   * fails the sync with {@link StaleInformerCacheError} (retried), and the
   * reconciler writes the difference. Go's `syncService`.
   */
  async syncService(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      const { namespace, name } = splitMetaNamespaceKey(key);
      const service = this.#serviceLister.byNamespace(namespace).tryGet(name);
      if (service === undefined) {
        this.triggerTimeTracker.deleteService(namespace, name);
        this.reconciler.deleteService(namespace, name);
        this.endpointSliceTracker.deleteService(namespace, name);
        return;
      }
      if (service.spec?.type === 'ExternalName') return;
      if (service.spec?.selector == null) return;
      this.#logger.v(5).info('About to update endpoint slices for service', { key });

      const pods = this.#podLister
        .byNamespace(namespace)
        .list(selectorFromSet(service.spec.selector));
      const sliceSelector = selectorFromSet({
        [labelServiceName]: name,
        [labelManagedBy]: this.reconciler.getControllerName(),
      });
      let endpointSlices = this.#sliceLister.byNamespace(namespace).list(sliceSelector);
      endpointSlices = dropEndpointSlicesPendingDeletion(endpointSlices);
      if (this.endpointSliceTracker.staleSlices(service, endpointSlices)) {
        throw new StaleInformerCacheError('EndpointSlice informer cache is out of date');
      }
      // Computed even when nothing is written, so the tracker's state moves on.
      const lastChangeTriggerTime = this.triggerTimeTracker.computeEndpointLastChangeTriggerTime(
        namespace,
        service,
        pods,
      );
      try {
        await this.reconciler.reconcile(
          service,
          pods,
          endpointSlices,
          lastChangeTriggerTime,
          signal,
        );
      } catch (err) {
        if (!signal?.aborted) {
          this.#recorder.event(
            service,
            'Warning',
            failedToUpdateEndpointSlicesReason,
            `Error updating Endpoint Slices for Service ${namespace}/${name}: ${messageOf(err)}`,
          );
        }
        throw err;
      }
    } finally {
      this.#logger.v(4).info('Finished syncing service endpoint slices', {
        key,
        elapsedTime: `${this.#clock.now() - start}ms`,
      });
    }
  }
  //#endregion sync-service

  /** A Service appeared or changed: queue it. Go's `onServiceUpdate`. */
  onServiceUpdate(service: Service): void {
    this.serviceQueue.add(metaNamespaceKeyFunc(service));
  }

  /** A Service is gone: queue it, so its state is forgotten. Go's `onServiceDelete`. */
  onServiceDelete(obj: Service | DeletedFinalStateUnknown<Service>): void {
    this.serviceQueue.add(isDeletedFinalStateUnknown(obj) ? obj.key : metaNamespaceKeyFunc(obj));
  }

  /**
   * A slice appeared: its Service is synced if the controller manages the
   * slice and did not write this generation itself. Go's `onEndpointSliceAdd`.
   */
  onEndpointSliceAdd(endpointSlice: EndpointSlice): void {
    if (
      this.reconciler.managedByController(endpointSlice) &&
      this.endpointSliceTracker.shouldSync(endpointSlice)
    ) {
      this.queueServiceForEndpointSlice(endpointSlice);
    }
  }

  /**
   * A slice changed: both Services are synced when its service-name label
   * changed; its Service is synced when it moved into or out of the
   * controller's management, or is managed and newer than the controller's
   * last write. Go's `onEndpointSliceUpdate`.
   */
  onEndpointSliceUpdate(prev: EndpointSlice, cur: EndpointSlice): void {
    const svcName = cur.metadata?.labels?.[labelServiceName];
    const prevSvcName = prev.metadata?.labels?.[labelServiceName];
    if (svcName !== prevSvcName) {
      this.#logger.info('label changed', {
        label: labelServiceName,
        oldService: prevSvcName,
        newService: svcName,
        endpointslice: nsName(cur),
      });
      this.queueServiceForEndpointSlice(cur);
      this.queueServiceForEndpointSlice(prev);
      return;
    }
    if (
      this.reconciler.managedByChanged(prev, cur) ||
      (this.reconciler.managedByController(cur) && this.endpointSliceTracker.shouldSync(cur))
    ) {
      this.queueServiceForEndpointSlice(cur);
    }
  }

  /**
   * A slice is gone: its Service is synced unless the controller deleted it
   * itself. Go's `onEndpointSliceDelete`.
   */
  onEndpointSliceDelete(obj: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>): void {
    const slice = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
    if (
      slice !== undefined &&
      this.reconciler.managedByController(slice) &&
      this.endpointSliceTracker.has(slice) &&
      !this.endpointSliceTracker.handleDeletion(slice)
    ) {
      this.queueServiceForEndpointSlice(slice);
    }
  }

  /**
   * Queues the slice's Service after the larger of
   * {@link endpointSliceChangeMinSyncDelay} and the batch period. Go's
   * `queueServiceForEndpointSlice`.
   */
  queueServiceForEndpointSlice(endpointSlice: EndpointSlice): void {
    let key: string;
    try {
      key = serviceControllerKey(endpointSlice);
    } catch (err) {
      this.#logger.error(err, "Couldn't get key for EndpointSlice", {
        endpointSlice: nsName(endpointSlice),
      });
      return;
    }
    this.serviceQueue.addAfter(
      key,
      Math.max(endpointSliceChangeMinSyncDelay, this.endpointUpdatesBatchPeriod),
    );
  }

  /** A pod appeared: the Services selecting it are queued after the batch period. Go's `addPod`. */
  addPod(pod: Pod): void {
    for (const key of getPodServiceMemberships(this.#serviceLister, pod)) {
      this.serviceQueue.addAfter(key, this.endpointUpdatesBatchPeriod);
    }
  }

  /**
   * A pod changed: the Services its change concerns are queued after the
   * batch period. Go's `updatePod`.
   */
  updatePod(old: Pod, cur: Pod): void {
    for (const key of getServicesToUpdateOnPodChange(this.#serviceLister, old, cur)) {
      this.serviceQueue.addAfter(key, this.endpointUpdatesBatchPeriod);
    }
  }

  /** A pod is gone: the Services that selected it are queued. Go's `deletePod`. */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = getPodFromDeleteAction(obj);
    if (pod !== undefined) this.addPod(pod);
  }
}
