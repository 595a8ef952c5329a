// Chapter 4: three candidates compete for one Lease in the sandbox, on a fake
// clock. The leader is cut off from the API server and steps down; a follower
// takes over once the lease has expired; then the new leader shuts down
// cleanly and hands over at once.
// Run: npm run timeline -w tutorials/04-leader-election
import { FakeClock, type KubeObject, type ResourceClient } from '@kcm-ts/apimachinery';
import { LeaseLock, LeaderElector } from '@kcm-ts/leader-election';
import { startSandbox } from '@kcm-ts/sandbox';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

//#region partition
/**
 * Wraps a client so that it can be cut off from the API server: once `cut()`
 * is called, every request fails the way a refused connection does.
 */
export function partitionable<T extends KubeObject>(
  inner: ResourceClient<T>,
): { client: ResourceClient<T>; cut: () => void } {
  let isCut = false;
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          isCut
            ? Promise.reject(new Error('connect ECONNREFUSED: cut off from the API server'))
            : (value as (...a: unknown[]) => unknown).apply(t, args);
      },
    });
  return { client: wrap(inner), cut: () => (isCut = true) };
}
//#endregion partition

/** When one candidate led, in milliseconds since the start. */
export interface Leadership {
  identity: string;
  from: number;
  to: number;
}

/** What the timeline shows: who led when, and the Lease after the first take-over. */
export interface Timeline {
  leaderships: Leadership[];
  lease: Lease;
}

/** Runs the timeline, printing it. */
export async function run(log: (line: string) => void = console.log): Promise<Timeline> {
  const clock = new FakeClock();
  const start = clock.now();
  const at = (): string => `t=${((clock.now() - start) / 1000).toFixed(1).padStart(4)}s`;
  const say = (who: string, what: string): void => log(`${at()}  ${who.padEnd(3)} ${what}`);
  // In-process clients only: no HTTPS, so no certificates to make.
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const leases = sandbox.client<Lease>('coordination.k8s.io', 'leases').inNamespace('kube-system');
  const showLease = async (): Promise<Lease> => {
    const lease = await leases.get('kcm-ts-course');
    const spec = lease.spec;
    say('', `Lease: holder "${spec?.holderIdentity ?? ''}", transitions ${spec?.leaseTransitions}`);
    return lease;
  };
  const leaderships: Leadership[] = [];

  //#region candidate
  const candidate = (identity: string, client: ResourceClient<Lease>) => {
    const stop = new AbortController();
    const elector = new LeaderElector({
      lock: new LeaseLock({
        namespace: 'kube-system',
        name: 'kcm-ts-course',
        client,
        lockConfig: { identity },
      }),
      clock,
      random: () => 0.5, // every retry waits 2 s × (1 + 0.5 × 1.2) = 3.2 s
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: (leading) => {
          say(identity, 'starts leading');
          const term: Leadership = { identity, from: clock.now() - start, to: Infinity };
          leaderships.push(term);
          leading.addEventListener('abort', () => {
            term.to = clock.now() - start;
            say(identity, 'stops its work');
          });
        },
        onStoppedLeading: () => say(identity, 'has stopped'),
        onNewLeader: (leader) => say(identity, `sees the leader is "${leader}"`),
      },
    });
    const done = elector.run(stop.signal);
    return { elector, stop: () => stop.abort(), done };
  };
  //#endregion candidate

  try {
    //#region timeline
    const a = partitionable(sandbox.client<Lease>('coordination.k8s.io', 'leases'));
    const replicaA = candidate('a', a.client);
    await clock.advance(1_000);
    const replicaB = candidate('b', sandbox.client('coordination.k8s.io', 'leases'));
    await clock.advance(1_000);
    const replicaC = candidate('c', sandbox.client('coordination.k8s.io', 'leases'));
    await clock.advance(3_000);
    await showLease();

    say('', '--- a is cut off from the API server ---');
    a.cut();
    await clock.advance(25_000);
    const lease = await showLease();

    say('', '--- b shuts down cleanly ---');
    replicaB.stop();
    await replicaB.done;
    await clock.advance(5_000);
    await showLease();
    //#endregion timeline

    say('', '--- everyone shuts down ---');
    replicaA.stop();
    replicaC.stop();
    await Promise.all([replicaA.done, replicaC.done]);
    return { leaderships, lease };
  } finally {
    await sandbox.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
