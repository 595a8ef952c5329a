// The EndpointSlice mirroring controller: pkg/controller/endpointslicemirroring/
// endpointslicemirroring_controller.go (the constants maxRetries,
// defaultSyncBackOff, maxSyncBackOff, controllerName; NewController,
// Controller, Run, worker, processNextWorkItem, handleErr, syncEndpoints,
// queueEndpoints, shouldMirror, onServiceAdd, onServiceUpdate,
// onServiceDelete, onEndpointsAdd, onEndpointsUpdate, onEndpointsDelete,
// onEndpointSliceAdd, onEndpointSliceUpdate, onEndpointSliceDelete,
// queueEndpointsForEndpointSlice, deleteMirroredSlices,
// endpointSlicesMirroredForService), the tombstone helpers of utils.go
// (getServiceFromDeleteAction, getEndpointsFromDeleteAction,
// getEndpointSliceFromDeleteAction) and the defaults of its flags
// (pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
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
import { StaleInformerCacheError, isStaleInformerCacheError } from '../endpointslice-controller.js';
import { EndpointSliceTracker } from '../endpointslice-tracker.js';
import type { EndpointSliceMetricsProvider } from '../metrics.js';
import { labelManagedBy, labelServiceName } from '../utils.js';
import { EndpointSliceMirroringMetrics } from './metrics.js';
import { MirroringReconciler } from './reconciler.js';
import {
  endpointsControllerKey,
  hasLeaderElection,
  managedByMirroringController,
  mirroringControllerQualifiedName,
  mirroringManagedByChanged,
  skipMirror,
} from './utils.js';

/**
 * How many times an Endpoints object's sync is retried before it is dropped
 * from the queue (15). Go's `maxRetries`.
 *
 * @category EndpointSlice mirroring
 */
export const mirroringMaxRetries = 15;

/**
 * The first retry delay of a failed sync (1 s), doubling each time. Go's
 * `defaultSyncBackOff`.
 *
 * @category EndpointSlice mirroring
 */
export const mirroringDefaultSyncBackOff = 1000;

/**
 * The longest retry delay of a failed sync (100 s). Go's `maxSyncBackOff`.
 *
 * @category EndpointSlice mirroring
 */
export const mirroringMaxSyncBackOff = 100_000;

/**
 * The controller's name in kube-controller-manager
 * (`endpointslice-mirroring-controller`), as `--controllers` knows it
 * (alias `endpointslicemirroring`). Go's
 * `names.EndpointSliceMirroringController`.
 *
 * @category Names
 */
export const endpointSliceMirroringControllerName = 'endpointslice-mirroring-controller';

/**
 * The component name of the controller's events
 * (`endpoint-slice-mirroring-controller`).
 *
 * @category Names
 */
export const endpointSliceMirroringControllerComponent = 'endpoint-slice-mirroring-controller';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--mirroring-concurrent-service-endpoint-syncs` flag.
 *
 * @category EndpointSlice mirroring
 */
export const mirroringConcurrentServiceEndpointSyncs = 5;

/**
 * The most addresses mirrored per Endpoints subset by default (1000):
 * kube-controller-manager's `--mirroring-max-endpoints-per-subset` flag.
 *
 * @category EndpointSlice mirroring
 */
export const defaultMirroringMaxEndpointsPerSubset = 1000;

/**
 * The delay added to every sync a slice change triggers, by default (0):
 * kube-controller-manager's `--mirroring-endpointslice-updates-batch-period`
 * flag.
 *
 * @category EndpointSlice mirroring
 */
export const defaultMirroringEndpointUpdatesBatchPeriod = 0;

/**
 * Options for {@link EndpointSliceMirroringController}: what Go's
 * `NewController` takes.
 *
 * @category EndpointSlice mirroring
 */
export interface EndpointSliceMirroringControllerOptions {
  /** The Endpoints informer, usually `factory.endpoints()`. */
  endpoints: ResourceInformer<Endpoints>;
  /** The EndpointSlice informer, usually `factory.endpointSlices()`. */
  endpointSlices: ResourceInformer<EndpointSlice>;
  /** The Service informer, usually `factory.services()`. */
  services: ResourceInformer<Service>;
  /** The clients to write through (unscoped). */
  client: {
    /** discovery.k8s.io/v1 endpointslices. */
    endpointSlices: ResourceClient<EndpointSlice>;
  };
  /**
   * The most addresses mirrored per subset: `--mirroring-max-endpoints-per-subset`;
   * default {@link defaultMirroringMaxEndpointsPerSubset} (1000).
   */
  maxEndpointsPerSubset?: number;
  /**
   * Milliseconds added before every sync a slice change triggers:
   * `--mirroring-endpointslice-updates-batch-period`; default 0.
   */
  endpointUpdatesBatchPeriod?: number;
  /**
   * Records events about Endpoints objects (`InvalidIPAddress`,
   * `TooManyAddressesToMirror`); kube-controller-manager's comes from a
   * broadcaster with the component name `endpoint-slice-mirroring-controller`.
   * Default none.
   */
  recorder?: EventRecorder;
  /** Time for the queue's delays and the sync duration. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Makes the `endpoint_slice_mirroring_controller_*` metrics. Default metrics that do nothing. */
  metricsProvider?: EndpointSliceMetricsProvider;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const tombstoned = <T>(obj: T | DeletedFinalStateUnknown<T>): T | undefined =>
  isDeletedFinalStateUnknown(obj) ? obj.obj : obj;

/**
 * kube-controller-manager's EndpointSlice mirroring controller: for every
 * Endpoints object written by someone else for a Service without a
 * selector (custom endpoints), keeps EndpointSlices mirroring it, managed
 * by `endpointslicemirroring-controller.k8s.io` and owned by the Endpoints
 * object: one slice per subset's ports and address type, at most
 * `maxEndpointsPerSubset` addresses each. Endpoints labelled
 * `endpointslice.kubernetes.io/skip-mirror: "true"`, leader-election
 * records, and Endpoints whose Service is gone or has a selector (the
 * EndpointSlice controller covers those) are not mirrored, and their
 * mirrored slices are deleted. Go's `endpointslicemirroring.Controller`.
 *
 * @example
 * ```ts
 * const controller = new EndpointSliceMirroringController({
 *   endpoints: factory.endpoints(),
 *   endpointSlices: factory.endpointSlices(),
 *   services: factory.services(),
 *   client: { endpointSlices },
 * });
 * factory.start(signal);
 * await controller.run(mirroringConcurrentServiceEndpointSyncs, signal);
 * ```
 *
 * @category EndpointSlice mirroring
 */
export class EndpointSliceMirroringController {
  /** The work queue (named `endpoint_slice_mirroring`), of Endpoints keys. */
  readonly queue: RateLimitingQueue<string>;
  /** The generations of the slices the controller wrote, per Endpoints object. */
  readonly endpointSliceTracker = new EndpointSliceTracker();
  /** The reconciler that writes the slices. */
  readonly reconciler: MirroringReconciler;
  /** The most addresses mirrored per subset. */
  readonly maxEndpointsPerSubset: number;
  /** The delay (ms) added to every sync a slice change triggers. */
  readonly endpointUpdatesBatchPeriod: number;
  /** The `endpoint_slice_mirroring_controller_*` metrics. */
  readonly metrics: EndpointSliceMirroringMetrics;

  readonly #endpointsInformer: SharedIndexInformer<Endpoints>;
  readonly #sliceInformer: SharedIndexInformer<EndpointSlice>;
  readonly #serviceInformer: SharedIndexInformer<Service>;
  readonly #endpointsLister: Lister<Endpoints>;
  readonly #sliceLister: Lister<EndpointSlice>;
  readonly #serviceLister: Lister<Service>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #running = false;

  /** @param options - see {@link EndpointSliceMirroringControllerOptions} */
  constructor(options: EndpointSliceMirroringControllerOptions) {
    const batch = options.endpointUpdatesBatchPeriod ?? defaultMirroringEndpointUpdatesBatchPeriod;
    if (!(batch >= 0)) {
      throw new RangeError(`endpointUpdatesBatchPeriod must be >= 0, got ${String(batch)}`);
    }
    this.endpointUpdatesBatchPeriod = batch;
    this.maxEndpointsPerSubset =
      options.maxEndpointsPerSubset ?? defaultMirroringMaxEndpointsPerSubset;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.metrics = new EndpointSliceMirroringMetrics(
      this.maxEndpointsPerSubset,
      options.metricsProvider,
    );
    // Like the default controller rate limiter, but backing off from 1 s:
    // a sync may rewrite many slices, and the API server is spared.
    this.queue = newRateLimitingQueue<string>(
      new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(
          mirroringDefaultSyncBackOff,
          mirroringMaxSyncBackOff,
        ),
        new BucketRateLimiter<string>({ qps: 10, burst: 100, clock: this.#clock }),
      ),
      { name: 'endpoint_slice_mirroring', clock: this.#clock },
    );

    this.#endpointsInformer = options.endpoints.informer();
    this.#endpointsInformer.addEventHandler({
      onAdd: (ep) => this.onEndpointsAdd(ep),
      onUpdate: (old, cur) => this.onEndpointsUpdate(old, cur),
      onDelete: (ep) => this.onEndpointsDelete(ep),
    });
    this.#endpointsLister = options.endpoints.lister();

    this.#sliceInformer = options.endpointSlices.informer();
    this.#sliceInformer.addEventHandler({
      onAdd: (slice) => this.onEndpointSliceAdd(slice),
      onUpdate: (old, cur) => this.onEndpointSliceUpdate(old, cur),
      onDelete: (slice) => this.onEndpointSliceDelete(slice),
    });
    this.#sliceLister = options.endpointSlices.lister();

    this.#serviceInformer = options.services.informer();
    this.#serviceInformer.addEventHandler({
      onAdd: (svc) => this.onServiceAdd(svc),
      onUpdate: (old, cur) => this.onServiceUpdate(old, cur),
      onDelete: (svc) => this.onServiceDelete(svc),
    });
    this.#serviceLister = options.services.lister();

    this.reconciler = new MirroringReconciler({
      client: options.client.endpointSlices,
      maxEndpointsPerSubset: this.maxEndpointsPerSubset,
      endpointSliceTracker: this.endpointSliceTracker,
      recorder: options.recorder ?? noopEventRecorder,
      metrics: this.metrics,
      logger: this.#logger,
    });
  }

  //#region run
  /**
   * Waits for the Endpoints, EndpointSlice and Service caches to sync, then
   * runs `workers` workers (kube-controller-manager runs
   * {@link mirroringConcurrentServiceEndpointSyncs}) until `signal` aborts;
   * resolves once every worker has stopped and the queue is shut down.
   * Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('EndpointSliceMirroringController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error(
        'EndpointSliceMirroringController.run: this controller has stopped; make a new one',
      );
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    log.info('Starting controller', { controller: endpointSliceMirroringControllerName });
    try {
      const synced = await waitForNamedCacheSync(
        endpointSliceMirroringControllerName,
        signal,
        [
          () => this.#endpointsInformer.hasSynced(),
          () => this.#sliceInformer.hasSynced(),
          () => this.#serviceInformer.hasSynced(),
        ],
        { clock: this.#clock, logger: log },
      );
      if (!synced) return;
      log.v(2).info('Starting worker threads', { total: workers });
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down controller', { controller: endpointSliceMirroringControllerName });
    }
  }

  /** Processes keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one Endpoints key, syncs it and marks it done; resolves false
   * once the queue has shut down. Go's `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      let err: unknown;
      try {
        await this.syncEndpoints(key, signal);
      } catch (e) {
        err = e ?? new Error('sync failed');
      }
      if (!signal?.aborted || err === undefined) this.handleErr(err, key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  /**
   * Forgets the key on success, else retries it with backoff up to
   * {@link mirroringMaxRetries} times and then drops it. Go's `handleErr`.
   */
  handleErr(err: unknown, key: string): void {
    if (err === undefined) {
      this.queue.forget(key);
      return;
    }
    if (this.queue.numRequeues(key) < mirroringMaxRetries) {
      this.#logger.info('Error mirroring EndpointSlices for Endpoints, retrying', {
        key,
        err: messageOf(err),
        stale: isStaleInformerCacheError(err),
      });
      this.queue.addRateLimited(key);
      return;
    }
    this.#logger.info('Retry budget exceeded, dropping Endpoints out of the queue', {
      key,
      err: messageOf(err),
    });
    this.queue.forget(key);
    this.#logger.error(err, 'Dropping Endpoints out of the queue');
  }

  //#region sync-endpoints
  /**
   * Syncs one Endpoints object by key: when it is gone, should not be
   * mirrored, has no Service or its Service has a selector, its mirrored
   * slices are deleted; otherwise a cache older than the controller's own
   * writes fails the sync with {@link StaleInformerCacheError} (retried) and
   * the reconciler writes the difference. Go's `syncEndpoints`.
   */
  async syncEndpoints(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      this.#logger.v(4).info('syncEndpoints', { key });
      const { namespace, name } = splitMetaNamespaceKey(key);
      const endpoints = this.#endpointsLister.byNamespace(namespace).tryGet(name);
      if (endpoints === undefined) {
        this.#logger.v(4).info('Endpoints not found, cleaning up any mirrored EndpointSlices', {
          endpoints: key,
        });
        this.endpointSliceTracker.deleteService(namespace, name);
        return await this.deleteMirroredSlices(namespace, name, signal);
      }
      if (!this.shouldMirror(endpoints)) {
        this.#logger
          .v(4)
          .info('Endpoints should not be mirrored, cleaning up any mirrored EndpointSlices', {
            endpoints: key,
          });
        this.endpointSliceTracker.deleteService(namespace, name);
        return await this.deleteMirroredSlices(namespace, name, signal);
      }
      const svc = this.#serviceLister.byNamespace(namespace).tryGet(name);
      if (svc === undefined) {
        this.#logger.v(4).info('Service not found, cleaning up any mirrored EndpointSlices', {
          service: key,
        });
        this.endpointSliceTracker.deleteService(namespace, name);
        return await this.deleteMirroredSlices(namespace, name, signal);
      }
      if (svc.spec?.selector != null) {
        this.#logger
          .v(4)
          .info('Service now has selector, cleaning up any mirrored EndpointSlices', {
            service: key,
          });
        this.endpointSliceTracker.deleteService(namespace, name);
        return await this.deleteMirroredSlices(namespace, name, signal);
      }
      const endpointSlices = this.endpointSlicesMirroredForService(namespace, name);
      if (this.endpointSliceTracker.staleSlices(svc, endpointSlices)) {
        throw new StaleInformerCacheError('EndpointSlice informer cache is out of date');
      }
      await this.reconciler.reconcile(endpoints, endpointSlices, signal);
    } finally {
      const elapsed = this.#clock.now() - start;
      this.metrics.endpointsSyncDuration.withLabelValues().observe(elapsed / 1000);
      this.#logger.v(4).info('Finished syncing EndpointSlices for Endpoints', {
        key,
        elapsedTime: `${elapsed}ms`,
      });
    }
  }
  //#endregion sync-endpoints

  /**
   * Whether an Endpoints object is mirrored: not labelled skip-mirror and
   * not a leader-election record (its Service is checked separately). Go's
   * `shouldMirror`.
   */
  shouldMirror(endpoints: Endpoints | undefined): boolean {
    return (
      endpoints !== undefined &&
      !skipMirror(endpoints.metadata?.labels) &&
      !hasLeaderElection(endpoints.metadata?.annotations)
    );
  }

  /** The slices this controller mirrored for an Endpoints object. Go's `endpointSlicesMirroredForService`. */
  endpointSlicesMirroredForService(namespace: string, name: string): EndpointSlice[] {
    return this.#sliceLister.byNamespace(namespace).list(
      selectorFromSet({
        [labelServiceName]: name,
        [labelManagedBy]: mirroringControllerQualifiedName,
      }),
    );
  }

  /** Deletes the slices mirrored for an Endpoints object. Go's `deleteMirroredSlices`. */
  async deleteMirroredSlices(namespace: string, name: string, signal?: AbortSignal): Promise<void> {
    const endpointSlices = this.endpointSlicesMirroredForService(namespace, name);
    this.endpointSliceTracker.deleteService(namespace, name);
    await this.reconciler.deleteEndpoints(namespace, name, endpointSlices, signal);
  }

  /** Queues an Endpoints object (or the one of a Service) by key. Go's `queueEndpoints`. */
  queueEndpoints(obj: Endpoints | Service | DeletedFinalStateUnknown<Endpoints | Service>): void {
    this.queue.add(isDeletedFinalStateUnknown(obj) ? obj.key : metaNamespaceKeyFunc(obj));
  }

  /** A Service appeared: its Endpoints are synced if it has no selector. Go's `onServiceAdd`. */
  onServiceAdd(service: Service): void {
    if (service.spec?.selector == null) this.queueEndpoints(service);
  }

  /**
   * A Service changed: its Endpoints are synced if it gained or lost its
   * selector. Go's `onServiceUpdate`.
   */
  onServiceUpdate(prev: Service, service: Service): void {
    if ((service.spec?.selector == null) !== (prev.spec?.selector == null)) {
      this.queueEndpoints(service);
    }
  }

  /** A Service is gone: its Endpoints are synced if it had no selector. Go's `onServiceDelete`. */
  onServiceDelete(obj: Service | DeletedFinalStateUnknown<Service>): void {
    const service = tombstoned(obj);
    if (service === undefined) {
      this.#logger.error(undefined, 'onServiceDelete() expected a Service');
      return;
    }
    if (service.spec?.selector == null) this.queueEndpoints(obj);
  }

  /** An Endpoints object appeared: synced if it should be mirrored. Go's `onEndpointsAdd`. */
  onEndpointsAdd(endpoints: Endpoints): void {
    if (!this.shouldMirror(endpoints)) {
      this.#logger.v(5).info('Skipping mirroring', { endpoints: metaNamespaceKeyFunc(endpoints) });
      return;
    }
    this.queueEndpoints(endpoints);
  }

  /**
   * An Endpoints object changed: synced if it should be mirrored before or
   * after. Go's `onEndpointsUpdate`.
   */
  onEndpointsUpdate(prev: Endpoints, endpoints: Endpoints): void {
    if (!this.shouldMirror(endpoints) && !this.shouldMirror(prev)) {
      this.#logger.v(5).info('Skipping mirroring', { endpoints: metaNamespaceKeyFunc(endpoints) });
      return;
    }
    this.queueEndpoints(endpoints);
  }

  /** An Endpoints object is gone: synced if it was mirrored. Go's `onEndpointsDelete`. */
  onEndpointsDelete(obj: Endpoints | DeletedFinalStateUnknown<Endpoints>): void {
    const endpoints = tombstoned(obj);
    if (endpoints === undefined) {
      this.#logger.error(undefined, 'onEndpointsDelete() expected an Endpoints object');
      return;
    }
    if (!this.shouldMirror(endpoints)) {
      this.#logger.v(5).info('Skipping mirroring', { endpoints: metaNamespaceKeyFunc(endpoints) });
      return;
    }
    this.queueEndpoints(obj);
  }

  /**
   * A slice appeared: its Endpoints are synced if the controller manages
   * the slice and did not write this generation itself. Go's
   * `onEndpointSliceAdd`.
   */
  onEndpointSliceAdd(endpointSlice: EndpointSlice): void {
    if (
      managedByMirroringController(endpointSlice) &&
      this.endpointSliceTracker.shouldSync(endpointSlice)
    ) {
      this.queueEndpointsForEndpointSlice(endpointSlice);
    }
  }

  /**
   * A slice changed: both Endpoints are synced when its service-name label
   * changed; its Endpoints are synced when it moved into or out of the
   * controller's management, or is managed and newer than the controller's
   * last write. Go's `onEndpointSliceUpdate`.
   */
  onEndpointSliceUpdate(prev: EndpointSlice, endpointSlice: EndpointSlice): void {
    const svcName = endpointSlice.metadata?.labels?.[labelServiceName];
    const prevSvcName = prev.metadata?.labels?.[labelServiceName];
    if (svcName !== prevSvcName) {
      this.#logger.info('LabelServiceName changed', {
        labelServiceName,
        oldName: prevSvcName,
        newName: svcName,
        endpointSlice: metaNamespaceKeyFunc(endpointSlice),
      });
      this.queueEndpointsForEndpointSlice(endpointSlice);
      this.queueEndpointsForEndpointSlice(prev);
      return;
    }
    if (
      mirroringManagedByChanged(prev, endpointSlice) ||
      (managedByMirroringController(endpointSlice) &&
        this.endpointSliceTracker.shouldSync(endpointSlice))
    ) {
      this.queueEndpointsForEndpointSlice(endpointSlice);
    }
  }

  /**
   * A slice is gone: its Endpoints are synced unless the controller deleted
   * it itself. Go's `onEndpointSliceDelete`.
   */
  onEndpointSliceDelete(obj: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>): void {
    const slice = tombstoned(obj);
    if (slice === undefined) {
      this.#logger.error(undefined, 'onEndpointSliceDelete() expected an EndpointSlice');
      return;
    }
    if (
      managedByMirroringController(slice) &&
      this.endpointSliceTracker.has(slice) &&
      !this.endpointSliceTracker.handleDeletion(slice)
    ) {
      this.queueEndpointsForEndpointSlice(slice);
    }
  }

  /**
   * Queues the Endpoints object of a slice after the batch period. Go's
   * `queueEndpointsForEndpointSlice`.
   */
  queueEndpointsForEndpointSlice(endpointSlice: EndpointSlice): void {
    let key: string;
    try {
      key = endpointsControllerKey(endpointSlice);
    } catch (err) {
      this.#logger.error(err, "Couldn't get key for EndpointSlice", {
        endpointSlice: metaNamespaceKeyFunc(endpointSlice),
      });
      return;
    }
    this.queue.addAfter(key, this.endpointUpdatesBatchPeriod);
  }
}
