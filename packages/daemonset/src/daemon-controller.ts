// The DaemonSet controller: pkg/controller/daemon/daemon_controller.go
// (DaemonSetsController, NewDaemonSetsController, Run, runWorker,
// processNextWorkItem, enqueue, enqueueDaemonSetAfter, the event handlers
// addDaemonset, updateDaemonset, deleteDaemonset, addHistory, updateHistory,
// deleteHistory, addPod, updatePod, deletePod, addNode, updateNode with
// nodeInSameCondition and shouldIgnoreNodeUpdate, getDaemonSetsForPod,
// getDaemonSetsForHistory, getDaemonPods, getNodesToDaemonPods,
// resolveControllerRef, podsShouldBeOnNode, updateDaemonSet, manage,
// syncNodes, storeDaemonSetStatus, updateDaemonSetStatus, syncDaemonSet,
// NodeShouldRunDaemonPod, predicates, NewPod, podByCreationTimestampAndPhase,
// failedPodsBackoffKey, getUnscheduledPodsWithoutNode), client-go's
// DaemonSet lister expansion (listers/apps/v1/daemonset_expansion.go,
// GetPodDaemonSets and GetHistoryDaemonSets), and the backoff
// startDaemonSetController gives it (cmd/kube-controller-manager/app/apps.go).
//
// The rolling update and the revision history are update.ts; the pod
// template helpers are daemonset-util.ts.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, NodeCondition, Pod, Taint } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  DeletedFinalStateUnknown,
  getControllerOf,
  hasStatusCause,
  isDeletedFinalStateUnknown,
  isNotFound,
  labelSelectorAsSelector,
  metaNamespaceKeyFunc,
  newControllerRef,
  noopEventRecorder,
  noopLogger,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceClient,
  type Selector,
} from '@kcm-ts/apimachinery';
import {
  waitForNamedCacheSync,
  type Lister,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  ControllerExpectations,
  PodControllerRefManager,
  RealControllerRevisionControl,
  RealPodControl,
  isPodAvailable,
  isPodReady,
  isPodTerminal,
  namespaceTerminatingCause,
  recheckDeletionTimestamp,
  slowStartBatch,
  slowStartInitialBatchSize,
  type ControllerRevisionControl,
  type PodControl,
} from '@kcm-ts/controller';
import { Backoff } from './backoff.js';
import {
  addOrUpdateDaemonPodTolerations,
  allowsSurge,
  controllerRevisionHashLabelKey,
  createPodTemplate,
  getTargetNodeName,
  isPodUpdated,
  replaceDaemonSetPodNodeNameNodeAffinity,
  templateGenerationOrUndefined,
} from './daemonset-util.js';
import { findMatchingUntoleratedTaint, requiredNodeAffinityMatches } from './scheduling-helpers.js';
import {
  daemonSetKind,
  failedDaemonPodReason,
  selectingAllReason,
  succeededDaemonPodReason,
} from './types.js';
import {
  cleanupHistory,
  constructHistory,
  rollingUpdate,
  type DaemonSetUpdateHost,
} from './update.js';

/**
 * The most pods one sync of one DaemonSet creates, and the most it deletes
 * (250): more would risk a denial of service of the registry. Go's
 * `BurstReplicas`.
 *
 * @category DaemonSet controller
 */
export const burstReplicas = 250;

/**
 * How many times a failed status write is retried after a fresh read (1)
 * before the sync fails and is retried with backoff. Go's
 * `StatusUpdateRetries`.
 *
 * @category DaemonSet controller
 */
export const statusUpdateRetries = 1;

/**
 * How often the failed pods backoff forgets stale keys (1 min). Go's
 * `BackoffGCInterval`.
 *
 * @category Failed pods backoff
 */
export const backoffGCInterval = 60_000;

/**
 * The first delay before a failed daemon pod on the same node is deleted
 * again (1 s), doubling each time: what `startDaemonSetController` gives
 * `flowcontrol.NewBackOff`.
 *
 * @category Failed pods backoff
 */
export const failedPodsBackoffInitial = 1000;

/**
 * The longest delay between deletions of failed daemon pods on one node
 * (15 min): what `startDaemonSetController` gives `flowcontrol.NewBackOff`.
 *
 * @category Failed pods backoff
 */
export const failedPodsBackoffMax = 15 * 60_000;

/**
 * The number of workers kube-controller-manager runs by default (2): its
 * `--concurrent-daemonset-syncs` flag, the default of Go's
 * `ConcurrentDaemonSetSyncs` (pkg/controller/daemon/config/v1alpha1/defaults.go).
 *
 * @category DaemonSet controller
 */
export const concurrentDaemonSetSyncs = 2;

/**
 * The clients the controller writes through (unscoped: it picks each
 * object's namespace), as `startDaemonSetController` hands it a clientset.
 *
 * @category DaemonSet controller
 */
export interface DaemonSetsControllerClients {
  /** apps/v1 daemonsets: status writes, and fresh reads before adopting. */
  daemonSets: ResourceClient<DaemonSet>;
  /** apps/v1 controllerrevisions: the revision history. */
  controllerRevisions: ResourceClient<ControllerRevision>;
  /** core/v1 pods: creations, deletions, adoptions and relabelling. */
  pods: ResourceClient<Pod>;
}

/**
 * Options for {@link DaemonSetsController}: what Go's
 * `NewDaemonSetsController` takes.
 *
 * @category DaemonSet controller
 */
export interface DaemonSetsControllerOptions {
  /** The DaemonSet informer, usually `factory.daemonSets()`. */
  daemonSets: ResourceInformer<DaemonSet>;
  /** The ControllerRevision informer, usually `factory.controllerRevisions()`. */
  controllerRevisions: ResourceInformer<ControllerRevision>;
  /** The pod informer, usually `factory.pods()`. */
  pods: ResourceInformer<Pod>;
  /** The node informer, usually `factory.nodes()`. */
  nodes: ResourceInformer<Node>;
  /** The clients to write through. */
  client: DaemonSetsControllerClients;
  /**
   * Records the events about DaemonSets (pod creations and deletions,
   * `FailedDaemonPod`, `SucceededDaemonPod`, `SelectingAll`);
   * kube-controller-manager's comes from a broadcaster with the component
   * name `daemonset-controller`. Default none.
   */
  recorder?: EventRecorder;
  /** Time for the queue, the failed pods backoff and `minReadySeconds`. Default the real clock. */
  clock?: Clock;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Writes pods; default a {@link "@kcm-ts/controller"!RealPodControl} on `client.pods` and `recorder`. */
  podControl?: PodControl;
  /**
   * Patches ControllerRevisions when adopting or releasing them; default a
   * {@link "@kcm-ts/controller"!RealControllerRevisionControl} on `client.controllerRevisions`.
   */
  crControl?: ControllerRevisionControl;
  /**
   * The backoff between deletions of failed daemon pods on one node;
   * default 1 s doubling to 15 min on `clock`, as kube-controller-manager.
   */
  failedPodsBackoff?: Backoff;
}

/** `err` if it is an Error, else an Error carrying it. */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err), { cause: err });
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const nameOf = (o: { metadata?: { name?: string } } | undefined) => o?.metadata?.name ?? '';
const nsName = (o: { metadata?: { name?: string; namespace?: string } }) =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** The DaemonSet with its kind, so events and owner references name it even when a list left the kind out. */
function withKind(ds: DaemonSet): DaemonSet {
  return { ...ds, apiVersion: 'apps/v1', kind: 'DaemonSet' };
}

/** Structural equality of JSON values. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/** Go's errors aggregate: the one error, or all of them in one. */
function aggregate(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map((e) => e.message).join(', ')}]`);
}

/**
 * Whether a DaemonSet's pod fits a node, part by part: what
 * {@link predicates} returns.
 *
 * @category Scheduling
 */
export interface PredicatesResult {
  /** The pod names no node, or this one. */
  fitsNodeName: boolean;
  /** The node matches the pod's node selector and required node affinity. */
  fitsNodeAffinity: boolean;
  /** The pod tolerates every `NoSchedule` and `NoExecute` taint of the node. */
  fitsTaints: boolean;
}

/**
 * What {@link DaemonSetsController.podsShouldBeOnNode} decides for one node.
 *
 * @category DaemonSet controller
 */
export interface PodsOnNode {
  /** The node's name when it needs a daemon pod created, else empty. */
  nodesNeedingDaemonPods: string[];
  /** The names of the node's daemon pods to delete. */
  podsToDelete: string[];
}

//#region node-should-run
/**
 * The pod the DaemonSet would run on `nodeName`: its template, in its
 * namespace, bound to the node, with the daemon tolerations. Go's `NewPod`.
 * Like Go's, it shares the template's nested objects (containers, volumes):
 * copy them before changing them.
 *
 * @category Scheduling
 */
export function newPod(ds: DaemonSet, nodeName: string): Pod {
  // Shallow, as Go's NewPod: only the copies' own fields change below (the
  // tolerations list is replaced, never edited), and this runs for every
  // node on every sync.
  const template = ds.spec?.template ?? {};
  const pod: Pod = {
    metadata: { ...template.metadata, namespace: ds.metadata?.namespace ?? '' },
    spec: { ...(template.spec ?? { containers: [] }), nodeName },
  };
  addOrUpdateDaemonPodTolerations(pod.spec!);
  return pod;
}

/**
 * Whether the DaemonSet's pod fits the node by name, by node selector and
 * required node affinity, and by taints (`NoSchedule` and `NoExecute`
 * ones it does not tolerate). Go's `predicates`.
 *
 * @category Scheduling
 */
export function predicates(
  pod: Pod,
  node: Node,
  taints: readonly Taint[] | undefined,
): PredicatesResult {
  const podNodeName = pod.spec?.nodeName ?? '';
  return {
    fitsNodeName: podNodeName === '' || podNodeName === nameOf(node),
    fitsNodeAffinity: requiredNodeAffinityMatches(pod, node),
    fitsTaints:
      findMatchingUntoleratedTaint(
        taints,
        pod.spec?.tolerations,
        (t) => t.effect === 'NoExecute' || t.effect === 'NoSchedule',
      ) === undefined,
  };
}

/**
 * Whether the DaemonSet should run a pod on `node`: `shouldRun` when a pod
 * should be started there, `shouldContinueRunning` when a pod already there
 * may stay. The pod's template is checked with the tolerations every daemon
 * pod gets (not-ready and unreachable `NoExecute`; disk-, memory- and
 * pid-pressure and unschedulable `NoSchedule`; network-unavailable for the
 * host network): a node selector, required node affinity or
 * `spec.nodeName` that excludes the node gives `[false, false]`; an
 * untolerated `NoSchedule` taint gives `[false, true]`; an untolerated
 * `NoExecute` taint `[false, false]`. Go's `NodeShouldRunDaemonPod`.
 *
 * @category Scheduling
 */
export function nodeShouldRunDaemonPod(
  node: Node,
  ds: DaemonSet,
): [shouldRun: boolean, shouldContinueRunning: boolean] {
  const pod = newPod(ds, nameOf(node));
  const templateNodeName = ds.spec?.template?.spec?.nodeName ?? '';
  if (templateNodeName !== '' && templateNodeName !== nameOf(node)) return [false, false];
  const taints = node.spec?.taints;
  const { fitsNodeName, fitsNodeAffinity, fitsTaints } = predicates(pod, node, taints);
  if (!fitsNodeName || !fitsNodeAffinity) return [false, false];
  if (!fitsTaints) {
    // A pod already there stays unless a NoExecute taint evicts it.
    const untolerated = findMatchingUntoleratedTaint(
      taints,
      pod.spec?.tolerations,
      (t) => t.effect === 'NoExecute',
    );
    return [false, untolerated === undefined];
  }
  return [true, true];
}
//#endregion node-should-run

/**
 * {@link nodeShouldRunDaemonPod} for one DaemonSet, remembered per node
 * object: the daemon pod (the template with the daemon tolerations) is
 * built once instead of once per node, and each node is decided once
 * however often it is asked. One sync asks about every node up to three
 * times (`manage`, the rolling update's counts, the status), as Go's
 * `syncDaemonSet` does; the answer depends only on the node and the
 * DaemonSet, which the cache replaces rather than changes, so the answers
 * are Go's. Made for one sync and dropped after it: a node updated in
 * between is a new object and is decided afresh.
 *
 * @internal
 */
export function nodeShouldRunDaemonPodFor(
  ds: DaemonSet,
): (node: Node) => [shouldRun: boolean, shouldContinueRunning: boolean] {
  // newPod with the node's name put in per node below: only spec.nodeName
  // differs from one node's pod to the next.
  const shared = newPod(ds, '');
  const sharedSpec = shared.spec!;
  const templateNodeName = ds.spec?.template?.spec?.nodeName ?? '';
  const answers = new Map<Node, [boolean, boolean]>();
  return (node) => {
    let answer = answers.get(node);
    if (answer !== undefined) return answer;
    const nodeName = nameOf(node);
    if (templateNodeName !== '' && templateNodeName !== nodeName) {
      answer = [false, false];
    } else {
      const pod: Pod = { metadata: shared.metadata, spec: { ...sharedSpec, nodeName } };
      const taints = node.spec?.taints;
      const { fitsNodeName, fitsNodeAffinity, fitsTaints } = predicates(pod, node, taints);
      if (!fitsNodeName || !fitsNodeAffinity) answer = [false, false];
      else if (fitsTaints) answer = [true, true];
      else {
        const untolerated = findMatchingUntoleratedTaint(
          taints,
          sharedSpec.tolerations,
          (t) => t.effect === 'NoExecute',
        );
        answer = [false, untolerated === undefined];
      }
    }
    answers.set(node, answer);
    return answer;
  };
}

const zeroTime = -62_135_596_800_000;
const creationTime = (pod: Pod): number => {
  const t = Date.parse(pod.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? zeroTime : t;
};

/**
 * Orders daemon pods: scheduled ones first, then the oldest, then by name.
 * Go's `podByCreationTimestampAndPhase`.
 *
 * @internal
 */
export function podByCreationTimestampAndPhase(a: Pod, b: Pod): number {
  const sa = (a.spec?.nodeName ?? '') !== '';
  const sb = (b.spec?.nodeName ?? '') !== '';
  if (sa !== sb) return sa ? -1 : 1;
  const ta = creationTime(a);
  const tb = creationTime(b);
  if (ta === tb) {
    const na = nameOf(a);
    const nb = nameOf(b);
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return ta - tb;
}

/**
 * The key of the failed pods backoff for one DaemonSet generation on one
 * node: `<uid>/<observedGeneration>/<node>`. Go's `failedPodsBackoffKey`.
 *
 * @internal
 */
export function failedPodsBackoffKey(ds: DaemonSet, nodeName: string): string {
  return `${ds.metadata?.uid ?? ''}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;
}

/**
 * The unscheduled pods meant for nodes that no longer exist: no scheduler
 * binds them and the pod GC does not collect them, so the controller
 * deletes them. Go's `getUnscheduledPodsWithoutNode`.
 *
 * @internal
 */
export function getUnscheduledPodsWithoutNode(
  runningNodesList: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
): string[] {
  const running = new Set(runningNodesList.map(nameOf));
  const results: string[] = [];
  for (const [nodeName, pods] of nodeToDaemonPods) {
    if (running.has(nodeName)) continue;
    for (const pod of pods) if ((pod.spec?.nodeName ?? '') === '') results.push(nameOf(pod));
  }
  return results;
}

/**
 * True when the same condition types are `True` in both lists. Go's
 * `nodeInSameCondition`.
 *
 * @internal
 */
export function nodeInSameCondition(
  old: readonly NodeCondition[] | undefined,
  cur: readonly NodeCondition[] | undefined,
): boolean {
  if ((old ?? []).length === 0 && (cur ?? []).length === 0) return true;
  const trueTypes = new Set((old ?? []).filter((c) => c.status === 'True').map((c) => c.type));
  for (const c of cur ?? []) {
    if (c.status !== 'True') continue;
    if (!trueTypes.has(c.type)) return false;
    trueTypes.delete(c.type);
  }
  return trueTypes.size === 0;
}

/**
 * True when a node update changed nothing that matters: the same true
 * conditions and otherwise equal but for the resource version and the
 * conditions' details (heartbeats). Go's `shouldIgnoreNodeUpdate`.
 *
 * @internal
 */
export function shouldIgnoreNodeUpdate(oldNode: Node, curNode: Node): boolean {
  if (!nodeInSameCondition(oldNode.status?.conditions, curNode.status?.conditions)) return false;
  const strip = (n: Node) => ({
    ...n,
    metadata: { ...n.metadata, resourceVersion: undefined },
    status: { ...n.status, conditions: undefined },
  });
  return deepEqual(strip(oldNode), strip(curNode));
}

/**
 * kube-controller-manager's DaemonSet controller: runs one pod of each
 * DaemonSet on every node its template fits (node selector, required node
 * affinity, taints with the daemon tolerations), pins each pod to its node
 * through required node affinity for the scheduler, replaces failed pods
 * (with a per-node backoff), and rolls template changes out with
 * `RollingUpdate` (`maxUnavailable`, `maxSurge`, `minReadySeconds`) or
 * waits for pods to be deleted with `OnDelete`. Each template version is a
 * ControllerRevision (`<ds>-<hash>`), so `kubectl rollout undo` works; the
 * status counts scheduled, misscheduled, ready, updated and available
 * pods. Go's `DaemonSetsController`.
 *
 * @example
 * ```ts
 * const controller = new DaemonSetsController({
 *   daemonSets: factory.daemonSets(),
 *   controllerRevisions: factory.controllerRevisions(),
 *   pods: factory.pods(),
 *   nodes: factory.nodes(),
 *   client: { daemonSets, controllerRevisions, pods },
 * });
 * factory.start(signal);
 * await controller.run(concurrentDaemonSetSyncs, signal);
 * ```
 *
 * @category DaemonSet controller
 */
export class DaemonSetsController {
  /** The work queue (named `daemonset`), of DaemonSet keys. */
  readonly queue: RateLimitingQueue<string>;
  /** The pod creations and deletions each DaemonSet still waits to see. */
  readonly expectations: ControllerExpectations;
  /** The backoff between deletions of failed daemon pods, per DaemonSet generation and node. */
  readonly failedPodsBackoff: Backoff;
  /**
   * The most pods one sync creates, and the most it deletes
   * ({@link burstReplicas}); tests may lower it.
   */
  burstReplicas = burstReplicas;

  readonly #dsInformer: SharedIndexInformer<DaemonSet>;
  readonly #historyInformer: SharedIndexInformer<ControllerRevision>;
  readonly #podInformer: SharedIndexInformer<Pod>;
  readonly #nodeInformer: SharedIndexInformer<Node>;
  readonly #dsLister: Lister<DaemonSet>;
  readonly #historyLister: Lister<ControllerRevision>;
  readonly #podLister: Lister<Pod>;
  readonly #nodeLister: Lister<Node>;
  readonly #client: DaemonSetsControllerClients;
  readonly #podControl: PodControl;
  readonly #crControl: ControllerRevisionControl;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #host: DaemonSetUpdateHost;
  /**
   * The node decisions of the DaemonSets being synced, by the DaemonSet
   * object each sync read: one worker syncs one key at a time, so one
   * entry per worker at most.
   */
  readonly #placements = new Map<DaemonSet, (node: Node) => [boolean, boolean]>();
  #running = false;

  /** @param options - see {@link DaemonSetsControllerOptions} */
  constructor(options: DaemonSetsControllerOptions) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#client = options.client;
    this.#podControl =
      options.podControl ??
      new RealPodControl({
        client: options.client.pods,
        recorder: this.#recorder,
        logger: this.#logger,
      });
    this.#crControl =
      options.crControl ?? new RealControllerRevisionControl(options.client.controllerRevisions);
    this.failedPodsBackoff =
      options.failedPodsBackoff ??
      new Backoff(failedPodsBackoffInitial, failedPodsBackoffMax, this.#clock);
    this.expectations = new ControllerExpectations({ clock: this.#clock, logger: this.#logger });
    this.queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'daemonset',
      clock: this.#clock,
    });

    this.#dsInformer = options.daemonSets.informer();
    this.#dsInformer.addEventHandler({
      onAdd: (ds) => this.#handle(() => this.addDaemonset(ds)),
      onUpdate: (oldDS, curDS) => this.#handle(() => this.updateDaemonset(oldDS, curDS)),
      onDelete: (ds) => this.#handle(() => this.deleteDaemonset(ds)),
    });
    this.#dsLister = options.daemonSets.lister();

    this.#historyInformer = options.controllerRevisions.informer();
    this.#historyInformer.addEventHandler({
      onAdd: (h) => this.#handle(() => this.addHistory(h)),
      onUpdate: (oldH, curH) => this.#handle(() => this.updateHistory(oldH, curH)),
      onDelete: (h) => this.#handle(() => this.deleteHistory(h)),
    });
    this.#historyLister = options.controllerRevisions.lister();

    this.#podInformer = options.pods.informer();
    this.#podInformer.addEventHandler({
      onAdd: (pod) => this.#handle(() => this.addPod(pod)),
      onUpdate: (oldPod, curPod) => this.#handle(() => this.updatePod(oldPod, curPod)),
      onDelete: (pod) => this.#handle(() => this.deletePod(pod)),
    });
    this.#podLister = options.pods.lister();

    this.#nodeInformer = options.nodes.informer();
    this.#nodeInformer.addEventHandler({
      onAdd: (node) => this.#handle(() => this.addNode(node)),
      onUpdate: (oldNode, curNode) => this.#handle(() => this.updateNode(oldNode, curNode)),
    });
    this.#nodeLister = options.nodes.lister();

    // The few things update.ts needs, without a cycle of imports.
    this.#host = {
      logger: this.#logger,
      clock: this.#clock,
      client: this.#client,
      historyLister: this.#historyLister,
      nodeLister: this.#nodeLister,
      podLister: this.#podLister,
      crControl: this.#crControl,
      getDaemonPods: (ds, signal) => this.getDaemonPods(ds, signal),
      getNodesToDaemonPods: (ds, include, signal) => this.getNodesToDaemonPods(ds, include, signal),
      nodeShouldRunDaemonPod: (node, ds) => this.#nodeShouldRun(node, ds),
      syncNodes: (ds, del, create, hash, signal) => this.syncNodes(ds, del, create, hash, signal),
    };
  }

  //#region run
  /**
   * Waits for the informers' caches to sync, then runs `workers` workers
   * (kube-controller-manager runs {@link concurrentDaemonSetSyncs}) and the
   * failed pods backoff's garbage collection every minute until `signal`
   * aborts; resolves once every worker has stopped and the queue is shut
   * down. A sync in progress when the signal aborts ends at its next
   * request (the signal is passed to the clients); keys still queued are
   * dropped. Go's `Run`.
   *
   * @throws RangeError if `workers` is not an integer ≥ 0; Error if it is
   *   running, or has run and stopped (its queue is shut down for good)
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    if (!Number.isSafeInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${String(workers)}`);
    }
    if (this.#running) throw new Error('DaemonSetsController.run: already running');
    if (this.queue.shuttingDown()) {
      throw new Error('DaemonSetsController.run: this controller has stopped; make a new one');
    }
    this.#running = true;
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    void stopped.then(() => this.queue.shutDown());
    const log = this.#logger;
    log.info('Starting daemon sets controller');
    try {
      const synced = await waitForNamedCacheSync(
        'daemon sets',
        signal,
        [
          () => this.#podInformer.hasSynced(),
          () => this.#nodeInformer.hasSynced(),
          () => this.#historyInformer.hasSynced(),
          () => this.#dsInformer.hasSynced(),
        ],
        {
          clock: this.#clock,
          logger: { info: (m) => log.info(m), error: (m) => log.error(undefined, m) },
        },
      );
      if (!synced) return;
      const running: Promise<void>[] = [];
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      running.push(this.#backoffGC(signal));
      await Promise.all([...running, stopped]);
    } finally {
      this.queue.shutDown();
      this.#running = false;
      log.info('Shutting down daemon sets controller');
    }
  }

  /** Processes keys until the queue shuts down. Go's `runWorker`. */
  async #worker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) {
      // one key per turn
    }
  }

  /** Forgets stale backoff keys every {@link backoffGCInterval}. Go's `wait.Until(failedPodsBackoff.GC, ...)`. */
  async #backoffGC(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.failedPodsBackoff.gc();
      await this.#clock.sleep(backoffGCInterval, signal);
    }
  }

  /**
   * Takes one key, syncs it and marks it done: forgotten by the rate
   * limiter on success, re-added with backoff on failure. Resolves false
   * once the queue has shut down. Go's `processNextWorkItem`.
   */
  async processNextWorkItem(signal?: AbortSignal): Promise<boolean> {
    const [key, quit] = await this.queue.get();
    if (quit) return false;
    try {
      if (signal?.aborted) return false;
      await this.syncDaemonSet(key, signal);
      this.queue.forget(key);
    } catch (err) {
      if (!signal?.aborted) this.#logger.error(err, `${key} failed`);
      this.queue.addRateLimited(key);
    } finally {
      this.queue.done(key);
    }
    return true;
  }
  //#endregion run

  /** Adds the DaemonSet's key to the queue. Go's `enqueue`. */
  enqueue(ds: DaemonSet): void {
    this.queue.add(metaNamespaceKeyFunc(ds));
  }

  /** Adds the DaemonSet's key to the queue in `ms`. Go's `enqueueDaemonSetAfter`. */
  enqueueDaemonSetAfter(ds: DaemonSet, ms: number): void {
    this.queue.addAfter(metaNamespaceKeyFunc(ds), ms);
  }

  //#region handlers
  /** A DaemonSet appeared. Go's `addDaemonset`. */
  addDaemonset(ds: DaemonSet): void {
    this.#logger.v(4).info('Adding daemon set', { daemonset: nsName(ds) });
    this.enqueue(ds);
  }

  /**
   * A DaemonSet changed; one re-created under the same name (a new uid)
   * counts as a deletion of the old one first. Go's `updateDaemonset`.
   */
  updateDaemonset(oldDS: DaemonSet, curDS: DaemonSet): void {
    if (curDS.metadata?.uid !== oldDS.metadata?.uid) {
      this.deleteDaemonset(new DeletedFinalStateUnknown(metaNamespaceKeyFunc(oldDS), oldDS));
    }
    this.#logger.v(4).info('Updating daemon set', { daemonset: nsName(oldDS) });
    this.enqueue(curDS);
  }

  /**
   * A DaemonSet is gone: its expectations are dropped (so one re-created
   * under the name starts clean) and its key queued. Go's `deleteDaemonset`.
   */
  deleteDaemonset(obj: DaemonSet | DeletedFinalStateUnknown<DaemonSet>): void {
    const ds = this.#fromTombstone(obj, 'DaemonSet');
    if (ds === undefined) return;
    this.#logger.v(4).info('Deleting daemon set', { daemonset: nsName(ds) });
    const key = metaNamespaceKeyFunc(ds);
    this.expectations.deleteExpectations(key);
    this.queue.add(key);
  }

  /**
   * A ControllerRevision appeared: nothing to do for an owned one; an
   * orphan wakes the DaemonSets that select it, which may adopt it. Go's
   * `addHistory`.
   */
  addHistory(history: ControllerRevision): void {
    if (history.metadata?.deletionTimestamp) {
      this.deleteHistory(history);
      return;
    }
    const ref = getControllerOf(history);
    if (ref !== undefined) {
      if (this.resolveControllerRef(history.metadata?.namespace ?? '', ref) === undefined) return;
      this.#logger.v(4).info('Observed a ControllerRevision', {
        controllerRevision: nsName(history),
      });
      return;
    }
    const daemonSets = this.getDaemonSetsForHistory(history);
    if (daemonSets.length === 0) return;
    this.#logger.v(4).info('Orphan ControllerRevision added', {
      controllerRevision: nsName(history),
    });
    for (const ds of daemonSets) this.enqueue(ds);
  }

  /**
   * A ControllerRevision changed: its old and new controllers are synced,
   * or, for an orphan whose labels or owner changed, the DaemonSets that
   * select it. Go's `updateHistory`.
   */
  updateHistory(old: ControllerRevision, cur: ControllerRevision): void {
    if (cur.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef !== undefined) {
      const ds = this.resolveControllerRef(old.metadata?.namespace ?? '', oldRef);
      if (ds !== undefined) this.enqueue(ds);
    }
    if (curRef !== undefined) {
      const ds = this.resolveControllerRef(cur.metadata?.namespace ?? '', curRef);
      if (ds === undefined) return;
      this.#logger.v(4).info('Observed an update to a ControllerRevision', {
        controllerRevision: nsName(cur),
      });
      this.enqueue(ds);
      return;
    }
    const labelChanged = !deepEqual(cur.metadata?.labels, old.metadata?.labels);
    if (labelChanged || refChanged) {
      const daemonSets = this.getDaemonSetsForHistory(cur);
      if (daemonSets.length === 0) return;
      this.#logger.v(4).info('Orphan ControllerRevision updated', {
        controllerRevision: nsName(cur),
      });
      for (const ds of daemonSets) this.enqueue(ds);
    }
  }

  /** A ControllerRevision is gone: its controller is synced. Go's `deleteHistory`. */
  deleteHistory(obj: ControllerRevision | DeletedFinalStateUnknown<ControllerRevision>): void {
    const history = this.#fromTombstone(obj, 'ControllerRevision');
    if (history === undefined) return;
    const ref = getControllerOf(history);
    if (ref === undefined) return;
    const ds = this.resolveControllerRef(history.metadata?.namespace ?? '', ref);
    if (ds === undefined) return;
    this.#logger.v(4).info('ControllerRevision deleted', { controllerRevision: nsName(history) });
    this.enqueue(ds);
  }

  /**
   * A pod appeared: observed as a creation of its controller, or, for an
   * orphan, wakes the DaemonSets that select it (no creation observed: no
   * one waits for an orphan). A pod already being deleted counts as a
   * deletion. Go's `addPod`.
   */
  addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref !== undefined) {
      const ds = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (ds === undefined) return;
      this.#logger.v(4).info('Pod added', { pod: nsName(pod) });
      this.expectations.creationObserved(metaNamespaceKeyFunc(ds));
      this.enqueue(ds);
      return;
    }
    const dss = this.getDaemonSetsForPod(pod);
    if (dss.length === 0) return;
    this.#logger.v(4).info('Orphan Pod added', { pod: nsName(pod) });
    for (const ds of dss) this.enqueue(ds);
  }

  /**
   * A pod changed: its old and new controllers are synced (one that turned
   * ready again after `minReadySeconds` + 1 s, to see it available); an
   * orphan whose labels or owner changed wakes the DaemonSets that select
   * it; a pod whose deletion started counts as deleted. Go's `updatePod`.
   */
  updatePod(oldPod: Pod, curPod: Pod): void {
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    if (curPod.metadata?.deletionTimestamp) {
      this.deletePod(curPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !deepEqual(curRef, oldRef);
    if (refChanged && oldRef !== undefined) {
      const ds = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (ds !== undefined) this.enqueue(ds);
    }
    if (curRef !== undefined) {
      const ds = this.resolveControllerRef(curPod.metadata?.namespace ?? '', curRef);
      if (ds === undefined) return;
      this.#logger.v(4).info('Pod updated', { pod: nsName(curPod) });
      this.enqueue(ds);
      const changedToReady = !isPodReady(oldPod) && isPodReady(curPod);
      const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
      if (changedToReady && minReadySeconds > 0) {
        // One more second against millisecond skew in addAfter.
        this.enqueueDaemonSetAfter(ds, minReadySeconds * 1000 + 1000);
      }
      return;
    }
    const dss = this.getDaemonSetsForPod(curPod);
    if (dss.length === 0) return;
    this.#logger.v(4).info('Orphan Pod updated', { pod: nsName(curPod) });
    const labelChanged = !deepEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    if (labelChanged || refChanged) for (const ds of dss) this.enqueue(ds);
  }

  /** A pod is gone: observed as a deletion of its controller. Go's `deletePod`. */
  deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = this.#fromTombstone(obj, 'pod');
    if (pod === undefined) return;
    const ref = getControllerOf(pod);
    if (ref === undefined) return;
    const ds = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (ds === undefined) return;
    this.#logger.v(4).info('Pod deleted', { pod: nsName(pod) });
    this.expectations.deletionObserved(metaNamespaceKeyFunc(ds));
    this.enqueue(ds);
  }

  /** A node appeared: the DaemonSets that should run on it are synced. Go's `addNode`. */
  addNode(node: Node): void {
    for (const ds of this.#dsLister.list()) {
      if (nodeShouldRunDaemonPod(node, ds)[0]) this.enqueue(ds);
    }
  }

  /**
   * A node changed: unless only heartbeats changed, the DaemonSets whose
   * verdict on it changed are synced. Go's `updateNode`.
   */
  updateNode(oldNode: Node, curNode: Node): void {
    if (shouldIgnoreNodeUpdate(oldNode, curNode)) return;
    for (const ds of this.#dsLister.list()) {
      const [oldRun, oldContinue] = nodeShouldRunDaemonPod(oldNode, ds);
      const [curRun, curContinue] = nodeShouldRunDaemonPod(curNode, ds);
      if (oldRun !== curRun || oldContinue !== curContinue) this.enqueue(ds);
    }
  }
  //#endregion handlers

  /**
   * The DaemonSets of the pod's namespace whose (non-empty) selector matches
   * its labels. Go's `getDaemonSetsForPod` and the lister's
   * `GetPodDaemonSets`.
   */
  getDaemonSetsForPod(pod: Pod): DaemonSet[] {
    const sets = this.#selecting(pod.metadata?.namespace ?? '', pod.metadata?.labels);
    if (sets.length > 1) {
      this.#logger.error(
        undefined,
        'user error! more than one daemon is selecting pods with labels',
        { labels: pod.metadata?.labels },
      );
    }
    return sets;
  }

  /**
   * The DaemonSets of the revision's namespace whose selector matches its
   * labels. Go's `getDaemonSetsForHistory` and the lister's
   * `GetHistoryDaemonSets`.
   */
  getDaemonSetsForHistory(history: ControllerRevision): DaemonSet[] {
    const sets = this.#selecting(history.metadata?.namespace ?? '', history.metadata?.labels);
    if (sets.length > 1) {
      this.#logger
        .v(4)
        .info(
          'Found more than one DaemonSet selecting the ControllerRevision. This is potentially a user error',
          { controllerRevision: nsName(history), labels: history.metadata?.labels },
        );
    }
    return sets;
  }

  #selecting(namespace: string, labels: Record<string, string> | undefined): DaemonSet[] {
    if (labels === undefined || Object.keys(labels).length === 0) return [];
    return this.#dsLister
      .byNamespace(namespace)
      .list()
      .filter((ds) => {
        let selector: Selector;
        try {
          selector = labelSelectorAsSelector(ds.spec?.selector);
        } catch {
          return false;
        }
        return !selector.empty() && selector.matches(labels);
      });
  }

  /**
   * The DaemonSet a controller reference names, if it is in the cache with
   * that uid. Go's `resolveControllerRef`.
   */
  resolveControllerRef(namespace: string, ref: OwnerReference): DaemonSet | undefined {
    if (ref.kind !== daemonSetKind.kind) return undefined;
    const ds = this.#dsLister.byNamespace(namespace).tryGet(ref.name);
    if (ds === undefined || ds.metadata?.uid !== ref.uid) return undefined;
    return ds;
  }

  /**
   * The pods the DaemonSet owns, the orphans of its namespace it adopts
   * included, less those it releases. Go's `getDaemonPods`.
   *
   * @throws when the selector is invalid, or an adoption or release fails
   */
  async getDaemonPods(ds: DaemonSet, signal?: AbortSignal): Promise<Pod[]> {
    const selector = labelSelectorAsSelector(ds.spec?.selector);
    const namespace = ds.metadata?.namespace ?? '';
    const pods = this.#podLister.byNamespace(namespace).list();
    const canAdopt = recheckDeletionTimestamp(async () => {
      const fresh = await this.#client.daemonSets
        .inNamespace(namespace)
        .get(nameOf(ds), signal ? { signal } : {});
      if (fresh.metadata?.uid !== ds.metadata?.uid) {
        throw new Error(
          `original DaemonSet ${namespace}/${nameOf(ds)} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${ds.metadata?.uid ?? ''}`,
        );
      }
      return fresh;
    });
    const cm = new PodControllerRefManager(
      this.#podControl,
      withKind(ds),
      selector,
      daemonSetKind,
      canAdopt,
      this.#logger,
    );
    return await cm.claimPods(pods);
  }

  /**
   * The DaemonSet's pods by the node they are for (`spec.nodeName`, or the
   * node their affinity pins them to); terminal pods being deleted are left
   * out unless `includeDeletedTerminal`. Go's `getNodesToDaemonPods`.
   */
  async getNodesToDaemonPods(
    ds: DaemonSet,
    includeDeletedTerminal: boolean,
    signal?: AbortSignal,
  ): Promise<Map<string, Pod[]>> {
    const claimed = await this.getDaemonPods(ds, signal);
    const nodeToDaemonPods = new Map<string, Pod[]>();
    for (const pod of claimed) {
      if (!includeDeletedTerminal && isPodTerminal(pod) && pod.metadata?.deletionTimestamp) {
        continue;
      }
      let nodeName: string;
      try {
        nodeName = getTargetNodeName(pod);
      } catch {
        this.#logger.v(4).info('Failed to get target node name of Pod in DaemonSet', {
          pod: nsName(pod),
          daemonset: nsName(ds),
        });
        continue;
      }
      const list = nodeToDaemonPods.get(nodeName);
      if (list === undefined) nodeToDaemonPods.set(nodeName, [pod]);
      else list.push(pod);
    }
    return nodeToDaemonPods;
  }

  //#region pods-should-be-on-node
  /**
   * What to do on one node: whether it needs a daemon pod, and which of its
   * pods to delete (failed ones, at most once per backoff step, with a
   * `FailedDaemonPod` event; succeeded ones with `SucceededDaemonPod`; all
   * but the oldest running one without surge; with surge, all but the
   * oldest updated and the oldest old pod, and the old one too once the
   * updated one is available or the old one is not ready; all of them on a
   * node the DaemonSet must leave). Go's `podsShouldBeOnNode`.
   */
  podsShouldBeOnNode(
    node: Node,
    nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
    ds: DaemonSet,
    hash: string,
  ): PodsOnNode {
    const nodesNeedingDaemonPods: string[] = [];
    const podsToDelete: string[] = [];
    const [shouldRun, shouldContinueRunning] = this.#nodeShouldRun(node, ds);
    const nodeName = nameOf(node);
    const daemonPods = nodeToDaemonPods.get(nodeName);
    const exists = daemonPods !== undefined;
    const log = this.#logger;
    if (shouldRun && !exists) {
      nodesNeedingDaemonPods.push(nodeName);
    } else if (shouldContinueRunning) {
      const running: Pod[] = [];
      for (const pod of daemonPods ?? []) {
        if (pod.metadata?.deletionTimestamp) continue;
        const phase = pod.status?.phase;
        if (phase === 'Failed') {
          // Kubelets that reject pods make them fail at once: back off.
          const backoffKey = failedPodsBackoffKey(ds, nodeName);
          const now = this.failedPodsBackoff.clock.now();
          if (this.failedPodsBackoff.isInBackOffSinceUpdate(backoffKey, now)) {
            const delay = this.failedPodsBackoff.get(backoffKey);
            log.v(4).info('Deleting failed pod on node has been limited by backoff', {
              pod: nsName(pod),
              node: nodeName,
              currentDelay: delay,
            });
            this.enqueueDaemonSetAfter(ds, delay);
            continue;
          }
          this.failedPodsBackoff.next(backoffKey, now);
          log.v(2).info('Found failed daemon pod on node, will try to kill it', {
            pod: nsName(pod),
            node: nodeName,
          });
          this.#recorder.event(
            withKind(ds),
            'Warning',
            failedDaemonPodReason,
            `Found failed daemon pod ${nsName(pod)} on node ${nodeName}, will try to kill it`,
          );
          podsToDelete.push(nameOf(pod));
        } else if (phase === 'Succeeded') {
          log.v(2).info('Found succeeded daemon pod on node, will try to delete it', {
            pod: nsName(pod),
            node: nodeName,
          });
          this.#recorder.event(
            withKind(ds),
            'Normal',
            succeededDaemonPodReason,
            `Found succeeded daemon pod ${nsName(pod)} on node ${nodeName}, will try to delete it`,
          );
          podsToDelete.push(nameOf(pod));
        } else {
          running.push(pod);
        }
      }
      if (!allowsSurge(ds)) {
        // Keep the oldest running pod only.
        if (running.length > 1) {
          running.sort(podByCreationTimestampAndPhase);
          for (const pod of running.slice(1)) podsToDelete.push(nameOf(pod));
        }
      } else if (running.length <= 1) {
        // Surging: a node needs one pod not being deleted.
        if (running.length === 0 && shouldRun) nodesNeedingDaemonPods.push(nodeName);
      } else {
        // Surging: keep the oldest updated and the oldest old pod, the
        // old one only while it is ready and the updated one not available.
        running.sort(podByCreationTimestampAndPhase);
        let oldestNewPod: Pod | undefined;
        let oldestOldPod: Pod | undefined;
        for (const pod of running) {
          if (pod.metadata?.labels?.[controllerRevisionHashLabelKey] === hash) {
            if (oldestNewPod === undefined) {
              oldestNewPod = pod;
              continue;
            }
          } else if (oldestOldPod === undefined) {
            oldestOldPod = pod;
            continue;
          }
          podsToDelete.push(nameOf(pod));
        }
        if (oldestNewPod !== undefined && oldestOldPod !== undefined) {
          const now = this.failedPodsBackoff.clock.now();
          if (!isPodReady(oldestOldPod)) {
            log
              .v(5)
              .info('Pod from daemonset is no longer ready and will be replaced with newer pod', {
                oldPod: nsName(oldestOldPod),
                newPod: nsName(oldestNewPod),
              });
            podsToDelete.push(nameOf(oldestOldPod));
          } else if (isPodAvailable(oldestNewPod, ds.spec?.minReadySeconds ?? 0, now)) {
            log.v(5).info('Pod from daemonset is now ready and will replace older pod', {
              newPod: nsName(oldestNewPod),
              oldPod: nsName(oldestOldPod),
            });
            podsToDelete.push(nameOf(oldestOldPod));
          }
        }
      }
    } else if (exists) {
      // The node must not run the DaemonSet: delete every pod there.
      for (const pod of daemonPods) {
        if (pod.metadata?.deletionTimestamp) continue;
        podsToDelete.push(nameOf(pod));
      }
    }
    return { nodesNeedingDaemonPods, podsToDelete };
  }
  //#endregion pods-should-be-on-node

  //#region manage
  /**
   * Creates the pods the nodes need and deletes those they must lose,
   * including unscheduled pods for nodes that are gone. Go's `manage`.
   */
  async manage(
    ds: DaemonSet,
    nodeList: readonly Node[],
    hash: string,
    signal?: AbortSignal,
  ): Promise<void> {
    let nodeToDaemonPods: Map<string, Pod[]>;
    try {
      nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false, signal);
    } catch (err) {
      throw new Error(
        `couldn't get node to daemon pod mapping for daemon set ${JSON.stringify(nameOf(ds))}: ${messageOf(err)}`,
        { cause: err },
      );
    }
    const nodesNeedingDaemonPods: string[] = [];
    const podsToDelete: string[] = [];
    for (const node of nodeList) {
      const onNode = this.podsShouldBeOnNode(node, nodeToDaemonPods, ds, hash);
      nodesNeedingDaemonPods.push(...onNode.nodesNeedingDaemonPods);
      podsToDelete.push(...onNode.podsToDelete);
    }
    podsToDelete.push(...getUnscheduledPodsWithoutNode(nodeList, nodeToDaemonPods));
    await this.syncNodes(ds, podsToDelete, nodesNeedingDaemonPods, hash, signal);
  }
  //#endregion manage

  //#region sync-nodes
  /**
   * Deletes `podsToDelete` and creates a pod, labelled with `hash`, on each
   * of `nodesNeedingDaemonPods`, at most {@link burstReplicas} of each, with
   * the expectations set first. Creations go in slow-start batches (1, 2,
   * 4, ...) that stop after a failing batch; the pods never tried are taken
   * off the expectations. Go's `syncNodes`.
   *
   * @throws the error of a failed creation or deletion (all of them, in an
   *   AggregateError, when several failed); a pod already gone is no error
   */
  async syncNodes(
    ds: DaemonSet,
    podsToDelete: readonly string[],
    nodesNeedingDaemonPods: readonly string[],
    hash: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const dsKey = metaNamespaceKeyFunc(ds);
    const createDiff = Math.min(nodesNeedingDaemonPods.length, this.burstReplicas);
    const deleteDiff = Math.min(podsToDelete.length, this.burstReplicas);
    this.expectations.setExpectations(dsKey, createDiff, deleteDiff);
    const errors: Error[] = [];
    const log = this.#logger;
    log.v(4).info('Nodes needing daemon pods for daemon set, creating', {
      daemonset: nsName(ds),
      needCount: nodesNeedingDaemonPods.length,
      createCount: createDiff,
    });
    const template = createPodTemplate(ds.spec?.template, templateGenerationOrUndefined(ds), hash);
    const owner = withKind(ds);
    const controllerRef = newControllerRef(ds, daemonSetKind);
    const namespace = ds.metadata?.namespace ?? '';
    let next = 0;
    let failures = 0;
    const { successes, error } = await slowStartBatch(
      createDiff,
      slowStartInitialBatchSize,
      async () => {
        const nodeName = nodesNeedingDaemonPods[next++]!;
        const podTemplate = structuredClone(template);
        podTemplate.spec!.affinity = replaceDaemonSetPodNodeNameNodeAffinity(
          podTemplate.spec!.affinity,
          nodeName,
        );
        try {
          await this.#podControl.createPods(namespace, podTemplate, owner, controllerRef, signal);
        } catch (err) {
          // Every create fails while the namespace terminates: not an error.
          if (hasStatusCause(err, namespaceTerminatingCause)) return;
          log.v(2).info('Failed creation, decrementing expectations for daemon set', {
            daemonset: nsName(ds),
          });
          this.expectations.creationObserved(dsKey);
          failures++;
          errors.push(asError(err));
          throw err;
        }
      },
    );
    const skippedPods = createDiff - successes - failures;
    if (error !== undefined && skippedPods > 0) {
      log.v(2).info('Slow-start failure. Skipping creation pods, decrementing expectations', {
        skippedPods,
        daemonset: nsName(ds),
      });
      this.expectations.lowerExpectations(dsKey, skippedPods, 0);
    }

    log.v(4).info('Pods to delete for daemon set, deleting', {
      daemonset: nsName(ds),
      toDeleteCount: podsToDelete.length,
      deleteCount: deleteDiff,
    });
    await Promise.all(
      podsToDelete.slice(0, deleteDiff).map(async (name) => {
        try {
          await this.#podControl.deletePod(namespace, name, owner, signal);
        } catch (err) {
          this.expectations.deletionObserved(dsKey);
          if (!isNotFound(err)) {
            log.v(2).info('Failed deletion, decremented expectations for daemon set', {
              daemonset: nsName(ds),
            });
            errors.push(asError(err));
          }
        }
      }),
    );
    const err = aggregate(errors);
    if (err !== undefined) throw err;
  }
  //#endregion sync-nodes

  /**
   * Writes the counts into the DaemonSet's status unless they are there
   * already (and `observedGeneration` is current); a failed write is retried
   * once on a fresh read. Go's `storeDaemonSetStatus`.
   */
  async storeDaemonSetStatus(
    ds: DaemonSet,
    status: Required<
      Pick<
        NonNullable<DaemonSet['status']>,
        | 'desiredNumberScheduled'
        | 'currentNumberScheduled'
        | 'numberMisscheduled'
        | 'numberReady'
        | 'updatedNumberScheduled'
        | 'numberAvailable'
        | 'numberUnavailable'
      >
    >,
    updateObservedGen: boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    const s = ds.status;
    const generation = ds.metadata?.generation ?? 0;
    if (
      (s?.desiredNumberScheduled ?? 0) === status.desiredNumberScheduled &&
      (s?.currentNumberScheduled ?? 0) === status.currentNumberScheduled &&
      (s?.numberMisscheduled ?? 0) === status.numberMisscheduled &&
      (s?.numberReady ?? 0) === status.numberReady &&
      (s?.updatedNumberScheduled ?? 0) === status.updatedNumberScheduled &&
      (s?.numberAvailable ?? 0) === status.numberAvailable &&
      (s?.numberUnavailable ?? 0) === status.numberUnavailable &&
      (s?.observedGeneration ?? 0) >= generation
    ) {
      return;
    }
    const client = this.#client.daemonSets.inNamespace(ds.metadata?.namespace ?? '');
    const opts = signal ? { signal } : {};
    let toUpdate = structuredClone(ds);
    let updateErr: unknown;
    for (let i = 0; ; i++) {
      toUpdate = {
        ...toUpdate,
        status: {
          ...toUpdate.status!,
          ...status,
          ...(updateObservedGen && { observedGeneration: generation }),
        },
      };
      try {
        await client.updateStatus(toUpdate, opts);
        return;
      } catch (err) {
        updateErr = err;
      }
      if (i >= statusUpdateRetries) break;
      // A fresh read to write over; its error says more than the update's.
      toUpdate = await client.get(nameOf(ds), opts);
    }
    throw updateErr;
  }

  //#region status
  /**
   * Counts the DaemonSet's pods per node into its status: desired,
   * current and misscheduled, and of the oldest pod on each node whether it
   * is ready, available and updated. Resyncs after `minReadySeconds` while
   * ready pods are not yet available. Go's `updateDaemonSetStatus`.
   */
  async updateDaemonSetStatus(
    ds: DaemonSet,
    nodeList: readonly Node[],
    hash: string,
    updateObservedGen: boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    let nodeToDaemonPods: Map<string, Pod[]>;
    try {
      nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false, signal);
    } catch (err) {
      throw new Error(
        `couldn't get node to daemon pod mapping for daemon set ${JSON.stringify(nameOf(ds))}: ${messageOf(err)}`,
        { cause: err },
      );
    }
    let desiredNumberScheduled = 0;
    let currentNumberScheduled = 0;
    let numberMisscheduled = 0;
    let numberReady = 0;
    let updatedNumberScheduled = 0;
    let numberAvailable = 0;
    const now = this.failedPodsBackoff.clock.now();
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const generation = templateGenerationOrUndefined(ds);
    for (const node of nodeList) {
      const [shouldRun] = this.#nodeShouldRun(node, ds);
      const daemonPods = nodeToDaemonPods.get(nameOf(node)) ?? [];
      const scheduled = daemonPods.length > 0;
      if (shouldRun) {
        desiredNumberScheduled++;
        if (!scheduled) continue;
        currentNumberScheduled++;
        const pod = [...daemonPods].sort(podByCreationTimestampAndPhase)[0]!;
        if (isPodReady(pod)) {
          numberReady++;
          if (isPodAvailable(pod, minReadySeconds, now)) numberAvailable++;
        }
        if (isPodUpdated(pod, hash, generation)) updatedNumberScheduled++;
      } else if (scheduled) {
        numberMisscheduled++;
      }
    }
    const numberUnavailable = desiredNumberScheduled - numberAvailable;
    try {
      await this.storeDaemonSetStatus(
        ds,
        {
          desiredNumberScheduled,
          currentNumberScheduled,
          numberMisscheduled,
          numberReady,
          updatedNumberScheduled,
          numberAvailable,
          numberUnavailable,
        },
        updateObservedGen,
        signal,
      );
    } catch (err) {
      throw new Error(`error storing status for daemon set ${nsName(ds)}: ${messageOf(err)}`, {
        cause: err,
      });
    }
    // Against clock skew: look again once minReadySeconds have passed.
    if (minReadySeconds > 0 && numberReady !== numberAvailable) {
      this.enqueueDaemonSetAfter(ds, minReadySeconds * 1000);
    }
  }
  //#endregion status

  /**
   * `manage`, then, once the expectations are met, the update strategy's
   * step (`RollingUpdate`; nothing for `OnDelete`), then the revision
   * history's cleanup. Go's `updateDaemonSet`.
   */
  async updateDaemonSet(
    ds: DaemonSet,
    nodeList: readonly Node[],
    hash: string,
    key: string,
    old: readonly ControllerRevision[],
    signal?: AbortSignal,
  ): Promise<void> {
    await this.manage(ds, nodeList, hash, signal);
    if (this.expectations.satisfiedExpectations(key)) {
      if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        await rollingUpdate(this.#host, ds, nodeList, hash, signal);
      }
    }
    try {
      await cleanupHistory(this.#host, ds, old, signal);
    } catch (err) {
      throw new Error(`failed to clean up revisions of DaemonSet: ${messageOf(err)}`, {
        cause: err,
      });
    }
  }

  //#region sync
  /**
   * Syncs the DaemonSet of `key`: its revision history, then (once its
   * earlier creations and deletions have been seen) its pods and update
   * step, then its status. A DaemonSet gone from the cache has its
   * expectations dropped; one with an empty selector gets a `SelectingAll`
   * warning and is left alone; one being deleted is left alone. Go's
   * `syncDaemonSet`.
   *
   * @throws the first error; the status error too is logged when both fail
   */
  async syncDaemonSet(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    let ds: DaemonSet | undefined;
    try {
      const { namespace, name } = splitMetaNamespaceKey(key);
      ds = this.#dsLister.byNamespace(namespace).tryGet(name);
      if (ds === undefined) {
        this.#logger.v(3).info('Daemon set has been deleted', { daemonset: key });
        this.expectations.deleteExpectations(key);
        return;
      }
      // Each node decided once for this sync's three walks of the nodes.
      this.#placements.set(ds, nodeShouldRunDaemonPodFor(ds));
      const nodeList = this.#nodeLister.list();
      const sel = ds.spec?.selector;
      // Exactly `{}`: a selector with an empty matchLabels is not caught (as upstream).
      if (sel !== undefined && Object.values(sel).every((v) => v === undefined)) {
        this.#recorder.event(
          withKind(ds),
          'Warning',
          selectingAllReason,
          'This daemon set is selecting all pods. A non-empty selector is required.',
        );
        return;
      }
      const dsKey = metaNamespaceKeyFunc(ds);
      if (ds.metadata?.deletionTimestamp) return;
      let cur: ControllerRevision;
      let old: ControllerRevision[];
      try {
        ({ cur, old } = await constructHistory(this.#host, ds, signal));
      } catch (err) {
        throw new Error(`failed to construct revisions of DaemonSet: ${messageOf(err)}`, {
          cause: err,
        });
      }
      const hash = cur.metadata?.labels?.[controllerRevisionHashLabelKey] ?? '';
      if (!this.expectations.satisfiedExpectations(dsKey)) {
        // Status only; the generation was not acted on.
        await this.updateDaemonSetStatus(ds, nodeList, hash, false, signal);
        return;
      }
      let err: Error | undefined;
      try {
        await this.updateDaemonSet(ds, nodeList, hash, dsKey, old, signal);
      } catch (e) {
        err = asError(e);
      }
      try {
        await this.updateDaemonSetStatus(ds, nodeList, hash, true, signal);
      } catch (statusErr) {
        if (err === undefined) throw statusErr;
        this.#logger.error(statusErr, 'Failed to update status', { daemonSet: nsName(ds) });
      }
      if (err !== undefined) throw err;
    } finally {
      if (ds !== undefined) this.#placements.delete(ds);
      this.#logger.v(4).info('Finished syncing daemon set', {
        daemonset: key,
        time: `${this.#clock.since(start)}ms`,
      });
    }
  }
  //#endregion sync

  /**
   * {@link nodeShouldRunDaemonPod}, answered from the sync's decisions
   * while `ds` is being synced, so that `manage`, the rolling update and
   * the status decide each node once between them.
   */
  #nodeShouldRun(node: Node, ds: DaemonSet): [boolean, boolean] {
    const decide = this.#placements.get(ds);
    return decide === undefined ? nodeShouldRunDaemonPod(node, ds) : decide(node);
  }

  /** Runs an informer notification, logging what it throws. */
  #handle(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger.error(err, 'Failed to handle an informer notification');
    }
  }

  /** The object of a delete notification, or `undefined` (logged) for a tombstone without one. */
  #fromTombstone<T extends object>(
    obj: T | DeletedFinalStateUnknown<T>,
    kind: string,
  ): T | undefined {
    if (!isDeletedFinalStateUnknown(obj)) return obj;
    const inner = obj.obj;
    if (inner === undefined || inner === null || typeof inner !== 'object') {
      this.#logger.error(undefined, `tombstone contained object that is not a ${kind}`, {
        key: obj.key,
      });
      return undefined;
    }
    return inner;
  }
}
