// Pod and claim writes of the StatefulSet controller:
// pkg/controller/statefulset/stateful_pod_control.go
// (StatefulPodControlObjectManager, StatefulPodControl, NewStatefulPodControl,
// NewStatefulPodControlFromManager, realStatefulPodControlObjectManager,
// CreateStatefulPod, UpdateStatefulPod, DeleteStatefulPod,
// ClaimsMatchRetentionPolicy, UpdatePodClaimForRetentionPolicy,
// PodClaimIsStale, recordPodEvent, recordClaimEvent,
// createMissingPersistentVolumeClaims, createPersistentVolumeClaims), with
// client-go's util/retry (RetryOnConflict with DefaultBackoff) for pod updates.
//
// A pod's claims are created before the pod, so that the pod never starts
// without its storage; the claims' owner references follow the set's
// retention policy, so that the garbage collector deletes them when the
// policy says so.
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  noopEventRecorder,
  noopLogger,
  realClock,
  type Clock,
  type EventRecorder,
  type Logger,
  type Patch,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';
import {
  getOrdinal,
  getPersistentVolumeClaimName,
  getPersistentVolumeClaimRetentionPolicy,
  getPersistentVolumeClaims,
  hasStaleOwnerRef,
  hasUnexpectedController,
  identityMatches,
  isClaimOwnerUpToDate,
  podKind,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from './stateful-set-utils.js';

/**
 * The claims client the controller writes through: what it needs of core/v1
 * persistentvolumeclaims, flat so that a test can fake it in a few lines.
 * {@link claimsClientFor} makes one of a `ResourceClient`.
 *
 * @category Pod control
 */
export interface PersistentVolumeClaimsClient {
  /** Reads a claim; rejects with 404 NotFound when there is none. */
  get(namespace: string, name: string, signal?: AbortSignal): Promise<PersistentVolumeClaim>;
  /** Creates a claim in its `metadata.namespace`. */
  create(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<PersistentVolumeClaim>;
  /** Replaces a claim (optimistic concurrency on its `resourceVersion`). */
  update(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<PersistentVolumeClaim>;
  /** Patches a claim. */
  patch(
    namespace: string,
    name: string,
    patch: Patch,
    signal?: AbortSignal,
  ): Promise<PersistentVolumeClaim>;
}

const opts = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

/**
 * A {@link PersistentVolumeClaimsClient} over an unscoped core/v1
 * persistentvolumeclaims `ResourceClient`.
 *
 * @category Pod control
 */
export function claimsClientFor(
  client: ResourceClient<PersistentVolumeClaim>,
): PersistentVolumeClaimsClient {
  return {
    get: (namespace, name, signal) => client.inNamespace(namespace).get(name, opts(signal)),
    create: (claim, signal) =>
      client.inNamespace(claim.metadata?.namespace ?? '').create(claim, opts(signal)),
    update: (claim, signal) =>
      client.inNamespace(claim.metadata?.namespace ?? '').update(claim, opts(signal)),
    patch: (namespace, name, patch, signal) =>
      client.inNamespace(namespace).patch(name, patch, opts(signal)),
  };
}

/**
 * Where {@link StatefulPodControl} reads and writes pods and claims: the
 * API server and the caches in the controller, fakes in tests. Go's
 * `StatefulPodControlObjectManager`.
 *
 * @category Pod control
 */
export interface StatefulPodControlObjectManager {
  /** Creates the pod. */
  createPod(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** The cached pod; throws 404 NotFound when the cache has none. */
  getPod(namespace: string, name: string): Pod;
  /** Replaces the pod. */
  updatePod(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** Deletes the pod. */
  deletePod(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** Creates the claim. */
  createClaim(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<void>;
  /** The claim (from the cache when there is one); rejects with 404 NotFound when there is none. */
  getClaim(namespace: string, name: string, signal?: AbortSignal): Promise<PersistentVolumeClaim>;
  /** Replaces the claim. */
  updateClaim(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<void>;
}

/**
 * What {@link RealStatefulPodControlObjectManager} reads and writes.
 *
 * @category Pod control
 */
export interface RealStatefulPodControlObjectManagerOptions {
  /** core/v1 pods, unscoped. */
  pods: ResourceClient<Pod>;
  /** core/v1 persistentvolumeclaims. */
  claims: PersistentVolumeClaimsClient;
  /** The pod informer's lister. */
  podLister: Pick<Lister<Pod>, 'byNamespace'>;
  /**
   * The claim informer's lister; without one, claims are read from the API
   * server (for a server that does not serve claims to watch).
   */
  claimLister?: Pick<Lister<PersistentVolumeClaim>, 'byNamespace'> | undefined;
}

/**
 * The object manager of the running controller: writes through the
 * clients, reads the informers' caches. Go's `realStatefulPodControlObjectManager`.
 *
 * @category Pod control
 */
export class RealStatefulPodControlObjectManager implements StatefulPodControlObjectManager {
  readonly #o: RealStatefulPodControlObjectManagerOptions;

  /** @param options - see {@link RealStatefulPodControlObjectManagerOptions} */
  constructor(options: RealStatefulPodControlObjectManagerOptions) {
    this.#o = options;
  }

  async createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    await this.#o.pods.inNamespace(pod.metadata?.namespace ?? '').create(pod, opts(signal));
  }

  getPod(namespace: string, name: string): Pod {
    return this.#o.podLister.byNamespace(namespace).get(name);
  }

  async updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    await this.#o.pods.inNamespace(pod.metadata?.namespace ?? '').update(pod, opts(signal));
  }

  async deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    await this.#o.pods
      .inNamespace(pod.metadata?.namespace ?? '')
      .delete(pod.metadata?.name ?? '', opts(signal));
  }

  async createClaim(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<void> {
    await this.#o.claims.create(claim, signal);
  }

  async getClaim(
    namespace: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<PersistentVolumeClaim> {
    if (this.#o.claimLister !== undefined) {
      return this.#o.claimLister.byNamespace(namespace).get(name);
    }
    return await this.#o.claims.get(namespace, name, signal);
  }

  async updateClaim(claim: PersistentVolumeClaim, signal?: AbortSignal): Promise<void> {
    await this.#o.claims.update(claim, signal);
  }
}

/** `err` if it is an Error, else an Error carrying it. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err), { cause: err });
}

/**
 * Go's `utilerrors.NewAggregate`: `undefined` for none, the error itself for
 * one, else an error whose message lists them as `[a, b]`.
 */
export function aggregate(errs: readonly unknown[]): Error | undefined {
  const list = errs.filter((e) => e !== undefined && e !== null).map(asError);
  if (list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  return new AggregateError(list, `[${list.map((e) => e.message).join(', ')}]`);
}

const title = (verb: string) => verb.charAt(0).toUpperCase() + verb.slice(1);

/**
 * client-go's `retry.DefaultBackoff`: four tries, 10 ms apart at first,
 * five times longer each time, with up to 10% jitter.
 */
const defaultBackoff = { steps: 4, duration: 10, factor: 5, jitter: 0.1 };

/**
 * What {@link StatefulPodControl} needs besides its object manager.
 *
 * @category Pod control
 */
export interface StatefulPodControlOptions {
  /** Records the pod and claim events on the set. Default none. */
  recorder?: EventRecorder | undefined;
  /** What the waits between update retries run on. Default the real clock. */
  clock?: Clock | undefined;
  /** Where logs go. Default none. */
  logger?: Logger | undefined;
  /** Random source of the retries' jitter. Default `Math.random`. */
  random?: (() => number) | undefined;
}

/**
 * Creates, updates and deletes the pods of StatefulSets and creates their
 * claims, recording an event on the set for each write
 * (`SuccessfulCreate` "create Pod web-0 in StatefulSet web successful",
 * `FailedCreate`, `SuccessfulUpdate`, `SuccessfulDelete`, ...). Go's
 * `StatefulPodControl`.
 *
 * @category Pod control
 */
export class StatefulPodControl {
  readonly #om: StatefulPodControlObjectManager;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;

  /**
   * @param objectManager - where pods and claims are read and written
   * @param options - see {@link StatefulPodControlOptions}
   */
  constructor(
    objectManager: StatefulPodControlObjectManager,
    options: StatefulPodControlOptions = {},
  ) {
    this.#om = objectManager;
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? noopLogger;
    this.#random = options.random ?? Math.random;
  }

  //#region create-stateful-pod
  /**
   * Creates the pod's claims, then the pod, then sets the claims' owner
   * references as far as it can. An AlreadyExists from the pod is returned
   * without an event. Go's `CreateStatefulPod`.
   */
  async createStatefulPod(set: StatefulSet, pod: Pod, signal?: AbortSignal): Promise<void> {
    try {
      await this.createPersistentVolumeClaims(set, pod, signal);
    } catch (err) {
      this.#recordPodEvent('create', set, pod, err);
      throw err;
    }
    let createErr: unknown;
    try {
      await this.#om.createPod(pod, signal);
    } catch (err) {
      if (isAlreadyExists(err)) throw err;
      createErr = err;
    }
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod, signal);
    } catch (err) {
      this.#recordPodEvent('update', set, pod, err);
      throw err;
    }
    this.#recordPodEvent('create', set, pod, createErr);
    if (createErr !== undefined) throw asError(createErr);
  }
  //#endregion create-stateful-pod

  /**
   * Brings the pod's identity, volumes and claim ownership in line with the
   * set, creating missing claims; writes the pod only when something
   * changed, retrying conflicts on the cached copy. Go's `UpdateStatefulPod`.
   */
  async updateStatefulPod(set: StatefulSet, podIn: Pod, signal?: AbortSignal): Promise<void> {
    let pod = structuredClone(podIn);
    let attemptedUpdate = false;
    let duration = defaultBackoff.duration;
    let lastErr: unknown;
    for (let step = 1; ; step++) {
      lastErr = undefined;
      try {
        let consistent = true;
        if (!identityMatches(set, pod)) {
          updateIdentity(set, pod);
          consistent = false;
        }
        if (!storageMatches(set, pod)) {
          updateStorage(set, pod);
          consistent = false;
          try {
            await this.createPersistentVolumeClaims(set, pod, signal);
          } catch (err) {
            this.#recordPodEvent('update', set, pod, err);
            throw err;
          }
        }
        let match: boolean;
        try {
          match = await this.claimsMatchRetentionPolicy(set, pod, signal);
        } catch (err) {
          this.#recordPodEvent('update', set, pod, err);
          throw err;
        }
        if (!match) {
          try {
            await this.updatePodClaimForRetentionPolicy(set, pod, signal);
          } catch (err) {
            this.#recordPodEvent('update', set, pod, err);
            throw err;
          }
          consistent = false;
        }
        if (consistent) break;
        attemptedUpdate = true;
        try {
          await this.#om.updatePod(pod, signal);
          break;
        } catch (updateErr) {
          try {
            pod = structuredClone(
              this.#om.getPod(set.metadata?.namespace ?? '', pod.metadata?.name ?? ''),
            );
          } catch (err) {
            this.#logger.error(err, 'error getting updated Pod', {
              pod: `${set.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`,
            });
          }
          throw updateErr;
        }
      } catch (err) {
        lastErr = err;
        if (!isConflict(err) || step >= defaultBackoff.steps || signal?.aborted) break;
      }
      const jitter = this.#random() * defaultBackoff.jitter * duration;
      await this.#clock.sleep(duration + jitter, signal);
      duration *= defaultBackoff.factor;
    }
    if (attemptedUpdate) this.#recordPodEvent('update', set, pod, lastErr);
    if (lastErr !== undefined) throw asError(lastErr);
  }

  /** Deletes the pod and records the outcome. Go's `DeleteStatefulPod`. */
  async deleteStatefulPod(set: StatefulSet, pod: Pod, signal?: AbortSignal): Promise<void> {
    try {
      await this.#om.deletePod(pod, signal);
    } catch (err) {
      this.#recordPodEvent('delete', set, pod, err);
      throw err;
    }
    this.#recordPodEvent('delete', set, pod, undefined);
  }

  /**
   * False when one of the pod's existing claims has owner references the
   * retention policy does not want (missing claims are fine). Go's
   * `ClaimsMatchRetentionPolicy`.
   *
   * @throws Error when a claim cannot be read
   */
  async claimsMatchRetentionPolicy(
    set: StatefulSet,
    pod: Pod,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const ordinal = getOrdinal(pod);
    for (const template of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = getPersistentVolumeClaimName(set, template, ordinal);
      let claim: PersistentVolumeClaim;
      try {
        claim = await this.#om.getClaim(set.metadata?.namespace ?? '', claimName, signal);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw new Error(
          `Could not retrieve claim ${claimName} for ${pod.metadata?.name ?? ''} when checking PVC deletion policy`,
          { cause: err },
        );
      }
      if (!isClaimOwnerUpToDate(claim, set, pod)) return false;
    }
    return true;
  }

  /**
   * Updates the owner references of the pod's existing claims to what the
   * retention policy wants, warning `ConflictingController` when another
   * controller owns one. Go's `UpdatePodClaimForRetentionPolicy`.
   */
  async updatePodClaimForRetentionPolicy(
    set: StatefulSet,
    pod: Pod,
    signal?: AbortSignal,
  ): Promise<void> {
    const ordinal = getOrdinal(pod);
    for (const template of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = getPersistentVolumeClaimName(set, template, ordinal);
      let claim: PersistentVolumeClaim;
      try {
        claim = await this.#om.getClaim(set.metadata?.namespace ?? '', claimName, signal);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw new Error(
          `Could not retrieve claim ${claimName} not found for ${pod.metadata?.name ?? ''} when checking PVC deletion policy: ${asError(err).message}`,
          { cause: err },
        );
      }
      if (hasUnexpectedController(claim, set, pod)) {
        this.#recorder.event(
          set,
          'Warning',
          'ConflictingController',
          `PersistentVolumeClaim ${claimName} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`,
        );
      }
      if (!isClaimOwnerUpToDate(claim, set, pod)) {
        const copy = structuredClone(claim);
        updateClaimOwnerRefForSetAndPod(copy, set, pod);
        try {
          await this.#om.updateClaim(copy, signal);
        } catch (err) {
          throw new Error(
            `could not update claim ${claimName} for delete policy ownerRefs: ${asError(err).message}`,
            { cause: err },
          );
        }
      }
    }
  }

  /**
   * True when, with `whenScaled: Delete`, one of the pod's claims belongs to
   * an earlier pod of the same name (one the garbage collector is about to
   * delete with it): the pod must not be created on it. Go's `PodClaimIsStale`.
   */
  async podClaimIsStale(set: StatefulSet, pod: Pod, signal?: AbortSignal): Promise<boolean> {
    if (getPersistentVolumeClaimRetentionPolicy(set).whenScaled === 'Retain') return false;
    for (const claim of getPersistentVolumeClaims(set, pod).values()) {
      let pvc: PersistentVolumeClaim;
      try {
        pvc = await this.#om.getClaim(
          claim.metadata?.namespace ?? '',
          claim.metadata?.name ?? '',
          signal,
        );
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      if (hasStaleOwnerRef(pvc, pod, podKind)) return true;
    }
    return false;
  }

  /**
   * Creates the pod's missing claims and sets their owner references. Go's
   * `createMissingPersistentVolumeClaims`.
   */
  async createMissingPersistentVolumeClaims(
    set: StatefulSet,
    pod: Pod,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.createPersistentVolumeClaims(set, pod, signal);
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod, signal);
    } catch (err) {
      this.#recordPodEvent('update', set, pod, err);
      throw err;
    }
  }

  /**
   * Creates each of the pod's claims that does not exist; fails (after
   * trying all) when one could not be read or created, or is being deleted.
   * Go's `createPersistentVolumeClaims`.
   */
  async createPersistentVolumeClaims(
    set: StatefulSet,
    pod: Pod,
    signal?: AbortSignal,
  ): Promise<void> {
    const errs: Error[] = [];
    for (const claim of getPersistentVolumeClaims(set, pod).values()) {
      const name = claim.metadata?.name ?? '';
      let pvc: PersistentVolumeClaim | undefined;
      try {
        pvc = await this.#om.getClaim(claim.metadata?.namespace ?? '', name, signal);
      } catch (err) {
        if (isNotFound(err)) {
          try {
            await this.#om.createClaim(claim, signal);
            this.#recordClaimEvent('create', set, pod, claim, undefined);
          } catch (createErr) {
            errs.push(new Error(`failed to create PVC ${name}: ${asError(createErr).message}`));
            if (!isAlreadyExists(createErr)) {
              this.#recordClaimEvent('create', set, pod, claim, createErr);
            }
          }
        } else {
          errs.push(new Error(`failed to retrieve PVC ${name}: ${asError(err).message}`));
          this.#recordClaimEvent('create', set, pod, claim, err);
        }
        continue;
      }
      if (pvc.metadata?.deletionTimestamp) errs.push(new Error(`pvc ${name} is being deleted`));
    }
    const err = aggregate(errs);
    if (err !== undefined) throw err;
  }

  /** Go's `recordPodEvent`. */
  #recordPodEvent(verb: string, set: StatefulSet, pod: Pod, err: unknown): void {
    const podName = pod.metadata?.name ?? '';
    const setName = set.metadata?.name ?? '';
    if (err === undefined) {
      this.#recorder.event(
        set,
        'Normal',
        `Successful${title(verb)}`,
        `${verb} Pod ${podName} in StatefulSet ${setName} successful`,
      );
    } else {
      this.#recorder.event(
        set,
        'Warning',
        `Failed${title(verb)}`,
        `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${asError(err).message}`,
      );
    }
  }

  /** Go's `recordClaimEvent`. */
  #recordClaimEvent(
    verb: string,
    set: StatefulSet,
    pod: Pod,
    claim: PersistentVolumeClaim,
    err: unknown,
  ): void {
    const claimName = claim.metadata?.name ?? '';
    const podName = pod.metadata?.name ?? '';
    const setName = set.metadata?.name ?? '';
    if (err === undefined) {
      this.#recorder.event(
        set,
        'Normal',
        `Successful${title(verb)}`,
        `${verb} Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`,
      );
    } else {
      this.#recorder.event(
        set,
        'Warning',
        `Failed${title(verb)}`,
        `${verb} Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${asError(err).message}`,
      );
    }
  }
}
