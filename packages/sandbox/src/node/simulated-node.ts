// A simulated node: the Node object a kubelet registers (pkg/kubelet/
// kubelet_node_status.go, initialNode, updateDefaultLabels and
// setNodeStatus) with what kind's kubeadm adds to it, its heartbeat Lease
// (node-lease.ts), the status it reports again every 5 minutes, and the
// kubelet that runs its pods. The fault lab can stop the kubelet
// (stopKubelet): no more status, Lease renewals or pod syncs until it
// starts again.
import {
  formatTime,
  isAlreadyExists,
  type Clock,
  type KubeObject,
  type Logger,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { Node, NodeCondition, Taint } from 'kubernetes-types/core/v1.js';
import type { ContainerLogs } from './container-logs.js';
import type { EventRecorder } from './events.js';
import { SimulatedKubelet, networkNotReadyMessage } from './kubelet.js';
import { NodeLease } from './node-lease.js';
import { PodIPAllocator } from './pod-ips.js';

/**
 * How often the kubelet looks at its node's status (nodeStatusUpdateFrequency,
 * 10 s) and how often it writes it when nothing changed
 * (nodeStatusReportFrequency, 5 min: the Lease is the heartbeat).
 */
const nodeStatusUpdateFrequency = 10_000;
const nodeStatusReportFrequency = 5 * 60_000;

/** The label and taint kubeadm puts on a control-plane node. */
export const controlPlaneLabel = 'node-role.kubernetes.io/control-plane';

/** Options of {@link SimulatedNode}. */
export interface SimulatedNodeOptions {
  name: string;
  /** 1 for the first node: picks its addresses. */
  index: number;
  /**
   * The node kind's kubeadm sets up first: labelled
   * `node-role.kubernetes.io/control-plane` (and excluded from external
   * load balancers), and with `taint` its `NoSchedule` taint too, which
   * kind keeps only when the cluster has workers.
   */
  controlPlane?: { taint: boolean } | undefined;
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
  /**
   * The node's pod CIDR, set when it registers, as a kubelet started with
   * `--pod-cidr` (the sandbox alone gives each node one). Unset: the node
   * registers without one and waits, not Ready, until the controller
   * manager's `node-ipam-controller` writes `spec.podCIDR` (kind's
   * `--allocate-node-cidrs`).
   */
  podCIDR?: string | undefined;
}

/** The labels the kubelet keeps on its node (updateDefaultLabels): hostname, OS and architecture. */
function defaultLabels(name: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
}

/**
 * What each node has, as a kind node reports it (allocatable is capacity:
 * kind reserves nothing): 4 CPUs, 16 GiB of memory, 100 GiB of disk, no
 * huge pages, 110 pods.
 */
export const nodeCapacity: Readonly<Record<string, string>> = {
  cpu: '4',
  'ephemeral-storage': '104857600Ki',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
  memory: '16777216Ki',
  pods: '110',
};

/** The Node object of a simulated node, as a kubelet registers it and kubeadm marks it. */
function nodeObject(opts: SimulatedNodeOptions, now: number): Node {
  const { name, index, kernelVersion, controlPlane } = opts;
  const labels: Record<string, string> = defaultLabels(name);
  const taints: Taint[] = [];
  if (controlPlane !== undefined) {
    labels[controlPlaneLabel] = '';
    labels['node.kubernetes.io/exclude-from-external-load-balancers'] = '';
    if (controlPlane.taint) taints.push({ key: controlPlaneLabel, effect: 'NoSchedule' });
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {
      ...(opts.podCIDR ? { podCIDR: opts.podCIDR, podCIDRs: [opts.podCIDR] } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: {
      capacity: { ...nodeCapacity },
      allocatable: { ...nodeCapacity },
      conditions: nodeConditions(formatTime(now), opts.podCIDR !== undefined),
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

/**
 * A healthy node's conditions (setNodeStatus's condition setters), all as
 * of `time`; not Ready, with the runtime's reason, while its network is not
 * (no pod CIDR yet).
 */
function nodeConditions(time: string, networkReady: boolean): NodeCondition[] {
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
    networkReady
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
      : condition('Ready', 'False', 'KubeletNotReady', networkNotReadyMessage),
  ];
}

/**
 * The conditions to report at `time`: a healthy node's, each keeping the
 * lastTransitionTime it had when its status is the same (setNodeReadyCondition
 * and the other condition setters).
 */
function reportedConditions(
  previous: readonly NodeCondition[],
  time: string,
  networkReady: boolean,
): NodeCondition[] {
  return nodeConditions(time, networkReady).map((c) => {
    const old = previous.find((p) => p.type === c.type);
    return old?.status === c.status && old.lastTransitionTime
      ? { ...c, lastTransitionTime: old.lastTransitionTime }
      : c;
  });
}

/**
 * One node of the sandbox: registers itself, keeps its Lease fresh and its
 * status reported, and runs its pods, until the fault lab stops its kubelet.
 */
export class SimulatedNode {
  readonly name: string;
  readonly #opts: SimulatedNodeOptions;
  readonly #kubelet: SimulatedKubelet;
  readonly #lease: NodeLease;
  readonly #podIPs = new PodIPAllocator();
  #lastReport = -Infinity;
  #stopped = false;

  constructor(opts: SimulatedNodeOptions, signal: AbortSignal) {
    this.name = opts.name;
    this.#opts = opts;
    this.#lease = new NodeLease({ name: opts.name, client: opts.client, clock: opts.clock });
    if (opts.podCIDR) this.#podIPs.setRange(opts.podCIDR);
    this.#kubelet = new SimulatedKubelet(
      {
        nodeName: opts.name,
        client: opts.client,
        clock: opts.clock,
        events: opts.events,
        podIPs: this.#podIPs,
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

  /**
   * Registers the Node (tryRegisterWithAPIServer), or, when it is there
   * already, puts back the kubelet's default labels; then reports its
   * status and creates or renews its Lease.
   */
  async register(): Promise<void> {
    const { client, clock, name } = this.#opts;
    const nodes = client<Node>('', 'nodes');
    const wanted = nodeObject(this.#opts, clock.now());
    let node: Node;
    try {
      node = await nodes.create(wanted);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      node = await nodes.get(name);
      const labels = { ...node.metadata?.labels, ...defaultLabels(name) };
      if (JSON.stringify(labels) !== JSON.stringify({ ...node.metadata?.labels })) {
        node = await nodes.update({ ...node, metadata: { ...node.metadata, labels } });
      }
    }
    this.#learnPodCIDR(node);
    const status = {
      ...wanted.status!,
      conditions: reportedConditions(
        node.status?.conditions ?? [],
        formatTime(clock.now()),
        this.#networkReady,
      ),
    };
    await nodes.updateStatus({ ...node, status });
    this.#lastReport = clock.now();
    await this.#lease.renew();
  }

  /**
   * syncNodeStatus: every 10 s, the status is written when 5 minutes have
   * passed since the last report, with new heartbeat times.
   */
  async #reportStatus(force = false): Promise<void> {
    const { client, clock, name } = this.#opts;
    const now = clock.now();
    if (!force && now - this.#lastReport < nodeStatusReportFrequency) return;
    this.#lastReport = now;
    const nodes = client<Node>('', 'nodes');
    const node = await nodes.get(name);
    this.#learnPodCIDR(node);
    const conditions = reportedConditions(
      node.status?.conditions ?? [],
      formatTime(now),
      this.#networkReady,
    );
    await nodes.patchStatus(name, { type: 'strategic', body: { status: { conditions } } });
  }

  /** Whether pods can get addresses: the node has its pod CIDR. */
  get #networkReady(): boolean {
    return this.#podIPs.range !== '';
  }

  /** Takes pod addresses from the node's `spec.podCIDR` once it has one (kindnet reads it the same way). */
  #learnPodCIDR(node: Node): void {
    const cidr = node.spec?.podCIDR;
    if (!cidr || this.#podIPs.range !== '') return;
    try {
      this.#podIPs.setRange(cidr);
    } catch (err) {
      this.#opts.logger?.error(err, 'Cannot use the node pod CIDR', { node: node.metadata?.name });
    }
  }

  /**
   * Until the node has a pod CIDR, looks every 100 ms and reports Ready as
   * soon as it does: the kubelet's fastStatusUpdateOnce, which polls this
   * often until the node can be Ready.
   */
  #waitForPodCIDR(signal: AbortSignal): void {
    if (this.#networkReady) return;
    const { client, clock, name } = this.#opts;
    const nodes = client<Node>('', 'nodes');
    let busy = false;
    const ticker = clock.newTicker(100, () => {
      if (busy || this.#stopped || signal.aborted) return;
      busy = true;
      void nodes
        .get(name)
        .then(async (node) => {
          this.#learnPodCIDR(node);
          if (!this.#networkReady) return;
          ticker.stop();
          await this.#reportStatus(true);
        })
        .catch(() => {})
        .finally(() => (busy = false));
    });
    signal.addEventListener('abort', () => ticker.stop(), { once: true });
  }

  /** Runs the kubelet, the status reports and the heartbeat until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.#lease.start(signal);
    this.#waitForPodCIDR(signal);
    const ticker = this.#opts.clock.newTicker(nodeStatusUpdateFrequency, () => {
      if (!this.#stopped) void this.#reportStatus().catch(() => {});
    });
    signal.addEventListener('abort', () => ticker.stop(), { once: true });
    await this.#kubelet.run(signal);
  }

  /** Whether the fault lab has stopped the kubelet. */
  get kubeletStopped(): boolean {
    return this.#stopped;
  }

  /**
   * Stops the kubelet, as `systemctl stop kubelet` on the node would: no
   * more status reports, Lease renewals or pod syncs. What follows (the
   * node NotReady, its taints, evictions) is the node lifecycle
   * controller's doing.
   */
  stopKubelet(): void {
    this.#stopped = true;
    this.#lease.pause();
    this.#kubelet.pause();
  }

  /**
   * Starts the kubelet again: it reports the node's status (Ready, new
   * heartbeats) and renews its Lease at once, then syncs every pod.
   * Resolves once the status and the Lease are written.
   */
  async startKubelet(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#lease.resume();
    this.#kubelet.resume();
    await this.#reportStatus(true);
    await this.#lease.renew();
  }
}
