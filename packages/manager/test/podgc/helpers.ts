// PodGC against an in-process sandbox on a fake clock: a fixture whose
// informer caches a test fills by hand (as Go's tests fill the informer
// stores) while the sandbox plays the API server, and a harness that runs
// the controller over started informers.
import type { Node, Pod, PodStatus } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import {
  FakeClock,
  type DeleteOptions,
  type GroupVersionResource,
  type KubeObject,
  type Patch,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type ResourceClientSource, type Store } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { PodGCController, type PodGCControllerOptions } from '../../src/podgc/gc-controller.js';
import { newPodGCMetrics, podGCMetrics } from '../../src/podgc/metrics.js';
import { memoryLogger, sandboxSource, until } from '../garbagecollector/helpers.js';

/** A request PodGC sent, as `verb resource/name`, with its patch or delete options. */
export interface Call {
  call: string;
  name: string;
  patch?: Patch;
  options?: DeleteOptions;
}

/**
 * Errors to answer requests with instead of the sandbox, keyed by verb and
 * resource (`get nodes`), each used once, oldest first.
 */
export type Failures = Map<string, Error[]>;

/**
 * `source`'s clients, logging pod status patches (`patch pods/x`), pod
 * deletes (`delete pods/x`) and node reads (`get nodes/x`) in `calls`, and
 * failing them as `failures` says.
 */
function recording(
  source: ResourceClientSource,
  calls: Call[],
  failures: Failures,
): ResourceClientSource {
  return {
    resource<T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { namespaced: boolean; kind: string },
    ): ResourceClient<T> {
      const log = (call: string, name: string, extra: Partial<Call> = {}) =>
        calls.push({ call: `${call} ${gvr.resource}/${name}`, name, ...extra });
      /** The next failure planned for `verb`, if any. */
      const failure = (verb: string): Promise<never> | undefined => {
        const next = failures.get(`${verb} ${gvr.resource}`)?.shift();
        return next === undefined ? undefined : Promise.reject(next);
      };
      const wrap = (c: ResourceClient<T>): ResourceClient<T> => ({
        get namespace() {
          return c.namespace;
        },
        inNamespace: (ns) => wrap(c.inNamespace(ns)),
        list: (lo) => c.list(lo),
        watch: (lo) => c.watch(lo),
        get: (name, go) => {
          log('get', name);
          return failure('get') ?? c.get(name, go);
        },
        create: (obj, co) => c.create(obj, co),
        update: (obj, uo) => c.update(obj, uo),
        updateStatus: (obj, uo) => c.updateStatus(obj, uo),
        patch: (name, p, po) => c.patch(name, p, po),
        patchStatus: (name, p, po) => {
          log('patch', name, { patch: p });
          return failure('patch') ?? c.patchStatus(name, p, po);
        },
        delete: (name, d) => {
          log('delete', name, {
            options: d === undefined ? undefined : { ...d, signal: undefined },
          });
          return failure('delete') ?? c.delete(name, d);
        },
        deleteCollection: (d, lo) => c.deleteCollection(d, lo),
      });
      return wrap(source.resource<T>(gvr, o));
    },
  };
}

/** The value of one series of a counter in `registry`; 0 when it has none. */
export async function counterValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) =>
    Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want),
  );
  return hit?.value ?? 0;
}

/** What both the fixture and the harness offer. */
interface Common {
  readonly clock: FakeClock;
  readonly sandbox: Sandbox;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly registry: Registry;
  /** PodGC's requests, oldest first. */
  readonly calls: Call[];
  /** Add errors here to fail PodGC's next requests. */
  readonly failures: Failures;
  /** The sandbox's pods client in `default`, for the test's own requests (not logged). */
  readonly pods: ResourceClient<Pod>;
  /** The sandbox's nodes client, for the test's own requests (not logged). */
  readonly nodes: ResourceClient<Node>;
  /** The names of the pods PodGC deleted, sorted. */
  deleted(): string[];
  /** The names of the pods whose status PodGC patched, sorted. */
  patched(): string[];
  /** The names of the nodes PodGC read from the API server, sorted. */
  nodeGets(): string[];
  /** `pod_gc_collector_force_delete_pods_total{namespace,reason}`. */
  deletingPodsTotal(reason: string, namespace?: string): Promise<number>;
  /** `pod_gc_collector_force_delete_pod_errors_total{namespace,reason}`. */
  deletingPodsErrorTotal(reason: string, namespace?: string): Promise<number>;
  stop(): Promise<void>;
}

function common(
  clock: FakeClock,
  sandbox: Sandbox,
  calls: Call[],
  failures: Failures,
  registry: Registry,
  logger: ReturnType<typeof memoryLogger>,
  stop: () => Promise<void>,
): Common {
  const names = (verb: string) =>
    calls
      .filter((c) => c.call.startsWith(`${verb} `))
      .map((c) => c.name)
      .sort();
  return {
    clock,
    sandbox,
    logger,
    registry,
    calls,
    failures,
    pods: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    nodes: sandbox.client<Node>('', 'nodes'),
    deleted: () => names('delete'),
    patched: () => names('patch'),
    nodeGets: () => names('get'),
    deletingPodsTotal: (reason, namespace = 'default') =>
      counterValue(registry, podGCMetrics.deletingPodsTotal.name, { namespace, reason }),
    deletingPodsErrorTotal: (reason, namespace = 'default') =>
      counterValue(registry, podGCMetrics.deletingPodsErrorTotal.name, { namespace, reason }),
    stop,
  };
}

/** A fixture: PodGC over caches the test fills, and the sandbox as its API server. */
export interface GCFixture extends Common {
  readonly gcc: PodGCController;
  /** The pod informer's cache. */
  readonly podStore: Store<Pod>;
  /** The node informer's cache. */
  readonly nodeStore: Store<Node>;
  /** Creates `node` on the server only. */
  addClientNode(node: Node): Promise<void>;
}

/**
 * Makes a sandbox with `clientNodes`, and PodGC over informers that are
 * never started: their caches hold `informerNodes` and `pods`, as given.
 * Each pod is also created on the server (its name, namespace and node
 * only), and its cached copy carries the server's uid, so that PodGC's
 * patches and deletes find it there.
 */
export async function gcFixture(
  opts: {
    threshold?: number;
    clientNodes?: Node[];
    informerNodes?: Node[];
    pods?: Pod[];
  } & Partial<PodGCControllerOptions> = {},
): Promise<GCFixture> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const calls: Call[] = [];
  const failures: Failures = new Map();
  const registry = new Registry();
  const logger = memoryLogger();
  const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
  const podInformer = factory.pods();
  const nodeInformer = factory.nodes();
  const gcc = new PodGCController({
    kubeClient: recording(sandboxSource(sandbox), calls, failures),
    podInformer,
    nodeInformer,
    terminatedPodThreshold: opts.threshold ?? -1,
    metrics: newPodGCMetrics(registry),
    clock,
    logger,
    ...opts,
  });
  const base = common(clock, sandbox, calls, failures, registry, logger, () => sandbox.stop());
  const podStore = podInformer.informer().getStore();
  const nodeStore = nodeInformer.informer().getStore();
  for (const node of opts.clientNodes ?? []) await base.nodes.create(bareNode(node));
  for (const node of opts.informerNodes ?? []) nodeStore.add(node);
  for (const pod of opts.pods ?? []) {
    const ns = pod.metadata?.namespace ?? 'default';
    const stored = await sandbox
      .client<Pod>('', 'pods')
      .inNamespace(ns)
      .create({
        metadata: { name: pod.metadata?.name, namespace: ns },
        spec: {
          ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
          containers: [{ name: 'c', image: 'nginx' }],
        },
      });
    podStore.add({
      ...pod,
      metadata: {
        ...pod.metadata,
        namespace: ns,
        uid: stored.metadata?.uid,
        resourceVersion: stored.metadata?.resourceVersion,
      },
    });
  }
  return {
    ...base,
    gcc,
    podStore,
    nodeStore,
    async addClientNode(node) {
      await base.nodes.create(bareNode(node));
    },
  };
}

/** The node as a client creates it: name, labels and spec. */
function bareNode(node: Node): Node {
  return { metadata: { name: node.metadata?.name }, spec: node.spec ?? {} };
}

/** Go's `testutil.NewNode`: a node called `name`. */
export function newNode(name: string, extra: Partial<Node> = {}): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {}, ...extra };
}

/** Go's `makePod`: a pod in `default` on `nodeName` in `phase`. */
export function makePod(name: string, nodeName: string, phase?: PodStatus['phase']): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
    status: phase === undefined ? {} : { phase },
  };
}

/** A harness: PodGC running over started informers on a sandbox. */
export type PodGCHarness = Common & {
  /** Advances the clock in 500 ms hops until `done` holds. */
  until(done: () => boolean | Promise<boolean>, what: string): Promise<void>;
  /** True once the pod is gone from the server. */
  isGone(name: string): Promise<boolean>;
  /** True once a line of PodGC's log starts with `prefix`. */
  logged(prefix: string): boolean;
};

/**
 * Starts a sandbox (unless given one) and PodGC over it with a terminated
 * pod threshold of `threshold` (default: upstream's).
 */
export async function startPodGC(
  opts: {
    threshold?: number;
    sandbox?: Sandbox;
    clock?: FakeClock;
  } & Partial<PodGCControllerOptions> = {},
): Promise<PodGCHarness> {
  const clock = opts.clock ?? new FakeClock();
  const sandbox = opts.sandbox ?? (await startSandbox({ clock, insecureHttp: true }));
  const calls: Call[] = [];
  const failures: Failures = new Map();
  const registry = new Registry();
  const logger = memoryLogger();
  const factory = new SharedInformerFactory(sandboxSource(sandbox), 0, { clock });
  const controller = new PodGCController({
    kubeClient: recording(sandboxSource(sandbox), calls, failures),
    podInformer: factory.pods(),
    nodeInformer: factory.nodes(),
    ...(opts.threshold === undefined ? {} : { terminatedPodThreshold: opts.threshold }),
    metrics: newPodGCMetrics(registry),
    clock,
    logger,
    ...opts,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(abort.signal);
  let stopped = false;
  const base = common(clock, sandbox, calls, failures, registry, logger, async () => {
    if (stopped) return;
    stopped = true;
    abort.abort();
    await running;
    await factory.shutdown();
    if (opts.sandbox === undefined) await sandbox.stop();
  });
  return {
    ...base,
    until: (done, what) => until(clock, done, what, { step: 500, maxSteps: 400 }),
    async isGone(name) {
      return (await base.pods.list()).items.every((p) => p.metadata?.name !== name);
    },
    logged: (prefix) => logger.lines.some((l) => l.startsWith(prefix)),
  };
}
