// Adoption and release through controller references:
// pkg/controller/controller_ref_manager.go (BaseControllerRefManager and its
// ClaimObject and CanAdopt, PodControllerRefManager with ClaimPods, AdoptPod
// and ReleasePod, ReplicaSetControllerRefManager with ClaimReplicaSets,
// AdoptReplicaSet and ReleaseReplicaSet, ControllerRevisionControllerRefManager
// with ClaimControllerRevisions, AdoptControllerRevision and
// ReleaseControllerRevision, RecheckDeletionTimestamp, ownerRefControllerPatch)
// and GenerateDeleteOwnerRefStrategicMergeBytes.
//
// A controller claims the objects its selector matches: it adopts orphans
// (adding its controller reference), releases the objects it owns whose
// labels stopped matching, and leaves alone what another controller owns.
import type { ControllerRevision, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  getControllerOf,
  groupVersionString,
  isInvalid,
  isNotFound,
  noopLogger,
  type GroupVersionKind,
  type KubeObject,
  type Logger,
  type Selector,
} from '@kcm-ts/apimachinery';
import type { ControllerRevisionControl, PodControl, RSControl } from './pod-control.js';

/**
 * A check run once, before a manager's first adoption: it resolves when
 * adopting may go ahead and rejects with the reason when not (Go's
 * `CanAdoptFunc`).
 *
 * @category Controller references
 */
export type CanAdoptFunc = () => Promise<void>;

/** What claiming does with one object: Go's `ClaimObject` branches. */
type ClaimAction = 'claim' | 'ignore' | 'adopt' | 'release';

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Formats a `metav1.Time` as Go's `%v` prints it (`2026-01-01 00:00:00 +0000 UTC`),
 * so messages read as kube-controller-manager's do.
 */
function goTimeString(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.000Z
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

/**
 * Go's `errors.NewAggregate` as a thrown value: one error is thrown as it is
 * (so `isConflict` and friends still classify it), several as an
 * `AggregateError` whose message lists them as Go prints an aggregate.
 */
function aggregate(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map(messageOf).join(', ')}]`);
}

/**
 * The claim logic shared by every kind of owned object: Go's
 * `BaseControllerRefManager`.
 *
 * @category Controller references
 */
export class BaseControllerRefManager {
  /** The owner, as the controller last read it. */
  readonly controller: KubeObject;
  /** The owner's label selector. */
  readonly selector: Selector;
  readonly #canAdoptFunc: CanAdoptFunc | undefined;
  #canAdopt: Promise<void> | undefined;

  /**
   * @param controller - the owner
   * @param selector - its label selector
   * @param canAdoptFunc - checked once, before the first adoption (see {@link recheckDeletionTimestamp})
   */
  constructor(controller: KubeObject, selector: Selector, canAdoptFunc?: CanAdoptFunc) {
    this.controller = controller;
    this.selector = selector;
    this.#canAdoptFunc = canAdoptFunc;
  }

  /**
   * Runs the adoption check the first time it is called and gives the same
   * outcome every later time (Go's `sync.Once`): make a new manager for a
   * new sync.
   */
  canAdopt(): Promise<void> {
    this.#canAdopt ??= this.#canAdoptFunc === undefined ? Promise.resolve() : this.#canAdoptFunc();
    return this.#canAdopt;
  }

  /**
   * Decides whether the controller owns `obj` now, adopting or releasing it
   * as needed, and resolves `true` if it does. Go's `ClaimObject`:
   *
   * - owned by another controller: not ours, nothing done;
   * - ours and matching: claimed, even while the owner is being deleted;
   * - ours and no longer matching: released, unless the owner is being
   *   deleted (an object gone meanwhile counts as released);
   * - an orphan that matches, is not being deleted, and lives in the
   *   owner's namespace, while the owner is not being deleted: adopted (an
   *   object gone meanwhile is not claimed).
   *
   * Rejects when an adoption or release fails; try again later.
   */
  async claimObject<T extends KubeObject>(
    obj: T,
    match: (obj: T) => boolean,
    adopt: (obj: T) => Promise<void>,
    release: (obj: T) => Promise<void>,
  ): Promise<boolean> {
    const action = this.#decide(obj, match);
    if (action === 'claim' || action === 'ignore') return action === 'claim';
    return this.#write(action, obj, adopt, release);
  }

  /**
   * What {@link BaseControllerRefManager.claimObject} does with `obj`,
   * decided from the cached objects alone, with no I/O.
   */
  #decide<T extends KubeObject>(obj: T, match: (obj: T) => boolean): ClaimAction {
    const controllerRef = getControllerOf(obj);
    const ownerDeleting = !!this.controller.metadata?.deletionTimestamp;
    if (controllerRef !== undefined) {
      if (controllerRef.uid !== this.controller.metadata?.uid) return 'ignore';
      // Keeping what we own takes no write, so it is allowed while we are deleted.
      if (match(obj)) return 'claim';
      return ownerDeleting ? 'ignore' : 'release';
    }
    // An orphan.
    if (ownerDeleting || !match(obj)) return 'ignore';
    if (obj.metadata?.deletionTimestamp) return 'ignore';
    const ownerNamespace = this.controller.metadata?.namespace ?? '';
    if (ownerNamespace !== '' && ownerNamespace !== (obj.metadata?.namespace ?? '')) {
      return 'ignore';
    }
    return 'adopt';
  }

  /** Adopts or releases `obj`; resolves `true` if the controller owns it afterwards. */
  async #write<T extends KubeObject>(
    action: 'adopt' | 'release',
    obj: T,
    adopt: (obj: T) => Promise<void>,
    release: (obj: T) => Promise<void>,
  ): Promise<boolean> {
    try {
      await (action === 'adopt' ? adopt(obj) : release(obj));
    } catch (err) {
      // Gone meanwhile: nothing to adopt, nothing left to release.
      if (isNotFound(err)) return false;
      throw err;
    }
    return action === 'adopt';
  }

  /**
   * Claims each object in turn (Go claims them one after the other too) and
   * resolves with those now owned; rejects with the failures, all of them,
   * once every object has been tried. Only adoptions and releases are
   * awaited: a sync that finds every object settled claims them without
   * yielding once per object.
   */
  protected async claimAll<T extends KubeObject>(
    objects: readonly T[],
    match: (obj: T) => boolean,
    adopt: (obj: T) => Promise<void>,
    release: (obj: T) => Promise<void>,
  ): Promise<T[]> {
    const claimed: T[] = [];
    const errors: unknown[] = [];
    for (const obj of objects) {
      try {
        const action = this.#decide(obj, match);
        if (action === 'claim') claimed.push(obj);
        else if (action !== 'ignore' && (await this.#write(action, obj, adopt, release))) {
          claimed.push(obj);
        }
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw aggregate(errors);
    return claimed;
  }
}

/**
 * The strategic merge patch that adds `owner` as the controller of the
 * object `uid`; the object's uid is part of it, so that the server refuses
 * the patch if the object was deleted and re-created under the same name.
 * Go's `ownerRefControllerPatch`; history's adoption sends the same patch.
 */
export function ownerRefControllerPatch(
  owner: KubeObject,
  ownerKind: GroupVersionKind,
  uid: string,
): object {
  return {
    metadata: {
      ownerReferences: [
        {
          apiVersion: groupVersionString(ownerKind),
          kind: ownerKind.kind,
          name: owner.metadata?.name ?? '',
          uid: owner.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      uid,
    },
  };
}

/**
 * The strategic merge patch that removes the owner references of
 * `ownerUIDs` from the object `dependentUID`, with the same uid guard. Go's
 * `GenerateDeleteOwnerRefStrategicMergeBytes`; history's release sends the
 * same patch.
 */
export function deleteOwnerRefStrategicMergePatch(
  dependentUID: string,
  ownerUIDs: string[],
): object {
  return {
    metadata: {
      ownerReferences: ownerUIDs.map((uid) => ({ $patch: 'delete', uid })),
      uid: dependentUID,
    },
  };
}

const describe = (obj: KubeObject): string =>
  `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} (${obj.metadata?.uid ?? ''})`;

/**
 * What differs between the kinds a controller claims: the kind's name in
 * messages, the key it is logged under, and how an object of it is patched.
 * Everything else about adopting and releasing is the same for every kind,
 * as in Go, where only these differ between `AdoptPod` and
 * `AdoptReplicaSet` (and between the two releases).
 */
interface OwnedKind {
  /** The kind, as messages name it: `Pod`, `ReplicaSet`. */
  readonly kind: string;
  /** The kind as the release trace names it: `pod`, `ReplicaSet`. */
  readonly logNoun: string;
  /** The trace's key of the object's `namespace/name`: `pod`, `replicaSet`. */
  readonly logKey: string;
  /** Sends a strategic merge patch to the object `namespace/name`. */
  readonly patch: (namespace: string, name: string, body: object) => Promise<unknown>;
}

/**
 * Makes `manager.controller` the object's controller with a patch, once
 * `manager.canAdopt()` allows it. The server refuses the patch if the
 * object already has another controller. Go's `AdoptPod`, `AdoptReplicaSet`
 * and `AdoptControllerRevision`.
 */
async function adoptObject(
  manager: BaseControllerRefManager,
  controllerKind: GroupVersionKind,
  owned: OwnedKind,
  obj: KubeObject,
): Promise<void> {
  try {
    await manager.canAdopt();
  } catch (err) {
    throw new Error(`can't adopt ${owned.kind} ${describe(obj)}: ${messageOf(err)}`, {
      cause: err,
    });
  }
  await owned.patch(
    obj.metadata?.namespace ?? '',
    obj.metadata?.name ?? '',
    ownerRefControllerPatch(manager.controller, controllerKind, obj.metadata?.uid ?? ''),
  );
}

/**
 * Removes `manager.controller`'s reference from the object with a patch. An
 * object gone (404), or re-created or without the reference (422), counts
 * as released. Go's `ReleasePod`, `ReleaseReplicaSet` and
 * `ReleaseControllerRevision`.
 */
async function releaseObject(
  manager: BaseControllerRefManager,
  controllerKind: GroupVersionKind,
  owned: OwnedKind,
  obj: KubeObject,
  logger: Logger,
): Promise<void> {
  logger.v(2).info(`Patching ${owned.logNoun} to remove its controllerRef`, {
    [owned.logKey]: `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`,
    gvk: `${groupVersionString(controllerKind)}, Kind=${controllerKind.kind}`,
    controller: manager.controller.metadata?.name,
  });
  try {
    await owned.patch(
      obj.metadata?.namespace ?? '',
      obj.metadata?.name ?? '',
      deleteOwnerRefStrategicMergePatch(obj.metadata?.uid ?? '', [
        manager.controller.metadata?.uid ?? '',
      ]),
    );
  } catch (err) {
    if (isNotFound(err) || isInvalid(err)) return;
    throw err;
  }
}

/**
 * Claims pods for a controller: Go's `PodControllerRefManager`.
 *
 * @example
 * ```ts
 * const cm = new PodControllerRefManager(podControl, rs, selector, rsKind, canAdopt);
 * const owned = await cm.claimPods(filterActivePods(podsInNamespace));
 * ```
 *
 * @category Controller references
 */
export class PodControllerRefManager extends BaseControllerRefManager {
  readonly #controllerKind: GroupVersionKind;
  readonly #pods: OwnedKind;
  readonly #logger: Logger;

  /**
   * @param podControl - patches the pods
   * @param controller - the owner
   * @param selector - its label selector
   * @param controllerKind - the owner's group, version and kind, for the references it writes
   * @param canAdopt - checked once, before the first adoption
   * @param logger - where traces go; default none
   */
  constructor(
    podControl: PodControl,
    controller: KubeObject,
    selector: Selector,
    controllerKind: GroupVersionKind,
    canAdopt?: CanAdoptFunc,
    logger: Logger = noopLogger,
  ) {
    super(controller, selector, canAdopt);
    this.#controllerKind = controllerKind;
    this.#pods = {
      kind: 'Pod',
      logNoun: 'pod',
      logKey: 'pod',
      patch: (namespace, name, body) => podControl.patchPod(namespace, name, body),
    };
    this.#logger = logger;
  }

  /**
   * Claims `pods` (see {@link BaseControllerRefManager.claimObject}) and
   * resolves with the pods the controller owns now. A pod matches when the
   * selector matches its labels and every filter accepts it. Go's
   * `ClaimPods`.
   */
  claimPods(pods: readonly Pod[], ...filters: ((pod: Pod) => boolean)[]): Promise<Pod[]> {
    const match = (pod: Pod): boolean =>
      this.selector.matches(pod.metadata?.labels) && filters.every((f) => f(pod));
    return this.claimAll(
      pods,
      match,
      (pod) => this.adoptPod(pod),
      (pod) => this.releasePod(pod),
    );
  }

  /**
   * Makes the controller the pod's controller with a patch, once
   * {@link BaseControllerRefManager.canAdopt} allows it. The server refuses
   * the patch if the pod already has another controller. Go's `AdoptPod`.
   */
  adoptPod(pod: Pod): Promise<void> {
    return adoptObject(this, this.#controllerKind, this.#pods, pod);
  }

  /**
   * Removes the controller's reference from the pod with a patch. A pod gone
   * (404), or re-created or without the reference (422), counts as
   * released. Go's `ReleasePod`.
   */
  releasePod(pod: Pod): Promise<void> {
    return releaseObject(this, this.#controllerKind, this.#pods, pod, this.#logger);
  }
}

/**
 * Claims ReplicaSets for a Deployment: Go's `ReplicaSetControllerRefManager`.
 *
 * @category Controller references
 */
export class ReplicaSetControllerRefManager extends BaseControllerRefManager {
  readonly #controllerKind: GroupVersionKind;
  readonly #replicaSets: OwnedKind;
  readonly #logger: Logger;

  /**
   * @param rsControl - patches the ReplicaSets
   * @param controller - the owner (a Deployment)
   * @param selector - its label selector
   * @param controllerKind - the owner's group, version and kind
   * @param canAdopt - checked once, before the first adoption
   * @param logger - where traces go; default none
   */
  constructor(
    rsControl: RSControl,
    controller: KubeObject,
    selector: Selector,
    controllerKind: GroupVersionKind,
    canAdopt?: CanAdoptFunc,
    logger: Logger = noopLogger,
  ) {
    super(controller, selector, canAdopt);
    this.#controllerKind = controllerKind;
    this.#replicaSets = {
      kind: 'ReplicaSet',
      logNoun: 'ReplicaSet',
      logKey: 'replicaSet',
      patch: (namespace, name, body) => rsControl.patchReplicaSet(namespace, name, body),
    };
    this.#logger = logger;
  }

  /**
   * Claims `sets` by their labels and resolves with those the controller owns
   * now. Go's `ClaimReplicaSets`.
   */
  claimReplicaSets(sets: readonly ReplicaSet[]): Promise<ReplicaSet[]> {
    return this.claimAll(
      sets,
      (rs) => this.selector.matches(rs.metadata?.labels),
      (rs) => this.adoptReplicaSet(rs),
      (rs) => this.releaseReplicaSet(rs),
    );
  }

  /** Makes the controller the ReplicaSet's controller. Go's `AdoptReplicaSet`. */
  adoptReplicaSet(rs: ReplicaSet): Promise<void> {
    return adoptObject(this, this.#controllerKind, this.#replicaSets, rs);
  }

  /**
   * Removes the controller's reference from the ReplicaSet; 404 and 422 count
   * as released. Go's `ReleaseReplicaSet`.
   */
  releaseReplicaSet(rs: ReplicaSet): Promise<void> {
    return releaseObject(this, this.#controllerKind, this.#replicaSets, rs, this.#logger);
  }
}

/**
 * Claims ControllerRevisions, the history of a DaemonSet: Go's
 * `ControllerRevisionControllerRefManager`.
 *
 * @example
 * ```ts
 * const cm = new ControllerRevisionControllerRefManager(crControl, ds, selector, dsKind, canAdopt);
 * const history = await cm.claimControllerRevisions(revisionsInNamespace);
 * ```
 *
 * @category Controller references
 */
export class ControllerRevisionControllerRefManager extends BaseControllerRefManager {
  readonly #controllerKind: GroupVersionKind;
  readonly #revisions: OwnedKind;
  readonly #logger: Logger;

  /**
   * @param crControl - patches the ControllerRevisions
   * @param controller - the owner (a DaemonSet)
   * @param selector - its label selector
   * @param controllerKind - the owner's group, version and kind
   * @param canAdopt - checked once, before the first adoption
   * @param logger - where traces go; default none
   */
  constructor(
    crControl: ControllerRevisionControl,
    controller: KubeObject,
    selector: Selector,
    controllerKind: GroupVersionKind,
    canAdopt?: CanAdoptFunc,
    logger: Logger = noopLogger,
  ) {
    super(controller, selector, canAdopt);
    this.#controllerKind = controllerKind;
    this.#revisions = {
      kind: 'ControllerRevision',
      logNoun: 'ControllerRevision',
      logKey: 'controllerRevision',
      patch: (namespace, name, body) => crControl.patchControllerRevision(namespace, name, body),
    };
    this.#logger = logger;
  }

  /**
   * Claims `histories` by their labels and resolves with the revisions the
   * controller owns now. Go's `ClaimControllerRevisions`.
   */
  claimControllerRevisions(
    histories: readonly ControllerRevision[],
  ): Promise<ControllerRevision[]> {
    return this.claimAll(
      histories,
      (cr) => this.selector.matches(cr.metadata?.labels),
      (cr) => this.adoptControllerRevision(cr),
      (cr) => this.releaseControllerRevision(cr),
    );
  }

  /** Makes the controller the revision's controller. Go's `AdoptControllerRevision`. */
  adoptControllerRevision(history: ControllerRevision): Promise<void> {
    return adoptObject(this, this.#controllerKind, this.#revisions, history);
  }

  /**
   * Removes the controller's reference from the revision; 404 and 422 count
   * as released. Go's `ReleaseControllerRevision`.
   */
  releaseControllerRevision(history: ControllerRevision): Promise<void> {
    return releaseObject(this, this.#controllerKind, this.#revisions, history, this.#logger);
  }
}

/**
 * An adoption check that reads the owner afresh with `getObject` (a live
 * GET, not the cache) and refuses adoption if it is being deleted: a cache
 * may not show yet that the owner is going away, and adopting for a dying
 * owner would get the pods garbage-collected with it. Go's
 * `RecheckDeletionTimestamp`.
 *
 * @example
 * ```ts
 * const canAdopt = recheckDeletionTimestamp(() => replicaSets.inNamespace(ns).get(name));
 * ```
 *
 * @category Controller references
 */
export function recheckDeletionTimestamp(getObject: () => Promise<KubeObject>): CanAdoptFunc {
  return async () => {
    let obj: KubeObject;
    try {
      obj = await getObject();
    } catch (err) {
      throw new Error(`can't recheck DeletionTimestamp: ${messageOf(err)}`, { cause: err });
    }
    const deleted = obj.metadata?.deletionTimestamp;
    if (deleted) {
      throw new Error(
        `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} has just been deleted at ${goTimeString(deleted)}`,
      );
    }
  };
}
