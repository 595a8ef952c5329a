// Claims bound to volumes, in the simplest form of kube-controller-manager's
// persistentvolume-binder-controller (pkg/controller/volume/persistentvolume/
// pv_controller.go: syncClaim, syncUnboundClaim, syncBoundClaim, syncVolume,
// bind, reclaimVolume; index.go, findBestMatchForClaim), which kcm-ts does
// not port: the sandbox plays the storage side of a cluster here, as it plays
// the kubelet and the scheduler. A claim binds to an Available volume that
// fits it, or to one that kind's local-path-provisioner makes for it (once
// its first pod has a node, for classes that wait for the first consumer);
// a volume whose claim is gone is Released, and deleted when its policy says
// so. Also the scheduler's VolumeBinding PreBind: a pod waits until its
// claims are bound.
import {
  isAlreadyExists,
  isConflict,
  isDeletedFinalStateUnknown,
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  type Clock,
  type DeletedFinalStateUnknown,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedIndexInformer } from '@kcm-ts/informer';
import { newDelayingQueue, type DelayingQueue } from '@kcm-ts/workqueue';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { EventRecorder } from '../events.js';
import { newStatus } from '../scheduler/framework.js';
import { nodeSelectorMatches } from '../scheduler/plugins/node-affinity.js';
import {
  claimsVolumeBinding,
  podClaimNames,
  type ClaimLookup,
  type VolumeBinding,
} from '../scheduler/plugins/volume-binding.js';
import { quantityValue } from '../scheduler/quantity.js';
import {
  localPathProvisionerName,
  provisionVolume,
  selectedNodeAnnotation,
} from './local-path-provisioner.js';

const binderComponent = 'persistentvolume-controller';
const provisionerComponent = `${localPathProvisionerName}_local-path-provisioner`;
const bindCompletedAnnotation = 'pv.kubernetes.io/bind-completed';
const boundByControllerAnnotation = 'pv.kubernetes.io/bound-by-controller';
const storageProvisionerAnnotation = 'volume.kubernetes.io/storage-provisioner';
const betaStorageProvisionerAnnotation = 'volume.beta.kubernetes.io/storage-provisioner';
/** ErrReasonNodeConflict. */
export const errReasonNodeConflict = 'node(s) had volume node affinity conflict';
/** How long the scheduler's PreBind waits for claims to bind (bindTimeoutSeconds' default). */
const bindTimeout = 600_000;
/** How soon a sync that failed on a write is tried again. */
const retryPeriod = 1_000;

/** What the binder needs. */
export interface VolumeBinderOptions {
  client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  clock: Clock;
  events: EventRecorder;
  logger?: Logger | undefined;
}

const claimKey = (pvc: PersistentVolumeClaim): string => `claim:${metaNamespaceKeyFunc(pvc)}`;

/** The simulated cluster's volume binding: see the file's header. */
export class SimulatedVolumeBinder {
  readonly #opts: VolumeBinderOptions;
  readonly #claims: SharedIndexInformer<PersistentVolumeClaim>;
  readonly #volumes: SharedIndexInformer<PersistentVolume>;
  readonly #classes: SharedIndexInformer<StorageClass>;
  readonly #claimClient: ResourceClient<PersistentVolumeClaim>;
  readonly #volumeClient: ResourceClient<PersistentVolume>;
  readonly #queue: DelayingQueue<string>;
  readonly #listeners = new Set<() => void>();
  #stopped = false;

  constructor(opts: VolumeBinderOptions) {
    this.#opts = opts;
    this.#claimClient = opts.client<PersistentVolumeClaim>('', 'persistentvolumeclaims');
    this.#volumeClient = opts.client<PersistentVolume>('', 'persistentvolumes');
    this.#queue = newDelayingQueue<string>({ clock: opts.clock });
    this.#claims = new SharedIndexInformer(this.#claimClient, {
      clock: opts.clock,
      objectDescription: 'persistentvolumeclaims',
    });
    this.#volumes = new SharedIndexInformer(this.#volumeClient, {
      clock: opts.clock,
      objectDescription: 'persistentvolumes',
    });
    this.#classes = new SharedIndexInformer(
      opts.client<StorageClass>('storage.k8s.io', 'storageclasses'),
      { clock: opts.clock, objectDescription: 'storageclasses' },
    );
    const changed = () => {
      for (const listener of [...this.#listeners]) listener();
    };
    const onClaim = (
      o: PersistentVolumeClaim | DeletedFinalStateUnknown<PersistentVolumeClaim>,
    ) => {
      const pvc = isDeletedFinalStateUnknown(o) ? o.obj : o;
      this.#add(isDeletedFinalStateUnknown(o) ? `claim:${o.key}` : claimKey(o));
      // Its volume hears of it too: a claim gone releases the volume.
      const volumeName = pvc?.spec?.volumeName;
      if (volumeName) this.#add(`volume:${volumeName}`);
      changed();
    };
    this.#claims.addEventHandler({
      onAdd: onClaim,
      onUpdate: (_, o) => onClaim(o),
      onDelete: onClaim,
    });
    const onVolume = (o: PersistentVolume | DeletedFinalStateUnknown<PersistentVolume>) => {
      const name = isDeletedFinalStateUnknown(o) ? o.key : (o.metadata?.name ?? '');
      this.#add(`volume:${name}`);
      // A volume that appears may be the one an unbound claim waits for.
      for (const pvc of this.#claims.getStore().list()) {
        if (!pvc.spec?.volumeName) this.#add(claimKey(pvc));
      }
      changed();
    };
    this.#volumes.addEventHandler({
      onAdd: onVolume,
      onUpdate: (_, o) => onVolume(o),
      onDelete: onVolume,
    });
    const onClass = () => {
      for (const pvc of this.#claims.getStore().list()) {
        if (!pvc.spec?.volumeName) this.#add(claimKey(pvc));
      }
      changed();
    };
    this.#classes.addEventHandler({ onAdd: onClass, onUpdate: onClass, onDelete: onClass });
  }

  /** Where the scheduler reads claims, classes and volumes: the binder's caches. */
  readonly lookup: ClaimLookup = {
    claim: (namespace, name) => this.#claims.getIndexer().getByKey(`${namespace}/${name}`),
    storageClass: (name) => this.#classes.getIndexer().getByKey(name),
    volume: (name) => this.#volumes.getIndexer().getByKey(name),
  };

  /** The scheduler's VolumeBinding plugin over this binder. */
  readonly binding: VolumeBinding = {
    check: claimsVolumeBinding(this.lookup),
    filter: (pod, node) => {
      // VolumeBinding's Filter for bound claims: their volumes' node affinity.
      for (const { name } of podClaimNames(pod)) {
        const pvc = this.lookup.claim(pod.metadata?.namespace ?? '', name);
        const volumeName = pvc?.spec?.volumeName;
        if (!volumeName) continue;
        const terms =
          this.lookup.volume?.(volumeName)?.spec?.nodeAffinity?.required?.nodeSelectorTerms;
        if (terms !== undefined && !nodeSelectorMatches(terms, node)) {
          return newStatus('UnschedulableAndUnresolvable', errReasonNodeConflict);
        }
      }
      return undefined;
    },
    preBind: (pod, node, signal) => this.#preBind(pod, node, signal),
    onChange: (listener) => {
      this.#listeners.add(listener);
      return () => this.#listeners.delete(listener);
    },
  };

  /** Binds until `signal` aborts; resolves once its informers and worker have stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = Promise.all([
      this.#claims.run(signal),
      this.#volumes.run(signal),
      this.#classes.run(signal),
    ]);
    const stop = () => {
      this.#stopped = true;
      this.#queue.shutDown();
      for (const listener of [...this.#listeners]) listener();
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    await this.#work();
    await informers;
  }

  #add(key: string): void {
    if (!this.#stopped) this.#queue.add(key);
  }

  async #work(): Promise<void> {
    for (;;) {
      const [key, shutdown] = await this.#queue.get();
      if (shutdown) return;
      try {
        if (key.startsWith('claim:')) await this.#syncClaim(key.slice('claim:'.length));
        else await this.#syncVolume(key.slice('volume:'.length));
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err) && !this.#stopped) {
          (this.#opts.logger ?? noopLogger).error(err, 'Error syncing volume binding', { key });
        }
        if (!this.#stopped) this.#queue.addAfter(key, retryPeriod);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  #event(
    o: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    component = binderComponent,
  ): void {
    this.#opts.events.record(o, { type, reason, message, component, aggregate: true });
  }

  /** syncClaim: a bound claim kept bound, an unbound one matched or provisioned. */
  async #syncClaim(key: string): Promise<void> {
    const pvc = this.#claims.getIndexer().getByKey(key);
    if (pvc === undefined || pvc.metadata?.deletionTimestamp) return;
    const volumeName = pvc.spec?.volumeName;
    if (volumeName) {
      const pv = this.#volumes.getIndexer().getByKey(volumeName);
      if (pv === undefined) {
        if (pvc.status?.phase !== 'Lost') {
          await this.#claimClient
            .inNamespace(pvc.metadata?.namespace ?? '')
            .updateStatus({ ...pvc, status: { ...pvc.status, phase: 'Lost' } });
          this.#event(
            pvc,
            'Warning',
            'ClaimLost',
            'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
          );
        }
        return;
      }
      if (claimRefMatches(pv, pvc)) await this.#bind(pv, pvc);
      return;
    }
    const match = this.#findMatch(pvc);
    if (match !== undefined) {
      await this.#bind(match, pvc);
      return;
    }
    const className = pvc.spec?.storageClassName ?? '';
    if (className === '') {
      this.#event(
        pvc,
        'Normal',
        'FailedBinding',
        'no persistent volumes available for this claim and no storage class is set',
      );
      return;
    }
    const sc = this.#classes.getIndexer().getByKey(className);
    if (sc === undefined) {
      this.#event(
        pvc,
        'Warning',
        'ProvisioningFailed',
        `storageclass.storage.k8s.io "${className}" not found`,
      );
      return;
    }
    const node = pvc.metadata?.annotations?.[selectedNodeAnnotation];
    if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !node) {
      this.#event(
        pvc,
        'Normal',
        'WaitForFirstConsumer',
        'waiting for first consumer to be created before binding',
      );
      return;
    }
    const annotated = await this.#setProvisioner(pvc, sc.provisioner);
    if (sc.provisioner !== localPathProvisionerName) {
      this.#event(
        annotated,
        'Normal',
        'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${sc.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
      );
      return;
    }
    const ref = `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
    this.#event(
      annotated,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${ref}"`,
      provisionerComponent,
    );
    const pv = provisionVolume(annotated, sc, node);
    try {
      await this.#volumeClient.create(pv);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    this.#event(
      annotated,
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${pv.metadata?.name ?? ''}`,
      provisionerComponent,
    );
  }

  /** The claim annotated with the provisioner that is to make its volume, as the binder marks it. */
  async #setProvisioner(
    pvc: PersistentVolumeClaim,
    provisioner: string,
  ): Promise<PersistentVolumeClaim> {
    const annotations = pvc.metadata?.annotations ?? {};
    if (annotations[storageProvisionerAnnotation] === provisioner) return pvc;
    return this.#claimClient.inNamespace(pvc.metadata?.namespace ?? '').update({
      ...pvc,
      metadata: {
        ...pvc.metadata,
        annotations: {
          ...annotations,
          [storageProvisionerAnnotation]: provisioner,
          [betaStorageProvisionerAnnotation]: provisioner,
        },
      },
    });
  }

  /**
   * findBestMatchForClaim: the smallest volume of the claim's class with
   * room and the access modes it asks for, that is free or already names the
   * claim, and that can be reached from the claim's selected node.
   */
  #findMatch(pvc: PersistentVolumeClaim): PersistentVolume | undefined {
    const want = quantityValue(pvc.spec?.resources?.requests?.storage ?? '0');
    const modes = pvc.spec?.accessModes ?? [];
    const className = pvc.spec?.storageClassName ?? '';
    let best: PersistentVolume | undefined;
    for (const pv of this.#volumes.getStore().list()) {
      const spec = pv.spec ?? {};
      if (pv.metadata?.deletionTimestamp) continue;
      if (spec.claimRef) {
        if (!claimRefMatches(pv, pvc)) continue;
        return pv; // pre-bound to this claim
      }
      if (pv.status?.phase !== 'Available') continue;
      if ((spec.storageClassName ?? '') !== className) continue;
      if (!modes.every((m) => (spec.accessModes ?? []).includes(m))) continue;
      const size = quantityValue(spec.capacity?.storage ?? '0');
      if (size < want) continue;
      if (best === undefined || size < quantityValue(best.spec?.capacity?.storage ?? '0'))
        best = pv;
    }
    return best;
  }

  /** bind: the volume names the claim and is Bound; the claim names the volume and is Bound. */
  async #bind(pv: PersistentVolume, pvc: PersistentVolumeClaim): Promise<void> {
    const meta = pvc.metadata ?? {};
    const name = pv.metadata?.name ?? '';
    let volume = pv;
    if (!pv.spec?.claimRef?.uid) {
      volume = await this.#volumeClient.update({
        ...pv,
        metadata: {
          ...pv.metadata,
          annotations: { ...pv.metadata?.annotations, [boundByControllerAnnotation]: 'yes' },
        },
        spec: {
          ...pv.spec,
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: meta.namespace ?? '',
            name: meta.name ?? '',
            uid: meta.uid ?? '',
            resourceVersion: meta.resourceVersion ?? '',
          },
        },
      });
    }
    if (volume.status?.phase !== 'Bound') {
      volume = await this.#volumeClient.updateStatus({
        ...volume,
        status: { ...volume.status, phase: 'Bound' },
      });
    }
    const claims = this.#claimClient.inNamespace(meta.namespace ?? '');
    let claim = pvc;
    if (
      pvc.spec?.volumeName !== name ||
      pvc.metadata?.annotations?.[bindCompletedAnnotation] !== 'yes'
    ) {
      claim = await claims.update({
        ...pvc,
        metadata: {
          ...pvc.metadata,
          annotations: {
            ...pvc.metadata?.annotations,
            [bindCompletedAnnotation]: 'yes',
            [boundByControllerAnnotation]: 'yes',
          },
        },
        spec: { ...pvc.spec, volumeName: name },
      });
    }
    if (claim.status?.phase !== 'Bound') {
      await claims.updateStatus({
        ...claim,
        status: {
          ...claim.status,
          phase: 'Bound',
          accessModes: [...(volume.spec?.accessModes ?? [])],
          capacity: { ...volume.spec?.capacity },
        },
      });
    }
  }

  /** syncVolume: a new volume Available; one whose claim is gone Released, and deleted when its policy says so. */
  async #syncVolume(name: string): Promise<void> {
    const pv = this.#volumes.getIndexer().getByKey(name);
    if (pv === undefined || pv.metadata?.deletionTimestamp) return;
    const ref = pv.spec?.claimRef;
    const phase = pv.status?.phase ?? 'Pending';
    if (ref === undefined) {
      if (phase === 'Pending' || phase === 'Released') await this.#setPhase(pv, 'Available');
      return;
    }
    const pvc = this.#claims.getIndexer().getByKey(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (pvc !== undefined && claimRefMatches(pv, pvc)) {
      if (phase === 'Pending') await this.#setPhase(pv, 'Available');
      this.#add(claimKey(pvc));
      return;
    }
    if (!ref.uid) {
      // Pre-bound to a claim not made yet: it waits for it.
      if (phase === 'Pending') await this.#setPhase(pv, 'Available');
      return;
    }
    // reclaimVolume: the claim it was bound to is gone.
    if (phase !== 'Released' && phase !== 'Failed') await this.#setPhase(pv, 'Released');
    if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      try {
        await this.#volumeClient.delete(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  async #setPhase(pv: PersistentVolume, phase: string): Promise<void> {
    await this.#volumeClient.updateStatus({ ...pv, status: { ...pv.status, phase } });
  }

  /**
   * The scheduler's VolumeBinding PreBind: names `node` on the pod's claims
   * that wait for their first consumer, then waits until every claim of the
   * pod is bound. Resolves with why not, or undefined.
   */
  async #preBind(pod: Pod, node: string, signal?: AbortSignal): Promise<string | undefined> {
    const namespace = pod.metadata?.namespace ?? '';
    const names = podClaimNames(pod).map((c) => c.name);
    if (names.length === 0) return undefined;
    const claims = this.#claimClient.inNamespace(namespace);
    for (const name of names) {
      const pvc = this.lookup.claim(namespace, name);
      if (pvc === undefined || pvc.spec?.volumeName) continue;
      if (pvc.metadata?.annotations?.[selectedNodeAnnotation]) continue;
      const sc = this.lookup.storageClass(pvc.spec?.storageClassName ?? '');
      if (sc?.volumeBindingMode !== 'WaitForFirstConsumer') continue;
      try {
        await claims.patch(name, {
          type: 'merge',
          body: { metadata: { annotations: { [selectedNodeAnnotation]: node } } },
        });
      } catch (err) {
        return `binding volumes: ${(err as Error).message}`;
      }
    }
    const bound = () =>
      names.every((name) => {
        const pvc = this.lookup.claim(namespace, name);
        return pvc?.spec?.volumeName !== undefined && pvc.status?.phase === 'Bound';
      });
    if (bound()) return undefined;
    return new Promise((resolve) => {
      const finish = (result: string | undefined) => {
        unsubscribe();
        timer.stop();
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => finish('binding volumes: the scheduler stopped');
      const unsubscribe = this.binding.onChange!(() => {
        if (bound()) finish(undefined);
        else if (this.#stopped) finish('binding volumes: the volume binder stopped');
      });
      const timer = this.#opts.clock.afterFunc(bindTimeout, () =>
        finish('binding volumes: timed out waiting for the condition'),
      );
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Whether the volume's claimRef names this claim (by uid, once it has one). */
function claimRefMatches(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (ref === undefined) return false;
  if (ref.namespace !== pvc.metadata?.namespace || ref.name !== pvc.metadata?.name) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}
