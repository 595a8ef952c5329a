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
}

/** Writes events about objects through an in-process client; a failed write is dropped, as client-go's recorder drops events it cannot send. */
export class EventRecorder {
  #seq = 0;

  constructor(
    private readonly events: ResourceClient<CoreEvent>,
    private readonly clock: Clock,
  ) {}

  record(obj: KubeObject, e: EventInfo): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace ?? 'default';
    const now = formatTime(this.clock.now());
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
    this.events
      .inNamespace(namespace)
      .create(event)
      .catch(() => {});
  }
}
