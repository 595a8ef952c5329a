// A node's heartbeat: the Lease in kube-node-lease that its kubelet keeps
// renewing, which the node lifecycle controller reads to tell a live node
// from a dead one. The kubelet's node lease controller
// (staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go,
// started by pkg/kubelet/kubelet.go; kwok's node lease controller does
// the same for its fake nodes): renew every 10 s a Lease of 40 s,
// creating it when it is missing.
import { formatMicroTime, isNotFound } from '@kcm-ts/apimachinery';
import type { Clock, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import type { Lease } from 'kubernetes-types/coordination/v1.js';

/** How often the kubelet renews its node Lease, and how long the Lease lasts: 10 s and 40 s. */
const leaseRenewInterval = 10_000;
const nodeLeaseDurationSeconds = 40;

/** The namespace of node Leases. */
const nodeLeaseNamespace = 'kube-node-lease';

/** Options of {@link NodeLease}. */
export interface NodeLeaseOptions {
  /** The node's name, which is also its Lease's name and holder. */
  name: string;
  client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  clock: Clock;
}

/** The Lease one node holds, renewed on a ticker. */
export class NodeLease {
  readonly #opts: NodeLeaseOptions;
  #paused = false;

  constructor(opts: NodeLeaseOptions) {
    this.#opts = opts;
  }

  /** Renews the Lease every 10 s until `signal` aborts; a failed renewal waits for the next tick. */
  start(signal: AbortSignal): void {
    const ticker = this.#opts.clock.newTicker(leaseRenewInterval, () => {
      if (!this.#paused) void this.renew().catch(() => {});
    });
    signal.addEventListener('abort', () => ticker.stop(), { once: true });
  }

  /** Stops renewing (the ticks pass without a renewal), as a stopped kubelet does. */
  pause(): void {
    this.#paused = true;
  }

  /** Renews on the ticks again. */
  resume(): void {
    this.#paused = false;
  }

  /** Creates the Lease, or renews the one already there. */
  async renew(): Promise<void> {
    const { client, clock, name } = this.#opts;
    const leases = client<Lease>('coordination.k8s.io', 'leases').inNamespace(nodeLeaseNamespace);
    const renewTime = formatMicroTime(clock.now());
    let lease: Lease;
    try {
      lease = await leases.get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await leases.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: nodeLeaseNamespace },
        spec: { holderIdentity: name, leaseDurationSeconds: nodeLeaseDurationSeconds, renewTime },
      });
      return;
    }
    await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: name, renewTime } });
  }
}
