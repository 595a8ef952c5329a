// One scheduling decision, as kube-scheduler's default profile makes it
// (pkg/scheduler/schedule_one.go: schedulePod, findNodesThatFitPod,
// prioritizeNodes, selectHost; framework/runtime/framework.go: the
// extension points). Synchronous and pure: it reads the NodeInfos it is
// given and decides; the scheduler (scheduler.ts) binds or reports.
//
// The default plugins, in the default profile's order, as far as the
// sandbox has what they look at:
//
// | plugin | filters | scores (weight) |
// |---|---|---|
// | NodeUnschedulable | cordoned nodes | |
// | TaintToleration | NoSchedule and NoExecute taints | untolerated PreferNoSchedule taints (3) |
// | NodeAffinity | nodeSelector and required node affinity | preferred node affinity (2) |
// | NodePorts | host ports in use | |
// | NodeResourcesFit | requests against allocatable, pod count | LeastAllocated on CPU and memory (1) |
// | VolumeBinding | unbound immediate claims (PreFilter, through a hook) | |
// | InterPodAffinity | required pod affinity and anti-affinity | |
// | DefaultPreemption | (PostFilter: the message; no preemption) | |
//
// Not there: NodeName (a pod with a node name is never scheduled),
// VolumeRestrictions, NodeVolumeLimits, VolumeZone, PodTopologySpread,
// NodeResourcesBalancedAllocation, ImageLocality, preferred pod affinity.
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FitError,
  isRejected,
  newPodInfo,
  newStatus,
  statusMessage,
  type Diagnosis,
  type FilterPlugin,
  type NodeInfo,
  type ScorePlugin,
  type Status,
} from './framework.js';
import { preemptionMessage } from './plugins/default-preemption.js';
import { interPodAffinity } from './plugins/inter-pod-affinity.js';
import { nodeAffinityFilter, nodeAffinityScore } from './plugins/node-affinity.js';
import { nodePorts } from './plugins/node-ports.js';
import { nodeResourcesFitFilter, nodeResourcesFitScore } from './plugins/node-resources-fit.js';
import { nodeUnschedulable } from './plugins/node-unschedulable.js';
import { taintTolerationFilter, taintTolerationScore } from './plugins/taint-toleration.js';
import { volumeBindingPlugin, type VolumeBinding } from './plugins/volume-binding.js';

/** ErrNoNodesAvailable. */
export const errNoNodesAvailable = 'no nodes available to schedule pods';

/** The plugins of a profile, in the order they run. */
export interface Profile {
  readonly filters: readonly FilterPlugin[];
  readonly scores: readonly ScorePlugin[];
}

/** The default profile's plugins that the sandbox has; `volumes` answers for VolumeBinding. */
export function defaultProfile(volumes?: VolumeBinding): Profile {
  return {
    filters: [
      nodeUnschedulable,
      taintTolerationFilter,
      nodeAffinityFilter,
      nodePorts,
      nodeResourcesFitFilter,
      volumeBindingPlugin(volumes),
      interPodAffinity,
    ],
    scores: [taintTolerationScore, nodeAffinityScore, nodeResourcesFitScore],
  };
}

/** A node and its total score (Go's NodePluginScores), with each plugin's part. */
export interface NodeScore {
  readonly name: string;
  readonly total: number;
  readonly byPlugin: Readonly<Record<string, number>>;
}

/** What one scheduling cycle decided. */
export type ScheduleResult =
  /** The node to bind to; `scores` when there was more than one to choose from. */
  | { readonly node: string; readonly feasible: number; readonly scores?: readonly NodeScore[] }
  /** No node fits: the FitError, its message with the preemption's. */
  | { readonly fitError: FitError }
  /** The scheduler could not decide (no nodes, or a plugin's error): Go's other errors. */
  | { readonly error: string; readonly code: 'Error' | 'UnschedulableAndUnresolvable' };

/** Options of {@link schedulePod}. */
export interface ScheduleOptions {
  readonly profile: Profile;
  /**
   * Breaks ties between the best nodes as selectHost does (reservoir
   * sampling), from numbers in [0, 1). Without it the first of them wins,
   * in the order of `nodes`.
   */
  readonly random?: () => number;
}

/**
 * schedulePod and the PostFilter: filters `nodes` (those with a Node), then
 * scores the ones that fit and picks the best; when none fits, the
 * FitError with the preemption's message.
 */
export function schedulePod(
  pod: Pod,
  nodes: readonly NodeInfo[],
  opts: ScheduleOptions,
): ScheduleResult {
  const all = nodes.filter((n) => n.node !== undefined);
  if (all.length === 0) return { error: errNoNodesAvailable, code: 'UnschedulableAndUnresolvable' };
  const podInfo = newPodInfo(pod);
  const found = findNodesThatFitPod(podInfo, all, opts.profile);
  if ('error' in found) return found;
  const { feasible, diagnosis } = found;
  if (feasible.length === 0) {
    const fitError = new FitError(pod, all.length, diagnosis);
    diagnosis.postFilterMsg = preemptionMessage(pod, all.length, diagnosis);
    return { fitError };
  }
  if (feasible.length === 1) return { node: feasible[0]!.name, feasible: 1 };
  const scores = prioritizeNodes(podInfo, feasible, all, opts.profile.scores);
  return { node: selectHost(scores, opts.random), feasible: feasible.length, scores };
}

type Found = { feasible: NodeInfo[]; diagnosis: Diagnosis } | { error: string; code: 'Error' };

/**
 * findNodesThatFitPod: the PreFilters (a rejection there rejects every
 * node; a PreFilterResult leaves the other nodes out), then each node
 * through the Filters in order, stopping at the first that rejects it.
 */
function findNodesThatFitPod(
  p: ReturnType<typeof newPodInfo>,
  nodes: readonly NodeInfo[],
  profile: Profile,
): Found {
  const filters: { name: string; filter: (n: NodeInfo) => Status | undefined }[] = [];
  let nodeNames: Set<string> | undefined;
  const narrowing = new Set<string>();
  let rejected: Status | undefined;
  for (const plugin of profile.filters) {
    const out = plugin.preFilter(p, nodes);
    if (out.status !== undefined && out.status.code !== 'Success') {
      const s: Status = { ...out.status, plugin: plugin.name };
      if (s.code === 'Error') {
        return {
          error: `running PreFilter plugin "${plugin.name}": ${statusMessage(s)}`,
          code: 'Error',
        };
      }
      if (s.code === 'UnschedulableAndUnresolvable') {
        rejected = s;
        break;
      }
      rejected = s; // Unschedulable: the other PreFilters still run
      continue;
    }
    if (out.nodeNames !== undefined) {
      narrowing.add(plugin.name);
      nodeNames =
        nodeNames === undefined
          ? new Set(out.nodeNames)
          : new Set([...nodeNames].filter((n) => out.nodeNames!.has(n)));
      if (nodeNames.size === 0) {
        const names = [...narrowing].sort();
        const msg =
          names.length === 1
            ? `node(s) didn't satisfy plugin ${names[0]}`
            : `node(s) didn't satisfy plugin(s) [${names.join(' ')}] simultaneously`;
        rejected = { ...newStatus('UnschedulableAndUnresolvable', msg), plugin: plugin.name };
        break;
      }
    }
    if (out.filter !== undefined) filters.push({ name: plugin.name, filter: out.filter });
  }
  const nodeToStatus = new Map<string, Status>();
  const unschedulablePlugins = new Set<string>(narrowing);
  if (rejected !== undefined) {
    if (rejected.plugin !== undefined) unschedulablePlugins.add(rejected.plugin);
    return {
      feasible: [],
      diagnosis: {
        nodeToStatus,
        absentNodesStatus: rejected,
        unschedulablePlugins,
        preFilterMsg: statusMessage(rejected),
        postFilterMsg: '',
      },
    };
  }
  let candidates = nodes;
  let absentNodesStatus = newStatus('UnschedulableAndUnresolvable');
  if (nodeNames !== undefined) {
    candidates = nodes.filter((n) => nodeNames.has(n.name));
    absentNodesStatus = newStatus(
      'UnschedulableAndUnresolvable',
      `node(s) didn't satisfy plugin(s) [${[...narrowing].sort().join(' ')}]`,
    );
  }
  const feasible: NodeInfo[] = [];
  for (const node of candidates) {
    let status: Status | undefined;
    for (const f of filters) {
      const s = f.filter(node);
      if (s !== undefined && s.code !== 'Success') {
        status = { ...s, plugin: f.name };
        break;
      }
    }
    if (status === undefined) feasible.push(node);
    else {
      nodeToStatus.set(node.name, status);
      if (isRejected(status) && status.plugin !== undefined)
        unschedulablePlugins.add(status.plugin);
    }
  }
  return {
    feasible,
    diagnosis: {
      nodeToStatus,
      absentNodesStatus,
      unschedulablePlugins,
      preFilterMsg: '',
      postFilterMsg: '',
    },
  };
}

/**
 * prioritizeNodes: each score plugin's PreScore and Score on the feasible
 * nodes, normalized, times its weight, summed per node.
 */
function prioritizeNodes(
  p: ReturnType<typeof newPodInfo>,
  feasible: readonly NodeInfo[],
  all: readonly NodeInfo[],
  plugins: readonly ScorePlugin[],
): NodeScore[] {
  const totals = feasible.map(() => 0);
  const parts = feasible.map((): Record<string, number> => ({}));
  for (const plugin of plugins) {
    const score = plugin.preScore(p, all);
    if (score === undefined) continue; // Skip
    const raw = feasible.map((n) => score(n));
    const normalized = plugin.normalize?.(raw) ?? raw;
    normalized.forEach((s, i) => {
      totals[i]! += s * plugin.weight;
      parts[i]![plugin.name] = s * plugin.weight;
    });
  }
  return feasible.map((n, i) => ({ name: n.name, total: totals[i]!, byPlugin: parts[i]! }));
}

/**
 * selectHost: the node with the highest total; among equals, one picked
 * by reservoir sampling with `random`, or the first without it.
 */
export function selectHost(scores: readonly NodeScore[], random?: () => number): string {
  let selected = scores[0]!;
  let ties = 1;
  for (const s of scores.slice(1)) {
    if (s.total > selected.total) {
      selected = s;
      ties = 1;
    } else if (s.total === selected.total) {
      ties++;
      if (random !== undefined && Math.floor(random() * ties) === 0) selected = s;
    }
  }
  return selected.name;
}
