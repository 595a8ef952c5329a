// The chapter's bench: kube-controller-manager's ReplicaSet controller (our
// port) against an in-process sandbox with one simulated node, on a fake
// clock, with hooks on its public surface that record what it does, step by
// step. Every example of the chapter but the kubectl experiment runs on it.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  type EventRecorder,
  type EventSubject,
  type GroupVersionResource,
  type KubeObject,
  type ListOptions,
  type ListerWatcher,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource } from '@kcm-ts/informer';
import { ReplicaSetController, concurrentRSSyncs } from '@kcm-ts/replicaset';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';

/** Who does something in a trace: the columns of the sync diagram. */
export type Lane = 'api' | 'informer' | 'queue' | 'worker';

/** One step of a trace: `from` did something to (or for) `to`, at `t` ms after the start. */
export interface Step {
  t: number;
  from: Lane;
  to: Lane;
  text: string;
}

/** One slow-start batch seen by the API server: the creates sent together, and how many were refused. */
export interface Batch {
  /** The sync that sent it (1 for the first key a worker took, and so on). */
  sync: number;
  /** When it started, in ms since the start. */
  t: number;
  size: number;
  failed: number;
}

/** Options of {@link startLab}. */
export interface LabOptions {
  /** Workers, as `--concurrent-replicaset-syncs`; default 5, kube-controller-manager's. */
  workers?: number;
  /** Simulated nodes that run pods; default 1. */
  nodes?: number;
  /** How long a pod takes to start, then to become ready, in ms; default 1000 each. */
  podStartDelay?: number;
  podReadyDelay?: number;
  /** How much later than the API server the controller's pod informer sees each change, in ms; default 0. */
  podWatchLag?: number;
  /** Take the expectations out: every sync may create and delete (for the double-create experiment). */
  ignoreExpectations?: boolean;
  /** The controller's burst limit; default 500, kube-controller-manager's. */
  burstReplicas?: number;
  /**
   * Refuses a pod create the controller sends, as an admission plugin would,
   * by resolving with the error; `pods` reads the pods the API server holds.
   */
  refuseCreate?: (pod: Pod, pods: ResourceClient<Pod>) => Promise<Error | undefined>;
  /** Record a step-by-step trace ({@link Lab.steps}); default false. */
  trace?: boolean;
}

/** A running lab: the sandbox, the controller and what was recorded. */
export interface Lab {
  clock: FakeClock;
  sandbox: Sandbox;
  controller: ReplicaSetController;
  /** Clients in `default` for the example's own writes (a user's kubectl). */
  replicaSets: ResourceClient<ReplicaSet>;
  pods: ResourceClient<Pod>;
  /** Every pod create the controller sent, refused ones included. */
  readonly creates: number;
  /** Every pod delete the controller sent. */
  readonly deletes: number;
  /** The slow-start batches of pod creates, in order. */
  readonly batches: Batch[];
  /** How many keys the workers have taken from the queue: the syncs so far. */
  readonly syncs: number;
  /** The events the controller recorded, as `Type Reason message`. */
  readonly events: string[];
  /** The trace, when asked for. */
  readonly steps: Step[];
  /** Milliseconds of fake time since the start. */
  elapsed(): number;
  /** A pod's name as the lab shows it: `web-#1` for the first pod of `web`, and so on. */
  alias(text: string): string;
  /** Moves the fake clock by `ms` in steps of 10 ms, letting the event loop run after each. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** The ReplicaSet as the API server holds it. */
  get(name: string): Promise<ReplicaSet>;
  /** Stops the controller, the informers and the sandbox. */
  stop(): Promise<void>;
}

/** A ReplicaSet of `replicas` pods labelled `app: <name>`, as a user writes it. */
export function replicaSet(name: string, replicas: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
}

/** Lets queued promise callbacks and in-process I/O run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

//#region lagging-watch
/**
 * A ListerWatcher whose watch hands each event on `lag` ms (of `clock`)
 * after the API server sent it, in order: an informer that lags the writes,
 * as one does on a busy cluster.
 */
export function laggingWatch<T>(
  inner: ListerWatcher<T>,
  clock: FakeClock,
  lag: number,
): ListerWatcher<T> {
  return {
    list: (opts?: ListOptions) => inner.list(opts),
    async watch(opts?: ListOptions): Promise<AsyncIterable<WatchEvent<T>>> {
      const events = await inner.watch(opts);
      const arrived: { at: number; event: WatchEvent<T> }[] = [];
      let ended = false;
      let wake: (() => void) | undefined;
      void (async () => {
        try {
          for await (const event of events) {
            arrived.push({ at: clock.now(), event });
            wake?.();
          }
        } finally {
          ended = true;
          wake?.();
        }
      })();
      return (async function* () {
        for (;;) {
          const next = arrived.shift();
          if (next === undefined) {
            if (ended) return;
            await new Promise<void>((resolve) => (wake = resolve));
            continue;
          }
          const wait = next.at + lag - clock.now();
          if (wait > 0) await clock.sleep(wait, opts?.signal);
          if (opts?.signal?.aborted) return;
          yield next.event;
        }
      })();
    },
  };
}
//#endregion lagging-watch

/** Wraps a client so that each call of a verb named in `hooks` goes through its hook. */
function intercept<T extends KubeObject>(
  inner: ResourceClient<T>,
  hooks: Partial<
    Record<string, (call: () => Promise<unknown>, args: unknown[]) => Promise<unknown>>
  >,
): ResourceClient<T> {
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        const hook = hooks[prop];
        const call = (...args: unknown[]) =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        return hook ? (...args: unknown[]) => hook(() => call(...args), args) : call;
      },
    });
  return wrap(inner);
}

/** A pod's state in a few words: `Pending on node-1, ready`. */
export function podState(pod: Pod): string {
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const where = pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ', unscheduled';
  const state = `${pod.status?.phase ?? 'Pending'}${where}${ready ? ', ready' : ''}`;
  return pod.metadata?.deletionTimestamp ? `${state}, terminating` : state;
}

/** Starts a sandbox, an informer factory and the controller with its workers. */
export async function startLab(opts: LabOptions = {}): Promise<Lab> {
  const clock = new FakeClock();
  const start = clock.now();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true, // in-process clients only: no certificates to make
    nodes: opts.nodes ?? 1,
    podStartDelay: opts.podStartDelay ?? 1000,
    podReadyDelay: opts.podReadyDelay ?? 1000,
  });

  const steps: Step[] = [];
  const events: string[] = [];
  const batches: Batch[] = [];
  const aliases = new Map<string, string>();
  const perOwner = new Map<string, number>();
  let creates = 0;
  let deletes = 0;
  let syncs = 0;
  const trace = (from: Lane, to: Lane, text: string): void => {
    if (opts.trace) steps.push({ t: clock.now() - start, from, to, text });
  };
  const alias = (text: string): string =>
    text.replace(/\b[a-z0-9-]+-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g, (n) => aliases.get(n) ?? n);
  const nameOf = (name: string): string => {
    if (!aliases.has(name)) {
      const owner = name.slice(0, -6);
      const n = (perOwner.get(owner) ?? 0) + 1;
      perOwner.set(owner, n);
      aliases.set(name, `${owner}-#${n}`);
    }
    return aliases.get(name) ?? name;
  };

  // The informers read through in-process clients; the pod watch may lag.
  const source: ResourceClientSource = {
    resource<T extends KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
      const client = sandbox.client<T>(gvr.group, gvr.resource);
      const lag = gvr.resource === 'pods' ? (opts.podWatchLag ?? 0) : 0;
      if (lag === 0) return client;
      const lw = laggingWatch(client, clock, lag);
      return new Proxy(client, {
        get: (t, prop) =>
          prop === 'watch' ? lw.watch.bind(lw) : (Reflect.get(t, prop) as unknown),
      });
    },
  };
  const factory = new SharedInformerFactory(source, 0, { clock });

  // The clients the controller writes through: every pod create is counted,
  // grouped into the batches that were in flight together, and may be refused.
  let inFlight = 0;
  let batch: Batch | undefined;
  let batchInSync = 0;
  const podWrites = intercept(sandbox.client<Pod>('', 'pods'), {
    create: async (call, args) => {
      creates++;
      if (inFlight++ === 0) {
        const previous = batches.at(-1);
        batchInSync = previous?.sync === syncs ? batchInSync + 1 : 1;
        batches.push((batch = { sync: syncs, t: clock.now() - start, size: 0, failed: 0 }));
      }
      const current = batch!;
      current.size++;
      trace('worker', 'api', `create pod (slow-start batch ${batchInSync})`);
      try {
        const refused = await opts.refuseCreate?.(args[0] as Pod, sandbox.client<Pod>('', 'pods'));
        if (refused) throw refused;
        const pod = (await call()) as Pod;
        trace('api', 'worker', `created ${nameOf(pod.metadata?.name ?? '')}`);
        return pod;
      } catch (err) {
        current.failed++;
        trace('api', 'worker', `refused: ${(err as Error).message}`);
        throw err;
      } finally {
        inFlight--;
      }
    },
    delete: async (call, args) => {
      deletes++;
      trace('worker', 'api', `delete pod ${alias(String(args[0]))}`);
      return call();
    },
    patch: async (call, args) => {
      const patch = args[1] as { type: string; body: unknown };
      const body = JSON.stringify(patch.body);
      trace('worker', 'api', `patch pod ${alias(String(args[0]))} (${patch.type}): ${body}`);
      return call();
    },
  });
  const rsWrites = intercept(sandbox.client<ReplicaSet>('apps', 'replicasets'), {
    updateStatus: async (call, args) => {
      const s = (args[0] as ReplicaSet).status;
      trace(
        'worker',
        'api',
        `update status: replicas ${s?.replicas ?? 0}, ready ${s?.readyReplicas ?? 0}, available ${s?.availableReplicas ?? 0}, observedGeneration ${s?.observedGeneration ?? 0}`,
      );
      return call();
    },
    get: async (call, args) => {
      trace('worker', 'api', `get replicaset ${String(args[0])} (fresh read before adopting)`);
      return call();
    },
  });

  const recorder: EventRecorder = {
    event(_object: EventSubject, type, reason, message) {
      events.push(`${type} ${reason} ${alias(message)}`);
      trace('worker', 'worker', `event ${type} ${reason}: ${alias(message)}`);
    },
    annotatedEvent(object, _annotations, type, reason, message) {
      this.event(object, type, reason, message);
    },
  };

  //#region controller
  const controller = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets: rsWrites, pods: podWrites },
    recorder,
    clock,
    ...(opts.burstReplicas !== undefined && { burstReplicas: opts.burstReplicas }),
  });
  //#endregion controller

  if (opts.ignoreExpectations) {
    //#region ignore-expectations
    // The one change: every sync may create and delete, whatever is still unseen.
    controller.expectations.satisfiedExpectations = () => true;
    //#endregion ignore-expectations
  }
  if (opts.trace) installTrace(controller, trace, (pod) => `${alias(pod.metadata?.name ?? '')}`);
  // Count the syncs: each key a worker takes is one.
  const get = controller.queue.get.bind(controller.queue);
  controller.queue.get = async () => {
    const got = await get();
    if (!got[1]) syncs++;
    return got;
  };

  const stop = new AbortController();
  factory.start(stop.signal);
  const running = controller.run(opts.workers ?? concurrentRSSyncs, stop.signal);
  await settle();

  const lab: Lab = {
    clock,
    sandbox,
    controller,
    replicaSets: sandbox.client<ReplicaSet>('apps', 'replicasets').inNamespace('default'),
    pods: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    get creates() {
      return creates;
    },
    get deletes() {
      return deletes;
    },
    batches,
    get syncs() {
      return syncs;
    },
    events,
    steps,
    elapsed: () => clock.now() - start,
    alias,
    async step(ms) {
      for (let t = 0; t < ms; t += 10) {
        await clock.advance(Math.min(10, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 60_000) {
      for (let t = 0; t <= maxMs; t += 10) {
        if (await cond()) return;
        await lab.step(10);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    get: (name) => lab.replicaSets.get(name),
    async stop() {
      stop.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return lab;
}

/**
 * Wraps the controller's handlers, queue, expectations and sync steps (all
 * public) so that each call leaves a step in the trace.
 */
function installTrace(
  c: ReplicaSetController,
  trace: (from: Lane, to: Lane, text: string) => void,
  name: (pod: Pod) => string,
): void {
  const key = (rs: ReplicaSet) => deletionHandlingMetaNamespaceKeyFunc(rs);
  const expecting = (rsKey: string): string => {
    const exp = c.expectations.getExpectations(rsKey);
    if (exp === undefined) return 'none recorded';
    const [add, del] = exp.getExpectations();
    return `expecting ${add} creation${add === 1 ? '' : 's'}, ${del} deletion${del === 1 ? '' : 's'}`;
  };
  const ownerKey = (pod: Pod): string => {
    const ref = pod.metadata?.ownerReferences?.find((r) => r.controller);
    return ref ? `${pod.metadata?.namespace}/${ref.name}` : '';
  };

  const addRS = c.addRS.bind(c);
  const updateRS = c.updateRS.bind(c);
  const addPod = c.addPod.bind(c);
  const updatePod = c.updatePod.bind(c);
  const deletePod = c.deletePod.bind(c);
  c.addRS = (rs) => {
    trace('api', 'informer', `ADDED replicaset ${rs.metadata?.name}`);
    trace('informer', 'queue', `addRS: add ${key(rs)}`);
    addRS(rs);
  };
  c.updateRS = (oldRS, rs) => {
    trace('api', 'informer', `MODIFIED replicaset ${rs.metadata?.name}`);
    trace('informer', 'queue', `updateRS: add ${key(rs)}`);
    updateRS(oldRS, rs);
  };
  c.addPod = (pod) => {
    trace('api', 'informer', `ADDED pod ${name(pod)}`);
    addPod(pod);
    trace(
      'informer',
      'queue',
      `addPod: creationObserved, add ${ownerKey(pod)} (${expecting(ownerKey(pod))})`,
    );
  };
  c.updatePod = (oldPod, pod) => {
    if (podState(oldPod) !== podState(pod)) {
      trace('api', 'informer', `MODIFIED pod ${name(pod)}: ${podState(pod)}`);
      trace('informer', 'queue', `updatePod: add ${ownerKey(pod)}`);
    }
    updatePod(oldPod, pod);
  };
  c.deletePod = (obj) => {
    const pod = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
    if (pod) trace('informer', 'queue', `deletePod: deletionObserved, add ${ownerKey(pod)}`);
    deletePod(obj);
  };

  const queue = c.queue;
  const get = queue.get.bind(queue);
  const done = queue.done.bind(queue);
  queue.get = async () => {
    const got = await get();
    if (!got[1]) trace('queue', 'worker', `get ${got[0]}: syncReplicaSet`);
    return got;
  };
  queue.done = (k) => {
    trace('worker', 'queue', `done ${k}`);
    done(k);
  };

  const exp = c.expectations;
  const satisfied = exp.satisfiedExpectations.bind(exp);
  const expectCreations = exp.expectCreations.bind(exp);
  exp.satisfiedExpectations = (k) => {
    const ok = satisfied(k);
    trace('worker', 'worker', `expectations satisfied? ${ok ? 'yes' : 'no'} (${expecting(k)})`);
    return ok;
  };
  exp.expectCreations = (k, n) => {
    expectCreations(k, n);
    trace('worker', 'worker', `expectCreations(${n}) before any request`);
  };

  const claimPods = c.claimPods.bind(c);
  const manageReplicas = c.manageReplicas.bind(c);
  c.claimPods = async (rs, selector, pods) => {
    const claimed = await claimPods(rs, selector, pods);
    trace(
      'worker',
      'informer',
      `list pods from the cache: ${pods.length} active; claimPods: ${claimed.length} owned`,
    );
    return claimed;
  };
  c.manageReplicas = async (pods, rs) => {
    trace('worker', 'worker', `manageReplicas: ${pods.length} of ${rs.spec?.replicas ?? 1} pods`);
    return manageReplicas(pods, rs);
  };
}

const seconds = (t: number): string => `t=${(t / 1000).toFixed(3)}s`;

/**
 * A trace of one ReplicaSet, one line per sync (what it saw, what it sent)
 * and one per change the informer delivered; a change that arrives during a
 * sync is shown after it. Syncs are numbered from `first`.
 */
export function summarize(steps: readonly Step[], first = 1): string[] {
  const out: string[] = [];
  interface Sync {
    t: number;
    said: string[];
    creates: number;
    refused: number;
    deletes: number;
    status: string;
    heard: string[];
  }
  let sync: Sync | undefined;
  let n = first - 1;
  const plural = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
  for (const s of steps) {
    if (s.from === 'queue' && s.to === 'worker') {
      n++;
      sync = { t: s.t, said: [], creates: 0, refused: 0, deletes: 0, status: '', heard: [] };
    } else if (s.from === 'api' && s.to === 'informer') {
      const line = `${seconds(s.t)}  informer: ${s.text}`;
      if (sync) sync.heard.push(line);
      else out.push(line);
    } else if (sync === undefined) {
      continue;
    } else if (s.text.startsWith('expectations satisfied? no')) {
      sync.said.push(`waits (${s.text.slice(s.text.indexOf('(') + 1, -1)})`);
    } else if (s.text.startsWith('manageReplicas: ')) {
      sync.said.push(`sees ${s.text.slice('manageReplicas: '.length)}`);
    } else if (s.text.startsWith('create pod')) {
      sync.creates++;
    } else if (s.text.startsWith('refused')) {
      sync.refused++;
    } else if (s.text.startsWith('delete pod')) {
      sync.deletes++;
    } else if (s.text.startsWith('update status: ')) {
      sync.status = s.text.slice('update '.length);
    } else if (s.from === 'worker' && s.to === 'queue') {
      const sent = [
        sync.creates > 0 && plural(sync.creates, 'create'),
        sync.refused > 0 && `${sync.refused} refused`,
        sync.deletes > 0 && plural(sync.deletes, 'delete'),
        sync.status,
      ].filter(Boolean);
      const what = [...sync.said, sent.length > 0 ? `writes ${sent.join(', ')}` : 'writes nothing'];
      out.push(`${seconds(sync.t)}  sync ${n}: ${what.join('; ')}`, ...sync.heard);
      sync = undefined;
    }
  }
  return out;
}
