// InterPodAffinity's filter (pkg/scheduler/framework/plugins/
// interpodaffinity/filtering.go), required terms only: a pod with required
// anti-affinity gets no node in a topology domain (the nodes sharing the
// term's `topologyKey` label value; with `kubernetes.io/hostname`, one
// node) where a pod it selects runs; no pod goes where a running pod's
// required anti-affinity selects it; and a pod with required affinity needs
// a domain where pods it selects run (or, the first of its kind, none
// anywhere). PreFilter counts the matching pods per domain over the whole
// cluster, Filter looks the node's domain up.
//
// A term's namespaces are its `namespaces`, or the pod's own when it has
// neither those nor a `namespaceSelector`. A namespace selector is matched
// against the one label every namespace has, `kubernetes.io/metadata.name`:
// the sandbox's scheduler does not watch namespaces.
import { labelSelectorAsSelector, nothing, type Selector } from '@kcm-ts/apimachinery';
import type { Node, Pod, PodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { newStatus, type FilterPlugin, type NodeInfo } from '../framework.js';

export const name = 'InterPodAffinity';

/** ErrReasonExistingAntiAffinityRulesNotMatch. */
export const errReasonExistingAntiAffinityRulesNotMatch =
  "node(s) didn't satisfy existing pods anti-affinity rules";
/** ErrReasonAffinityRulesNotMatch. */
export const errReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
/** ErrReasonAntiAffinityRulesNotMatch. */
export const errReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";

/** A term ready to match pods (Go's AffinityTerm). */
interface AffinityTerm {
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: Selector;
  readonly selector: Selector;
  readonly topologyKey: string;
}

function selectorOf(ls: PodAffinityTerm['labelSelector']): Selector {
  try {
    return labelSelectorAsSelector(ls);
  } catch {
    return nothing();
  }
}

function affinityTerm(ownNamespace: string, t: PodAffinityTerm): AffinityTerm {
  const listed = t.namespaces ?? [];
  return {
    namespaces: new Set(
      listed.length === 0 && t.namespaceSelector === undefined ? [ownNamespace] : listed,
    ),
    namespaceSelector: selectorOf(t.namespaceSelector),
    selector: selectorOf(t.labelSelector),
    topologyKey: t.topologyKey,
  };
}

/** AffinityTerm.Matches: the pod is in one of the term's namespaces and has the labels it selects. */
function termMatches(t: AffinityTerm, pod: Pod): boolean {
  const ns = pod.metadata?.namespace ?? '';
  const inNamespace =
    t.namespaces.has(ns) || t.namespaceSelector.matches({ 'kubernetes.io/metadata.name': ns });
  return inNamespace && t.selector.matches(pod.metadata?.labels ?? {});
}

/** Counts per topology pair (`key=value` of a node label). */
class TopologyCounts {
  readonly #counts = new Map<string, number>();

  static key(k: string, v: string): string {
    return `${k}\u0000${v}`;
  }

  /** Counts one for the node's value of `topologyKey`, if it has that label. */
  add(node: Node, topologyKey: string): void {
    const value = node.metadata?.labels?.[topologyKey];
    if (value === undefined) return;
    const k = TopologyCounts.key(topologyKey, value);
    this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
  }

  get(topologyKey: string, value: string): number {
    return this.#counts.get(TopologyCounts.key(topologyKey, value)) ?? 0;
  }

  get size(): number {
    return this.#counts.size;
  }
}

const nodesWithObjects = (nodes: readonly NodeInfo[]) =>
  nodes.filter((n): n is NodeInfo & { node: Node } => n.node !== undefined);

export const interPodAffinity: FilterPlugin = {
  name,
  preFilter(p, nodes) {
    const ns = p.pod.metadata?.namespace ?? '';
    const affinity = p.requiredAffinityTerms.map((t) => affinityTerm(ns, t));
    const antiAffinity = p.requiredAntiAffinityTerms.map((t) => affinityTerm(ns, t));
    const existingAnti = new TopologyCounts();
    const affinityCounts = new TopologyCounts();
    const antiAffinityCounts = new TopologyCounts();
    // Without terms of its own, only the nodes holding pods with required
    // anti-affinity matter, as upstream walks only those.
    const ownTerms = affinity.length > 0 || antiAffinity.length > 0;
    for (const n of nodesWithObjects(nodes)) {
      if (!ownTerms && n.podsWithRequiredAntiAffinity === 0) continue;
      for (const existing of n.pods.values()) {
        // Existing pods whose required anti-affinity selects the incoming pod.
        const existingNs = existing.pod.metadata?.namespace ?? '';
        for (const t of existing.requiredAntiAffinityTerms) {
          if (termMatches(affinityTerm(existingNs, t), p.pod))
            existingAnti.add(n.node, t.topologyKey);
        }
        // Existing pods the incoming pod's terms select (all of them, for affinity).
        if (affinity.length > 0 && affinity.every((t) => termMatches(t, existing.pod))) {
          for (const t of affinity) affinityCounts.add(n.node, t.topologyKey);
        }
        for (const t of antiAffinity) {
          if (termMatches(t, existing.pod)) antiAffinityCounts.add(n.node, t.topologyKey);
        }
      }
    }
    if (existingAnti.size === 0 && affinity.length === 0 && antiAffinity.length === 0) return {};
    const selfMatch = affinity.every((t) => termMatches(t, p.pod));
    return {
      filter(n) {
        const labels = n.node?.metadata?.labels ?? {};
        // satisfyPodAffinity: every term's domain has a matching pod, or
        // no pod anywhere matches and the pod matches its own terms.
        let podsExist = true;
        for (const t of affinity) {
          const value = labels[t.topologyKey];
          if (value === undefined) {
            return newStatus('UnschedulableAndUnresolvable', errReasonAffinityRulesNotMatch);
          }
          if (affinityCounts.get(t.topologyKey, value) <= 0) podsExist = false;
        }
        if (!podsExist && !(affinityCounts.size === 0 && selfMatch)) {
          return newStatus('UnschedulableAndUnresolvable', errReasonAffinityRulesNotMatch);
        }
        // satisfyPodAntiAffinity
        for (const t of antiAffinity) {
          const value = labels[t.topologyKey];
          if (value !== undefined && antiAffinityCounts.get(t.topologyKey, value) > 0) {
            return newStatus('Unschedulable', errReasonAntiAffinityRulesNotMatch);
          }
        }
        // satisfyExistingPodsAntiAffinity
        for (const [k, v] of Object.entries(labels)) {
          if (existingAnti.get(k, v) > 0) {
            return newStatus('Unschedulable', errReasonExistingAntiAffinityRulesNotMatch);
          }
        }
        return undefined;
      },
    };
  },
};
