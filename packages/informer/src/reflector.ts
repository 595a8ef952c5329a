// Keeps a store in step with the server by listing then watching: client-go
// tools/cache reflector.go (Reflector, ListAndWatch, watch, handleWatch) and
// the backoff it uses, wait.Backoff wrapped by DelayWithReset.
import {
  deletionHandlingMetaNamespaceKeyFunc,
  hasStatusCause,
  initialEventsEndAnnotation,
  isGone,
  isResourceExpired,
  isTimeout,
  isTooManyRequests,
  realClock,
  StatusError,
  suggestsClientDelay,
  type Clock,
  type ListOptions,
  type ListerWatcher,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { ListPager, defaultPageSize } from './pager.js';
import { newStore } from './store.js';

/**
 * What a {@link Reflector} writes to: a {@link Store}, an {@link Indexer} or
 * a {@link DeltaFIFO} all fit.
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
 * Options for a {@link Reflector}: Go's `ReflectorOptions`.
 *
 * @category Reflector
 */
export interface ReflectorOptions {
  /** A name for messages. Default `'reflector'`. */
  name?: string;
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
  /** Items per list page; unset follows client-go's rules. */
  pageSize?: number;
  /**
   * Called with the error whenever a list-and-watch cycle fails, before the
   * backoff; Go's `SetWatchErrorHandler`. Default: report it with
   * `console.error`, except 410 Expired and Gone.
   */
  watchErrorHandler?: (reflector: Reflector<unknown>, err: unknown) => void;
  /** A random number in [0, 1), for jitter and watch timeouts. Default `Math.random`. */
  random?: () => number;
  /**
   * Get the initial state from a streaming watch (`sendInitialEvents`)
   * rather than a list, and go on watching on the same stream: client-go's
   * `WatchListClient` feature. A failure other than 410 or a busy server
   * falls back to list-then-watch for that cycle. Default `false`.
   */
  useWatchList?: boolean;
}

const defaultMinWatchTimeout = 5 * 60_000;

/**
 * The error of a watch that closed in under a second with no events: Go's
 * `VeryShortWatchError`. It makes the reflector back off and relist.
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

// reflector.go, isTooLargeResourceVersionError
function isTooLargeResourceVersion(err: unknown): boolean {
  if (hasStatusCause(err, 'ResourceVersionTooLarge')) return true;
  return (
    isTimeout(err) && err instanceof Error && err.message.includes('Too large resource version')
  );
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

function defaultWatchErrorHandler(reflector: Reflector<unknown>, err: unknown): void {
  // reflector.go, DefaultWatchErrorHandler
  if (isExpired(err)) return;
  console.error(`${reflector.name}: failed to watch:`, err);
}

function annotationsOf(obj: unknown): Record<string, string> {
  const meta = (obj as { metadata?: { annotations?: Record<string, string> } } | null)?.metadata;
  return meta?.annotations ?? {};
}

function resourceVersionOf(obj: unknown): string {
  const meta = (obj as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : '';
}

/**
 * Lists a resource into a {@link ReflectorStore}, then watches it and applies
 * every change, relisting when the watch falls too far behind: Go's
 * `cache.Reflector`. Failures are retried with backoff until the signal
 * aborts; all waiting goes through the clock.
 *
 * @example
 * ```ts
 * const fifo = newDeltaFIFO<Pod>({ knownObjects: indexer });
 * const reflector = new Reflector(pods, fifo, { resyncPeriod: 30_000 });
 * void reflector.run(controller.signal);
 * ```
 *
 * @category Reflector
 */
export class Reflector<T> {
  /** The name used in messages. */
  readonly name: string;
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
  #watchErrorHandler: (reflector: Reflector<unknown>, err: unknown) => void;
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
    this.#watchErrorHandler = options.watchErrorHandler ?? defaultWatchErrorHandler;
    this.#delay = this.#backoff.initial;
    this.#lastBackoffReset = this.#clock.now();
  }

  /** The resourceVersion of the last list or event applied; `''` before the first list. */
  lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  /** Replaces the handler called with each list-and-watch failure. */
  setWatchErrorHandler(handler: (reflector: Reflector<unknown>, err: unknown) => void): void {
    this.#watchErrorHandler = handler;
  }

  /**
   * Lists and watches until `signal` aborts, backing off after every cycle
   * (a failed one first goes to the watch error handler). Resolves once
   * stopped, with no timer left behind.
   */
  async run(signal: AbortSignal): Promise<void> {
    // reflector.go, RunWithContext
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
  }

  /**
   * One cycle: lists, replaces the store, then watches until the watch must
   * be relisted (resolves), fails in a way that needs the error handler
   * (rejects), or `signal` aborts (resolves).
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    // reflector.go, ListAndWatchWithContext
    if (signal.aborted) return;
    if (this.#useWatchList) {
      const stream = await this.#watchList(signal);
      if (signal.aborted) return;
      if (stream !== undefined) {
        await this.#watchWithResync(signal, stream);
        return;
      }
    }
    const listed = await this.#list(signal);
    if (!listed || signal.aborted) return;
    await this.#watchWithResync(signal);
  }

  //#region watch-list
  /**
   * Streams the initial state into a temporary store, replaces the store with
   * it at the initial-events-end bookmark, and returns the rest of the stream
   * to watch on; `undefined` means fall back to a list for this cycle.
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
      let failure: unknown;
      let iterator: AsyncIterator<WatchEvent<T>> | undefined;
      try {
        iterator = (await this.#lw.watch(opts))[Symbol.asyncIterator]();
      } catch (err) {
        failure = err;
      }
      if (iterator !== undefined) {
        const temp = newStore<T>(deletionHandlingMetaNamespaceKeyFunc);
        const start = this.#clock.now();
        let count = 0;
        for (;;) {
          const next = await iterator.next();
          if (signal.aborted) return undefined;
          if (next.done === true) {
            // Ended before the bookmark: ask again, unless it ended at once
            // with nothing in it (a very short watch: list instead).
            if (count === 0 && this.#clock.since(start) < 1000) return undefined;
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
          else if (annotationsOf(obj)[initialEventsEndAnnotation] === 'true') {
            const rv = resourceVersionOf(obj);
            this.#store.replace(temp.list(), rv);
            this.#lastSyncResourceVersion = rv;
            this.#resourceVersionUnavailable = false;
            const rest = iterator;
            return { [Symbol.asyncIterator]: () => rest };
          }
        }
        await iterator.return?.();
      }
      if (signal.aborted) return undefined;
      if (failure === undefined) continue;
      if (isExpired(failure) || isTooLargeResourceVersion(failure)) {
        this.#resourceVersionUnavailable = true;
        continue;
      }
      if (isTooManyRequests(failure) || isConnectionRefused(failure)) {
        await this.#clock.sleep(this.#retryDelay(failure), signal);
        continue;
      }
      return undefined;
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
      result = await pager.list({ resourceVersion: rv, signal });
    } catch (err) {
      if (signal.aborted) return false;
      if (!isExpired(err) && !isTooLargeResourceVersion(err)) throw err;
      // The version is gone or not reached yet: read the latest instead.
      this.#resourceVersionUnavailable = true;
      try {
        result = await pager.list({ resourceVersion: '', signal });
      } catch (err2) {
        if (signal.aborted) return false;
        throw err2;
      }
    }
    if (signal.aborted) return false;
    if (rv === '0' && result.paginated) this.#paginatedResult = true;
    this.#resourceVersionUnavailable = false;
    const listRV = result.list.metadata.resourceVersion ?? '';
    this.#store.replace(result.list.items, listRV);
    this.#lastSyncResourceVersion = listRV;
    return true;
    //#endregion reflector-list
  }

  async #watchWithResync(
    signal: AbortSignal,
    initial?: AsyncIterable<WatchEvent<T>>,
  ): Promise<void> {
    // reflector.go, watchWithResync and startResync
    const inner = new AbortController();
    const onAbort = (): void => inner.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let ticker;
    if (this.#resyncPeriod > 0) {
      ticker = this.#clock.newTicker(this.#resyncPeriod, () => {
        if (this.#shouldResync !== undefined && !this.#shouldResync()) return;
        try {
          this.#store.resync();
        } catch (err) {
          // A failed resync ends the watch, so the next cycle relists.
          inner.abort(err);
        }
      });
    }
    try {
      await this.#watch(signal, inner.signal, initial);
    } finally {
      ticker?.stop();
      signal.removeEventListener('abort', onAbort);
      inner.abort();
    }
  }

  async #watch(
    outer: AbortSignal,
    signal: AbortSignal,
    initial?: AsyncIterable<WatchEvent<T>>,
  ): Promise<void> {
    // reflector.go, watch
    let first = initial;
    while (!signal.aborted) {
      const startRV = this.#lastSyncResourceVersion;
      const opts: ListOptions = {
        resourceVersion: startRV,
        timeoutSeconds: this.#timeoutSeconds(),
        allowWatchBookmarks: true,
        signal,
      };
      let stream: AsyncIterable<WatchEvent<T>>;
      try {
        // The stream of a watch list goes on as the first watch.
        stream = first ?? (await this.#lw.watch(opts));
        first = undefined;
      } catch (err) {
        if (signal.aborted) return;
        // The server is unreachable or busy: wait and watch again, no relist.
        if (isTooManyRequests(err) || isConnectionRefused(err)) {
          await this.#clock.sleep(this.#retryDelay(err), signal);
          continue;
        }
        throw err;
      }
      const err = await this.#handleWatch(stream, startRV, signal);
      if (signal.aborted || outer.aborted) return;
      if (err === undefined) continue;
      if (isTooManyRequests(err)) {
        await this.#clock.sleep(this.#retryDelay(err), signal);
        continue;
      }
      if (err instanceof VeryShortWatchError) throw err;
      // 410 and any other stream error: relist after the backoff.
      return;
    }
  }

  //#region reflector-watch
  async #handleWatch(
    stream: AsyncIterable<WatchEvent<T>>,
    startRV: string,
    signal: AbortSignal,
  ): Promise<unknown> {
    // reflector.go, handleAnyWatch
    const start = this.#clock.now();
    // Synthetic ADDED events of a watch from "" or "0" may come out of order.
    let propagate = startRV !== '' && startRV !== '0';
    let count = 0;
    for await (const event of stream) {
      if (signal.aborted) return undefined;
      if (event.type === 'ERROR') return StatusError.fromStatus(event.object);
      const obj = event.object;
      if (typeof obj !== 'object' || obj === null || !('metadata' in obj)) continue;
      if (event.type !== 'ADDED') propagate = true;
      try {
        if (event.type === 'ADDED') this.#store.add(obj);
        else if (event.type === 'MODIFIED') this.#store.update(obj);
        else if (event.type === 'DELETED') this.#store.delete(obj);
      } catch (err) {
        console.error(`${this.name}: unable to apply watch event:`, err);
      }
      if (propagate) {
        const rv = resourceVersionOf(obj);
        if (rv !== '') this.#lastSyncResourceVersion = rv;
      }
      count++;
    }
    if (signal.aborted) return undefined;
    if (count === 0 && this.#clock.since(start) < 1000) return new VeryShortWatchError(this.name);
    return undefined;
    //#endregion reflector-watch
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
