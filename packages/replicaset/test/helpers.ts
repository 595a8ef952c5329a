// Shared test fixtures: the objects and the counting, failing client of
// @kcm-ts/controller's tests, an informer source that can hold back watch
// events (a lagging informer), and a harness that runs the controller
// against an in-process sandbox on a fake clock.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ListerWatcher,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { ReplicaSetController } from '../src/index.js';
import { faultyClient, type FaultyClient } from '../../controller/test/helpers.js';

export {
  creatable,
  epoch,
  faultyClient,
  newPod,
  newReplicaSet,
  type FaultyClient,
} from '../../controller/test/helpers.js';

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * Holds back watch events while `held` is true (in order, none lost): an
 * informer that lags the API server.
 */
export class LagGate {
  #held = false;
  #waiters: (() => void)[] = [];

  get held(): boolean {
    return this.#held;
  }

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    for (const w of this.#waiters.splice(0)) w();
  }

  async pass(): Promise<void> {
    while (this.#held) await new Promise<void>((r) => this.#waiters.push(r));
  }
}

function lagging<T>(inner: ListerWatcher<T>, gate: LagGate): ListerWatcher<T> {
  return {
    list: (opts) => inner.list(opts),
    async watch(opts) {
      const events = await inner.watch(opts);
      return {
        async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>> {
          for await (const e of events) {
            await gate.pass();
            yield e;
          }
        },
      };
    },
  };
}

/**
 * An informer factory source over a sandbox's in-process clients; the watch
 * of a resource named in `gates` (such as `pods`) lags while its gate holds.
 */
export function sandboxSource(
  sandbox: Sandbox,
  gates: Readonly<Record<string, LagGate>> = {},
): ResourceClientSource {
  return {
    resource<T extends KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
      const client = sandbox.client<T>(gvr.group, gvr.resource);
      const gate = gates[gvr.resource];
      if (gate === undefined) return client;
      const lw = lagging(client, gate);
      return new Proxy(client, {
        get(t, prop) {
          if (prop === 'watch') return lw.watch.bind(lw);
          return Reflect.get(t, prop) as unknown;
        },
      });
    },
  };
}

/** A running controller on an in-process sandbox with a fake clock. */
export interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  controller: ReplicaSetController;
  /** The controller's informer factory (its caches are what the controller sees). */
  factory: SharedInformerFactory;
  recorder: FakeRecorder;
  /** The pods client the controller writes through (counted, faults on demand). */
  pods: FaultyClient<Pod>;
  /** The replicasets client the controller writes through. */
  replicaSets: FaultyClient<ReplicaSet>;
  /** Direct clients in `default`, for the test's own writes. */
  podsIn: ResourceClient<Pod>;
  rsIn: ResourceClient<ReplicaSet>;
  /** Holds back the pod watch of the controller's informer. */
  podGate: LagGate;
  /** Holds back the ReplicaSet watch. */
  rsGate: LagGate;
  /** Moves the fake clock in steps of at most 100 ms, letting I/O run after each. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The active pods of `default` whose controller is `rs`. */
  ownedActive(rs: string): Promise<Pod[]>;
  stop(): Promise<void>;
}

/** Starts a sandbox, a factory, the controller and its workers. */
export async function startHarness(
  opts: {
    nodes?: number;
    workers?: number;
    burstReplicas?: number;
    podStartDelay?: number;
    podReadyDelay?: number;
  } = {},
): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: opts.nodes ?? 0,
    podStartDelay: opts.podStartDelay ?? 1000,
    podReadyDelay: opts.podReadyDelay ?? 1000,
  });
  const podGate = new LagGate();
  const rsGate = new LagGate();
  const factory = new SharedInformerFactory(
    sandboxSource(sandbox, { pods: podGate, replicasets: rsGate }),
    0,
    { clock },
  );
  const pods = faultyClient(sandbox.client<Pod>('', 'pods'));
  const replicaSets = faultyClient(sandbox.client<ReplicaSet>('apps', 'replicasets'));
  const recorder = new FakeRecorder({ includeObject: true });
  const controller = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets: replicaSets.client, pods: pods.client },
    recorder,
    clock,
    ...(opts.burstReplicas !== undefined && { burstReplicas: opts.burstReplicas }),
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(opts.workers ?? 2, abort.signal);
  await settle();
  await clock.advance(100);
  await settle();
  const podsIn = sandbox.client<Pod>('', 'pods').inNamespace('default');
  const rsIn = sandbox.client<ReplicaSet>('apps', 'replicasets').inNamespace('default');
  const h: Harness = {
    sandbox,
    clock,
    controller,
    factory,
    recorder,
    pods,
    replicaSets,
    podsIn,
    rsIn,
    podGate,
    rsGate,
    async step(ms) {
      for (let t = 0; t < ms; t += 100) {
        await clock.advance(Math.min(100, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await h.step(100);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    async ownedActive(rs) {
      const uid = (await rsIn.get(rs)).metadata?.uid;
      return (await podsIn.list()).items.filter(
        (p) =>
          !p.metadata?.deletionTimestamp &&
          p.status?.phase !== 'Succeeded' &&
          p.status?.phase !== 'Failed' &&
          p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid),
      );
    },
    async stop() {
      podGate.release();
      rsGate.release();
      abort.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return h;
}
