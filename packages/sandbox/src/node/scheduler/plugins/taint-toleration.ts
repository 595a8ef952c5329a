// TaintToleration (pkg/scheduler/framework/plugins/tainttoleration/
// taint_toleration.go), with the toleration rules of k8s.io/api/core/v1
// (Toleration.ToleratesTaint) and k8s.io/component-helpers/scheduling/
// corev1 (FindMatchingUntoleratedTaint). Filter: a node whose NoSchedule or
// NoExecute taint the pod does not tolerate is out. Score: the fewer
// PreferNoSchedule taints the pod does not tolerate, the better.
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import {
  defaultNormalizeScore,
  maxNodeScore,
  newStatus,
  type FilterPlugin,
  type ScorePlugin,
} from '../framework.js';

export const name = 'TaintToleration';

/**
 * Whether `t` tolerates `taint`: the same effect (an empty effect matches
 * all), the same key (an empty key with `Exists` matches all), and the same
 * value for `Equal` (the default operator), any value for `Exists`.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** TolerationsTolerateTaint: whether any of `tolerations` tolerates `taint`. */
export function tolerationsTolerateTaint(
  tolerations: readonly Toleration[] | undefined,
  taint: Taint,
): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/**
 * FindMatchingUntoleratedTaint with the DoNotSchedule filter: the first
 * NoSchedule or NoExecute taint no toleration tolerates.
 */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
): Taint | undefined {
  return (taints ?? []).find(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerationsTolerateTaint(tolerations, taint),
  );
}

export const taintTolerationFilter: FilterPlugin = {
  name,
  preFilter: (p) => ({
    filter(node) {
      const taint = findUntoleratedTaint(node.node?.spec?.taints, p.pod.spec?.tolerations);
      if (taint === undefined) return undefined;
      return newStatus(
        'UnschedulableAndUnresolvable',
        `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`,
      );
    },
  }),
};

export const taintTolerationScore: ScorePlugin = {
  name,
  weight: 3,
  preScore(p) {
    // Tolerations with an empty effect tolerate PreferNoSchedule too.
    const tolerations = (p.pod.spec?.tolerations ?? []).filter(
      (t) => !t.effect || t.effect === 'PreferNoSchedule',
    );
    return (node) =>
      (node.node?.spec?.taints ?? []).filter(
        (taint) =>
          taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint),
      ).length;
  },
  normalize: (scores) => defaultNormalizeScore(maxNodeScore, true, scores),
};
