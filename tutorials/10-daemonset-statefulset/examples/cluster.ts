// The small cluster every example of chapter 10 runs on: the sandbox API
// server with three simulated nodes on a fake clock (node-1 is the control
// plane, tainted NoSchedule as in kind; node-2 and node-3 are workers), its
// scheduler, kubelets and the `standard` StorageClass, and the two
// controllers of the chapter started the way kube-controller-manager's
// `startDaemonSetController` and `startStatefulSetController` start them:
// the informers of one shared factory, the clients to write through, a
// recorder, then the workers. A rollout that takes a minute takes
// milliseconds, and prints the same transcript every time.
import { setMaxListeners } from 'node:events';
import type { ControllerRevision, DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type {
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
} from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  type EventRecorder,
  type EventSubject,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { DaemonSetsController, concurrentDaemonSetSyncs } from '@kcm-ts/daemonset';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { StatefulSetController, concurrentStatefulSetSyncs } from '@kcm-ts/statefulset';

/** One change the API server committed to an object the examples follow. */
export interface Change {
  /** ms since the timer started. */
  t: number;
  kind: 'Pod' | 'DaemonSet' | 'StatefulSet' | 'ControllerRevision' | 'PVC' | 'PV';
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  prev: KubeObject | undefined;
}

/** A running cluster; every namespaced client works in `default`. */
export interface Cluster {
  sandbox: Sandbox;
  clock: FakeClock;
  daemonSets: ResourceClient<DaemonSet>;
  statefulSets: ResourceClient<StatefulSet>;
  revisions: ResourceClient<ControllerRevision>;
  pods: ResourceClient<Pod>;
  claims: ResourceClient<PersistentVolumeClaim>;
  volumes: ResourceClient<PersistentVolume>;
  nodes: ResourceClient<Node>;
  /** The events the controllers recorded since the timer started, as `t= 1.0s  DaemonSet agent  Normal SuccessfulCreate Created pod: agent-xxxxx`. */
  events: string[];
  /** Every change since the timer started, in commit order. */
  changes: Change[];
  /** Seconds since the timer started, as `t= 1.0s`. */
  at(t?: number): string;
  /** ms since the timer started. */
  now(): number;
  /** Waits for the next whole second, then counts time from there and forgets what was seen so far. */
  startTimer(): Promise<void>;
  /** Moves the fake clock `ms` forward, 100 ms at a time, letting everything run. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The name with a generated suffix shown as xxxxx. */
  mask(name: string | undefined): string;
  stop(): Promise<void>;
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Which controllers to start; default both. */
  controllers?: readonly ('daemonset' | 'statefulset')[];
}

const kinds: Record<string, Change['kind']> = {
  pods: 'Pod',
  'daemonsets.apps': 'DaemonSet',
  'statefulsets.apps': 'StatefulSet',
  'controllerrevisions.apps': 'ControllerRevision',
  persistentvolumeclaims: 'PVC',
  persistentvolumes: 'PV',
};

/** Starts the sandbox with three nodes and the chapter's controllers. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const which = opts.controllers ?? ['daemonset', 'statefulset'];
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 3 });
  let start = clock.now();
  // The time since the timer started, on the 100 ms grid the clock steps
  // on: while one step runs, timers fire at the deadlines between (some of
  // them jittered), so what happens during a step counts at its end.
  const elapsed = (): number => Math.ceil((clock.now() - start) / 100) * 100;
  const at = (t = elapsed()): string => `t=${(t / 1000).toFixed(1).padStart(5)}s`;
  // Generated names (pods of a DaemonSet, volumes) seen so far, to mask their random suffixes.
  const generated = new Map<string, string>();
  const mask = (name: string | undefined): string => generated.get(name ?? '') ?? name ?? '';
  const maskAll = (text: string): string =>
    text.replace(/[a-z0-9]([-a-z0-9]*[a-z0-9])?/g, (w) => generated.get(w) ?? w);
  const events: string[] = [];
  const changes: Change[] = [];
  const unsubscribe = sandbox.registry.storage.subscribe((e) => {
    const kind = kinds[e.storage];
    if (kind === undefined) return;
    const meta = e.object.metadata;
    const suffix = meta?.name?.slice(meta.generateName?.length ?? 0);
    if (meta?.generateName && meta.name && /^[a-z0-9]{5}$/.test(suffix ?? '')) {
      generated.set(meta.name, `${meta.generateName}xxxxx`);
    }
    if (kind === 'PV' && meta?.name && !generated.has(meta.name)) {
      generated.set(meta.name, meta.name.replace(/^pvc-.*/, 'pvc-xxxxx'));
    }
    changes.push({ t: elapsed(), kind, type: e.type, object: e.object, prev: e.prev });
  });

  // The events the controllers record, printed with the time and object.
  const recorder: EventRecorder = {
    event(object: EventSubject, type, reason, message) {
      const ref = object as { name?: string; metadata?: { name?: string } };
      const name = ref.metadata?.name ?? ref.name;
      const what = `${object.kind ?? ''} ${name ?? ''}`;
      events.push(`${at()}  ${what}  ${type} ${reason} ${maskAll(message)}`);
    },
    annotatedEvent(object, _annotations, type, reason, message) {
      recorder.event(object, type, reason, message);
    },
  };

  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const abort = new AbortController();
  // Every request of a sync listens to this signal.
  setMaxListeners(0, abort.signal);
  const running: Promise<void>[] = [];

  //#region start-controllers
  // startDaemonSetController and startStatefulSetController: the shared
  // informers of one factory, the clients to write through, the recorder.
  const factory = new SharedInformerFactory(source, 0, { clock });
  const daemonSets = new DaemonSetsController({
    daemonSets: factory.daemonSets(),
    controllerRevisions: factory.controllerRevisions(),
    pods: factory.pods(),
    nodes: factory.nodes(),
    client: {
      daemonSets: sandbox.client<DaemonSet>('apps', 'daemonsets'),
      controllerRevisions: sandbox.client<ControllerRevision>('apps', 'controllerrevisions'),
      pods: sandbox.client<Pod>('', 'pods'),
    },
    recorder,
    clock,
  });
  const statefulSets = new StatefulSetController({
    pods: factory.pods(),
    statefulSets: factory.statefulSets(),
    persistentVolumeClaims: factory.persistentVolumeClaims(),
    controllerRevisions: factory.controllerRevisions(),
    client: {
      statefulSets: sandbox.client<StatefulSet>('apps', 'statefulsets'),
      pods: sandbox.client<Pod>('', 'pods'),
      persistentVolumeClaims: sandbox.client<PersistentVolumeClaim>('', 'persistentvolumeclaims'),
      controllerRevisions: sandbox.client<ControllerRevision>('apps', 'controllerrevisions'),
    },
    recorder,
    clock,
  });
  factory.start(abort.signal); // after every controller has asked for its informers
  if (which.includes('daemonset')) {
    running.push(daemonSets.run(concurrentDaemonSetSyncs, abort.signal)); // 2 workers
  }
  if (which.includes('statefulset')) {
    running.push(statefulSets.run(concurrentStatefulSetSyncs, abort.signal)); // 5 workers
  }
  //#endregion start-controllers

  const settle = async (): Promise<void> => {
    for (let i = 0; i < 4; i++) await new Promise<void>((r) => setImmediate(r));
  };
  const step = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 100) {
      await clock.advance(Math.min(100, ms - t));
      await settle();
    }
  };
  await settle();
  await step(100);

  const cluster: Cluster = {
    sandbox,
    clock,
    daemonSets: sandbox.client<DaemonSet>('apps', 'daemonsets').inNamespace('default'),
    statefulSets: sandbox.client<StatefulSet>('apps', 'statefulsets').inNamespace('default'),
    revisions: sandbox
      .client<ControllerRevision>('apps', 'controllerrevisions')
      .inNamespace('default'),
    pods: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    claims: sandbox
      .client<PersistentVolumeClaim>('', 'persistentvolumeclaims')
      .inNamespace('default'),
    volumes: sandbox.client<PersistentVolume>('', 'persistentvolumes'),
    nodes: sandbox.client<Node>('', 'nodes'),
    events,
    changes,
    at,
    now: elapsed,
    async startTimer() {
      const rest = clock.now() % 1000;
      if (rest !== 0) await step(1000 - rest);
      start = clock.now();
      events.length = 0;
      changes.length = 0;
    },
    step,
    async until(cond, maxMs = 300_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await step(100);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    mask,
    async stop() {
      unsubscribe();
      abort.abort();
      await Promise.all(running);
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return cluster;
}

/** True when the pod's Ready condition is True. */
export const isReady = (p: Pod | undefined): boolean =>
  (p?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Not being deleted. */
export const isLive = (o: KubeObject): boolean => !o.metadata?.deletionTimestamp;

/** The node a pod runs on, or the node its required node affinity pins it to. */
export function nodeOf(p: Pod): string {
  if (p.spec?.nodeName) return p.spec.nodeName;
  const terms =
    p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  return terms[0]?.matchFields?.[0]?.values?.[0] ?? '?';
}
