// NodePorts (pkg/scheduler/framework/plugins/nodeports/node_ports.go): a pod
// asking for a host port gets only a node where no pod holds that protocol
// and port on the same IP, or on 0.0.0.0, which holds it on every IP.
import { newStatus, type FilterPlugin } from '../framework.js';

export const name = 'NodePorts';

/** ErrReason. */
export const errReason = "node(s) didn't have free ports for the requested pod ports";

export const nodePorts: FilterPlugin = {
  name,
  preFilter(p) {
    // No host ports: Skip.
    if (p.ports.length === 0) return {};
    return {
      filter: (node) =>
        p.ports.some((port) => node.usedPorts.conflicts(port))
          ? newStatus('Unschedulable', errReason)
          : undefined,
    };
  },
};
