// The small cluster every example of chapter 6 runs on: the sandbox API
// server with one simulated node, one shared informer factory, and the
// Deployment and ReplicaSet controllers side by side, as kube-controller-
// manager runs them, all on a fake clock so that a rollout of minutes takes
// milliseconds and prints the same transcript every time.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  type EventRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { DeploymentController } from '@kcm-ts/deployment';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { ReplicaSetController } from '@kcm-ts/replicaset';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** How long a pod takes to start once scheduled, in ms (the sandbox's default is 1000). */
  podStartDelay?: number;
  /** How long a started pod takes to become Ready, in ms (default 1000). */
  podReadyDelay?: number;
}

/** The server's Deployments, ReplicaSets and pods at one revision, by `namespace/name`. */
export interface World {
  deployments: Map<string, Deployment>;
  replicaSets: Map<string, ReplicaSet>;
  pods: Map<string, Pod>;
}

/** A running cluster; every client works in the `default` namespace. */
export interface Cluster {
  clock: FakeClock;
  sandbox: Sandbox;
  deployments: ResourceClient<Deployment>;
  replicaSets: ResourceClient<ReplicaSet>;
  pods: ResourceClient<Pod>;
  /** The Deployment controller's events so far, as `t=  1.0s  Normal Reason message`. */
  events: string[];
  /** Seconds since the cluster started (or since {@link Cluster.startTimer}), as `t= 1.0s`. */
  at(): string;
  /**
   * Waits for the next whole second, then counts time from there (the API
   * server's timestamps have whole seconds, so conditions line up with the
   * transcript), and forgets the events so far. Returns the start, in ms.
   */
  startTimer(): Promise<number>;
  /** Moves the fake clock forward by `ms`, 100 ms at a time, letting the controllers work. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /**
   * Calls `check` after every change the API server commits to Deployments,
   * ReplicaSets or pods, with all of them as they are at that revision:
   * every state the server ever held, not samples. Also calls it once at
   * once, with the state as it is now. Returns the unsubscribe function.
   */
  observe(check: (world: World, rv: number) => void): () => void;
  stop(): Promise<void>;
}

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Starts the sandbox, its node, the informers and both controllers. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const clock = new FakeClock();
  let start = clock.now();
  const at = (): string => `t=${((clock.now() - start) / 1000).toFixed(1).padStart(4)}s`;
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true, // only in-process clients here: no certificates to make
    nodes: 1,
    podStartDelay: opts.podStartDelay ?? 1000,
    podReadyDelay: opts.podReadyDelay ?? 1000,
  });
  const events: string[] = [];
  const recorder: EventRecorder = {
    event: (_obj, type, reason, message) => events.push(`${at()}  ${type} ${reason} ${message}`),
    annotatedEvent: (_obj, _annotations, type, reason, message) =>
      events.push(`${at()}  ${type} ${reason} ${message}`),
  };

  //#region wiring
  // One informer factory: both controllers share its ReplicaSet and pod caches.
  const source: ResourceClientSource = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const deployments = sandbox.client<Deployment>('apps', 'deployments');
  const replicaSets = sandbox.client<ReplicaSet>('apps', 'replicasets');
  const pods = sandbox.client<Pod>('', 'pods');
  // The Deployment controller writes ReplicaSets and Deployment status...
  const dc = new DeploymentController({
    deployments: factory.deployments(),
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { deployments, replicaSets },
    recorder,
    clock,
  });
  // ...and the ReplicaSet controller turns each ReplicaSet's size into pods.
  const rsc = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets, pods },
    clock,
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const running = Promise.all([dc.run(5, stop.signal), rsc.run(5, stop.signal)]);
  //#endregion wiring

  await settle();
  await clock.advance(100);
  await settle();

  const cluster: Cluster = {
    clock,
    sandbox,
    deployments: deployments.inNamespace('default'),
    replicaSets: replicaSets.inNamespace('default'),
    pods: pods.inNamespace('default'),
    events,
    at,
    async startTimer() {
      const rest = clock.now() % 1000;
      if (rest !== 0) await cluster.step(1000 - rest);
      start = clock.now();
      events.length = 0;
      return start;
    },
    async step(ms) {
      for (let t = 0; t < ms; t += 100) {
        await clock.advance(Math.min(100, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 300_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await cluster.step(100);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    observe(check) {
      const world: World = { deployments: new Map(), replicaSets: new Map(), pods: new Map() };
      const maps: Record<string, Map<string, KubeObject>> = {
        'deployments.apps': world.deployments,
        'replicasets.apps': world.replicaSets,
        pods: world.pods,
      };
      for (const [storage, map] of Object.entries(maps)) {
        for (const obj of sandbox.registry.storage.list(storage)) {
          map.set(`${obj.metadata?.namespace}/${obj.metadata?.name}`, obj);
        }
      }
      const unsubscribe = sandbox.registry.storage.subscribe((e) => {
        const map = maps[e.storage];
        if (map === undefined) return;
        if (e.type === 'DELETED') map.delete(e.key);
        else map.set(e.key, e.object);
        check(world, e.rv);
      });
      check(world, 0);
      return unsubscribe;
    },
    async stop() {
      stop.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return cluster;
}

/** Is the pod counted by the ReplicaSet controller: not being deleted, not finished. */
export const isActive = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** Is the pod Ready (with minReadySeconds 0, also available). */
export const isReady = (p: Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** True once the Deployment's status describes a finished rollout of its current spec. */
export async function rolledOut(c: Cluster, name: string): Promise<boolean> {
  const d = await c.deployments.get(name);
  const s = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas
  );
}

/** The ReplicaSets a Deployment owns (through its controller reference), oldest first. */
export async function ownedReplicaSets(c: Cluster, name: string): Promise<ReplicaSet[]> {
  const uid = (await c.deployments.get(name)).metadata?.uid;
  return (await c.replicaSets.list()).items
    .filter((rs) => rs.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid))
    .sort((a, b) => (a.metadata!.creationTimestamp! < b.metadata!.creationTimestamp! ? -1 : 1));
}

/** Sets the image of the `nginx` container, as `kubectl set image` does (a strategic merge patch). */
export function setImage(c: Cluster, name: string, image: string): Promise<Deployment> {
  return c.deployments.patch(name, {
    type: 'strategic',
    body: { spec: { template: { spec: { containers: [{ name: 'nginx', image }] } } } },
  });
}

/** The image of a ReplicaSet's (or Deployment's) pod template. */
export const templateImage = (obj: ReplicaSet | Deployment): string =>
  obj.spec?.template?.spec?.containers[0]?.image ?? '';

/** The image of a pod's first container. */
export const podImage = (pod: Pod): string => pod.spec?.containers[0]?.image ?? '';
