// The scheduling rules the DaemonSet controller shares with kube-scheduler,
// from k8s.io/component-helpers/scheduling/corev1: helpers.go
// (FindMatchingUntoleratedTaint, TolerationsTolerateTaint) and
// nodeaffinity/nodeaffinity.go (GetRequiredNodeAffinity,
// RequiredNodeAffinity.Match, LazyErrorNodeSelector.Match,
// nodeSelectorTerm.match, nodeSelectorRequirementsAsSelector,
// nodeSelectorRequirementsAsFieldSelector, extractNodeFields), with
// k8s.io/api/core/v1's Toleration.ToleratesTaint.
//
// Node selector terms are ORed; within a term `matchExpressions` (on node
// labels) and `matchFields` (on `metadata.name`) are ANDed. A term with
// neither matches nothing, and a term that does not parse matches nothing
// either (the DaemonSet controller ignores the parse error, as upstream).
import {
  everything,
  newRequirement,
  selectorFromSet,
  type SelectionOperator,
  type Selector,
} from '@kcm-ts/apimachinery';
import type {
  Node,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  Taint,
  Toleration,
} from 'kubernetes-types/core/v1.js';

/**
 * True when `toleration` tolerates `taint`: the same effect (an empty one
 * matches all), the same key (an empty key matches all), and for the
 * `Equal` operator (the default) the same value. Go's
 * `Toleration.ToleratesTaint`.
 *
 * @category Scheduling
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * The first of `taints` that `inclusionFilter` selects and none of
 * `tolerations` tolerates; `undefined` when there is none. Go's
 * `FindMatchingUntoleratedTaint`.
 *
 * @category Scheduling
 */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  inclusionFilter: (taint: Taint) => boolean,
): Taint | undefined {
  return (taints ?? []).find(
    (taint) => inclusionFilter(taint) && !(tolerations ?? []).some((t) => toleratesTaint(t, taint)),
  );
}

const labelOperators: Readonly<Record<string, SelectionOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};

/** One field requirement: `key` equals (In) or differs from (NotIn) `value`. */
interface FieldRequirement {
  key: string;
  equal: boolean;
  value: string;
}

/** A parsed node selector term; `undefined` fields restrict nothing. */
interface ParsedTerm {
  empty: boolean;
  parseError: boolean;
  labels?: Selector;
  fields?: FieldRequirement[];
}

function parseTerm(term: NodeSelectorTerm): ParsedTerm {
  const expressions: readonly NodeSelectorRequirement[] = term.matchExpressions ?? [];
  const fields: readonly NodeSelectorRequirement[] = term.matchFields ?? [];
  const parsed: ParsedTerm = {
    empty: expressions.length === 0 && fields.length === 0,
    parseError: false,
  };
  if (expressions.length > 0) {
    let selector = everything();
    for (const e of expressions) {
      const op = labelOperators[e.operator];
      if (op === undefined) return { ...parsed, parseError: true };
      try {
        selector = selector.add(newRequirement(e.key, op, e.values ?? []));
      } catch {
        return { ...parsed, parseError: true };
      }
    }
    parsed.labels = selector;
  }
  if (fields.length > 0) {
    const out: FieldRequirement[] = [];
    for (const f of fields) {
      if ((f.operator !== 'In' && f.operator !== 'NotIn') || f.values?.length !== 1) {
        return { ...parsed, parseError: true };
      }
      out.push({ key: f.key, equal: f.operator === 'In', value: f.values[0]! });
    }
    parsed.fields = out;
  }
  return parsed;
}

function termMatches(term: ParsedTerm, node: Node): boolean {
  if (term.empty || term.parseError) return false;
  if (term.labels !== undefined && !term.labels.matches(node.metadata?.labels ?? {})) return false;
  const name = node.metadata?.name ?? '';
  // A node without a name has no fields: field requirements then hold.
  if (term.fields !== undefined && name !== '') {
    for (const f of term.fields) {
      const actual = f.key === 'metadata.name' ? name : '';
      if ((actual === f.value) !== f.equal) return false;
    }
  }
  return true;
}

/**
 * True when one of the selector's terms matches `node`. Go's
 * `LazyErrorNodeSelector.Match`, with parse errors as no match.
 *
 * @category Scheduling
 */
export function nodeSelectorMatches(selector: NodeSelector, node: Node): boolean {
  return (selector.nodeSelectorTerms ?? []).some((t) => termMatches(parseTerm(t), node));
}

/**
 * True when `node` satisfies the pod's `nodeSelector` and its required node
 * affinity. Go's `GetRequiredNodeAffinity(pod).Match(node)`.
 *
 * @category Scheduling
 */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const nodeSelector = pod.spec?.nodeSelector;
  if (nodeSelector !== undefined && Object.keys(nodeSelector).length > 0) {
    if (!selectorFromSet(nodeSelector).matches(node.metadata?.labels ?? {})) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required !== undefined && required !== null) return nodeSelectorMatches(required, node);
  return true;
}
