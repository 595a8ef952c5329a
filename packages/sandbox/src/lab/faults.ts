// Faults injected on demand, so tests can prove that informers and
// controllers survive what real API servers do to them: dropped and hung
// watches, 5xx, 429 with Retry-After (as kube-apiserver's priority and
// fairness answers, staging/src/k8s.io/apiserver/pkg/server/filters/
// priority-and-fairness.go), conflicts, latency and compaction; and what
// nodes do to the cluster: a kubelet that stops, so its node goes silent.
import {
  newConflict,
  newInternalError,
  optimisticLockErrorMsg,
  newServiceUnavailable,
  newTooManyRequests,
  type Clock,
  type GroupResource,
  type StatusError,
} from '@kcm-ts/apimachinery';
import type { Verb } from '../apiserver/resources.js';

/**
 * Which requests a fault applies to: all of them unless narrowed by verb
 * and/or resource (the plural name, such as `pods`).
 *
 * @category Fault lab
 */
export interface FaultFilter {
  /** Only requests with one of these verbs. */
  verbs?: readonly Verb[];
  /** Only requests for this resource (plural, such as `pods` or `deployments`). */
  resource?: string;
}

/**
 * An error answer for {@link FaultLab.failNext}: 500 Internal Server Error,
 * 503 Service Unavailable, or 429 Too Many Requests with a `Retry-After`.
 *
 * @category Fault lab
 */
export interface FailureKind {
  /** 500 InternalError, 503 ServiceUnavailable or 429 TooManyRequests. */
  code: 500 | 503 | 429;
  /** For a 429: the `Retry-After` in seconds. Default 1. */
  retryAfterSeconds?: number;
}

/**
 * The requests a sandbox has received, counted by verb and resource, such as
 * `{ 'list pods': 2, 'watch pods': 5 }`.
 *
 * @category Fault lab
 */
export type RequestCounts = Record<string, number>;

interface PlannedFailure {
  remaining: number;
  filter: FaultFilter;
  error: (resource: GroupResource, name: string) => StatusError;
}

/**
 * A simulated node's kubelet as the fault lab drives it.
 *
 * @internal
 */
export interface KubeletSwitch {
  readonly kubeletStopped: boolean;
  stopKubelet(): void;
  startKubelet(): Promise<void>;
}

interface OpenWatch {
  resource: string;
  /** Ends the response cleanly, as a server closing the stream. */
  drop(): void;
}

/**
 * The fault lab of a sandbox (`sandbox.faults`): each method arms a fault
 * that applies to the HTTP requests that follow, so real clients (kubectl,
 * `@kubernetes/client-node`, `@kcm-ts/client`) meet it, and to the
 * in-process clients made with `sandbox.client(group, resource, { faults:
 * true })`, so a fault test can run on a fake clock. Other in-process
 * clients meet none of them, except {@link FaultLab.compact}, which acts on
 * the storage.
 *
 * @example
 * ```ts
 * sandbox.faults.failNext(3, { code: 429, retryAfterSeconds: 2 }, { verbs: ['list'] });
 * sandbox.faults.dropWatches('pods');
 * sandbox.faults.compact(); // resuming watches now get 410 Expired
 * ```
 *
 * @category Fault lab
 */
export class FaultLab {
  readonly #clock: Clock;
  readonly #compact: () => void;
  #failures: PlannedFailure[] = [];
  #latency: { ms: number; filter: FaultFilter } | undefined;
  #hung: FaultFilter | undefined;
  readonly #watches = new Set<OpenWatch>();
  readonly #hungWatches = new Set<OpenWatch>();
  #counts: RequestCounts = {};
  #sleeps = new AbortController();
  #kubelets: ReadonlyMap<string, KubeletSwitch> = new Map();

  /**
   * @param clock - the sandbox's clock: latency waits on it
   * @param compact - forgets the storage's change history
   */
  constructor(clock: Clock, compact: () => void) {
    this.#clock = clock;
    this.#compact = compact;
  }

  /**
   * Answers the next `count` requests that match `filter` with `failure`
   * instead of serving them: a 500 or 503 Status, or a 429 TooManyRequests
   * Status with a `Retry-After` header (default 1 second) and
   * `details.retryAfterSeconds`. A watch that fails this way fails before its
   * stream starts.
   */
  failNext(count: number, failure: FailureKind, filter: FaultFilter = {}): void {
    const error = (): StatusError => {
      switch (failure.code) {
        case 500:
          return newInternalError(new Error('injected by the sandbox fault lab'));
        case 503:
          return newServiceUnavailable('injected by the sandbox fault lab');
        case 429:
          return newTooManyRequests(
            'too many requests, injected by the sandbox fault lab',
            failure.retryAfterSeconds ?? 1,
          );
      }
    };
    this.#failures.push({ remaining: count, filter, error });
  }

  /**
   * Answers the next `count` writes (create, update, patch, delete) that match
   * `filter` with 409 Conflict, as a write with a stale resourceVersion gets.
   */
  conflictNext(count: number, filter: Omit<FaultFilter, 'verbs'> = {}): void {
    const verbs: Verb[] = ['create', 'update', 'patch', 'delete'];
    this.#failures.push({
      remaining: count,
      filter: { ...filter, verbs },
      error: (resource, name) => newConflict(resource, name, new Error(optimisticLockErrorMsg)),
    });
  }

  /**
   * Delays every request that matches `filter` by `ms` milliseconds on the
   * sandbox's clock (so a fake clock controls it); `0` removes the delay.
   */
  latency(ms: number, filter: FaultFilter = {}): void {
    this.#latency = ms > 0 ? { ms, filter } : undefined;
  }

  /**
   * Ends every open watch (or those of `resource`) cleanly, as a server does
   * when it restarts or a load balancer cuts the connection. Clients see their
   * stream end with no error.
   *
   * @returns how many watches were dropped
   */
  dropWatches(resource?: string): number {
    let dropped = 0;
    for (const w of [...this.#watches]) {
      if (resource !== undefined && w.resource !== resource) continue;
      w.drop();
      dropped++;
    }
    return dropped;
  }

  /**
   * Hangs watches (all, or those of `resource`): the open ones and any new
   * ones keep their connection open but send nothing, not even bookmarks,
   * and do not end at their timeout. {@link FaultLab.releaseWatches} ends
   * them.
   */
  hangWatches(resource?: string): void {
    this.#hung = resource === undefined ? {} : { resource };
    for (const w of this.#watches) {
      if (resource === undefined || w.resource === resource) this.#hungWatches.add(w);
    }
  }

  /** Stops hanging new watches and drops the hung ones, so clients reconnect. */
  releaseWatches(): void {
    this.#hung = undefined;
    for (const w of [...this.#hungWatches]) w.drop();
    this.#hungWatches.clear();
  }

  /**
   * Forgets the whole change history, as etcd compaction does: a watch or a
   * paginated list resuming from any earlier resourceVersion gets 410
   * Expired.
   */
  compact(): void {
    this.#compact();
  }

  /**
   * Stops the kubelet of the simulated node `node` (such as `'node-2'`), as
   * `systemctl stop kubelet` on a kind node would: it no longer reports
   * the node's status or renews its Lease in `kube-node-lease`, and no
   * longer syncs its pods (they keep the status they had; new ones bound
   * there stay Pending; deleted ones stay Terminating). The node goes
   * NotReady once a node lifecycle controller notices the silence (its
   * `--node-monitor-grace-period` after the last renewal): that, its
   * taints and the evictions are the controller's doing, not the sandbox's. The scheduler goes on
   * binding pods there until such taints appear, as kube-scheduler does.
   */
  stopKubelet(node: string): void {
    this.#kubelet(node).stopKubelet();
  }

  /**
   * Starts the kubelet of `node` again: it reports the node Ready with new
   * heartbeats and renews its Lease at once (the promise resolves when
   * both are written), then syncs every pod on the node.
   */
  startKubelet(node: string): Promise<void> {
    return this.#kubelet(node).startKubelet();
  }

  /** The simulated nodes whose kubelet is stopped. */
  stoppedKubelets(): string[] {
    return [...this.#kubelets].filter(([, k]) => k.kubeletStopped).map(([name]) => name);
  }

  #kubelet(node: string): KubeletSwitch {
    const k = this.#kubelets.get(node);
    if (k === undefined) {
      const known = [...this.#kubelets.keys()];
      throw new RangeError(
        `no simulated node "${node}"${known.length > 0 ? `; the nodes are ${known.join(', ')}` : ': the sandbox runs no nodes'}`,
      );
    }
    return k;
  }

  /**
   * Gives the lab the simulated nodes' kubelets; called by the sandbox.
   *
   * @internal
   */
  attachKubelets(kubelets: ReadonlyMap<string, KubeletSwitch>): void {
    this.#kubelets = kubelets;
  }

  /** How many watches the server is streaming (or holding hung) right now. */
  openWatches(): number {
    return this.#watches.size;
  }

  /** The requests received since the start or the last {@link FaultLab.resetCounts}. */
  counts(): RequestCounts {
    return { ...this.#counts };
  }

  /** Starts counting afresh. */
  resetCounts(): void {
    this.#counts = {};
  }

  /**
   * Disarms every fault, releases hung watches and starts stopped
   * kubelets again (without waiting for their first report); counts are
   * kept.
   */
  clear(): void {
    this.#failures = [];
    this.#latency = undefined;
    this.releaseWatches();
    for (const k of this.#kubelets.values()) {
      if (k.kubeletStopped) void k.startKubelet().catch(() => {});
    }
  }

  /**
   * Called by the server (and by in-process clients that meet faults) for
   * each request once its verb and resource are known: counts it, waits out any latency, and throws the planned failure,
   * if any.
   *
   * @internal
   */
  async beforeRequest(verb: Verb, target: GroupResource, name: string): Promise<void> {
    const resource = target.resource;
    const key = `${verb} ${resource}`;
    this.#counts[key] = (this.#counts[key] ?? 0) + 1;
    const latency = this.#latency;
    if (latency && matches(latency.filter, verb, resource)) {
      await this.#clock.sleep(latency.ms, this.#sleeps.signal);
    }
    const planned = this.#failures.find(
      (f) => f.remaining > 0 && matches(f.filter, verb, resource),
    );
    if (planned) {
      planned.remaining--;
      this.#failures = this.#failures.filter((f) => f.remaining > 0);
      throw planned.error(target, name);
    }
  }

  /**
   * Called by the server (and by in-process clients that meet faults) for
   * each watch it streams; returns whether the
   * watch starts hung, and the function to call when it ends.
   *
   * @internal
   */
  openWatch(resource: string, drop: () => void): { hung: () => boolean; close: () => void } {
    const w: OpenWatch = { resource, drop };
    this.#watches.add(w);
    const hung = this.#hung;
    if (hung !== undefined && (hung.resource === undefined || hung.resource === resource)) {
      this.#hungWatches.add(w);
    }
    return {
      hung: () => this.#hungWatches.has(w),
      close: () => {
        this.#watches.delete(w);
        this.#hungWatches.delete(w);
      },
    };
  }

  /**
   * Ends pending latency waits; called when the server stops.
   *
   * @internal
   */
  stop(): void {
    this.#sleeps.abort();
    this.#sleeps = new AbortController();
  }
}

function matches(filter: FaultFilter, verb: Verb, resource: string): boolean {
  if (filter.resource !== undefined && filter.resource !== resource) return false;
  if (filter.verbs !== undefined && !filter.verbs.includes(verb)) return false;
  return true;
}
