// The event broadcaster: client-go tools/record/event.go (EventBroadcaster,
// NewBroadcaster, eventBroadcasterImpl, StartRecordingToSink, recordToSink,
// recordEvent, StartEventWatcher, StartLogging, StartStructuredLogging,
// NewRecorder, Shutdown).
import type { Event, EventSource, ObjectReference } from 'kubernetes-types/core/v1.js';
import { realClock, type Clock } from '../clock.js';
import { noopLogger, type Logger } from '../logger.js';
import { isAlreadyExists, isStatusError } from '../status.js';
import type { EventRecorderLogger } from './event-recorder.js';
import type { EventSink } from './event-sink.js';
import { EventCorrelator, type CorrelatorOptions } from './events-cache.js';
import { RecorderImpl } from './recorder-impl.js';
import { EventNamer, isKeyNotFoundError } from './util.js';
import { Broadcaster, type BroadcastWatcher } from './watch-broadcaster.js';

/**
 * How many times the broadcaster tries to write one event before giving up:
 * Go's `maxTriesPerEvent`.
 *
 * @category Events
 */
export const maxTriesPerEvent = 12;

/**
 * The wait between tries to write an event, in ms (the first wait is a random
 * fraction of it): Go's `defaultSleepDuration`, 10 s.
 *
 * @category Events
 */
export const defaultSleepDuration = 10_000;

/**
 * How many events may wait in the broadcaster's queue, and in each watcher's,
 * before new ones are dropped: Go's `maxQueuedEvents`.
 *
 * @category Events
 */
export const maxQueuedEvents = 1000;

/**
 * What {@link EventBroadcaster.startEventWatcher} and the other `start`
 * methods return: stop it to stop that destination. Go's `watch.Interface`,
 * of which only `Stop` is used.
 *
 * @category Events
 */
export interface EventWatcher {
  /** Stops delivering events to this destination; events queued for it are dropped. */
  stop(): void;
}

/**
 * Options of {@link newBroadcaster}: Go's `BroadcasterOption`s, plus the
 * clock, randomness and logger the port injects.
 *
 * @category Events
 */
export interface EventBroadcasterOptions {
  /** Stamps events, times retries, and drives the correlator; defaults to the real clock. */
  clock?: Clock | undefined;
  /** Where failures to record or write events are logged, and structured event logs go; no-op by default. */
  logger?: Logger | undefined;
  /** Jitter of the first retry, returning values in [0, 1); defaults to `Math.random`. */
  random?: (() => number) | undefined;
  /**
   * Names an Event whose usual name (`<object>.<nanoseconds>`) is not a valid
   * name; defaults to `crypto.randomUUID`.
   */
  uuid?: (() => string) | undefined;
  /** The wait between tries to write an event, in ms; 10 s (Go's `WithSleepDuration`). */
  sleepDuration?: number | undefined;
  /** Settings of the correlator each sink gets (Go's `WithCorrelatorOptions`); its clock defaults to `clock`. */
  correlatorOptions?: CorrelatorOptions | undefined;
  /** Shuts the broadcaster down when it aborts (Go's `WithContext`). */
  signal?: AbortSignal | undefined;
}

/**
 * Receives events from the recorders it makes and sends them on to sinks,
 * handlers and logs: Go's `record.EventBroadcaster`. Make one with
 * {@link newBroadcaster}.
 *
 * Recording never waits. An event goes into a queue of
 * {@link maxQueuedEvents} and is handed to each destination on a later
 * microtask; each destination has a queue of the same length and takes its
 * events one at a time. A full queue drops the event (logged by the recorder
 * for the first queue, silently for a destination's), so a slow or hung API
 * server costs events, never a stalled controller.
 *
 * @example
 * ```ts
 * const broadcaster = newBroadcaster({ clock, logger });
 * broadcaster.startStructuredLogging(0);
 * broadcaster.startRecordingToSink(new EventSinkImpl(events));
 * const recorder = broadcaster.newRecorder({ component: 'replicaset-controller' });
 * recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata!.name}`);
 * // ... on shutdown:
 * broadcaster.shutdown();
 * ```
 *
 * @category Events
 */
export interface EventBroadcaster {
  /**
   * Calls `handler` with every event recorded from now on, one at a time (a
   * handler's promise is awaited before the next event). A handler that
   * throws is not caught: as client-go's crash handler re-panics, the error
   * surfaces as an unhandled rejection. Go's `StartEventWatcher`.
   */
  startEventWatcher(handler: (event: Event) => void | Promise<void>): EventWatcher;
  /**
   * Writes every event recorded from now on to `sink`, through a new
   * {@link EventCorrelator}: a repeat of an event patches its count and
   * lastTimestamp, similar events are aggregated, spam is dropped. A write
   * that fails with anything but a Status error is retried up to
   * {@link maxTriesPerEvent} tries, the first wait a random part of the sleep
   * duration and the others the whole of it; a Status error (the server
   * rejected the event) ends the tries at once, except that a patch answered
   * with 404 becomes a create. Go's `StartRecordingToSink`.
   */
  startRecordingToSink(sink: EventSink): EventWatcher;
  /**
   * Passes a line per event to `logf`, in client-go's format:
   * `Event(v1.ObjectReference{Kind:"Pod", ...}): type: 'Normal' reason: 'Started' message`.
   * Go's `StartLogging`.
   */
  startLogging(logf: (line: string) => void): EventWatcher;
  /**
   * Logs each event through the broadcaster's logger at `verbosity`, as
   * `Event occurred` with `object`, `fieldPath`, `kind`, `apiVersion`, `type`,
   * `reason` and `message`. Go's `StartStructuredLogging`.
   */
  startStructuredLogging(verbosity: number): EventWatcher;
  /**
   * A recorder whose events come from `source` (`component`, such as
   * `replicaset-controller`, and optionally `host`), which also fill the
   * Events' `reportingComponent` and `reportingInstance`. It logs through the
   * broadcaster's logger until given another. Go's `NewRecorder`.
   */
  newRecorder(source: EventSource): EventRecorderLogger;
  /**
   * Stops everything: recorders' later events are dropped with a logged
   * error, queued events are dropped, and a write under way gets no further
   * try; its request is aborted and no timer is left. Go's `Shutdown`.
   */
  shutdown(): void;
}

/**
 * A new {@link EventBroadcaster}: Go's `record.NewBroadcaster`.
 *
 * @category Events
 */
export function newBroadcaster(options: EventBroadcasterOptions = {}): EventBroadcaster {
  return new EventBroadcasterImpl(options);
}

/** Go's `%#v` of an ObjectReference, as `StartLogging` prints it. */
function goSyntaxReference(ref: ObjectReference): string {
  const q = (s: string | undefined) => JSON.stringify(s ?? '');
  return (
    `v1.ObjectReference{Kind:${q(ref.kind)}, Namespace:${q(ref.namespace)}, ` +
    `Name:${q(ref.name)}, UID:${q(ref.uid)}, APIVersion:${q(ref.apiVersion)}, ` +
    `ResourceVersion:${q(ref.resourceVersion)}, FieldPath:${q(ref.fieldPath)}}`
  );
}

/** klog's `KRef(namespace, name)` as text: `namespace/name`, or `name` alone. */
function kref(namespace: string | undefined, name: string | undefined): string {
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

class EventBroadcasterImpl implements EventBroadcaster {
  readonly #broadcaster = new Broadcaster<Event>(maxQueuedEvents);
  // Go's cancelationCtx: aborts retries and requests under way on shutdown.
  readonly #cancel = new AbortController();
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #uuid: () => string;
  // One for the recorders and the correlator: no two Events get one name.
  readonly #namer = new EventNamer();
  readonly #sleepDuration: number;
  readonly #correlatorOptions: CorrelatorOptions;
  readonly #parentSignal: AbortSignal | undefined;
  readonly #onParentAbort = () => this.shutdown();

  constructor(options: EventBroadcasterOptions) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#random = options.random ?? Math.random;
    this.#uuid = options.uuid ?? (() => globalThis.crypto.randomUUID());
    this.#sleepDuration = options.sleepDuration ?? defaultSleepDuration;
    this.#correlatorOptions = options.correlatorOptions ?? {};
    this.#parentSignal = options.signal;
    if (this.#parentSignal?.aborted) this.shutdown();
    else this.#parentSignal?.addEventListener('abort', this.#onParentAbort, { once: true });
  }

  startEventWatcher(handler: (event: Event) => void | Promise<void>): EventWatcher {
    return this.#startWatcher((event) => handler(event));
  }

  startRecordingToSink(sink: EventSink): EventWatcher {
    const correlator = new EventCorrelator(
      {
        ...this.#correlatorOptions,
        clock: this.#correlatorOptions.clock ?? this.#clock,
      },
      this.#namer,
    );
    return this.#startWatcher((event, signal) =>
      this.#recordToSink(sink, event, correlator, signal),
    );
  }

  startLogging(logf: (line: string) => void): EventWatcher {
    return this.#startWatcher((e) => {
      logf(
        `Event(${goSyntaxReference(e.involvedObject)}): type: '${e.type ?? ''}' ` +
          `reason: '${e.reason ?? ''}' ${e.message ?? ''}`,
      );
    });
  }

  startStructuredLogging(verbosity: number): EventWatcher {
    const logger = this.#logger.v(verbosity);
    return this.#startWatcher((e) => {
      const o = e.involvedObject;
      logger.info('Event occurred', {
        object: kref(o.namespace, o.name),
        fieldPath: o.fieldPath ?? '',
        kind: o.kind ?? '',
        apiVersion: o.apiVersion ?? '',
        type: e.type ?? '',
        reason: e.reason ?? '',
        message: e.message ?? '',
      });
    });
  }

  newRecorder(source: EventSource): EventRecorderLogger {
    return new RecorderImpl(
      { ...source },
      this.#broadcaster,
      this.#clock,
      this.#uuid,
      this.#logger,
      this.#namer,
    );
  }

  shutdown(): void {
    this.#parentSignal?.removeEventListener('abort', this.#onParentAbort);
    this.#broadcaster.shutdown();
    this.#cancel.abort(new Error('event broadcaster shut down'));
  }

  /**
   * Runs `handler` on each event of a new watcher, one at a time. The signal
   * it gets aborts when the watcher stops or the broadcaster shuts down, so
   * retries stop with their destination.
   */
  #startWatcher(
    handler: (event: Event, signal: AbortSignal) => void | Promise<void>,
  ): EventWatcher {
    let watcher: BroadcastWatcher<Event>;
    try {
      watcher = this.#broadcaster.watch();
    } catch (err) {
      // Go returns an empty watch here, so callers may still call stop.
      this.#logger.error(err, 'Unable start event watcher (will not retry!)');
      return { stop() {} };
    }
    const stopped = new AbortController();
    const onCancel = () => stopped.abort(this.#cancel.signal.reason);
    this.#cancel.signal.addEventListener('abort', onCancel, { once: true });
    const stop = () => {
      this.#cancel.signal.removeEventListener('abort', onCancel);
      watcher.stop();
      stopped.abort(new Error('event watcher stopped'));
    };
    const loop = async () => {
      for (;;) {
        const event = await watcher.next();
        if (event === undefined || stopped.signal.aborted) return;
        await handler(event, stopped.signal);
      }
    };
    // Left unhandled on purpose: a throwing handler must not pass silently.
    void loop();
    return { stop };
  }

  //#region record-to-sink
  // recordToSink: correlate, then try up to maxTriesPerEvent times; only the
  // first wait is jittered, so clients that failed together spread out.
  async #recordToSink(
    sink: EventSink,
    event: Event,
    correlator: EventCorrelator,
    signal: AbortSignal,
  ): Promise<void> {
    const result = correlator.eventCorrelate(event);
    if (result.skip || result.event === undefined) return;
    const toWrite = result.event;
    for (let tries = 0; ;) {
      if (await this.#recordEvent(sink, toWrite, result.patch, correlator, signal)) return;
      tries++;
      if (tries >= maxTriesPerEvent) {
        this.#logger.error(undefined, 'Unable to write event (retry limit exceeded!)', { event });
        return;
      }
      const delay = tries === 1 ? this.#sleepDuration * this.#random() : this.#sleepDuration;
      await this.#clock.sleep(delay, signal);
      if (signal.aborted) {
        this.#logger.error(undefined, 'Unable to write event (broadcaster is shut down)', {
          event,
        });
        return;
      }
    }
  }
  //#endregion record-to-sink

  //#region record-event
  // recordEvent: true when the event is written or abandoned, false to retry.
  async #recordEvent(
    sink: EventSink,
    event: Event,
    patch: Record<string, unknown> | undefined,
    correlator: EventCorrelator,
    signal: AbortSignal,
  ): Promise<boolean> {
    const updateExistingEvent = (event.count ?? 0) > 1;
    let written: Event | undefined;
    let failed = false;
    let err: unknown;
    if (updateExistingEvent) {
      try {
        written = await sink.patch(event, patch ?? {}, signal);
      } catch (e) {
        failed = true;
        err = e;
      }
    }
    // The Event may have expired since it was written: create it anew.
    if (!updateExistingEvent || isKeyNotFoundError(err)) {
      // A create must not carry a resourceVersion.
      const { resourceVersion: _stale, ...meta } = event.metadata;
      event.metadata = meta;
      try {
        written = await sink.create(event, signal);
        failed = false;
      } catch (e) {
        failed = true;
        err = e;
      }
    }
    if (!failed) {
      if (written !== undefined) correlator.updateState(written);
      return true;
    }
    // A Status error means the server answered: trying again would get the
    // same answer. Anything else (the network, a timeout) is worth a retry.
    if (isStatusError(err)) {
      const namespaceTerminating =
        err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false;
      if (isAlreadyExists(err) || namespaceTerminating) {
        this.#logger.v(5).info('Server rejected event (will not retry!)', { event, err });
      } else {
        this.#logger.error(err, 'Server rejected event (will not retry!)', { event });
      }
      return true;
    }
    this.#logger.error(err, 'Unable to write event (may retry after sleeping)', { event });
    return false;
  }
  //#endregion record-event
}
