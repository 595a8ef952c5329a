// The scheduling framework's types, as far as the sandbox's scheduler uses
// them: the Status a plugin returns (staging/src/k8s.io/kube-scheduler/
// framework/interface.go), NodeInfo and PodInfo with the resources, ports
// and affinity terms the plugins read, and FitError, whose message is the
// FailedScheduling event's (pkg/scheduler/framework/types.go).
import type { Node, Pod, PodAffinityTerm } from 'kubernetes-types/core/v1.js';
import {
  addAmounts,
  emptyResource,
  nonZeroDefaults,
  podRequests,
  resourceAmounts,
  resourceOf,
  type Resource,
} from './resource.js';

/**
 * What a plugin says about a pod (and a node): Go's status codes. A
 * rejection is `Unschedulable` when preempting other pods might help, and
 * `UnschedulableAndUnresolvable` when it cannot; `Error` is the scheduler's
 * own failure; `Skip` is a PreFilter's "nothing to check".
 */
export type Code = 'Success' | 'Error' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Skip';

/** A plugin's verdict with its reasons, which the FailedScheduling message counts. */
export interface Status {
  readonly code: Code;
  readonly reasons: readonly string[];
  /** The plugin that returned it. */
  readonly plugin?: string;
}

export function newStatus(code: Code, ...reasons: string[]): Status {
  return { code, reasons };
}

/** Status.Message: the reasons, joined. */
export function statusMessage(s: Status | undefined): string {
  return s?.reasons.join(', ') ?? '';
}

/** Status.IsRejected. */
export const isRejected = (s: Status | undefined): boolean =>
  s?.code === 'Unschedulable' || s?.code === 'UnschedulableAndUnresolvable';

/** A host port a pod's container asks for, defaulted: IP 0.0.0.0 and protocol TCP when unset. */
export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

/** The address that means every address: a port bound on it conflicts with the same port on any IP. */
export const defaultBindAllHostIP = '0.0.0.0';

/**
 * The host ports in use on a node (Go's HostPortInfo): IP → protocol/port →
 * how many pods use it.
 */
export class HostPortInfo {
  readonly #byIP = new Map<string, Map<string, number>>();

  add(p: HostPort, delta: 1 | -1): void {
    const ports = this.#byIP.get(p.ip) ?? new Map<string, number>();
    const key = `${p.protocol}/${p.port}`;
    const n = (ports.get(key) ?? 0) + delta;
    if (n > 0) ports.set(key, n);
    else ports.delete(key);
    if (ports.size > 0) this.#byIP.set(p.ip, ports);
    else this.#byIP.delete(p.ip);
  }

  /**
   * CheckConflict: a port on 0.0.0.0 conflicts with that protocol and port
   * on any IP; a port on another IP with it on that IP or on 0.0.0.0.
   */
  conflicts(p: HostPort): boolean {
    if (p.port <= 0) return false;
    const key = `${p.protocol}/${p.port}`;
    if (p.ip === defaultBindAllHostIP) {
      for (const ports of this.#byIP.values()) if (ports.has(key)) return true;
      return false;
    }
    return [defaultBindAllHostIP, p.ip].some((ip) => this.#byIP.get(ip)?.has(key) === true);
  }
}

/**
 * GetHostPorts: the host ports of the pod's containers and sidecars (init
 * containers that run as long as the pod), defaulted.
 */
export function hostPorts(pod: Pod): HostPort[] {
  const containers = [
    ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'),
    ...(pod.spec?.containers ?? []),
  ];
  return containers.flatMap((c) =>
    (c.ports ?? [])
      .filter((p) => (p.hostPort ?? 0) > 0)
      .map((p) => ({
        ip: p.hostIP || defaultBindAllHostIP,
        protocol: p.protocol || 'TCP',
        port: p.hostPort!,
      })),
  );
}

/**
 * A pod as the scheduler keeps it (Go's PodInfo): its requests (plain, and
 * with the scheduler's non-zero defaults for scoring), host ports and
 * required pod (anti-)affinity terms, computed once.
 */
export interface PodInfo {
  readonly pod: Pod;
  /** The cache's key for it: its uid, or namespace/name for a pod without one. */
  readonly uid: string;
  readonly requests: Resource;
  /** CPU and memory requests with 100m and 200 MiB for containers that name none. */
  readonly nonZeroRequests: { readonly milliCPU: number; readonly memory: number };
  readonly ports: readonly HostPort[];
  readonly requiredAffinityTerms: readonly PodAffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly PodAffinityTerm[];
}

export function newPodInfo(pod: Pod): PodInfo {
  const meta = pod.metadata ?? {};
  const nonZero = podRequests(pod, nonZeroDefaults);
  return {
    pod,
    uid: meta.uid || `${meta.namespace ?? ''}/${meta.name ?? ''}`,
    requests: resourceOf(podRequests(pod)),
    nonZeroRequests: { milliCPU: nonZero.get('cpu') ?? 0, memory: nonZero.get('memory') ?? 0 },
    ports: hostPorts(pod),
    requiredAffinityTerms:
      pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
    requiredAntiAffinityTerms:
      pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
  };
}

/**
 * A node with the pods on it (Go's NodeInfo): what they request in all
 * (plainly, and with the non-zero defaults), the host ports they hold, and
 * the node's allocatable resources. Kept up to date pod by pod.
 */
export class NodeInfo {
  #node: Node | undefined;
  readonly pods = new Map<string, PodInfo>();
  readonly requested: Resource = emptyResource();
  readonly nonZeroRequested = { milliCPU: 0, memory: 0 };
  readonly usedPorts = new HostPortInfo();
  /** How many of its pods have required anti-affinity (Go's PodsWithRequiredAntiAffinity, as a count). */
  podsWithRequiredAntiAffinity = 0;
  allocatable: Resource = emptyResource();

  constructor(node?: Node) {
    if (node !== undefined) this.setNode(node);
  }

  /** The Node; undefined while only pods bound to it are known. */
  get node(): Node | undefined {
    return this.#node;
  }

  get name(): string {
    return this.#node?.metadata?.name ?? '';
  }

  setNode(node: Node | undefined): void {
    this.#node = node;
    const allocatable = emptyResource();
    addAmounts(allocatable, resourceAmounts(node?.status?.allocatable));
    this.allocatable = allocatable;
  }

  addPod(p: PodInfo): void {
    if (this.pods.has(p.uid)) this.removePod(p.uid);
    this.pods.set(p.uid, p);
    this.#count(p, 1);
  }

  removePod(uid: string): void {
    const p = this.pods.get(uid);
    if (p === undefined) return;
    this.pods.delete(uid);
    this.#count(p, -1);
  }

  #count(p: PodInfo, sign: 1 | -1): void {
    const r = this.requested;
    r.milliCPU += sign * p.requests.milliCPU;
    r.memory += sign * p.requests.memory;
    r.ephemeralStorage += sign * p.requests.ephemeralStorage;
    for (const [name, v] of p.requests.scalar) {
      r.scalar.set(name, (r.scalar.get(name) ?? 0) + sign * v);
    }
    this.nonZeroRequested.milliCPU += sign * p.nonZeroRequests.milliCPU;
    this.nonZeroRequested.memory += sign * p.nonZeroRequests.memory;
    for (const port of p.ports) this.usedPorts.add(port, sign);
    if (p.requiredAntiAffinityTerms.length > 0) this.podsWithRequiredAntiAffinity += sign;
  }
}

/**
 * Why a pod fits nowhere, node by node (Go's Diagnosis): the status of each
 * node a filter rejected, the status of the nodes left out before filtering
 * (a PreFilter's rejection, or a PreFilterResult naming other nodes), and
 * the PreFilter and PostFilter messages.
 */
export interface Diagnosis {
  readonly nodeToStatus: ReadonlyMap<string, Status>;
  readonly absentNodesStatus: Status;
  readonly unschedulablePlugins: ReadonlySet<string>;
  readonly preFilterMsg: string;
  postFilterMsg: string;
}

/** NoNodeAvailableMsg. */
const noNodeAvailableMsg = (n: number): string => `0/${n} nodes are available`;

/** Byte order, as Go's sort.Strings. */
const goCompare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * FitError.Error: "0/3 nodes are available: <PreFilter message>." or the
 * reasons counted over the nodes and sorted as strings ("1 node(s) had
 * untolerated taint {...}, 2 Insufficient cpu."), then the PostFilter's
 * message (the preemption's own such message).
 */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `${noNodeAvailableMsg(numAllNodes)}:`;
  if (d.preFilterMsg !== '') {
    msg += ` ${d.preFilterMsg}.`;
  } else {
    const reasons = new Map<string, number>();
    for (const s of d.nodeToStatus.values()) {
      for (const r of s.reasons) reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    const absent = numAllNodes - d.nodeToStatus.size;
    if (absent > 0) {
      for (const r of d.absentNodesStatus.reasons) reasons.set(r, (reasons.get(r) ?? 0) + absent);
    }
    const histogram = [...reasons].map(([r, n]) => `${n} ${r}`).sort(goCompare);
    if (histogram.length > 0) msg += ` ${histogram.join(', ')}.`;
  }
  if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}`;
  return msg;
}

/**
 * A pod that fits on no node: Go's FitError. Its message is the
 * FailedScheduling event's; it reads the diagnosis when asked, so the
 * PostFilter's message, set later, is in it.
 */
export class FitError {
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  get message(): string {
    return fitErrorMessage(this.numAllNodes, this.diagnosis);
  }
}

/**
 * What a plugin's PreFilter makes of a pod, for one scheduling cycle: a
 * rejection before any node is looked at (`status`), the only nodes worth
 * looking at (`nodeNames`, Go's PreFilterResult), and the Filter to run on
 * each node; no `filter` is Go's Skip: nothing to check for this pod.
 */
export interface PreFilterOutcome {
  readonly status?: Status;
  readonly nodeNames?: ReadonlySet<string>;
  readonly filter?: (node: NodeInfo) => Status | undefined;
}

/** A filter plugin: PreFilter, then Filter on each node (Go's PreFilterPlugin and FilterPlugin). */
export interface FilterPlugin {
  readonly name: string;
  /** `nodes`: every node of the cluster, for plugins that count what runs where. */
  preFilter(pod: PodInfo, nodes: readonly NodeInfo[]): PreFilterOutcome;
}

/** The highest score a plugin gives a node (MaxNodeScore). */
export const maxNodeScore = 100;

/**
 * A score plugin: PreScore gives the Score function for this pod (none:
 * Skip), NormalizeScore maps the scores onto 0..100, and the weight
 * multiplies them (the default profile's weights).
 */
export interface ScorePlugin {
  readonly name: string;
  readonly weight: number;
  preScore(pod: PodInfo, nodes: readonly NodeInfo[]): ((node: NodeInfo) => number) | undefined;
  normalize?(scores: number[]): number[];
}

/**
 * DefaultNormalizeScore: scores scaled so the highest is `max` (0 stays
 * 0), and reversed (`max - score`) when a high raw score is bad; all `max`
 * when reversed and every raw score is 0.
 */
export function defaultNormalizeScore(max: number, reverse: boolean, scores: number[]): number[] {
  const highest = Math.max(0, ...scores);
  if (highest === 0) return reverse ? scores.map(() => max) : scores;
  return scores.map((s) => {
    const scaled = Math.trunc((max * s) / highest);
    return reverse ? max - scaled : scaled;
  });
}
