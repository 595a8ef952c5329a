// A simulated node: the Node object a kubelet registers (pkg/kubelet/
// kubelet_node_status.go, initialNode and setNodeStatus), its heartbeat Lease
// (node-lease.ts), and the kubelet that runs its pods.
import {
  formatTime,
  isAlreadyExists,
  type Clock,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Node, NodeCondition } from 'kubernetes-types/core/v1.js';
import type { ContainerLogs } from './container-logs.js';
import type { EventRecorder } from './events.js';
import { SimulatedKubelet } from './kubelet.js';
import { NodeLease } from './node-lease.js';

/** Options of {@link SimulatedNode}. */
export interface SimulatedNodeOptions {
  name: string;
  /** 1 for the first node: picks its addresses. */
  index: number;
  client: <T extends KubeObject>(group: string, resource: string) => ResourceClient<T>;
  clock: Clock;
  events: EventRecorder;
  podStartDelay: number;
  podReadyDelay: number;
  podStopDelay: number;
  logs: ContainerLogs;
  /** Where the kubelet reports failed pod syncs. */
  logger?: Logger | undefined;
  /**
   * What the Node reports as `status.nodeInfo.kernelVersion`. A fact about
   * the host, which the edge reads, so that the node itself needs no
   * `process` and can run in a browser page.
   */
  kernelVersion: string;
}

/** The Node object of a simulated node, as a kubelet registers and reports it. */
function nodeObject(name: string, index: number, kernelVersion: string, now: number): Node {
  const capacity = { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'amd64',
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: `10.244.${index}.0/24`, podCIDRs: [`10.244.${index}.0/24`] },
    status: {
      capacity,
      allocatable: capacity,
      conditions: nodeConditions(formatTime(now)),
      addresses: [
        { type: 'InternalIP', address: `172.18.0.${index + 1}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: name,
        systemUUID: name,
        bootID: name,
        kernelVersion,
        osImage: 'kcm-ts sandbox',
        containerRuntimeVersion: 'sandbox://1.0.0',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: 'v1.32.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** A healthy node's conditions (setNodeStatus's condition setters), all as of `time`. */
function nodeConditions(time: string): NodeCondition[] {
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
    reason,
    message,
  });
  return [
    condition(
      'MemoryPressure',
      'False',
      'KubeletHasSufficientMemory',
      'kubelet has sufficient memory available',
    ),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition(
      'PIDPressure',
      'False',
      'KubeletHasSufficientPID',
      'kubelet has sufficient PID available',
    ),
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** One node of the sandbox: registers itself, keeps its Lease fresh, and runs its pods. */
export class SimulatedNode {
  readonly name: string;
  readonly #opts: SimulatedNodeOptions;
  readonly #kubelet: SimulatedKubelet;
  readonly #lease: NodeLease;

  constructor(opts: SimulatedNodeOptions, signal: AbortSignal) {
    this.name = opts.name;
    this.#opts = opts;
    this.#lease = new NodeLease({ name: opts.name, client: opts.client, clock: opts.clock });
    this.#kubelet = new SimulatedKubelet(
      {
        nodeName: opts.name,
        client: opts.client,
        clock: opts.clock,
        events: opts.events,
        podSubnet: `10.244.${opts.index}`,
        hostIP: `172.18.0.${opts.index + 1}`,
        podStartDelay: opts.podStartDelay,
        podReadyDelay: opts.podReadyDelay,
        podStopDelay: opts.podStopDelay,
        logs: opts.logs,
        logger: opts.logger,
      },
      signal,
    );
  }

  /** Registers the Node (or reports on the one already there) and its Lease. */
  async register(): Promise<void> {
    const { client, clock, name, index, kernelVersion } = this.#opts;
    const nodes = client<Node>('', 'nodes');
    const wanted = nodeObject(name, index, kernelVersion, clock.now());
    let node: Node;
    try {
      node = await nodes.create(wanted);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      node = await nodes.get(name);
    }
    await nodes.updateStatus({ ...node, status: wanted.status! });
    await this.#lease.renew();
  }

  /** Runs the kubelet and the heartbeat until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.#lease.start(signal);
    await this.#kubelet.run(signal);
  }
}
