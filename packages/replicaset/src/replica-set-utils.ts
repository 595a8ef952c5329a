// A ReplicaSet's status: pkg/controller/replicaset/replica_set_utils.go
// (calculateStatus, updateReplicaSetStatus, NewReplicaSetCondition,
// GetCondition, SetCondition, RemoveCondition, filterOutCondition).
import type {
  ReplicaSet,
  ReplicaSetCondition,
  ReplicaSetStatus,
} from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  noopLogger,
  selectorFromSet,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  failedCreatePodReason,
  failedDeletePodReason,
  isPodAvailable,
  isPodReady,
} from '@kcm-ts/controller';
import { deepEqual } from './deep-equal.js';

/** The replicas a ReplicaSet asks for: `spec.replicas`, 1 when unset (Go's defaulting). */
export function specReplicas(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/**
 * The condition type a ReplicaSet carries while it fails to create or delete
 * pods. Go's `apps.ReplicaSetReplicaFailure`.
 *
 * @category ReplicaSet status
 */
export const replicaSetReplicaFailure = 'ReplicaFailure';

/**
 * How many times a failed status write is retried after a fresh read (1).
 * Go's `statusUpdateRetries`.
 *
 * @category ReplicaSet status
 */
export const statusUpdateRetries = 1;

/**
 * A new ReplicaSet condition, its `lastTransitionTime` set to `now` (ms).
 * Go's `NewReplicaSetCondition`.
 *
 * @category ReplicaSet status
 */
export function newReplicaSetCondition(
  condType: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
  now: number,
): ReplicaSetCondition {
  const cond: ReplicaSetCondition = {
    type: condType,
    status,
    lastTransitionTime: formatTime(now),
  };
  // Empty strings are left out of the wire form, as Go's omitempty does.
  if (reason !== '') cond.reason = reason;
  if (message !== '') cond.message = message;
  return cond;
}

/**
 * The condition of type `condType` in `status`, if any. Go's `GetCondition`.
 *
 * @category ReplicaSet status
 */
export function getCondition(
  status: ReplicaSetStatus | undefined,
  condType: string,
): ReplicaSetCondition | undefined {
  return status?.conditions?.find((c) => c.type === condType);
}

function filterOutCondition(
  conditions: readonly ReplicaSetCondition[] | undefined,
  condType: string,
): ReplicaSetCondition[] | undefined {
  const kept = (conditions ?? []).filter((c) => c.type !== condType);
  return kept.length === 0 ? undefined : kept;
}

/**
 * Puts `condition` in `status`, replacing one of the same type; does nothing
 * when that one has the same status and reason already. Unlike the
 * Deployment's, it does not keep the old `lastTransitionTime`. Go's
 * `SetCondition`.
 *
 * @category ReplicaSet status
 */
export function setCondition(status: ReplicaSetStatus, condition: ReplicaSetCondition): void {
  const current = getCondition(status, condition.type);
  if (
    current !== undefined &&
    current.status === condition.status &&
    (current.reason ?? '') === (condition.reason ?? '')
  ) {
    return;
  }
  status.conditions = [...(filterOutCondition(status.conditions, condition.type) ?? []), condition];
}

/**
 * Removes the condition of type `condType` from `status`. Go's `RemoveCondition`.
 *
 * @category ReplicaSet status
 */
export function removeCondition(status: ReplicaSetStatus, condType: string): void {
  const kept = filterOutCondition(status.conditions, condType);
  if (kept === undefined) delete status.conditions;
  else status.conditions = kept;
}

/** The status in wire form: `replicas` always, the other counts only when not 0 (Go's omitempty). */
function wireStatus(status: ReplicaSetStatus): ReplicaSetStatus {
  const out: ReplicaSetStatus = { replicas: status.replicas ?? 0 };
  if (status.fullyLabeledReplicas) out.fullyLabeledReplicas = status.fullyLabeledReplicas;
  if (status.readyReplicas) out.readyReplicas = status.readyReplicas;
  if (status.availableReplicas) out.availableReplicas = status.availableReplicas;
  if (status.observedGeneration) out.observedGeneration = status.observedGeneration;
  if (status.conditions !== undefined) out.conditions = status.conditions;
  return out;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The status a ReplicaSet should have, given the active pods it owns and the
 * outcome of its last `manageReplicas` (`undefined` for success): `replicas`,
 * `fullyLabeledReplicas` (pods whose labels include every template label),
 * `readyReplicas`, `availableReplicas` (ready for more than
 * `minReadySeconds` at `now`), and the `ReplicaFailure` condition: added
 * (`FailedCreate` with too few pods, `FailedDelete` with too many, the error
 * as message) when manageReplicas failed and it is absent, removed when
 * manageReplicas succeeded, otherwise left as it is. `observedGeneration`
 * is left to {@link updateReplicaSetStatus}. Go's `calculateStatus`.
 *
 * @param now - the current time in ms
 *
 * @category ReplicaSet status
 */
export function calculateStatus(
  rs: ReplicaSet,
  activePods: readonly Pod[],
  manageReplicasErr: unknown,
  now: number,
): ReplicaSetStatus {
  const newStatus: ReplicaSetStatus = structuredClone(rs.status ?? { replicas: 0 });
  // The template's labels include the selector's, so only claimed pods can match.
  const templateLabel = selectorFromSet(rs.spec?.template?.metadata?.labels);
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (templateLabel.matches(pod.metadata?.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }

  const failureCond = getCondition(rs.status, replicaSetReplicaFailure);
  if (manageReplicasErr !== undefined && failureCond === undefined) {
    const diff = activePods.length - specReplicas(rs);
    const reason = diff < 0 ? failedCreatePodReason : diff > 0 ? failedDeletePodReason : '';
    setCondition(
      newStatus,
      newReplicaSetCondition(
        replicaSetReplicaFailure,
        'True',
        reason,
        messageOf(manageReplicasErr),
        now,
      ),
    );
  } else if (manageReplicasErr === undefined && failureCond !== undefined) {
    removeCondition(newStatus, replicaSetReplicaFailure);
  }

  newStatus.replicas = activePods.length;
  newStatus.fullyLabeledReplicas = fullyLabeled;
  newStatus.readyReplicas = ready;
  newStatus.availableReplicas = available;
  return wireStatus(newStatus);
}

/**
 * Writes `newStatus` through the status subresource, unless nothing would
 * change (same counts and conditions, and `observedGeneration` already equal
 * to `metadata.generation`). Sets `observedGeneration` to the generation
 * acted on. A failed write is retried once ({@link statusUpdateRetries})
 * after a fresh GET; a failed GET rejects with the GET's error. Resolves
 * with the ReplicaSet as stored (or `rs` when nothing was written). Go's
 * `updateReplicaSetStatus`.
 *
 * @param client - the replicasets client (any namespace: `rs`'s is used)
 *
 * @category ReplicaSet status
 */
export async function updateReplicaSetStatus(
  client: ResourceClient<ReplicaSet>,
  rs: ReplicaSet,
  newStatus: ReplicaSetStatus,
  options: { logger?: Logger; signal?: AbortSignal } = {},
): Promise<ReplicaSet> {
  const logger = options.logger ?? noopLogger;
  const current = rs.status ?? { replicas: 0 };
  const generation = rs.metadata?.generation ?? 0;
  if (
    (current.replicas ?? 0) === (newStatus.replicas ?? 0) &&
    (current.fullyLabeledReplicas ?? 0) === (newStatus.fullyLabeledReplicas ?? 0) &&
    (current.readyReplicas ?? 0) === (newStatus.readyReplicas ?? 0) &&
    (current.availableReplicas ?? 0) === (newStatus.availableReplicas ?? 0) &&
    generation === (current.observedGeneration ?? 0) &&
    deepEqual(current.conditions, newStatus.conditions)
  ) {
    return rs;
  }
  // Record the generation acted on, so a retry cannot claim a newer one was seen.
  const status = wireStatus({ ...newStatus, observedGeneration: generation });
  const rsClient = client.inNamespace(rs.metadata?.namespace ?? '');
  const opts = options.signal ? { signal: options.signal } : {};
  let target = rs;
  let updateErr: unknown;
  for (let i = 0; ; i++) {
    const before = target.status ?? { replicas: 0 };
    logger.v(4).info('Updating status', {
      replicaSet: `${rs.metadata?.namespace ?? ''}/${rs.metadata?.name ?? ''}`,
      replicas: `${before.replicas ?? 0}->${status.replicas} (need ${specReplicas(target)})`,
      fullyLabeledReplicas: `${before.fullyLabeledReplicas ?? 0}->${status.fullyLabeledReplicas ?? 0}`,
      readyReplicas: `${before.readyReplicas ?? 0}->${status.readyReplicas ?? 0}`,
      availableReplicas: `${before.availableReplicas ?? 0}->${status.availableReplicas ?? 0}`,
      observedGeneration: `${before.observedGeneration ?? 0}->${status.observedGeneration ?? 0}`,
    });
    try {
      return await rsClient.updateStatus({ ...target, status }, opts);
    } catch (err) {
      updateErr = err;
    }
    if (i >= statusUpdateRetries) break;
    // A conflict most likely: read the latest resourceVersion and try once more.
    target = await rsClient.get(target.metadata?.name ?? '', opts);
  }
  throw updateErr;
}
