// The legacy rollback request: getRollbackTo and setRollbackTo of
// pkg/controller/deployment/rollback.go, apart from the rollback itself
// because syncDeployment and sync.go read the request too.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { deprecatedRollbackTo } from './util/deployment-util.js';
import { parseGoInt } from './util/strconv.js';

/**
 * Where a rollback goes: Go's `extensions/v1beta1` `RollbackConfig`.
 *
 * @category Rollback
 */
export interface RollbackConfig {
  /** The revision to roll back to; 0 means the one before the current. */
  revision: number;
}

/**
 * The revision a legacy rollback asks for (0 means the previous one), or
 * `undefined` when there is no request or it is not an integer. Go's
 * `getRollbackTo`, which reads the annotation `extensions/v1beta1`'s
 * `spec.rollbackTo` round-trips through.
 *
 * @category Rollback
 */
export function getRollbackTo(d: Deployment): RollbackConfig | undefined {
  const value = d.metadata?.annotations?.[deprecatedRollbackTo];
  if (!value) return undefined;
  try {
    return { revision: parseGoInt(value, 64) };
  } catch {
    return undefined; // an invalid request is ignored
  }
}

/**
 * Sets or (with `undefined`) clears the legacy rollback request. Go's `setRollbackTo`.
 *
 * @category Rollback
 */
export function setRollbackTo(d: Deployment, rollbackTo: { revision: number } | undefined): void {
  if (rollbackTo === undefined) {
    delete d.metadata?.annotations?.[deprecatedRollbackTo];
    return;
  }
  ((d.metadata ??= {}).annotations ??= {})[deprecatedRollbackTo] = String(rollbackTo.revision);
}
