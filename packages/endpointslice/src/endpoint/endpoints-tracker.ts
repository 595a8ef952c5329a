// The Endpoints controller's memory of the versions it replaced:
// pkg/controller/endpoint/endpoints_tracker.go (staleEndpointsTracker,
// newStaleEndpointsTracker, Stale, IsStale, Delete). Node runs one handler
// at a time, so Go's lock has no counterpart.
import type { Endpoints } from 'kubernetes-types/core/v1.js';

const nn = (namespace: string, name: string): string => `${namespace}/${name}`;
const nnOf = (e: Endpoints): string => nn(e.metadata?.namespace ?? '', e.metadata?.name ?? '');

/**
 * Remembers, per Endpoints object, the resourceVersion the controller last
 * replaced with an update, so that a sync reading that version again from
 * the informer's cache knows the cache lags behind its own write and
 * retries later instead of writing from stale data. Go's
 * `staleEndpointsTracker`.
 *
 * @category Endpoints controller
 */
export class StaleEndpointsTracker {
  /** The stale resourceVersion, by `namespace/name`. */
  readonly staleResourceVersionByEndpoints = new Map<string, string>();

  /** Records the object's resourceVersion as replaced. Go's `Stale`. */
  stale(endpoints: Endpoints): void {
    this.staleResourceVersionByEndpoints.set(
      nnOf(endpoints),
      endpoints.metadata?.resourceVersion ?? '',
    );
  }

  /** Whether this is the version the controller already replaced. Go's `IsStale`. */
  isStale(endpoints: Endpoints): boolean {
    const rv = this.staleResourceVersionByEndpoints.get(nnOf(endpoints));
    return rv !== undefined && rv === (endpoints.metadata?.resourceVersion ?? '');
  }

  /** Forgets an Endpoints object. Go's `Delete`. */
  delete(namespace: string, name: string): void {
    this.staleResourceVersionByEndpoints.delete(nn(namespace, name));
  }
}
