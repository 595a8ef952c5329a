// The simulated scheduler: binds each pending pod to the node running the
// fewest pods, through the pods/binding subresource as kube-scheduler does
// (pkg/scheduler/schedule_one.go, scheduleOne and bind; pkg/scheduler/
// framework/plugins/defaultbinder). Like kwok's controllers it knows the
// cluster only through a client: an informer on the pods, the loads counted
// from its cache plus the pods it has just bound (the scheduler cache's
// AssumePod, pkg/scheduler/backend/cache/cache.go), and a rate-limited work
// queue for the pods whose binding failed (the scheduling queue's backoff,
// pkg/scheduler/backend/queue/scheduling_queue.go). No filters or scores
// beyond that: the sandbox's nodes are all alike.
import {
  isDeletedFinalStateUnknown,
  isNotFound,
  type DeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  type Clock,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedIndexInformer } from '@kcm-ts/informer';
import {
  ItemExponentialFailureRateLimiter,
  newRateLimitingQueue,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import type { Binding, Pod } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from './events.js';

/**
 * What the scheduler needs of the API server beside the pods: the typed
 * client's `Bind` (client-go kubernetes/typed/core/v1/pod_expansion.go),
 * a POST to `pods/binding`.
 */
export interface PodBinder {
  /** Binds the pod `binding.metadata` names to `binding.target`. */
  bind(binding: Binding): Promise<void>;
}

/** The scheduling queue's pod backoff: 1 s initial, 10 s at most (podInitialBackoffSeconds, podMaxBackoffSeconds). */
const initialBackoff = 1_000;
const maxBackoff = 10_000;

const finished = (pod: Pod): boolean =>
  pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Options of {@link SimulatedScheduler}. */
export interface SchedulerOptions {
  /** The pods, all namespaces. */
  pods: ResourceClient<Pod>;
  /** How bindings are written. */
  binder: PodBinder;
  /** The nodes to choose from. */
  nodes: () => readonly string[];
  /** Where the Scheduled events go. */
  events: EventRecorder;
  clock: Clock;
}

export class SimulatedScheduler {
  readonly #opts: SchedulerOptions;
  readonly #informer: SharedIndexInformer<Pod>;
  readonly #queue: RateLimitingQueue<string>;
  /** Pods bound by this scheduler that its cache has not seen bound yet: key → node. */
  readonly #assumed = new Map<string, string>();

  constructor(opts: SchedulerOptions) {
    this.#opts = opts;
    this.#informer = new SharedIndexInformer<Pod>(opts.pods, {
      clock: opts.clock,
      objectDescription: 'pods',
    });
    this.#queue = newRateLimitingQueue<string>(
      new ItemExponentialFailureRateLimiter(initialBackoff, maxBackoff),
      { clock: opts.clock },
    );
    const changed = (pod: Pod | DeletedFinalStateUnknown<Pod>): void => {
      if (isDeletedFinalStateUnknown(pod)) return void this.#assumed.delete(pod.key);
      const key = metaNamespaceKeyFunc(pod);
      // Once the cache shows the binding, the assumption has served.
      if (pod.spec?.nodeName) this.#assumed.delete(key);
      else this.#queue.add(key);
    };
    this.#informer.addEventHandler({
      onAdd: changed,
      onUpdate: (_old, pod) => changed(pod),
      onDelete: changed,
    });
  }

  /** Schedules until `signal` aborts; resolves once the informer and the worker have stopped. */
  async run(signal: AbortSignal): Promise<void> {
    const informer = this.#informer.run(signal);
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (signal.aborted) this.#queue.shutDown();
    await this.#work();
    await informer;
  }

  /** processNextWorkItem, one worker: the pods are bound one at a time, as scheduleOne does. */
  async #work(): Promise<void> {
    for (;;) {
      const [key, shutdown] = await this.#queue.get();
      if (shutdown) return;
      try {
        await this.#schedule(key);
        this.#queue.forget(key);
      } catch {
        // A failed binding is retried after the pod's backoff, as the
        // scheduling queue does for a pod whose bind failed.
        this.#queue.addRateLimited(key);
      } finally {
        this.#queue.done(key);
      }
    }
  }

  async #schedule(key: string): Promise<void> {
    const pod = this.#informer.getIndexer().getByKey(key);
    if (!pod || pod.metadata?.deletionTimestamp || pod.spec?.nodeName) return;
    if ((pod.spec?.schedulerName ?? 'default-scheduler') !== 'default-scheduler') return;
    const node = this.#leastLoaded();
    if (node === undefined) return;
    const meta = pod.metadata ?? {};
    this.#assumed.set(key, node);
    try {
      await this.#opts.binder.bind({
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: meta.name ?? '', namespace: meta.namespace, uid: meta.uid },
        target: { kind: 'Node', name: node },
      });
    } catch (err) {
      // ForgetPod: the pod does not run there after all.
      this.#assumed.delete(key);
      if (isNotFound(err)) return; // deleted meanwhile: the informer will say
      throw err;
    }
    this.#opts.events.record(pod, {
      type: 'Normal',
      reason: 'Scheduled',
      message: `Successfully assigned ${key} to ${node}`,
      component: 'default-scheduler',
    });
  }

  /** The node with the fewest pods still running: the cache's, and the ones just bound. */
  #leastLoaded(): string | undefined {
    const counts = new Map<string, number>();
    const count = (node: string): void => void counts.set(node, (counts.get(node) ?? 0) + 1);
    for (const p of this.#informer.getIndexer().list()) {
      const node = p.spec?.nodeName;
      if (node && !p.metadata?.deletionTimestamp && !finished(p)) count(node);
    }
    for (const node of this.#assumed.values()) count(node);
    let best: { name: string; load: number } | undefined;
    for (const name of this.#opts.nodes()) {
      const load = counts.get(name) ?? 0;
      if (best === undefined || load < best.load) best = { name, load };
    }
    return best?.name;
  }
}
