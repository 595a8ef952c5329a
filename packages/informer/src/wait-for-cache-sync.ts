// Waiting for informers to fill their caches before a controller starts its
// workers: client-go tools/cache shared_informer.go (WaitForCacheSync,
// WaitForNamedCacheSync).
import { noopLogger, realClock, type Clock, type Logger } from '@kcm-ts/apimachinery';

/**
 * Reports whether a cache has synced: Go's `cache.InformerSynced`, such as
 * `informer.hasSynced` or a registration's `hasSynced`.
 *
 * @category Waiting for sync
 */
export type InformerSynced = () => boolean;

/**
 * The message-only logger {@link waitForNamedCacheSync} took before it took
 * a {@link @kcm-ts/apimachinery!Logger | Logger}; `console` fits. Still
 * accepted, with the old messages (`Waiting for caches to sync for <name>`).
 *
 * @deprecated Pass a `Logger` from `@kcm-ts/apimachinery`.
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
  /**
   * Where messages go: client-go's `Waiting for caches to sync`, `Caches are
   * synced` and `Unable to sync caches`, each with the controller's name.
   * Default: nowhere.
   */
  logger?: Logger;
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
export function waitForNamedCacheSync(
  name: string,
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options?: WaitForNamedCacheSyncOptions,
): Promise<boolean>;
/**
 * The form that takes a message-only {@link SyncLogger}.
 *
 * @deprecated Pass a `Logger` from `@kcm-ts/apimachinery` instead.
 */
export function waitForNamedCacheSync(
  name: string,
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options: WaitForCacheSyncOptions & { logger: SyncLogger },
): Promise<boolean>;
export async function waitForNamedCacheSync(
  name: string,
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options: WaitForCacheSyncOptions & { logger?: Logger | SyncLogger } = {},
): Promise<boolean> {
  // shared_informer.go, WaitForNamedCacheSync
  const given = options.logger ?? noopLogger;
  if (!isLogger(given)) return waitWithSyncLogger(name, signal, synced, options, given);
  given.info('Waiting for caches to sync', { controller: name });
  if (!(await waitForCacheSync(signal, synced, options))) {
    given.error(undefined, 'Unable to sync caches', { controller: name });
    return false;
  }
  given.info('Caches are synced', { controller: name });
  return true;
}

function isLogger(logger: Logger | SyncLogger): logger is Logger {
  return typeof (logger as Partial<Logger>).withValues === 'function';
}

async function waitWithSyncLogger(
  name: string,
  signal: AbortSignal,
  synced: readonly InformerSynced[],
  options: WaitForCacheSyncOptions,
  logger: SyncLogger,
): Promise<boolean> {
  logger.info(`Waiting for caches to sync for ${name}`);
  if (!(await waitForCacheSync(signal, synced, options))) {
    logger.error(`unable to sync caches for ${name}`);
    return false;
  }
  logger.info(`Caches are synced for ${name}`);
  return true;
}
