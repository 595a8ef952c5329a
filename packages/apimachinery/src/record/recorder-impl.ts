// The recorder the broadcaster hands out: client-go tools/record/event.go
// (recorderImpl, recorderImplLogger, generateEvent, makeEvent).
import type { Event, EventSource } from 'kubernetes-types/core/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { PassiveClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { formatTime } from '../time.js';
import type { EventRecorderLogger, EventSubject, EventType } from './event-recorder.js';
import { getReference } from './reference.js';
import { EventNamer, generateEventName, validateEventType } from './util.js';

/**
 * A new Event about `ref`, as it is first written: named after the object and
 * the time in nanoseconds, in the object's namespace (`default` for a
 * cluster-scoped object), count 1, first and last timestamp now. Go's `makeEvent`.
 */
export function makeEvent(
  ref: ObjectReference,
  annotations: Readonly<Record<string, string>> | undefined,
  type: string,
  reason: string,
  message: string,
  now: number,
  uuid: () => string,
  namer: EventNamer = new EventNamer(),
): Event {
  const timestamp = formatTime(now);
  const event: Event = {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: {
      name: generateEventName(ref.name ?? '', namer.nanos(now), uuid),
      namespace: ref.namespace || 'default',
    },
    involvedObject: ref,
    reason,
    message,
    firstTimestamp: timestamp,
    lastTimestamp: timestamp,
    count: 1,
    type,
  };
  if (annotations !== undefined && Object.keys(annotations).length > 0) {
    event.metadata.annotations = { ...annotations };
  }
  return event;
}

/** What a recorder needs from its broadcaster. */
export interface RecorderSink {
  /** Queues an event; false when dropped because the queue is full; throws once shut down. */
  actionOrDrop(event: Event): boolean;
}

/**
 * Turns calls to `event` into Event objects from one source and queues them
 * on the broadcaster, never waiting. Go's `recorderImpl` with its logger
 * (`recorderImplLogger`).
 */
export class RecorderImpl implements EventRecorderLogger {
  readonly #source: EventSource;
  readonly #sink: RecorderSink;
  readonly #clock: PassiveClock;
  readonly #uuid: () => string;
  readonly #logger: Logger;
  readonly #namer: EventNamer;

  constructor(
    source: EventSource,
    sink: RecorderSink,
    clock: PassiveClock,
    uuid: () => string,
    logger: Logger,
    namer: EventNamer = new EventNamer(),
  ) {
    this.#source = source;
    this.#sink = sink;
    this.#clock = clock;
    this.#uuid = uuid;
    this.#logger = logger;
    this.#namer = namer;
  }

  event(object: EventSubject, type: EventType, reason: string, message: string): void {
    this.#generateEvent(object, undefined, type, reason, message);
  }

  annotatedEvent(
    object: EventSubject,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    this.#generateEvent(object, annotations, type, reason, message);
  }

  withLogger(logger: Logger): EventRecorderLogger {
    return new RecorderImpl(this.#source, this.#sink, this.#clock, this.#uuid, logger, this.#namer);
  }

  #generateEvent(
    object: EventSubject,
    annotations: Readonly<Record<string, string>> | undefined,
    type: string,
    reason: string,
    message: string,
  ): void {
    let ref: ObjectReference;
    try {
      ref = getReference(object);
    } catch (err) {
      this.#logger.error(err, 'Could not construct reference, will not report event', {
        object,
        eventType: type,
        reason,
        message,
      });
      return;
    }
    if (!validateEventType(type)) {
      this.#logger.error(undefined, 'Unsupported event type', { eventType: type });
      return;
    }

    const event = makeEvent(
      ref,
      annotations,
      type,
      reason,
      message,
      this.#clock.now(),
      this.#uuid,
      this.#namer,
    );
    event.source = {};
    if (this.#source.component) event.source.component = this.#source.component;
    if (this.#source.host) event.source.host = this.#source.host;
    event.reportingComponent = this.#source.component ?? '';
    event.reportingInstance = this.#source.host ?? '';

    // Never wait for the queue: a full one drops the event, as client-go does.
    let sent: boolean;
    try {
      sent = this.#sink.actionOrDrop(event);
    } catch (err) {
      this.#logger.error(err, 'Unable to record event (will not retry!)');
      return;
    }
    if (!sent) {
      this.#logger.error(
        undefined,
        'Unable to record event: too many queued events, dropped event',
        {
          event,
        },
      );
    }
  }
}
