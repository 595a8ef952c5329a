// The StatefulSet's reconciliation: pkg/controller/statefulset/stateful_set_control.go
// (MaxBatchSize, StatefulSetControlInterface, NewDefaultStatefulSetControl,
// defaultStatefulSetControl with UpdateStatefulSet, performUpdate,
// ListRevisions, AdoptOrphanRevisions, truncateHistory,
// getStatefulSetRevisions, processReplica, processCondemned,
// updateStatefulSet, updateStatefulSetStatus; slowStartBatch, replicaStatus,
// computeReplicaStatus, updateStatus, runForAll and
// updateStatefulSetAfterInvariantEstablished).
//
// One pass over a set and its pods: find (or make) the current and update
// revisions, create the missing pods and replace failed ones (in ordinal
// order, one at a time, each waiting for its predecessors to be Running and
// Ready, unless the set is Parallel), delete the pods above the wanted
// range (from the top), then roll the pods from the top down to the
// partition onto the update revision, at most `maxUnavailable` at a time,
// and write the status. Pod names are the identity: the API server refuses
// a second pod of one name, so the controller never makes two pods of one
// identity even when its cache is behind.
import type {
  ControllerRevision,
  StatefulSet,
  StatefulSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  getControllerOf,
  isNotFound,
  labelSelectorAsSelector,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
} from '@kcm-ts/apimachinery';
import {
  equalRevision,
  findEqualRevisions,
  sortControllerRevisions,
  type History,
} from '@kcm-ts/controller';
import { aggregate, asError, type StatefulPodControl } from './stateful-pod-control.js';
import type { StatefulSetStatusUpdater } from './stateful-set-status-updater.js';
import {
  allowsBurst,
  applyRevision,
  completeRollingUpdate,
  descendingOrdinal,
  getEndOrdinal,
  getOrdinal,
  getPodRevision,
  getStartOrdinal,
  getStatefulSetMaxUnavailable,
  identityMatches,
  inconsistentStatus,
  isCreated,
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  isUnavailable,
  newRevision,
  newVersionedStatefulSetPod,
  nextRevision,
  podInOrdinalRange,
  replicasOf,
  statefulSetKind,
  storageMatches,
} from './stateful-set-utils.js';

/**
 * The most pod writes a Parallel set makes at once (500). Go's `MaxBatchSize`.
 *
 * @category StatefulSet control
 */
export const maxBatchSize = 500;

/**
 * The reconciliation of one StatefulSet, given its pods. Go's
 * `StatefulSetControlInterface`.
 *
 * @category StatefulSet control
 */
export interface StatefulSetControlInterface {
  /**
   * Creates, updates and deletes the set's pods towards its spec, writes its
   * status and trims its revision history; resolves with the status it
   * computed. A rejection means: try again later (with backoff).
   */
  updateStatefulSet(
    set: StatefulSet,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<StatefulSetStatus | undefined>;
  /** The set's revisions (and the orphans its selector matches), from the cache. */
  listRevisions(set: StatefulSet): ControllerRevision[];
  /** Makes the set the controller of each of the orphan `revisions`. */
  adoptOrphanRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
    signal?: AbortSignal,
  ): Promise<void>;
}

/**
 * What {@link DefaultStatefulSetControl} needs besides its collaborators.
 *
 * @category StatefulSet control
 */
export interface DefaultStatefulSetControlOptions {
  /** Time for pod availability (`minReadySeconds`). Default the real clock. */
  clock?: Clock | undefined;
  /** Where logs go. Default none. */
  logger?: Logger | undefined;
}

/** What one step over a pod decided: stop the pass (`exit`), and the error, if any. */
type Step = [exit: boolean, err?: unknown];

/** The counters the status holds. Go's `replicaStatus`. */
interface ReplicaStatus {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

/**
 * Counts the created, ready, available, current and updated pods of `pods`.
 * Go's `computeReplicaStatus`.
 *
 * @category StatefulSet control
 */
export function computeReplicaStatus(
  pods: readonly Pod[],
  minReadySeconds: number,
  currentRevision: ControllerRevision,
  updateRevision: ControllerRevision,
  now: number,
): ReplicaStatus {
  const status: ReplicaStatus = {
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
  };
  for (const pod of pods) {
    if (isCreated(pod)) status.replicas++;
    if (isRunningAndReady(pod)) {
      status.readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds, now)) status.availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      const revision = getPodRevision(pod);
      if (revision === currentRevision.metadata?.name) status.currentReplicas++;
      if (revision === updateRevision.metadata?.name) status.updatedReplicas++;
    }
  }
  return status;
}

/** Sets the counters of `status` (in place) from the pod lists. Go's `updateStatus`. */
function updateStatus(
  status: StatefulSetStatus,
  minReadySeconds: number,
  currentRevision: ControllerRevision,
  updateRevision: ControllerRevision,
  now: number,
  ...podLists: (readonly Pod[])[]
): void {
  status.replicas = 0;
  status.readyReplicas = 0;
  status.availableReplicas = 0;
  status.currentReplicas = 0;
  status.updatedReplicas = 0;
  for (const list of podLists) {
    const s = computeReplicaStatus(list, minReadySeconds, currentRevision, updateRevision, now);
    status.replicas += s.replicas;
    status.readyReplicas += s.readyReplicas;
    status.availableReplicas += s.availableReplicas;
    status.currentReplicas += s.currentReplicas;
    status.updatedReplicas += s.updatedReplicas;
  }
}

/**
 * Runs `fn(0)` … `fn(remaining - 1)` in batches of 1, 2, 4, … (at most
 * {@link maxBatchSize}), the calls of a batch at once; stops after the
 * first batch with a failure and rejects with its failures. Resolves with
 * the number of successes. Go's `slowStartBatch` of stateful_set_control.go.
 *
 * @category StatefulSet control
 */
export async function statefulSlowStartBatch(
  initialBatchSize: number,
  remaining: number,
  fn: (i: number) => Promise<Step>,
): Promise<number> {
  let successes = 0;
  let j = 0;
  for (
    let batchSize = Math.min(remaining, initialBatchSize);
    batchSize > 0;
    batchSize = Math.min(Math.min(2 * batchSize, remaining), maxBatchSize)
  ) {
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < batchSize; i++) {
      const k = j++;
      calls.push(
        fn(k).then(
          ([, err]) => err,
          (err: unknown) => err ?? new Error('failed'),
        ),
      );
    }
    const errs = (await Promise.all(calls)).filter((e) => e !== undefined);
    successes += batchSize - errs.length;
    if (errs.length > 0) throw aggregate(errs)!;
    remaining -= batchSize;
  }
  return successes;
}

//#region run-for-all
/**
 * Steps over every pod: in order, stopping at the first that says so
 * (monotonic), or all in slow-start batches (burst). Go's `runForAll`.
 */
async function runForAll(
  count: number,
  fn: (i: number) => Promise<Step>,
  monotonic: boolean,
): Promise<Step> {
  if (monotonic) {
    for (let i = 0; i < count; i++) {
      const [exit, err] = await fn(i);
      if (exit || err !== undefined) return [true, err];
    }
    return [false];
  }
  try {
    await statefulSlowStartBatch(1, count, fn);
  } catch (err) {
    return [true, err];
  }
  return [false];
}
//#endregion run-for-all

const nameOf = (obj: { metadata?: { name?: string } } | undefined) => obj?.metadata?.name ?? '';

/**
 * The reconciliation kube-controller-manager runs: Go's
 * `defaultStatefulSetControl`, made by `NewDefaultStatefulSetControl`.
 *
 * @category StatefulSet control
 */
export class DefaultStatefulSetControl implements StatefulSetControlInterface {
  readonly #podControl: StatefulPodControl;
  readonly #statusUpdater: StatefulSetStatusUpdater;
  readonly #history: History;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /**
   * @param podControl - writes pods and claims
   * @param statusUpdater - writes the status
   * @param history - reads and writes ControllerRevisions
   * @param options - see {@link DefaultStatefulSetControlOptions}
   */
  constructor(
    podControl: StatefulPodControl,
    statusUpdater: StatefulSetStatusUpdater,
    history: History,
    options: DefaultStatefulSetControlOptions = {},
  ) {
    this.#podControl = podControl;
    this.#statusUpdater = statusUpdater;
    this.#history = history;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
  }

  //#region update-stateful-set
  async updateStatefulSet(
    setIn: StatefulSet,
    pods: readonly Pod[],
    signal?: AbortSignal,
  ): Promise<StatefulSetStatus | undefined> {
    const set = structuredClone(setIn);
    const revisions = sortControllerRevisions(this.listRevisions(set));
    const result = await this.#performUpdate(set, pods, revisions, signal);
    let truncateErr: unknown;
    try {
      await this.#truncateHistory(set, pods, revisions, result.current, result.update, signal);
    } catch (err) {
      truncateErr = err;
    }
    if (result.err !== undefined) {
      const errs =
        result.err instanceof AggregateError ? [...(result.err.errors as unknown[])] : [result.err];
      throw aggregate([...errs, truncateErr])!;
    }
    if (truncateErr !== undefined) throw asError(truncateErr);
    return result.status;
  }
  //#endregion update-stateful-set

  /** Go's `performUpdate`. */
  async #performUpdate(
    set: StatefulSet,
    pods: readonly Pod[],
    revisions: ControllerRevision[],
    signal: AbortSignal | undefined,
  ): Promise<{
    current?: ControllerRevision | undefined;
    update?: ControllerRevision | undefined;
    status?: StatefulSetStatus | undefined;
    err?: unknown;
  }> {
    let revs: [ControllerRevision, ControllerRevision, number];
    try {
      revs = await this.getStatefulSetRevisions(set, revisions, signal);
    } catch (err) {
      return { err };
    }
    const [current, update, collisionCount] = revs;
    const [status, err] = await this.#updateStatefulSet(
      set,
      current,
      update,
      collisionCount,
      pods,
      signal,
    );
    if (err !== undefined && status === undefined) return { current, update, err };
    let statusErr: unknown;
    try {
      await this.#updateStatefulSetStatus(set, status!, signal);
      this.#logger.v(4).info('Updated status', {
        statefulSet: `${set.metadata?.namespace ?? ''}/${nameOf(set)}`,
        replicas: status!.replicas,
        readyReplicas: status!.readyReplicas,
        currentReplicas: status!.currentReplicas,
        updatedReplicas: status!.updatedReplicas,
      });
    } catch (e) {
      statusErr = e;
    }
    if (err !== undefined) {
      if (statusErr !== undefined) this.#logger.error(statusErr, 'Could not update status');
      return { current, update, status, err };
    }
    if (statusErr !== undefined) return { current, update, status, err: statusErr };
    return { current, update, status };
  }

  listRevisions(set: StatefulSet): ControllerRevision[] {
    const selector = labelSelectorAsSelector(set.spec?.selector);
    return this.#history.listControllerRevisions(set, statefulSetKind, selector);
  }

  async adoptOrphanRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
    signal?: AbortSignal,
  ): Promise<void> {
    for (let i = 0; i < revisions.length; i++) {
      revisions[i] = await this.#history.adoptControllerRevision(
        set,
        statefulSetKind,
        revisions[i]!,
        signal,
      );
    }
  }

  /**
   * Deletes the oldest revisions that no pod, and neither the current nor
   * the update revision, uses, until `revisionHistoryLimit` (default 10)
   * such remain. Go's `truncateHistory`.
   */
  async #truncateHistory(
    set: StatefulSet,
    pods: readonly Pod[],
    revisions: readonly ControllerRevision[],
    current: ControllerRevision | undefined,
    update: ControllerRevision | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const live = new Set<string>();
    if (current !== undefined) live.add(nameOf(current));
    if (update !== undefined) live.add(nameOf(update));
    for (const pod of pods) live.add(getPodRevision(pod));
    const history = revisions.filter((r) => !live.has(nameOf(r)));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (history.length <= limit) return;
    for (const revision of history.slice(0, history.length - limit)) {
      await this.#history.deleteControllerRevision(revision, signal);
    }
  }

  //#region get-revisions
  /**
   * The current and update revisions of the set, and its collision count:
   * the update revision is the newest revision when it equals the set's
   * template, an older equal one renumbered to the next number (a
   * rollback), or a new one; the current revision is the one
   * `status.currentRevision` names, else the update revision. Go's
   * `getStatefulSetRevisions`.
   *
   * @param revisions - the set's revisions, sorted
   */
  async getStatefulSetRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
    signal?: AbortSignal,
  ): Promise<[current: ControllerRevision, update: ControllerRevision, collisionCount: number]> {
    sortControllerRevisions(revisions);
    const count = { value: set.status?.collisionCount ?? 0 };
    let updateRevision = newRevision(set, nextRevision(revisions), count.value);
    const equal = findEqualRevisions(revisions, updateRevision);
    const last = revisions.at(-1);
    const lastEqual = equal.at(-1);
    if (lastEqual !== undefined && equalRevision(last, lastEqual)) {
      updateRevision = last!;
    } else if (lastEqual !== undefined) {
      updateRevision = await this.#history.updateControllerRevision(
        lastEqual,
        updateRevision.revision,
        signal,
      );
    } else {
      updateRevision = await this.#history.createControllerRevision(
        set,
        updateRevision,
        count,
        signal,
      );
    }
    const currentName = set.status?.currentRevision;
    const current = revisions.find((r) => nameOf(r) === currentName) ?? updateRevision;
    return [current, updateRevision, count.value];
  }
  //#endregion get-revisions

  /** Go's `processReplica`. */
  //#region process-replica
  async #processReplica(
    set: StatefulSet,
    updateSet: StatefulSet,
    monotonic: boolean,
    replicas: Pod[],
    i: number,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<Step> {
    const log = this.#logger.v(4);
    const ref = () => ({ statefulSet: nameOf(set), pod: nameOf(replicas[i]) });
    const replica = replicas[i]!;
    // A pod that ran to an end (Failed, or Succeeded after an eviction or a
    // node restart) is deleted; its replacement comes once it is gone.
    if (isFailed(replica) || isSucceeded(replica)) {
      if (!isTerminating(replica)) {
        try {
          await this.#podControl.deleteStatefulPod(set, replica, signal);
        } catch (err) {
          return [true, err];
        }
      }
      return [true];
    }
    if (!isCreated(replica)) {
      try {
        if (await this.#podControl.podClaimIsStale(set, replica, signal)) return [true];
        await this.#podControl.createStatefulPod(set, replica, signal);
      } catch (err) {
        return [true, err];
      }
      if (monotonic) return [true];
    }
    if (isPending(replica)) {
      log.info('StatefulSet is triggering PVC creation for pending Pod', ref());
      try {
        await this.#podControl.createMissingPersistentVolumeClaims(set, replica, signal);
      } catch (err) {
        return [true, err];
      }
    }
    if (isTerminating(replica) && monotonic) {
      log.info('StatefulSet is waiting for Pod to Terminate', ref());
      return [true];
    }
    if (!isRunningAndReady(replica) && monotonic) {
      log.info('StatefulSet is waiting for Pod to be Running and Ready', ref());
      return [true];
    }
    if (!isRunningAndAvailable(replica, set.spec?.minReadySeconds ?? 0, now) && monotonic) {
      log.info('StatefulSet is waiting for Pod to be Available', ref());
      return [true];
    }
    let retentionMatch = true;
    try {
      retentionMatch = await this.#podControl.claimsMatchRetentionPolicy(
        updateSet,
        replica,
        signal,
      );
    } catch {
      // Expected while the pod is not fully updated: treated as matching.
      retentionMatch = true;
    }
    if (identityMatches(set, replica) && storageMatches(set, replica) && retentionMatch) {
      return [false];
    }
    try {
      await this.#podControl.updateStatefulPod(updateSet, structuredClone(replica), signal);
    } catch (err) {
      return [true, err];
    }
    return [false];
  }
  //#endregion process-replica

  /** Go's `processCondemned`. */
  //#region process-condemned
  async #processCondemned(
    set: StatefulSet,
    firstUnhealthyPod: Pod | undefined,
    monotonic: boolean,
    condemned: Pod[],
    i: number,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<Step> {
    const pod = condemned[i]!;
    const log = this.#logger.v(4);
    if (isTerminating(pod)) {
      if (monotonic) {
        log.info('StatefulSet is waiting for Pod to Terminate prior to scale down', {
          statefulSet: nameOf(set),
          pod: nameOf(pod),
        });
        return [true];
      }
      return [false];
    }
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthyPod) {
      log.info('StatefulSet is waiting for Pod to be Running and Ready prior to scale down', {
        statefulSet: nameOf(set),
        pod: nameOf(firstUnhealthyPod),
      });
      return [true];
    }
    if (
      !isRunningAndAvailable(pod, set.spec?.minReadySeconds ?? 0, now) &&
      monotonic &&
      pod !== firstUnhealthyPod
    ) {
      log.info('StatefulSet is waiting for Pod to be Available prior to scale down', {
        statefulSet: nameOf(set),
        pod: nameOf(firstUnhealthyPod),
      });
      return [true];
    }
    this.#logger.v(2).info('Pod of StatefulSet is terminating for scale down', {
      statefulSet: nameOf(set),
      pod: nameOf(pod),
    });
    try {
      await this.#podControl.deleteStatefulPod(set, pod, signal);
    } catch (err) {
      return [true, err];
    }
    return [true];
  }
  //#endregion process-condemned

  /**
   * One pass of creations, replacements, deletions and updates; resolves
   * with the status to write and the error that stopped the pass, if any
   * (no status when the revisions could not be applied). Go's `updateStatefulSet`.
   */
  async #updateStatefulSet(
    set: StatefulSet,
    currentRevision: ControllerRevision,
    updateRevision: ControllerRevision,
    collisionCount: number,
    pods: readonly Pod[],
    signal: AbortSignal | undefined,
  ): Promise<[StatefulSetStatus | undefined, unknown]> {
    let currentSet: StatefulSet;
    let updateSet: StatefulSet;
    try {
      currentSet = applyRevision(set, currentRevision);
      updateSet = applyRevision(set, updateRevision);
    } catch (err) {
      return [undefined, err];
    }
    const now = this.#clock.now();
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const status: StatefulSetStatus = {
      replicas: 0,
      currentRevision: nameOf(currentRevision),
      updateRevision: nameOf(updateRevision),
      collisionCount,
    };
    if (set.metadata?.generation !== undefined) {
      status.observedGeneration = set.metadata.generation;
    }
    updateStatus(status, minReadySeconds, currentRevision, updateRevision, now, pods);

    //#region replicas-and-condemned
    const start = getStartOrdinal(set);
    const replicas: (Pod | undefined)[] = new Array<Pod | undefined>(replicasOf(set)).fill(
      undefined,
    );
    const condemned: Pod[] = [];
    for (const pod of pods) {
      if (podInOrdinalRange(pod, set)) replicas[getOrdinal(pod) - start] = pod;
      else if (getOrdinal(pod) >= 0) condemned.push(pod);
    }
    for (let ord = start; ord <= getEndOrdinal(set); ord++) {
      if (replicas[ord - start] === undefined) {
        replicas[ord - start] = newVersionedStatefulSetPod(
          currentSet,
          updateSet,
          nameOf(currentRevision),
          nameOf(updateRevision),
          ord,
        );
      }
    }
    const live = replicas as Pod[];
    condemned.sort(descendingOrdinal);
    //#endregion replicas-and-condemned

    let unhealthy = 0;
    let firstUnhealthyPod: Pod | undefined;
    for (const pod of live) {
      if (!isHealthy(pod)) {
        unhealthy++;
        firstUnhealthyPod ??= pod;
      }
    }
    for (let i = condemned.length - 1; i >= 0; i--) {
      if (!isHealthy(condemned[i]!)) {
        unhealthy++;
        firstUnhealthyPod ??= condemned[i];
      }
    }
    if (unhealthy > 0) {
      this.#logger.v(4).info('StatefulSet has unhealthy Pods', {
        statefulSet: nameOf(set),
        unhealthyReplicas: unhealthy,
        pod: nameOf(firstUnhealthyPod),
      });
    }

    if (set.metadata?.deletionTimestamp) return [status, undefined];

    const monotonic = !allowsBurst(set);
    const recount = () =>
      updateStatus(status, minReadySeconds, currentRevision, updateRevision, now, live, condemned);

    let [exit, err] = await runForAll(
      live.length,
      (i) => this.#processReplica(set, updateSet, monotonic, live, i, now, signal),
      monotonic,
    );
    if (exit || err !== undefined) {
      recount();
      return [status, err];
    }

    // Fix the claims of condemned pods for the retention policy.
    [exit, err] = await runForAll(
      condemned.length,
      async (i): Promise<Step> => {
        try {
          const pod = condemned[i]!;
          if (!(await this.#podControl.claimsMatchRetentionPolicy(updateSet, pod, signal))) {
            await this.#podControl.updatePodClaimForRetentionPolicy(updateSet, pod, signal);
          }
        } catch (e) {
          return [true, e];
        }
        return [false];
      },
      monotonic,
    );
    if (exit || err !== undefined) {
      recount();
      return [status, err];
    }

    // In monotonic mode every wanted replica is now Running, Ready and
    // Available: scale down, from the highest ordinal, one at a time.
    [exit, err] = await runForAll(
      condemned.length,
      (i) => this.#processCondemned(set, firstUnhealthyPod, monotonic, condemned, i, now, signal),
      monotonic,
    );
    if (exit || err !== undefined) {
      recount();
      return [status, err];
    }
    recount();

    if (set.spec?.updateStrategy?.type === 'OnDelete') return [status, undefined];

    return await this.#updateStatefulSetAfterInvariantEstablished(
      set,
      live,
      updateRevision,
      status,
      now,
      signal,
    );
  }

  //#region rolling-update
  /**
   * The rolling update: with fewer than `maxUnavailable` pods unavailable,
   * deletes the pods not at the update revision from the highest ordinal
   * down to the partition, as many as the budget allows; they come back at
   * the update revision. Go's `updateStatefulSetAfterInvariantEstablished`.
   */
  async #updateStatefulSetAfterInvariantEstablished(
    set: StatefulSet,
    replicas: Pod[],
    updateRevision: ControllerRevision,
    status: StatefulSetStatus,
    now: number,
    signal: AbortSignal | undefined,
  ): Promise<[StatefulSetStatus, unknown]> {
    const replicaCount = replicasOf(set);
    const rollingUpdate = set.spec?.updateStrategy?.rollingUpdate;
    let updateMin = 0;
    let maxUnavailable = 1;
    if (rollingUpdate !== undefined) {
      updateMin = rollingUpdate.partition ?? 0;
      try {
        maxUnavailable = getStatefulSetMaxUnavailable(rollingUpdate.maxUnavailable, replicaCount);
      } catch (err) {
        return [status, err];
      }
    }
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    let unavailablePods = 0;
    for (const pod of replicas) {
      if (isUnavailable(pod, minReadySeconds, now)) unavailablePods++;
    }
    if (unavailablePods >= maxUnavailable) {
      if (unavailablePods > maxUnavailable) {
        this.#logger
          .v(4)
          .info('StatefulSet found unavailablePods, more than the allowed maxUnavailable', {
            statefulSet: nameOf(set),
            unavailablePods,
            maxUnavailable,
          });
      }
      return [status, undefined];
    }
    const podsToDelete = maxUnavailable - unavailablePods;
    let deletedPods = 0;
    for (
      let target = replicas.length - 1;
      target >= updateMin && deletedPods < podsToDelete;
      target--
    ) {
      const pod = replicas[target]!;
      if (getPodRevision(pod) !== nameOf(updateRevision) && !isTerminating(pod)) {
        this.#logger.v(2).info('StatefulSet terminating Pod for update', {
          statefulSet: nameOf(set),
          pod: nameOf(pod),
        });
        try {
          await this.#podControl.deleteStatefulPod(set, pod, signal);
        } catch (err) {
          if (!isNotFound(err)) return [status, err];
        }
        deletedPods++;
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
      }
    }
    return [status, undefined];
  }
  //#endregion rolling-update

  /**
   * Completes a finished rolling update in `status`, then writes it unless
   * it equals the set's. Go's `updateStatefulSetStatus`.
   */
  async #updateStatefulSetStatus(
    set: StatefulSet,
    status: StatefulSetStatus,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    completeRollingUpdate(set, status);
    if (!inconsistentStatus(set, status)) return;
    await this.#statusUpdater.updateStatefulSetStatus(structuredClone(set), status, signal);
  }
}

/** The orphans among `revisions`: those with no controller. */
export function orphanRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return revisions.filter((r) => getControllerOf(r) === undefined);
}
