// The node lifecycle controller: Go's pkg/controller/nodelifecycle/
// node_lifecycle_controller.go (Controller, NewNodeLifecycleController, Run,
// doNodeProcessingPassWorker, doNoScheduleTaintingPass,
// doNoExecuteTaintingPass, monitorNodeHealth, processTaintBaseEviction,
// isNodeExcludedFromDisruptionChecks, tryUpdateNodeHealth, handleDisruption,
// podUpdated, doPodProcessingWorker, processPod, setLimiterInZone,
// classifyNodes, HealthyQPSFunc, ReducedQPSFunc, addPodEvictorForNewZone,
// markNodeForTainting, markNodeAsReachable, ComputeZoneState,
// reconcileNodeLabels), as it is since the taint eviction controller runs
// on its own (SeparateTaintEvictionController, GA in 1.34). The defaults
// are pkg/controller/nodelifecycle/config/v1alpha1/defaults.go's and
// cmd/kube-controller-manager/app/options' (the grace period is 50 s since
// Kubernetes 1.32).
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, NodeCondition, NodeStatus, Pod, Taint } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isDeletedFinalStateUnknown,
  noopEventRecorder,
  noopLogger,
  realClock,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newQueue,
  newRateLimitingQueue,
  parallelizeUntil,
  type Queue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import { noopNodeLifecycleMetrics, type NodeLifecycleMetrics } from './metrics.js';
import {
  addNodeNameIndexer,
  addOrUpdateLabelsOnNode,
  getNodeCondition,
  getZoneKey,
  markPodsNotReady,
  podsAssignedToNode,
  recordNodeEvent,
  recordNodeStatusChange,
  removeTaintOffNode,
  swapNodeControllerTaint,
  taintExists,
  taintNodeDiskPressure,
  taintNodeMemoryPressure,
  taintNodeNetworkUnavailable,
  taintNodeNotReady,
  taintNodePIDPressure,
  taintNodeUnreachable,
  taintNodeUnschedulable,
  taintSetDiff,
  taintSetFilter,
  type NodeWriter,
} from './node-controller-utils.js';
import {
  RateLimitedTimedQueue,
  evictionRateLimiterBurst,
  newTokenBucketRateLimiter,
  nodeEvictionPeriod,
  nodeHealthUpdateRetry,
  type TimedValue,
} from './rate-limited-queue.js';

/**
 * The NoExecute taint of a node whose kubelet stopped reporting (Ready
 * `Unknown`). Go's `UnreachableTaintTemplate`.
 *
 * @category Node lifecycle controller
 */
export const unreachableTaintTemplate: Readonly<Taint> = Object.freeze({
  key: taintNodeUnreachable,
  effect: 'NoExecute',
});

/**
 * The NoExecute taint of a node that reports itself not ready (Ready
 * `False`). Go's `NotReadyTaintTemplate`.
 *
 * @category Node lifecycle controller
 */
export const notReadyTaintTemplate: Readonly<Taint> = Object.freeze({
  key: taintNodeNotReady,
  effect: 'NoExecute',
});

/** Condition type → condition status → the NoSchedule taint it calls for. Go's `nodeConditionToTaintKeyStatusMap`. */
const nodeConditionToTaintKeyStatusMap: Readonly<Record<string, Readonly<Record<string, string>>>> =
  {
    Ready: { False: taintNodeNotReady, Unknown: taintNodeUnreachable },
    MemoryPressure: { True: taintNodeMemoryPressure },
    DiskPressure: { True: taintNodeDiskPressure },
    NetworkUnavailable: { True: taintNodeNetworkUnavailable },
    PIDPressure: { True: taintNodePIDPressure },
  };

/** The taint keys that stand for a node condition. Go's `taintKeyToNodeConditionMap`. */
const taintKeyToNodeCondition: ReadonlySet<string> = new Set([
  taintNodeNotReady,
  taintNodeUnreachable,
  taintNodeNetworkUnavailable,
  taintNodeMemoryPressure,
  taintNodeDiskPressure,
  taintNodePIDPressure,
]);

/**
 * The state of a zone: `Initial` until it is first seen, then `Normal`,
 * `PartialDisruption` or `FullDisruption`. Go's `ZoneState`.
 *
 * @category Node lifecycle controller
 */
export type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/** How long to wait between tries of a node's health update, in ms. Go's `retrySleepTime`. */
const retrySleepTime = 20;
/** Workers of the pod queue. Go's `podUpdateWorkerSize`. */
const podUpdateWorkerSize = 4;
/** Workers of the node queue, and of the health pass. Go's `nodeUpdateWorkerSize`. */
const nodeUpdateWorkerSize = 8;

/** A label that leaves a node out of the zone's disruption count. Go's `labelNodeDisruptionExclusion`. */
const labelNodeDisruptionExclusion = 'node.kubernetes.io/exclude-disruption';

/**
 * Node labels kept in step: the beta OS and architecture labels follow the
 * stable ones, and are added when missing. Go's `labelReconcileInfo`.
 */
const labelReconcileInfo = [
  { primaryKey: 'kubernetes.io/os', secondaryKey: 'beta.kubernetes.io/os', ensureSecondary: true },
  {
    primaryKey: 'kubernetes.io/arch',
    secondaryKey: 'beta.kubernetes.io/arch',
    ensureSecondary: true,
  },
] as const;

/**
 * kube-controller-manager's `--node-monitor-period`: how often node health
 * is checked, in ms (5 s).
 *
 * @category Node lifecycle controller
 */
export const defaultNodeMonitorPeriod = 5_000;
/**
 * `--node-monitor-grace-period`: how long a node may go without a status
 * heartbeat or Lease renewal before it is marked `Unknown`, in ms (50 s
 * since Kubernetes 1.32).
 *
 * @category Node lifecycle controller
 */
export const defaultNodeMonitorGracePeriod = 50_000;
/**
 * `--node-startup-grace-period`: the grace period of a node that never
 * reported a Ready condition, in ms (60 s).
 *
 * @category Node lifecycle controller
 */
export const defaultNodeStartupGracePeriod = 60_000;
/**
 * `--node-eviction-rate`: nodes tainted for eviction per second in a
 * healthy zone (0.1).
 *
 * @category Node lifecycle controller
 */
export const defaultNodeEvictionRate = 0.1;
/**
 * `--secondary-node-eviction-rate`: the rate in a partly disrupted zone of a
 * large cluster (0.01).
 *
 * @category Node lifecycle controller
 */
export const defaultSecondaryNodeEvictionRate = 0.01;
/**
 * `--large-cluster-size-threshold`: more nodes than this in a zone make it
 * large (50).
 *
 * @category Node lifecycle controller
 */
export const defaultLargeClusterSizeThreshold = 50;
/**
 * `--unhealthy-zone-threshold`: the share of not-ready nodes (at least 3)
 * that makes a zone partly disrupted (0.55).
 *
 * @category Node lifecycle controller
 */
export const defaultUnhealthyZoneThreshold = 0.55;

/** What the controller last saw of a node, with the local times it saw it at. Go's `nodeHealthData`. */
interface NodeHealthData {
  /** When a heartbeat (status or Lease) was last seen, in ms. */
  probeTimestamp: number;
  /** When the Ready condition was last seen to change, in ms. */
  readyTransitionTimestamp: number;
  status: NodeStatus | undefined;
  lease?: Lease | undefined;
}

function copyHealth(h: NodeHealthData | undefined): NodeHealthData | undefined {
  return h === undefined ? undefined : structuredClone(h);
}

/** Go's `metav1.Time` of a wire timestamp, in ms (0 for none: Go's zero time compares the same way here). */
function timeOf(t: string | undefined): number {
  const ms = t === undefined ? NaN : Date.parse(t);
  return Number.isNaN(ms) ? 0 : ms;
}

function sameCondition(a: NodeCondition | undefined, b: NodeCondition | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    (a.lastHeartbeatTime ?? '') === (b.lastHeartbeatTime ?? '') &&
    (a.lastTransitionTime ?? '') === (b.lastTransitionTime ?? '')
  );
}

/**
 * What a {@link NodeLifecycleController} is made from: the arguments of
 * Go's `NewNodeLifecycleController`, plus the injected recorder, metrics,
 * clock and logger. Durations are milliseconds.
 *
 * @category Node lifecycle controller
 */
export interface NodeLifecycleControllerOptions {
  /** The name it logs under. Default `node-lifecycle-controller`. */
  controllerName?: string;
  /** Writes node status, taints and labels, and pod status. */
  kubeClient: ResourceClientSource;
  /** The shared Lease informer (the kubelets' heartbeats in `kube-node-lease`). */
  leaseInformer: ResourceInformer<Lease>;
  /** The shared pod informer. */
  podInformer: ResourceInformer<Pod>;
  /** The shared node informer. */
  nodeInformer: ResourceInformer<Node>;
  /** The shared DaemonSet informer, waited on before the first pass, as upstream does. */
  daemonSetInformer?: ResourceInformer<DaemonSet>;
  /** Default {@link defaultNodeMonitorPeriod}. */
  nodeMonitorPeriod?: number;
  /** Default {@link defaultNodeStartupGracePeriod}. */
  nodeStartupGracePeriod?: number;
  /** Default {@link defaultNodeMonitorGracePeriod}. */
  nodeMonitorGracePeriod?: number;
  /** Default {@link defaultNodeEvictionRate}. */
  evictionLimiterQPS?: number;
  /** Default {@link defaultSecondaryNodeEvictionRate}. */
  secondaryEvictionLimiterQPS?: number;
  /** Default {@link defaultLargeClusterSizeThreshold}. */
  largeClusterThreshold?: number;
  /** Default {@link defaultUnhealthyZoneThreshold}. */
  unhealthyZoneThreshold?: number;
  /** Records events as `node-controller`. Default: none. */
  recorder?: EventRecorder;
  /** Default: nowhere. */
  metrics?: NodeLifecycleMetrics;
  /** Default: the real clock. */
  clock?: Clock;
  /** The jitter of retries. Default `Math.random`. */
  random?: () => number;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's node lifecycle controller. Every
 * `nodeMonitorPeriod` it compares each node's heartbeats (the Ready
 * condition's `lastHeartbeatTime` and the node's Lease in
 * `kube-node-lease`) with the grace period; a node silent for longer gets
 * its Ready, MemoryPressure, DiskPressure and PIDPressure conditions set to
 * `Unknown` (`NodeStatusUnknown`, "Kubelet stopped posting node status."),
 * a `NodeNotReady` event, and its pods' Ready conditions set to `False`.
 * A node that is not ready is queued, per zone and at the eviction rate, for
 * the `node.kubernetes.io/unreachable` (Ready `Unknown`) or
 * `node.kubernetes.io/not-ready` (Ready `False`) NoExecute taint, which the
 * taint eviction controller acts on; both come off when the node is Ready
 * again. Every node also carries NoSchedule taints that mirror its
 * conditions and `spec.unschedulable`. When every node of every zone is
 * down, the controller assumes the problem is its own (or the network's)
 * and taints nothing. Go's `nodelifecycle.Controller`.
 *
 * @category Node lifecycle controller
 */
export class NodeLifecycleController {
  readonly #name: string;
  readonly #nodes: ResourceClient<Node>;
  readonly #pods: ResourceClient<Pod>;
  readonly #leaseInformer: ResourceInformer<Lease>;
  readonly #podInformer: ResourceInformer<Pod>;
  readonly #nodeInformer: ResourceInformer<Node>;
  readonly #daemonSetInformer: ResourceInformer<DaemonSet> | undefined;
  readonly #recorder: EventRecorder;
  readonly #metrics: NodeLifecycleMetrics;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #writer: NodeWriter;

  readonly #knownNodeSet = new Map<string, Node>();
  readonly #nodeHealthMap = new Map<string, NodeHealthData>();
  readonly #zoneNoExecuteTainter = new Map<string, RateLimitedTimedQueue>();
  readonly #nodesToRetry = new Set<string>();
  readonly #zoneStates = new Map<string, ZoneState>();

  readonly #nodeMonitorPeriod: number;
  readonly #nodeStartupGracePeriod: number;
  readonly #nodeMonitorGracePeriod: number;
  readonly #evictionLimiterQPS: number;
  readonly #secondaryEvictionLimiterQPS: number;
  readonly #largeClusterThreshold: number;
  readonly #unhealthyZoneThreshold: number;

  readonly #nodeUpdateQueue: Queue<string>;
  readonly #podUpdateQueue: RateLimitingQueue<string>;

  /** The rate of a partly disrupted zone. Go's `enterPartialDisruptionFunc`; tests replace it. */
  enterPartialDisruptionFunc: (nodeNum: number) => number;
  /** The rate of a fully disrupted zone. Go's `enterFullDisruptionFunc`; tests replace it. */
  enterFullDisruptionFunc: (nodeNum: number) => number;
  /** Go's `computeZoneStateFunc`; tests replace it. */
  computeZoneStateFunc: (conditions: (NodeCondition | undefined)[]) => [number, ZoneState];

  /** @param opts - see {@link NodeLifecycleControllerOptions} */
  constructor(opts: NodeLifecycleControllerOptions) {
    this.#name = opts.controllerName ?? 'node-lifecycle-controller';
    this.#clock = opts.clock ?? realClock;
    this.#random = opts.random ?? Math.random;
    this.#logger = opts.logger ?? noopLogger;
    this.#recorder = opts.recorder ?? noopEventRecorder;
    this.#metrics = opts.metrics ?? noopNodeLifecycleMetrics;
    this.#nodes = opts.kubeClient.resource<Node>(
      { group: '', version: 'v1', resource: 'nodes' },
      { namespaced: false, kind: 'Node' },
    );
    this.#pods = opts.kubeClient.resource<Pod>(
      { group: '', version: 'v1', resource: 'pods' },
      { namespaced: true, kind: 'Pod' },
    );
    this.#writer = { nodes: this.#nodes, clock: this.#clock, random: this.#random };
    this.#leaseInformer = opts.leaseInformer;
    this.#podInformer = opts.podInformer;
    this.#nodeInformer = opts.nodeInformer;
    this.#daemonSetInformer = opts.daemonSetInformer;
    this.#nodeMonitorPeriod = opts.nodeMonitorPeriod ?? defaultNodeMonitorPeriod;
    this.#nodeStartupGracePeriod = opts.nodeStartupGracePeriod ?? defaultNodeStartupGracePeriod;
    this.#nodeMonitorGracePeriod = opts.nodeMonitorGracePeriod ?? defaultNodeMonitorGracePeriod;
    this.#evictionLimiterQPS = opts.evictionLimiterQPS ?? defaultNodeEvictionRate;
    this.#secondaryEvictionLimiterQPS =
      opts.secondaryEvictionLimiterQPS ?? defaultSecondaryNodeEvictionRate;
    this.#largeClusterThreshold = opts.largeClusterThreshold ?? defaultLargeClusterSizeThreshold;
    this.#unhealthyZoneThreshold = opts.unhealthyZoneThreshold ?? defaultUnhealthyZoneThreshold;
    this.#nodeUpdateQueue = newQueue<string>({
      name: 'node_lifecycle_controller',
      clock: this.#clock,
    });
    this.#podUpdateQueue = newRateLimitingQueue<string>(
      defaultControllerRateLimiter<string>(this.#clock),
      { name: 'node_lifecycle_controller_pods', clock: this.#clock },
    );
    this.enterPartialDisruptionFunc = (n) => this.reducedQPSFunc(n);
    this.enterFullDisruptionFunc = (n) => this.healthyQPSFunc(n);
    this.computeZoneStateFunc = (c) => this.computeZoneState(c);

    const pods = opts.podInformer.informer();
    pods.addEventHandler({
      onAdd: (pod) => this.#podUpdated(undefined, pod),
      onUpdate: (old, pod) => this.#podUpdated(old, pod),
      // A deleted pod needs nothing (Go's podUpdated ignores it).
    });
    addNodeNameIndexer(pods);
    opts.nodeInformer.informer().addEventHandler({
      onAdd: (node) => this.#nodeUpdateQueue.add(node.metadata?.name ?? ''),
      onUpdate: (_old, node) => this.#nodeUpdateQueue.add(node.metadata?.name ?? ''),
      onDelete: (obj) => {
        const node = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (node !== undefined) this.#nodesToRetry.delete(node.metadata?.name ?? '');
      },
    });
    opts.leaseInformer.informer();
    opts.daemonSetInformer?.informer();
  }

  /**
   * Waits for the caches, then runs the node workers (NoSchedule taints
   * and labels), the pod workers (pods newly bound to a node that is not
   * ready), the NoExecute tainting pass every 100 ms and the health pass
   * every `nodeMonitorPeriod`, until `signal` aborts; resolves once all
   * have stopped. Go's `Run`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const loops: Promise<void>[] = [];
    const stop = () => {
      this.#nodeUpdateQueue.shutDown();
      this.#podUpdateQueue.shutDown();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      const leases = this.#leaseInformer.informer();
      const nodes = this.#nodeInformer.informer();
      const pods = this.#podInformer.informer();
      const daemonSets = this.#daemonSetInformer?.informer();
      const checks = [
        () => leases.hasSynced(),
        () => nodes.hasSynced(),
        () => pods.hasSynced(),
        ...(daemonSets ? [() => daemonSets.hasSynced()] : []),
      ];
      const synced = await waitForNamedCacheSync(this.#name, signal, checks, {
        clock: this.#clock,
        logger,
      });
      if (!synced) return;
      for (let i = 0; i < nodeUpdateWorkerSize; i++) loops.push(this.#nodeProcessingWorker());
      for (let i = 0; i < podUpdateWorkerSize; i++) loops.push(this.#podProcessingWorker());
      loops.push(
        this.#every(nodeEvictionPeriod, signal, () => this.doNoExecuteTaintingPass()),
        this.#every(this.#nodeMonitorPeriod, signal, async () => {
          try {
            await this.monitorNodeHealth(signal);
          } catch (err) {
            logger.error(err, 'Error monitoring node health');
          }
        }),
      );
      await Promise.all(loops);
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
      await Promise.allSettled(loops);
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  /** Runs `fn`, then waits `period` after it finished, until `signal` aborts. Go's `wait.UntilWithContext`. */
  async #every(period: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      await fn();
      await this.#clock.sleep(period, signal);
    }
  }

  /** Go's `doNodeProcessingPassWorker`. */
  async #nodeProcessingWorker(): Promise<void> {
    for (;;) {
      const [nodeName, quit] = await this.#nodeUpdateQueue.get();
      if (quit) return;
      try {
        try {
          await this.doNoScheduleTaintingPass(nodeName);
        } catch (err) {
          this.#logger.error(err, 'Failed to taint NoSchedule on node, requeue it', {
            node: nodeName,
          });
        }
        try {
          await this.reconcileNodeLabels(nodeName);
        } catch (err) {
          this.#logger.error(err, 'Failed to reconcile labels for node, requeue it', {
            node: nodeName,
          });
        }
      } finally {
        this.#nodeUpdateQueue.done(nodeName);
      }
    }
  }

  /**
   * Makes the node's NoSchedule condition taints (and the
   * `node.kubernetes.io/unschedulable` taint of a cordoned node) match its
   * conditions. Go's `doNoScheduleTaintingPass`.
   *
   * @throws Error when the taints could not be swapped
   */
  async doNoScheduleTaintingPass(nodeName: string): Promise<void> {
    const node = this.#nodeInformer.lister().tryGet(nodeName);
    if (node === undefined) return;
    const taints: Taint[] = [];
    for (const condition of node.status?.conditions ?? []) {
      const key = nodeConditionToTaintKeyStatusMap[condition.type]?.[condition.status];
      if (key !== undefined) taints.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable)
      taints.push({ key: taintNodeUnschedulable, effect: 'NoSchedule' });
    const nodeTaints = taintSetFilter(node.spec?.taints, (t) => {
      if (t.effect !== 'NoSchedule') return false;
      if (t.key === taintNodeUnschedulable) return true;
      return taintKeyToNodeCondition.has(t.key);
    });
    const [toAdd, toDel] = taintSetDiff(taints, nodeTaints);
    if (toAdd.length === 0 && toDel.length === 0) return;
    if (!(await swapNodeControllerTaint(this.#writer, this.#logger, toAdd, toDel, node))) {
      throw new Error(`failed to swap taints of node ${nodeName}`);
    }
  }

  /**
   * Works through each zone's taint queue at the zone's rate: a node still
   * not ready gets the NoExecute taint of its Ready status (`not-ready` for
   * `False`, `unreachable` for `Unknown`) in place of the other one. Go's
   * `doNoExecuteTaintingPass`.
   */
  async doNoExecuteTaintingPass(): Promise<void> {
    const logger = this.#logger;
    for (const [, queue] of [...this.#zoneNoExecuteTainter]) {
      await queue.try(async (value: TimedValue): Promise<[boolean, number?]> => {
        const node = this.#nodeInformer.lister().tryGet(value.value);
        if (node === undefined) {
          logger.info('Node no longer present in nodeLister', { node: value.value });
          return [true, 0];
        }
        const condition = getNodeCondition(node.status, 'Ready');
        if (condition === undefined) {
          logger.info('Failed to get NodeCondition from the node status', { node: value.value });
          return [false, 50];
        }
        let taintToAdd: Taint;
        let opposite: Taint;
        switch (condition.status) {
          case 'False':
            taintToAdd = { ...notReadyTaintTemplate };
            opposite = { ...unreachableTaintTemplate };
            break;
          case 'Unknown':
            taintToAdd = { ...unreachableTaintTemplate };
            opposite = { ...notReadyTaintTemplate };
            break;
          default:
            logger
              .v(4)
              .info("Node was in a taint queue, but it's ready now. Ignoring taint request", {
                node: value.value,
              });
            return [true, 0];
        }
        const result = await swapNodeControllerTaint(
          this.#writer,
          logger,
          [taintToAdd],
          [opposite],
          node,
        );
        if (result) this.#metrics.addEviction(getZoneKey(node), 1);
        return [result, 0];
      });
    }
  }

  /**
   * One health pass over every node in the cache: registers new nodes and
   * forgets deleted ones (with `RegisteredNode` and `RemovingNode` events),
   * updates each node's health (trying again with a fresh read when the
   * write fails), queues or swaps NoExecute taints, marks the pods of a node
   * that just stopped being ready not ready, and then adjusts the zones'
   * eviction rates. Go's `monitorNodeHealth`.
   *
   * @param signal - cuts the pass short
   */
  async monitorNodeHealth(signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    const logger = this.#logger;
    try {
      const nodes = this.#nodeInformer.lister().list();
      const [added, deleted, newZoneRepresentatives] = this.#classifyNodes(nodes);
      for (const node of newZoneRepresentatives) this.#addPodEvictorForNewZone(node);
      for (const node of added) {
        const name = node.metadata?.name ?? '';
        logger.v(1).info('Controller observed a new Node', { node: name });
        recordNodeEvent(
          this.#recorder,
          logger,
          name,
          node.metadata?.uid,
          'Normal',
          'RegisteredNode',
          `Registered Node ${name} in Controller`,
        );
        this.#knownNodeSet.set(name, node);
        this.#addPodEvictorForNewZone(node);
        try {
          await this.#markNodeAsReachable(node);
        } catch {
          // Logged; the next pass tries again.
        }
      }
      for (const node of deleted) {
        const name = node.metadata?.name ?? '';
        logger.v(1).info('Controller observed a Node deletion', { node: name });
        recordNodeEvent(
          this.#recorder,
          logger,
          name,
          node.metadata?.uid,
          'Normal',
          'RemovingNode',
          `Removing Node ${name} from Controller`,
        );
        this.#knownNodeSet.delete(name);
      }

      const zoneToNodeConditions = new Map<string, (NodeCondition | undefined)[]>();
      await parallelizeUntil(signal, nodeUpdateWorkerSize, nodes.length, (piece) =>
        this.#updateNode(nodes[piece]!, zoneToNodeConditions, signal),
      );
      await this.#handleDisruption(zoneToNodeConditions, nodes);
    } finally {
      this.#metrics.observeAllNodesHealthUpdate(this.#clock.since(start) / 1000);
    }
  }

  /** The health of one node, as monitorNodeHealth's `updateNodeFunc`. */
  async #updateNode(
    original: Node,
    zoneToNodeConditions: Map<string, (NodeCondition | undefined)[]>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const start = this.#clock.now();
    const logger = this.#logger;
    try {
      let node = structuredClone(original);
      const name = node.metadata?.name ?? '';
      let observedReadyCondition: NodeCondition | undefined;
      let currentReadyCondition: NodeCondition | undefined;
      // Go's wait.PollImmediate(retrySleepTime, retrySleepTime*NodeHealthUpdateRetry).
      for (let attempt = 0; ; attempt++) {
        try {
          [, observedReadyCondition, currentReadyCondition] = await this.#tryUpdateNodeHealth(node);
          break;
        } catch {
          // A fresh read, then another try.
        }
        try {
          node = await this.#nodes.get(name, { signal });
        } catch (err) {
          logger.error(
            undefined,
            'Failed while getting a Node to retry updating node health. Probably Node was deleted',
            { node: name },
          );
          logger.error(
            err,
            'Update health of Node from Controller error, Skipping - no pods will be evicted',
            { node: name },
          );
          return;
        }
        if (attempt + 1 >= nodeHealthUpdateRetry || signal?.aborted) {
          logger.error(
            new Error('timed out waiting for the condition'),
            'Update health of Node from Controller error, Skipping - no pods will be evicted',
            { node: name },
          );
          return;
        }
        await this.#clock.sleep(retrySleepTime, signal);
      }

      if (!isNodeExcludedFromDisruptionChecks(node)) {
        const zone = getZoneKey(node);
        const list = zoneToNodeConditions.get(zone) ?? [];
        list.push(currentReadyCondition);
        zoneToNodeConditions.set(zone, list);
      }

      if (currentReadyCondition !== undefined) {
        const observed = observedReadyCondition;
        let pods: Pod[];
        try {
          pods = podsAssignedToNode(this.#podInformer.informer().getIndexer(), name);
        } catch (err) {
          logger.error(err, `unable to list pods of node ${name}`);
          if (currentReadyCondition.status !== 'True' && observed.status === 'True') {
            this.#nodesToRetry.add(name);
          }
          return;
        }
        await this.#processTaintBaseEviction(node, observed);
        const needsRetry = this.#nodesToRetry.has(name);
        const becameNotReady =
          currentReadyCondition.status !== 'True' && observed.status === 'True';
        if (becameNotReady) recordNodeStatusChange(this.#recorder, logger, node, 'NodeNotReady');
        if (becameNotReady || (needsRetry && observed.status !== 'True')) {
          try {
            await markPodsNotReady(
              { pods: this.#pods, clock: this.#clock },
              this.#recorder,
              logger,
              pods,
              name,
            );
          } catch (err) {
            logger.error(
              err,
              `unable to mark all pods NotReady on node ${name}; queuing for retry`,
            );
            this.#nodesToRetry.add(name);
            return;
          }
        }
      }
      this.#nodesToRetry.delete(name);
    } finally {
      this.#metrics.observeNodeHealthUpdate(this.#clock.since(start) / 1000);
    }
  }

  /** Go's `processTaintBaseEviction`. */
  async #processTaintBaseEviction(node: Node, observed: NodeCondition): Promise<void> {
    const logger = this.#logger;
    const name = node.metadata?.name ?? '';
    switch (observed.status) {
      case 'False':
        if (taintExists(node.spec?.taints, unreachableTaintTemplate)) {
          const ok = await swapNodeControllerTaint(
            this.#writer,
            logger,
            [{ ...notReadyTaintTemplate }],
            [{ ...unreachableTaintTemplate }],
            node,
          );
          if (!ok) {
            logger.error(
              undefined,
              'Failed to instantly swap UnreachableTaint to NotReadyTaint. Will try again in the next cycle',
            );
          }
        } else if (this.#markNodeForTainting(node, 'False')) {
          logger.v(2).info('Node is NotReady. Adding it to the Taint queue', {
            node: name,
            timeStamp: formatTime(this.#clock.now()),
          });
        }
        break;
      case 'Unknown':
        if (taintExists(node.spec?.taints, notReadyTaintTemplate)) {
          const ok = await swapNodeControllerTaint(
            this.#writer,
            logger,
            [{ ...unreachableTaintTemplate }],
            [{ ...notReadyTaintTemplate }],
            node,
          );
          if (!ok) {
            logger.error(
              undefined,
              'Failed to instantly swap NotReadyTaint to UnreachableTaint. Will try again in the next cycle',
            );
          }
        } else if (this.#markNodeForTainting(node, 'Unknown')) {
          logger.v(2).info('Node is unresponsive. Adding it to the Taint queue', {
            node: name,
            timeStamp: formatTime(this.#clock.now()),
          });
        }
        break;
      case 'True': {
        let removed = false;
        try {
          removed = await this.#markNodeAsReachable(node);
        } catch {
          logger.error(
            undefined,
            'Failed to remove taints from node. Will retry in next iteration',
            {
              node: name,
            },
          );
        }
        if (removed) logger.v(2).info('Node is healthy again, removed all taints', { node: name });
        break;
      }
    }
  }

  /**
   * Checks a node's heartbeats against its grace period and, when they are
   * too old, sets its conditions to `Unknown` and writes its status.
   * Resolves the grace period, the Ready condition as observed and as it is
   * now. Go's `tryUpdateNodeHealth`.
   *
   * @throws the status write's error
   */
  async #tryUpdateNodeHealth(
    node: Node,
  ): Promise<[number, NodeCondition, NodeCondition | undefined]> {
    const name = node.metadata?.name ?? '';
    const logger = this.#logger;
    let nodeHealth = copyHealth(this.#nodeHealthMap.get(name));
    const status = ((node as { status?: NodeStatus }).status ??= {});
    const creation = timeOf(node.metadata?.creationTimestamp);
    let gracePeriod: number;
    let observedReadyCondition: NodeCondition;
    let currentReadyCondition = getNodeCondition(status, 'Ready');
    const now = () => this.#clock.now();
    try {
      if (currentReadyCondition === undefined) {
        // The kubelet never posted a status: a made-up Unknown from the creation time.
        observedReadyCondition = {
          type: 'Ready',
          status: 'Unknown',
          ...(node.metadata?.creationTimestamp
            ? {
                lastHeartbeatTime: node.metadata.creationTimestamp,
                lastTransitionTime: node.metadata.creationTimestamp,
              }
            : {}),
        };
        gracePeriod = this.#nodeStartupGracePeriod;
        if (nodeHealth !== undefined) {
          nodeHealth.status = status;
        } else {
          nodeHealth = {
            status,
            probeTimestamp: creation,
            readyTransitionTimestamp: creation,
          };
        }
      } else {
        observedReadyCondition = { ...currentReadyCondition };
        gracePeriod = this.#nodeMonitorGracePeriod;
      }

      let savedCondition: NodeCondition | undefined;
      let savedLease: Lease | undefined;
      if (nodeHealth !== undefined) {
        savedCondition = getNodeCondition(nodeHealth.status, 'Ready');
        savedLease = nodeHealth.lease;
      }
      if (nodeHealth === undefined) {
        logger.info('Missing timestamp for Node. Assuming now as a timestamp', { node: name });
        nodeHealth = { status, probeTimestamp: now(), readyTransitionTimestamp: now() };
      } else if (savedCondition === undefined && currentReadyCondition !== undefined) {
        logger.v(1).info('Creating timestamp entry for newly observed Node', { node: name });
        nodeHealth = { status, probeTimestamp: now(), readyTransitionTimestamp: now() };
      } else if (savedCondition !== undefined && currentReadyCondition === undefined) {
        logger.error(undefined, 'ReadyCondition was removed from Status of Node', { node: name });
        nodeHealth = { status, probeTimestamp: now(), readyTransitionTimestamp: now() };
      } else if (
        savedCondition !== undefined &&
        currentReadyCondition !== undefined &&
        (savedCondition.lastHeartbeatTime ?? '') !== (currentReadyCondition.lastHeartbeatTime ?? '')
      ) {
        let transitionTime: number;
        if (
          (savedCondition.lastTransitionTime ?? '') !==
          (currentReadyCondition.lastTransitionTime ?? '')
        ) {
          logger
            .v(3)
            .info(
              'ReadyCondition for Node transitioned from savedCondition to currentReadyCondition',
              { node: name, savedCondition, currentReadyCondition },
            );
          transitionTime = now();
        } else {
          transitionTime = nodeHealth.readyTransitionTimestamp;
        }
        logger.v(3).info('Node ReadyCondition updated. Updating timestamp', { node: name });
        nodeHealth = { status, probeTimestamp: now(), readyTransitionTimestamp: transitionTime };
      }

      // A renewed Lease is a heartbeat too: a kubelet that only renews its
      // Lease keeps its node healthy.
      const observedLease = this.#leaseInformer
        .lister()
        .byNamespace('kube-node-lease')
        .tryGet(name);
      if (
        observedLease !== undefined &&
        (savedLease === undefined ||
          (savedLease.spec?.renewTime !== undefined &&
            observedLease.spec?.renewTime !== undefined &&
            timeOf(savedLease.spec.renewTime) < timeOf(observedLease.spec.renewTime)))
      ) {
        nodeHealth.lease = observedLease;
        nodeHealth.probeTimestamp = now();
      }

      if (now() > nodeHealth.probeTimestamp + gracePeriod) {
        // Silent for longer than the grace period: Unknown, whatever it said last.
        const nowTimestamp = formatTime(now());
        for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
          // NetworkUnavailable is the control plane's, and left alone.
          const current = getNodeCondition(status, type);
          if (current === undefined) {
            logger.v(2).info('Condition of node was never updated by kubelet', {
              nodeConditionType: type,
              node: name,
            });
            (status.conditions ??= []).push({
              type,
              status: 'Unknown',
              reason: 'NodeStatusNeverUpdated',
              message: 'Kubelet never posted node status.',
              ...(node.metadata?.creationTimestamp
                ? { lastHeartbeatTime: node.metadata.creationTimestamp }
                : {}),
              lastTransitionTime: nowTimestamp,
            });
          } else {
            logger.v(2).info("Node hasn't been updated", {
              node: name,
              duration: now() - nodeHealth.probeTimestamp,
              nodeConditionType: type,
              currentCondition: current,
            });
            if (current.status !== 'Unknown') {
              current.status = 'Unknown';
              current.reason = 'NodeStatusUnknown';
              current.message = 'Kubelet stopped posting node status.';
              current.lastTransitionTime = nowTimestamp;
            }
          }
        }
        currentReadyCondition = getNodeCondition(status, 'Ready');
        if (!sameCondition(currentReadyCondition, observedReadyCondition)) {
          try {
            await this.#nodes.updateStatus(node);
          } catch (err) {
            logger.error(err, 'Error updating node', { node: name });
            throw err;
          }
          nodeHealth = {
            status,
            probeTimestamp: nodeHealth.probeTimestamp,
            readyTransitionTimestamp: now(),
            lease: observedLease,
          };
          return [gracePeriod, observedReadyCondition, currentReadyCondition];
        }
      }
      return [gracePeriod, observedReadyCondition, currentReadyCondition];
    } finally {
      if (nodeHealth !== undefined) this.#nodeHealthMap.set(name, copyHealth(nodeHealth)!);
    }
  }

  /**
   * Works out each zone's state from its nodes' Ready conditions and sets
   * its eviction rate: normal, reduced in a partly disrupted zone, and none
   * at all (with every NoExecute taint removed) when every zone is fully
   * disrupted. Go's `handleDisruption`.
   */
  async #handleDisruption(
    zoneToNodeConditions: Map<string, (NodeCondition | undefined)[]>,
    nodes: Node[],
  ): Promise<void> {
    const logger = this.#logger;
    const newZoneStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneToNodeConditions) {
      const [unhealthy, newState] = this.computeZoneStateFunc(conditions);
      this.#metrics.setZone(
        zone,
        conditions.length,
        (100 * (conditions.length - unhealthy)) / conditions.length,
        unhealthy,
      );
      if (newState !== 'FullDisruption') allAreFullyDisrupted = false;
      newZoneStates.set(zone, newState);
      if (!this.#zoneStates.has(zone)) {
        logger.error(undefined, 'Setting initial state for unseen zone', { zone });
        this.#zoneStates.set(zone, 'Initial');
      }
    }

    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.#zoneStates]) {
      if (!zoneToNodeConditions.has(zone)) {
        this.#metrics.setZone(zone, 0, 100, 0);
        this.#zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWasFullyDisrupted = false;
        break;
      }
    }

    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      logger.info(
        'Controller detected that all Nodes are not-Ready. Entering master disruption mode',
      );
      for (const node of nodes) {
        try {
          await this.#markNodeAsReachable(node);
        } catch {
          logger.error(undefined, 'Failed to remove taints from Node', {
            node: node.metadata?.name ?? '',
          });
        }
      }
      for (const zone of this.#zoneStates.keys()) {
        this.#zoneNoExecuteTainter.get(zone)?.swapLimiter(0);
      }
      for (const zone of this.#zoneStates.keys()) this.#zoneStates.set(zone, 'FullDisruption');
      return;
    }
    if (allWasFullyDisrupted) {
      logger.info('Controller detected that some Nodes are Ready. Exiting master disruption mode');
      const now = this.#clock.now();
      for (const node of nodes) {
        const name = node.metadata?.name ?? '';
        const health = copyHealth(this.#nodeHealthMap.get(name));
        if (health === undefined) continue;
        health.probeTimestamp = now;
        health.readyTransitionTimestamp = now;
        this.#nodeHealthMap.set(name, health);
      }
      for (const zone of this.#zoneStates.keys()) {
        const state = newZoneStates.get(zone)!;
        this.#setLimiterInZone(zone, zoneToNodeConditions.get(zone)?.length ?? 0, state);
        this.#zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of [...this.#zoneStates]) {
      const newState = newZoneStates.get(zone)!;
      if (state === newState) continue;
      logger.info('Controller detected that zone is now in new state', { zone, newState });
      this.#setLimiterInZone(zone, zoneToNodeConditions.get(zone)?.length ?? 0, newState);
      this.#zoneStates.set(zone, newState);
    }
  }

  /** Queues a pod newly bound to a node. Go's `podUpdated`. */
  #podUpdated(oldPod: Pod | undefined, newPod: Pod): void {
    const nodeName = newPod.spec?.nodeName ?? '';
    if (nodeName !== '' && (oldPod === undefined || nodeName !== (oldPod.spec?.nodeName ?? ''))) {
      this.#podUpdateQueue.add(
        `${newPod.metadata?.namespace ?? ''}/${newPod.metadata?.name ?? ''}`,
      );
    }
  }

  /** Go's `doPodProcessingWorker`. */
  async #podProcessingWorker(): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#podUpdateQueue.get();
      if (quit) return;
      try {
        await this.#processPod(key);
      } finally {
        this.#podUpdateQueue.done(key);
      }
    }
  }

  /**
   * Marks a pod just bound to a node that is not ready as not ready itself
   * (the health pass covers the pods that were there before). Go's
   * `processPod`.
   */
  async #processPod(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pod = this.#podInformer.lister().byNamespace(namespace).tryGet(name);
    if (pod === undefined) return;
    const nodeName = pod.spec?.nodeName ?? '';
    const nodeHealth = this.#nodeHealthMap.get(nodeName);
    if (nodeHealth === undefined) return;
    if (this.#nodeInformer.lister().tryGet(nodeName) === undefined) {
      this.#logger.info('Failed to read node', { node: nodeName, err: 'not found' });
      this.#podUpdateQueue.addRateLimited(key);
      return;
    }
    const ready = getNodeCondition(nodeHealth.status, 'Ready');
    if (ready === undefined) return;
    if (ready.status !== 'True') {
      try {
        await markPodsNotReady(
          { pods: this.#pods, clock: this.#clock },
          this.#recorder,
          this.#logger,
          [pod],
          nodeName,
        );
      } catch (err) {
        this.#logger.info('Unable to mark pod NotReady on node', {
          pod: key,
          node: nodeName,
          err: String(err),
        });
        this.#podUpdateQueue.addRateLimited(key);
      }
    }
  }

  /** Go's `setLimiterInZone`. */
  #setLimiterInZone(zone: string, zoneSize: number, state: ZoneState): void {
    const queue = this.#zoneNoExecuteTainter.get(zone);
    if (queue === undefined) return;
    switch (state) {
      case 'Normal':
        queue.swapLimiter(this.#evictionLimiterQPS);
        break;
      case 'PartialDisruption':
        queue.swapLimiter(this.enterPartialDisruptionFunc(zoneSize));
        break;
      case 'FullDisruption':
        queue.swapLimiter(this.enterFullDisruptionFunc(zoneSize));
        break;
      default:
    }
  }

  /**
   * The nodes new to the controller, those gone from the cache, and known
   * nodes of a zone it has no state for. Go's `classifyNodes`.
   */
  #classifyNodes(allNodes: Node[]): [added: Node[], deleted: Node[], newZone: Node[]] {
    const added: Node[] = [];
    const deleted: Node[] = [];
    const newZoneRepresentatives: Node[] = [];
    for (const node of allNodes) {
      if (!this.#knownNodeSet.has(node.metadata?.name ?? '')) added.push(node);
      else if (!this.#zoneStates.has(getZoneKey(node))) newZoneRepresentatives.push(node);
    }
    if (this.#knownNodeSet.size + added.length !== allNodes.length) {
      const names = new Set(allNodes.map((n) => n.metadata?.name ?? ''));
      for (const [name, node] of this.#knownNodeSet) if (!names.has(name)) deleted.push(node);
    }
    return [added, deleted, newZoneRepresentatives];
  }

  /** The rate of a healthy zone, whatever its size. Go's `HealthyQPSFunc`. */
  healthyQPSFunc(_nodeNum: number): number {
    return this.#evictionLimiterQPS;
  }

  /**
   * The rate of a partly disrupted zone: the secondary rate in a large
   * cluster, none in a small one. Go's `ReducedQPSFunc`.
   */
  reducedQPSFunc(nodeNum: number): number {
    if (nodeNum > this.#largeClusterThreshold) return this.#secondaryEvictionLimiterQPS;
    return 0;
  }

  /** Starts the state and taint queue of a zone seen for the first time. Go's `addPodEvictorForNewZone`. */
  #addPodEvictorForNewZone(node: Node): void {
    const zone = getZoneKey(node);
    if (this.#zoneStates.has(zone)) return;
    this.#zoneStates.set(zone, 'Initial');
    this.#zoneNoExecuteTainter.set(
      zone,
      new RateLimitedTimedQueue(
        newTokenBucketRateLimiter(this.#evictionLimiterQPS, evictionRateLimiterBurst, this.#clock),
        this.#clock,
      ),
    );
    this.#logger.info('Initializing eviction metric for zone', { zone });
    this.#metrics.addEviction(zone, 0);
  }

  /**
   * Queues the node for the NoExecute taint of `status`, first forgetting
   * it when it lacks that taint (so that a node queued for the other one is
   * queued anew). Go's `markNodeForTainting`.
   */
  #markNodeForTainting(node: Node, status: 'False' | 'Unknown'): boolean {
    const name = node.metadata?.name ?? '';
    const queue = this.#zoneNoExecuteTainter.get(getZoneKey(node))!;
    if (status === 'False' && !taintExists(node.spec?.taints, notReadyTaintTemplate)) {
      queue.remove(name);
    }
    if (status === 'Unknown' && !taintExists(node.spec?.taints, unreachableTaintTemplate)) {
      queue.remove(name);
    }
    return queue.add(name, node.metadata?.uid ?? '');
  }

  /**
   * Removes both NoExecute taints from the node and takes it out of its
   * zone's taint queue; resolves whether it was queued. Go's
   * `markNodeAsReachable`.
   *
   * @throws the taint removal's error
   */
  async #markNodeAsReachable(node: Node): Promise<boolean> {
    const name = node.metadata?.name ?? '';
    try {
      await removeTaintOffNode(this.#writer, name, node, { ...unreachableTaintTemplate });
    } catch (err) {
      this.#logger.error(err, 'Failed to remove unreachable taint from node', { node: name });
      throw err;
    }
    try {
      await removeTaintOffNode(this.#writer, name, node, { ...notReadyTaintTemplate });
    } catch (err) {
      this.#logger.error(err, 'Failed to remove not-ready taint from node', { node: name });
      throw err;
    }
    return this.#zoneNoExecuteTainter.get(getZoneKey(node))?.remove(name) ?? false;
  }

  /**
   * How many of a zone's nodes are not ready, and the zone's state: fully
   * disrupted with none ready, partly disrupted when more than 2 and at
   * least the unhealthy share are not, normal otherwise. Go's
   * `ComputeZoneState`.
   */
  computeZoneState(conditions: readonly (NodeCondition | undefined)[]): [number, ZoneState] {
    let ready = 0;
    let notReady = 0;
    for (const c of conditions) {
      if (c?.status === 'True') ready++;
      else notReady++;
    }
    if (ready === 0 && notReady > 0) return [notReady, 'FullDisruption'];
    if (notReady > 2 && notReady / (notReady + ready) >= this.#unhealthyZoneThreshold) {
      return [notReady, 'PartialDisruption'];
    }
    return [notReady, 'Normal'];
  }

  /**
   * Sets the beta OS and architecture labels to the stable ones' values.
   * Go's `reconcileNodeLabels`.
   *
   * @throws Error when the labels could not be written
   */
  async reconcileNodeLabels(nodeName: string): Promise<void> {
    const node = this.#nodeInformer.lister().tryGet(nodeName);
    if (node === undefined) return;
    const labels = node.metadata?.labels;
    if (labels === undefined) return;
    const toUpdate: Record<string, string> = {};
    for (const r of labelReconcileInfo) {
      const primary = labels[r.primaryKey];
      if (primary === undefined) continue;
      const secondary = labels[r.secondaryKey];
      if (secondary !== undefined && primary !== secondary) toUpdate[r.secondaryKey] = primary;
      else if (secondary === undefined && r.ensureSecondary) toUpdate[r.secondaryKey] = primary;
    }
    if (Object.keys(toUpdate).length === 0) return;
    if (!(await addOrUpdateLabelsOnNode(this.#writer, this.#logger, toUpdate, node))) {
      throw new Error(`failed update labels for node ${nodeName}`);
    }
  }

  /** The zones' states, for tests and debugging. */
  zoneStates(): ReadonlyMap<string, ZoneState> {
    return new Map(this.#zoneStates);
  }
}

/** Go's `isNodeExcludedFromDisruptionChecks`. */
function isNodeExcludedFromDisruptionChecks(node: Node): boolean {
  return labelNodeDisruptionExclusion in (node.metadata?.labels ?? {});
}
