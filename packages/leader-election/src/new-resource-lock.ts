// Choosing a lock by type: client-go
// tools/leaderelection/resourcelock/interface.go (New). Only the Lease lock
// remains, so this is the one place that knows both the interface and it.
import type { ResourceClient } from '@kcm-ts/apimachinery';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { LeaseLock } from './lease-lock.js';
import { leasesResourceLock, type ResourceLock, type ResourceLockConfig } from './resource-lock.js';

/**
 * Builds a lock of `lockType` on `namespace/name`: Go's `resourcelock.New`.
 * Only `leases` is accepted; the removed Endpoints and ConfigMap types throw
 * "... lock is removed, migrate to leases", anything else "Invalid lock-type".
 *
 * @param leases - a client for `coordination.k8s.io/v1` Leases
 * @param labels - labels to put on the Lease (see {@link LeaseLock})
 * @category Resource lock
 */
export function newResourceLock(
  lockType: string,
  namespace: string,
  name: string,
  leases: ResourceClient<Lease>,
  config: ResourceLockConfig,
  labels?: Record<string, string>,
): ResourceLock {
  switch (lockType) {
    case 'endpoints':
    case 'configmaps':
    case 'endpointsleases':
    case 'configmapsleases':
      throw new Error(`${lockType} lock is removed, migrate to leases`);
    case leasesResourceLock:
      return new LeaseLock({ namespace, name, client: leases, lockConfig: config, labels });
    default:
      throw new Error(`Invalid lock-type ${lockType}`);
  }
}
