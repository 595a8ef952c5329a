// NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable/
// node_unschedulable.go): a cordoned node (`spec.unschedulable`, which
// `kubectl cordon` sets) takes no new pods, unless they tolerate the
// `node.kubernetes.io/unschedulable:NoSchedule` taint, as DaemonSet pods do.
import { newStatus, type FilterPlugin } from '../framework.js';
import { tolerationsTolerateTaint } from './taint-toleration.js';

export const name = 'NodeUnschedulable';

/** ErrReasonUnschedulable. */
export const errReasonUnschedulable = 'node(s) were unschedulable';

export const nodeUnschedulable: FilterPlugin = {
  name,
  preFilter(p) {
    const tolerates = tolerationsTolerateTaint(p.pod.spec?.tolerations, {
      key: 'node.kubernetes.io/unschedulable',
      effect: 'NoSchedule',
    });
    return {
      filter: (node) =>
        node.node?.spec?.unschedulable === true && !tolerates
          ? newStatus('UnschedulableAndUnresolvable', errReasonUnschedulable)
          : undefined,
    };
  },
};
