// `kubectl get nodes`: printers.go, printNode and findNodeRoles.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Node } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './duration.js';
import { ageColumn, column, nameColumn, type PrintedRow, type Printer } from './printer.js';

const columns = [
  nameColumn,
  column('Status', 'string', 'Ready condition of the node, and SchedulingDisabled when cordoned.'),
  column('Roles', 'string', 'Roles taken from the node-role.kubernetes.io/ labels.'),
  ageColumn,
  column('Version', 'string', 'Kubelet version the node reports.'),
  column('Internal-IP', 'string', 'First InternalIP address of the node.', 1),
  column('External-IP', 'string', 'First ExternalIP address of the node.', 1),
  column('OS-Image', 'string', 'Operating system image the node reports.', 1),
  column('Kernel-Version', 'string', 'Kernel version the node reports.', 1),
  column('Container-Runtime', 'string', 'Container runtime and version the node reports.', 1),
];

const rolePrefix = 'node-role.kubernetes.io/';
const roleLabel = 'kubernetes.io/role';

/**
 * A node's roles, sorted: the `<role>` of each `node-role.kubernetes.io/<role>`
 * label and the value of a `kubernetes.io/role` label. Go's `findNodeRoles`.
 */
export function nodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith(rolePrefix)) {
      const role = key.slice(rolePrefix.length);
      if (role !== '') roles.add(role);
    } else if (key === roleLabel && value !== '') {
      roles.add(value);
    }
  }
  return [...roles].sort();
}

/**
 * The Status cell: `Ready`, `NotReady` or `Unknown` from the Ready condition,
 * then `SchedulingDisabled` when the node is cordoned.
 */
export function nodeStatus(node: Node): string {
  // Only Ready is reported; with duplicates the last one counts, as in Go's map.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const address = (node: Node, type: string): string =>
  node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';

function printNode(obj: KubeObject, now: number): PrintedRow {
  const node = obj as Node;
  const info = node.status?.nodeInfo;
  const roles = nodeRoles(node).join(',');
  return {
    cells: [
      node.metadata?.name ?? '',
      nodeStatus(node),
      roles === '' ? '<none>' : roles,
      translateTimestampSince(node.metadata?.creationTimestamp, now),
      info?.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info?.osImage || '<unknown>',
      info?.kernelVersion || '<unknown>',
      info?.containerRuntimeVersion || '<unknown>',
    ],
  };
}

/**
 * Nodes: Name, Status, Roles, Age, Version; wide: Internal-IP, External-IP,
 * OS-Image, Kernel-Version, Container-Runtime.
 */
export const nodePrinter: Printer = { columns, print: printNode };
