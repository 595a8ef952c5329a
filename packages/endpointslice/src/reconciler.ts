// The reconciler: staging/src/k8s.io/endpointslice/reconciler.go
// (Reconciler, NewReconciler, WithPreferSameTrafficDistributionEnabled,
// validTrafficDistribution, endpointMeta, Reconcile, deleteEndpointSlice,
// reconcileByAddressType, placeholderSliceCompare, finalize,
// reconcileByPortMapping, DeleteService, GetControllerName,
// ManagedByChanged, ManagedByController). The topology cache is not ported:
// a Service asking for Topology Aware Routing by annotation gets no hints.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import {
  hasStatusCause,
  isNotFound,
  noopLogger,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Lister } from '@kcm-ts/informer';
import { namespaceTerminatingCause } from '@kcm-ts/controller';
import { EndpointSliceTracker } from './endpointslice-tracker.js';
import type { EfficiencyInfo } from './metrics.js';
import {
  EndpointSet,
  endpointsEqualBeyondHash,
  newPortMapKey,
  shouldPodBeInEndpoints,
  type PortMapKey,
} from './reconciler-util.js';
import {
  reconcileHints,
  removeHintsFromSlices,
  trafficDistributionPreferClose,
  trafficDistributionPreferSameNode,
  trafficDistributionPreferSameZone,
} from './trafficdist.js';
import {
  addTriggerTimeAnnotation,
  byEndpointLenDescending,
  getAddressTypesForService,
  getEndpointPorts,
  getSliceToFill,
  hintsEnabled,
  labelManagedBy,
  newEndpointSlice,
  ownedBy,
  podToEndpoint,
  setEndpointSliceLabels,
  unchangedSlices,
  type AddressType,
  type EndpointMeta,
} from './utils.js';

/**
 * What the reconciler writes per sync, for the metrics of Go's
 * `k8s.io/endpointslice/metrics` (`endpoint_slice_controller_changes`,
 * `endpoints_added_per_sync`, `endpoints_removed_per_sync`,
 * `endpointslices_changed_per_sync`).
 *
 * @category Reconciler
 */
export interface ReconcilerObserver {
  /** One slice created, updated or deleted. */
  onEndpointSliceChange?(operation: 'create' | 'update' | 'delete'): void;
  /** Endpoints added and removed by one sync of one address type. */
  onEndpointsPerSync?(added: number, removed: number): void;
  /** Slices written by one sync of one address type, with the topology and traffic distribution labels. */
  onSlicesChangedPerSync?(changed: number, topology: string, trafficDistribution: string): void;
  /**
   * The endpoints and slices of each group of ports of a Service after one
   * sync of one address type (Go's `UpdateServicePortCache`).
   */
  onServicePortCache?(serviceKey: string, info: ReadonlyMap<string, EfficiencyInfo>): void;
  /** The traffic distribution honoured for a Service, or undefined. */
  onTrafficDistribution?(serviceKey: string, trafficDistribution: string | undefined): void;
  /** A Service is gone. */
  onServiceDeleted?(serviceKey: string): void;
}

/**
 * Options for {@link Reconciler}: what Go's `NewReconciler` takes.
 *
 * @category Reconciler
 */
export interface ReconcilerOptions {
  /** discovery.k8s.io/v1 endpointslices, unscoped: the reconciler picks the Service's namespace. */
  client: ResourceClient<EndpointSlice>;
  /** Nodes, for an endpoint's zone. */
  nodeLister: Lister<Node>;
  /** The most endpoints in one slice (`--max-endpoints-per-slice`, default 100). */
  maxEndpointsPerSlice: number;
  /** The tracker of the controller's writes; default a new one. */
  endpointSliceTracker?: EndpointSliceTracker;
  /** The value of the managed-by label (`endpointslice-controller.k8s.io`). */
  controllerName: string;
  /**
   * Whether `PreferSameZone` and `PreferSameNode` traffic distributions are
   * honoured (Go's `PreferSameTrafficDistribution` feature gate, on by
   * default since Kubernetes 1.34). Default true.
   */
  preferSameTrafficDistribution?: boolean;
  /** Where logs go. Default none. */
  logger?: Logger;
  /** Told what each sync wrote. Default none. */
  observer?: ReconcilerObserver;
}

const nsName = (o: { metadata?: { name?: string; namespace?: string } }) =>
  `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
const nameOf = (o: { metadata?: { name?: string } }) => o.metadata?.name ?? '';
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Go's errors aggregate: the one error, or all of them in one. */
function aggregate(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new AggregateError(errors, `[${errors.map((e) => e.message).join(', ')}]`);
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/**
 * Whether a slice about to be deleted is the placeholder the reconciler
 * would create anyway: same namespace, labels and address type, no ports and
 * no endpoints. Go's `placeholderSliceCompare`.
 */
function isSamePlaceholder(slice: EndpointSlice, placeholder: EndpointSlice): boolean {
  return (
    (slice.metadata?.namespace ?? '') === (placeholder.metadata?.namespace ?? '') &&
    sameLabels(slice.metadata?.labels ?? {}, placeholder.metadata?.labels ?? {}) &&
    slice.addressType === placeholder.addressType &&
    (slice.ports ?? []).length === 0 &&
    (slice.endpoints ?? []).length === 0
  );
}

/**
 * Turns the pods a Service selects into EndpointSlices: per address type
 * and per set of ports, updating slices in place where it can, filling the
 * fullest ones first, creating new ones only when the endpoints do not fit,
 * and recycling slices it would delete into the ones it would create, so
 * that most pod changes write one slice. Go's `endpointslice.Reconciler`.
 *
 * @category Reconciler
 */
export class Reconciler {
  readonly #client: ResourceClient<EndpointSlice>;
  readonly #nodeLister: Lister<Node>;
  readonly #maxEndpointsPerSlice: number;
  readonly #tracker: EndpointSliceTracker;
  readonly #controllerName: string;
  readonly #preferSame: boolean;
  readonly #logger: Logger;
  readonly #observer: ReconcilerObserver;

  /** @param options - see {@link ReconcilerOptions} */
  constructor(options: ReconcilerOptions) {
    if (!Number.isSafeInteger(options.maxEndpointsPerSlice) || options.maxEndpointsPerSlice < 1) {
      throw new RangeError(
        `maxEndpointsPerSlice must be an integer >= 1, got ${String(options.maxEndpointsPerSlice)}`,
      );
    }
    this.#client = options.client;
    this.#nodeLister = options.nodeLister;
    this.#maxEndpointsPerSlice = options.maxEndpointsPerSlice;
    this.#tracker = options.endpointSliceTracker ?? new EndpointSliceTracker();
    this.#controllerName = options.controllerName;
    this.#preferSame = options.preferSameTrafficDistribution ?? true;
    this.#logger = options.logger ?? noopLogger;
    this.#observer = options.observer ?? {};
  }

  /** The tracker the reconciler records its writes in. */
  get endpointSliceTracker(): EndpointSliceTracker {
    return this.#tracker;
  }

  /** Whether the Service's traffic distribution is one this cluster honours. Go's `validTrafficDistribution`. */
  validTrafficDistribution(trafficDistribution: string | undefined): boolean {
    if (trafficDistribution === undefined) return false;
    if (trafficDistribution === trafficDistributionPreferClose) return true;
    if (!this.#preferSame) return false;
    return (
      trafficDistribution === trafficDistributionPreferSameZone ||
      trafficDistribution === trafficDistributionPreferSameNode
    );
  }

  /**
   * Brings the Service's slices in line with the pods it selects: slices of
   * address types the Service no longer has are deleted, the others
   * reconciled per address type; `triggerTime` (milliseconds since the
   * epoch, or undefined for none) goes into the
   * `endpoints.kubernetes.io/last-change-trigger-time` annotation of every
   * slice written. Go's `Reconcile`.
   *
   * @throws the errors of the writes, aggregated
   */
  async reconcile(
    service: Service,
    pods: readonly Pod[],
    existingSlices: readonly EndpointSlice[],
    triggerTime: number | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const slicesToDelete: EndpointSlice[] = [];
    const errs: Error[] = [];
    const slicesByAddressType = new Map<string, EndpointSlice[]>();
    const supported = getAddressTypesForService(service, this.#logger);
    for (const existing of existingSlices) {
      if (!supported.has(existing.addressType as AddressType)) {
        slicesToDelete.push(existing);
        continue;
      }
      const list = slicesByAddressType.get(existing.addressType) ?? [];
      list.push(existing);
      slicesByAddressType.set(existing.addressType, list);
    }
    for (const addressType of supported) {
      try {
        await this.reconcileByAddressType(
          service,
          pods,
          slicesByAddressType.get(addressType) ?? [],
          triggerTime,
          addressType,
          signal,
        );
      } catch (err) {
        errs.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    for (const slice of slicesToDelete) {
      try {
        await this.#deleteEndpointSlice(service, slice, signal);
      } catch (err) {
        errs.push(
          new Error(
            `error deleting ${nameOf(slice)} EndpointSlice for Service ${nsName(service)}: ${messageOf(err)}`,
            { cause: err },
          ),
        );
      }
    }
    const err = aggregate(errs);
    if (err) throw err;
  }

  /** Deletes a slice; one already gone is fine. Go's `deleteEndpointSlice`. */
  async #deleteEndpointSlice(
    service: Service,
    slice: EndpointSlice,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      await this.#client
        .inNamespace(service.metadata?.namespace ?? '')
        .delete(nameOf(slice), { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    this.#tracker.expectDeletion(slice);
    this.#observer.onEndpointSliceChange?.('delete');
  }

  /**
   * Reconciles the Service's slices of one address type: slices not owned
   * by the Service are deleted; endpoints are grouped by the ports each pod
   * serves on and each group reconciled; groups no longer wanted are
   * deleted; a Service with no endpoints keeps one empty placeholder slice.
   * Go's `reconcileByAddressType`.
   *
   * @internal
   */
  async reconcileByAddressType(
    service: Service,
    pods: readonly Pod[],
    existingSlices: readonly EndpointSlice[],
    triggerTime: number | undefined,
    addressType: AddressType,
    signal?: AbortSignal,
  ): Promise<void> {
    const errs: Error[] = [];
    let slicesToCreate: EndpointSlice[] = [];
    let slicesToUpdate: EndpointSlice[] = [];
    let slicesToDelete: EndpointSlice[] = [];

    const existingSlicesByPortMap = new Map<PortMapKey, EndpointSlice[]>();
    for (const existing of existingSlices) {
      if (ownedBy(existing, service)) {
        const key = newPortMapKey(existing.ports);
        const list = existingSlicesByPortMap.get(key) ?? [];
        list.push(existing);
        existingSlicesByPortMap.set(key, list);
      } else {
        slicesToDelete.push(existing);
      }
    }

    const desiredMetaByPortMap = new Map<PortMapKey, EndpointMeta>();
    const desiredEndpointsByPortMap = new Map<PortMapKey, EndpointSet>();
    for (const pod of pods) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const endpointPorts = getEndpointPorts(service, pod, this.#logger);
      const key = newPortMapKey(endpointPorts);
      if (!desiredEndpointsByPortMap.has(key))
        desiredEndpointsByPortMap.set(key, new EndpointSet());
      if (!desiredMetaByPortMap.has(key)) {
        desiredMetaByPortMap.set(key, { addressType, ports: endpointPorts });
      }
      const nodeName = pod.spec?.nodeName ?? '';
      const node = this.#nodeLister.tryGet(nodeName);
      if (node === undefined && !(service.spec?.publishNotReadyAddresses ?? false)) {
        // A pod on a node that is gone (yet) is left out, and the Service retried.
        this.#logger.info('skipping Pod for Service, Node not found', {
          pod: nsName(pod),
          service: nsName(service),
          node: nodeName,
        });
        errs.push(
          new Error(
            `skipping Pod ${nameOf(pod)} for Service ${nsName(service)}: Node ${nodeName} Not Found`,
          ),
        );
        continue;
      }
      const endpoint = podToEndpoint(pod, node, service, addressType);
      if (endpoint.addresses.length > 0) desiredEndpointsByPortMap.get(key)!.insert(endpoint);
    }

    const spMetrics = new Map<PortMapKey, EfficiencyInfo>();
    let totalAdded = 0;
    let totalRemoved = 0;
    for (const [portMap, desiredEndpoints] of desiredEndpointsByPortMap) {
      const numEndpoints = desiredEndpoints.len();
      const [toCreate, toUpdate, toDelete, added, removed] = this.reconcileByPortMapping(
        service,
        existingSlicesByPortMap.get(portMap) ?? [],
        desiredEndpoints,
        desiredMetaByPortMap.get(portMap)!,
      );
      totalAdded += added;
      totalRemoved += removed;
      spMetrics.set(portMap, {
        endpoints: numEndpoints,
        slices:
          (existingSlicesByPortMap.get(portMap) ?? []).length + toCreate.length - toDelete.length,
      });
      slicesToCreate.push(...toCreate);
      slicesToUpdate.push(...toUpdate);
      slicesToDelete.push(...toDelete);
    }
    for (const [portMap, slices] of existingSlicesByPortMap) {
      if (!desiredEndpointsByPortMap.has(portMap)) slicesToDelete.push(...slices);
    }

    // With no endpoints at all, the Service keeps one empty slice.
    if (existingSlices.length === slicesToDelete.length && slicesToCreate.length < 1) {
      const placeholder = newEndpointSlice(
        service,
        { ports: [], addressType },
        this.#controllerName,
        this.#logger,
      );
      if (slicesToDelete.length === 1 && isSamePlaceholder(slicesToDelete[0]!, placeholder)) {
        slicesToDelete = [];
      } else {
        slicesToCreate.push(placeholder);
      }
      spMetrics.set(newPortMapKey(placeholder.ports), { endpoints: 0, slices: 1 });
    }
    this.#observer.onEndpointsPerSync?.(totalAdded, totalRemoved);
    const serviceKey = nsName(service);
    this.#observer.onServicePortCache?.(serviceKey, spMetrics);

    const unchanged = unchangedSlices(existingSlices, slicesToUpdate, slicesToDelete);
    const canUseTrafficDistribution =
      this.validTrafficDistribution(service.spec?.trafficDistribution) &&
      !hintsEnabled(service.metadata?.annotations);
    this.#observer.onTrafficDistribution?.(
      serviceKey,
      canUseTrafficDistribution ? service.spec?.trafficDistribution : undefined,
    );
    if (!canUseTrafficDistribution) {
      [slicesToCreate, slicesToUpdate] = removeHintsFromSlices(
        slicesToCreate,
        slicesToUpdate,
        unchanged,
      );
    } else {
      [slicesToCreate, slicesToUpdate] = reconcileHints(
        service.spec?.trafficDistribution,
        slicesToCreate,
        slicesToUpdate,
        unchangedSlices(existingSlices, slicesToUpdate, slicesToDelete),
      );
    }

    try {
      await this.finalize(
        service,
        slicesToCreate,
        slicesToUpdate,
        slicesToDelete,
        triggerTime,
        signal,
      );
    } catch (err) {
      errs.push(err instanceof Error ? err : new Error(String(err)));
    }
    const err = aggregate(errs);
    if (err) throw err;
  }

  //#region finalize
  /**
   * Writes the changes: a slice to create takes the name of one to delete
   * (of the same address type, owned by the Service) and becomes an update;
   * nothing is created for a Service being deleted (the garbage collector
   * is deleting its slices); then creates, updates and deletes, each
   * recorded in the tracker. Go's `finalize`.
   *
   * @internal
   */
  async finalize(
    service: Service,
    slicesToCreate: EndpointSlice[],
    slicesToUpdate: EndpointSlice[],
    slicesToDelete: EndpointSlice[],
    triggerTime: number | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const toCreate = [...slicesToCreate];
    const toUpdate = [...slicesToUpdate];
    const toDelete = [...slicesToDelete];
    for (let i = 0; i < toDelete.length;) {
      if (toCreate.length === 0) break;
      const sliceToDelete = toDelete[i]!;
      const slice = toCreate[toCreate.length - 1]!;
      if (sliceToDelete.addressType === slice.addressType && ownedBy(sliceToDelete, service)) {
        slice.metadata = { ...slice.metadata, name: nameOf(sliceToDelete) };
        toCreate.pop();
        toUpdate.push(slice);
        toDelete.splice(i, 1);
      } else {
        i++;
      }
    }

    const namespace = service.metadata?.namespace ?? '';
    const client = this.#client.inNamespace(namespace);
    if (service.metadata?.deletionTimestamp == null) {
      for (const slice of toCreate) {
        addTriggerTimeAnnotation(slice, triggerTime);
        let created: EndpointSlice;
        try {
          created = await client.create(slice, { signal });
        } catch (err) {
          // In a terminating namespace creates keep failing: drop the work.
          if (hasStatusCause(err, namespaceTerminatingCause)) return;
          throw new Error(
            `failed to create EndpointSlice for Service ${nsName(service)}: ${messageOf(err)}`,
            { cause: err },
          );
        }
        this.#tracker.update(created);
        this.#observer.onEndpointSliceChange?.('create');
      }
    }
    for (const slice of toUpdate) {
      addTriggerTimeAnnotation(slice, triggerTime);
      let updated: EndpointSlice;
      try {
        updated = await client.update(slice, { signal });
      } catch (err) {
        throw new Error(
          `failed to update ${nameOf(slice)} EndpointSlice for Service ${nsName(service)}: ${messageOf(err)}`,
          { cause: err },
        );
      }
      this.#tracker.update(updated);
      this.#observer.onEndpointSliceChange?.('update');
    }
    for (const slice of toDelete) {
      try {
        await this.#deleteEndpointSlice(service, slice, signal);
      } catch (err) {
        throw new Error(
          `failed to delete ${nameOf(slice)} EndpointSlice for Service ${nsName(service)}: ${messageOf(err)}`,
          { cause: err },
        );
      }
    }
    const trafficDistribution =
      this.validTrafficDistribution(service.spec?.trafficDistribution) &&
      !hintsEnabled(service.metadata?.annotations)
        ? (service.spec?.trafficDistribution ?? '')
        : '';
    this.#observer.onSlicesChangedPerSync?.(
      toCreate.length + toUpdate.length + toDelete.length,
      'Disabled',
      trafficDistribution,
    );
  }
  //#endregion finalize

  //#region reconcile-by-port-mapping
  /**
   * Decides the writes for one group of slices sharing ports, in three
   * steps: (1) drop unwanted endpoints from existing slices and refresh
   * changed ones (and the labels), marking those slices for update, or for
   * deletion when nothing is left; (2) fill the slices already marked for
   * update with the remaining endpoints, fullest first; (3) put what is
   * left in the one unchanged slice it would fill best, or in new slices.
   * Returns the slices to create, update and delete, and the numbers of
   * endpoints added and removed. Go's `reconcileByPortMapping`.
   *
   * @internal
   */
  reconcileByPortMapping(
    service: Service,
    existingSlices: readonly EndpointSlice[],
    desiredSet: EndpointSet,
    endpointMeta: EndpointMeta,
  ): [EndpointSlice[], EndpointSlice[], EndpointSlice[], number, number] {
    const max = this.#maxEndpointsPerSlice;
    const slicesByName = new Map<string, EndpointSlice>();
    const sliceNamesUnchanged = new Set<string>();
    const sliceNamesToUpdate = new Set<string>();
    const sliceNamesToDelete = new Set<string>();
    let numRemoved = 0;

    // 1. Keep the wanted endpoints of existing slices, refreshed.
    for (const existing of existingSlices) {
      const name = nameOf(existing);
      slicesByName.set(name, existing);
      const oldEndpoints = existing.endpoints ?? [];
      const newEndpoints = [];
      let endpointUpdated = false;
      for (const endpoint of oldEndpoints) {
        const got = desiredSet.get(endpoint);
        if (got === undefined) continue;
        newEndpoints.push(got);
        if (!endpointsEqualBeyondHash(got, endpoint)) endpointUpdated = true;
        desiredSet.delete(endpoint);
      }
      const [labels, labelsChanged] = setEndpointSliceLabels(
        existing,
        service,
        this.#controllerName,
        this.#logger,
      );
      if (endpointUpdated || oldEndpoints.length !== newEndpoints.length) {
        if (oldEndpoints.length > newEndpoints.length) {
          numRemoved += oldEndpoints.length - newEndpoints.length;
        }
        if (newEndpoints.length === 0) {
          sliceNamesToDelete.add(name);
        } else {
          const epSlice = structuredClone(existing);
          epSlice.endpoints = newEndpoints;
          epSlice.metadata = { ...epSlice.metadata, labels };
          slicesByName.set(name, epSlice);
          sliceNamesToUpdate.add(name);
        }
      } else if (labelsChanged) {
        const epSlice = structuredClone(existing);
        epSlice.endpoints ??= [];
        epSlice.metadata = { ...epSlice.metadata, labels };
        slicesByName.set(name, epSlice);
        sliceNamesToUpdate.add(name);
      } else {
        sliceNamesUnchanged.add(name);
      }
    }

    const numAdded = desiredSet.len();

    // 2. Fill the slices being updated anyway, fullest first.
    if (desiredSet.len() > 0 && sliceNamesToUpdate.size > 0) {
      const slices = [...sliceNamesToUpdate].map((n) => slicesByName.get(n)!);
      slices.sort(byEndpointLenDescending);
      for (const slice of slices) {
        while (desiredSet.len() > 0 && slice.endpoints.length < max) {
          slice.endpoints.push(desiredSet.popAny()!);
        }
      }
    }

    // 3. The rest: into the unchanged slice it fills best, else new slices.
    const slicesToCreate: EndpointSlice[] = [];
    while (desiredSet.len() > 0) {
      let sliceToFill: EndpointSlice | undefined;
      if (desiredSet.len() < max && sliceNamesUnchanged.size > 0) {
        const unchanged = [...sliceNamesUnchanged].map((n) => slicesByName.get(n)!);
        sliceToFill = getSliceToFill(unchanged, desiredSet.len(), max);
      }
      if (sliceToFill === undefined) {
        sliceToFill = newEndpointSlice(service, endpointMeta, this.#controllerName, this.#logger);
      } else {
        sliceToFill = structuredClone(sliceToFill);
        sliceToFill.endpoints ??= [];
        slicesByName.set(nameOf(sliceToFill), sliceToFill);
      }
      while (desiredSet.len() > 0 && sliceToFill.endpoints.length < max) {
        sliceToFill.endpoints.push(desiredSet.popAny()!);
      }
      const name = nameOf(sliceToFill);
      if (name !== '') {
        sliceNamesToUpdate.add(name);
        sliceNamesUnchanged.delete(name);
      } else {
        slicesToCreate.push(sliceToFill);
      }
    }

    const slicesToUpdate = [...sliceNamesToUpdate].map((n) => slicesByName.get(n)!);
    const slicesToDelete = [...sliceNamesToDelete].map((n) => slicesByName.get(n)!);
    return [slicesToCreate, slicesToUpdate, slicesToDelete, numAdded, numRemoved];
  }
  //#endregion reconcile-by-port-mapping

  /** The value of the managed-by label this reconciler writes. Go's `GetControllerName`. */
  getControllerName(): string {
    return this.#controllerName;
  }

  /** Whether exactly one of the slices is managed by this controller. Go's `ManagedByChanged`. */
  managedByChanged(endpointSlice1: EndpointSlice, endpointSlice2: EndpointSlice): boolean {
    return this.managedByController(endpointSlice1) !== this.managedByController(endpointSlice2);
  }

  /** Whether the slice's managed-by label names this controller. Go's `ManagedByController`. */
  managedByController(endpointSlice: EndpointSlice): boolean {
    return endpointSlice.metadata?.labels?.[labelManagedBy] === this.#controllerName;
  }

  /** Forgets a deleted Service: its metrics. Go's `DeleteService`. */
  deleteService(namespace: string, name: string): void {
    this.#observer.onServiceDeleted?.(`${namespace}/${name}`);
  }
}
