// The source of the last-change-trigger-time annotation:
// staging/src/k8s.io/endpointslice/util/trigger_time_tracker.go
// (TriggerTimeTracker, NewTriggerTimeTracker, ServiceState,
// ComputeEndpointLastChangeTriggerTime, DeleteService, getPodTriggerTime,
// getServiceTriggerTime, min). Times are milliseconds since the epoch;
// undefined stands for Go's zero time.
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { getPodReadyCondition } from '@kcm-ts/controller';

/**
 * What the tracker saw of a Service at its last sync. Go's `ServiceState`.
 *
 * @category Trigger time
 */
export interface ServiceState {
  /** The Service's trigger time then (its creation). */
  lastServiceTriggerTime: number | undefined;
  /** Each pod's trigger time then (its Ready condition's last transition), by pod name. */
  lastPodTriggerTimes: Map<string, number>;
}

const parseTime = (s: string | undefined): number | undefined => {
  if (s === undefined || s === '') return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
};

/** When the pod last changed in a way endpoints show: its Ready condition's last transition. */
function getPodTriggerTime(pod: Pod): number | undefined {
  return parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
}

/** When the Service changed in a way endpoints show: its creation. */
function getServiceTriggerTime(service: Service): number | undefined {
  return parseTime(service.metadata?.creationTimestamp);
}

const minTime = (current: number | undefined, value: number): number =>
  current === undefined || value < current ? value : current;

/**
 * Computes the value of the `endpoints.kubernetes.io/last-change-trigger-time`
 * annotation: the earliest pod or Service change since the Service's last
 * sync. Go's `TriggerTimeTracker`.
 *
 * @category Trigger time
 */
export class TriggerTimeTracker {
  /** The state of each Service at its last sync, by `namespace/name`. */
  readonly serviceStates = new Map<string, ServiceState>();

  /**
   * The trigger time to write for this sync of the Service (its creation
   * the first time; afterwards the earliest trigger time that moved since
   * the last sync, or undefined when none did), remembering what it saw.
   * Go's `ComputeEndpointLastChangeTriggerTime`.
   */
  computeEndpointLastChangeTriggerTime(
    namespace: string,
    service: Service,
    pods: readonly Pod[],
  ): number | undefined {
    const key = `${namespace}/${service.metadata?.name ?? ''}`;
    const known = this.serviceStates.get(key);
    const state: ServiceState = known ?? {
      lastServiceTriggerTime: undefined,
      lastPodTriggerTimes: new Map(),
    };
    let minChanged: number | undefined;
    const podTriggerTimes = new Map<string, number>();
    for (const pod of pods) {
      const t = getPodTriggerTime(pod);
      if (t === undefined) continue;
      const name = pod.metadata?.name ?? '';
      podTriggerTimes.set(name, t);
      const last = state.lastPodTriggerTimes.get(name);
      if (last === undefined || t > last) minChanged = minTime(minChanged, t);
    }
    const serviceTriggerTime = getServiceTriggerTime(service);
    if (
      serviceTriggerTime !== undefined &&
      (state.lastServiceTriggerTime === undefined ||
        serviceTriggerTime > state.lastServiceTriggerTime)
    ) {
      minChanged = minTime(minChanged, serviceTriggerTime);
    }
    this.serviceStates.set(key, {
      lastPodTriggerTimes: podTriggerTimes,
      lastServiceTriggerTime: serviceTriggerTime,
    });
    if (known === undefined) return serviceTriggerTime;
    return minChanged;
  }

  /** Forgets a Service. Go's `DeleteService`. */
  deleteService(namespace: string, name: string): void {
    this.serviceStates.delete(`${namespace}/${name}`);
  }
}
