// NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity/
// node_affinity.go) with the matching of k8s.io/component-helpers/
// scheduling/corev1/nodeaffinity: the pod's `nodeSelector` and its required
// node affinity must both match the node; its preferred terms add their
// weights to the node's score.
//
// A node selector term ANDs its `matchExpressions` (on labels: In, NotIn,
// Exists, DoesNotExist, Gt, Lt) and its `matchFields` (only `metadata.name`,
// In or NotIn one value, as DaemonSet pods use); the terms are ORed; a term
// with neither matches nothing, and a term that does not parse is skipped.
// PreFilter narrows the nodes to those a `metadata.name In` names.
import {
  everything,
  newRequirement,
  selectorFromSet,
  type SelectionOperator,
  type Selector,
} from '@kcm-ts/apimachinery';
import type { Node, NodeSelectorRequirement, NodeSelectorTerm } from 'kubernetes-types/core/v1.js';
import {
  defaultNormalizeScore,
  maxNodeScore,
  newStatus,
  type FilterPlugin,
  type ScorePlugin,
} from '../framework.js';

export const name = 'NodeAffinity';

/** ErrReasonPod. */
export const errReasonPod = "node(s) didn't match Pod's node affinity/selector";
/** errReasonConflict. */
export const errReasonConflict = 'pod affinity terms conflict';

const operators: Readonly<Record<string, SelectionOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

/** A parsed term: its label selector and name requirements, or undefined when it does not parse. */
interface ParsedTerm {
  labels?: Selector;
  names?: { op: 'In' | 'NotIn'; value: string }[];
}

function parseLabels(exprs: readonly NodeSelectorRequirement[]): Selector | undefined {
  let selector = everything();
  for (const e of exprs) {
    const op = operators[e.operator];
    if (op === undefined) return undefined;
    try {
      selector = selector.add(newRequirement(e.key, op, e.values ?? []));
    } catch {
      return undefined;
    }
  }
  return selector;
}

function parseFields(
  exprs: readonly NodeSelectorRequirement[],
): { op: 'In' | 'NotIn'; value: string }[] | undefined {
  const out: { op: 'In' | 'NotIn'; value: string }[] = [];
  for (const e of exprs) {
    if (e.key !== 'metadata.name' || e.values?.length !== 1) return undefined;
    if (e.operator !== 'In' && e.operator !== 'NotIn') return undefined;
    out.push({ op: e.operator, value: e.values[0]! });
  }
  return out;
}

function parseTerm(term: NodeSelectorTerm): ParsedTerm | undefined {
  const parsed: ParsedTerm = {};
  if ((term.matchExpressions ?? []).length > 0) {
    parsed.labels = parseLabels(term.matchExpressions!);
    if (parsed.labels === undefined) return undefined;
  }
  if ((term.matchFields ?? []).length > 0) {
    parsed.names = parseFields(term.matchFields!);
    if (parsed.names === undefined) return undefined;
  }
  return parsed;
}

function termMatches(t: ParsedTerm | undefined, node: Node): boolean {
  if (t === undefined || (t.labels === undefined && t.names === undefined)) return false;
  if (t.labels !== undefined && !t.labels.matches(node.metadata?.labels ?? {})) return false;
  const nodeName = node.metadata?.name ?? '';
  if (t.names !== undefined && nodeName !== '') {
    for (const f of t.names) if ((nodeName === f.value) !== (f.op === 'In')) return false;
  }
  return true;
}

/**
 * Whether `terms` (a NodeSelector's, ORed) match `node`: Go's
 * NodeSelector.Match. Also what a PersistentVolume's node affinity needs.
 */
export function nodeSelectorMatches(terms: readonly NodeSelectorTerm[], node: Node): boolean {
  return terms.some((t) => termMatches(parseTerm(t), node));
}

/** GetRequiredNodeAffinity(pod).Match: the pod's nodeSelector and required node affinity. */
function requiredMatcher(
  nodeSelector: Record<string, string> | undefined,
  terms: readonly NodeSelectorTerm[] | undefined,
): (node: Node) => boolean {
  const selector = selectorFromSet(nodeSelector);
  const parsed = terms?.map(parseTerm);
  return (node) => {
    if (!selector.matches(node.metadata?.labels ?? {})) return false;
    return parsed === undefined || parsed.some((t) => termMatches(t, node));
  };
}

/** The node names a `metadata.name In` pins the pod to, ORed over terms; undefined: any node. */
function pinnedNodeNames(terms: readonly NodeSelectorTerm[]): Set<string> | undefined {
  let names: Set<string> | undefined;
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      const s = new Set(r.values ?? []);
      termNames = termNames === undefined ? s : new Set([...termNames].filter((n) => s.has(n)));
    }
    // A term without such a requirement lets every node in: the terms are ORed.
    if (termNames === undefined) return undefined;
    names = new Set([...(names ?? []), ...termNames]);
  }
  return names;
}

export const nodeAffinityFilter: FilterPlugin = {
  name,
  preFilter(p) {
    const required =
      p.pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    const nodeSelector = p.pod.spec?.nodeSelector;
    if (required === undefined && nodeSelector === undefined) return {};
    const matches = requiredMatcher(nodeSelector, required?.nodeSelectorTerms);
    const filter = (node: { node: Node | undefined }) =>
      node.node !== undefined && matches(node.node)
        ? undefined
        : newStatus('UnschedulableAndUnresolvable', errReasonPod);
    const terms = required?.nodeSelectorTerms ?? [];
    if (terms.length === 0) return { filter };
    const nodeNames = pinnedNodeNames(terms);
    if (nodeNames !== undefined && nodeNames.size === 0) {
      return { status: newStatus('UnschedulableAndUnresolvable', errReasonConflict) };
    }
    return nodeNames === undefined ? { filter } : { filter, nodeNames };
  },
};

export const nodeAffinityScore: ScorePlugin = {
  name,
  weight: 2,
  preScore(p) {
    const preferred =
      p.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    if (preferred === undefined) return undefined;
    const terms = preferred
      .filter((t) => t.weight !== 0)
      .map((t) => ({ weight: t.weight, term: parseTerm(t.preference) }));
    return (node) =>
      node.node === undefined
        ? 0
        : terms.reduce((sum, t) => sum + (termMatches(t.term, node.node!) ? t.weight : 0), 0);
  },
  normalize: (scores) => defaultNormalizeScore(maxNodeScore, false, scores),
};
