// Events the simulated node and scheduler write, as client-go's event
// recorder does (tools/record/event.go, makeEvent): one core/v1 Event per
// occurrence, named after the object with a unique suffix.
import { formatTime, type Clock, type KubeObject, type ResourceClient } from '@kcm-ts/apimachinery';
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';

/** What happened, and who saw it. */
export interface EventInfo {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The reporting component: `kubelet`, `default-scheduler`. */
  component: string;
  /** The node, for a kubelet. */
  host?: string;
  /**
   * Counts a repeat of the same event (same object, type, reason, message
   * and source) on the event already written, its `count` and
   * `lastTimestamp`, as client-go's event correlator does, instead of
   * writing another one: `kubectl describe` then shows "(x5 over 2m)".
   */
  aggregate?: boolean;
}

/** How many aggregated events the recorder remembers (client-go's LRU cache holds 4096). */
const maxAggregated = 4096;

/** Writes events about objects through an in-process client; a failed write is dropped, as client-go's recorder drops events it cannot send. */
export class EventRecorder {
  #seq = 0;
  /** Aggregated events written: their key → name, namespace, count, and the last write. */
  readonly #aggregated = new Map<
    string,
    { name: string; namespace: string; count: number; written: Promise<unknown> }
  >();

  constructor(
    private readonly events: ResourceClient<CoreEvent>,
    private readonly clock: Clock,
  ) {}

  record(obj: KubeObject, e: EventInfo): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace ?? 'default';
    const now = formatTime(this.clock.now());
    const key = e.aggregate
      ? JSON.stringify([
          meta.uid,
          namespace,
          meta.name,
          e.type,
          e.reason,
          e.message,
          e.component,
          e.host,
        ])
      : undefined;
    const seen = key === undefined ? undefined : this.#aggregated.get(key);
    if (seen !== undefined) {
      // EventLogger.eventObserve: the same event again: count it on the one written.
      seen.count++;
      const body = { count: seen.count, lastTimestamp: now };
      seen.written = seen.written
        .then(() =>
          this.events.inNamespace(seen.namespace).patch(seen.name, { type: 'merge', body }),
        )
        .catch(() => {});
      return;
    }
    // client-go: the object's name and the time in nanoseconds, in hex.
    const suffix = (
      BigInt(Math.floor(this.clock.now())) * 1_000_000n +
      BigInt(this.#seq++)
    ).toString(16);
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta.name ?? 'unknown'}.${suffix}`, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion ?? 'v1',
        kind: obj.kind ?? 'Pod',
        name: meta.name ?? '',
        namespace,
        uid: meta.uid ?? '',
        resourceVersion: meta.resourceVersion ?? '',
      },
      reason: e.reason,
      message: e.message,
      type: e.type,
      source: { component: e.component, ...(e.host !== undefined ? { host: e.host } : {}) },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: e.component,
      reportingInstance: e.host ?? '',
    };
    const written = this.events
      .inNamespace(namespace)
      .create(event)
      .catch(() => {});
    if (key !== undefined) {
      if (this.#aggregated.size >= maxAggregated) {
        this.#aggregated.delete(this.#aggregated.keys().next().value!);
      }
      this.#aggregated.set(key, { name: event.metadata.name!, namespace, count: 1, written });
    }
  }
}
