// The lock abstraction the elector talks to: client-go
// tools/leaderelection/resourcelock/interface.go (LeaderElectionRecord,
// Interface, ResourceLockConfig). `New`, which needs the Lease lock, is in
// new-resource-lock.ts, so that this file and lease-lock.ts import each other
// in one direction only.
import type { EventRecorder } from '@kcm-ts/apimachinery';

/**
 * The legacy annotation under which Endpoints and ConfigMap locks kept their
 * record as JSON. Only Lease locks remain; the key is kept for reference.
 *
 * @category Resource lock
 */
export const leaderElectionRecordAnnotationKey = 'control-plane.alpha.kubernetes.io/leader';

/**
 * The lock type of a Lease lock, the only type still supported.
 *
 * @category Resource lock
 */
export const leasesResourceLock = 'leases';

/**
 * Who holds a lock and since when: Go's `resourcelock.LeaderElectionRecord`.
 * Times are milliseconds since the Unix epoch (fractions carry microseconds);
 * `undefined` is Go's zero time.
 *
 * @category Resource lock
 */
export interface LeaderElectionRecord {
  /** The identity of the holder; `''` when nobody holds the lock. */
  holderIdentity: string;
  /** How long, in whole seconds, others must see the record unchanged before taking over. */
  leaseDurationSeconds: number;
  /** When the current holder acquired the lock. */
  acquireTime?: number | undefined;
  /** When the current holder last renewed the lock. */
  renewTime?: number | undefined;
  /** How many times the lock has changed hands. */
  leaderTransitions: number;
  /** The coordinated election strategy; `''` when unused. */
  strategy?: string | undefined;
  /** The holder the coordinated election controller prefers next; `''` when unused. */
  preferredHolder?: string | undefined;
}

/**
 * Formats a time as `metav1.Time` marshals it: RFC 3339 in UTC at second
 * precision, such as `2026-01-01T00:00:00Z`; `null` for the zero time.
 */
function rfc3339Seconds(ms: number | undefined): string | null {
  if (ms === undefined) return null;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The JSON of a record, with client-go's keys and key order and its times at
 * second precision. The elector compares these strings to decide whether a
 * record changed, so two renewals within the same second look the same.
 *
 * @category Resource lock
 */
export function leaderElectionRecordJSON(record: LeaderElectionRecord): string {
  const out: Record<string, unknown> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: rfc3339Seconds(record.acquireTime),
    renewTime: rfc3339Seconds(record.renewTime),
    leaderTransitions: record.leaderTransitions,
  };
  if (record.strategy) out['strategy'] = record.strategy;
  if (record.preferredHolder) out['preferredHolder'] = record.preferredHolder;
  return JSON.stringify(out);
}

/**
 * What a lock read returns: the record and its JSON (see
 * {@link leaderElectionRecordJSON}), which the elector compares between reads.
 *
 * @category Resource lock
 */
export interface LockReadResult {
  /** The record held in the lock. */
  record: LeaderElectionRecord;
  /** The record's JSON. */
  rawRecord: string;
}

/**
 * Settings common to every lock: Go's `resourcelock.ResourceLockConfig`.
 *
 * @category Resource lock
 */
export interface ResourceLockConfig {
  /** This candidate's unique identity, written as the holder when it leads. */
  identity: string;
  /**
   * Where the elector's events go ("became leader", "stopped leading"); none
   * are recorded without one. The shared recorder of `@kcm-ts/apimachinery`:
   * a broadcaster's `newRecorder(...)`, or `FakeRecorder` in tests.
   */
  eventRecorder?: EventRecorder | undefined;
}

/**
 * A lock the elector can read and write: Go's `resourcelock.Interface`. Every
 * method rejects with the client's error (a `StatusError` for API errors), so
 * a 404 NotFound or a 409 Conflict reaches the elector unchanged.
 *
 * @category Resource lock
 */
export interface ResourceLock {
  /** Reads the record; rejects with 404 NotFound when the lock object does not exist. */
  get(signal?: AbortSignal): Promise<LockReadResult>;
  /** Creates the lock object holding `record`; 409 AlreadyExists if it exists. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Replaces the record; 409 Conflict if the object changed since this lock last read or wrote it. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Records an event on the lock object, the message prefixed with the identity. */
  recordEvent(message: string): void;
  /** This candidate's identity. */
  identity(): string;
  /** A human-readable name for the lock, such as `namespace/name`. */
  describe(): string;
}
