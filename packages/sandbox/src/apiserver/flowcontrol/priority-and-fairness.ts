// API priority and fairness: staging/src/k8s.io/apiserver/pkg/server/
// filters/priority-and-fairness.go (WithPriorityAndFairness) over the
// controller of staging/src/k8s.io/apiserver/pkg/util/flowcontrol
// (apf_controller.go: the priority levels' concurrency limits from their
// shares of the server's, classification, Handle). Each request is
// classified by the first matching flow schema; the exempt level runs at
// once, every other one runs when its level has seats for it and otherwise
// waits its turn in a queue, up to a quarter of the request timeout. Leader
// election, the controller manager and nodes have levels of their own, so
// no amount of user traffic takes their seats.
import type { Clock } from '@kcm-ts/apimachinery';
import {
  defaultFlowSchemas,
  defaultPriorityLevels,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from './bootstrap.js';
import { DroppedRequestsTracker } from './dropped-requests-tracker.js';
import {
  flowDistinguisher,
  matchFlowSchema,
  sortFlowSchemas,
  type RequestDigest,
} from './match.js';
import { QueueSet, type RejectReason } from './queue-set.js';
import { hashFlowID } from './shuffle-sharding.js';
import { maximumSeats } from './work-estimator.js';

/** How a request was classified. */
export interface Classification {
  flowSchema: string;
  priorityLevel: string;
  /** The hash of its flow: the schema and the user or namespace it distinguishes by. */
  flowHash: bigint;
}

/** What {@link PriorityAndFairness.start} settles with. */
export type Admission =
  | { admitted: true; classification: Classification; finish: () => void }
  | {
      admitted: false;
      classification: Classification;
      reason: RejectReason;
      /** Seconds the client is told to wait (`Retry-After`). */
      retryAfter: number;
    };

/** Options of {@link PriorityAndFairness}. */
export interface PriorityAndFairnessOptions {
  /**
   * The seats of the whole server, shared among the limited levels by
   * their nominal concurrency shares: kube-apiserver's
   * `--max-requests-inflight` plus `--max-mutating-requests-inflight`
   * (400 + 200).
   */
  serverConcurrencyLimit: number;
  /** The clock queue waits are measured on: the wall clock, as for request timeouts. */
  clock: Clock;
  /** The longest a request waits in a queue, in ms: a quarter of the 60 s request timeout. */
  requestWaitLimitMs?: number;
  flowSchemas?: readonly FlowSchema[];
  priorityLevels?: readonly PriorityLevelConfiguration[];
}

interface Level {
  config: PriorityLevelConfiguration;
  /** Undefined for the exempt level. */
  queueSet?: QueueSet;
  concurrencyLimit: number;
  maxSeats: number;
}

/** One server's priority levels, their seats and queues. */
export class PriorityAndFairness {
  readonly #schemas: FlowSchema[];
  readonly #levels = new Map<string, Level>();
  readonly #dropped: DroppedRequestsTracker;
  readonly #waitLimit: number;
  readonly #hashes = new Map<string, bigint>();

  constructor(opts: PriorityAndFairnessOptions) {
    this.#schemas = sortFlowSchemas(opts.flowSchemas ?? defaultFlowSchemas);
    this.#waitLimit = opts.requestWaitLimitMs ?? 15_000;
    this.#dropped = new DroppedRequestsTracker(() => Math.floor(opts.clock.now() / 1000));
    const levels = opts.priorityLevels ?? defaultPriorityLevels;
    let shares = 0;
    for (const pl of levels) {
      if (pl.spec.type === 'Limited') shares += pl.spec.limited.nominalConcurrencyShares;
    }
    for (const pl of levels) {
      if (pl.spec.type === 'Exempt') {
        this.#levels.set(pl.metadata.name, { config: pl, concurrencyLimit: Infinity, maxSeats: 1 });
        continue;
      }
      const { nominalConcurrencyShares, limitResponse } = pl.spec.limited;
      // apf_controller.go: nominal limit = ceil(server limit × share / sum of shares).
      const concurrencyLimit = Math.max(
        1,
        Math.ceil((opts.serverConcurrencyLimit * nominalConcurrencyShares) / Math.max(shares, 1)),
      );
      this.#levels.set(pl.metadata.name, {
        config: pl,
        concurrencyLimit,
        // A request never needs more than 15% of its level's seats (and at most 10).
        maxSeats: Math.max(1, Math.min(maximumSeats, Math.ceil(concurrencyLimit * 0.15))),
        queueSet: new QueueSet(
          {
            concurrencyLimit,
            ...(limitResponse.type === 'Queue' ? { queuing: limitResponse.queuing } : {}),
          },
          opts.clock,
        ),
      });
    }
  }

  /** The flow schema, priority level and flow of a request. */
  classify(digest: RequestDigest): Classification {
    const fs = matchFlowSchema(this.#schemas, digest);
    // Every authenticated or anonymous request matches catch-all; this is a
    // request with neither group.
    const flowSchema = fs?.metadata.name ?? 'catch-all';
    const priorityLevel = fs?.spec.priorityLevelConfiguration.name ?? 'catch-all';
    const distinguisher = fs ? flowDistinguisher(fs, digest) : digest.user.username;
    const flow = `${flowSchema}\u0000${distinguisher}`;
    let flowHash = this.#hashes.get(flow);
    if (flowHash === undefined) {
      // Flows are few (users, namespaces); the bound only guards against a flood of names.
      if (this.#hashes.size >= 10_000) this.#hashes.clear();
      flowHash = hashFlowID(flowSchema, distinguisher);
      this.#hashes.set(flow, flowHash);
    }
    return { flowSchema, priorityLevel, flowHash };
  }

  /** The most seats one request of `level` may take. */
  maxSeats(level: string): number {
    return this.#levels.get(level)?.maxSeats ?? 1;
  }

  /** The seats `level` has, `Infinity` for the exempt one. */
  concurrencyLimit(level: string): number {
    return this.#levels.get(level)?.concurrencyLimit ?? 0;
  }

  /** Seats in use and requests waiting at `level`. */
  load(level: string): { seatsInUse: number; waiting: number } {
    const qs = this.#levels.get(level)?.queueSet;
    return { seatsInUse: qs?.seatsInUse ?? 0, waiting: qs?.waiting ?? 0 };
  }

  /**
   * The text of `/debug/api_priority_and_fairness/dump_priority_levels`
   * (apf_controller_debug.go, dumpPriorityLevels): one row per level, in
   * name order, columns aligned as Go's tabwriter aligns them.
   */
  dumpPriorityLevels(): string {
    const header = [
      'PriorityLevelName',
      'ActiveQueues',
      'IsIdle',
      'IsQuiescing',
      'WaitingRequests',
      'ExecutingRequests',
      'DispatchedRequests',
      'RejectedRequests',
      'TimedoutRequests',
      'CancelledRequests',
    ];
    const rows = [...this.#levels.keys()].sort().map((name) => {
      const st = this.#levels.get(name)?.queueSet?.stats();
      if (!st) return [name, ...header.slice(1).map(() => '<none>')];
      const idle = st.waiting === 0 && st.executing === 0;
      return [
        name,
        st.activeQueues,
        idle,
        false,
        st.waiting,
        st.executing,
        st.dispatched,
        st.rejected,
        st.timedOut,
        st.cancelled,
      ].map(String);
    });
    const table = [header, ...rows];
    const widths = header.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length + 1)));
    const line = (r: string[]) =>
      r.map((c, i) => (i === r.length - 1 ? c : `${c},`.padEnd((widths[i] ?? 0) + 1))).join(' ');
    return `${table.map(line).join('\n')}\n`;
  }

  /**
   * Waits for seats for a classified request: `seats` of them (see
   * work-estimator.ts), until `signal` aborts (the client left) or the wait
   * limit passes. An admitted request calls `finish` once answered.
   */
  async start(c: Classification, seats: number, signal?: AbortSignal): Promise<Admission> {
    const level = this.#levels.get(c.priorityLevel) ?? this.#levels.get('catch-all');
    if (!level?.queueSet) return { admitted: true, classification: c, finish: () => {} };
    const width = Math.max(1, Math.min(seats, level.maxSeats));
    const r = await level.queueSet.startRequest(c.flowHash, width, this.#waitLimit, signal);
    if (r.dispatched) return { admitted: true, classification: c, finish: r.finish };
    this.#dropped.recordDroppedRequest(c.priorityLevel);
    return {
      admitted: false,
      classification: c,
      reason: r.reason,
      retryAfter: this.#dropped.retryAfter(c.priorityLevel),
    };
  }
}
