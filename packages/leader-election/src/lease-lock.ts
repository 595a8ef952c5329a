// A lock on a coordination.k8s.io/v1 Lease: client-go
// tools/leaderelection/resourcelock/leaselock.go (LeaseLock,
// LeaderElectionRecordToLeaseSpec, LeaseSpecToLeaderElectionRecord).
import { formatMicroTime, parseMicroTime, type ResourceClient } from '@kcm-ts/apimachinery';
import type { Lease, LeaseSpec } from 'kubernetes-types/coordination/v1.js';
import type {
  LeaderElectionRecord,
  LockReadResult,
  ResourceLock,
  ResourceLockConfig,
} from './resource-lock.js';
import { leaderElectionRecordJSON } from './resource-lock.js';

/**
 * A Lease spec with the two coordinated-election fields newer API versions
 * add (`kubernetes-types` 1.30 predates them).
 *
 * @category Lease lock
 */
export type LeaseSpecWithStrategy = LeaseSpec & {
  /** The coordinated election strategy. */
  strategy?: string;
  /** The holder the coordinated election controller prefers next. */
  preferredHolder?: string;
};

/**
 * Converts a record to a Lease spec: Go's `LeaderElectionRecordToLeaseSpec`.
 * `leaderTransitions` becomes `leaseTransitions`; strategy and preferred
 * holder are set only when non-empty.
 *
 * @category Lease lock
 */
export function leaderElectionRecordToLeaseSpec(
  record: LeaderElectionRecord,
): LeaseSpecWithStrategy {
  const spec: LeaseSpecWithStrategy = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  if (record.strategy) spec.strategy = record.strategy;
  if (record.preferredHolder) spec.preferredHolder = record.preferredHolder;
  return spec;
}

/**
 * Converts a Lease spec to a record: Go's `LeaseSpecToLeaderElectionRecord`.
 * Missing fields become zero values.
 *
 * @category Lease lock
 */
export function leaseSpecToLeaderElectionRecord(
  spec: LeaseSpecWithStrategy | undefined,
): LeaderElectionRecord {
  const record: LeaderElectionRecord = {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
  if (spec?.acquireTime) record.acquireTime = parseMicroTime(spec.acquireTime);
  if (spec?.renewTime) record.renewTime = parseMicroTime(spec.renewTime);
  if (spec?.strategy) record.strategy = spec.strategy;
  if (spec?.preferredHolder) record.preferredHolder = spec.preferredHolder;
  return record;
}

/**
 * Options for {@link LeaseLock}.
 *
 * @category Lease lock
 */
export interface LeaseLockOptions {
  /** The Lease's namespace. */
  namespace: string;
  /** The Lease's name. */
  name: string;
  /** A client for `coordination.k8s.io/v1` Leases (scoped or not). */
  client: ResourceClient<Lease>;
  /** This candidate's identity and event recorder. */
  lockConfig: ResourceLockConfig;
  /** Labels set on the Lease when it is created, and merged into it on every update. */
  labels?: Record<string, string> | undefined;
}

/**
 * A {@link ResourceLock} on a `coordination.k8s.io/v1` Lease: Go's
 * `resourcelock.LeaseLock`.
 *
 * It caches the Lease from its last get, create or update, and updates send
 * that cached object back, so its `resourceVersion` makes a concurrent writer's
 * change surface as a 409 Conflict.
 *
 * @category Lease lock
 */
export class LeaseLock implements ResourceLock {
  readonly #namespace: string;
  readonly #name: string;
  readonly #client: ResourceClient<Lease>;
  readonly #config: ResourceLockConfig;
  readonly #labels: Record<string, string> | undefined;
  #lease: Lease | undefined;

  /** Builds a lock on `opts.namespace/opts.name`; nothing is read or written until the first call. */
  constructor(opts: LeaseLockOptions) {
    this.#namespace = opts.namespace;
    this.#name = opts.name;
    this.#client = opts.client.inNamespace(opts.namespace);
    this.#config = opts.lockConfig;
    this.#labels = opts.labels;
  }

  async get(signal?: AbortSignal): Promise<LockReadResult> {
    const lease = await this.#client.get(this.#name, { signal });
    this.#lease = lease;
    const record = leaseSpecToLeaderElectionRecord(lease.spec);
    return { record, rawRecord: leaderElectionRecordJSON(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: this.#namespace, name: this.#name },
      spec: leaderElectionRecordToLeaseSpec(record),
    };
    if (this.#labels !== undefined) lease.metadata!.labels = { ...this.#labels };
    this.#lease = await this.#client.create(lease, { signal });
  }

  //#region lease-update
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const cached = this.#lease;
    if (cached === undefined) throw new Error('lease not initialized, call get or create first');
    const lease: Lease = {
      ...cached,
      metadata: { ...cached.metadata },
      spec: leaderElectionRecordToLeaseSpec(record),
    };
    if (this.#labels !== undefined) {
      lease.metadata!.labels = { ...cached.metadata?.labels, ...this.#labels };
    }
    this.#lease = await this.#client.update(lease, { signal });
  }
  //#endregion lease-update

  /**
   * Records a `Normal` event with reason `LeaderElection` and the message
   * `"<identity> <message>"` on the Lease, as the cached Lease's metadata
   * names it (uid and resourceVersion included), with kind `Lease` and
   * apiVersion `coordination.k8s.io/v1`. Nothing without a recorder.
   */
  recordEvent(message: string): void {
    const recorder = this.#config.eventRecorder;
    if (recorder === undefined) return;
    // As Go's RecordEvent: the Lease with its type set, so no scheme is needed.
    const subject: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: this.#lease?.metadata ?? { namespace: this.#namespace, name: this.#name },
    };
    recorder.event(subject, 'Normal', 'LeaderElection', `${this.#config.identity} ${message}`);
  }

  identity(): string {
    return this.#config.identity;
  }

  describe(): string {
    return `${this.#namespace}/${this.#name}`;
  }
}
