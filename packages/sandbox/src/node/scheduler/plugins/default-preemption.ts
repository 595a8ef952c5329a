// DefaultPreemption's PostFilter, as far as its message goes (pkg/scheduler/
// framework/plugins/defaultpreemption/default_preemption.go and framework/
// preemption/preemption.go: Preempt, findCandidates, SelectVictimsOnNode).
// The sandbox never preempts: every pod counts as the same priority (there
// is no PriorityClass admission), so no node has a victim, and the message
// is the one kube-scheduler gives then: nodes a filter rejected for good
// (UnschedulableAndUnresolvable) are ones where "Preemption is not helpful
// for scheduling", the others have "No preemption victims found for
// incoming pod". A pod with `preemptionPolicy: Never` is not eligible.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { fitErrorMessage, newStatus, type Diagnosis, type Status } from '../framework.js';

export const name = 'DefaultPreemption';

/**
 * The PostFilter message for a pod that fits nowhere: "preemption: " and a
 * FitError message over the nodes' preemption statuses.
 */
export function preemptionMessage(pod: Pod, numAllNodes: number, d: Diagnosis): string {
  if (pod.spec?.preemptionPolicy === 'Never') {
    return 'preemption: not eligible due to preemptionPolicy=Never.';
  }
  // The nodes where removing pods might help: those a filter found merely Unschedulable.
  const statuses = new Map<string, Status>();
  for (const [node, s] of d.nodeToStatus) {
    if (s.code === 'Unschedulable') {
      statuses.set(
        node,
        newStatus('UnschedulableAndUnresolvable', 'No preemption victims found for incoming pod'),
      );
    }
  }
  const absent = numAllNodes - d.nodeToStatus.size;
  if (absent > 0 && d.absentNodesStatus.code === 'Unschedulable') {
    // Nodes left out with a merely Unschedulable status are candidates too; they have no victims either.
    for (let i = 0; i < absent; i++) {
      statuses.set(
        `\u0000absent-${i}`,
        newStatus('UnschedulableAndUnresolvable', 'No preemption victims found for incoming pod'),
      );
    }
  }
  const message = fitErrorMessage(numAllNodes, {
    nodeToStatus: statuses,
    absentNodesStatus: newStatus(
      'UnschedulableAndUnresolvable',
      'Preemption is not helpful for scheduling',
    ),
    unschedulablePlugins: new Set(),
    preFilterMsg: '',
    postFilterMsg: '',
  });
  return `preemption: ${message}`;
}
