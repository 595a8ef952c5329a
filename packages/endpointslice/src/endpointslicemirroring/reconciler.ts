// The mirroring reconciler: pkg/controller/endpointslicemirroring/
// reconciler.go (reconciler, reconcile, reconcileByPortMapping, finalize,
// deleteEndpoints, endpointSlicesByKey, totalChanges) and the reasons of its
// events (events.go: InvalidIPAddress, TooManyAddressesToMirror).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import {
  hasStatusCause,
  noopEventRecorder,
  noopLogger,
  type EventRecorder,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { namespaceTerminatingCause } from '@kcm-ts/controller';
import { repackSubsets } from '../endpoint/repack-subsets.js';
import { EndpointSliceTracker } from '../endpointslice-tracker.js';
import type { EfficiencyInfo } from '../metrics.js';
import { endpointsEqualBeyondHash, type EndpointSet } from '../reconciler-util.js';
import {
  endpointsLastChangeTriggerTime,
  labelManagedBy,
  labelServiceName,
  type AddressType,
} from '../utils.js';
import { EndpointSliceMirroringMetrics } from './metrics.js';
import {
  DesiredCalc,
  emptySlicesByAction,
  emptyTotalsByAction,
  recycleSlices,
  type SlicesByAction,
  type TotalsByAction,
} from './reconciler-helpers.js';
import {
  addressTypeOfKey,
  cloneAndRemoveKeys,
  lastAppliedConfigAnnotation,
  newAddrTypePortMapKey,
  newMirroredEndpointSlice,
  type AddrTypePortMapKey,
} from './utils.js';

/**
 * `Warning InvalidIPAddress`: some addresses of an Endpoints object are not
 * IPs and were not mirrored. Go's `InvalidIPAddress`.
 *
 * @category Events
 */
export const invalidIPAddressReason = 'InvalidIPAddress';

/**
 * `Warning TooManyAddressesToMirror`: a subset held more addresses than
 * `--mirroring-max-endpoints-per-subset`; the rest were not mirrored. Go's
 * `TooManyAddressesToMirror`.
 *
 * @category Events
 */
export const tooManyAddressesToMirrorReason = 'TooManyAddressesToMirror';

/**
 * Options for {@link MirroringReconciler}: Go's `reconciler` fields.
 *
 * @category EndpointSlice mirroring
 */
export interface MirroringReconcilerOptions {
  /** discovery.k8s.io/v1 endpointslices, unscoped. */
  client: ResourceClient<EndpointSlice>;
  /** The most endpoints mirrored per subset (and so per slice). */
  maxEndpointsPerSubset: number;
  /** Records the generations written. Default a new one. */
  endpointSliceTracker?: EndpointSliceTracker;
  /** Records `InvalidIPAddress` and `TooManyAddressesToMirror` on the Endpoints. Default none. */
  recorder?: EventRecorder;
  /** The metrics. Default metrics that do nothing. */
  metrics?: EndpointSliceMirroringMetrics;
  /** Where logs go. Default none. */
  logger?: Logger;
}

const nameOf = (s: EndpointSlice): string => s.metadata?.name ?? '';

/** Maps equal as `equality.Semantic` sees them: absent equals empty. */
function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => b?.[k] === a?.[k]);
}

/**
 * The slices of each address type and set of ports. Go's
 * `endpointSlicesByKey`.
 *
 * @internal
 */
export function endpointSlicesByKey(
  existingSlices: readonly EndpointSlice[],
): Map<AddrTypePortMapKey, EndpointSlice[]> {
  const byKey = new Map<AddrTypePortMapKey, EndpointSlice[]>();
  for (const slice of existingSlices) {
    const key = newAddrTypePortMapKey(slice.ports, slice.addressType as AddressType);
    byKey.set(key, [...(byKey.get(key) ?? []), slice]);
  }
  return byKey;
}

/**
 * What making the slice hold exactly the desired endpoints takes: endpoints
 * to remove, to update in place and to add. Go's `totalChanges`.
 *
 * @internal
 */
export function totalChanges(
  existingSlice: EndpointSlice,
  desiredSet: EndpointSet,
): TotalsByAction {
  const totals = emptyTotalsByAction();
  let existingMatches = 0;
  for (const endpoint of existingSlice.endpoints ?? []) {
    const got = desiredSet.get(endpoint);
    if (got === undefined) {
      totals.removed++;
    } else {
      existingMatches++;
      if (!endpointsEqualBeyondHash(got, endpoint)) totals.updated++;
    }
  }
  totals.added = desiredSet.len() - existingMatches;
  return totals;
}

/**
 * Writes the EndpointSlices that mirror one Endpoints object: one slice per
 * subset's set of ports and address type, holding at most
 * `maxEndpointsPerSubset` of its addresses; the first existing slice of a
 * group is rewritten in place when anything differs (endpoints, labels,
 * annotations), the others are deleted, and slices to delete are recycled
 * into slices to create. Go's `reconciler` of the mirroring controller.
 *
 * @category EndpointSlice mirroring
 */
export class MirroringReconciler {
  /** The generations written. */
  readonly endpointSliceTracker: EndpointSliceTracker;
  /** The most endpoints mirrored per subset. */
  readonly maxEndpointsPerSubset: number;
  /** The metrics. */
  readonly metrics: EndpointSliceMirroringMetrics;

  readonly #client: ResourceClient<EndpointSlice>;
  readonly #recorder: EventRecorder;
  readonly #logger: Logger;

  /** @param options - see {@link MirroringReconcilerOptions} */
  constructor(options: MirroringReconcilerOptions) {
    if (!Number.isSafeInteger(options.maxEndpointsPerSubset) || options.maxEndpointsPerSubset < 1) {
      throw new RangeError(
        `maxEndpointsPerSubset must be an integer >= 1, got ${String(options.maxEndpointsPerSubset)}`,
      );
    }
    this.#client = options.client;
    this.maxEndpointsPerSubset = options.maxEndpointsPerSubset;
    this.endpointSliceTracker = options.endpointSliceTracker ?? new EndpointSliceTracker();
    this.#recorder = options.recorder ?? noopEventRecorder;
    this.metrics =
      options.metrics ?? new EndpointSliceMirroringMetrics(options.maxEndpointsPerSubset);
    this.#logger = options.logger ?? noopLogger;
  }

  //#region reconcile
  /**
   * Makes the existing mirrored slices match the Endpoints object: the
   * subsets are repacked, their valid addresses (up to the cap per subset)
   * become endpoints grouped by ports and address type, and each group is
   * reconciled; groups no longer wanted lose their slices. Records
   * `InvalidIPAddress` and `TooManyAddressesToMirror` on the Endpoints
   * object when addresses were skipped. Go's `reconcile`.
   */
  async reconcile(
    endpoints: Endpoints,
    existingSlices: readonly EndpointSlice[],
    signal?: AbortSignal,
  ): Promise<void> {
    const d = new DesiredCalc();
    let numInvalidAddresses = 0;
    let addressesSkipped = 0;
    const endpointsRef = `${endpoints.metadata?.namespace ?? ''}/${endpoints.metadata?.name ?? ''}`;

    // The canonical layout first, so that the same endpoints mirror the same way.
    for (const subset of repackSubsets(endpoints.subsets)) {
      const multiKey = d.initPorts(subset.ports);
      const totalAddresses =
        (subset.addresses ?? []).length + (subset.notReadyAddresses ?? []).length;
      let totalAddressesAdded = 0;
      for (const [addresses, ready] of [
        [subset.addresses ?? [], true],
        [subset.notReadyAddresses ?? [], false],
      ] as const) {
        for (const address of addresses) {
          if (totalAddressesAdded >= this.maxEndpointsPerSubset) break;
          if (d.addAddress(address, multiKey, ready)) {
            totalAddressesAdded++;
          } else {
            numInvalidAddresses++;
            this.#logger.info(
              'Address in Endpoints is not a valid IP, it will not be mirrored to an EndpointSlice',
              { endpoints: endpointsRef, IP: address.ip },
            );
          }
        }
      }
      addressesSkipped += totalAddresses - totalAddressesAdded;
    }

    this.metrics.addressesSkippedPerSync.withLabelValues().observe(addressesSkipped);
    if (numInvalidAddresses > 0) {
      this.#recorder.event(
        endpoints,
        'Warning',
        invalidIPAddressReason,
        `Skipped ${numInvalidAddresses} invalid IP addresses when mirroring to EndpointSlices`,
      );
    }
    if (addressesSkipped > numInvalidAddresses) {
      this.#logger.info(
        'Addresses in Endpoints were skipped due to exceeding MaxEndpointsPerSubset',
        {
          skippedAddresses: addressesSkipped,
          endpoints: endpointsRef,
        },
      );
      this.#recorder.event(
        endpoints,
        'Warning',
        tooManyAddressesToMirrorReason,
        `A max of ${this.maxEndpointsPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${addressesSkipped} addresses were skipped`,
      );
    }

    const existingSlicesByKey = endpointSlicesByKey(existingSlices);
    const epMetrics = new Map<string, EfficiencyInfo>();
    const totals = emptyTotalsByAction();
    const slices = emptySlicesByAction();
    for (const [portKey, desiredEndpoints] of d.endpointsByKey) {
      const numEndpoints = desiredEndpoints.len();
      const existing = existingSlicesByKey.get(portKey) ?? [];
      const [pmSlices, pmTotals] = this.reconcileByPortMapping(
        endpoints,
        existing,
        desiredEndpoints,
        d.portsByKey.get(portKey),
        addressTypeOfKey(portKey),
      );
      slices.toCreate.push(...pmSlices.toCreate);
      slices.toUpdate.push(...pmSlices.toUpdate);
      slices.toDelete.push(...pmSlices.toDelete);
      totals.added += pmTotals.added;
      totals.updated += pmTotals.updated;
      totals.removed += pmTotals.removed;
      epMetrics.set(portKey, {
        endpoints: numEndpoints,
        slices: existing.length + pmSlices.toCreate.length - pmSlices.toDelete.length,
      });
    }
    // Groups of ports no longer wanted lose their slices.
    for (const [portKey, existing] of existingSlicesByKey) {
      if (!d.endpointsByKey.has(portKey)) slices.toDelete.push(...existing);
    }

    this.metrics.endpointsAddedPerSync.withLabelValues().observe(totals.added);
    this.metrics.endpointsUpdatedPerSync.withLabelValues().observe(totals.updated);
    this.metrics.endpointsRemovedPerSync.withLabelValues().observe(totals.removed);
    this.metrics.updateEndpointPortCache(endpointsRef, epMetrics);

    await this.finalize(endpoints, slices, signal);
  }
  //#endregion reconcile

  /**
   * The writes one group needs: with no endpoints, delete its slices; else
   * keep its first slice (delete the others) and rewrite it unless its
   * endpoints, labels and annotations already match, or create one. Go's
   * `reconcileByPortMapping`.
   *
   * @internal
   */
  reconcileByPortMapping(
    endpoints: Endpoints,
    existingSlices: readonly EndpointSlice[],
    desiredSet: EndpointSet,
    endpointPorts: EndpointSlice['ports'],
    addressType: AddressType,
  ): [SlicesByAction, TotalsByAction] {
    const slices = emptySlicesByAction();
    let totals = emptyTotalsByAction();
    if (desiredSet.len() === 0) {
      slices.toDelete = [...existingSlices];
      for (const s of existingSlices) totals.removed += (s.endpoints ?? []).length;
      return [slices, totals];
    }
    if (existingSlices.length === 0) {
      totals.added = desiredSet.len();
    } else {
      slices.toDelete = existingSlices.slice(1);
      const first = existingSlices[0]!;
      // The slice carries the Endpoints' annotations but two, and its labels but two.
      const compareAnnotations = cloneAndRemoveKeys(
        endpoints.metadata?.annotations,
        endpointsLastChangeTriggerTime,
        lastAppliedConfigAnnotation,
      );
      const compareLabels = cloneAndRemoveKeys(
        first.metadata?.labels,
        labelManagedBy,
        labelServiceName,
      );
      totals = totalChanges(first, desiredSet);
      if (
        totals.added === 0 &&
        totals.updated === 0 &&
        totals.removed === 0 &&
        sameMap(endpoints.metadata?.labels, compareLabels) &&
        sameMap(compareAnnotations, first.metadata?.annotations)
      ) {
        return [slices, totals];
      }
    }
    const sliceName = existingSlices.length > 0 ? nameOf(existingSlices[0]!) : '';
    const newSlice = newMirroredEndpointSlice(
      endpoints,
      structuredClone(endpointPorts ?? []),
      addressType,
      sliceName,
    );
    while (desiredSet.len() > 0 && newSlice.endpoints.length < this.maxEndpointsPerSubset) {
      newSlice.endpoints.push(desiredSet.popAny()!);
    }
    if (nameOf(newSlice) !== '') slices.toUpdate = [newSlice];
    else slices.toCreate = [newSlice];
    return [slices, totals];
  }

  /**
   * Writes the changes: slices to delete are recycled into slices to
   * create, then creations (none while the Endpoints object is being
   * deleted; a terminating namespace ends the sync quietly), updates and
   * deletions, each recorded in the tracker. Go's `finalize`.
   *
   * @internal
   */
  async finalize(
    endpoints: Endpoints,
    slices: SlicesByAction,
    signal?: AbortSignal,
  ): Promise<void> {
    recycleSlices(slices);
    const namespace = endpoints.metadata?.namespace ?? '';
    const name = endpoints.metadata?.name ?? '';
    const client = this.#client.inNamespace(namespace);
    const msg = (err: unknown) => (err instanceof Error ? err.message : String(err));
    if (endpoints.metadata?.deletionTimestamp == null) {
      for (const slice of slices.toCreate) {
        let created: EndpointSlice;
        try {
          created = await client.create(slice, { signal });
        } catch (err) {
          if (hasStatusCause(err, namespaceTerminatingCause)) return;
          throw new Error(
            `failed to create EndpointSlice for Endpoints ${namespace}/${name}: ${msg(err)}`,
            { cause: err },
          );
        }
        this.endpointSliceTracker.update(created);
        this.metrics.endpointSliceChanges.withLabelValues('create').inc();
      }
    }
    for (const slice of slices.toUpdate) {
      let updated: EndpointSlice;
      try {
        updated = await client.update(slice, { signal });
      } catch (err) {
        throw new Error(
          `failed to update ${nameOf(slice)} EndpointSlice for Endpoints ${namespace}/${name}: ${msg(err)}`,
          { cause: err },
        );
      }
      this.endpointSliceTracker.update(updated);
      this.metrics.endpointSliceChanges.withLabelValues('update').inc();
    }
    for (const slice of slices.toDelete) {
      try {
        await client.delete(nameOf(slice), { signal });
      } catch (err) {
        throw new Error(
          `failed to delete ${nameOf(slice)} EndpointSlice for Endpoints ${namespace}/${name}: ${msg(err)}`,
          { cause: err },
        );
      }
      this.endpointSliceTracker.expectDeletion(slice);
      this.metrics.endpointSliceChanges.withLabelValues('delete').inc();
    }
  }

  /**
   * Deletes every mirrored slice of an Endpoints object and forgets it in
   * the metrics; one error names how many deletions failed. Go's
   * `deleteEndpoints`.
   */
  async deleteEndpoints(
    namespace: string,
    name: string,
    endpointSlices: readonly EndpointSlice[],
    signal?: AbortSignal,
  ): Promise<void> {
    this.metrics.deleteEndpoints(`${namespace}/${name}`);
    const errs: unknown[] = [];
    for (const slice of endpointSlices) {
      try {
        await this.#client.inNamespace(namespace).delete(nameOf(slice), { signal });
      } catch (err) {
        errs.push(err);
      }
    }
    if (errs.length > 0) {
      const first = errs[0] instanceof Error ? errs[0].message : String(errs[0]);
      throw new Error(
        `error(s) deleting ${errs.length}/${endpointSlices.length} EndpointSlices for ${namespace}/${name} Endpoints, including: ${first}`,
        { cause: errs[0] },
      );
    }
  }
}
