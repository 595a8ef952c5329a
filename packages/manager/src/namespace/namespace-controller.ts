// The namespace controller: Go's pkg/controller/namespace/namespace_controller.go.
// It watches namespaces and, for each one being deleted, has the
// NamespacedResourcesDeleter empty it and remove the `kubernetes` finalizer.
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import {
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  waitForCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  newRateLimitingQueue,
  type RateLimiter,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  NamespacedResourcesDeleter,
  ResourcesRemainingError,
  type FinalizeNamespaceFunc,
} from './namespaced-resources-deleter.js';

/**
 * How long a namespace event waits before it is processed, in ms: time for
 * other API servers to see the deletion and refuse new content, and for
 * last-moment creations to become visible. Go's `namespaceDeletionGracePeriod`.
 *
 * @category Namespace controller
 */
export const namespaceDeletionGracePeriod = 5_000;

/**
 * The default number of workers: kube-controller-manager's `--concurrent-namespace-syncs`.
 *
 * @category Namespace controller
 */
export const defaultConcurrentNamespaceSyncs = 10;

/**
 * What a {@link NamespaceController} is made from: the arguments of Go's
 * `NewNamespaceController`, plus the injected clock and logger.
 *
 * @category Namespace controller
 */
export interface NamespaceControllerOptions {
  /** Names the controller in logs. Default `namespace-controller`. */
  controllerName?: string;
  /** Full-object clients: namespaces (read, status, finalize) and pods (grace periods). */
  kubeClient: ResourceClientSource;
  /** Lists and deletes namespaced content; only metadata is read. */
  metadataClient: ResourceClientSource;
  /**
   * The namespaced resources the server offers, such as
   * `() => serverPreferredNamespacedResources(discovery)`.
   */
  discoverResourcesFn: () => Promise<APIResourceList[]>;
  /** The shared namespace informer, such as `factory.namespaces()`. */
  namespaceInformer: ResourceInformer<Namespace>;
  /** How often every namespace is looked at again, in ms. Default 5 minutes (`--namespace-sync-period`). */
  resyncPeriod?: number;
  /** The finalizer to remove once a namespace is empty. Default `kubernetes`. */
  finalizerToken?: string;
  /**
   * Sends a namespace to its `finalize` subresource. Default: the `update`
   * of `kubeClient`'s namespaces client with `subresource: 'finalize'`.
   */
  finalizeNamespace?: FinalizeNamespaceFunc;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * Retries faster than most controllers (a namespace should go soon), at
 * least once a minute, with the usual overall bucket. Go's `nsControllerRateLimiter`.
 */
function nsControllerRateLimiter(clock: Clock): RateLimiter<string> {
  return new MaxOfRateLimiter<string>(
    new ItemExponentialFailureRateLimiter<string>(5, 60_000),
    new BucketRateLimiter<string>({ qps: 10, burst: 100, clock }),
  );
}

/**
 * kube-controller-manager's namespace controller: a namespace being deleted
 * is emptied (every namespaced resource's content deleted, with its status
 * conditions kept up to date) and then loses its finalizer token, so the API
 * server can remove it. Go's `NamespaceController`.
 *
 * @example
 * ```ts
 * const nc = new NamespaceController({
 *   kubeClient, metadataClient, namespaceInformer: factory.namespaces(),
 *   discoverResourcesFn: () => serverPreferredNamespacedResources(discovery),
 * });
 * factory.start(signal);
 * await nc.run(defaultConcurrentNamespaceSyncs, signal);
 * ```
 *
 * @category Namespace controller
 */
export class NamespaceController {
  readonly #name: string;
  readonly #informer: ResourceInformer<Namespace>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #deleter: NamespacedResourcesDeleter;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link NamespaceControllerOptions} */
  constructor(opts: NamespaceControllerOptions) {
    this.#name = opts.controllerName ?? 'namespace-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#informer = opts.namespaceInformer;
    this.#queue = newRateLimitingQueue<string>(nsControllerRateLimiter(this.#clock), {
      name: 'namespace',
      clock: this.#clock,
    });
    const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
    const pods = { group: '', version: 'v1', resource: 'pods' };
    this.#deleter = new NamespacedResourcesDeleter({
      nsClient: opts.kubeClient.resource<Namespace>(namespaces, {
        namespaced: false,
        kind: 'Namespace',
      }),
      metadataClient: opts.metadataClient,
      podsGetter: opts.kubeClient.resource<Pod>(pods, { namespaced: true, kind: 'Pod' }),
      discoverResourcesFn: opts.discoverResourcesFn,
      finalizerToken: opts.finalizerToken ?? 'kubernetes',
      clock: this.#clock,
      logger: this.#logger,
      ...(opts.finalizeNamespace ? { finalizeNamespace: opts.finalizeNamespace } : {}),
    });
    this.#informer.informer().addEventHandler(
      {
        onAdd: (ns) => this.#enqueueNamespace(ns),
        onUpdate: (_old, ns) => this.#enqueueNamespace(ns),
      },
      { resyncPeriod: opts.resyncPeriod ?? 5 * 60_000 },
    );
  }

  /** Queues a namespace being deleted, after the grace period. Go's `enqueueNamespace`. */
  #enqueueNamespace(namespace: Namespace): void {
    let key: string;
    try {
      key = metaNamespaceKeyFunc(namespace);
    } catch (err) {
      this.#logger.error(err, "Couldn't get key for object");
      return;
    }
    if (namespace.metadata?.deletionTimestamp == null) return;
    // Delayed so every API server sees the deletion and late creations show up.
    this.#queue.addAfter(key, namespaceDeletionGracePeriod);
  }

  /**
   * Waits for the namespace informer to sync, then runs `workers` workers
   * until `signal` aborts; resolves once they have stopped. Rejects when
   * discovery reports no resources at all (Go exits the process then). Go's `Run`.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#deleter.initOpCache();
      const informer = this.#informer.informer();
      logger.info('Waiting for caches to sync', { controller: this.#name });
      if (!(await waitForCacheSync(signal, [() => informer.hasSynced()], { clock: this.#clock }))) {
        logger.error(new Error('unable to sync caches'), 'Unhandled Error', {
          controller: this.#name,
        });
        return;
      }
      logger.info('Caches are synced', { controller: this.#name });
      logger.v(5).info('Starting workers of namespace controller');
      for (let i = 0; i < workers; i++) running.push(this.#worker());
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  /** Processes namespaces until the queue shuts down. Go's `worker`. */
  async #worker(): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.#syncNamespaceFromKey(key);
        this.#queue.forget(key);
      } catch (err) {
        if (err instanceof ResourcesRemainingError) {
          const t = Math.floor(err.estimate / 2) + 1;
          this.#logger
            .v(4)
            .info('Content remaining in namespace', { namespace: key, waitSeconds: t });
          this.#queue.addAfter(key, t * 1000);
        } else {
          // Sooner than the next resync.
          this.#queue.addRateLimited(key);
          this.#logger.error(
            new Error(
              `deletion of namespace ${key} failed: ${err instanceof Error ? err.message : String(err)}`,
            ),
            'Unhandled Error',
          );
        }
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /** Go's `syncNamespaceFromKey`. */
  async #syncNamespaceFromKey(key: string): Promise<void> {
    const start = this.#clock.now();
    try {
      let namespace: Namespace;
      try {
        namespace = this.#informer.lister().get(key);
      } catch (err) {
        if (isNotFound(err)) {
          this.#logger.info('Namespace has been deleted', { namespace: key });
          return;
        }
        throw err;
      }
      await this.#deleter.delete(namespace.metadata?.name ?? key);
    } finally {
      this.#logger.v(4).info('Finished syncing namespace', {
        namespace: key,
        duration: `${this.#clock.since(start)}ms`,
      });
    }
  }
}
