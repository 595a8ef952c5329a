// The ServiceAccounts controller: Go's
// pkg/controller/serviceaccount/serviceaccounts_controller.go
// (ServiceAccountsControllerOptions, DefaultServiceAccountsControllerOptions,
// NewServiceAccountsController, serviceAccountDeleted, namespaceAdded,
// namespaceUpdated, processNextWorkItem, syncNamespace). Every active
// namespace gets the ServiceAccounts it should have (`default`), and one
// deleted is made again.
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import {
  hasStatusCause,
  isAlreadyExists,
  isDeletedFinalStateUnknown,
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

/**
 * The ServiceAccounts every namespace gets by default: one called
 * `default`. Go's `DefaultServiceAccountsControllerOptions().ServiceAccounts`.
 *
 * @category ServiceAccounts controller
 */
export function defaultServiceAccountsToEnsure(): ServiceAccount[] {
  return [{ metadata: { name: 'default' } }];
}

/**
 * What a {@link ServiceAccountsController} is made from: Go's
 * `NewServiceAccountsController` arguments and
 * `ServiceAccountsControllerOptions`.
 *
 * @category ServiceAccounts controller
 */
export interface ServiceAccountsControllerOptions {
  /** Names the controller in logs. Default `serviceaccount-controller`. */
  controllerName?: string;
  /** Creates the ServiceAccounts. */
  client: ResourceClientSource;
  /** The shared ServiceAccount informer, `factory.serviceAccounts()`. */
  serviceAccountInformer: ResourceInformer<ServiceAccount>;
  /** The shared namespace informer, `factory.namespaces()`. */
  namespaceInformer: ResourceInformer<Namespace>;
  /** The ServiceAccounts to keep in every namespace. Default {@link defaultServiceAccountsToEnsure}. */
  serviceAccounts?: readonly ServiceAccount[];
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's `serviceaccount-controller`: keeps the
 * `default` ServiceAccount in every active namespace, making it again when
 * it is deleted. Keys of its queue are namespace names. Go's
 * `ServiceAccountsController`.
 *
 * @category ServiceAccounts controller
 */
export class ServiceAccountsController {
  readonly #name: string;
  readonly #serviceAccounts: ResourceClient<ServiceAccount>;
  readonly #saInformer: ResourceInformer<ServiceAccount>;
  readonly #nsInformer: ResourceInformer<Namespace>;
  readonly #toEnsure: readonly ServiceAccount[];
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link ServiceAccountsControllerOptions} */
  constructor(opts: ServiceAccountsControllerOptions) {
    this.#name = opts.controllerName ?? 'serviceaccount-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#serviceAccounts = opts.client.resource<ServiceAccount>(
      informerResources.serviceAccounts,
      { namespaced: true, kind: 'ServiceAccount' },
    );
    this.#saInformer = opts.serviceAccountInformer;
    this.#nsInformer = opts.namespaceInformer;
    this.#toEnsure = structuredClone(opts.serviceAccounts ?? defaultServiceAccountsToEnsure());
    for (const sa of this.#toEnsure) {
      if (!sa.metadata?.name) throw new Error('every ServiceAccount to ensure needs a name');
    }
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'serviceaccount',
      clock: this.#clock,
    });
    this.#saInformer.informer().addEventHandler({
      onDelete: (sa) => this.#serviceAccountDeleted(sa),
    });
    this.#nsInformer.informer().addEventHandler({
      onAdd: (ns) => this.#queue.add(ns.metadata?.name ?? ''),
      onUpdate: (_old, ns) => this.#queue.add(ns.metadata?.name ?? ''),
    });
  }

  /** A deleted ServiceAccount's namespace may need it back: Go's `serviceAccountDeleted`. */
  #serviceAccountDeleted(obj: ServiceAccount | DeletedFinalStateUnknown<ServiceAccount>): void {
    const sa = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
    if (sa === undefined) {
      this.#logger.error(undefined, "Couldn't get object from tombstone", {});
      return;
    }
    this.#queue.add(sa.metadata?.namespace ?? '');
  }

  /**
   * Waits for the ServiceAccount and namespace informers to sync, then runs
   * `workers` workers until `signal` aborts; resolves once they have
   * stopped. Go's `Run`.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const sas = this.#saInformer.informer();
      const nss = this.#nsInformer.informer();
      const synced = await waitForNamedCacheSync(
        this.#name,
        signal,
        [() => sas.hasSynced(), () => nss.hasSynced()],
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down controller', { controller: this.#name });
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
        if (!signal.aborted) this.#logger.error(err, 'Syncing namespace failed', { key });
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Creates, in the active namespace `name`, each ServiceAccount to ensure
   * that the cache lacks. AlreadyExists and a namespace that has begun
   * terminating are not errors; other failures are gathered and thrown
   * together so the namespace is retried. Go's `syncNamespace`.
   */
  async syncNamespace(name: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      const ns = this.#nsInformer.lister().tryGet(name);
      if (ns === undefined) return;
      // Nothing is created in a namespace that is not Active.
      if (ns.status?.phase !== 'Active') return;
      const failures: unknown[] = [];
      const cached = this.#saInformer.lister().byNamespace(name);
      for (const want of this.#toEnsure) {
        const saName = want.metadata?.name ?? '';
        if (cached.tryGet(saName) !== undefined) continue;
        const sa: ServiceAccount = {
          ...structuredClone(want),
          metadata: { ...structuredClone(want.metadata), namespace: name },
        };
        try {
          await this.#serviceAccounts.inNamespace(name).create(sa, signal ? { signal } : {});
        } catch (err) {
          if (isAlreadyExists(err)) continue;
          if (hasStatusCause(err, 'NamespaceTerminating')) continue;
          failures.push(err);
        }
      }
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) {
        throw new AggregateError(
          failures,
          `[${failures.map((e) => (e instanceof Error ? e.message : String(e))).join(', ')}]`,
        );
      }
    } finally {
      this.#logger.v(4).info('Finished syncing namespace', {
        namespace: name,
        duration: this.#clock.now() - start,
      });
    }
  }
}
