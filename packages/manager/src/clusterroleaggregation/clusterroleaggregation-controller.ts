// The ClusterRole aggregation controller: Go's
// pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go
// (ClusterRoleAggregationController, NewClusterRoleAggregation,
// syncClusterRole, applyClusterRoles, updateClusterRoles, ruleExists,
// enqueue, byName). A ClusterRole with an aggregationRule gets, as its
// rules, the rules of every other ClusterRole its selectors match: roles in
// name order per selector, each rule once, first seen first.
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import {
  isUnsupportedMediaType,
  labelSelectorAsSelector,
  noopLogger,
  realClock,
  type Clock,
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
 * The field manager of the controller's server-side applies, as upstream names it.
 *
 * @category ClusterRole aggregation controller
 */
export const clusterRoleAggregationFieldManager = 'clusterrole-aggregation-controller';

/**
 * What a {@link ClusterRoleAggregationController} is made from: Go's
 * `NewClusterRoleAggregation` arguments.
 *
 * @category ClusterRole aggregation controller
 */
export interface ClusterRoleAggregationControllerOptions {
  /** Names the controller in logs. Default `clusterrole-aggregation-controller`. */
  controllerName?: string;
  /** Writes the ClusterRoles. */
  client: ResourceClientSource;
  /** The shared ClusterRole informer, `factory.clusterRoles()`. */
  clusterRoleInformer: ResourceInformer<ClusterRole>;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/** One field of a rule as Go's semantic equality sees it: nil and empty lists are alike. */
const list = (v: readonly string[] | null | undefined): readonly string[] => v ?? [];

/** Go's `equality.Semantic.DeepEqual` on two PolicyRules. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const fields = ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs', 'verbs'] as const;
  return fields.every((f) => {
    const x = list(a[f]);
    const y = list(b[f]);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  });
}

/** Go's `equality.Semantic.DeepEqual` on two rule lists (nil and empty alike). */
function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => sameRule(r, b[i]!));
}

/**
 * The rules `role`'s aggregationRule gathers from `roles`: for each
 * selector, the matching roles other than `role` sorted by name, each of
 * their rules unless an equal one is already there. Throws when a selector
 * is invalid. The rule computation of Go's `syncClusterRole`.
 *
 * @category ClusterRole aggregation controller
 */
export function aggregatedRules(role: ClusterRole, roles: readonly ClusterRole[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const ls of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = labelSelectorAsSelector(ls);
    const matched = roles
      .filter((r) => selector.matches(r.metadata?.labels ?? {}))
      .sort((a, b) => {
        const x = a.metadata?.name ?? '';
        const y = b.metadata?.name ?? '';
        return x < y ? -1 : x > y ? 1 : 0;
      });
    for (const other of matched) {
      if (other.metadata?.name === role.metadata?.name) continue;
      for (const rule of other.rules ?? []) {
        if (!out.some((r) => sameRule(r, rule))) out.push(structuredClone(rule));
      }
    }
  }
  return out;
}

/**
 * kube-controller-manager's `clusterrole-aggregation-controller`: fills
 * every ClusterRole that has an aggregationRule with the rules of the
 * ClusterRoles its selectors match. Any ClusterRole event requeues every
 * aggregated role, since which role feeds which is not tracked. Writes by
 * server-side apply (field manager `clusterrole-aggregation-controller`,
 * forced), falling back to an update when the server answers 415. Go's
 * `ClusterRoleAggregationController`.
 *
 * @category ClusterRole aggregation controller
 */
export class ClusterRoleAggregationController {
  readonly #name: string;
  readonly #clusterRoles: ResourceClient<ClusterRole>;
  readonly #informer: ResourceInformer<ClusterRole>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link ClusterRoleAggregationControllerOptions} */
  constructor(opts: ClusterRoleAggregationControllerOptions) {
    this.#name = opts.controllerName ?? 'clusterrole-aggregation-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#clusterRoles = opts.client.resource<ClusterRole>(informerResources.clusterRoles, {
      namespaced: false,
      kind: 'ClusterRole',
    });
    this.#informer = opts.clusterRoleInformer;
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'ClusterRoleAggregator',
      clock: this.#clock,
    });
    this.#informer.informer().addEventHandler({
      onAdd: () => this.#enqueue(),
      onUpdate: () => this.#enqueue(),
      onDelete: () => this.#enqueue(),
    });
  }

  /** Queues every ClusterRole with an aggregationRule: Go's `enqueue`. */
  #enqueue(): void {
    for (const role of this.#informer.lister().list()) {
      if (!role.aggregationRule) continue;
      this.#queue.add(role.metadata?.name ?? '');
    }
  }

  /**
   * Waits for the ClusterRole informer to sync, then runs `workers`
   * workers until `signal` aborts; resolves once they have stopped. Go's `Run`.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const informer = this.#informer.informer();
      const synced = await waitForNamedCacheSync(this.#name, signal, [() => informer.hasSynced()], {
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
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  /** Go's `runWorker` and `processNextWorkItem`. */
  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.syncClusterRole(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        if (!signal.aborted) this.#logger.error(err, `${key} failed`);
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /**
   * Recomputes the rules of the ClusterRole called `name` and writes them
   * when they differ from its current ones. Go's `syncClusterRole`.
   */
  async syncClusterRole(name: string, signal?: AbortSignal): Promise<void> {
    const shared = this.#informer.lister().tryGet(name);
    if (shared === undefined || !shared.aggregationRule) return;
    const rules = aggregatedRules(shared, this.#informer.lister().list());
    if (sameRules(rules, shared.rules ?? [])) return;
    const opts = signal ? { signal } : {};
    try {
      await this.#clusterRoles.patch(
        name,
        {
          type: 'apply',
          fieldManager: clusterRoleAggregationFieldManager,
          force: true,
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name },
            rules,
          },
        },
        opts,
      );
    } catch (err) {
      // A server without server-side apply: write the whole object instead.
      if (!isUnsupportedMediaType(err)) throw err;
      const updated: ClusterRole = { ...structuredClone(shared), rules };
      await this.#clusterRoles.update(updated, opts);
    }
  }
}
