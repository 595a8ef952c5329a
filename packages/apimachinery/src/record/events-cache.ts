// The event correlator: client-go tools/record/events_cache.go
// (EventCorrelator, EventAggregator, EventSourceObjectSpamFilter,
// eventLogger, getEventKey, getSpamKey). It decides, before anything is
// written, whether an event is dropped as spam, folded into an aggregate, or
// counted as a repeat of one already written.
import type { Event } from 'kubernetes-types/core/v1.js';
import { realClock, type PassiveClock } from '../clock.js';
import { formatTime } from '../time.js';
import { LruCache } from './lru-cache.js';
import { TokenBucketPassiveRateLimiter } from './token-bucket-rate-limiter.js';
import { EventNamer } from './util.js';

/** The size of each of the correlator's caches: Go's `maxLruCacheEntries`. */
export const maxLruCacheEntries = 4096;
/** Distinct messages of similar events that trigger aggregation: Go's `defaultAggregateMaxEvents`. */
export const defaultAggregateMaxEvents = 10;
/** The window in which similar events are aggregated: Go's `defaultAggregateIntervalInSeconds`. */
export const defaultAggregateIntervalInSeconds = 600;
/** Events a source may send about one object at once: Go's `defaultSpamBurst`. */
export const defaultSpamBurst = 25;
/** Refill of the spam filter, one event per 5 minutes; a float32 in Go, so rounded the same way. */
export const defaultSpamQPS = Math.fround(1 / 300);

/** The prefix of an aggregate event's message. */
const combinedPrefix = '(combined from similar events): ';

/**
 * The key of an exact event: source, involved object (field path included),
 * type, reason and message. Go's `getEventKey`.
 */
export function getEventKey(event: Event): string {
  const o = event.involvedObject;
  return [
    event.source?.component,
    event.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    event.type,
    event.reason,
    event.message,
  ]
    .map((s) => s ?? '')
    .join('');
}

/** The key the spam filter counts by: source, involved object and type. Go's `getSpamKey`. */
export function getSpamKey(event: Event): string {
  const o = event.involvedObject;
  return [
    event.source?.component,
    event.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    event.type,
  ]
    .map((s) => s ?? '')
    .join('');
}

/**
 * Gives the key the spam filter keeps one token bucket per: Go's `EventSpamKeyFunc`.
 *
 * @category Events
 */
export type EventSpamKeyFunc = (event: Event) => string;

/**
 * Returns true when an event must be dropped: Go's `EventFilterFunc`.
 *
 * @category Events
 */
export type EventFilterFunc = (event: Event) => boolean;

/**
 * Splits an event into the key of its group of similar events and its key
 * within the group: Go's `EventAggregatorKeyFunc`.
 *
 * @category Events
 */
export type EventAggregatorKeyFunc = (
  event: Event,
) => readonly [aggregateKey: string, localKey: string];

/**
 * Writes the message of an aggregate event: Go's `EventAggregatorMessageFunc`.
 *
 * @category Events
 */
export type EventAggregatorMessageFunc = (event: Event) => string;

/**
 * Limits how many events one source may send about one object: a token bucket
 * per key (by default source, involved object and type) that holds `burst`
 * tokens and refills `qps` per second. Go's `EventSourceObjectSpamFilter`.
 *
 * @category Events
 */
export class EventSourceObjectSpamFilter {
  readonly #cache: LruCache<string, TokenBucketPassiveRateLimiter>;
  readonly #burst: number;
  readonly #qps: number;
  readonly #clock: PassiveClock;
  readonly #spamKeyFunc: EventSpamKeyFunc;

  /** Go's `NewEventSourceObjectSpamFilter`. */
  constructor(
    lruCacheSize: number,
    burst: number,
    qps: number,
    clock: PassiveClock,
    spamKeyFunc: EventSpamKeyFunc,
  ) {
    this.#cache = new LruCache(lruCacheSize);
    this.#burst = burst;
    this.#qps = qps;
    this.#clock = clock;
    this.#spamKeyFunc = spamKeyFunc;
  }

  /** True when `event` must be dropped because its key has no token left. Go's `Filter`. */
  filter(event: Event): boolean {
    const key = this.#spamKeyFunc(event);
    const limiter =
      this.#cache.get(key) ??
      new TokenBucketPassiveRateLimiter(this.#qps, this.#burst, this.#clock);
    const drop = !limiter.tryAccept();
    this.#cache.add(key, limiter);
    return drop;
  }
}

/**
 * Groups events that differ only in their message: the key is the source,
 * the involved object (without field path), type, reason and reporting
 * controller and instance; the local key is the message. Go's
 * `EventAggregatorByReasonFunc`.
 *
 * @category Events
 */
export function eventAggregatorByReasonFunc(event: Event): readonly [string, string] {
  const o = event.involvedObject;
  const aggregateKey = [
    event.source?.component,
    event.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    event.type,
    event.reason,
    event.reportingComponent,
    event.reportingInstance,
  ]
    .map((s) => s ?? '')
    .join('');
  return [aggregateKey, event.message ?? ''];
}

/**
 * The message of an aggregate event: `(combined from similar events): ` and
 * the latest message. Go's `EventAggregatorByReasonMessageFunc`.
 *
 * @category Events
 */
export function eventAggregatorByReasonMessageFunc(event: Event): string {
  return combinedPrefix + (event.message ?? '');
}

interface AggregateRecord {
  /** The distinct local keys (messages) seen in the current window. */
  localKeys: Set<string>;
  /** When a similar event was last seen (ms); -Infinity for a fresh record. */
  lastTimestamp: number;
}

/**
 * Folds similar events into one: once `maxEvents` distinct messages of a group
 * have been seen, each within `maxIntervalInSeconds` of the previous one, the
 * group's events are replaced by a single aggregate event whose message comes
 * from the message function. Go's `EventAggregator`.
 *
 * @category Events
 */
export class EventAggregator {
  readonly #cache: LruCache<string, AggregateRecord>;
  readonly #keyFunc: EventAggregatorKeyFunc;
  readonly #messageFunc: EventAggregatorMessageFunc;
  readonly #maxEvents: number;
  readonly #maxIntervalInSeconds: number;
  readonly #clock: PassiveClock;
  readonly #namer: EventNamer;

  /**
   * Go's `NewEventAggregator`.
   *
   * @param namer - names aggregate Events; shared with the recorders of the
   *   same broadcaster, so that no two Events get one name
   */
  constructor(
    lruCacheSize: number,
    keyFunc: EventAggregatorKeyFunc,
    messageFunc: EventAggregatorMessageFunc,
    maxEvents: number,
    maxIntervalInSeconds: number,
    clock: PassiveClock,
    namer: EventNamer = new EventNamer(),
  ) {
    this.#cache = new LruCache(lruCacheSize);
    this.#keyFunc = keyFunc;
    this.#messageFunc = messageFunc;
    this.#maxEvents = maxEvents;
    this.#maxIntervalInSeconds = maxIntervalInSeconds;
    this.#clock = clock;
    this.#namer = namer;
  }

  /**
   * Returns the event to write and the key to count it under: `newEvent` and
   * its full key (source, object, type, reason and message) while the group is below the limit,
   * otherwise a new aggregate event and the group's key, so that later
   * members count as repeats of the aggregate. Go's `EventAggregate`.
   */
  eventAggregate(newEvent: Event): [Event, string] {
    const now = this.#clock.now();
    const eventKey = getEventKey(newEvent);
    const [aggregateKey, localKey] = this.#keyFunc(newEvent);

    let record = this.#cache.get(aggregateKey) ?? {
      localKeys: new Set<string>(),
      lastTimestamp: -Infinity,
    };
    if (now - record.lastTimestamp > this.#maxIntervalInSeconds * 1000) {
      record = { localKeys: new Set<string>(), lastTimestamp: -Infinity };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.#cache.add(aggregateKey, record);

    if (record.localKeys.size < this.#maxEvents) return [newEvent, eventKey];

    // Keep the set at the limit: drop one key, any will do.
    const first = record.localKeys.values().next();
    if (first.done !== true) record.localKeys.delete(first.value);

    const timestamp = formatTime(now);
    const aggregate: Event = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: {
        name: `${newEvent.involvedObject.name ?? ''}.${this.#namer.nanos(now).toString(16)}`,
        namespace: newEvent.metadata.namespace,
      },
      involvedObject: newEvent.involvedObject,
      reason: newEvent.reason,
      message: this.#messageFunc(newEvent),
      source: newEvent.source,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type: newEvent.type,
      // Go leaves these empty on the aggregate; its JSON still carries them.
      reportingComponent: '',
      reportingInstance: '',
    };
    return [aggregate, aggregateKey];
  }
}

interface EventLog {
  /** How many times the event has occurred; 0 for an event never seen. */
  count: number;
  /** When it first occurred, as written on the Event. */
  firstTimestamp: string | undefined;
  /** The name of the Event object that counts it. */
  name: string;
  /** The resourceVersion the server last returned for that object. */
  resourceVersion: string;
}

// The old side of the two-way patch: the event with count, lastTimestamp and
// message cleared (a zero time marshals as the epoch).
const epoch = '1970-01-01T00:00:00Z';

/**
 * The strategic merge patch from an event with count, lastTimestamp and
 * message cleared to `event`: what Go's `eventObserve` gets from
 * `CreateTwoWayMergePatch`. Only those three fields differ, so only they can
 * appear, in the sorted key order Go marshals a map with.
 */
function repeatPatch(event: Event): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const diff = (key: string, oldValue: unknown, newValue: unknown) => {
    if (newValue === oldValue) return;
    patch[key] = newValue === undefined ? null : newValue;
  };
  diff('count', undefined, event.count ? event.count : undefined);
  diff('lastTimestamp', epoch, event.lastTimestamp);
  diff('message', undefined, event.message ? event.message : undefined);
  return patch;
}

/**
 * Counts occurrences of identical events, so that a repeat becomes a patch of
 * the Event already written (count + 1, a new lastTimestamp) rather than a new
 * object. Go's `eventLogger`.
 */
export class EventLogger {
  readonly #cache: LruCache<string, EventLog>;

  constructor(lruCacheEntries: number) {
    this.#cache = new LruCache(lruCacheEntries);
  }

  /**
   * Records an occurrence of `newEvent` under `key`. For an event seen before,
   * returns a copy that names the earlier Event object, keeps its
   * firstTimestamp and bumps its count, with the patch to send; otherwise a
   * copy as it is and no patch. Go's `eventObserve`.
   */
  eventObserve(
    newEvent: Event,
    key: string,
  ): { event: Event; patch: Record<string, unknown> | undefined } {
    const event: Event = { ...newEvent, metadata: { ...newEvent.metadata } };
    const last = this.#cache.get(key);
    let patch: Record<string, unknown> | undefined;
    if (last !== undefined && last.count > 0) {
      // resourceVersion is read-only in kubernetes-types: rebuild the metadata.
      const { resourceVersion: _stale, ...meta } = event.metadata;
      event.metadata =
        last.resourceVersion === ''
          ? { ...meta, name: last.name }
          : { ...meta, name: last.name, resourceVersion: last.resourceVersion };
      if (last.firstTimestamp === undefined) delete event.firstTimestamp;
      else event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      patch = repeatPatch(event);
    }
    this.#record(key, event);
    return { event, patch };
  }

  /** Takes in what the server returned for an event it stored. Go's `updateState`. */
  updateState(event: Event): void {
    this.#record(getEventKey(event), event);
  }

  #record(key: string, event: Event): void {
    this.#cache.add(key, {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    });
  }
}

/**
 * Settings of an {@link EventCorrelator}: Go's `CorrelatorOptions`. Each one
 * left unset, or 0, takes client-go's default.
 *
 * @category Events
 */
export interface CorrelatorOptions {
  /** The size of each cache (spam filter, aggregator, repeat counter); 4096. */
  lruCacheSize?: number | undefined;
  /** Events one source may send about one object at once; 25. */
  burstSize?: number | undefined;
  /** The spam filter's refill in events per second; one per 300 s. */
  qps?: number | undefined;
  /** How events are grouped for aggregation; {@link eventAggregatorByReasonFunc}. */
  keyFunc?: EventAggregatorKeyFunc | undefined;
  /** The message of an aggregate event; {@link eventAggregatorByReasonMessageFunc}. */
  messageFunc?: EventAggregatorMessageFunc | undefined;
  /** Distinct messages in a group that trigger aggregation; 10. */
  maxEvents?: number | undefined;
  /** Seconds after the last similar event at which a group starts afresh; 600. */
  maxIntervalInSeconds?: number | undefined;
  /** The clock the spam filter and the aggregator read; the real clock. */
  clock?: PassiveClock | undefined;
  /** What the spam filter counts by; source, involved object and type. */
  spamKeyFunc?: EventSpamKeyFunc | undefined;
}

/**
 * What {@link EventCorrelator.eventCorrelate} decided: Go's `EventCorrelateResult`.
 *
 * @category Events
 */
export interface EventCorrelateResult {
  /** True when the event is dropped (spam): nothing is written. */
  skip: boolean;
  /** The event to write, when not skipped: a copy, possibly aggregated and counted. */
  event?: Event | undefined;
  /**
   * For a repeat of an event already written, the strategic merge patch to
   * send (count, lastTimestamp, message); `undefined` means create.
   */
  patch?: Record<string, unknown> | undefined;
}

/**
 * Protects the API server from floods of events, before anything is written:
 * similar events are aggregated, identical ones counted (written as a patch of
 * the earlier Event), and each source may send only so many about one object.
 * Go's `EventCorrelator`, with client-go's defaults:
 *
 * - events that differ only in message are replaced by one
 *   `(combined from similar events): ...` event once 10 distinct messages
 *   have been seen, each within 600 s of the last;
 * - an event seen before bumps the `count` and `lastTimestamp` of the first;
 * - a source may send 25 events about an object at once, then one per 5 minutes.
 *
 * @example
 * ```ts
 * const correlator = new EventCorrelator({ clock });
 * const result = correlator.eventCorrelate(event);
 * if (!result.skip) {
 *   const stored = result.patch ? await patch(result.event!, result.patch) : await create(result.event!);
 *   correlator.updateState(stored);
 * }
 * ```
 *
 * @category Events
 */
export class EventCorrelator {
  readonly #filterFunc: EventFilterFunc;
  readonly #aggregator: EventAggregator;
  readonly #logger: EventLogger;

  /**
   * Go's `NewEventCorrelatorWithOptions` (`NewEventCorrelator` when only a clock is given).
   *
   * @param namer - names aggregate Events; a broadcaster shares its own with its recorders
   */
  constructor(options: CorrelatorOptions = {}, namer: EventNamer = new EventNamer()) {
    const cacheSize = options.lruCacheSize || maxLruCacheEntries;
    const clock = options.clock ?? realClock;
    const spamFilter = new EventSourceObjectSpamFilter(
      cacheSize,
      options.burstSize || defaultSpamBurst,
      options.qps || defaultSpamQPS,
      clock,
      options.spamKeyFunc ?? getSpamKey,
    );
    this.#filterFunc = (event) => spamFilter.filter(event);
    this.#aggregator = new EventAggregator(
      cacheSize,
      options.keyFunc ?? eventAggregatorByReasonFunc,
      options.messageFunc ?? eventAggregatorByReasonMessageFunc,
      options.maxEvents || defaultAggregateMaxEvents,
      options.maxIntervalInSeconds || defaultAggregateIntervalInSeconds,
      clock,
      namer,
    );
    this.#logger = new EventLogger(cacheSize);
  }

  /**
   * Aggregates, counts and filters `newEvent`, in that order (a dropped event
   * is still counted). `newEvent` is not modified. Go's `EventCorrelate`.
   */
  eventCorrelate(newEvent: Event): EventCorrelateResult {
    const [aggregateEvent, key] = this.#aggregator.eventAggregate(newEvent);
    const { event, patch } = this.#logger.eventObserve(aggregateEvent, key);
    if (this.#filterFunc(event)) return { skip: true };
    return { skip: false, event, patch };
  }

  /**
   * Takes in the Event the server returned after a create or patch, so the
   * next repeat patches that object at its new resourceVersion. Go's `UpdateState`.
   */
  updateState(event: Event): void {
    this.#logger.updateState(event);
  }
}
