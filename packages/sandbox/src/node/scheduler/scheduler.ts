// The simulated scheduler: kube-scheduler's loop (pkg/scheduler/
// scheduler.go, eventhandlers.go; schedule_one.go: scheduleOne,
// handleSchedulingFailure, bind) around the default profile's decision
// (schedule-one.ts). Like kwok's controllers it knows the cluster only
// through clients: informers on the pods and the nodes feed its cache
// (cache.ts) and its queue (scheduling-queue.ts); it binds a pod through
// `pods/binding` and records `Scheduled`, or reports why it cannot: a
// `FailedScheduling` event and the pod's `PodScheduled=False` condition
// with reason `Unschedulable` and the same message, then waits for the
// cluster to change.
import {
  formatTime,
  isConflict,
  isDeletedFinalStateUnknown,
  isNotFound,
  metaNamespaceKeyFunc,
  noopLogger,
  type Clock,
  type DeletedFinalStateUnknown,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedIndexInformer, type ResourceEventHandlerRegistration } from '@kcm-ts/informer';
import type { Binding, Node, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../events.js';
import { SchedulerCache } from './cache.js';
import { podClaimNames, type VolumeBinding } from './plugins/volume-binding.js';
import { defaultProfile, schedulePod, type Profile } from './schedule-one.js';
import { SchedulingQueue } from './scheduling-queue.js';

/**
 * What the scheduler needs of the API server beside the pods and nodes:
 * the typed client's `Bind` (client-go kubernetes/typed/core/v1/
 * pod_expansion.go), a POST to `pods/binding`.
 */
export interface PodBinder {
  /** Binds the pod `binding.metadata` names to `binding.target`. */
  bind(binding: Binding): Promise<void>;
}

/** The scheduler's name, which pods ask for in `spec.schedulerName` (the default). */
export const defaultSchedulerName = 'default-scheduler';

/** validation.NoteLengthLimit: an event's message is cut to this many characters. */
const noteLengthLimit = 1024;

/** truncateMessage. */
function truncateMessage(message: string): string {
  if (message.length <= noteLengthLimit) return message;
  const suffix = ' ...';
  return message.slice(0, noteLengthLimit - suffix.length) + suffix;
}

/**
 * isPodUpdated: whether an update changed more than the pod's status,
 * resourceVersion, generation, managed fields and finalizers; only such an
 * update sends a pending pod back to be tried (not the scheduler's own
 * status patch).
 */
function isPodUpdated(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod): unknown => {
    const meta = { ...p.metadata };
    delete meta.resourceVersion;
    delete meta.generation;
    delete meta.managedFields;
    delete meta.finalizers;
    return { ...p, metadata: meta, status: undefined };
  };
  return JSON.stringify(strip(oldPod)) !== JSON.stringify(strip(newPod));
}

/** Whether a node update may let a pending pod in: labels, taints, cordon or allocatable changed. */
function nodeSchedulingPropertiesChanged(oldNode: Node, newNode: Node): boolean {
  const props = (n: Node): string =>
    JSON.stringify([
      n.metadata?.labels ?? {},
      n.spec?.taints ?? [],
      n.spec?.unschedulable ?? false,
      n.status?.allocatable ?? {},
    ]);
  return props(oldNode) !== props(newNode);
}

const finished = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Options of {@link SimulatedScheduler}. */
export interface SchedulerOptions {
  /** The pods, all namespaces. */
  pods: ResourceClient<Pod>;
  /** The nodes. */
  nodes: ResourceClient<Node>;
  /** How bindings are written. */
  binder: PodBinder;
  /** Where the Scheduled and FailedScheduling events go. */
  events: EventRecorder;
  clock: Clock;
  /**
   * VolumeBinding's answer for pods with PersistentVolumeClaims; without
   * it their claims are not looked at.
   */
  volumes?: VolumeBinding | undefined;
  /**
   * Breaks ties between equally good nodes, as kube-scheduler does at
   * random; without it the first by name wins, so runs repeat exactly.
   */
  random?: (() => number) | undefined;
  /** Where failed status writes are reported; nothing when unset. */
  logger?: Logger | undefined;
}

export class SimulatedScheduler {
  readonly #opts: SchedulerOptions;
  readonly #profile: Profile;
  readonly #pods: SharedIndexInformer<Pod>;
  readonly #nodes: SharedIndexInformer<Node>;
  readonly #podHandler: ResourceEventHandlerRegistration;
  readonly #nodeHandler: ResourceEventHandlerRegistration;
  readonly #cache = new SchedulerCache();
  readonly #queue: SchedulingQueue;

  constructor(opts: SchedulerOptions) {
    this.#opts = opts;
    this.#profile = defaultProfile(opts.volumes);
    this.#queue = new SchedulingQueue(opts.clock);
    this.#pods = new SharedIndexInformer<Pod>(opts.pods, {
      clock: opts.clock,
      objectDescription: 'pods',
    });
    this.#nodes = new SharedIndexInformer<Node>(opts.nodes, {
      clock: opts.clock,
      objectDescription: 'nodes',
    });
    this.#podHandler = this.#pods.addEventHandler({
      onAdd: (pod) => this.#podAdded(pod),
      onUpdate: (old, pod) => this.#podUpdated(old, pod),
      onDelete: (pod) => this.#podDeleted(pod),
    });
    this.#nodeHandler = this.#nodes.addEventHandler({
      onAdd: (node) => {
        this.#cache.setNode(node);
        this.#queue.moveAllToActiveOrBackoffQueue(); // NodeAdd
      },
      onUpdate: (old, node) => {
        this.#cache.setNode(node);
        if (nodeSchedulingPropertiesChanged(old, node)) this.#queue.moveAllToActiveOrBackoffQueue();
      },
      onDelete: (node) => {
        const name = isDeletedFinalStateUnknown(node) ? node.key : (node.metadata?.name ?? '');
        this.#cache.removeNode(name);
      },
    });
  }

  /** Schedules until `signal` aborts; resolves once the informers and the worker have stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = Promise.all([this.#pods.run(signal), this.#nodes.run(signal)]);
    const unsubscribe = this.#opts.volumes?.onChange?.(() =>
      this.#queue.moveAllToActiveOrBackoffQueue(),
    );
    const stop = () => this.#queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    // WaitForCacheSync: no decision on a partial view of the cluster.
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([
      Promise.all([this.#podHandler.whenSynced(), this.#nodeHandler.whenSynced()]),
      aborted,
    ]);
    await this.#work(signal);
    unsubscribe?.();
    await informers;
  }

  // The pod informer's events: kube-scheduler's two handlers, one for the
  // pods it should schedule (the queue), one for the bound pods (the cache).

  #responsibleFor(pod: Pod): boolean {
    return (pod.spec?.schedulerName ?? defaultSchedulerName) === defaultSchedulerName;
  }

  #podAdded(pod: Pod): void {
    if (pod.spec?.nodeName) {
      this.#cache.setPod(pod);
      this.#assignedPodAdded();
    } else if (this.#responsibleFor(pod)) {
      this.#queue.add(metaNamespaceKeyFunc(pod));
    }
  }

  #podUpdated(old: Pod, pod: Pod): void {
    const key = metaNamespaceKeyFunc(pod);
    if (pod.spec?.nodeName) {
      this.#cache.setPod(pod);
      this.#queue.forget(key);
      if (!old.spec?.nodeName) this.#assignedPodAdded();
      // A pod that finishes frees its node, as a deleted one does.
      else if (!finished(old) && finished(pod)) this.#queue.moveAllToActiveOrBackoffQueue();
    } else if (this.#responsibleFor(pod) && isPodUpdated(old, pod)) {
      this.#queue.add(key);
    }
  }

  #podDeleted(pod: Pod | DeletedFinalStateUnknown<Pod>): void {
    const obj = isDeletedFinalStateUnknown(pod) ? pod.obj : pod;
    const key = isDeletedFinalStateUnknown(pod) ? pod.key : metaNamespaceKeyFunc(pod);
    this.#queue.forget(key);
    if (obj === undefined) return;
    const meta = obj.metadata ?? {};
    this.#cache.removePod(meta.uid || `${meta.namespace ?? ''}/${meta.name ?? ''}`);
    // AssignedPodDelete: its node has room again.
    if (obj.spec?.nodeName && !finished(obj)) this.#queue.moveAllToActiveOrBackoffQueue();
  }

  /** AssignedPodAdd: only a pod with required pod affinity may fit now (next to the new pod). */
  #assignedPodAdded(): void {
    this.#queue.moveAllToActiveOrBackoffQueue((key) => {
      const pod = this.#pods.getIndexer().getByKey(key);
      return (
        (pod?.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [])
          .length > 0
      );
    });
  }

  /** The one worker: pods are scheduled one at a time, as scheduleOne does. */
  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const [key, shutdown] = await this.#queue.get();
      if (shutdown) return;
      if (!this.#queue.pop(key)) {
        this.#queue.done(key); // a wake-up a later move made needless
        continue;
      }
      try {
        await this.#scheduleOne(key, signal);
      } catch (err) {
        (this.#opts.logger ?? noopLogger).error(err, 'Error scheduling pod', { pod: key });
      } finally {
        this.#queue.done(key);
      }
    }
  }

  /** scheduleOne: the decision at once, then the binding or the report (the one wait). */
  #scheduleOne(key: string, signal: AbortSignal): Promise<void> | undefined {
    const pod = this.#pods.getIndexer().getByKey(key);
    // skipPodSchedule: gone, bound, being deleted, another scheduler's, or
    // still gated (the SchedulingGates PreEnqueue: an update lifting the
    // gates brings it back).
    if (
      pod === undefined ||
      pod.spec?.nodeName ||
      pod.metadata?.deletionTimestamp ||
      !this.#responsibleFor(pod) ||
      (pod.spec?.schedulingGates ?? []).length > 0
    ) {
      this.#queue.forget(key);
      return undefined;
    }
    const uid = pod.metadata?.uid || key;
    if (this.#cache.isAssumed(uid)) return undefined;
    const result = schedulePod(pod, this.#cache.nodeInfos(), {
      profile: this.#profile,
      ...(this.#opts.random ? { random: this.#opts.random } : {}),
    });
    if ('node' in result) return this.#bind(key, pod, result.node, signal);
    if ('fitError' in result) {
      this.#queue.addUnschedulable(key);
      return this.#schedulingFailed(pod, 'Unschedulable', result.fitError.message);
    }
    if (result.code === 'UnschedulableAndUnresolvable') {
      // ErrNoNodesAvailable: a rejection; a node added brings it back.
      this.#queue.addUnschedulable(key);
      return this.#schedulingFailed(pod, 'Unschedulable', result.error);
    }
    this.#queue.addBackoff(key);
    return this.#schedulingFailed(pod, 'SchedulerError', result.error);
  }

  /** The binding cycle: assume, bind through `pods/binding`, then `Scheduled`; a refusal is retried after the pod's backoff. */
  async #bind(key: string, pod: Pod, node: string, signal: AbortSignal): Promise<void> {
    const meta = pod.metadata ?? {};
    const uid = this.#cache.assumePod(pod, node);
    // PreBind, for pods with claims only: the others bind in the same turn as before.
    const volumes =
      podClaimNames(pod).length > 0
        ? await this.#opts.volumes?.preBind?.(pod, node, signal)
        : undefined;
    if (volumes !== undefined) {
      this.#cache.removePod(uid);
      this.#queue.addBackoff(key);
      await this.#schedulingFailed(
        pod,
        'SchedulerError',
        `running PreBind plugin "VolumeBinding": ${volumes}`,
      );
      return;
    }
    try {
      await this.#opts.binder.bind({
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: meta.name ?? '', namespace: meta.namespace, uid: meta.uid },
        target: { kind: 'Node', name: node },
      });
    } catch (err) {
      // ForgetPod: it does not run there after all; its place is free again.
      this.#cache.removePod(uid);
      if (isNotFound(err)) {
        this.#queue.forget(key); // deleted meanwhile: the informer will say
        return;
      }
      this.#queue.addBackoff(key);
      this.#queue.moveAllToActiveOrBackoffQueue();
      await this.#schedulingFailed(
        pod,
        'SchedulerError',
        `running Bind plugin "DefaultBinder": ${(err as Error).message}`,
      );
      return;
    }
    this.#queue.forget(key);
    this.#opts.events.record(pod, {
      type: 'Normal',
      reason: 'Scheduled',
      message: `Successfully assigned ${key} to ${node}`,
      component: defaultSchedulerName,
    });
  }

  /**
   * handleSchedulingFailure: the `FailedScheduling` event (counted on the
   * one before when the message repeats), and the `PodScheduled`
   * condition, written only when it changes.
   */
  async #schedulingFailed(pod: Pod, reason: string, message: string): Promise<void> {
    this.#opts.events.record(pod, {
      type: 'Warning',
      reason: 'FailedScheduling',
      message: truncateMessage(message),
      component: defaultSchedulerName,
      aggregate: true,
    });
    // updatePod with podutil.UpdatePodCondition: written only when it
    // changes; the transition time kept while the status stays False. Read
    // afresh and written through the status (a patch would lose the
    // condition's `lastProbeTime: null`, which the API server keeps); a
    // conflict means the pod changed meanwhile: read again.
    const unchanged = (c: PodCondition | undefined): boolean =>
      c?.status === 'False' && c.reason === reason && c.message === message;
    if (unchanged(pod.status?.conditions?.find((c) => c.type === 'PodScheduled'))) return;
    const meta = pod.metadata ?? {};
    const pods = this.#opts.pods.inNamespace(meta.namespace ?? '');
    for (let attempt = 0; ; attempt++) {
      try {
        const current = await pods.get(meta.name ?? '');
        if (current.metadata?.uid !== meta.uid || current.spec?.nodeName) return;
        const conditions = current.status?.conditions ?? [];
        const old = conditions.find((c) => c.type === 'PodScheduled');
        if (unchanged(old)) return;
        const condition: PodCondition = {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null as unknown as string,
          lastTransitionTime:
            old?.status === 'False' && old.lastTransitionTime
              ? old.lastTransitionTime
              : formatTime(this.#opts.clock.now()),
          reason,
          message,
        };
        await pods.updateStatus({
          ...current,
          status: {
            ...current.status,
            conditions: old
              ? conditions.map((c) => (c === old ? condition : c))
              : [...conditions, condition],
          },
        });
        return;
      } catch (err) {
        if (isConflict(err) && attempt < 3) continue;
        if (!isNotFound(err)) {
          (this.#opts.logger ?? noopLogger).error(err, 'Error updating pod', {
            pod: `${meta.namespace ?? ''}/${meta.name ?? ''}`,
          });
        }
        return;
      }
    }
  }
}
