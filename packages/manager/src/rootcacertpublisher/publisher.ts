// The root CA certificate publisher: Go's
// pkg/controller/certificates/rootcacertpublisher/publisher.go
// (RootCACertConfigMapName, DescriptionAnnotation, Description, NewPublisher,
// configMapDeleted, configMapUpdated, namespaceAdded, namespaceUpdated,
// processNextWorkItem, syncNamespace, convertToCM). Every namespace holds a
// ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA bundle that verifies
// kube-apiserver; one deleted or edited is put back.
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import {
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isNotFound,
  noopLogger,
  realClock,
  type Clock,
  type DeletedFinalStateUnknown,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  informerResources,
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import { noopRootCACertPublisherMetrics, type RootCACertPublisherMetrics } from './metrics.js';

/**
 * The name of the ConfigMap the publisher keeps in every namespace: Go's
 * `RootCACertConfigMapName`.
 *
 * @category Root CA publisher
 */
export const rootCACertConfigMapName = 'kube-root-ca.crt';

/**
 * The annotation that says what the ConfigMap is for: Go's `DescriptionAnnotation`.
 *
 * @category Root CA publisher
 */
export const descriptionAnnotation = 'kubernetes.io/description';

/**
 * The annotation's value, word for word as kube-controller-manager writes
 * it (observable API): Go's `Description`.
 *
 * @category Root CA publisher
 */
export const rootCACertDescription =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * What a {@link Publisher} is made from: Go's `NewPublisher` arguments.
 *
 * @category Root CA publisher
 */
export interface PublisherOptions {
  /** Writes the ConfigMaps. */
  client: ResourceClientSource;
  /** The shared ConfigMap informer, `factory.configMaps()`. */
  configMapInformer: ResourceInformer<ConfigMap>;
  /** The shared namespace informer, `factory.namespaces()`. */
  namespaceInformer: ResourceInformer<Namespace>;
  /** The CA bundle (PEM) published as `ca.crt`; may be empty, as upstream's. */
  rootCA: string;
  /** Where syncs are counted and timed. Default: nowhere. */
  metrics?: RootCACertPublisherMetrics;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's `root-ca-certificate-publisher-controller`:
 * keeps the `kube-root-ca.crt` ConfigMap, with the CA bundle under `ca.crt`
 * and the `kubernetes.io/description` annotation, in every namespace. Keys
 * of its queue are namespace names. Go's `Publisher`.
 *
 * @category Root CA publisher
 */
export class Publisher {
  readonly #configMaps: ResourceClient<ConfigMap>;
  readonly #cmInformer: ResourceInformer<ConfigMap>;
  readonly #nsInformer: ResourceInformer<Namespace>;
  readonly #rootCA: string;
  readonly #metrics: RootCACertPublisherMetrics;
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link PublisherOptions} */
  constructor(opts: PublisherOptions) {
    if (typeof opts.rootCA !== 'string') throw new Error('rootCA must be a PEM string');
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#metrics = opts.metrics ?? noopRootCACertPublisherMetrics;
    this.#rootCA = opts.rootCA;
    this.#configMaps = opts.client.resource<ConfigMap>(informerResources.configMaps, {
      namespaced: true,
      kind: 'ConfigMap',
    });
    this.#cmInformer = opts.configMapInformer;
    this.#nsInformer = opts.namespaceInformer;
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'root_ca_cert_publisher',
      clock: this.#clock,
    });
    this.#cmInformer.informer().addEventHandler({
      onUpdate: (_old, cm) => this.#configMapChanged(cm),
      onDelete: (cm) => this.#configMapChanged(cm),
    });
    this.#nsInformer.informer().addEventHandler({
      onAdd: (ns) => this.#queue.add(ns.metadata?.name ?? ''),
      // Go's namespaceUpdated: only an Active namespace is worth a look.
      onUpdate: (_old, ns) => {
        if (ns.status?.phase === 'Active') this.#queue.add(ns.metadata?.name ?? '');
      },
    });
  }

  /** Our ConfigMap changed or went: Go's `configMapUpdated` and `configMapDeleted`. */
  #configMapChanged(obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
    const cm = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
    if (cm === undefined) {
      this.#logger.error(undefined, "Couldn't get object from tombstone", {});
      return;
    }
    if (cm.metadata?.name !== rootCACertConfigMapName) return;
    this.#queue.add(cm.metadata.namespace ?? '');
  }

  /**
   * Waits for the ConfigMap informer to sync (upstream waits for that one
   * only), then runs `workers` workers until `signal` aborts; resolves once
   * they have stopped. Go's `Run`.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting root CA cert publisher controller');
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const cms = this.#cmInformer.informer();
      const synced = await waitForNamedCacheSync('crt configmap', signal, [() => cms.hasSynced()], {
        clock: this.#clock,
        logger,
      });
      if (!synced) return;
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down root CA cert publisher controller');
    }
  }

  /** Go's `runWorker` and `processNextWorkItem`. */
  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.syncNamespace(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        if (!signal.aborted) this.#logger.error(err, `syncing ${JSON.stringify(key)} failed`);
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Makes the namespace's `kube-root-ca.crt` what it should be: created
   * when the cache lacks it (a namespace gone or terminating is not an
   * error), updated when its data is not exactly `{ca.crt: <bundle>}` or
   * the description annotation is empty. Go's `syncNamespace`.
   */
  async syncNamespace(ns: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    let failure: unknown;
    try {
      await this.#sync(ns, signal);
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      const elapsed = this.#clock.now() - start;
      this.#metrics.recordSync(elapsed / 1000, failure);
      this.#logger.v(4).info('Finished syncing namespace', { namespace: ns, elapsedTime: elapsed });
    }
  }

  async #sync(ns: string, signal: AbortSignal | undefined): Promise<void> {
    const client = this.#configMaps.inNamespace(ns);
    const opts = signal ? { signal } : {};
    const cm = this.#cmInformer.lister().byNamespace(ns).tryGet(rootCACertConfigMapName);
    if (cm === undefined) {
      try {
        await client.create(
          {
            metadata: {
              name: rootCACertConfigMapName,
              annotations: { [descriptionAnnotation]: rootCACertDescription },
            },
            data: { 'ca.crt': this.#rootCA },
          },
          opts,
        );
      } catch (err) {
        // A namespace that is gone or going needs no ConfigMap: no retry.
        if (isNotFound(err) || hasStatusCause(err, 'NamespaceTerminating')) return;
        throw err;
      }
      return;
    }
    const data = cm.data ?? undefined;
    const upToDate =
      data !== undefined &&
      Object.keys(data).length === 1 &&
      data['ca.crt'] === this.#rootCA &&
      (cm.metadata?.annotations?.[descriptionAnnotation] ?? '') !== '';
    if (upToDate) return;
    const updated: ConfigMap = structuredClone(cm);
    updated.data = { 'ca.crt': this.#rootCA };
    updated.metadata = {
      ...updated.metadata,
      annotations: {
        ...updated.metadata?.annotations,
        [descriptionAnnotation]: rootCACertDescription,
      },
    };
    await client.update(updated, opts);
  }
}
