// The taint eviction controller: Go's pkg/controller/tainteviction/
// taint_eviction.go (Controller, New, Run, worker, PodUpdated, NodeUpdated,
// cancelWorkWithEvent, processPodOnNode, handlePodUpdate, handleNodeUpdate,
// deletePodHandler, addConditionAndDeletePod, getNoExecuteTaints,
// getMinTolerationTime, emitPodDeletionEvent, emitCancelPodDeletionEvent),
// with pkg/util/pod's PatchPodStatus for the DisruptionTarget condition.
import type { Node, Pod, PodStatus, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import {
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
import { newQueue, type Queue } from '@kcm-ts/workqueue';
import {
  addNodeNameIndexer,
  getMatchingTolerations,
  podsAssignedToNode,
  updatePodCondition,
} from '../node-controller-utils.js';
import { noopTaintEvictionMetrics, type TaintEvictionMetrics } from './metrics.js';
import { TimedWorkerQueue, keyFromWorkArgs, type WorkArgs } from './timed-workers.js';

/** How many times a pod's deletion is tried. Go's `retries`. */
const retries = 5;

/** The NoExecute taints of `taints`. Go's `getNoExecuteTaints`. */
export function getNoExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/**
 * The shortest `tolerationSeconds` of `tolerations`, in ms: 0 when there
 * are none or one is 0 or less, -1 when none sets it (tolerated forever).
 * Go's `getMinTolerationTime`.
 */
export function getMinTolerationTime(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Infinity;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    if (t.tolerationSeconds < min) min = t.tolerationSeconds;
  }
  return min === Infinity ? -1 : min * 1000;
}

/**
 * What a {@link TaintEvictionController} is made from: the arguments of
 * Go's `tainteviction.New`, plus the injected recorder, metrics, clock and
 * logger.
 *
 * @category Taint eviction controller
 */
export interface TaintEvictionControllerOptions {
  /** The name it logs under. Default `taint-eviction-controller`. */
  controllerName?: string;
  /** Patches pods' status and deletes pods. */
  kubeClient: ResourceClientSource;
  /** The shared pod informer. */
  podInformer: ResourceInformer<Pod>;
  /** The shared node informer. */
  nodeInformer: ResourceInformer<Node>;
  /** Records `TaintManagerEviction` events. Default: none. */
  recorder?: EventRecorder;
  /** Default: nowhere. */
  metrics?: TaintEvictionMetrics;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's taint eviction controller: deletes the pods on
 * a node with NoExecute taints they do not tolerate: at once when some
 * taint is not tolerated at all, otherwise once the shortest
 * `tolerationSeconds` of the tolerations used has passed (never when none
 * sets one). Each deletion is announced with a `TaintManagerEviction`
 * event ("Marking for deletion Pod ns/name") and marks the pod with a
 * `DisruptionTarget` condition (`DeletionByTaintManager`) first; a deletion
 * still waiting is cancelled, with another such event, when the taints go
 * or the pod comes to tolerate them. Go's `tainteviction.Controller`.
 *
 * @category Taint eviction controller
 */
export class TaintEvictionController {
  readonly #name: string;
  readonly #pods: ResourceClient<Pod>;
  readonly #podInformer: ResourceInformer<Pod>;
  readonly #nodeInformer: ResourceInformer<Node>;
  readonly #recorder: EventRecorder;
  readonly #metrics: TaintEvictionMetrics;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #taintEvictionQueue: TimedWorkerQueue;
  /** Node name → its NoExecute taints, for nodes that have some. */
  readonly #taintedNodes = new Map<string, Taint[]>();
  readonly #nodeUpdateQueue: Queue<string>;
  readonly #podUpdateQueue: Queue<string>;

  /** @param opts - see {@link TaintEvictionControllerOptions} */
  constructor(opts: TaintEvictionControllerOptions) {
    this.#name = opts.controllerName ?? 'taint-eviction-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#recorder = opts.recorder ?? noopEventRecorder;
    this.#metrics = opts.metrics ?? noopTaintEvictionMetrics;
    this.#pods = opts.kubeClient.resource<Pod>(
      { group: '', version: 'v1', resource: 'pods' },
      { namespaced: true, kind: 'Pod' },
    );
    this.#podInformer = opts.podInformer;
    this.#nodeInformer = opts.nodeInformer;
    this.#nodeUpdateQueue = newQueue<string>({ name: 'noexec_taint_node', clock: this.#clock });
    this.#podUpdateQueue = newQueue<string>({ name: 'noexec_taint_pod', clock: this.#clock });
    this.#taintEvictionQueue = new TimedWorkerQueue(
      (fireAt, args) => this.#deletePod(fireAt, args),
      this.#clock,
      this.#logger,
    );
    const pods = opts.podInformer.informer();
    addNodeNameIndexer(pods);
    pods.addEventHandler({
      onAdd: (pod) => this.podUpdated(undefined, pod),
      onUpdate: (old, pod) => this.podUpdated(old, pod),
      onDelete: (obj) => {
        const pod = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (pod !== undefined) this.podUpdated(pod, undefined);
      },
    });
    opts.nodeInformer.informer().addEventHandler({
      onAdd: (node) => this.nodeUpdated(undefined, node),
      onUpdate: (old, node) => this.nodeUpdated(old, node),
      onDelete: (obj) => {
        const node = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (node !== undefined) this.nodeUpdated(node, undefined);
      },
    });
  }

  /**
   * Waits for the caches, then handles node and pod changes until `signal`
   * aborts; resolves once the deletions under way have finished. Go
   * shards both kinds of change over 8 workers by node name so that a
   * node's changes are seen in order, node changes first; here the
   * handlers are synchronous on one event loop, so one worker per queue
   * keeps that order, and pending node changes are handled before each pod
   * change. Go's `Run`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const stop = () => {
      this.#nodeUpdateQueue.shutDown();
      this.#podUpdateQueue.shutDown();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      const pods = this.#podInformer.informer();
      const nodes = this.#nodeInformer.informer();
      const synced = await waitForNamedCacheSync(
        this.#name,
        signal,
        [() => pods.hasSynced(), () => nodes.hasSynced()],
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      await Promise.all([this.#nodeWorker(), this.#podWorker()]);
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
      await this.#taintEvictionQueue.cancelAndWait();
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  async #nodeWorker(): Promise<void> {
    for (;;) {
      const [nodeName, quit] = await this.#nodeUpdateQueue.get();
      if (quit) return;
      try {
        this.#handleNodeUpdate(nodeName);
      } finally {
        this.#nodeUpdateQueue.done(nodeName);
      }
    }
  }

  async #podWorker(): Promise<void> {
    for (;;) {
      const [item, quit] = await this.#podUpdateQueue.get();
      if (quit) return;
      try {
        // Node changes first, so that a pod is judged by its node's latest taints.
        while (this.#nodeUpdateQueue.len() > 0) {
          const [nodeName, done] = await this.#nodeUpdateQueue.get();
          if (done) break;
          try {
            this.#handleNodeUpdate(nodeName);
          } finally {
            this.#nodeUpdateQueue.done(nodeName);
          }
        }
        this.#handlePodUpdate(item);
      } finally {
        this.#podUpdateQueue.done(item);
      }
    }
  }

  /**
   * Notes a pod change that matters: any but an update that keeps its
   * node and tolerations. Go's `PodUpdated`.
   */
  podUpdated(oldPod: Pod | undefined, newPod: Pod | undefined): void {
    const pod = newPod ?? oldPod;
    if (pod === undefined) return;
    if (
      oldPod !== undefined &&
      newPod !== undefined &&
      JSON.stringify(oldPod.spec?.tolerations ?? []) ===
        JSON.stringify(newPod.spec?.tolerations ?? []) &&
      (oldPod.spec?.nodeName ?? '') === (newPod.spec?.nodeName ?? '')
    ) {
      return;
    }
    this.#podUpdateQueue.add(
      JSON.stringify([
        pod.metadata?.namespace ?? '',
        pod.metadata?.name ?? '',
        pod.spec?.nodeName ?? '',
      ]),
    );
  }

  /** Notes a node change that matters: any but an update that keeps its NoExecute taints. Go's `NodeUpdated`. */
  nodeUpdated(oldNode: Node | undefined, newNode: Node | undefined): void {
    const node = newNode ?? oldNode;
    if (node === undefined) return;
    if (
      oldNode !== undefined &&
      newNode !== undefined &&
      JSON.stringify(getNoExecuteTaints(oldNode.spec?.taints)) ===
        JSON.stringify(getNoExecuteTaints(newNode.spec?.taints))
    ) {
      return;
    }
    this.#nodeUpdateQueue.add(node.metadata?.name ?? '');
  }

  /** Go's `cancelWorkWithEvent`. */
  #cancelWorkWithEvent(args: WorkArgs): void {
    if (this.#taintEvictionQueue.cancelWork(keyFromWorkArgs(args))) {
      this.#emitCancelPodDeletionEvent(args);
    }
  }

  /**
   * Schedules, keeps, moves or cancels the deletion of one pod on a node
   * with `taints`. Go's `processPodOnNode`.
   */
  #processPodOnNode(
    args: WorkArgs,
    nodeName: string,
    tolerations: readonly Toleration[],
    taints: readonly Taint[],
    now: number,
  ): void {
    const logger = this.#logger;
    const key = keyFromWorkArgs(args);
    if (taints.length === 0) this.#cancelWorkWithEvent(args);
    const [allTolerated, used] = getMatchingTolerations(taints, tolerations);
    if (!allTolerated) {
      logger.v(2).info('Not all taints are tolerated after update for pod on node', {
        pod: key,
        node: nodeName,
      });
      this.#cancelWorkWithEvent(args);
      this.#taintEvictionQueue.addWork(args, now, now);
      return;
    }
    const minTolerationTime = getMinTolerationTime(used);
    if (minTolerationTime < 0) {
      logger
        .v(4)
        .info('Current tolerations for pod tolerate forever, cancelling any scheduled deletion', {
          pod: key,
        });
      this.#cancelWorkWithEvent(args);
      return;
    }
    let startTime = now;
    const triggerTime = startTime + minTolerationTime;
    const scheduled = this.#taintEvictionQueue.getWorkerUnsafe(key);
    if (scheduled !== undefined) {
      startTime = scheduled.createdAt;
      if (startTime + minTolerationTime < triggerTime) return;
      this.#cancelWorkWithEvent(args);
    }
    this.#taintEvictionQueue.addWork(args, startTime, triggerTime);
  }

  /** Go's `handlePodUpdate`. */
  #handlePodUpdate(item: string): void {
    const [namespace, name, nodeNameOfItem] = JSON.parse(item) as [string, string, string];
    const args: WorkArgs = { namespace, name };
    const pod = this.#podInformer.lister().byNamespace(namespace).tryGet(name);
    if (pod === undefined) {
      this.#logger.v(4).info('Noticed pod deletion', { pod: keyFromWorkArgs(args) });
      this.#cancelWorkWithEvent(args);
      return;
    }
    // Only the item of the pod's current node speaks for it.
    const nodeName = pod.spec?.nodeName ?? '';
    if (nodeName !== nodeNameOfItem) return;
    this.#logger.v(4).info('Noticed pod update', { pod: keyFromWorkArgs(args) });
    if (nodeName === '') return;
    const taints = this.#taintedNodes.get(nodeName);
    if (taints === undefined) return;
    this.#processPodOnNode(args, nodeName, pod.spec?.tolerations ?? [], taints, this.#clock.now());
  }

  /** Go's `handleNodeUpdate`. */
  #handleNodeUpdate(nodeName: string): void {
    const logger = this.#logger;
    const node = this.#nodeInformer.lister().tryGet(nodeName);
    if (node === undefined) {
      logger.v(4).info('Noticed node deletion', { node: nodeName });
      this.#taintedNodes.delete(nodeName);
      return;
    }
    logger.v(4).info('Noticed node update', { node: nodeName });
    const taints = getNoExecuteTaints(node.spec?.taints);
    logger.v(4).info('Updating known taints on node', { node: nodeName, taints });
    if (taints.length === 0) this.#taintedNodes.delete(nodeName);
    else this.#taintedNodes.set(nodeName, taints);

    // Pods read after the taints are set: a pod added meanwhile is judged by its own update.
    const pods = podsAssignedToNode(this.#podInformer.informer().getIndexer(), nodeName);
    if (pods.length === 0) return;
    if (taints.length === 0) {
      logger.v(4).info('All taints were removed from the node. Cancelling all evictions...', {
        node: nodeName,
      });
      for (const pod of pods) {
        this.#cancelWorkWithEvent({
          namespace: pod.metadata?.namespace ?? '',
          name: pod.metadata?.name ?? '',
        });
      }
      return;
    }
    const now = this.#clock.now();
    for (const pod of pods) {
      this.#processPodOnNode(
        { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' },
        nodeName,
        pod.spec?.tolerations ?? [],
        taints,
        now,
      );
    }
  }

  /**
   * Announces the deletion, then marks the pod with the `DisruptionTarget`
   * condition and deletes it, trying up to 5 times. Go's `deletePodHandler`.
   */
  async #deletePod(fireAt: number, args: WorkArgs): Promise<void> {
    this.#logger.info('Deleting pod', { controller: this.#name, pod: keyFromWorkArgs(args) });
    this.#emitPodDeletionEvent(args);
    let lastError: unknown;
    for (let i = 0; i < retries; i++) {
      try {
        await this.#addConditionAndDeletePod(args);
        this.#metrics.podDeleted(this.#clock.since(fireAt) / 1000);
        return;
      } catch (err) {
        lastError = err;
      }
      await this.#clock.sleep(10);
    }
    throw lastError;
  }

  /** Go's `addConditionAndDeletePod`. */
  async #addConditionAndDeletePod(args: WorkArgs): Promise<void> {
    const pods = this.#pods.inNamespace(args.namespace);
    const pod = await pods.get(args.name);
    const oldStatus: PodStatus = pod.status ?? {};
    const newStatus: PodStatus = structuredClone(oldStatus);
    const updated = updatePodCondition(
      newStatus,
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      },
      this.#clock.now(),
    );
    if (updated) {
      // Go's PatchPodStatus: a strategic merge patch of the changed
      // condition, in the new order, with the pod's uid as a precondition.
      const changed = (newStatus.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
      const body = {
        ...(pod.metadata?.uid ? { metadata: { uid: pod.metadata.uid } } : {}),
        status: {
          '$setElementOrder/conditions': (newStatus.conditions ?? []).map((c) => ({
            type: c.type,
          })),
          conditions: [changed],
        },
      };
      await pods.patchStatus(args.name, { type: 'strategic', body });
    }
    await pods.delete(args.name);
  }

  #emitPodDeletionEvent(args: WorkArgs): void {
    this.#recorder.event(
      { apiVersion: 'v1', kind: 'Pod', name: args.name, namespace: args.namespace },
      'Normal',
      'TaintManagerEviction',
      `Marking for deletion Pod ${keyFromWorkArgs(args)}`,
    );
  }

  #emitCancelPodDeletionEvent(args: WorkArgs): void {
    this.#recorder.event(
      { apiVersion: 'v1', kind: 'Pod', name: args.name, namespace: args.namespace },
      'Normal',
      'TaintManagerEviction',
      `Cancelling deletion of Pod ${keyFromWorkArgs(args)}`,
    );
  }
}
