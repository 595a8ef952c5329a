// The PersistentVolumeClaim protection controller: Go's
// pkg/controller/volume/pvcprotection/pvc_protection_controller.go
// (NewPVCProtectionController, processPVC, isBeingUsed, askInformer,
// askAPIServer, podUsesPVC, podIsShutDown, pvcAddedUpdated,
// podAddedDeletedUpdated, enqueuePVCs) with the pod index of
// pkg/controller/volume/common (PodPVCIndexFunc). A claim being deleted
// keeps its `kubernetes.io/pvc-protection` finalizer while a scheduled pod
// names it; once none does, the finalizer goes and the claim with it. Go
// batches the claims of one namespace so that they share one live pod list;
// here each claim is processed on its own, with a live list of its
// namespace's pods when the cache shows no user.
import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import {
  isDeletedFinalStateUnknown,
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type DeletedFinalStateUnknown,
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
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import {
  isDeletionCandidate,
  needToAddFinalizer,
  pvcProtectionFinalizer,
  withFinalizer,
} from './protection-util.js';

/**
 * The pod index by the claims a pod's volumes name: Go's `PodPVCIndex`.
 *
 * @category Volume protection controllers
 */
export const podPVCIndex = 'pod-pvc-index';

/** The claim a generic ephemeral volume gets: `<pod>-<volume>` (Go's `ephemeral.VolumeClaimName`). */
function ephemeralClaimName(pod: Pod, volume: Volume): string {
  return `${pod.metadata?.name ?? ''}-${volume.name}`;
}

/** `namespace/claim` for each claim the pod's volumes name: Go's `PodPVCIndexFunc`. */
export function podPVCIndexFunc(pod: Pod): string[] {
  const ns = pod.metadata?.namespace ?? '';
  return (pod.spec?.volumes ?? []).flatMap((v) => {
    if (v.persistentVolumeClaim) return [`${ns}/${v.persistentVolumeClaim.claimName}`];
    if (v.ephemeral) return [`${ns}/${ephemeralClaimName(pod, v)}`];
    return [];
  });
}

/** Kubelet is done with the pod, or it was force-deleted: Go's `podIsShutDown`. */
function podIsShutDown(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp != null && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** Succeeded or Failed: Go's `volumeutil.IsPodTerminated` for the phases it looks at. */
function podIsTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Whether `pod` holds `pvc`: only scheduled pods count (the kubelet will
 * not start a pod whose claim is being deleted); an ephemeral volume's
 * claim only while its pod is not shut down and the claim is the pod's own.
 * Go's `podUsesPVC`.
 *
 * @category Volume protection controllers
 */
export function podUsesPVC(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName) return false;
  const name = pvc.metadata?.name;
  return (pod.spec.volumes ?? []).some((v) => {
    if (v.persistentVolumeClaim) return v.persistentVolumeClaim.claimName === name;
    if (v.ephemeral && !podIsShutDown(pod) && ephemeralClaimName(pod, v) === name) {
      // VolumeIsForPod: the claim is controlled by this very pod.
      return (pvc.metadata?.ownerReferences ?? []).some(
        (r) => r.controller === true && r.uid === pod.metadata?.uid,
      );
    }
    return false;
  });
}

/**
 * What a {@link PVCProtectionController} is made from.
 *
 * @category Volume protection controllers
 */
export interface PVCProtectionControllerOptions {
  /** Names the controller in logs. Default `persistentvolumeclaim-protection-controller`. */
  controllerName?: string;
  /** Writes the claims, and lists pods live when the cache shows no user. */
  client: ResourceClientSource;
  /** The shared claim informer, `factory.persistentVolumeClaims()`. */
  pvcInformer: ResourceInformer<PersistentVolumeClaim>;
  /** The shared pod informer, `factory.pods()`; the controller adds its index. */
  podInformer: ResourceInformer<Pod>;
  /** Default: the real clock. */
  clock?: Clock;
  /** Default: no logs. */
  logger?: Logger;
}

/**
 * kube-controller-manager's `persistentvolumeclaim-protection-controller`:
 * removes the `kubernetes.io/pvc-protection` finalizer from a claim being
 * deleted once no scheduled pod uses it, and adds it to claims that lack it.
 * Go's `Controller` in `pvcprotection`.
 *
 * @category Volume protection controllers
 */
export class PVCProtectionController {
  readonly #name: string;
  readonly #claims: ResourceClient<PersistentVolumeClaim>;
  readonly #pods: ResourceClient<Pod>;
  readonly #pvcInformer: ResourceInformer<PersistentVolumeClaim>;
  readonly #podInformer: ResourceInformer<Pod>;
  readonly #queue: RateLimitingQueue<string>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /** @param opts - see {@link PVCProtectionControllerOptions} */
  constructor(opts: PVCProtectionControllerOptions) {
    this.#name = opts.controllerName ?? 'persistentvolumeclaim-protection-controller';
    this.#clock = opts.clock ?? realClock;
    this.#logger = opts.logger ?? noopLogger;
    this.#claims = opts.client.resource<PersistentVolumeClaim>(
      { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      { namespaced: true, kind: 'PersistentVolumeClaim' },
    );
    this.#pods = opts.client.resource<Pod>(
      { group: '', version: 'v1', resource: 'pods' },
      { namespaced: true, kind: 'Pod' },
    );
    this.#pvcInformer = opts.pvcInformer;
    this.#podInformer = opts.podInformer;
    this.#queue = newRateLimitingQueue<string>(defaultControllerRateLimiter(this.#clock), {
      name: 'pvcprotection',
      clock: this.#clock,
    });
    this.#pvcInformer.informer().addEventHandler({
      onAdd: (pvc) => this.#pvcAddedUpdated(pvc),
      onUpdate: (_old, pvc) => this.#pvcAddedUpdated(pvc),
    });
    const podInformer = this.#podInformer.informer();
    if (!(podPVCIndex in podInformer.getIndexer().getIndexers())) {
      podInformer.addIndexers({ [podPVCIndex]: podPVCIndexFunc });
    }
    podInformer.addEventHandler({
      onAdd: (pod) => this.#podAddedDeletedUpdated(undefined, pod, false),
      onUpdate: (old, pod) => this.#podAddedDeletedUpdated(old, pod, false),
      onDelete: (pod) => this.#podAddedDeletedUpdated(undefined, pod, true),
    });
  }

  #pvcAddedUpdated(pvc: PersistentVolumeClaim): void {
    if (
      needToAddFinalizer(pvc, pvcProtectionFinalizer) ||
      isDeletionCandidate(pvc, pvcProtectionFinalizer)
    ) {
      this.#queue.add(metaNamespaceKeyFunc(pvc));
    }
  }

  #podAddedDeletedUpdated(
    old: Pod | undefined,
    pod: Pod | DeletedFinalStateUnknown<Pod>,
    deleted: boolean,
  ): void {
    const p = isDeletedFinalStateUnknown(pod) ? pod.obj : pod;
    if (p === undefined) return;
    this.#enqueuePVCs(p, deleted);
    // An update may hide a pod deleted and another made under its name: the
    // old one's claims need a look too.
    if (old !== undefined && old.metadata?.uid !== p.metadata?.uid) this.#enqueuePVCs(old, true);
  }

  /** The claims of a pod that may now be free: Go's `enqueuePVCs`. */
  #enqueuePVCs(pod: Pod, deleted: boolean): void {
    if (!deleted && !podIsTerminated(pod) && pod.spec?.nodeName) return;
    for (const key of podPVCIndexFunc(pod)) this.#queue.add(key);
  }

  /**
   * Waits for the claim and pod informers to sync, then runs `workers`
   * workers until `signal` aborts; resolves once they have stopped.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const logger = this.#logger;
    logger.info('Starting controller', { controller: this.#name });
    const running: Promise<void>[] = [];
    const onAbort = () => this.#queue.shutDown();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const claims = this.#pvcInformer.informer();
      const pods = this.#podInformer.informer();
      const synced = await waitForNamedCacheSync(
        this.#name,
        signal,
        [() => claims.hasSynced(), () => pods.hasSynced()],
        { clock: this.#clock, logger },
      );
      if (!synced) return;
      for (let i = 0; i < workers; i++) running.push(this.#worker(signal));
      await Promise.all(running);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#queue.shutDown();
      await Promise.all(running);
      logger.info('Shutting down controller', { controller: this.#name });
    }
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, quit] = await this.#queue.get();
      if (quit) return;
      try {
        await this.#processPVC(key, signal);
        this.#queue.forget(key);
      } catch (err) {
        if (!signal.aborted) {
          this.#logger.error(err, 'PVC failed', { pvc: key });
        }
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /** Go's `processPVC`. */
  async #processPVC(key: string, signal: AbortSignal): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pvc = this.#pvcInformer.lister().byNamespace(namespace).tryGet(name);
    if (pvc === undefined) return;
    const claims = this.#claims.inNamespace(namespace);
    try {
      if (isDeletionCandidate(pvc, pvcProtectionFinalizer)) {
        if (!(await this.#isBeingUsed(pvc, signal))) {
          await claims.update(withFinalizer(pvc, pvcProtectionFinalizer, false), { signal });
          this.#logger.v(3).info('Removed protection finalizer from PVC', { pvc: key });
          return;
        }
        this.#logger.v(2).info('Keeping PVC because it is being used', { pvc: key });
      }
      if (needToAddFinalizer(pvc, pvcProtectionFinalizer)) {
        await claims.update(withFinalizer(pvc, pvcProtectionFinalizer, true), { signal });
        this.#logger.v(3).info('Added protection finalizer to PVC', { pvc: key });
      }
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /**
   * A user in the cache is enough to keep the claim; none there may only
   * mean the cache lags, so a live list decides. Go's `isBeingUsed`.
   */
  async #isBeingUsed(pvc: PersistentVolumeClaim, signal: AbortSignal): Promise<boolean> {
    const key = `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
    const cached = this.#podInformer.informer().getIndexer().byIndex(podPVCIndex, key);
    if (cached.some((pod) => podUsesPVC(pod, pvc))) return true;
    const live = await this.#pods.inNamespace(pvc.metadata?.namespace ?? '').list({ signal });
    return live.items.some((pod) => podUsesPVC(pod, pvc));
  }
}
