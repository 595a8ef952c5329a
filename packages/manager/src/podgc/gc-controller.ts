// The pod garbage collector: Go's pkg/controller/podgc/gc_controller.go
// (PodGCController, NewPodGC, NewPodGCInternal, Run, gc, gcTerminated,
// gcTerminating, gcOrphaned, discoverDeletedNodes, checkIfNodeExists,
// gcUnscheduledTerminating, byEvictionAndCreationTimestamp,
// markFailedAndDeletePod[WithCondition]), with the helpers it calls:
// pkg/util/pod's PatchPodStatus, pkg/api/v1/pod's UpdatePodCondition,
// pkg/util/node's IsNodeReady, pkg/util/taints' TaintKeyExists and
// pkg/kubelet/eviction's PodIsEvicted. The threshold's default is
// config/v1alpha1/defaults.go's TerminatedPodGCThreshold.
import type { Node, Pod, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isNotFound,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import { newDelayingQueue, type DelayingQueue } from '@kcm-ts/workqueue';
import { noopPodGCMetrics, type PodGCMetrics, type PodGCReason } from './metrics.js';

/**
 * How often PodGC looks at every pod, in ms: Go's `gcCheckPeriod`.
 *
 * @category Pod garbage collector
 */
export const gcCheckPeriod = 20_000;

/**
 * How long, in ms, a node named by pods must stay missing from the node
 * informer before PodGC asks the API server whether it is really gone: Go's
 * `quarantineTime`.
 *
 * @category Pod garbage collector
 */
export const quarantineTime = 40_000;

/**
 * How many terminated pods may exist before PodGC deletes the oldest:
 * kube-controller-manager's `--terminated-pod-gc-threshold`. Zero or less
 * turns the collection of terminated pods off.
 *
 * @category Pod garbage collector
 */
export const defaultTerminatedPodGCThreshold = 12500;

/** The taint a cluster admin puts on a node that is shut down for good. Go's `v1.TaintNodeOutOfService`. */
const taintNodeOutOfService = 'node.kubernetes.io/out-of-service';

/** The `status.reason` of a pod the kubelet evicted. Go's `eviction.Reason`. */
const evictedReason = 'Evicted';

/**
 * What a {@link PodGCController} is made from: the arguments of Go's
 * `NewPodGCInternal` (the periods are for tests), plus the injected
 * metrics, clock and logger.
 *
 * @category Pod garbage collector
 */
export interface PodGCControllerOptions {
  /** Patches pods' status, force-deletes pods, and reads nodes fresh from the API server. */
  kubeClient: ResourceClientSource;
  /** The shared pod informer, such as `factory.pods()`. */
  podInformer: ResourceInformer<Pod>;
  /** The shared node informer, such as `factory.nodes()`. */
  nodeInformer: ResourceInformer<Node>;
  /**
   * How many terminated pods may exist; zero or less keeps them all.
   * Default {@link defaultTerminatedPodGCThreshold}.
   */
  terminatedPodThreshold?: number;
  /** Default {@link gcCheckPeriod}. */
  gcCheckPeriod?: number;
  /** Default {@link quarantineTime}. */
  quarantineTime?: number;
  /** Where deletions are counted, such as `newPodGCMetrics(registry)`. Default: nowhere. */
  metrics?: PodGCMetrics;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/** `namespace/name`, for logs. */
function podRef(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** Any phase but Pending, Running and Unknown (so also none at all). Go's `isPodTerminated`. */
function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

/** Go's `isPodTerminating`. */
function isPodTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp != null;
}

/** Go's `nodeutil.IsNodeReady`: a `Ready` condition that is `True`. */
function isNodeReady(node: Node): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True';
}

/** Go's `eviction.PodIsEvicted`. */
function isPodEvicted(status: PodStatus | undefined): boolean {
  return status?.phase === 'Failed' && status.reason === evictedReason;
}

function creationTime(pod: Pod): number {
  const t = pod.metadata?.creationTimestamp;
  const ms = t == null ? NaN : Date.parse(t);
  // Go's zero time is before every real one.
  return Number.isNaN(ms) ? -Infinity : ms;
}

/**
 * Evicted pods first (so that controllers' own terminated pods last
 * longer), then the oldest, then by name. Go's `byEvictionAndCreationTimestamp`.
 */
function byEvictionAndCreationTimestamp(a: Pod, b: Pod): number {
  const aEvicted = isPodEvicted(a.status);
  if (aEvicted !== isPodEvicted(b.status)) return aEvicted ? -1 : 1;
  const at = creationTime(a);
  const bt = creationTime(b);
  if (at !== bt) return at < bt ? -1 : 1;
  const an = a.metadata?.name ?? '';
  const bn = b.metadata?.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

function sameCondition(a: PodCondition, b: PodCondition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastProbeTime === b.lastProbeTime &&
    a.lastTransitionTime === b.lastTransitionTime
  );
}

/**
 * Adds `condition` to `status`, or replaces the condition of its type,
 * keeping the old transition time when the condition's status is the same.
 * Go's `apipod.UpdatePodCondition`.
 */
function updatePodCondition(status: PodStatus, condition: PodCondition, now: number): void {
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = conditions[i];
  const next: PodCondition = { ...condition, lastTransitionTime: formatTime(now) };
  if (old === undefined) {
    conditions.push(next);
    return;
  }
  if (old.status === next.status) {
    if (old.lastTransitionTime === undefined) delete next.lastTransitionTime;
    else next.lastTransitionTime = old.lastTransitionTime;
  }
  conditions[i] = next;
}

type StatusWithGeneration = PodStatus & { observedGeneration?: number };

/**
 * The strategic merge patch that turns `oldStatus` into `newStatus`, with
 * the pod's uid as a precondition; `undefined` when nothing changed. What
 * Go's `PatchPodStatus` computes with `CreateTwoWayMergePatch`, for the
 * fields PodGC changes: the phase, the observed generation and conditions
 * (each merged by its type, in the new status' order).
 */
function podStatusPatch(
  uid: string | undefined,
  oldStatus: StatusWithGeneration,
  newStatus: StatusWithGeneration,
): object | undefined {
  const status: Record<string, unknown> = {};
  if (newStatus.phase !== oldStatus.phase) status.phase = newStatus.phase;
  if (newStatus.observedGeneration !== oldStatus.observedGeneration) {
    status.observedGeneration = newStatus.observedGeneration;
  }
  const changed = (newStatus.conditions ?? []).filter((c) => {
    const old = oldStatus.conditions?.find((o) => o.type === c.type);
    return old === undefined || !sameCondition(old, c);
  });
  if (changed.length > 0) {
    // Without the order, a merged new condition would come first.
    status['$setElementOrder/conditions'] = (newStatus.conditions ?? []).map((c) => ({
      type: c.type,
    }));
    status.conditions = changed;
  }
  if (Object.keys(status).length === 0) return undefined;
  return { ...(uid === undefined ? {} : { metadata: { uid } }), status };
}

/**
 * kube-controller-manager's pod garbage collector ("PodGC"). Every
 * `gcCheckPeriod` it force-deletes (grace period 0):
 *
 * - the oldest terminated pods (phase `Succeeded` or `Failed`), evicted
 *   ones first, beyond `terminatedPodThreshold`;
 * - terminating pods on nodes that are not ready and carry the
 *   `node.kubernetes.io/out-of-service` taint;
 * - pods bound to nodes that no longer exist: missing from the node
 *   informer for `quarantineTime`, then confirmed by the API server. These
 *   are first marked `Failed` with a `DisruptionTarget` condition;
 * - terminating pods that were never scheduled.
 *
 * A pod that is not yet `Succeeded` or `Failed` is patched to `Failed`
 * before it is deleted, since no kubelet will do it. Go's `PodGCController`.
 *
 * @example
 * ```ts
 * const podgc = new PodGCController({
 *   kubeClient, podInformer: factory.pods(), nodeInformer: factory.nodes(),
 *   terminatedPodThreshold: defaultTerminatedPodGCThreshold,
 * });
 * factory.start(signal);
 * await podgc.run(signal);
 * ```
 *
 * @category Pod garbage collector
 */
export class PodGCController {
  readonly #pods: ResourceClient<Pod>;
  readonly #nodes: ResourceClient<Node>;
  readonly #podInformer: ResourceInformer<Pod>;
  readonly #nodeInformer: ResourceInformer<Node>;
  readonly #nodeQueue: DelayingQueue<string>;
  readonly #terminatedPodThreshold: number;
  readonly #gcCheckPeriod: number;
  readonly #quarantineTime: number;
  readonly #metrics: PodGCMetrics;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link PodGCControllerOptions} */
  constructor(opts: PodGCControllerOptions) {
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#metrics = opts.metrics ?? noopPodGCMetrics;
    this.#podInformer = opts.podInformer;
    this.#nodeInformer = opts.nodeInformer;
    // Asked for now, as Go's constructor does, so a factory started after it runs them.
    opts.podInformer.informer();
    opts.nodeInformer.informer();
    this.#terminatedPodThreshold = opts.terminatedPodThreshold ?? defaultTerminatedPodGCThreshold;
    this.#gcCheckPeriod = opts.gcCheckPeriod ?? gcCheckPeriod;
    this.#quarantineTime = opts.quarantineTime ?? quarantineTime;
    this.#pods = opts.kubeClient.resource<Pod>(
      { group: '', version: 'v1', resource: 'pods' },
      { namespaced: true, kind: 'Pod' },
    );
    this.#nodes = opts.kubeClient.resource<Node>(
      { group: '', version: 'v1', resource: 'nodes' },
      { namespaced: false, kind: 'Node' },
    );
    this.#nodeQueue = newDelayingQueue<string>({
      name: 'orphaned_pods_nodes',
      clock: this.#clock,
    });
  }

  /**
   * Waits for the pod and node informers to sync, then collects every
   * `gcCheckPeriod` (the first time at once) until `signal` aborts;
   * resolves once the pass under way has finished. Go's `Run`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting GC controller');
    try {
      const pods = this.#podInformer.informer();
      const nodes = this.#nodeInformer.informer();
      const synced = await waitForNamedCacheSync(
        'GC',
        signal,
        [() => pods.hasSynced(), () => nodes.hasSynced()],
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      while (!signal.aborted) {
        await this.gc(signal);
        await this.#clock.sleep(this.#gcCheckPeriod, signal);
      }
    } finally {
      this.#nodeQueue.shutDown();
      logger.info('Shutting down GC controller');
    }
  }

  /**
   * One pass over the pods in the informer's cache, as `run` makes every
   * `gcCheckPeriod`: terminated pods beyond the threshold, terminating pods
   * on out-of-service nodes, orphaned pods, then unscheduled terminating
   * pods. Failures to delete a pod are logged and counted, not thrown.
   * Go's `gc`.
   *
   * @param signal - cancels the requests under way
   */
  async gc(signal?: AbortSignal): Promise<void> {
    const pods = this.#podInformer.lister().list();
    const nodes = this.#nodeInformer.lister().list();
    if (this.#terminatedPodThreshold > 0) await this.#gcTerminated(pods, signal);
    await this.#gcTerminating(pods, signal);
    await this.#gcOrphaned(pods, nodes, signal);
    await this.#gcUnscheduledTerminating(pods, signal);
  }

  /** Go's `gcTerminating`. */
  async #gcTerminating(pods: Pod[], signal: AbortSignal | undefined): Promise<void> {
    const logger = this.#logger;
    logger.v(4).info("GC'ing terminating pods that are on out-of-service nodes");
    const terminating: Pod[] = [];
    const nodeLister = this.#nodeInformer.lister();
    for (const pod of pods) {
      if (!isPodTerminating(pod)) continue;
      const nodeName = pod.spec?.nodeName ?? '';
      let node: Node;
      try {
        node = nodeLister.get(nodeName);
      } catch (err) {
        logger.error(err, 'Failed to get node', { node: nodeName });
        continue;
      }
      const outOfService = (node.spec?.taints ?? []).some((t) => t.key === taintNodeOutOfService);
      if (!isNodeReady(node) && outOfService) {
        logger.v(4).info('Garbage collecting pod that is terminating', {
          pod: podRef(pod),
          phase: pod.status?.phase ?? '',
        });
        terminating.push(pod);
      }
    }
    if (terminating.length === 0) return;
    logger
      .v(4)
      .info(
        'Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service',
        { numPods: terminating.length },
      );
    terminating.sort(byEvictionAndCreationTimestamp);
    await Promise.all(
      terminating.map(async (pod) => {
        this.#metrics.deletingPod(pod.metadata?.namespace ?? '', 'out-of-service');
        await this.#forceDelete(pod, undefined, 'out-of-service', signal);
      }),
    );
  }

  /** Go's `gcTerminated`. */
  async #gcTerminated(pods: Pod[], signal: AbortSignal | undefined): Promise<void> {
    const terminated = pods.filter(isPodTerminated);
    const deleteCount = terminated.length - this.#terminatedPodThreshold;
    if (deleteCount <= 0) return;
    this.#logger.info('Garbage collecting pods', { numPods: deleteCount });
    // Sorted only when there is something to delete: the list can be long.
    terminated.sort(byEvictionAndCreationTimestamp);
    await Promise.all(
      terminated.slice(0, deleteCount).map(async (pod) => {
        await this.#forceDelete(pod, undefined, 'terminated', signal);
        this.#metrics.deletingPod(pod.metadata?.namespace ?? '', 'terminated');
      }),
    );
  }

  /** Deletes pods bound to nodes that do not exist. Go's `gcOrphaned`. */
  async #gcOrphaned(pods: Pod[], nodes: Node[], signal: AbortSignal | undefined): Promise<void> {
    const logger = this.#logger;
    logger.v(4).info("GC'ing orphaned");
    const existing = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    // A node the informer lacks may just be new: it waits out a quarantine.
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName ?? '';
      if (nodeName !== '' && !existing.has(nodeName)) {
        this.#nodeQueue.addAfter(nodeName, this.#quarantineTime);
      }
    }
    const deleted = await this.#discoverDeletedNodes(existing, signal);
    if (deleted === undefined) return;
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName ?? '';
      if (!deleted.has(nodeName)) continue;
      logger.v(2).info('Found orphaned Pod assigned to the Node, deleting', {
        pod: podRef(pod),
        node: nodeName,
      });
      const condition: PodCondition = {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByPodGC',
        message: 'PodGC: node no longer exists',
      };
      if (await this.#forceDelete(pod, condition, 'orphaned', signal)) {
        logger.info('Forced deletion of orphaned Pod succeeded', { pod: podRef(pod) });
      }
      this.#metrics.deletingPod(pod.metadata?.namespace ?? '', 'orphaned');
    }
  }

  /**
   * The names of the nodes out of quarantine that are still missing and
   * that the API server confirms are gone; `undefined` once the queue has
   * shut down. Go's `discoverDeletedNodes`.
   */
  async #discoverDeletedNodes(
    existing: ReadonlySet<string>,
    signal: AbortSignal | undefined,
  ): Promise<Set<string> | undefined> {
    const deleted = new Set<string>();
    while (this.#nodeQueue.len() > 0) {
      const [nodeName, quit] = await this.#nodeQueue.get();
      if (quit) return undefined;
      try {
        if (!existing.has(nodeName)) {
          try {
            if (!(await this.#checkIfNodeExists(nodeName, signal))) deleted.add(nodeName);
          } catch (err) {
            // A later pass puts it back in quarantine if pods still name it.
            this.#logger.error(err, 'Error while getting node', { node: nodeName });
          }
        }
      } finally {
        this.#nodeQueue.done(nodeName);
      }
    }
    return deleted;
  }

  /** Asks the API server, not the cache. Go's `checkIfNodeExists`. */
  async #checkIfNodeExists(name: string, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await this.#nodes.get(name, { signal });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** Deletes terminating pods that never got a node. Go's `gcUnscheduledTerminating`. */
  async #gcUnscheduledTerminating(pods: Pod[], signal: AbortSignal | undefined): Promise<void> {
    const logger = this.#logger;
    logger.v(4).info("GC'ing unscheduled pods which are terminating");
    for (const pod of pods) {
      if (!isPodTerminating(pod) || (pod.spec?.nodeName ?? '') !== '') continue;
      logger.v(2).info('Found unscheduled terminating Pod not assigned to any Node, deleting', {
        pod: podRef(pod),
      });
      if (await this.#forceDelete(pod, undefined, 'unscheduled', signal)) {
        logger.info('Forced deletion of unscheduled terminating Pod succeeded', {
          pod: podRef(pod),
        });
      }
      this.#metrics.deletingPod(pod.metadata?.namespace ?? '', 'unscheduled');
    }
  }

  /**
   * Marks the pod failed and deletes it, logging and counting a failure
   * under `reason`; resolves whether it succeeded.
   */
  async #forceDelete(
    pod: Pod,
    condition: PodCondition | undefined,
    reason: PodGCReason,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    try {
      await this.#markFailedAndDeletePod(pod, condition, signal);
      return true;
    } catch (err) {
      // A request cut short by shutdown is no failure worth reporting.
      if (signal?.aborted) return false;
      this.#logger.error(err, 'Unhandled Error');
      this.#metrics.deletingPodError(pod.metadata?.namespace ?? '', reason);
      return false;
    }
  }

  /**
   * Marks the pod `Failed` (with `condition`, if any) unless it has
   * finished already, and deletes it with grace period 0. Without a kubelet
   * (the pod is orphaned) nothing else would ever end its phase. Go's
   * `markFailedAndDeletePod` and `markFailedAndDeletePodWithCondition`.
   */
  async #markFailedAndDeletePod(
    pod: Pod,
    condition: PodCondition | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    this.#logger.info('PodGC is force deleting Pod', { pod: podRef(pod) });
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const pods = this.#pods.inNamespace(namespace);
    const phase = pod.status?.phase;
    if (phase !== 'Succeeded' && phase !== 'Failed') {
      const oldStatus: StatusWithGeneration = pod.status ?? {};
      const newStatus: StatusWithGeneration = structuredClone(oldStatus);
      newStatus.phase = 'Failed';
      // The status now reflects the spec PodGC saw (PodObservedGenerationTracking).
      const generation = pod.metadata?.generation;
      if (generation !== undefined && generation !== 0) newStatus.observedGeneration = generation;
      if (condition !== undefined) updatePodCondition(newStatus, condition, this.#clock.now());
      const body = podStatusPatch(pod.metadata?.uid, oldStatus, newStatus);
      if (body !== undefined) {
        try {
          await pods.patchStatus(name, { type: 'strategic', body }, { signal });
        } catch (err) {
          throw new Error(
            `failed to patch status ${JSON.stringify(JSON.stringify(body))} for pod "${namespace}"/"${name}": ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
        }
      }
    }
    await pods.delete(name, { gracePeriodSeconds: 0, signal });
  }
}
