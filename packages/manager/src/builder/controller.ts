// A builder for your own controller: controller-runtime's
// pkg/builder/controller.go (ControllerManagedBy, For, Owns, Watches,
// WithEventFilter, WithOptions.MaxConcurrentReconciles, Complete, Build,
// doWatch). What it builds is an InitFunc, the same thing the manager's own
// controllers are (cmd/kube-controller-manager/app: startReplicaSetController
// and friends), so a built controller runs inside `run()`: on the shared
// informer factory, with its own client and event recorder, behind leader
// election, with the workqueue metrics named after it, controller-runtime's
// controller metrics, and a health check.
import {
  groupResourceString,
  type Clock,
  type EventRecorder,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  Lister,
  SharedInformerFactory,
  trimManagedFields,
  type InformerResource,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimiter,
} from '@kcm-ts/workqueue';
import type { InitFunc } from '../controller-context.js';
import { enqueueForObject, enqueueForOwner, enqueueHandler, type MapFunc } from './handler.js';
import { runController } from './internal-controller.js';
import { noopControllerMetrics } from '../metrics/controller-runtime.js';
import type { Predicate } from './predicate.js';
import { requestKey, type Reconciler, type Request } from './reconcile.js';

/**
 * How one watch is set up.
 *
 * @category Controller builder
 */
export interface WatchOptions<T extends KubeObject = KubeObject> {
  /** Filters this watch's events (after {@link ControllerBuilder.withEventFilter}'s). */
  predicates?: readonly Predicate<T>[];
  /**
   * Lists and watches only the objects whose labels match, such as
   * `mirror=true`: the server filters, and the cache holds nothing else.
   * The informer comes from a factory of the controller's own, with the
   * selector as that resource's option (controller-runtime sets the same in
   * its cache options, `ByObject`), so the manager's shared informers stay
   * whole for the other controllers. Within one controller a resource can
   * have one selector only: a second, different one fails the controller's
   * start with the factory's `InformerOptionsConflictError`.
   */
  labelSelector?: string;
}

/**
 * What a reconciler's setup function gets: the controller's clients, its
 * caches and its event recorder.
 *
 * @category Controller builder
 */
export interface ReconcileContext {
  /** The controller's name, as registered with the manager. */
  readonly name: string;
  /** A client for `resource`, with the controller's own rate limit and user agent. */
  client<T extends KubeObject>(resource: InformerResource): ResourceClient<T>;
  /**
   * The cached object a request names in a watched resource, or `undefined`
   * when the cache has none (it was deleted). Throws for a resource the
   * controller does not watch. A resource watched twice is read from the
   * cache of its first watch (`for()` before the others).
   */
  get<T extends KubeObject>(resource: InformerResource, request: Request): T | undefined;
  /** A lister over the cache of a watched resource (throws for one not watched); the cache is chosen as for `get`. */
  lister<T extends KubeObject>(resource: InformerResource): Lister<T>;
  /** Records events as the controller. */
  readonly recorder: EventRecorder;
  /** The controller's logger. */
  readonly logger: Logger;
  /** The manager's clock. */
  readonly clock: Clock;
}

/**
 * Makes the reconciler once the controller's clients and caches exist.
 *
 * @category Controller builder
 */
export type ReconcilerSetup = (ctx: ReconcileContext) => Reconciler;

interface Watch {
  resource: InformerResource;
  map: MapFunc;
  options: WatchOptions;
}

/**
 * Builds a controller: what to reconcile ({@link ControllerBuilder.for}),
 * which objects it owns ({@link ControllerBuilder.owns}), what else it
 * watches ({@link ControllerBuilder.watches}), and how many workers it runs.
 * {@link ControllerBuilder.complete} returns the init function the manager
 * runs. Go's `builder.Builder`.
 *
 * @example
 * {@includeCode ../../test/builder.test.ts#builder}
 *
 * @category Controller builder
 */
export class ControllerBuilder {
  #for: Watch | undefined;
  readonly #watches: Watch[] = [];
  readonly #filters: Predicate[] = [];
  #workers = 1;
  #rateLimiter: ((clock: Clock) => RateLimiter<string>) | undefined;
  #cacheSyncTimeout = 120_000;

  /**
   * The resource this controller reconciles: each event of one of its
   * objects enqueues that object's request. Go's `For`.
   */
  for<T extends KubeObject>(resource: InformerResource, opts: WatchOptions<T> = {}): this {
    if (this.#for) throw new Error('for() may be called only once; use watches() for more');
    checkResource(resource, 'for');
    this.#for = { resource, map: enqueueForObject, options: opts };
    return this;
  }

  /**
   * A resource whose objects this controller creates and controls: an event
   * of one of them enqueues the request of its controller (the ownerReference
   * with `controller: true`) when that is of the `for()` resource's kind. Go's
   * `Owns` with `OnlyControllerOwner`.
   */
  owns<T extends KubeObject>(resource: InformerResource, opts: WatchOptions<T> = {}): this {
    checkResource(resource, 'owns');
    // The owner's kind is known only once for() is; resolved in complete().
    this.#watches.push({ resource, map: ownerPlaceholder, options: opts });
    return this;
  }

  /**
   * Any other resource: `map` turns each of its objects into the requests
   * to enqueue. Go's `Watches` with `EnqueueRequestsFromMapFunc`.
   */
  watches<T extends KubeObject>(
    resource: InformerResource,
    map: MapFunc<T>,
    opts: WatchOptions<T> = {},
  ): this {
    checkResource(resource, 'watches');
    if (typeof map !== 'function') throw new TypeError('watches() needs a map function');
    this.#watches.push({ resource, map: map as MapFunc, options: opts });
    return this;
  }

  /** Filters the events of every watch. Go's `WithEventFilter`. */
  withEventFilter(p: Predicate): this {
    this.#filters.push(p);
    return this;
  }

  /** How many keys are reconciled at once (default 1). Go's `MaxConcurrentReconciles`. */
  workers(n: number): this {
    if (!Number.isInteger(n) || n < 1)
      throw new RangeError(`workers must be an integer >= 1, got ${n}`);
    this.#workers = n;
    return this;
  }

  /**
   * The queue's rate limiter, made with the manager's clock. Default
   * client-go's `DefaultControllerRateLimiter` (5 ms doubling to 1000 s per
   * key, 10 qps overall with a burst of 100).
   */
  withRateLimiter(make: (clock: Clock) => RateLimiter<string>): this {
    this.#rateLimiter = make;
    return this;
  }

  /** How long to wait for the caches before failing (default 2 min). Go's `CacheSyncTimeout`. */
  withCacheSyncTimeout(ms: number): this {
    if (!(ms > 0)) throw new RangeError(`cache sync timeout must be > 0 ms, got ${ms}`);
    this.#cacheSyncTimeout = ms;
    return this;
  }

  /**
   * The init function that runs this controller with the reconciler `setup`
   * makes: register it with the manager's `customControllers`. Go's
   * `Complete`. Each run of the init function builds a fresh queue and
   * handlers, so the same init can run in several managers.
   */
  complete(setup: ReconcilerSetup): InitFunc {
    const primary = this.#for;
    if (!primary) throw new Error('must provide an object for reconciliation: call for() first');
    if (typeof setup !== 'function') throw new TypeError('complete() needs a setup function');
    const owner = enqueueForOwner(primary.resource);
    const watches = [primary, ...this.#watches].map((w) =>
      w.map === ownerPlaceholder ? { ...w, map: owner } : w,
    );
    const filters = [...this.#filters];
    const workers = this.#workers;
    const makeLimiter = this.#rateLimiter ?? ((clock) => defaultControllerRateLimiter(clock));
    const cacheSyncTimeout = this.#cacheSyncTimeout;

    return (ctx, name, signal) => {
      const clock = ctx.clock;
      const logger = ctx.logger.withName(name).withValues({ controller: name });
      const source = ctx.clientBuilder.client(name);
      const queue = newRateLimitingQueue<string>(makeLimiter(clock), { name, clock });
      const caches = new Map<string, SharedIndexInformer<KubeObject>>();
      //#region label-selector
      // A watch with a label selector takes its informer from a factory of
      // this controller's own, through the factory's per-resource options:
      // the server filters, the cache holds only matching objects, and the
      // shared informers, which other controllers read, stay whole.
      const own = new SharedInformerFactory(source, ctx.resyncPeriod(), {
        clock,
        logger,
        transform: trimManagedFields,
        shareUnchanged: true,
      });
      const informerOf = (w: Watch): SharedIndexInformer<KubeObject> => {
        const labelSelector = w.options.labelSelector;
        return labelSelector === undefined
          ? ctx.informerFactory.informerFor(w.resource)
          : own.informerFor(w.resource, { labelSelector });
      };
      //#endregion label-selector
      const informers = watches.map((w) => {
        const informer = informerOf(w);
        const key = groupResourceString(w.resource);
        if (!caches.has(key)) caches.set(key, informer);
        informer.addEventHandler(
          enqueueHandler(w.map, [...filters, ...(w.options.predicates ?? [])], (k) => queue.add(k)),
        );
        return informer;
      });
      const cacheOf = (resource: InformerResource) => {
        const informer = caches.get(groupResourceString(resource));
        if (!informer)
          throw new Error(
            `controller ${name} does not watch ${groupResourceString(resource)}: add it with for(), owns() or watches()`,
          );
        return informer;
      };
      const reconciler = setup({
        name,
        client: <T extends KubeObject>(resource: InformerResource) =>
          source.resource<T>(resource, { namespaced: resource.namespaced, kind: resource.kind }),
        get: <T extends KubeObject>(resource: InformerResource, req: Request) =>
          cacheOf(resource).getIndexer().getByKey(requestKey(req)) as T | undefined,
        lister: <T extends KubeObject>(resource: InformerResource) =>
          new Lister<T>(cacheOf(resource).getIndexer() as never, {
            group: resource.group,
            resource: resource.singular,
          }),
        recorder: ctx.eventRecorder(name),
        logger,
        clock,
      });
      //#region running
      const running = (async () => {
        // The manager starts the informers after every init; a manager
        // stopped before that never does.
        await Promise.race([ctx.informersStarted, untilAborted(signal)]);
        if (signal.aborted) return;
        own.start(signal);
        try {
          await runController(
            {
              name,
              queue,
              reconciler,
              workers,
              whenSynced: informers.map((i) => () => i.whenSynced()),
              cacheSyncTimeout,
              clock,
              logger,
              metrics: ctx.controllerMetrics ?? noopControllerMetrics,
            },
            signal,
          );
        } finally {
          await own.shutdown();
        }
      })();
      //#endregion running
      return Promise.resolve({ running });
    };
  }
}

/**
 * Starts a controller builder: Go's `ControllerManagedBy`. The name comes
 * from where the result is registered (`run()`'s `customControllers`).
 *
 * @category Controller builder
 */
export function newControllerManagedBy(): ControllerBuilder {
  return new ControllerBuilder();
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

const ownerPlaceholder: MapFunc = () => [];

function checkResource(resource: InformerResource | undefined, where: string): void {
  if (
    !resource ||
    typeof resource.resource !== 'string' ||
    !resource.resource ||
    typeof resource.kind !== 'string' ||
    typeof resource.namespaced !== 'boolean'
  ) {
    throw new TypeError(
      `${where}() needs an InformerResource ({ group, version, resource, kind, namespaced, singular }), such as informerResources.configMaps`,
    );
  }
}
