// The tracker of the controller's own writes:
// staging/src/k8s.io/endpointslice/util/endpointslice_tracker.go
// (EndpointSliceTracker, NewEndpointSliceTracker, Has, ShouldSync,
// StaleSlices, Update, DeleteService, ExpectDeletion, HandleDeletion,
// GenerationsForSliceUnsafe, getServiceNN). Node runs one handler at a
// time, so Go's mutex has no counterpart.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import { labelServiceName } from './utils.js';

/**
 * The generation the tracker records for a slice it expects to be deleted
 * (-1). Go's `deletionExpected`.
 *
 * @category Tracker
 */
export const deletionExpected = -1;

/**
 * The generations the controller expects, by slice uid
 * ({@link deletionExpected} for a slice it deleted). Go's
 * `GenerationsBySlice`.
 *
 * @category Tracker
 */
export type GenerationsBySlice = Map<string, number>;

const serviceNN = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The `namespace/name` of the Service a slice belongs to, from its label. Go's `getServiceNN`. */
function getServiceNN(slice: EndpointSlice): string {
  return serviceNN(
    slice.metadata?.namespace ?? '',
    slice.metadata?.labels?.[labelServiceName] ?? '',
  );
}

const generationOf = (slice: EndpointSlice): number => slice.metadata?.generation ?? 0;
const uidOf = (o: { metadata?: { uid?: string } }): string => o.metadata?.uid ?? '';

/**
 * Remembers the generation of every EndpointSlice the controller wrote and
 * the ones it deleted, per Service, so that the controller can tell its own
 * writes coming back through the informer (nothing to do) from changes made
 * by others (sync the Service), and refuse to reconcile from a cache that
 * has not caught up with its writes yet. Go's `EndpointSliceTracker`.
 *
 * @category Tracker
 */
export class EndpointSliceTracker {
  /** The expected generations, by Service `namespace/name`. */
  readonly generationsByService = new Map<string, GenerationsBySlice>();
  /** The uid of each tracked Service, to notice one deleted and re-created. */
  readonly servicesByUID = new Map<string, string>();

  /** Whether the tracker has a generation for the slice. Go's `Has`. */
  has(endpointSlice: EndpointSlice): boolean {
    return this.generationsForSlice(endpointSlice)?.has(uidOf(endpointSlice)) ?? false;
  }

  //#region should-sync
  /**
   * Whether a slice seen through the informer needs its Service synced: the
   * tracker does not know it, or it is newer than the controller's last
   * write. Go's `ShouldSync`.
   */
  shouldSync(endpointSlice: EndpointSlice): boolean {
    const g = this.generationsForSlice(endpointSlice)?.get(uidOf(endpointSlice));
    return g === undefined || generationOf(endpointSlice) > g;
  }
  //#endregion should-sync

  //#region stale-slices
  /**
   * Whether the cached slices of the Service lag behind the controller's
   * writes: one is older than written, or was deleted, or a written one is
   * missing. Slices of an earlier Service of the same name (another uid) are
   * forgotten first. Go's `StaleSlices`.
   */
  staleSlices(service: Service, endpointSlices: readonly EndpointSlice[]): boolean {
    const nn = serviceNN(service.metadata?.namespace ?? '', service.metadata?.name ?? '');
    const trackedUID = this.servicesByUID.get(nn);
    const uid = uidOf(service);
    if (trackedUID !== undefined && trackedUID !== '' && uid !== '' && trackedUID !== uid) {
      this.generationsByService.delete(nn);
    }
    this.servicesByUID.set(nn, uid);
    const gfs = this.generationsByService.get(nn);
    if (gfs === undefined) return false;
    const provided = new Set<string>();
    for (const slice of endpointSlices) {
      provided.add(uidOf(slice));
      const g = gfs.get(uidOf(slice));
      if (g !== undefined && (g === deletionExpected || g > generationOf(slice))) return true;
    }
    for (const [uid, generation] of gfs) {
      if (generation === deletionExpected) continue;
      if (!provided.has(uid)) return true;
    }
    return false;
  }
  //#endregion stale-slices

  /** Records the generation of a slice the controller wrote. Go's `Update`. */
  update(endpointSlice: EndpointSlice): void {
    this.#generationsForSliceOrNew(endpointSlice).set(
      uidOf(endpointSlice),
      generationOf(endpointSlice),
    );
  }

  /** Forgets a Service and its slices. Go's `DeleteService`. */
  deleteService(namespace: string, name: string): void {
    const nn = serviceNN(namespace, name);
    this.generationsByService.delete(nn);
    this.servicesByUID.delete(nn);
  }

  //#region expect-deletion
  /** Records that the controller deleted the slice. Go's `ExpectDeletion`. */
  expectDeletion(endpointSlice: EndpointSlice): void {
    this.#generationsForSliceOrNew(endpointSlice).set(uidOf(endpointSlice), deletionExpected);
  }
  //#endregion expect-deletion

  //#region handle-deletion
  /**
   * Forgets a deleted slice; false when the controller did not expect the
   * deletion (someone else deleted it). Go's `HandleDeletion`.
   */
  handleDeletion(endpointSlice: EndpointSlice): boolean {
    const gfs = this.generationsForSlice(endpointSlice);
    if (gfs !== undefined) {
      const g = gfs.get(uidOf(endpointSlice));
      gfs.delete(uidOf(endpointSlice));
      if (g !== undefined && g !== deletionExpected) return false;
    }
    return true;
  }
  //#endregion handle-deletion

  /** The generations of the slice's Service, if tracked. Go's `GenerationsForSliceUnsafe`. */
  generationsForSlice(endpointSlice: EndpointSlice): GenerationsBySlice | undefined {
    return this.generationsByService.get(getServiceNN(endpointSlice));
  }

  #generationsForSliceOrNew(endpointSlice: EndpointSlice): GenerationsBySlice {
    const nn = getServiceNN(endpointSlice);
    let gfs = this.generationsByService.get(nn);
    if (gfs === undefined) {
      gfs = new Map();
      this.generationsByService.set(nn, gfs);
    }
    return gfs;
  }
}
