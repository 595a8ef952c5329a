// Chapter 7, fourth experiment: two copies of the manager on one fake clock,
// with kube-controller-manager's leader election (15 s lease, 10 s renew
// deadline, 2 s retry period). Only the holder of the Lease runs the
// controllers; a copy stopped cleanly hands over at once; a copy cut off from
// the API server gives up and `run()` rejects, which makes kcm-ts exit 1; a
// restarted copy waits out the lease like any follower.
// Run: npm run leader-election -w tutorials/07-manager
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { LeaderElectionLostError } from '@kcm-ts/leader-election';
import { informerResources } from '@kcm-ts/informer';
import { newLogger, type TestManager } from '@kcm-ts/manager';
import { partitionable, startCluster, startManager } from './cluster.js';
import { nginxDeployment } from './manifests.js';

/** One term of one copy: when it held the Lease and ran its controllers. */
export interface Term {
  identity: string;
  /** When its controllers had started, in ms since the start. */
  from: number;
  /** When its controllers stopped (Infinity while they run). */
  to: number;
  /** Pods, ReplicaSets and Deployments it had written before the term. */
  before: number;
  /** Pods, ReplicaSets and Deployments it wrote during the term. */
  writes: number;
}

/** What the experiment found. */
export interface Election {
  terms: Term[];
  /** How the cut-off copy's `run()` ended. */
  lost: unknown;
  /** The Lease's holder and transitions at the end. */
  lease: Lease;
  /** When manager-b was cut off, and when manager-a started again, in ms since the start. */
  cutAt: number;
  restartedAt: number;
}

/** A copy of the manager: `run()` with its own client, log and identity. */
interface Copy {
  identity: string;
  manager: TestManager;
  cut: () => void;
  /** Pods, ReplicaSets and Deployments written through this copy's client. */
  writes: () => number;
}

/** Runs the experiment, printing what each copy does. */
export async function run(log: (line: string) => void = console.log): Promise<Election> {
  const c = await startCluster();
  const start = c.clock.now();
  const at = () => `t=${((c.clock.now() - start) / 1000).toFixed(1).padStart(4)}s`;
  const say = (who: string, what: string) => log(`${at()}  ${who.padEnd(10)} ${what}`);
  const terms: Term[] = [];
  const leases = c.client<Lease>(informerResources.leases, 'kube-system');
  const deployments = c.client<Deployment>(informerResources.deployments, 'default');

  //#region copy
  const startCopy = (identity: string): Copy => {
    const net = partitionable(c.source);
    const writes = () => net.writes(['pods', 'replicasets.apps', 'deployments.apps']);
    let term: Term | undefined;
    // The copy's log, in JSON (--logging-format=json), read back line by line.
    const logger = newLogger({
      format: 'json',
      now: () => c.clock.now(),
      caller: false,
      write: (line) => {
        const entry = JSON.parse(line) as Record<string, string | undefined>;
        // Events are logged as they are recorded; the Lease's say who leads.
        if (entry.reason === 'LeaderElection' && entry.message?.endsWith('became leader'))
          say(identity, `event: ${entry.message}`);
        if (entry.msg === 'New leader elected')
          say(identity, `sees the leader is ${entry.identity}`);
        if (entry.msg === 'Shutting down controller' && term && term.to === Infinity) {
          term.to = c.clock.now() - start;
          term.writes = writes() - term.before;
          say(identity, `controllers stop (${term.writes} writes while leading)`);
        }
        if (entry.msg === 'leaderelection lost') say(identity, 'error: leaderelection lost');
      },
    });
    const manager = startManager(c, {
      identity,
      logger,
      source: net.source,
      configure: (config) => (config.generic.leaderElection.leaderElect = true),
      onControllersStarted: (names) => {
        const before = writes();
        term = { identity, from: c.clock.now() - start, to: Infinity, before, writes: 0 };
        terms.push(term);
        say(identity, `runs its controllers: ${names.join(', ')}`);
      },
    });
    return { identity, manager, cut: net.cut, writes };
  };
  //#endregion copy

  const holder = async () => {
    const lease = await leases.get('kube-controller-manager');
    say(
      '',
      `Lease: holder "${lease.spec?.holderIdentity ?? ''}", transitions ${lease.spec?.leaseTransitions ?? 0}`,
    );
    return lease;
  };
  const rolledOut = (replicas: number) => async () => {
    const d = await deployments.get('nginx-deployment');
    return d.status?.availableReplicas === replicas && d.status.replicas === replicas;
  };

  try {
    //#region timeline
    const a = startCopy('manager-a');
    await c.step(1000);
    const b = startCopy('manager-b');
    await c.step(4000);
    await holder();

    say('', '--- kubectl apply -f nginx-deployment.yaml ---');
    await deployments.create(nginxDeployment());
    await c.until(rolledOut(3));
    say('', `3 pods available; writes so far: manager-a ${a.writes()}, manager-b ${b.writes()}`);

    say('', '--- manager-a gets SIGTERM ---');
    await a.manager.stop();
    say('manager-a', 'run() returned: exit 0');
    await c.until(() => terms.length === 2);
    await holder();

    say('', '--- kubectl scale deployment nginx-deployment --replicas=5 ---');
    await deployments.patch('nginx-deployment', { type: 'merge', body: { spec: { replicas: 5 } } });
    await c.until(rolledOut(5));
    say('', `5 pods available; writes so far: manager-a ${a.writes()}, manager-b ${b.writes()}`);

    say('', '--- manager-b is cut off from the API server ---');
    const cutAt = c.clock.now() - start;
    b.cut();
    let lost: unknown;
    b.manager.done.catch((err: unknown) => {
      lost = err;
      const exit = err instanceof LeaderElectionLostError ? 'exit 1' : 'unexpected';
      say(
        'manager-b',
        `run() rejected: ${(err as Error).name}: ${(err as Error).message} (${exit})`,
      );
    });
    await c.until(() => lost !== undefined);

    say('', '--- manager-a starts again ---');
    const restartedAt = c.clock.now() - start;
    const a2 = startCopy('manager-a');
    await c.until(() => terms.length === 3);
    const lease = await holder();
    //#endregion timeline

    say('', '--- manager-a gets SIGTERM ---');
    await a2.manager.stop();
    return { terms, lost, lease, cutAt, restartedAt };
  } finally {
    await c.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
