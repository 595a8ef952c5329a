// The disruption controller: Go's pkg/controller/disruption/disruption.go
// (DeletionTimeout, stalePodDisruptionTimeout, NewDisruptionController[Internal],
// finders, getPodReplicaSet, getPodStatefulSet, getPodDeployment,
// getPodReplicationController, verifyGroupKind, Run, the pod and PDB
// handlers, getPdbForPod, getPodsForPdb, sync, trySync,
// syncStalePodDisruption, getExpectedPodCount, getExpectedScale,
// countHealthyPods, buildDisruptedPodMap, failSafe, updatePdbStatus,
// writePdbStatus, nonTerminatingPodHasStaleDisruptionCondition). For every
// PodDisruptionBudget it counts the pods expected, healthy and wanted
// healthy, and writes how many may be disrupted now, which the eviction API
// consults. Pods whose controller is not a ReplicationController,
// ReplicaSet, Deployment or StatefulSet are not looked up through the scale
// subresource as upstream's last finder (getScaleController) does: their
// PDB fails with "found no controllers for pod".
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodStatus, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import {
  getControllerOf,
  isConflict,
  isDeletedFinalStateUnknown,
  labelSelectorAsSelector,
  noopEventRecorder,
  noopLogger,
  parseGroupVersion,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type DeletedFinalStateUnknown,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { getScaledValueFromIntOrPercent } from '@kcm-ts/deployment';
import {
  informerResources,
  waitForNamedCacheSync,
  type ResourceClientSource,
  type ResourceInformer,
} from '@kcm-ts/informer';
import {
  defaultControllerRateLimiter,
  newDelayingQueue,
  newRateLimitingQueue,
  type DelayingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  disruptionAllowedCondition,
  disruptionReasons,
  disruptionTargetCondition,
  formatLabelSelector,
  getPodCondition,
  isPodPhaseTerminal,
  isPodReady,
  podDisruptionBudgetsForPod,
  setStatusCondition,
  timeOf,
  updateDisruptionAllowedCondition,
  updatePodCondition,
  conditionsAreUpToDate,
} from './pdb-helpers.js';

/**
 * How long, in ms, a pod may stay in a PDB's `disruptedPods` without being
 * seen to be deleted before it is dropped from there and counted again:
 * Go's `DeletionTimeout` (2 minutes).
 *
 * @category Disruption controller
 */
export const deletionTimeout = 2 * 60_000;

/**
 * How long, in ms, a pod not being deleted may carry a True
 * `DisruptionTarget` condition before the controller sets it False: Go's
 * `stalePodDisruptionTimeout` (2 minutes).
 *
 * @category Disruption controller
 */
export const stalePodDisruptionTimeout = 2 * 60_000;

/** The reason of a DisruptionTarget condition the kubelet set: Go's `v1.PodReasonTerminationByKubelet`. */
const terminationByKubelet = 'TerminationByKubelet';

/**
 * A controller of pods and the replicas it wants: Go's `controllerAndScale`.
 *
 * @category Disruption controller
 */
export interface ControllerAndScale {
  /** The controller's uid. */
  uid: string;
  /** Its `spec.replicas`. */
  scale: number;
}

/**
 * What a {@link DisruptionController} is made from: Go's
 * `NewDisruptionControllerInternal` arguments, with the scale client, REST
 * mapper and discovery left out (see the file header).
 *
 * @category Disruption controller
 */
export interface DisruptionControllerOptions {
  /** Names the controller in logs. Default `disruption-controller`. */
  controllerName?: string;
  /** Writes PDB status and pod status. */
  client: ResourceClientSource;
  /** The shared pod informer. */
  podInformer: ResourceInformer<Pod>;
  /** The shared PodDisruptionBudget informer. */
  pdbInformer: ResourceInformer<PodDisruptionBudget>;
  /** The shared ReplicationController informer; without it no pod is found to have one. */
  replicationControllerInformer?: ResourceInformer<ReplicationController>;
  /** The shared ReplicaSet informer; without it no pod is found to have one (nor a Deployment). */
  replicaSetInformer?: ResourceInformer<ReplicaSet>;
  /** The shared Deployment informer; without it no pod is found to have one. */
  deploymentInformer?: ResourceInformer<Deployment>;
  /** The shared StatefulSet informer; without it no pod is found to have one. */
  statefulSetInformer?: ResourceInformer<StatefulSet>;
  /** Records events; upstream's source component is `controllermanager`. Default: none. */
  recorder?: EventRecorder;
  /** Go's `stalePodDisruptionTimeout`, in ms, for tests. Default 2 minutes. */
  stalePodDisruptionTimeout?: number;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/** A PDB's status field with Go's zero values for what is missing. */
function statusOf(pdb: PodDisruptionBudget): PodDisruptionBudgetStatus {
  return {
    currentHealthy: pdb.status?.currentHealthy ?? 0,
    desiredHealthy: pdb.status?.desiredHealthy ?? 0,
    expectedPods: pdb.status?.expectedPods ?? 0,
    disruptionsAllowed: pdb.status?.disruptionsAllowed ?? 0,
    ...pdb.status,
  };
}

/** Go's semantic equality of two `disruptedPods` maps: nil and empty alike, times by instant. */
function sameDisruptedPods(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>>,
): boolean {
  const x = a ?? {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && timeOf(x[k]) === timeOf(b[k]));
}

/** `namespace/name` of an object. */
const keyOf = (obj: { metadata?: { namespace?: string; name?: string } }): string =>
  `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

/**
 * Whether `ref` points at `kind` in one of `groups`; throws when its
 * apiVersion does not parse. Go's `verifyGroupKind`.
 */
function verifyGroupKind(ref: OwnerReference, kind: string, groups: readonly string[]): boolean {
  const gv = parseGroupVersion(ref.apiVersion);
  if (ref.kind !== kind) return false;
  return groups.includes(gv.group);
}

/**
 * kube-controller-manager's `disruption-controller`: keeps the status of
 * every PodDisruptionBudget (expected, healthy and desired-healthy pods,
 * disruptions allowed, the `DisruptionAllowed` condition, the disrupted
 * pods still awaited) and clears `DisruptionTarget` conditions that were
 * never followed by a deletion. Go's `DisruptionController`.
 *
 * @category Disruption controller
 */
export class DisruptionController {
  readonly #name: string;
  readonly #pdbs: ResourceClient<PodDisruptionBudget>;
  readonly #pods: ResourceClient<Pod>;
  readonly #podInformer: ResourceInformer<Pod>;
  readonly #pdbInformer: ResourceInformer<PodDisruptionBudget>;
  readonly #rcInformer: ResourceInformer<ReplicationController> | undefined;
  readonly #rsInformer: ResourceInformer<ReplicaSet> | undefined;
  readonly #dInformer: ResourceInformer<Deployment> | undefined;
  readonly #ssInformer: ResourceInformer<StatefulSet> | undefined;
  readonly #queue: RateLimitingQueue<string>;
  readonly #recheckQueue: DelayingQueue<string>;
  readonly #staleQueue: RateLimitingQueue<string>;
  readonly #staleTimeout: number;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link DisruptionControllerOptions} */
  constructor(opts: DisruptionControllerOptions) {
    this.#name = opts.controllerName ?? 'disruption-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#recorder = opts.recorder ?? noopEventRecorder;
    this.#staleTimeout = opts.stalePodDisruptionTimeout ?? stalePodDisruptionTimeout;
    this.#pdbs = opts.client.resource<PodDisruptionBudget>(informerResources.podDisruptionBudgets, {
      namespaced: true,
      kind: 'PodDisruptionBudget',
    });
    this.#pods = opts.client.resource<Pod>(informerResources.pods, {
      namespaced: true,
      kind: 'Pod',
    });
    this.#podInformer = opts.podInformer;
    this.#pdbInformer = opts.pdbInformer;
    this.#rcInformer = opts.replicationControllerInformer;
    this.#rsInformer = opts.replicaSetInformer;
    this.#dInformer = opts.deploymentInformer;
    this.#ssInformer = opts.statefulSetInformer;
    // Asking for each informer now, as Go's constructor takes their
    // HasSynced, registers it with the factory before the factory starts.
    for (const i of [this.#rcInformer, this.#rsInformer, this.#dInformer, this.#ssInformer]) {
      i?.informer();
    }
    const clock = this.#clock;
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
      clock,
      delayingQueue: newDelayingQueue<string>({ name: 'disruption', clock }),
    });
    this.#recheckQueue = newDelayingQueue<string>({ name: 'disruption_recheck', clock });
    this.#staleQueue = newRateLimitingQueue<string>(defaultControllerRateLimiter(clock), {
      clock,
      delayingQueue: newDelayingQueue<string>({ name: 'stale_pod_disruption', clock }),
    });
    this.#podInformer.informer().addEventHandler({
      onAdd: (pod) => this.#podChanged(pod),
      onUpdate: (_old, pod) => this.#podChanged(pod),
      onDelete: (pod) => this.#podDeleted(pod),
    });
    this.#pdbInformer.informer().addEventHandler({
      onAdd: (pdb) => this.#queue.add(keyOf(pdb)),
      onUpdate: (_old, pdb) => this.#queue.add(keyOf(pdb)),
      onDelete: (obj) => {
        const pdb = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        if (pdb === undefined) {
          this.#logger.error(undefined, "Couldn't get object from tombstone", {});
          return;
        }
        this.#queue.add(keyOf(pdb));
      },
    });
  }

  /** Go's `addPod` and `updatePod`. */
  #podChanged(pod: Pod): void {
    const pdb = this.#getPdbForPod(pod);
    if (pdb !== undefined) this.#queue.add(keyOf(pdb));
    const [has, cleanAfter] = this.#nonTerminatingPodHasStaleDisruptionCondition(pod);
    if (has) this.#staleQueue.addAfter(keyOf(pod), cleanAfter);
  }

  /** Go's `deletePod`. */
  #podDeleted(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
    if (pod === undefined) {
      this.#logger.error(undefined, "Couldn't get object from tombstone", {});
      return;
    }
    const pdb = this.#getPdbForPod(pod);
    if (pdb !== undefined) this.#queue.add(keyOf(pdb));
  }

  /**
   * The first PDB whose selector matches the pod; with several, a Warning
   * `MultiplePodDisruptionBudgets` on the pod. Go's `getPdbForPod`.
   */
  #getPdbForPod(pod: Pod): PodDisruptionBudget | undefined {
    const ns = pod.metadata?.namespace ?? '';
    const pdbs = podDisruptionBudgetsForPod(pod, this.#pdbInformer.lister().byNamespace(ns).list());
    const first = pdbs[0];
    if (first === undefined) return undefined;
    if (pdbs.length > 1) {
      const msg = `Pod ${JSON.stringify(ns)}/${JSON.stringify(pod.metadata?.name ?? '')} matches multiple PodDisruptionBudgets.  Chose ${JSON.stringify(first.metadata?.name ?? '')} arbitrarily.`;
      this.#logger.info(msg);
      this.#recorder.event(pod, 'Warning', 'MultiplePodDisruptionBudgets', msg);
    }
    return first;
  }

  /** The pods of the PDB's namespace its selector matches (none for no selector): Go's `getPodsForPdb`. */
  #getPodsForPdb(pdb: PodDisruptionBudget): Pod[] {
    const selector = labelSelectorAsSelector(pdb.spec?.selector);
    return this.#podInformer
      .lister()
      .byNamespace(pdb.metadata?.namespace ?? '')
      .list(selector);
  }

  /**
   * Waits for every informer to sync, then runs the PDB worker, the
   * recheck worker and the stale-condition worker, one each, until `signal`
   * aborts; resolves once they have stopped. Go's `Run`.
   */
  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const shutDown = () => {
      this.#queue.shutDown();
      this.#recheckQueue.shutDown();
      this.#staleQueue.shutDown();
    };
    if (signal.aborted) shutDown();
    else signal.addEventListener('abort', shutDown, { once: true });
    try {
      const informers = [
        this.#podInformer,
        this.#pdbInformer,
        this.#rcInformer,
        this.#rsInformer,
        this.#dInformer,
        this.#ssInformer,
      ].flatMap((i) => (i === undefined ? [] : [i.informer()]));
      const synced = await waitForNamedCacheSync(
        this.#name,
        signal,
        informers.map((i) => () => i.hasSynced()),
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      running.push(this.#worker(signal), this.#recheckWorker(), this.#staleWorker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', shutDown);
      shutDown();
      await Promise.all(running);
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  /** Go's `worker` and `processNextWorkItem`. */
  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.sync(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        if (!signal.aborted) {
          this.#logger.error(err, `Error syncing PodDisruptionBudget ${key}, requeuing`);
        }
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /** Moves PDBs whose recheck time has come into the main queue: Go's `recheckWorker`. */
  async #recheckWorker(): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#recheckQueue.get();
      if (quit) return;
      this.#queue.addRateLimited(key);
      this.#recheckQueue.done(key);
    }
  }

  /** Go's `stalePodDisruptionWorker` and `processNextStalePodDisruptionWorkItem`. */
  async #staleWorker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#staleQueue.get();
      if (quit) return;
      try {
        await this.syncStalePodDisruption(key, signal);
        this.#staleQueue.forget(key);
      } catch (err) {
        if (!signal.aborted) {
          this.#logger.error(
            err,
            `error syncing Pod ${key} to clear DisruptionTarget condition, requeueing`,
          );
        }
        this.#staleQueue.addRateLimited(key);
      } finally {
        this.#staleQueue.done(key);
      }
    }
  }

  /**
   * Brings the status of the PDB `namespace/name` up to date. A failure
   * other than a conflict is followed by the fail-safe write
   * (disruptionsAllowed 0, condition SyncFailed), whose own error is thrown.
   * Go's `sync`.
   */
  async sync(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    try {
      const { namespace, name } = splitMetaNamespaceKey(key);
      const pdb = this.#pdbInformer.lister().byNamespace(namespace).tryGet(name);
      if (pdb === undefined) {
        this.#logger.v(4).info('podDisruptionBudget has been deleted', { key });
        return;
      }
      try {
        await this.#trySync(pdb, signal);
      } catch (err) {
        // A conflict is retried as it is, without the fail-safe write.
        if (isConflict(err)) throw err;
        this.#logger.error(err, 'Failed to sync PDB', { podDisruptionBudget: key });
        await this.#failSafe(pdb, err, signal);
      }
    } finally {
      this.#logger.v(4).info('Finished syncing PodDisruptionBudget', {
        key,
        duration: this.#clock.now() - start,
      });
    }
  }

  /** Go's `trySync`. */
  async #trySync(pdb: PodDisruptionBudget, signal: AbortSignal | undefined): Promise<void> {
    let pods: Pod[];
    try {
      pods = this.#getPodsForPdb(pdb);
    } catch (err) {
      this.#recorder.event(pdb, 'Warning', 'NoPods', `Failed to get pods: ${message(err)}`);
      throw err;
    }
    if (pods.length === 0) this.#recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');

    let counts: { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] };
    try {
      counts = this.#getExpectedPodCount(pdb, pods);
    } catch (err) {
      this.#recorder.event(
        pdb,
        'Warning',
        'CalculateExpectedPodCountFailed',
        `Failed to calculate the number of expected pods: ${message(err)}`,
      );
      throw err;
    }
    const { expectedCount, desiredHealthy, unmanagedPods } = counts;
    // Unmanaged pods are reported, not an error: erroring would hot-loop.
    if (unmanagedPods.length > 0) {
      this.#logger
        .v(4)
        .info('Found unmanaged pods associated with this PDB', { pods: unmanagedPods });
      this.#recorder.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${formatLabelSelector(pdb.spec?.selector)}) were found ` +
          'to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. ' +
          'To account for these pods please set ".spec.minAvailable" ' +
          'field of the PDB to an integer value.',
      );
    }

    const now = this.#clock.now();
    const [disruptedPods, recheckTime] = this.#buildDisruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthyPods(pods, disruptedPods, now);
    await this.#updatePdbStatus(
      pdb,
      currentHealthy,
      desiredHealthy,
      expectedCount,
      disruptedPods,
      signal,
    );
    // At most one recheck per PDB waits, at the earliest time asked for.
    if (recheckTime !== undefined) this.#recheckQueue.addAfter(keyOf(pdb), recheckTime - now);
  }

  /**
   * Sets a `DisruptionTarget` condition that has stayed True for the
   * timeout on a pod not being deleted back to False. Go's `syncStalePodDisruption`.
   */
  async syncStalePodDisruption(key: string, signal?: AbortSignal): Promise<void> {
    const start = this.#clock.now();
    const { namespace, name } = splitMetaNamespaceKey(key);
    try {
      const pod = this.#podInformer.lister().byNamespace(namespace).tryGet(name);
      if (pod === undefined) {
        this.#logger
          .v(4)
          .info('Skipping clearing DisruptionTarget condition because pod was deleted', {
            pod: key,
          });
        return;
      }
      const [has, cleanAfter] = this.#nonTerminatingPodHasStaleDisruptionCondition(pod);
      if (!has) return;
      if (cleanAfter > 0) {
        this.#staleQueue.addAfter(key, cleanAfter);
        return;
      }
      const status: PodStatus = structuredClone(pod.status ?? {});
      const changed = updatePodCondition(
        status,
        { type: disruptionTargetCondition, status: 'False' },
        this.#clock.now(),
      );
      if (!changed) return;
      const updated: Pod = { ...structuredClone(pod), status };
      await this.#pods.inNamespace(namespace).updateStatus(updated, signal ? { signal } : {});
      this.#logger.v(2).info('Reset stale DisruptionTarget condition to False', { pod: key });
    } finally {
      this.#logger.v(4).info('Finished syncing Pod to clear DisruptionTarget condition', {
        pod: key,
        duration: this.#clock.now() - start,
      });
    }
  }

  /**
   * The pods a PDB expects, the healthy ones it wants, and the pods without
   * a controller: with maxUnavailable, the controllers' scale less the
   * unavailable allowed (percentages rounded up, floored at 0); with an
   * integer minAvailable, the matched pods and that number; with a
   * percentage minAvailable, the controllers' scale and that share of it,
   * rounded up. Go's `getExpectedPodCount`.
   */
  #getExpectedPodCount(
    pdb: PodDisruptionBudget,
    pods: readonly Pod[],
  ): { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] } {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const { expectedCount, unmanagedPods } = this.#getExpectedScale(pods);
      const maxUnavailable = getScaledValueFromIntOrPercent(
        spec.maxUnavailable,
        expectedCount,
        true,
      );
      const desiredHealthy = Math.max(0, expectedCount - maxUnavailable);
      return { expectedCount, desiredHealthy, unmanagedPods };
    }
    if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
      if (typeof spec.minAvailable === 'number') {
        return {
          expectedCount: pods.length,
          desiredHealthy: Math.trunc(spec.minAvailable),
          unmanagedPods: [],
        };
      }
      const { expectedCount, unmanagedPods } = this.#getExpectedScale(pods);
      const desiredHealthy = getScaledValueFromIntOrPercent(spec.minAvailable, expectedCount, true);
      return { expectedCount, desiredHealthy, unmanagedPods };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
  }

  /**
   * The sum of the scales of the pods' controllers, each counted once, and
   * the names of the pods without a controller; throws when a pod's
   * controller is none of the kinds known. Go's `getExpectedScale`.
   */
  #getExpectedScale(pods: readonly Pod[]): { expectedCount: number; unmanagedPods: string[] } {
    const controllerScale = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const ref = getControllerOf(pod);
      if (ref === undefined) {
        unmanagedPods.push(pod.metadata?.name ?? '');
        continue;
      }
      if (controllerScale.has(ref.uid)) continue;
      const ns = pod.metadata?.namespace ?? '';
      let found: ControllerAndScale | undefined;
      for (const finder of this.#finders()) {
        found = finder(ref, ns);
        if (found !== undefined) break;
      }
      if (found === undefined) {
        throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`);
      }
      controllerScale.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const scale of controllerScale.values()) expectedCount += scale;
    return { expectedCount, unmanagedPods };
  }

  /**
   * The finders of pod controllers in upstream's order (ReplicationController,
   * Deployment through its ReplicaSet, ReplicaSet, StatefulSet); upstream's
   * last, the generic scale-subresource finder, is left out. Go's `finders`.
   */
  #finders(): ((ref: OwnerReference, namespace: string) => ControllerAndScale | undefined)[] {
    return [
      (ref, ns) => this.#getPodReplicationController(ref, ns),
      (ref, ns) => this.#getPodDeployment(ref, ns),
      (ref, ns) => this.#getPodReplicaSet(ref, ns),
      (ref, ns) => this.#getPodStatefulSet(ref, ns),
    ];
  }

  /** A ReplicaSet not controlled by a Deployment: Go's `getPodReplicaSet`. */
  #getPodReplicaSet(ref: OwnerReference, ns: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = this.#rsInformer?.lister().byNamespace(ns).tryGet(ref.name);
    if (rs === undefined || rs.metadata?.uid !== ref.uid) return undefined;
    // A ReplicaSet of a Deployment counts through the Deployment.
    if (getControllerOf(rs)?.kind === 'Deployment') return undefined;
    return { uid: ref.uid, scale: rs.spec?.replicas ?? 1 };
  }

  /** Go's `getPodStatefulSet`. */
  #getPodStatefulSet(ref: OwnerReference, ns: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'StatefulSet', ['apps'])) return undefined;
    const ss = this.#ssInformer?.lister().byNamespace(ns).tryGet(ref.name);
    if (ss === undefined || ss.metadata?.uid !== ref.uid) return undefined;
    return { uid: ref.uid, scale: ss.spec?.replicas ?? 1 };
  }

  /** The Deployment of the pod's ReplicaSet: Go's `getPodDeployment`. */
  #getPodDeployment(ref: OwnerReference, ns: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = this.#rsInformer?.lister().byNamespace(ns).tryGet(ref.name);
    if (rs === undefined || rs.metadata?.uid !== ref.uid) return undefined;
    const rsRef = getControllerOf(rs);
    if (rsRef === undefined) return undefined;
    if (!verifyGroupKind(rsRef, 'Deployment', ['apps', 'extensions'])) return undefined;
    const d = this.#dInformer
      ?.lister()
      .byNamespace(rs.metadata?.namespace ?? ns)
      .tryGet(rsRef.name);
    if (d === undefined || d.metadata?.uid !== rsRef.uid) return undefined;
    return { uid: rsRef.uid, scale: d.spec?.replicas ?? 1 };
  }

  /** Go's `getPodReplicationController`. */
  #getPodReplicationController(ref: OwnerReference, ns: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicationController', [''])) return undefined;
    const rc = this.#rcInformer?.lister().byNamespace(ns).tryGet(ref.name);
    if (rc === undefined || rc.metadata?.uid !== ref.uid) return undefined;
    return { uid: ref.uid, scale: rc.spec?.replicas ?? 1 };
  }

  /**
   * The disrupted pods still awaited (not yet being deleted, their time not
   * yet past {@link deletionTimeout}) and when to look again; those past it
   * get a Warning `NotDeleted`. Go's `buildDisruptedPodMap`.
   */
  #buildDisruptedPodMap(
    pods: readonly Pod[],
    pdb: PodDisruptionBudget,
    now: number,
  ): [Record<string, string>, number | undefined] {
    const disrupted = pdb.status?.disruptedPods;
    const result: Record<string, string> = {};
    let recheckTime: number | undefined;
    if (disrupted === undefined || disrupted === null) return [result, recheckTime];
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp) continue;
      const name = pod.metadata?.name ?? '';
      if (!Object.hasOwn(disrupted, name)) continue;
      const raw = disrupted[name]!;
      const expectedDeletion = (timeOf(raw) ?? 0) + deletionTimeout;
      if (expectedDeletion < now) {
        this.#logger.v(1).info("pod was expected to be deleted but it wasn't, updating PDB", {
          pod: keyOf(pod),
          deletionTime: raw,
          podDisruptionBudget: keyOf(pdb),
        });
        // Upstream prints the PDB's namespace twice; kept as it is observable.
        const ns = pdb.metadata?.namespace ?? '';
        this.#recorder.event(
          pod,
          'Warning',
          'NotDeleted',
          `Pod was expected by PDB ${ns}/${ns} to be deleted but it wasn't`,
        );
      } else {
        if (recheckTime === undefined || expectedDeletion < recheckTime) {
          recheckTime = expectedDeletion;
        }
        result[name] = raw;
      }
    }
    return [result, recheckTime];
  }

  /**
   * Writes disruptionsAllowed 0 and a False/SyncFailed condition carrying
   * the error: the controller fails closed. Go's `failSafe`.
   */
  async #failSafe(
    pdb: PodDisruptionBudget,
    err: unknown,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const updated = structuredClone(pdb);
    const status = (updated.status = statusOf(updated));
    status.disruptionsAllowed = 0;
    const conditions = (status.conditions ??= []);
    setStatusCondition(
      conditions,
      {
        type: disruptionAllowedCondition,
        status: 'False',
        reason: disruptionReasons.syncFailed,
        message: message(err),
        ...(status.observedGeneration ? { observedGeneration: status.observedGeneration } : {}),
      },
      this.#clock.now(),
    );
    await this.#writePdbStatus(updated, signal);
  }

  /**
   * Writes the counts when anything differs from the PDB's status (or its
   * condition is stale). disruptionsAllowed is healthy − desired, but 0
   * when no pods are expected. Go's `updatePdbStatus`.
   */
  async #updatePdbStatus(
    pdb: PodDisruptionBudget,
    currentHealthy: number,
    desiredHealthy: number,
    expectedCount: number,
    disruptedPods: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const old = statusOf(pdb);
    const generation = pdb.metadata?.generation ?? 0;
    if (
      old.currentHealthy === currentHealthy &&
      old.desiredHealthy === desiredHealthy &&
      old.expectedPods === expectedCount &&
      old.disruptionsAllowed === disruptionsAllowed &&
      sameDisruptedPods(old.disruptedPods, disruptedPods) &&
      (old.observedGeneration ?? 0) === generation &&
      conditionsAreUpToDate(pdb)
    ) {
      return;
    }
    const updated = structuredClone(pdb);
    updated.status = {
      currentHealthy,
      desiredHealthy,
      expectedPods: expectedCount,
      disruptionsAllowed,
      ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
      ...(generation ? { observedGeneration: generation } : {}),
      ...(updated.status?.conditions ? { conditions: updated.status.conditions } : {}),
    };
    updateDisruptionAllowedCondition(updated, this.#clock.now());
    await this.#writePdbStatus(updated, signal);
  }

  /** One status write, not retried here: Go's `writePdbStatus`. */
  async #writePdbStatus(pdb: PodDisruptionBudget, signal: AbortSignal | undefined): Promise<void> {
    await this.#pdbs
      .inNamespace(pdb.metadata?.namespace ?? '')
      .updateStatus(pdb, signal ? { signal } : {});
  }

  /**
   * Whether the pod, not being deleted and not in a terminal phase, has a
   * True `DisruptionTarget` condition that the kubelet did not set, and how
   * long (ms) until it is stale. Go's `nonTerminatingPodHasStaleDisruptionCondition`.
   */
  #nonTerminatingPodHasStaleDisruptionCondition(pod: Pod): [boolean, number] {
    if (pod.metadata?.deletionTimestamp) return [false, 0];
    const cond = getPodCondition(pod.status, disruptionTargetCondition);
    if (
      cond === undefined ||
      cond.status !== 'True' ||
      cond.reason === terminationByKubelet ||
      isPodPhaseTerminal(pod.status?.phase)
    ) {
      return [false, 0];
    }
    const since = this.#clock.now() - (timeOf(cond.lastTransitionTime) ?? Number.NEGATIVE_INFINITY);
    return [true, Math.max(0, this.#staleTimeout - since)];
  }
}

/**
 * The pods that count as healthy: not being deleted, not among the
 * disrupted pods still within {@link deletionTimeout}, and Ready. Go's
 * `countHealthyPods`.
 *
 * @category Disruption controller
 */
export function countHealthyPods(
  pods: readonly Pod[],
  disruptedPods: Readonly<Record<string, string>>,
  now: number,
): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    if (Object.hasOwn(disruptedPods, name)) {
      const at = timeOf(disruptedPods[name]) ?? 0;
      if (at + deletionTimeout > now) continue;
    }
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** An error's text, as Go's `%v` of an error. */
function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
