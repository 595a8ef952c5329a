// How kube-apiserver writes the `kubernetes` Service's Endpoints and
// EndpointSlice: pkg/controlplane/reconcilers/endpointsadapter.go
// (EndpointsAdapter.Sync, updateEndpoints, updateEndpointSlice,
// listEndpointSlices, isRetriableError), for a single-stack IPv4 cluster,
// the sandbox's only kind, so there is never a secondary `-v6` slice.
import { isAlreadyExists, isConflict, isNotFound } from '@kcm-ts/apimachinery';
import type { Clock, ResourceClient } from '@kcm-ts/apimachinery';
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type {
  EndpointPort as SlicePort,
  EndpointSlice,
  Endpoint,
} from 'kubernetes-types/discovery/v1.js';
import { sameJSON } from '../semantic-equality.js';
import { isIPv4 } from './allocation.js';

/** The label that keeps the EndpointSlice mirroring controller off an Endpoints object. */
export const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';

/** The label naming the Service an EndpointSlice belongs to. */
export const serviceNameLabel = 'kubernetes.io/service-name';

/** What {@link EndpointsAdapter} writes through, and how it waits between tries. */
export interface EndpointsAdapterOptions {
  /** v1 Endpoints, any namespace. */
  endpoints: ResourceClient<Endpoints>;
  /** discovery.k8s.io/v1 EndpointSlices, any namespace. */
  endpointSlices: ResourceClient<EndpointSlice>;
  /** The Service's namespace and name: `default`, `kubernetes`. */
  serviceNamespace: string;
  serviceName: string;
  /** Sleeps between tries after a conflict. */
  clock: Clock;
  /** The backoff's jitter, in [0, 1). */
  random: () => number;
}

// client-go's retry.DefaultBackoff: four tries, 10 ms apart growing five
// times each step, with 10 % jitter.
const backoffSteps = 4;
const backoffFirst = 10;
const backoffFactor = 5;
const backoffJitter = 0.1;

/**
 * Writes the Endpoints and EndpointSlice of one Service from a set of IP
 * addresses and ports, rewriting whatever someone else changed in them:
 * kube-apiserver's `EndpointsAdapter`.
 */
export class EndpointsAdapter {
  readonly #opts: EndpointsAdapterOptions;

  constructor(opts: EndpointsAdapterOptions) {
    this.#opts = opts;
  }

  /**
   * Makes the Endpoints list `ips` (sorted) with `ports`, labelled
   * skip-mirror and nothing else, and the EndpointSlice of the same name
   * say the same; deletes any other slice labelled for the Service. Ports
   * already there are kept unless `reconcilePorts` is set. Retries a write
   * that lost a race (409), as `Sync` does.
   */
  async sync(ips: readonly string[], ports: readonly EndpointPort[], reconcilePorts: boolean) {
    // sets.List: sorted, no duplicates. In a single-stack IPv4 cluster the
    // IPv6 addresses would go to a secondary family that does not exist.
    const sorted = [...new Set(ips)].filter(isIPv4).sort();
    await this.#retry(() => this.#syncEndpoints(sorted, ports, reconcilePorts));
    await this.#retry(() => this.#syncEndpointSlices(sorted, ports, reconcilePorts));
  }

  async #syncEndpoints(ips: string[], ports: readonly EndpointPort[], reconcilePorts: boolean) {
    const { serviceNamespace, serviceName } = this.#opts;
    const client = this.#opts.endpoints.inNamespace(serviceNamespace);
    let current: Endpoints | undefined;
    try {
      current = await client.get(serviceName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const wanted = this.#updateEndpoints(current, ips, ports, reconcilePorts);
    if (!current) {
      await client.create(wanted);
    } else if (
      !sameJSON(current.subsets ?? [], wanted.subsets ?? []) ||
      !sameJSON(current.metadata?.labels ?? {}, wanted.metadata?.labels ?? {})
    ) {
      await client.update(wanted);
    }
  }

  async #syncEndpointSlices(
    ips: string[],
    ports: readonly EndpointPort[],
    reconcilePorts: boolean,
  ) {
    const client = this.#opts.endpointSlices.inNamespace(this.#opts.serviceNamespace);
    const { current, others } = await this.#listEndpointSlices(client);
    // Slices labelled for the Service that this server would not write
    // (another name, another address type) should not exist.
    for (const slice of others) {
      try {
        await client.delete(slice.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const wanted = this.#updateEndpointSlice(current, ips, ports, reconcilePorts);
    if (!current) {
      await client.create(wanted);
    } else if (
      !sameJSON(current.endpoints ?? [], wanted.endpoints ?? []) ||
      !sameJSON(current.ports ?? [], wanted.ports ?? []) ||
      !sameJSON(current.metadata?.labels ?? {}, wanted.metadata?.labels ?? {})
    ) {
      await client.update(wanted);
    }
  }

  /** The Service's slice (its name, IPv4), and every other slice labelled for it. */
  async #listEndpointSlices(
    client: ResourceClient<EndpointSlice>,
  ): Promise<{ current: EndpointSlice | undefined; others: EndpointSlice[] }> {
    const { serviceName } = this.#opts;
    const list = await client.list({ labelSelector: `${serviceNameLabel}=${serviceName}` });
    let current: EndpointSlice | undefined;
    const others: EndpointSlice[] = [];
    for (const slice of list.items) {
      if (slice.metadata?.name === serviceName && slice.addressType === 'IPv4') current = slice;
      else others.push(slice);
    }
    return { current, others };
  }

  /** `current` (or a new object) with the labels, the one subset, the addresses and maybe the ports set. */
  #updateEndpoints(
    current: Endpoints | undefined,
    ips: string[],
    ports: readonly EndpointPort[],
    reconcilePorts: boolean,
  ): Endpoints {
    const { serviceNamespace, serviceName } = this.#opts;
    const out: Endpoints = current
      ? structuredClone(current)
      : {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: serviceName, namespace: serviceNamespace },
        };
    // The whole label set is replaced: anything else a user put there goes.
    out.metadata = { ...out.metadata, labels: { [skipMirrorLabel]: 'true' } };
    const subset = out.subsets?.length === 1 && out.subsets[0] ? out.subsets[0] : {};
    subset.addresses = ips.map((ip) => ({ ip }));
    const wantedPorts = ports.map((p) => ({ ...p }));
    if (!subset.ports?.length || (reconcilePorts && !sameJSON(subset.ports, wantedPorts))) {
      subset.ports = wantedPorts;
    }
    out.subsets = [subset];
    return out;
  }

  /** `current` (or a new slice) with the label, address type, endpoints and maybe the ports set. */
  #updateEndpointSlice(
    current: EndpointSlice | undefined,
    ips: string[],
    ports: readonly EndpointPort[],
    reconcilePorts: boolean,
  ): EndpointSlice {
    const { serviceNamespace, serviceName } = this.#opts;
    const out: EndpointSlice = current
      ? structuredClone(current)
      : {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: serviceName, namespace: serviceNamespace },
          addressType: 'IPv4',
          endpoints: [],
        };
    out.metadata = { ...out.metadata, labels: { [serviceNameLabel]: serviceName } };
    out.addressType = 'IPv4';
    out.endpoints = ips.map((ip): Endpoint => ({ addresses: [ip], conditions: { ready: true } }));
    // convertEndpointPorts: the same three fields, in the slice's order.
    const slicePorts = ports.map((p): SlicePort => ({
      port: p.port,
      ...(p.name !== undefined ? { name: p.name } : {}),
      protocol: p.protocol ?? 'TCP',
    }));
    if (!out.ports?.length || (reconcilePorts && !sameJSON(out.ports, slicePorts))) {
      out.ports = slicePorts;
    }
    return out;
  }

  /** retry.OnError with DefaultBackoff, retrying only a 409 Conflict or AlreadyExists. */
  async #retry(fn: () => Promise<void>): Promise<void> {
    let wait = backoffFirst;
    for (let step = 1; ; step++) {
      try {
        await fn();
        return;
      } catch (err) {
        if (step >= backoffSteps || !(isConflict(err) || isAlreadyExists(err))) throw err;
      }
      await this.#opts.clock.sleep(wait * (1 + backoffJitter * this.#opts.random()));
      wait *= backoffFactor;
    }
  }
}
