// Hints on endpoints: staging/src/k8s.io/endpointslice/trafficdist/
// trafficdist.go (ReconcileHints, defaultHeuristic, preferCloseHeuristic,
// endpointReady) and, of topologycache/utils.go, RemoveHintsFromSlices. The
// topology cache itself (Topology Aware Routing by CPU share per zone, the
// `service.kubernetes.io/topology-mode: Auto` annotation) is not ported.
import type { Endpoint, EndpointSlice } from 'kubernetes-types/discovery/v1.js';

/**
 * `spec.trafficDistribution: PreferClose`: route to endpoints in the
 * client's zone. Go's `ServiceTrafficDistributionPreferClose`.
 *
 * @category Traffic distribution
 */
export const trafficDistributionPreferClose = 'PreferClose';
/**
 * `spec.trafficDistribution: PreferSameZone`, the newer name of
 * `PreferClose`. Go's `ServiceTrafficDistributionPreferSameZone`.
 *
 * @category Traffic distribution
 */
export const trafficDistributionPreferSameZone = 'PreferSameZone';
/**
 * `spec.trafficDistribution: PreferSameNode`: route to endpoints on the
 * client's node, then its zone. Go's `ServiceTrafficDistributionPreferSameNode`.
 *
 * @category Traffic distribution
 */
export const trafficDistributionPreferSameNode = 'PreferSameNode';

/** An endpoint's hints with `forNodes`, which discovery/v1 gained in Kubernetes 1.33. */
interface Hints {
  forZones?: { name: string }[];
  forNodes?: { name: string }[];
}
const hintsOf = (e: Endpoint): Hints | undefined => e.hints;

const endpointReady = (e: Endpoint): boolean => e.conditions?.ready === true;

interface Heuristic {
  needsUpdate(slice: EndpointSlice): boolean;
  update(slice: EndpointSlice): void;
}

const defaultHeuristic: Heuristic = {
  needsUpdate: (slice) => (slice.endpoints ?? []).some((e) => e.hints != null),
  update: (slice) => {
    for (const e of slice.endpoints ?? []) delete e.hints;
  },
};

function preferCloseHeuristic(generateNodeHints: boolean): Heuristic {
  return {
    needsUpdate(slice) {
      for (const e of slice.endpoints ?? []) {
        if (!endpointReady(e)) continue;
        const h = hintsOf(e);
        if (e.zone !== undefined) {
          const z = h?.forZones ?? [];
          if (h === undefined || z.length !== 1 || z[0]!.name !== e.zone) return true;
        } else if ((h?.forZones ?? []).length > 0) return true;
        if (e.nodeName !== undefined && generateNodeHints) {
          const n = h?.forNodes ?? [];
          if (h === undefined || n.length !== 1 || n[0]!.name !== e.nodeName) return true;
        } else if ((h?.forNodes ?? []).length > 0) return true;
      }
      return false;
    },
    update(slice) {
      for (const e of slice.endpoints ?? []) {
        if (!endpointReady(e)) continue;
        const hints: Hints = {};
        if (e.zone !== undefined) hints.forZones = [{ name: e.zone }];
        if (e.nodeName !== undefined && generateNodeHints) hints.forNodes = [{ name: e.nodeName }];
        if (hints.forZones || hints.forNodes) e.hints = hints;
        else delete e.hints;
      }
    },
  };
}

/**
 * Sets the hints `spec.trafficDistribution` asks for on the slices to
 * create and update (a zone hint, and a node hint for `PreferSameNode`, on
 * every ready endpoint; none otherwise), and moves unchanged slices whose
 * hints are wrong to the updates (as copies). Returns the slices to
 * create, update, and those still unchanged. Go's `trafficdist.ReconcileHints`.
 *
 * @category Traffic distribution
 */
export function reconcileHints(
  trafficDistribution: string | undefined,
  slicesToCreate: EndpointSlice[],
  slicesToUpdate: EndpointSlice[],
  slicesUnchanged: readonly EndpointSlice[],
): [EndpointSlice[], EndpointSlice[], EndpointSlice[]] {
  const close =
    trafficDistribution === trafficDistributionPreferClose ||
    trafficDistribution === trafficDistributionPreferSameZone ||
    trafficDistribution === trafficDistributionPreferSameNode;
  const h = close
    ? preferCloseHeuristic(trafficDistribution === trafficDistributionPreferSameNode)
    : defaultHeuristic;
  const unchanged: EndpointSlice[] = [];
  const toUpdate = [...slicesToUpdate];
  for (const slice of slicesUnchanged) {
    if (h.needsUpdate(slice)) toUpdate.push(structuredClone(slice));
    else unchanged.push(slice);
  }
  for (const slice of slicesToCreate) h.update(slice);
  for (const slice of toUpdate) h.update(slice);
  return [slicesToCreate, toUpdate, unchanged];
}

/**
 * Clears the hints of every endpoint in the slices to create and update,
 * and moves unchanged slices that carry hints to the updates (as copies
 * without them). Returns the slices to create and to update. Go's
 * `topologycache.RemoveHintsFromSlices`.
 *
 * @category Traffic distribution
 */
export function removeHintsFromSlices(
  slicesToCreate: EndpointSlice[],
  slicesToUpdate: EndpointSlice[],
  slicesUnchanged: readonly EndpointSlice[],
): [EndpointSlice[], EndpointSlice[]] {
  const toUpdate = [...slicesToUpdate];
  for (const slice of [...slicesToCreate, ...slicesToUpdate]) defaultHeuristic.update(slice);
  for (const slice of slicesUnchanged) {
    if (!defaultHeuristic.needsUpdate(slice)) continue;
    const copy = structuredClone(slice);
    defaultHeuristic.update(copy);
    toUpdate.push(copy);
  }
  return [slicesToCreate, toUpdate];
}
