// The node lifecycle and taint eviction controllers against an in-process
// sandbox without simulated nodes, on a fake clock: the tests write the
// Nodes, their Leases and the pods themselves, as Go's tests fill a fake
// clientset, and drive the controllers' passes by hand or run them.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import {
  FakeClock,
  FakeRecorder,
  formatMicroTime,
  formatTime,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { newNodeLifecycleMetrics } from '../../src/nodelifecycle/metrics.js';
import {
  NodeLifecycleController,
  type NodeLifecycleControllerOptions,
} from '../../src/nodelifecycle/node-lifecycle-controller.js';
import { newTaintEvictionMetrics } from '../../src/nodelifecycle/tainteviction/metrics.js';
import { TaintEvictionController } from '../../src/nodelifecycle/tainteviction/taint-eviction.js';
import { memoryLogger, sandboxSource, until } from '../garbagecollector/helpers.js';

/** A node's conditions as a healthy kubelet reports them at `time`. */
export function healthyConditions(time: string, ready: NodeCondition['status'] = 'True') {
  const c = (type: string, status: string, reason: string): NodeCondition => ({
    type,
    status,
    reason,
    message: reason,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  return [
    c('NetworkUnavailable', 'False', 'RouteCreated'),
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
    c('PIDPressure', 'False', 'KubeletHasSufficientPID'),
    c('Ready', ready, ready === 'True' ? 'KubeletReady' : 'KubeletNotReady'),
  ];
}

/** Common parts of both harnesses. */
interface Base {
  readonly clock: FakeClock;
  readonly sandbox: Sandbox;
  readonly recorder: FakeRecorder;
  readonly registry: Registry;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly nodes: ResourceClient<Node>;
  readonly pods: ResourceClient<Pod>;
  readonly leases: ResourceClient<Lease>;
  readonly factory: SharedInformerFactory;
  /** Advances the clock in `step` ms hops until `done` holds. */
  until(done: () => boolean | Promise<boolean>, what: string, step?: number): Promise<void>;
  /** Creates a node with `conditions` (none: it never reported), labels and taints. */
  createNode(
    name: string,
    opts?: {
      conditions?: NodeCondition[];
      labels?: Record<string, string>;
      taints?: Taint[];
      unschedulable?: boolean;
    },
  ): Promise<Node>;
  /** Writes the node's conditions, as its kubelet would. */
  setConditions(name: string, conditions: NodeCondition[]): Promise<Node>;
  /** Creates or renews the node's Lease at the clock's time. */
  renewLease(name: string): Promise<void>;
  /** Creates a pod bound to `nodeName`, Ready when `ready` is set. */
  createPod(
    name: string,
    nodeName: string,
    opts?: { tolerations?: Toleration[]; ready?: boolean },
  ): Promise<Pod>;
  /** Waits until the informers hold `check`'s state. */
  cached<T>(read: () => T | undefined, check: (v: T) => boolean, what: string): Promise<void>;
  stop(): Promise<void>;
}

async function base(clock = new FakeClock()): Promise<Base> {
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  const source = sandboxSource(sandbox);
  const nodes = sandbox.client<Node>('', 'nodes');
  const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
  const leases = sandbox
    .client<Lease>('coordination.k8s.io', 'leases')
    .inNamespace('kube-node-lease');
  const factory = new SharedInformerFactory(source, 0, { clock });
  const untilFn = (done: () => boolean | Promise<boolean>, what: string, step = 100) =>
    until(clock, done, what, { step, maxSteps: 2000 });
  return {
    clock,
    sandbox,
    recorder: new FakeRecorder(),
    registry: new Registry(),
    logger: memoryLogger(),
    nodes,
    pods,
    leases,
    factory,
    until: untilFn,
    async createNode(name, opts = {}) {
      const created = await nodes.create({
        metadata: { name, ...(opts.labels ? { labels: opts.labels } : {}) },
        spec: {
          ...(opts.taints ? { taints: opts.taints } : {}),
          ...(opts.unschedulable ? { unschedulable: true } : {}),
        },
      });
      if (opts.conditions === undefined) return created;
      return nodes.updateStatus({ ...created, status: { conditions: opts.conditions } });
    },
    async setConditions(name, conditions) {
      const node = await nodes.get(name);
      return nodes.updateStatus({ ...node, status: { ...node.status, conditions } });
    },
    async renewLease(name) {
      const renewTime = formatMicroTime(clock.now());
      try {
        const lease = await leases.get(name);
        await leases.update({ ...lease, spec: { ...lease.spec, renewTime } });
      } catch {
        await leases.create({
          metadata: { name },
          spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime },
        });
      }
    },
    async createPod(name, nodeName, opts = {}) {
      const pod = await pods.create({
        metadata: { name },
        spec: {
          nodeName,
          containers: [{ name: 'c', image: 'nginx' }],
          ...(opts.tolerations ? { tolerations: opts.tolerations } : {}),
        },
      });
      if (!opts.ready) return pod;
      const now = formatTime(clock.now());
      return pods.updateStatus({
        ...pod,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
        },
      });
    },
    async cached(read, check, what) {
      await untilFn(() => {
        const v = read();
        return v !== undefined && check(v);
      }, `the cache to hold ${what}`);
    },
    async stop() {
      await factory.shutdown();
      await sandbox.stop();
    },
  };
}

/** The node lifecycle controller over started informers; its passes run when a test calls them. */
export interface LifecycleHarness extends Base {
  readonly controller: NodeLifecycleController;
  /** The node as the controller's informer holds it. */
  cachedNode(name: string): Node | undefined;
}

export async function lifecycleHarness(
  opts: Partial<NodeLifecycleControllerOptions> = {},
): Promise<LifecycleHarness> {
  const b = await base();
  const controller = new NodeLifecycleController({
    kubeClient: sandboxSource(b.sandbox),
    leaseInformer: b.factory.leases(),
    podInformer: b.factory.pods(),
    nodeInformer: b.factory.nodes(),
    recorder: b.recorder,
    metrics: newNodeLifecycleMetrics(b.registry),
    clock: b.clock,
    random: () => 0,
    logger: b.logger,
    ...opts,
  });
  const abort = new AbortController();
  b.factory.start(abort.signal);
  const nodeInformer = b.factory.nodes().informer();
  await b.until(
    () =>
      nodeInformer.hasSynced() &&
      b.factory.pods().informer().hasSynced() &&
      b.factory.leases().informer().hasSynced(),
    'the informers to sync',
  );
  return {
    ...b,
    controller,
    cachedNode: (name) => b.factory.nodes().lister().tryGet(name),
    async stop() {
      abort.abort();
      await b.stop();
    },
  };
}

/** The taint eviction controller running over started informers. */
export interface EvictionHarness extends Base {
  readonly controller: TaintEvictionController;
  /** The pod on the server, if it is there. */
  serverPod(name: string): Promise<Pod | undefined>;
}

export async function evictionHarness(): Promise<EvictionHarness> {
  const b = await base();
  const controller = new TaintEvictionController({
    kubeClient: sandboxSource(b.sandbox),
    podInformer: b.factory.pods(),
    nodeInformer: b.factory.nodes(),
    recorder: b.recorder,
    metrics: newTaintEvictionMetrics(b.registry),
    clock: b.clock,
    logger: b.logger,
  });
  const abort = new AbortController();
  b.factory.start(abort.signal);
  const running = controller.run(abort.signal);
  return {
    ...b,
    controller,
    async serverPod(name) {
      return (await b.pods.list()).items.find((p) => p.metadata?.name === name);
    },
    async stop() {
      abort.abort();
      await running;
      await b.stop();
    },
  };
}
