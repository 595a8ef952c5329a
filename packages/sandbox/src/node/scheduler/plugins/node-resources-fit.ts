// NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go,
// least_allocated.go, resource_allocation.go). Filter: the pod's requests
// must fit in what the node can allocate less what its pods request, and
// the node must have room for one more pod; a request larger than the
// whole node is one preemption cannot help. Score (the default
// LeastAllocated strategy, CPU and memory weighted 1 each): the more of the
// node stays free with the pod on it, the better, counting a container
// that requests nothing as asking for 100m CPU and 200 MiB.
import {
  maxNodeScore,
  newStatus,
  type Code,
  type FilterPlugin,
  type NodeInfo,
  type PodInfo,
  type ScorePlugin,
} from '../framework.js';

export const name = 'NodeResourcesFit';

/** One resource the node is short of (Go's InsufficientResource). */
export interface InsufficientResource {
  readonly resourceName: string;
  readonly reason: string;
  readonly requested: number;
  readonly used: number;
  readonly capacity: number;
  /** The request is more than the node has at all: freeing the node would not help. */
  readonly unresolvable: boolean;
}

/** fitsRequest: what the node lacks for the pod, in Go's order (pods, cpu, memory, ephemeral-storage, the rest). */
export function insufficientResources(p: PodInfo, node: NodeInfo): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  const alloc = node.allocatable;
  const used = node.requested;
  if (node.pods.size + 1 > alloc.allowedPodNumber) {
    out.push({
      resourceName: 'pods',
      reason: 'Too many pods',
      requested: 1,
      used: node.pods.size,
      capacity: alloc.allowedPodNumber,
      unresolvable: false,
    });
  }
  const r = p.requests;
  if (r.milliCPU === 0 && r.memory === 0 && r.ephemeralStorage === 0 && r.scalar.size === 0) {
    return out;
  }
  const check = (resourceName: string, want: number, capacity: number, inUse: number): void => {
    if (want > 0 && want > capacity - inUse) {
      out.push({
        resourceName,
        reason: `Insufficient ${resourceName}`,
        requested: want,
        used: inUse,
        capacity,
        unresolvable: want > capacity,
      });
    }
  };
  check('cpu', r.milliCPU, alloc.milliCPU, used.milliCPU);
  check('memory', r.memory, alloc.memory, used.memory);
  check('ephemeral-storage', r.ephemeralStorage, alloc.ephemeralStorage, used.ephemeralStorage);
  for (const [resourceName, want] of r.scalar) {
    if (want === 0) continue;
    check(
      resourceName,
      want,
      alloc.scalar.get(resourceName) ?? 0,
      used.scalar.get(resourceName) ?? 0,
    );
  }
  return out;
}

export const nodeResourcesFitFilter: FilterPlugin = {
  name,
  preFilter: (p) => ({
    filter(node) {
      const missing = insufficientResources(p, node);
      if (missing.length === 0) return undefined;
      const code: Code = missing.some((m) => m.unresolvable)
        ? 'UnschedulableAndUnresolvable'
        : 'Unschedulable';
      return newStatus(code, ...missing.map((m) => m.reason));
    },
  }),
};

/** leastRequestedScore: the share of `capacity` left free, 0..100, rounded down. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * maxNodeScore) / capacity);
}

/**
 * The LeastAllocated score of `node` for `p`: the mean over CPU and memory
 * (weights 1 and 1) of the share left free, with the non-zero defaults; a
 * resource the node has none of is left out.
 */
export function leastAllocatedScore(p: PodInfo, node: NodeInfo): number {
  const resources = [
    {
      requested: node.nonZeroRequested.milliCPU + p.nonZeroRequests.milliCPU,
      allocatable: node.allocatable.milliCPU,
    },
    {
      requested: node.nonZeroRequested.memory + p.nonZeroRequests.memory,
      allocatable: node.allocatable.memory,
    },
  ];
  let score = 0;
  let weights = 0;
  for (const r of resources) {
    if (r.allocatable === 0) continue;
    score += leastRequestedScore(r.requested, r.allocatable);
    weights += 1;
  }
  return weights === 0 ? 0 : Math.trunc(score / weights);
}

export const nodeResourcesFitScore: ScorePlugin = {
  name,
  weight: 1,
  preScore: (p) => (node) => leastAllocatedScore(p, node),
};
