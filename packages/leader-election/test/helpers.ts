import { FakeClock, FakeRecorder } from '@kcm-ts/apimachinery';
import { LeaseLock, LeaderElector } from '../src/index.js';
import type { LeaderElectionConfig } from '../src/index.js';
import { LeaseStore } from './fake-lease-client.js';

export interface Candidate {
  elector: LeaderElector;
  lock: LeaseLock;
  log: string[];
  events: string[];
  leading: AbortSignal | undefined;
}

/** A candidate on `store` whose callbacks and events are written to `log` and `events`. */
export function candidate(
  store: LeaseStore,
  clock: FakeClock,
  identity: string,
  config: Partial<LeaderElectionConfig> = {},
): Candidate {
  const recorder = new FakeRecorder();
  const c = {
    log: [] as string[],
    // The recorder's own list: "<type> <reason> <message>" per event.
    events: recorder.events,
    leading: undefined,
  } as unknown as Candidate;
  c.lock = new LeaseLock({
    namespace: 'kube-system',
    name: 'kcm',
    client: store.client(),
    lockConfig: {
      identity,
      eventRecorder: recorder,
    },
  });
  c.elector = new LeaderElector({
    lock: c.lock,
    clock,
    random: () => 0,
    name: 'kcm',
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = signal;
        c.log.push('started');
        signal.addEventListener('abort', () => c.log.push('signal aborted'));
      },
      onStoppedLeading: () => void c.log.push('stopped'),
      onNewLeader: (id) => void c.log.push(`new leader ${id}`),
    },
    ...config,
  });
  return c;
}

export function setup() {
  return { store: new LeaseStore(), clock: new FakeClock() };
}

/** Stores a Lease held by `holder`, as if another process wrote it. */
export function seedLease(store: LeaseStore, spec: Record<string, unknown>): void {
  store.objects.set('kube-system/kcm', {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { namespace: 'kube-system', name: 'kcm', resourceVersion: store.nextRV() },
    spec,
  });
}
