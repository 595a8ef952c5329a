// The `kubernetes` Service kube-apiserver keeps in `default`, pointing at
// the API server itself, with its Endpoints and EndpointSlice:
// pkg/controlplane/controller/kubernetesservice (controller.go: Run,
// UpdateKubernetesService, CreateOrUpdateMasterServiceIfNeeded,
// createEndpointPortSpec) and the lease endpoint reconciler it drives by
// default (pkg/controlplane/reconcilers/lease.go, ReconcileEndpoints and
// doReconcile).
import type {
  Clock,
  KubeObject,
  Logger,
  ResourceClient,
  UpdateOptions,
} from '@kcm-ts/apimachinery';
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { EndpointsAdapter } from './endpoints-adapter.js';
import type { ResourceInfo } from '../../resources.js';
import type { Storage } from '../../storage/storage.js';
import { kubernetesServiceIP } from './allocation.js';
import { type Obj, obj } from '../../unstructured.js';

/** What the controller needs of the store: the Service's storage and its verbs. */
export interface ServiceWriter {
  readonly storage: Storage;
  resource(group: string, plural: string): ResourceInfo;
  get(info: ResourceInfo, namespace: string, name: string): KubeObject;
  create(info: ResourceInfo, namespace: string, body: unknown): KubeObject;
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts?: UpdateOptions,
  ): unknown;
}

/**
 * The `kubernetes` Service that kube-apiserver keeps in `default`: the first
 * ClusterIP of the range, port 443 (`https`) to the API server's own port.
 */
function kubernetesService(apiServerPort: number): Obj {
  return {
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: kubernetesServiceIP,
      clusterIPs: [kubernetesServiceIP],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: apiServerPort }],
      sessionAffinity: 'None',
    },
  };
}

/**
 * Creates the `kubernetes` Service if it is missing; with `reconcile` (the
 * default, kube-apiserver's first pass at start) also points it at
 * `apiServerPort` again after a restart on another port.
 */
export function ensureKubernetesService(
  registry: ServiceWriter,
  apiServerPort: number,
  reconcile = true,
): void {
  const info = registry.resource('', 'services');
  const wanted = kubernetesService(apiServerPort);
  const found = registry.storage.get(info.storage, 'default/kubernetes') as Obj | undefined;
  if (!found) {
    registry.create(info, 'default', wanted);
    return;
  }
  if (!reconcile) return;
  const ports = obj(wanted.spec).ports;
  if (JSON.stringify(obj(found.spec).ports) === JSON.stringify(ports)) return;
  const current = registry.get(info, 'default', 'kubernetes') as unknown as Obj;
  registry.update(info, 'default', 'kubernetes', {
    ...current,
    spec: { ...obj(current.spec), ports },
  });
}

/**
 * The address kube-apiserver advertises to the cluster (`--advertise-address`),
 * which its Endpoints list: the sandbox's control-plane node, `node-1`, whose
 * InternalIP this is, as kind's API server advertises its node's address.
 * The sandbox really listens on 127.0.0.1, but an Endpoints address may not
 * be a loopback one (Endpoints validation refuses 127.0.0.0/8), so a real
 * kube-apiserver could not list that either.
 */
export const apiServerAdvertiseAddress = '172.18.0.2';

/** How often kube-apiserver syncs the Service and its endpoints: `--endpoint-reconciler` interval, 10 s. */
export const endpointInterval = 10_000;

/** Options of {@link KubernetesServiceController}. */
export interface KubernetesServiceControllerOptions {
  /** The registry, for the Service. */
  registry: ServiceWriter;
  /** Clients for the Endpoints and EndpointSlices. */
  client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  clock: Clock;
  /** The backoff's jitter after a conflict, in [0, 1). Default Math.random. */
  random?: () => number;
  /** The port the API server serves on: the Service's targetPort and the endpoints' port. */
  port: number;
  /** The address the endpoints name. Default {@link apiServerAdvertiseAddress}. */
  publicIP?: string;
  /** Where failed syncs are reported. */
  logger?: Logger | undefined;
}

/**
 * Keeps `default/kubernetes` (the Service, its Endpoints and its
 * EndpointSlice) as kube-apiserver's kubernetesservice controller does:
 * one sync at start that also sets the ports, then one every 10 s that
 * puts back whatever was deleted or edited (addresses, labels, a missing
 * port list), never the Service's spec or ports already there.
 */
export class KubernetesServiceController {
  readonly #opts: KubernetesServiceControllerOptions;
  readonly #adapter: EndpointsAdapter;

  constructor(opts: KubernetesServiceControllerOptions) {
    this.#opts = opts;
    this.#adapter = new EndpointsAdapter({
      endpoints: opts.client<Endpoints>('', 'endpoints'),
      endpointSlices: opts.client<EndpointSlice>('discovery.k8s.io', 'endpointslices'),
      serviceNamespace: 'default',
      serviceName: 'kubernetes',
      clock: opts.clock,
      random: opts.random ?? Math.random,
    });
  }

  /**
   * UpdateKubernetesService: the Service made if missing (and with
   * `reconcile`, its ports set), then the endpoints reconciled.
   */
  async updateKubernetesService(reconcile: boolean): Promise<void> {
    ensureKubernetesService(this.#opts.registry, this.#opts.port, reconcile);
    await this.reconcileEndpoints(reconcile);
  }

  /**
   * The lease reconciler's ReconcileEndpoints for a cluster of one API
   * server: the leases it lists (its own, just refreshed) are this
   * server's address alone.
   */
  async reconcileEndpoints(reconcilePorts: boolean): Promise<void> {
    const ip = this.#opts.publicIP ?? apiServerAdvertiseAddress;
    await this.#adapter.sync([ip], endpointPorts(this.#opts.port), reconcilePorts);
  }

  /**
   * Syncs every 10 s until `signal` aborts (the first sync is the caller's,
   * `updateKubernetesService(true)` at start); resolves once stopped. A
   * failed sync is logged and tried again on the next tick.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.#opts;
    while (!signal.aborted) {
      await clock.sleep(endpointInterval, signal);
      if (signal.aborted) break;
      try {
        // Service definition is left alone after the first pass.
        await this.updateKubernetesService(false);
      } catch (err) {
        logger?.error(err, 'unable to sync kubernetes service');
      }
    }
  }
}

/** createEndpointPortSpec: one TCP port named `https`. */
function endpointPorts(port: number): EndpointPort[] {
  return [{ name: 'https', port, protocol: 'TCP' }];
}
