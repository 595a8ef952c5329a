// Where the broadcaster writes events: client-go tools/record/event.go
// (EventSink) and kubernetes/typed/core/v1/event_expansion.go (EventSinkImpl,
// CreateWithEventNamespace, PatchWithEventNamespace).
import type { Event } from 'kubernetes-types/core/v1.js';
import type { ResourceClient } from '../client.js';

/**
 * Stores events: Go's `record.EventSink`. Each method writes to the event's
 * own `metadata.namespace` and rejects as a resource client does (a
 * `StatusError` for an API error), because the broadcaster decides from the
 * error whether to retry. Go's sink also has `Update`, which the broadcaster
 * never calls; it is left out.
 *
 * @category Events
 */
export interface EventSink {
  /** Creates `event` and resolves with it as stored. */
  create(event: Event, signal?: AbortSignal): Promise<Event>;
  /**
   * Applies the strategic merge patch `data` to the Event named by
   * `event.metadata` and resolves with it as stored; 404 NotFound if the Event
   * is gone (it may have expired), which makes the broadcaster create it anew.
   */
  patch(event: Event, data: object, signal?: AbortSignal): Promise<Event>;
}

/**
 * An {@link EventSink} over a `ResourceClient<Event>` for core/v1 events, as
 * client-go's `EventSinkImpl` wraps `CoreV1().Events("")`: each request goes
 * to the event's namespace, and patches are strategic merge patches.
 *
 * Give it the unscoped client. A client scoped to a namespace rejects events
 * of any other namespace, with client-go's message, without a request.
 *
 * @example
 * ```ts
 * broadcaster.startRecordingToSink(new EventSinkImpl(events));
 * ```
 *
 * @category Events
 */
export class EventSinkImpl implements EventSink {
  readonly #events: ResourceClient<Event>;

  /** @param events - a client for core/v1 `events` */
  constructor(events: ResourceClient<Event>) {
    this.#events = events;
  }

  async create(event: Event, signal?: AbortSignal): Promise<Event> {
    const namespace = this.#namespaceFor(event, 'create');
    return await this.#events.inNamespace(namespace).create(event, { signal });
  }

  async patch(event: Event, data: object, signal?: AbortSignal): Promise<Event> {
    const namespace = this.#namespaceFor(event, 'patch');
    return await this.#events
      .inNamespace(namespace)
      .patch(event.metadata.name ?? '', { type: 'strategic', body: data }, { signal });
  }

  #namespaceFor(event: Event, verb: string): string {
    const namespace = event.metadata.namespace ?? '';
    const scoped = this.#events.namespace ?? '';
    if (scoped !== '' && namespace !== scoped) {
      throw new Error(
        `can't ${verb} an event with namespace '${namespace}' in namespace '${scoped}'`,
      );
    }
    return namespace;
  }
}
