// The interface every component records events through: client-go's
// tools/record/event.go (EventRecorder, EventRecorderLogger) and fake.go
// (FakeRecorder). The broadcaster that writes core/v1 Events lives beside it.
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../logger.js';
import type { KubeObject } from '../object-meta.js';

/**
 * The two types of core/v1 Event: `Normal` for what went as planned,
 * `Warning` for what a user should look at (Go's `v1.EventTypeNormal`,
 * `v1.EventTypeWarning`).
 *
 * @category Events
 */
export type EventType = 'Normal' | 'Warning';

/**
 * What an event is about: an object in wire format (its `apiVersion`, `kind`
 * and metadata name the involved object) or an `ObjectReference` to one.
 *
 * @category Events
 */
export type EventSubject = KubeObject | ObjectReference;

/**
 * Records events about objects on behalf of one component: Go's
 * `record.EventRecorder`. Recording never blocks and never fails: an event
 * that cannot be written is dropped (and logged by the recorder), as in
 * client-go, so a slow or failing API server never stalls a controller.
 *
 * @example
 * ```ts
 * recorder.event(replicaSet, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`);
 * ```
 *
 * @category Events
 */
export interface EventRecorder {
  /**
   * Records that `reason` happened to `object`. `reason` is a short
   * UpperCamelCase word a machine can match on (`SuccessfulCreate`);
   * `message` is for humans.
   */
  event(object: EventSubject, type: EventType, reason: string, message: string): void;
  /** Like {@link EventRecorder.event}, with annotations added to the Event object. */
  annotatedEvent(
    object: EventSubject,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    message: string,
  ): void;
}

/**
 * An {@link EventRecorder} whose failures to record (an object without a
 * kind, a full queue) are logged through a logger of the caller's choosing:
 * Go's `record.EventRecorderLogger`. The broadcaster's recorders are these.
 *
 * @example
 * ```ts
 * recorder.withLogger(logger.withValues({ replicaSet: key })).event(rs, 'Normal', reason, message);
 * ```
 *
 * @category Events
 */
export interface EventRecorderLogger extends EventRecorder {
  /** The same recorder, logging through `logger`. Cheap: nothing is copied but the reference. */
  withLogger(logger: Logger): EventRecorderLogger;
}

/**
 * A recorder that drops every event, for components run without events.
 *
 * @category Events
 */
export const noopEventRecorder: EventRecorder = Object.freeze({
  event() {},
  annotatedEvent() {},
});

/**
 * A recorder for tests that keeps each event as the string
 * `"<type> <reason> <message>"`, as client-go's `record.FakeRecorder` puts
 * them on its channel; with `includeObject`, the involved object's
 * `" involvedObject{kind=K,apiVersion=V}"` follows. Non-empty annotations
 * always come last, as `" map[k1:v1 k2:v2]"` (keys sorted, as Go prints a map).
 *
 * @category Events
 */
export class FakeRecorder implements EventRecorderLogger {
  /** The events recorded so far, oldest first. Tests may clear it. */
  readonly events: string[] = [];
  readonly #includeObject: boolean;

  /** @param opts - `includeObject`: append the involved object's kind and apiVersion. */
  constructor(opts: { includeObject?: boolean } = {}) {
    this.#includeObject = opts.includeObject ?? false;
  }

  event(object: EventSubject, type: EventType, reason: string, message: string): void {
    this.#write(object, undefined, type, reason, message);
  }

  annotatedEvent(
    object: EventSubject,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    this.#write(object, annotations, type, reason, message);
  }

  /** Returns this recorder: a fake has nothing to log. */
  withLogger(_logger: Logger): EventRecorderLogger {
    return this;
  }

  #write(
    object: EventSubject,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    let line = `${type} ${reason} ${message}`;
    if (this.#includeObject) {
      line += ` involvedObject{kind=${object.kind ?? ''},apiVersion=${object.apiVersion ?? ''}}`;
    }
    // Go appends annotations whether or not the object is included.
    if (annotations !== undefined && Object.keys(annotations).length > 0) {
      const pairs = Object.entries(annotations)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${k}:${v}`);
      line += ` map[${pairs.join(' ')}]`;
    }
    this.events.push(line);
  }
}
