// The mirroring reconciler's bookkeeping: pkg/controller/endpointslicemirroring/
// reconciler_helpers.go (slicesByAction, totalsByAction, desiredCalc,
// newDesiredCalc, multiAddrTypePortMapKey, initPorts, addAddress,
// recycleSlices, removeSlice, toSlicesByAddrType).
import type { EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type {
  EndpointAddress,
  EndpointPort as CoreEndpointPort,
} from 'kubernetes-types/core/v1.js';
import { EndpointSet } from '../reconciler-util.js';
import type { AddressType } from '../utils.js';
import {
  addressToEndpoint,
  epPortsToEpsPorts,
  newAddrTypePortMapKey,
  type AddrTypePortMapKey,
} from './utils.js';

/**
 * The slices to create, update and delete. Go's `slicesByAction`.
 *
 * @internal
 */
export interface SlicesByAction {
  toCreate: EndpointSlice[];
  toUpdate: EndpointSlice[];
  toDelete: EndpointSlice[];
}

/**
 * Endpoints added, updated and removed. Go's `totalsByAction`.
 *
 * @internal
 */
export interface TotalsByAction {
  added: number;
  updated: number;
  removed: number;
}

/** @internal */
export const emptySlicesByAction = (): SlicesByAction => ({
  toCreate: [],
  toUpdate: [],
  toDelete: [],
});
/** @internal */
export const emptyTotalsByAction = (): TotalsByAction => ({ added: 0, updated: 0, removed: 0 });

/**
 * The keys of one subset's ports, per address type. Go's
 * `multiAddrTypePortMapKey`.
 *
 * @internal
 */
export type MultiAddrTypePortMapKey = Record<'IPv4' | 'IPv6', AddrTypePortMapKey>;

/**
 * The desired endpoints and their ports, per address type and set of
 * ports. Go's `desiredCalc`.
 *
 * @internal
 */
export class DesiredCalc {
  /** The ports of each key. */
  readonly portsByKey = new Map<AddrTypePortMapKey, EndpointPort[]>();
  /** The endpoints of each key. */
  readonly endpointsByKey = new Map<AddrTypePortMapKey, EndpointSet>();
  /** Endpoints added so far. */
  numDesiredEndpoints = 0;

  /**
   * Registers a subset's ports for both address types and returns their
   * keys. Go's `initPorts`.
   */
  initPorts(subsetPorts: readonly CoreEndpointPort[] | undefined): MultiAddrTypePortMapKey {
    const endpointPorts = epPortsToEpsPorts(subsetPorts);
    const multiKey = {} as MultiAddrTypePortMapKey;
    for (const addrType of ['IPv4', 'IPv6'] as const) {
      const key = newAddrTypePortMapKey(endpointPorts, addrType);
      multiKey[addrType] = key;
      if (!this.endpointsByKey.has(key)) this.endpointsByKey.set(key, new EndpointSet());
      this.portsByKey.set(key, endpointPorts);
    }
    return multiKey;
  }

  /**
   * Adds an address as an endpoint under its address type's key; false
   * when its IP is not an IP. Go's `addAddress`.
   */
  addAddress(address: EndpointAddress, multiKey: MultiAddrTypePortMapKey, ready: boolean): boolean {
    const converted = addressToEndpoint(address, ready);
    if (converted === undefined) return false;
    const [endpoint, addrType] = converted;
    this.endpointsByKey.get(multiKey[addrType as 'IPv4' | 'IPv6'])!.insert(endpoint);
    this.numDesiredEndpoints++;
    return true;
  }
}

/**
 * Turns pairs of a slice to create and a slice to delete of the same
 * address type into updates of the slice that would be deleted, in place.
 * Go's `recycleSlices`. Go removes the created slice from the list by name,
 * which is empty for every slice to create; here it is removed by identity,
 * so that two address types recycled in one sync do not create a slice
 * under a name already taken.
 *
 * @internal
 */
export function recycleSlices(slices: SlicesByAction): void {
  const byAddrType = (list: readonly EndpointSlice[]) => {
    const m = new Map<AddressType, EndpointSlice[]>();
    for (const s of list) {
      const t = s.addressType as AddressType;
      m.set(t, [...(m.get(t) ?? []), s]);
    }
    return m;
  };
  const toCreateByAddrType = byAddrType(slices.toCreate);
  const toDeleteByAddrType = byAddrType(slices.toDelete);
  for (const [addrType, slicesToCreate] of toCreateByAddrType) {
    const slicesToDelete = toDeleteByAddrType.get(addrType) ?? [];
    for (let i = 0; i < slicesToCreate.length && i < slicesToDelete.length; i++) {
      const slice = slicesToCreate[i]!;
      const dying = slicesToDelete[i]!;
      slices.toCreate = slices.toCreate.filter((s) => s !== slice);
      slices.toDelete = slices.toDelete.filter((s) => s !== dying);
      (slice.metadata ??= {}).name = dying.metadata?.name ?? '';
      slices.toUpdate.push(slice);
    }
  }
}
