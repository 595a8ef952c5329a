// The garbage collector's own errors: Go's
// pkg/controller/garbagecollector/errors.go (restMappingError) and the two
// marker errors of garbagecollector.go.

/**
 * An owner reference names a kind discovery does not map to a resource: a
 * custom type not discovered yet, or a version no longer served. Go's
 * `restMappingError`; the workers log it and retry.
 */
export class RESTMappingError extends Error {
  override readonly name = 'RESTMappingError';
  readonly kind: string;
  readonly version: string;

  constructor(kind: string, version: string) {
    super(`unable to get REST mapping for ${version}/${kind}.`);
    this.kind = kind;
    this.version = version;
  }
}

/**
 * Marker: attemptToDeleteItem queued a virtual delete event for the item, so
 * the worker need not retry it. Go's `enqueuedVirtualDeleteEventErr`.
 */
export const enqueuedVirtualDeleteEventErr = new Error('enqueued virtual delete event');

/**
 * Marker: a cluster-scoped object names a namespaced owner, which retrying
 * cannot fix. Go's `namespacedOwnerOfClusterScopedObjectErr`.
 */
export const namespacedOwnerOfClusterScopedObjectErr = new Error(
  'cluster-scoped objects cannot refer to namespaced owners',
);
