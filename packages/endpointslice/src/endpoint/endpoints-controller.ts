// The Endpoints controller: pkg/controller/endpoint/endpoints_controller.go
// (the constants maxRetries, maxCapacity, truncated; NewEndpointController,
// Controller, Run, addPod, podToEndpointAddressForService, updatePod,
// deletePod, onServiceUpdate, onServiceDelete, onEndpointsDelete, worker,
// processNextWorkItem, handleErr, syncService, checkLeftoverEndpoints,
// addEndpointSubset, endpointPortFromServicePort,
// capacityAnnotationSetCorrectly, truncateEndpoints, addressSubset,
// endpointSubsetsEqualIgnoreResourceVersion) and the defaults of its flags
// (pkg/controller/endpoint/config/v1alpha1/defaults.go). Upstream has no
// metrics of its own for this controller; its workqueue is named `endpoint`.
import type {
  EndpointAddress,
  EndpointPort,
  EndpointSubset,
  Endpoints,
  ObjectReference,
  Pod,
  Service,
  ServicePort,
} from 'kubernetes-types/core/v1.js';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isForbidden,
  isNotFound,
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
import { isPodReady, namespaceTerminatingCause } from '@kcm-ts/controller';
import { isIPv6String } from '../net.js';
import {
  getPodFromDeleteAction,
  getPodServiceMemberships,
  getServicesToUpdateOnPodChange,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from '../reconciler-util.js';
import { TriggerTimeTracker } from '../trigger-time-tracker.js';
import {
  endpointsLastChangeTriggerTime,
  findPort,
  formatRFC3339Nano,
  isHeadlessServiceLabel,
  isServiceIPSet,
} from '../utils.js';
import { StaleEndpointsTracker } from './endpoints-tracker.js';
import { repackSubsets } from './repack-subsets.js';

/**
 * How many times a Service's sync is retried before it is dropped from the
 * queue (15), with the default controller backoff from 5 ms. Go's
 * `maxRetries`.
 *
 * @category Endpoints controller
 */
export const endpointsMaxRetries = 15;

/**
 * The most addresses (ready and not ready together) one Endpoints object
 * holds (1000); beyond it the controller truncates. Go's `maxCapacity`.
 *
 * @category Endpoints controller
 */
export const maxCapacity = 1000;

/**
 * The value of the over-capacity annotation on a truncated Endpoints
 * object (`truncated`). Go's `truncated`.
 *
 * @category Endpoints controller
 */
export const truncated = 'truncated';

/**
 * The annotation set on an Endpoints object the controller truncated to
 * {@link maxCapacity} addresses (`endpoints.kubernetes.io/over-capacity`).
 * Go's `v1.EndpointsOverCapacity`.
 *
 * @category Names
 */
export const endpointsOverCapacity = 'endpoints.kubernetes.io/over-capacity';

/**
 * The annotation of a leader-election record kept in an Endpoints object
 * (`control-plane.alpha.kubernetes.io/leader`): such objects have no Service
 * and are never deleted or mirrored. Go's
 * `resourcelock.LeaderElectionRecordAnnotationKey`.
 *
 * @category Names
 */
export const leaderElectionRecordAnnotationKey = 'control-plane.alpha.kubernetes.io/leader';

/**
 * The controller's name in kube-controller-manager (`endpoints-controller`),
 * as `--controllers` knows it (alias `endpoint`). Go's
 * `names.EndpointsController`.
 *
 * @category Names
 */
export const endpointsControllerName = 'endpoints-controller';

/**
 * The component name of the controller's events and its client
 * (`endpoint-controller`).
 *
 * @category Names
 */
export const endpointsControllerComponent = 'endpoint-controller';

/**
 * The number of workers kube-controller-manager runs by default (5): its
 * `--concurrent-endpoint-syncs` flag.
 *
 * @category Endpoints controller
 */
export const concurrentEndpointSyncs = 5;

/**
 * The delay added to every sync a pod change triggers, by default (0):
 * kube-controller-manager's `--endpoint-updates-batch-period` flag.
 *
 * @category Endpoints controller
 */
export const defaultEndpointsUpdatesBatchPeriod = 0;

/**
 * `Warning FailedToCreateEndpoint`: creating a Service's Endpoints failed.
 *
 * @category Events
 */
export const failedToCreateEndpointReason = 'FailedToCreateEndpoint';
/**
 * `Warning FailedToUpdateEndpoint`: updating a Service's Endpoints failed.
 *
 * @category Events
 */
export const failedToUpdateEndpointReason = 'FailedToUpdateEndpoint';

/**
 * Options for {@link EndpointsController}: what Go's `NewEndpointController`
 * takes.
 *
 * @category Endpoints controller
 */
export interface EndpointsControllerOptions {
  /** The pod informer, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The Service informer, usually `factory.services()`. */
  services: ResourceInformer<Service>;
  /** The Endpoints informer, usually `factory.endpoints()`. */
  endpoints: ResourceInformer<Endpoints>;
  /** The clients to write through (unscoped). */
  client: {
    /** core/v1 endpoints. */
    endpoints: ResourceClient<Endpoints>;
  };
  /**
   * Milliseconds added before every sync a pod change triggers, so that
   * several changes make one write: `--endpoint-updates-batch-period`;
   * default 0.
   */
  endpointUpdatesBatchPeriod?: number;
  /**
   * Records events about the Endpoints it fails to write; kube-controller-manager's
   * comes from a broadcaster with the component name `endpoint-controller`.
   * Default none.
   */
  recorder?: EventRecorder;
  /** Time for the queue's delays. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The address a pod gives the Service: the pod's first IP of the Service's
 * primary family (`spec.ipFamilies[0]`; without families, that of its
 * cluster IP, or for a headless Service that of the pod's IP), with the
 * pod's node name and a reference to the pod. An Error when the pod has no
 * IP of that family. Go's `podToEndpointAddressForService`.
 *
 * @category Endpoints controller
 */
export function podToEndpointAddressForService(svc: Service, pod: Pod): EndpointAddress | Error {
  let ipv6 = false;
  const families = svc.spec?.ipFamilies ?? [];
  if (families.length > 0) {
    ipv6 = families[0] === 'IPv6';
  } else {
    const clusterIP = svc.spec?.clusterIP ?? '';
    if (clusterIP.length > 0 && clusterIP !== 'None') ipv6 = isIPv6String(clusterIP);
    else ipv6 = isIPv6String(pod.status?.podIP ?? '');
  }
  const ip = (pod.status?.podIPs ?? []).find((p) => isIPv6String(p.ip ?? '') === ipv6)?.ip ?? '';
  if (ip === '') {
    return new Error(`failed to find a matching endpoint for service ${svc.metadata?.name ?? ''}`);
  }
  const targetRef: ObjectReference = {
    kind: 'Pod',
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
  };
  const uid = pod.metadata?.uid ?? '';
  if (uid !== '') targetRef.uid = uid;
  return { ip, nodeName: pod.spec?.nodeName ?? '', targetRef };
}

/**
 * The endpoint port of a Service port served on `portNum`: its name,
 * protocol and app protocol. Go's `endpointPortFromServicePort`.
 *
 * @category Endpoints controller
 */
export function endpointPortFromServicePort(
  servicePort: ServicePort,
  portNum: number,
): EndpointPort {
  const epp: EndpointPort = { port: portNum };
  if ((servicePort.name ?? '') !== '') epp.name = servicePort.name;
  if ((servicePort.protocol ?? '') !== '') epp.protocol = servicePort.protocol;
  if (servicePort.appProtocol !== undefined) epp.appProtocol = servicePort.appProtocol;
  return epp;
}

/**
 * Appends a subset holding one address and at most one port: among the
 * ready addresses when the pod is ready or not-ready addresses are
 * tolerated, else among the not-ready ones. Returns the subsets and the
 * ready and not-ready counts added. Go's `addEndpointSubset`.
 *
 * @internal
 */
export function addEndpointSubset(
  subsets: EndpointSubset[],
  pod: Pod,
  epa: EndpointAddress,
  epp: EndpointPort | undefined,
  tolerateUnreadyEndpoints: boolean,
): [subsets: EndpointSubset[], ready: number, notReady: number] {
  const ports = epp === undefined ? [] : [epp];
  if (tolerateUnreadyEndpoints || isPodReady(pod)) {
    subsets.push({ addresses: [epa], ports });
    return [subsets, 1, 0];
  }
  subsets.push({ notReadyAddresses: [epa], ports });
  return [subsets, 0, 1];
}

/**
 * Whether the over-capacity annotation says the truth: false when the
 * subsets hold more than {@link maxCapacity} addresses (they must be
 * truncated), else whether the annotation is absent. Go's
 * `capacityAnnotationSetCorrectly`.
 *
 * @category Endpoints controller
 */
export function capacityAnnotationSetCorrectly(
  annotations: Readonly<Record<string, string>> | undefined,
  subsets: readonly EndpointSubset[] | undefined,
): boolean {
  let numEndpoints = 0;
  for (const s of subsets ?? []) {
    numEndpoints += (s.addresses ?? []).length + (s.notReadyAddresses ?? []).length;
  }
  if (numEndpoints > maxCapacity) return false;
  return annotations?.[endpointsOverCapacity] === undefined;
}

/**
 * Cuts an Endpoints object down to {@link maxCapacity} addresses, in place;
 * true when it did. Ready addresses are kept before not-ready ones: when
 * the ready ones alone fit, only not-ready ones are cut, else every
 * not-ready one goes and the ready ones are cut. Each subset keeps its
 * share (rounded up, the last ones getting what is left). Go's
 * `truncateEndpoints`.
 *
 * @category Endpoints controller
 */
export function truncateEndpoints(endpoints: Endpoints): boolean {
  const subsets = endpoints.subsets ?? [];
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += (s.addresses ?? []).length;
    totalNotReady += (s.notReadyAddresses ?? []).length;
  }
  if (totalReady + totalNotReady <= maxCapacity) return false;

  let truncateReady = false;
  let max = maxCapacity - totalReady;
  let numTotal = totalNotReady;
  if (totalReady > maxCapacity) {
    truncateReady = true;
    max = maxCapacity;
    numTotal = totalReady;
  }
  let canBeAdded = max;
  for (let i = 0; i < subsets.length; i++) {
    const subset = { ...subsets[i]! };
    const numInSubset = truncateReady
      ? (subset.addresses ?? []).length
      : (subset.notReadyAddresses ?? []).length;
    let toBeAdded = Math.ceil((numInSubset / numTotal) * max);
    if (toBeAdded > canBeAdded) toBeAdded = canBeAdded;
    if (truncateReady) {
      subset.addresses = (subset.addresses ?? []).slice(0, toBeAdded);
      subset.notReadyAddresses = [];
      canBeAdded -= subset.addresses.length;
    } else {
      subset.notReadyAddresses = (subset.notReadyAddresses ?? []).slice(0, toBeAdded);
      canBeAdded -= subset.notReadyAddresses.length;
    }
    subsets[i] = subset;
  }
  return true;
}

// Semantic equality as apimachinery's `equality.Semantic` sees wire JSON:
// an absent string, number or boolean is its zero value, an absent list or
// map equals an empty one, but an absent pointer differs from a set one.
const str = (s: string | undefined): string => s ?? '';
const sameList = <T>(
  a: readonly T[] | undefined,
  b: readonly T[] | undefined,
  eq: (x: T, y: T) => boolean,
): boolean => {
  const la = a ?? [];
  const lb = b ?? [];
  return la.length === lb.length && la.every((x, i) => eq(x, lb[i]!));
};
const sameRefIgnoringRV = (a: ObjectReference | undefined, b: ObjectReference | undefined) => {
  if (a == null || b == null) return a == null && b == null;
  return (
    str(a.kind) === str(b.kind) &&
    str(a.namespace) === str(b.namespace) &&
    str(a.name) === str(b.name) &&
    str(a.uid) === str(b.uid) &&
    str(a.apiVersion) === str(b.apiVersion) &&
    str(a.fieldPath) === str(b.fieldPath)
  );
};
const sameAddress = (a: EndpointAddress, b: EndpointAddress): boolean =>
  str(a.ip) === str(b.ip) &&
  str(a.hostname) === str(b.hostname) &&
  a.nodeName === b.nodeName &&
  sameRefIgnoringRV(a.targetRef, b.targetRef);
const samePort = (a: EndpointPort, b: EndpointPort): boolean =>
  str(a.name) === str(b.name) &&
  (a.port ?? 0) === (b.port ?? 0) &&
  str(a.protocol) === str(b.protocol) &&
  a.appProtocol === b.appProtocol;

/**
 * Whether two lists of subsets are equal, in order, but for the
 * resourceVersion of the pods they reference (a pod update that changes
 * nothing the Endpoints show writes nothing). Go's
 * `endpointSubsetsEqualIgnoreResourceVersion`.
 *
 * @category Endpoints controller
 */
export function endpointSubsetsEqualIgnoreResourceVersion(
  subsets1: readonly EndpointSubset[] | undefined,
  subsets2: readonly EndpointSubset[] | undefined,
): boolean {
  return sameList(
    subsets1,
    subsets2,
    (a, b) =>
      sameList(a.addresses, b.addresses, sameAddress) &&
      sameList(a.notReadyAddresses, b.notReadyAddresses, sameAddress) &&
      sameList(a.ports, b.ports, samePort),
  );
}

/** Label maps equal as `equality.Semantic` sees them: absent equals empty. */
function sameLabels(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => b?.[k] === a?.[k]);
}

/**
 * kube-controller-manager's Endpoints controller: for every Service with a
 * selector, keeps the core/v1 Endpoints object of the same name (what
 * `kubectl describe service` shows) listing the pods it selects: each pod's
 * IP of the Service's primary family among the ready addresses or, while
 * the pod is not ready, the not-ready ones (every pod is ready under
 * `publishNotReadyAddresses`), per port with named target ports resolved
 * per pod; terminal pods, pods without an IP and (unless not-ready
 * addresses are published) terminating pods are left out. Subsets are
 * repacked into their canonical layout, capped at {@link maxCapacity}
 * addresses with the `endpoints.kubernetes.io/over-capacity: truncated`
 * annotation, labelled with the Service's labels (and
 * `service.kubernetes.io/headless` for a Service without a cluster IP) and
 * annotated with the last change's trigger time. Nothing is written when
 * nothing changed; the Endpoints object is deleted with its Service.
 * Services without a selector, and ExternalName Services, are left alone.
 * Go's `endpoint.Controller`.
 *
 * @example
 * ```ts
 * const controller = new EndpointsController({
 *   pods: factory.pods(),
 *   services: factory.services(),
 *   endpoints: factory.endpoints(),
 *   client: { endpoints },
 * });
 * factory.start(signal);
 * await controller.run(concurrentEndpointSyncs, signal);
 * ```
 *
 * @category Endpoints controller
 */
export class EndpointsController {
  /** The work queue (named `endpoint`), of Service keys. */
  readonly queue: RateLimitingQueue<string>;
  /** The resourceVersions the controller replaced, to notice a lagging cache. */
  readonly staleEndpointsTracker = new StaleEndpointsTracker();
  /** The source of the last-change-trigger-time annotation. */
  readonly triggerTimeTracker = new TriggerTimeTracker();
  /** The delay (ms) added to every sync a pod change triggers. */
  readonly endpointUpdatesBatchPeriod: number;

  readonly #serviceInformer: SharedIndexInformer<Service>;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #endpointsInformer: SharedIndexInformer<Endpoints>;
  readonly #serviceLister: Lister<Service>;
  readonly #podLister: Lister<Pod>;
  readonly #endpointsLister: Lister<Endpoints>;
  readonly #client: ResourceClient<Endpoints>;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #running = false;

  /** @param options - see {@link EndpointsControllerOptions} */
  constructor(options: EndpointsControllerOptions) {
    const batch = options.endpointUpdatesBatchPeriod ?? defaultEndpointsUpdatesBatchPeriod;
    if (!(batch >= 0)) {
      throw new RangeError(`endpointUpdatesBatchPeriod must be >= 0, got ${String(batch)}`);
    }
    this.endpointUpdatesBatchPeriod = batch;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#client = options.client.endpoints;
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'endpoint',
      clock: this.#clock,
    });

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

    this.#endpointsInformer = options.endpoints.informer();
    this.#endpointsInformer.addEventHandler({
      onDelete: (ep) => this.onEndpointsDelete(ep),
    });
    this.#endpointsLister = options.endpoints.lister();
  }

  //#region run
  /**
   * Waits for the pod, Service and Endpoints caches to sync, then runs
   * `workers` workers (kube-controller-manager runs
   * {@link concurrentEndpointSyncs}) and queues every existing Endpoints
   * object once ({@link EndpointsController.checkLeftoverEndpoints}), until
   * `signal` aborts; resolves once every worker has stopped and the queue
   * is shut down. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('EndpointsController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('EndpointsController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    log.info('Starting endpoint controller');
    try {
      const synced = await waitForNamedCacheSync(
        'endpoint',
        signal,
        [
          () => this.#podInformer.hasSynced(),
          () => this.#serviceInformer.hasSynced(),
          () => this.#endpointsInformer.hasSynced(),
        ],
        { clock: this.#clock, logger: log },
      );
      if (!synced) return;
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      this.checkLeftoverEndpoints();
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down endpoint controller');
    }
  }

  /** Processes keys until the queue shuts down. Go's `worker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /**
   * Takes one Service key, syncs it and marks it done; resolves false once
   * the queue has shut down. Go's `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
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
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  /**
   * Forgets the key on success, else retries it with backoff up to
   * {@link endpointsMaxRetries} times and then drops it. Go's `handleErr`.
   */
  handleErr(err: unknown, key: string): void {
    if (err === undefined) {
      this.queue.forget(key);
      return;
    }
    if (this.queue.numRequeues(key) < endpointsMaxRetries) {
      this.#logger.v(2).info('Error syncing endpoints, retrying', {
        service: key,
        err: messageOf(err),
      });
      this.queue.addRateLimited(key);
      return;
    }
    this.#logger.info('Dropping service out of the queue', { service: key, err: messageOf(err) });
    this.queue.forget(key);
    this.#logger.error(err, 'Dropping service out of the queue');
  }

  //#region sync-service
  /**
   * Syncs one Service by key: a Service that is gone has its Endpoints
   * deleted; ExternalName Services and those without a selector are left
   * alone; otherwise the selected pods are turned into repacked subsets,
   * compared with the cached Endpoints (an update is skipped when subsets,
   * labels and the capacity annotation already agree) and written with the
   * Service's labels, the headless label, the trigger time and the
   * over-capacity annotation. A cached object the controller already
   * replaced fails the sync (retried). Go's `syncService`.
   */
  async syncService(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    const { namespace, name } = splitMetaNamespaceKey(key);
    try {
      const service = this.#serviceLister.byNamespace(namespace).tryGet(name);
      if (service === undefined) {
        try {
          await this.#client.inNamespace(namespace).delete(name, { signal });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        this.triggerTimeTracker.deleteService(namespace, name);
        this.staleEndpointsTracker.delete(namespace, name);
        return;
      }
      if (service.spec?.type === 'ExternalName') return;
      if (service.spec?.selector == null) return;
      this.#logger.v(5).info('About to update endpoints for service', { service: key });

      const pods = this.#podLister
        .byNamespace(namespace)
        .list(selectorFromSet(service.spec.selector));
      // Computed even when nothing is written, so the tracker's state moves on.
      const lastChangeTriggerTime = this.triggerTimeTracker.computeEndpointLastChangeTriggerTime(
        namespace,
        service,
        pods,
      );

      let subsets: EndpointSubset[] = [];
      let totalReadyEps = 0;
      let totalNotReadyEps = 0;
      const tolerateUnready = service.spec.publishNotReadyAddresses ?? false;
      const servicePorts = service.spec.ports ?? [];
      for (const pod of pods) {
        if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
        const ep = podToEndpointAddressForService(service, pod);
        if (ep instanceof Error) {
          this.#logger.v(2).info('Failed to find endpoint for service with ClusterIP on pod', {
            service: key,
            clusterIP: service.spec.clusterIP,
            pod: `${namespace}/${pod.metadata?.name ?? ''}`,
            error: ep.message,
          });
          continue;
        }
        const epa: EndpointAddress = ep;
        if (shouldSetHostname(pod, service)) epa.hostname = pod.spec?.hostname ?? '';

        // A headless Service may have no ports.
        if (servicePorts.length === 0) {
          if (service.spec.clusterIP === 'None') {
            [subsets, totalReadyEps, totalNotReadyEps] = addEndpointSubset(
              subsets,
              pod,
              epa,
              undefined,
              tolerateUnready,
            );
          }
          continue;
        }
        for (const servicePort of servicePorts) {
          const portNum = findPort(pod, servicePort);
          if (portNum instanceof Error) {
            this.#logger.v(4).info('Failed to find port for service', {
              service: key,
              error: portNum.message,
            });
            continue;
          }
          const epp = endpointPortFromServicePort(servicePort, portNum);
          let ready: number;
          let notReady: number;
          [subsets, ready, notReady] = addEndpointSubset(subsets, pod, epa, epp, tolerateUnready);
          totalReadyEps += ready;
          totalNotReadyEps += notReady;
        }
      }
      subsets = repackSubsets(subsets);

      // Is there anything to write?
      let currentEndpoints = this.#endpointsLister.byNamespace(namespace).tryGet(name);
      if (currentEndpoints === undefined) {
        currentEndpoints = {
          metadata: {
            name,
            ...(service.metadata?.labels !== undefined && { labels: service.metadata.labels }),
          },
        };
      } else if (this.staleEndpointsTracker.isStale(currentEndpoints)) {
        throw new Error(
          `endpoints informer cache is out of date, resource version ${
            currentEndpoints.metadata?.resourceVersion ?? ''
          } already processed for endpoints ${key}`,
        );
      }
      const createEndpoints = (currentEndpoints.metadata?.resourceVersion ?? '') === '';

      // The headless label is not on the Service: leave it out of the comparison.
      const compareLabels = { ...currentEndpoints.metadata?.labels };
      delete compareLabels[isHeadlessServiceLabel];
      if (
        !createEndpoints &&
        endpointSubsetsEqualIgnoreResourceVersion(currentEndpoints.subsets, subsets) &&
        sameLabels(compareLabels, service.metadata?.labels) &&
        capacityAnnotationSetCorrectly(
          currentEndpoints.metadata?.annotations,
          currentEndpoints.subsets,
        )
      ) {
        this.#logger.v(5).info('endpoints are equal, skipping update', { service: key });
        return;
      }

      const newEndpoints: Endpoints = structuredClone(currentEndpoints);
      newEndpoints.subsets = subsets;
      const metadata = (newEndpoints.metadata ??= {});
      const annotations: Record<string, string> = { ...metadata.annotations };
      if (lastChangeTriggerTime !== undefined) {
        annotations[endpointsLastChangeTriggerTime] = formatRFC3339Nano(lastChangeTriggerTime);
      } else {
        delete annotations[endpointsLastChangeTriggerTime];
      }
      if (truncateEndpoints(newEndpoints)) annotations[endpointsOverCapacity] = truncated;
      else delete annotations[endpointsOverCapacity];
      metadata.annotations = annotations;
      const labels: Record<string, string> = { ...service.metadata?.labels };
      if (!isServiceIPSet(service)) labels[isHeadlessServiceLabel] = '';
      else delete labels[isHeadlessServiceLabel];
      metadata.labels = labels;

      this.#logger.v(4).info('Update endpoints', {
        service: key,
        readyEndpoints: totalReadyEps,
        notreadyEndpoints: totalNotReadyEps,
      });
      const client = this.#client.inNamespace(namespace);
      let updatedEndpoints: Endpoints | undefined;
      try {
        if (createEndpoints) {
          await client.create({ apiVersion: 'v1', kind: 'Endpoints', ...newEndpoints }, { signal });
        } else {
          updatedEndpoints = await client.update(newEndpoints, { signal });
        }
      } catch (err) {
        if (createEndpoints && isForbidden(err)) {
          this.#logger.v(5).info('Forbidden from creating endpoints', { error: messageOf(err) });
          // A terminating namespace refuses creations for good: drop the key.
          if (hasStatusCause(err, namespaceTerminatingCause)) return;
        }
        if (!signal?.aborted) {
          const subject = { ...newEndpoints, metadata: { ...metadata, namespace } };
          if (createEndpoints) {
            this.#recorder.event(
              subject,
              'Warning',
              failedToCreateEndpointReason,
              `Failed to create endpoint for service ${namespace}/${name}: ${messageOf(err)}`,
            );
          } else {
            this.#recorder.event(
              subject,
              'Warning',
              failedToUpdateEndpointReason,
              `Failed to update endpoint ${namespace}/${name}: ${messageOf(err)}`,
            );
          }
        }
        throw err;
      }
      // The version replaced is stale from now on: reading it again from the
      // cache means the cache has not caught up with this write yet.
      if (
        updatedEndpoints !== undefined &&
        updatedEndpoints.metadata?.resourceVersion !== currentEndpoints.metadata?.resourceVersion
      ) {
        this.staleEndpointsTracker.stale(currentEndpoints);
      }
    } finally {
      this.#logger.v(4).info('Finished syncing service endpoints', {
        service: key,
        elapsedTime: `${this.#clock.now() - start}ms`,
      });
    }
  }
  //#endregion sync-service

  /**
   * Queues the Service of every cached Endpoints object but leader-election
   * records, so that Endpoints whose Service went away while the controller
   * was down get deleted. Run once at startup. Go's `checkLeftoverEndpoints`.
   */
  checkLeftoverEndpoints(): void {
    for (const ep of this.#endpointsLister.list()) {
      if (ep.metadata?.annotations?.[leaderElectionRecordAnnotationKey] !== undefined) continue;
      this.queue.add(metaNamespaceKeyFunc(ep));
    }
  }

  /** A pod appeared: the Services selecting it are queued after the batch period. Go's `addPod`. */
  addPod(pod: Pod): void {
    for (const key of getPodServiceMemberships(this.#serviceLister, pod)) {
      this.queue.addAfter(key, this.endpointUpdatesBatchPeriod);
    }
  }

  /**
   * A pod changed: the Services its change concerns are queued after the
   * batch period. Go's `updatePod`.
   */
  updatePod(old: Pod, cur: Pod): void {
    for (const key of getServicesToUpdateOnPodChange(this.#serviceLister, old, cur)) {
      this.queue.addAfter(key, this.endpointUpdatesBatchPeriod);
    }
  }

  /** A pod is gone: the Services that selected it are queued. Go's `deletePod`. */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = getPodFromDeleteAction(obj);
    if (pod !== undefined) this.addPod(pod);
  }

  /** A Service appeared or changed: queue it. Go's `onServiceUpdate`. */
  onServiceUpdate(service: Service): void {
    this.queue.add(metaNamespaceKeyFunc(service));
  }

  /** A Service is gone: queue it, so that its Endpoints are deleted. Go's `onServiceDelete`. */
  onServiceDelete(obj: Service | DeletedFinalStateUnknown<Service>): void {
    this.queue.add(isDeletedFinalStateUnknown(obj) ? obj.key : metaNamespaceKeyFunc(obj));
  }

  /**
   * An Endpoints object is gone: its Service is queued, so that it is
   * recreated if the Service still wants it. Go's `onEndpointsDelete`.
   */
  onEndpointsDelete(obj: Endpoints | DeletedFinalStateUnknown<Endpoints>): void {
    this.queue.add(isDeletedFinalStateUnknown(obj) ? obj.key : metaNamespaceKeyFunc(obj));
  }
}
