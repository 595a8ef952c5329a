// Waiting for informers to fill their caches before a controller starts its
// workers: client-go tools/cache shared_informer.go (WaitForCacheSync,
// WaitForNamedCacheSync).
import { realClock, type Clock } from '@kcm-ts/apimachinery';

/**
 * Reports whether a cache has synced: Go's `cache.InformerSynced`, such as
 * `informer.hasSynced` or a registration's `hasSynced`.
 *
 * @category Waiting for sync
 */
export type InformerSynced = () => boolean;

/**
 * A logger for {@link waitForNamedCacheSync}: `console` fits.
 *
 * @category Waiting for sync
 */
export interface SyncLogger {
  /** Progress messages. */
  info(message: string): void;
  /** The failure message. */
  error(message: string): void;
}

/**
 * Options for {@link waitForCacheSync}.
 *
 * @category Waiting for sync
 */
export interface WaitForCacheSyncOptions {
  /** The time source for polling. Default the real clock. */
  clock?: Clock;
  /** How often to ask, in milliseconds. Default 100, as in client-go. */
  pollInterval?: number;
}

/**
 * Options for {@link waitForNamedCacheSync}.
 *
 * @category Waiting for sync
 */
export interface WaitForNamedCacheSyncOptions extends WaitForCacheSyncOptions {
  /** Where messages go. Default `console`. */
  logger?: SyncLogger;
}

/**
 * Resolves `true` once every function reports synced, asking at once and
 * then every 100 ms, or `false` if `signal` aborts first: Go's
 * `WaitForCacheSync`. Leaves no timer behind.
 *
 * @example
 * ```ts
 * if (!(await waitForCacheSync(signal, [podInformer.hasSynced.bind(podInformer)]))) return;
 * ```
 *
 * @category Waiting for sync
 */
export async function waitForCacheSync(
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options: WaitForCacheSyncOptions = {},
): Promise<boolean> {
  const clock = options.clock ?? realClock;
  const interval = options.pollInterval ?? 100;
  for (;;) {
    if (signal.aborted) return false;
    if (synced.every((fn) => fn())) return true;
    await clock.sleep(interval, signal);
  }
}

/**
 * {@link waitForCacheSync} with messages naming the controller that waits:
 * Go's `WaitForNamedCacheSync`.
 *
 * @param name - the controller, for the messages
 *
 * @category Waiting for sync
 */
export async function waitForNamedCacheSync(
  name: string,
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options: WaitForNamedCacheSyncOptions = {},
): Promise<boolean> {
  const logger = options.logger ?? console;
  logger.info(`Waiting for caches to sync for ${name}`);
  if (!(await waitForCacheSync(signal, synced, options))) {
    logger.error(`unable to sync caches for ${name}`);
    return false;
  }
  logger.info(`Caches are synced for ${name}`);
  return true;
}
