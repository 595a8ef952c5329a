// The Deployment and ReplicaSet controllers running side by side against an
// in-process sandbox with a simulated node, on a fake clock: what
// kube-controller-manager does with the apps controllers, small enough for a
// test.
import type { Deployment, DeploymentStrategy, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { ReplicaSetController } from '@kcm-ts/replicaset';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { DeploymentController } from '../../src/index.js';

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A running pair of controllers on a sandbox. */
export interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  /** Events of the Deployment controller, as `type reason message`. */
  recorder: FakeRecorder;
  deployments: ResourceClient<Deployment>;
  replicaSets: ResourceClient<ReplicaSet>;
  pods: ResourceClient<Pod>;
  /** Moves the fake clock in steps of at most `stepMs`, letting I/O run after each. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /**
   * Calls `check` with the server's objects after every change committed to
   * Deployments, ReplicaSets or pods, synchronously: every state the API
   * server ever held, not samples. Returns the unsubscribe function.
   */
  observe(check: (world: World) => void): () => void;
  stop(): Promise<void>;
}

/** The server's Deployments, ReplicaSets and pods at one revision, by `namespace/name`. */
export interface World {
  deployments: Map<string, Deployment>;
  replicaSets: Map<string, ReplicaSet>;
  pods: Map<string, Pod>;
}

export interface HarnessOptions {
  podStartDelay?: number;
  podReadyDelay?: number;
  /** The granularity of {@link Harness.step}, in ms. Default 100. */
  stepMs?: number;
}

/** Starts a sandbox with one node, one informer factory, and both controllers. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 1,
    podStartDelay: opts.podStartDelay ?? 500,
    podReadyDelay: opts.podReadyDelay ?? 500,
  });
  const source: ResourceClientSource = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const deployments = sandbox.client<Deployment>('apps', 'deployments');
  const replicaSets = sandbox.client<ReplicaSet>('apps', 'replicasets');
  const pods = sandbox.client<Pod>('', 'pods');
  const recorder = new FakeRecorder();
  const dc = new DeploymentController({
    deployments: factory.deployments(),
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { deployments, replicaSets, pods },
    recorder,
    clock,
  });
  const rsc = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets, pods },
    clock,
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const running = Promise.all([dc.run(5, stop.signal), rsc.run(5, stop.signal)]);
  await settle();
  await clock.advance(100);
  await settle();
  const stepMs = opts.stepMs ?? 100;
  const h: Harness = {
    sandbox,
    clock,
    recorder,
    deployments: deployments.inNamespace('default'),
    replicaSets: replicaSets.inNamespace('default'),
    pods: pods.inNamespace('default'),
    async step(ms) {
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(Math.min(stepMs, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += stepMs) {
        if (await cond()) return;
        await h.step(stepMs);
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
      return sandbox.registry.storage.subscribe((e) => {
        const map = maps[e.storage];
        if (map === undefined) return;
        if (e.type === 'DELETED') map.delete(e.key);
        else map.set(e.key, e.object);
        check(world);
      });
    },
    async stop() {
      stop.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return h;
}

/** An nginx Deployment like the walkthrough's, with fast pod shutdown. */
export function nginx(
  name: string,
  replicas: number,
  extra: {
    image?: string;
    strategy?: DeploymentStrategy;
    revisionHistoryLimit?: number;
    progressDeadlineSeconds?: number;
  } = {},
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      ...(extra.strategy && { strategy: extra.strategy }),
      ...(extra.revisionHistoryLimit !== undefined && {
        revisionHistoryLimit: extra.revisionHistoryLimit,
      }),
      ...(extra.progressDeadlineSeconds !== undefined && {
        progressDeadlineSeconds: extra.progressDeadlineSeconds,
      }),
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'nginx', image: extra.image ?? 'nginx:1.27' }],
        },
      },
    },
  };
}

/** Sets the image of the first container, as `kubectl set image` does. */
export function setImage(h: Harness, name: string, image: string): Promise<Deployment> {
  return h.deployments.patch(name, {
    type: 'strategic',
    body: { spec: { template: { spec: { containers: [{ name: 'nginx', image }] } } } },
  });
}

/** The ReplicaSets a Deployment owns, oldest first. */
export async function ownedReplicaSets(h: Harness, d: Deployment): Promise<ReplicaSet[]> {
  const uid = (await h.deployments.get(d.metadata!.name!)).metadata?.uid;
  return (await h.replicaSets.list()).items
    .filter((rs) => rs.metadata?.ownerReferences?.some((r) => r.uid === uid))
    .sort((a, b) => (a.metadata!.creationTimestamp! < b.metadata!.creationTimestamp! ? -1 : 1));
}

/** True once the Deployment's status describes a finished rollout of its current spec. */
export async function rolledOut(h: Harness, name: string): Promise<boolean> {
  const d = await h.deployments.get(name);
  const s = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas
  );
}

/** Is the pod counted by the ReplicaSet controller: not terminating, not finished. */
export const isActive = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

/** Is the pod Ready. */
export const isReady = (p: Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
