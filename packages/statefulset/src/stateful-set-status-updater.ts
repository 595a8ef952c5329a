// Status writes of the StatefulSet controller:
// pkg/controller/statefulset/stateful_set_status_updater.go
// (StatefulSetStatusUpdaterInterface, NewRealStatefulSetStatusUpdater,
// realStatefulSetStatusUpdater.UpdateStatefulSetStatus), with client-go's
// util/retry (RetryOnConflict with DefaultRetry).
import type { StatefulSet, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import {
  isConflict,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';

/**
 * Writes a StatefulSet's status. Go's `StatefulSetStatusUpdaterInterface`.
 *
 * @category Status
 */
export interface StatefulSetStatusUpdater {
  /**
   * Sets `set`'s status to `status` through the status subresource,
   * retrying conflicts; rejects on any other error.
   */
  updateStatefulSetStatus(
    set: StatefulSet,
    status: StatefulSetStatus,
    signal?: AbortSignal,
  ): Promise<void>;
}

/** client-go's `retry.DefaultRetry`: five tries, 10 ms apart, with up to 10% jitter. */
const defaultRetry = { steps: 5, duration: 10, factor: 1, jitter: 0.1 };

/**
 * What {@link RealStatefulSetStatusUpdater} needs.
 *
 * @category Status
 */
export interface RealStatefulSetStatusUpdaterOptions {
  /** apps/v1 statefulsets, unscoped. */
  client: ResourceClient<StatefulSet>;
  /** The StatefulSet informer's lister, for the fresh copy after a conflict. */
  lister: Pick<Lister<StatefulSet>, 'byNamespace'>;
  /** What the waits between retries run on. Default the real clock. */
  clock?: Clock | undefined;
  /** Where logs go. Default none. */
  logger?: Logger | undefined;
  /** Random source of the retries' jitter. Default `Math.random`. */
  random?: (() => number) | undefined;
}

/**
 * The {@link StatefulSetStatusUpdater} that writes through the API server;
 * after a failed write it retries on the cache's copy of the set. Go's
 * `realStatefulSetStatusUpdater`.
 *
 * @category Status
 */
export class RealStatefulSetStatusUpdater implements StatefulSetStatusUpdater {
  readonly #o: RealStatefulSetStatusUpdaterOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;

  /** @param options - see {@link RealStatefulSetStatusUpdaterOptions} */
  constructor(options: RealStatefulSetStatusUpdaterOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#random = options.random ?? Math.random;
  }

  async updateStatefulSetStatus(
    setIn: StatefulSet,
    status: StatefulSetStatus,
    signal?: AbortSignal,
  ): Promise<void> {
    let set = structuredClone(setIn);
    const namespace = set.metadata?.namespace ?? '';
    const name = set.metadata?.name ?? '';
    for (let step = 1; ; step++) {
      set.status = structuredClone(status);
      try {
        await this.#o.client.inNamespace(namespace).updateStatus(set, signal ? { signal } : {});
        return;
      } catch (err) {
        const cached = this.#o.lister.byNamespace(namespace).tryGet(name);
        if (cached !== undefined) set = structuredClone(cached);
        else {
          this.#logger.error(undefined, 'Error getting updated StatefulSet from lister', {
            statefulSet: `${namespace}/${name}`,
          });
        }
        if (!isConflict(err) || step >= defaultRetry.steps || signal?.aborted) throw err;
      }
      const jitter = this.#random() * defaultRetry.jitter * defaultRetry.duration;
      await this.#clock.sleep(defaultRetry.duration + jitter, signal);
    }
  }
}
