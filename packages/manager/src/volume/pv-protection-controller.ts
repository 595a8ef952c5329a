// The PersistentVolume protection controller: Go's
// pkg/controller/volume/pvprotection/pv_protection_controller.go
// (NewPVProtectionController, processPV, isBeingUsed, pvAddedUpdated). A
// volume being deleted keeps its `kubernetes.io/pv-protection` finalizer
// while it is Bound to a claim; once it is not, the finalizer goes and the
// volume with it.
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import {
  isNotFound,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  isDeletionCandidate,
  needToAddFinalizer,
  pvProtectionFinalizer,
  withFinalizer,
} from './protection-util.js';

/**
 * What a {@link PVProtectionController} is made from.
 *
 * @category Volume protection controllers
 */
export interface PVProtectionControllerOptions {
  /** Names the controller in logs. Default `persistentvolume-protection-controller`. */
  controllerName?: string;
  /** Writes the volumes. */
  client: ResourceClientSource;
  /** The shared volume informer, `factory.persistentVolumes()`. */
  pvInformer: ResourceInformer<PersistentVolume>;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's `persistentvolume-protection-controller`:
 * removes the `kubernetes.io/pv-protection` finalizer from a volume being
 * deleted once it is no longer Bound, and adds it to volumes that lack it.
 * Go's `Controller` in `pvprotection`.
 *
 * @category Volume protection controllers
 */
export class PVProtectionController {
  readonly #name: string;
  readonly #volumes: ResourceClient<PersistentVolume>;
  readonly #informer: ResourceInformer<PersistentVolume>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link PVProtectionControllerOptions} */
  constructor(opts: PVProtectionControllerOptions) {
    this.#name = opts.controllerName ?? 'persistentvolume-protection-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#volumes = opts.client.resource<PersistentVolume>(
      { group: '', version: 'v1', resource: 'persistentvolumes' },
      { namespaced: false, kind: 'PersistentVolume' },
    );
    this.#informer = opts.pvInformer;
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'pvprotection',
      clock: this.#clock,
    });
    const added = (pv: PersistentVolume) => {
      if (
        needToAddFinalizer(pv, pvProtectionFinalizer) ||
        isDeletionCandidate(pv, pvProtectionFinalizer)
      ) {
        this.#queue.add(pv.metadata?.name ?? '');
      }
    };
    this.#informer.informer().addEventHandler({
      onAdd: added,
      onUpdate: (_old, pv) => added(pv),
    });
  }

  /**
   * Waits for the volume informer to sync, then runs `workers` workers
   * until `signal` aborts; resolves once they have stopped.
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

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [name, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.#processPV(name, signal);
        this.#queue.forget(name);
      } catch (err) {
        if (!signal.aborted) this.#logger.error(err, 'PV failed', { pv: name });
        this.#queue.addRateLimited(name);
      } finally {
        this.#queue.done(name);
      }
    }
  }

  /** Go's `processPV`; a volume is in use while it is Bound (`isBeingUsed`). */
  async #processPV(name: string, signal: AbortSignal): Promise<void> {
    const pv = this.#informer.lister().tryGet(name);
    if (pv === undefined) return;
    try {
      if (isDeletionCandidate(pv, pvProtectionFinalizer) && pv.status?.phase !== 'Bound') {
        await this.#volumes.update(withFinalizer(pv, pvProtectionFinalizer, false), { signal });
        this.#logger.v(3).info('Removed protection finalizer from PV', { pv: name });
        return;
      }
      if (needToAddFinalizer(pv, pvProtectionFinalizer)) {
        await this.#volumes.update(withFinalizer(pv, pvProtectionFinalizer, true), { signal });
        this.#logger.v(3).info('Added protection finalizer to PV', { pv: name });
      }
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
