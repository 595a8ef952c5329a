// Shared test fixtures: objects in wire format shaped like the ones
// replica_set_test.go and controller_utils_test.go build, a client wrapper
// that counts requests and injects failures (the sandbox's fault lab acts
// only on HTTP), an informer source that can hold back watch events (a
// lagging informer), and a harness that runs the controller against an
// in-process sandbox on a fake clock.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  newControllerRef,
  type GroupVersionResource,
  type KubeObject,
  type ListerWatcher,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { ReplicaSetController, replicaSetKind } from '../src/index.js';

/** 2026-01-01T00:00:00Z, the fake clock's default start. */
export const epoch = Date.UTC(2026, 0, 1);

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A ReplicaSet in wire format, as the API server would hold it. */
export function newReplicaSet(
  name: string,
  replicas: number,
  opts: {
    uid?: string;
    labels?: Record<string, string>;
    namespace?: string;
    minReadySeconds?: number;
    owner?: OwnerReference;
    generation?: number;
  } = {},
): ReplicaSet {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: opts.namespace ?? 'default',
      uid: opts.uid ?? `uid-${name}`,
      resourceVersion: '18',
      generation: opts.generation ?? 1,
      creationTimestamp: formatTime(epoch),
      ...(opts.owner && { ownerReferences: [opts.owner] }),
    },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      ...(opts.minReadySeconds !== undefined && { minReadySeconds: opts.minReadySeconds }),
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
  };
}

/** `obj` without the fields the server sets, ready to be created. */
export function creatable<T extends KubeObject>(obj: T): T {
  const metadata = { ...obj.metadata };
  delete metadata.uid;
  delete metadata.resourceVersion;
  delete metadata.creationTimestamp;
  delete metadata.generation;
  return { ...obj, metadata };
}

/** A pod owned by `rs` (or an orphan with `rs` undefined), with the given phase. */
export function newPod(
  name: string,
  rs: ReplicaSet | undefined,
  opts: {
    phase?: string;
    labels?: Record<string, string>;
    ready?: boolean;
    readySince?: number;
    nodeName?: string;
    namespace?: string;
    uid?: string;
    deleting?: boolean;
    resourceVersion?: string;
  } = {},
): Pod {
  const labels = opts.labels ?? rs?.spec?.selector.matchLabels ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.namespace ?? rs?.metadata?.namespace ?? 'default',
      uid: opts.uid ?? `uid-${name}`,
      resourceVersion: opts.resourceVersion ?? '18',
      labels,
      creationTimestamp: formatTime(epoch),
      ...(opts.deleting && { deletionTimestamp: formatTime(epoch) }),
      ...(rs && { ownerReferences: [newControllerRef(rs, replicaSetKind)] }),
    },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27' }],
      ...(opts.nodeName !== undefined && { nodeName: opts.nodeName }),
    },
    status: {
      phase: opts.phase ?? 'Running',
      ...(opts.ready !== undefined && {
        conditions: [
          {
            type: 'Ready',
            status: opts.ready ? 'True' : 'False',
            lastTransitionTime: formatTime(opts.readySince ?? epoch),
          },
        ],
      }),
    },
  };
}

type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'updateStatus' | 'patch' | 'delete';

/** A client that counts every call by verb and fails the next calls on demand. */
export interface FaultyClient<T extends KubeObject> {
  client: ResourceClient<T>;
  /** Calls by verb, such as `create`. */
  readonly counts: Map<string, number>;
  /** The next `n` calls of `verb` reject with `err()` before reaching the server. */
  failNext(verb: Verb, n: number, err: () => Error): void;
  /** Every call of `verb` rejects with `err()` until cleared. */
  failAlways(verb: Verb, err: () => Error): void;
  /** Removes every planned failure. */
  clear(): void;
  /** Runs before every call that reaches the server (after the failure check). */
  onCall?: (verb: string, args: unknown[]) => void;
}

/** Wraps `inner` so every request is counted and failures can be injected. */
export function faultyClient<T extends KubeObject>(inner: ResourceClient<T>): FaultyClient<T> {
  const counts = new Map<string, number>();
  const planned = new Map<string, { n: number; err: () => Error }>();
  const self: FaultyClient<T> = {
    client: undefined as unknown as ResourceClient<T>,
    counts,
    failNext(verb, n, err) {
      planned.set(verb, { n, err });
    },
    failAlways(verb, err) {
      planned.set(verb, { n: Infinity, err });
    },
    clear() {
      planned.clear();
    },
  };
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) => {
          counts.set(prop, (counts.get(prop) ?? 0) + 1);
          const plan = planned.get(prop);
          if (plan && plan.n > 0) {
            plan.n--;
            return Promise.reject(plan.err());
          }
          self.onCall?.(prop, args);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  self.client = wrap(inner);
  return self;
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
