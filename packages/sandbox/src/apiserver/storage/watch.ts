// One watch on the sandbox: the events a watcher sees, as kube-apiserver's
// watch cache produces them (staging/src/k8s.io/apiserver/pkg/storage/cacher,
// cacheWatcher.convertToWatchEvent for selector transitions, the initial
// events of a watch from resourceVersion 0, bookmarks, the 410 for a compacted
// resourceVersion). It is a queue the HTTP handler or the in-process client
// drains; it never blocks the writer.
import { FifoBuffer, StatusError, initialEventsEndAnnotation } from '@kcm-ts/apimachinery';
import type { Clock, KubeObject, Timer, WatchEvent } from '@kcm-ts/apimachinery';
import { tooLargeResourceVersion } from './storage.js';
import type { Storage, StoredEvent } from './storage.js';

/**
 * How a watch decides which objects it sees and how they look.
 *
 * @category Registry
 */
export interface WatchFilter {
  /** The storage watched. */
  storage: string;
  /** True when the watcher should see this object (namespace and selectors). */
  matches(obj: KubeObject): boolean;
  /** The object as the watcher's resource presents it (a copy, or a frozen form shared by watchers). */
  present(obj: KubeObject): KubeObject;
  /** An empty object of the watched kind, for bookmarks. */
  bookmarkObject(rv: string, annotations?: Record<string, string>): KubeObject;
}

/**
 * When and how a watch starts and ends.
 *
 * @category Registry
 */
export interface WatchStart {
  /** `undefined` or `'0'`: start with `ADDED` events for every current object. */
  resourceVersion?: string;
  /** Send `BOOKMARK` events every `bookmarkInterval`. */
  allowWatchBookmarks?: boolean;
  /** Start with the current objects, then a bookmark marking their end. */
  sendInitialEvents?: boolean;
  /** Seconds until the server ends the watch. */
  timeoutSeconds: number;
  /** Milliseconds between bookmarks. */
  bookmarkInterval: number;
}

/** How many live events a watch holds for a consumer that is not reading before it ends. */
export const maxQueuedEvents = 10_000;

/**
 * A running watch: an async iterable of events that ends when the watch times
 * out, after an `ERROR` event, when {@link Watch.stop} is called, or when its
 * consumer falls 10,000 events behind.
 */
export class Watch implements AsyncIterable<WatchEvent<KubeObject>> {
  private readonly queue = new FifoBuffer<WatchEvent<KubeObject>>();
  private wake: (() => void) | undefined;
  private ended = false;
  private unsubscribe: (() => void) | undefined;
  private timer: Timer | undefined;
  private bookmarks: Timer | undefined;
  private lastRV: number;
  private limit = Infinity;
  private listener: (() => void) | undefined;
  private readonly stopHooks: (() => void)[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly filter: WatchFilter,
    start: WatchStart,
  ) {
    this.lastRV = storage.currentRevision();
    if (!this.catchUp(start)) return;
    // Live events may pile up this far beyond the initial ones (cacher.go
    // closes a watcher whose channel stays full); the consumer has stalled.
    this.limit = this.queue.length + maxQueuedEvents;
    this.unsubscribe = storage.subscribe((event) => this.onChange(event));
    this.timer = clock.afterFunc(start.timeoutSeconds * 1000, () => this.stop());
    if (start.allowWatchBookmarks) {
      const tick = (): void => {
        if (this.ended) return;
        this.push({ type: 'BOOKMARK', object: filter.bookmarkObject(String(this.lastRV)) });
        this.bookmarks = clock.afterFunc(start.bookmarkInterval, tick);
      };
      this.bookmarks = clock.afterFunc(start.bookmarkInterval, tick);
    }
  }

  // Queues what comes before the live events: the initial state, or the
  // changes since the version asked for. False when the watch failed instead.
  private catchUp(start: WatchStart): boolean {
    const rv = start.resourceVersion;
    if (start.sendInitialEvents && rv && rv !== '0' && Number(rv) > this.lastRV) {
      this.fail(tooLargeResourceVersion(Number(rv), this.lastRV, 1));
      return false;
    }
    const fromState =
      rv === undefined || rv === '' || rv === '0' || start.sendInitialEvents === true;
    if (!fromState) return this.replay(Number(rv));
    // The initial state and the subscription are taken in the same tick, so
    // no change falls between them.
    for (const obj of this.storage.list(this.filter.storage)) {
      if (this.filter.matches(obj)) this.push({ type: 'ADDED', object: this.filter.present(obj) });
    }
    if (start.sendInitialEvents && start.allowWatchBookmarks) {
      this.push({
        type: 'BOOKMARK',
        object: this.filter.bookmarkObject(String(this.lastRV), {
          [initialEventsEndAnnotation]: 'true',
        }),
      });
    }
    return true;
  }

  // Queues the changes after revision `from`; false when they are gone or not yet made.
  private replay(from: number): boolean {
    // A version the storage has not reached can only come from before a
    // restart (or be made up): the watcher must list afresh. kube-apiserver
    // blocks a plain watch on it and fails a sendInitialEvents one after
    // 3 s with this error (cacher.go, waitUntilFreshAndBlock); nothing will
    // catch up here, so the sandbox fails both at once.
    if (from > this.storage.currentRevision()) {
      this.fail(tooLargeResourceVersion(from, this.storage.currentRevision(), 1));
      return false;
    }
    let events: StoredEvent[];
    try {
      events = this.storage.changesSince(from);
    } catch (err) {
      this.fail(err);
      return false;
    }
    for (const event of events) this.onChange(event);
    return true;
  }

  private onChange(event: StoredEvent): void {
    if (event.storage !== this.filter.storage || this.ended) return;
    this.lastRV = event.rv;
    const cur = event.type !== 'DELETED' && this.filter.matches(event.object);
    const old = event.prev !== undefined && this.filter.matches(event.prev);
    if (event.type === 'DELETED') {
      if (old) this.push({ type: 'DELETED', object: this.filter.present(event.object) });
      return;
    }
    if (cur && old) this.push({ type: 'MODIFIED', object: this.filter.present(event.object) });
    else if (cur) this.push({ type: 'ADDED', object: this.filter.present(event.object) });
    else if (old && event.prev) {
      // The object left the selection: the watcher sees it deleted, at this revision.
      const gone = { ...this.filter.present(event.prev) };
      gone.metadata = { ...gone.metadata, resourceVersion: String(event.rv) };
      this.push({ type: 'DELETED', object: gone });
    }
  }

  private push(event: WatchEvent<KubeObject>): void {
    this.queue.push(event);
    if (this.queue.length > this.limit) {
      this.stop();
      return;
    }
    this.wake?.();
    this.listener?.();
  }

  /**
   * Calls `listener` whenever events are queued or the watch ends, for a
   * consumer that drains the queue in batches with {@link Watch.take}
   * instead of iterating (the HTTP server, which writes a watcher's queued
   * events at once, as Go's watch server flushes only when its channel is
   * empty).
   *
   * @internal
   */
  onReady(listener: () => void): void {
    this.listener = listener;
    if (this.queue.length > 0 || this.ended) listener();
  }

  /**
   * The queued events, oldest first, taken off the queue: all of them, or
   * the first `max`.
   *
   * @internal
   */
  take(max = Infinity): WatchEvent<KubeObject>[] {
    if (max >= this.queue.length) return this.queue.drain();
    const taken: WatchEvent<KubeObject>[] = [];
    while (taken.length < max) taken.push(this.queue.shift()!);
    return taken;
  }

  /**
   * How many events are queued, not yet taken.
   *
   * @internal
   */
  get pending(): number {
    return this.queue.length;
  }

  private fail(err: unknown): void {
    const status =
      err instanceof StatusError
        ? err.toStatus()
        : {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: String(err),
            reason: 'InternalError',
            code: 500,
          };
    this.push({ type: 'ERROR', object: status });
    this.stop();
  }

  /** Ends the watch: queued events are still delivered, then iteration ends. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.unsubscribe?.();
    this.timer?.stop();
    this.bookmarks?.stop();
    this.wake?.();
    this.listener?.();
    for (const hook of this.stopHooks.splice(0)) hook();
  }

  /** Calls `hook` once the watch ends (at once if it has). */
  onStop(hook: () => void): void {
    if (this.ended) hook();
    else this.stopHooks.push(hook);
  }

  /** True once the watch has ended (its queue may still hold events). */
  get stopped(): boolean {
    return this.ended;
  }

  /** The events, in order; ends when the watch does. */
  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<KubeObject>> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.stop();
    }
  }
}
