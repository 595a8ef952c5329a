// Keeps a store in step with the server by listing then watching: client-go
// tools/cache reflector.go (Reflector, ListAndWatch, list, watchList, watch,
// handleAnyWatch, isTooLargeResourceVersionError, DefaultWatchErrorHandler)
// and the backoff it uses, wait.Backoff wrapped by DelayWithReset.
import {
  findStatusError,
  deletionHandlingMetaNamespaceKeyFunc,
  hasStatusCause,
  initialEventsEndAnnotation,
  isGone,
  isInternalError,
  isResourceExpired,
  isTimeout,
  isTooManyRequests,
  noopLogger,
  realClock,
  resourceVersionOf,
  StatusError,
  suggestsClientDelay,
  type Clock,
  type KubeObject,
  type ListOptions,
  type ListerWatcher,
  type Logger,
  type Ticker,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { ListPager, defaultPageSize } from './pager.js';
import { RetryWithDeadline } from './retry-with-deadline.js';
import { newStore } from './store.js';

/**
 * What a {@link Reflector} writes to: a {@link Store}, an {@link Indexer}, a
 * {@link RealFIFO} or a {@link DeltaFIFO} all fit. The two optional methods
 * are Go's `ReflectorBookmarkStore` and `ResourceVersionUpdater`.
 *
 * @category Reflector
 */
export interface ReflectorStore<T> {
  /** Records an object the watch reported as added. */
  add(obj: T): void;
  /** Records an object the watch reported as modified. */
  update(obj: T): void;
  /** Records an object the watch reported as deleted. */
  delete(obj: T): void;
  /** Replaces the whole contents with a fresh list at `resourceVersion`. */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Called every resync period, when one is set. */
  resync(): void;
  /** Told the resourceVersion of every BOOKMARK event (no object is stored). */
  bookmark?(resourceVersion: string): void;
  /** Told every resourceVersion the reflector moves to while watching. */
  updateResourceVersion?(resourceVersion: string): void;
}

/**
 * How long to wait between failures: Go's `wait.Backoff`. The n-th delay is
 * `min(initial × factor^n, cap)`, plus up to `jitter` times that at random.
 *
 * @category Reflector
 */
export interface ReflectorBackoff {
  /** The first delay, in milliseconds. */
  initial: number;
  /** The largest delay before jitter, in milliseconds. */
  cap: number;
  /** How much each delay grows. */
  factor: number;
  /** The random extra, as a fraction of the delay. */
  jitter: number;
  /** Start over at `initial` once this many milliseconds pass without a delay being reset. */
  resetAfter: number;
}

/**
 * The reflector's default backoff: 800 ms doubling up to 30 s, with jitter
 * 1.0, reset after two minutes.
 *
 * @category Reflector
 */
export const defaultReflectorBackoff: Readonly<ReflectorBackoff> = Object.freeze({
  initial: 800,
  cap: 30_000,
  factor: 2,
  jitter: 1,
  resetAfter: 120_000,
});

/**
 * Called with the error whenever a list-and-watch cycle fails, before the
 * backoff: Go's `WatchErrorHandler`.
 *
 * @category Reflector
 */
export type WatchErrorHandler = (reflector: Reflector<unknown>, err: unknown) => void;

/**
 * Options for a {@link Reflector}: Go's `ReflectorOptions` and the settable
 * fields of `Reflector`. The {@link Controller}, the
 * {@link SharedIndexInformer} and the {@link SharedInformerFactory} take the
 * same options and pass them on.
 *
 * @category Reflector
 */
export interface ReflectorOptions {
  /** A name for messages. Default `'reflector'`. */
  name?: string;
  /** What is listed, for messages (`failed to list <it>`). Default `'<unspecified>'`. */
  typeDescription?: string;
  /** How often to call `store.resync()`, in milliseconds; `0` (default) never. */
  resyncPeriod?: number;
  /** Asked before each resync; return `false` to skip it. Default: always resync. */
  shouldResync?: () => boolean;
  /**
   * The shortest watch timeout, in milliseconds; only values above the
   * default of 5 minutes count. Each watch asks for a random timeout between
   * this and twice it.
   */
  minWatchTimeout?: number;
  /** The time source for every wait. Default the real clock. */
  clock?: Clock;
  /** The backoff between failures. Default {@link defaultReflectorBackoff}. */
  backoff?: ReflectorBackoff;
  /** Items per list page; unset follows client-go's rules. Go's `WatchListPageSize`. */
  pageSize?: number;
  /**
   * Called with the error whenever a list-and-watch cycle fails, before the
   * backoff; Go's `SetWatchErrorHandler`. Default: log it with the logger
   * (`Failed to watch`), or at verbosity 4 for 410 Expired and Gone.
   */
  watchErrorHandler?: WatchErrorHandler;
  /** A random number in [0, 1), for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
  /**
   * Get the initial state from a streaming watch (`sendInitialEvents`)
   * rather than a list, and go on watching on the same stream: client-go's
   * `WatchListClient` feature. A failure other than 410 or a busy server
   * falls back to list-then-watch for that cycle. Default `false`.
   */
  useWatchList?: boolean;
  /**
   * How long to keep re-watching at once, without a relist, while the watch
   * stream ends with 500 InternalError, in milliseconds; Go's
   * `MaxInternalErrorRetryDuration`. Default `0`: relist after the first.
   */
  maxInternalErrorRetryDuration?: number;
  /** Where messages go, in klog's words and verbosities. Default: nowhere. */
  logger?: Logger;
}

const defaultMinWatchTimeout = 5 * 60_000;
// reflector.go, defaultExpectedTypeName
const defaultTypeDescription = '<unspecified>';

/**
 * The error of a watch that closed in under a second with no events: Go's
 * `VeryShortWatchError`. The reflector logs it and relists after its
 * backoff; the watch error handler does not see it.
 *
 * @category Reflector
 */
export class VeryShortWatchError extends Error {
  /** Always `'VeryShortWatchError'`. */
  override readonly name: string = 'VeryShortWatchError';
  /** @param reflectorName - the reflector whose watch closed */
  constructor(reflectorName: string) {
    super(
      `very short watch: ${reflectorName}: Unexpected watch close - watch lasted less than a second and no items received`,
    );
  }
}

// reflector.go, isExpiredError
function isExpired(err: unknown): boolean {
  return isResourceExpired(err) || isGone(err);
}

const tooLargeMessage = 'Too large resource version';

/**
 * reflector.go, isTooLargeResourceVersionError: every form kube-apiserver has
 * used for "the version you asked for is newer than mine".
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (hasStatusCause(err, 'ResourceVersionTooLarge')) return true;
  if (!isTimeout(err)) return false;
  const status = findStatusError(err);
  if (status?.details === undefined) return false;
  // 1.17.0 to 1.18.5: the cause's message, with no cause type.
  if (status.details.causes?.some((c) => c.message === tooLargeMessage) === true) return true;
  // Before 1.17.0: the status message.
  return status.message.includes(tooLargeMessage);
}

// utilnet.IsConnectionRefused: Node reports it as code ECONNREFUSED, on the
// error or (with fetch) on its cause.
function isConnectionRefused(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

// reflector.go, isWatchErrorRetriable: the server is unreachable or busy,
// so the watch is tried again after the backoff, with no relist.
function isWatchErrorRetriable(err: unknown): boolean {
  return isConnectionRefused(err) || isTooManyRequests(err);
}

/**
 * Lists a resource into a {@link ReflectorStore}, then watches it and applies
 * every change, relisting when the watch falls too far behind: Go's
 * `cache.Reflector`. Failures are retried with backoff until the signal
 * aborts; all waiting goes through the clock.
 *
 * @example
 * ```ts
 * const store = newStore<Pod>(metaNamespaceKeyFunc);
 * const reflector = new Reflector(pods, store, { resyncPeriod: 30_000 });
 * void reflector.run(controller.signal);
 * ```
 *
 * @category Reflector
 */
export class Reflector<T> {
  /** The name used in messages. */
  readonly name: string;
  /** What is listed, for messages. */
  readonly typeDescription: string;
  readonly #lw: ListerWatcher<T>;
  readonly #store: ReflectorStore<T>;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #backoff: ReflectorBackoff;
  readonly #resyncPeriod: number;
  readonly #shouldResync: (() => boolean) | undefined;
  readonly #minWatchTimeout: number;
  readonly #maxWatchTimeout: number;
  readonly #pageSize: number | undefined;
  readonly #useWatchList: boolean;
  readonly #maxInternalErrorRetryDuration: number;
  readonly #logger: Logger;
  #watchErrorHandler: WatchErrorHandler;
  #lastSyncResourceVersion = '';
  #resourceVersionUnavailable = false;
  #paginatedResult = false;
  #delay: number;
  #lastBackoffReset: number;

  /**
   * @param lw - lists and watches the resource
   * @param store - receives the objects
   * @param options - see {@link ReflectorOptions}
   */
  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, options: ReflectorOptions = {}) {
    this.name = options.name ?? 'reflector';
    this.typeDescription = options.typeDescription ?? defaultTypeDescription;
    this.#lw = lw;
    this.#store = store;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#backoff = { ...(options.backoff ?? defaultReflectorBackoff) };
    this.#resyncPeriod = options.resyncPeriod ?? 0;
    this.#shouldResync = options.shouldResync;
    const min = options.minWatchTimeout ?? 0;
    this.#minWatchTimeout = min > defaultMinWatchTimeout ? min : defaultMinWatchTimeout;
    this.#maxWatchTimeout = 2 * this.#minWatchTimeout;
    this.#pageSize = options.pageSize;
    this.#useWatchList = options.useWatchList ?? false;
    this.#maxInternalErrorRetryDuration = options.maxInternalErrorRetryDuration ?? 0;
    this.#logger = options.logger ?? noopLogger;
    this.#watchErrorHandler = options.watchErrorHandler ?? this.#defaultWatchErrorHandler;
    this.#delay = this.#backoff.initial;
    this.#lastBackoffReset = this.#clock.now();
  }

  /**
   * The resourceVersion of the last list, or of the last event applied while
   * watching; `''` before the first list. Go's `LastSyncResourceVersion`.
   */
  lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  /** Replaces the handler called with each list-and-watch failure. */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.#watchErrorHandler = handler;
  }

  /**
   * Lists and watches until `signal` aborts, backing off after every cycle
   * (a failed one first goes to the watch error handler). Resolves once
   * stopped, with no timer left behind.
   */
  async run(signal: AbortSignal): Promise<void> {
    // reflector.go, RunWithContext
    const values = this.#values();
    this.#logger.v(3).info('Starting reflector', { ...values, resyncPeriod: this.#resyncPeriod });
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.#watchErrorHandler(this, err);
      }
      if (signal.aborted) break;
      await this.#clock.sleep(this.#nextDelay(), signal);
    }
    this.#logger.v(3).info('Stopping reflector', { ...values, resyncPeriod: this.#resyncPeriod });
  }

  /**
   * One cycle: lists, replaces the store, then watches until the watch must
   * be relisted (resolves), fails in a way that needs the error handler
   * (rejects), or `signal` aborts (resolves).
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    // reflector.go, ListAndWatchWithContext
    if (signal.aborted) return;
    this.#logger.v(3).info('Listing and watching', this.#values());
    let stream: AsyncIterable<WatchEvent<T>> | undefined;
    if (this.#useWatchList) {
      try {
        stream = await this.#watchList(signal);
        if (stream === undefined) return; // stopped
      } catch (err) {
        if (signal.aborted) return;
        this.#logger
          .v(4)
          .info(
            "Data couldn't be fetched in watchlist mode. Falling back to regular list. This is expected if watchlist is not supported or disabled in kube-apiserver.",
            { err },
          );
      }
    }
    if (stream === undefined) {
      const listed = await this.#list(signal);
      if (!listed || signal.aborted) return;
    }
    this.#logger.v(2).info('Caches populated', this.#values());
    await this.#watchWithResync(signal, stream);
  }

  //#region watch-list
  /**
   * Streams the initial state into a temporary store, replaces the store with
   * it at the initial-events-end bookmark, and returns the rest of the stream
   * to watch on. Resolves `undefined` once `signal` aborts; rejects when this
   * cycle should fall back to a list.
   */
  async #watchList(signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>> | undefined> {
    // reflector.go, watchList and handleListWatch
    while (!signal.aborted) {
      const opts: ListOptions = {
        resourceVersion: this.#resourceVersionUnavailable ? '' : this.#lastSyncResourceVersion,
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: this.#timeoutSeconds(),
        signal,
      };
      const start = this.#clock.now();
      let failure: unknown;
      let iterator: AsyncIterator<WatchEvent<T>> | undefined;
      try {
        iterator = (await this.#lw.watch(opts))[Symbol.asyncIterator]();
      } catch (err) {
        failure = err;
      }
      if (iterator !== undefined) {
        const temp = newStore<T>(deletionHandlingMetaNamespaceKeyFunc);
        let count = 0;
        let rv = '';
        let pastSyntheticAdds = false;
        for (;;) {
          const next = await iterator.next();
          if (signal.aborted) return undefined;
          if (next.done === true) {
            // Ended before the bookmark: ask again, unless it ended at once
            // with nothing in it (a very short watch: list instead).
            if (count === 0 && this.#clock.since(start) < 1000) {
              failure = new VeryShortWatchError(this.name);
            }
            break;
          }
          const event = next.value;
          if (event.type === 'ERROR') {
            failure = StatusError.fromStatus(event.object);
            break;
          }
          count++;
          const obj = event.object;
          if (event.type === 'ADDED') temp.add(obj);
          else if (event.type === 'MODIFIED') temp.update(obj);
          else if (event.type === 'DELETED') temp.delete(obj);
          if (event.type !== 'ADDED') pastSyntheticAdds = true;
          if (pastSyntheticAdds) rv = resourceVersionOf(obj as KubeObject);
          const meta = (obj as KubeObject).metadata;
          if (
            event.type === 'BOOKMARK' &&
            meta?.annotations?.[initialEventsEndAnnotation] === 'true'
          ) {
            this.#resourceVersionUnavailable = false;
            this.#store.replace(temp.list(), rv);
            this.#lastSyncResourceVersion = rv;
            const rest = iterator;
            return { [Symbol.asyncIterator]: () => rest };
          }
        }
        await iterator.return?.();
      }
      if (signal.aborted) return undefined;
      if (failure === undefined) continue;
      if (isWatchErrorRetriable(failure)) {
        this.#logger
          .v(2)
          .info('watch-list failed - backing off', { ...this.#values(), err: failure });
        await this.#clock.sleep(this.#retryDelay(failure), signal);
        continue;
      }
      if (isExpired(failure) || isTooLargeResourceVersion(failure)) {
        this.#resourceVersionUnavailable = true;
        continue;
      }
      throw failure instanceof Error ? failure : new Error(messageOf(failure));
    }
    return undefined;
  }
  //#endregion watch-list

  // reflector.go, relistResourceVersion
  #relistResourceVersion(): string {
    if (this.#resourceVersionUnavailable) return '';
    return this.#lastSyncResourceVersion === '' ? '0' : this.#lastSyncResourceVersion;
  }

  //#region reflector-list
  async #list(signal: AbortSignal): Promise<boolean> {
    // reflector.go, list
    const rv = this.#relistResourceVersion();
    let pageSize = defaultPageSize;
    if (this.#pageSize !== undefined) pageSize = this.#pageSize;
    else if (!this.#paginatedResult && rv !== '' && rv !== '0') pageSize = 0;
    const pager = new ListPager<T>((opts) => this.#lw.list(opts), { pageSize });
    let result;
    try {
      try {
        result = await pager.list({ resourceVersion: rv, signal });
      } catch (err) {
        if (signal.aborted || !(isExpired(err) || isTooLargeResourceVersion(err))) throw err;
        // The version is gone, or the server has not reached it: read the latest.
        this.#resourceVersionUnavailable = true;
        result = await pager.list({ resourceVersion: '', signal });
      }
    } catch (err) {
      if (signal.aborted) return false;
      throw new Error(`failed to list ${this.typeDescription}: ${messageOf(err)}`, { cause: err });
    }
    if (signal.aborted) return false;
    if (rv === '0' && result.paginated) this.#paginatedResult = true;
    this.#resourceVersionUnavailable = false;
    const listRV = result.list.metadata.resourceVersion ?? '';
    this.#store.replace(result.list.items, listRV);
    this.#lastSyncResourceVersion = listRV;
    return true;
  }
  //#endregion reflector-list

  async #watchWithResync(
    signal: AbortSignal,
    initial: AsyncIterable<WatchEvent<T>> | undefined,
  ): Promise<void> {
    // reflector.go, watchWithResync and startResync
    const inner = new AbortController();
    const onAbort = (): void => inner.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let resyncError: { err: unknown } | undefined;
    let ticker: Ticker | undefined;
    if (this.#resyncPeriod > 0) {
      ticker = this.#clock.newTicker(this.#resyncPeriod, () => {
        if (this.#shouldResync !== undefined && !this.#shouldResync()) return;
        this.#logger.v(4).info('Forcing resync', { reflector: this.name });
        try {
          this.#store.resync();
        } catch (err) {
          // A failed resync ends the watch, so the next cycle relists.
          resyncError = { err };
          ticker?.stop();
          inner.abort(err);
        }
      });
    }
    try {
      await this.#watch(signal, inner.signal, initial, () => resyncError);
    } finally {
      ticker?.stop();
      signal.removeEventListener('abort', onAbort);
      inner.abort();
    }
  }

  async #watch(
    outer: AbortSignal,
    signal: AbortSignal,
    initial: AsyncIterable<WatchEvent<T>> | undefined,
    resyncError: () => { err: unknown } | undefined,
  ): Promise<void> {
    // reflector.go, watch
    const retry = new RetryWithDeadline(
      this.#maxInternalErrorRetryDuration,
      60_000,
      isInternalError,
      this.#clock,
    );
    let stream = initial;
    while (!signal.aborted) {
      // Started before the request: some proxies hold the headers until the first event.
      const start = this.#clock.now();
      // A stream handed over by the watch list is past its synthetic ADDED events.
      let propagateFromStart = true;
      if (stream === undefined) {
        const opts: ListOptions = {
          resourceVersion: this.#lastSyncResourceVersion,
          timeoutSeconds: this.#timeoutSeconds(),
          allowWatchBookmarks: true,
          signal,
        };
        // Synthetic ADDED events of a watch from "" or "0" come in no version order.
        if (opts.resourceVersion === '' || opts.resourceVersion === '0') propagateFromStart = false;
        try {
          stream = await this.#lw.watch(opts);
        } catch (err) {
          if (signal.aborted) return;
          if (!isWatchErrorRetriable(err)) throw err;
          this.#logger.v(4).info('Watch failed - backing off', { ...this.#values(), err });
          await this.#clock.sleep(this.#retryDelay(err), signal);
          continue;
        }
      }
      let err = await this.#handleWatch(stream, start, propagateFromStart, signal);
      stream = undefined;
      if (outer.aborted) return;
      if (signal.aborted) err = resyncError()?.err;
      retry.after(err);
      if (err === undefined) continue;
      if (isExpired(err)) {
        this.#logger.v(4).info('Watch closed', { ...this.#values(), err });
      } else if (isTooManyRequests(err)) {
        this.#logger.v(2).info('Watch returned 429 - backing off', this.#values());
        await this.#clock.sleep(this.#retryDelay(err), signal);
        continue;
      } else if (isInternalError(err) && retry.shouldRetry()) {
        this.#logger.v(2).info('Retrying watch after internal error', { ...this.#values(), err });
        continue;
      } else {
        this.#logger.info('Warning: watch ended with error', { ...this.#values(), err });
      }
      return;
    }
  }

  //#region reflector-watch
  /**
   * Applies the events of one watch to the store and records their
   * resourceVersions. Resolves with the error that ended the watch, or
   * `undefined` when the server closed it normally or `signal` aborted.
   */
  async #handleWatch(
    stream: AsyncIterable<WatchEvent<T>>,
    start: number,
    propagateFromStart: boolean,
    signal: AbortSignal,
  ): Promise<unknown> {
    // reflector.go, handleAnyWatch
    const store = this.#store;
    let pastSyntheticAdds = propagateFromStart;
    let count = 0;
    for await (const event of stream) {
      if (signal.aborted) return undefined;
      if (event.type === 'ERROR') return StatusError.fromStatus(event.object);
      const obj = event.object;
      const meta = (obj as KubeObject | null)?.metadata;
      if (typeof meta !== 'object' || meta === null) {
        this.#logger.error(undefined, 'Unable to understand watch event', { reflector: this.name });
        continue;
      }
      try {
        switch (event.type) {
          case 'ADDED':
            store.add(obj);
            break;
          case 'MODIFIED':
            pastSyntheticAdds = true;
            store.update(obj);
            break;
          case 'DELETED':
            pastSyntheticAdds = true;
            store.delete(obj);
            break;
          case 'BOOKMARK':
            // No object to store: only the version moves on.
            pastSyntheticAdds = true;
            store.bookmark?.(meta.resourceVersion ?? '');
            break;
          default:
            this.#logger.error(undefined, 'Unknown watch event', { reflector: this.name, event });
        }
      } catch (err) {
        this.#logger.error(err, 'Unable to apply watch event to store', { reflector: this.name });
      }
      if (pastSyntheticAdds) {
        const rv = meta.resourceVersion ?? '';
        this.#lastSyncResourceVersion = rv;
        store.updateResourceVersion?.(rv);
      }
      count++;
    }
    if (signal.aborted) return undefined;
    if (count === 0 && this.#clock.since(start) < 1000) return new VeryShortWatchError(this.name);
    this.#logger.v(4).info('Watch close', { ...this.#values(), totalItems: count });
    return undefined;
  }
  //#endregion reflector-watch

  // reflector.go, DefaultWatchErrorHandler
  readonly #defaultWatchErrorHandler: WatchErrorHandler = (_reflector, err) => {
    if (isExpired(err)) this.#logger.v(4).info('Watch closed', { ...this.#values(), err });
    else this.#logger.error(err, 'Failed to watch', this.#values());
  };

  /**
   * What a reflector does with a failure when no handler is set: logs it
   * through the reflector's logger (`Failed to watch`), or at verbosity 4
   * for 410 Expired and Gone. Go's `DefaultWatchErrorHandler`, for handlers
   * that add to it rather than replace it.
   */
  static readonly defaultWatchErrorHandler: WatchErrorHandler = (reflector, err) =>
    reflector.#defaultWatchErrorHandler(reflector, err);

  #values(): { reflector: string; type: string } {
    return { reflector: this.name, type: this.typeDescription };
  }

  #timeoutSeconds(): number {
    const span = this.#maxWatchTimeout - this.#minWatchTimeout;
    return Math.floor((this.#minWatchTimeout + this.#random() * span) / 1000);
  }

  #retryDelay(err: unknown): number {
    const delay = this.#nextDelay();
    const retryAfter = suggestsClientDelay(err);
    return retryAfter === undefined ? delay : Math.max(delay, retryAfter * 1000);
  }

  // wait.Backoff.Step behind DelayWithReset
  #nextDelay(): number {
    const now = this.#clock.now();
    if (now - this.#lastBackoffReset > this.#backoff.resetAfter) {
      this.#delay = this.#backoff.initial;
      this.#lastBackoffReset = now;
    }
    const base = this.#delay;
    this.#delay = Math.min(base * this.#backoff.factor, this.#backoff.cap);
    return base + (this.#backoff.jitter > 0 ? this.#random() * this.#backoff.jitter * base : 0);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
