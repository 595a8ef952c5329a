// `kubectl get deployments`, `replicasets`, `replicationcontrollers`,
// `daemonsets`, `statefulsets` and `controllerrevisions`: printers.go,
// printDeployment, printReplicaSet, printReplicationController,
// printDaemonSet, printStatefulSet, printControllerRevision and
// layoutContainerCells.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  StatefulSet,
} from 'kubernetes-types/apps/v1.js';
import type { Container, ReplicationController } from 'kubernetes-types/core/v1.js';
import { translateTimestampSince } from './duration.js';
import {
  ageColumn,
  column,
  containersColumn,
  imagesColumn,
  nameColumn,
  type PrintedRow,
  type Printer,
} from './printer.js';
import { formatLabelSelector, selectorString } from './selector.js';

/** The template's container names and images, each joined with `,`. */
export function layoutContainerCells(containers: readonly Container[] | undefined): {
  names: string;
  images: string;
} {
  const list = containers ?? [];
  return {
    names: list.map((c) => c.name).join(','),
    images: list.map((c) => c.image ?? '').join(','),
  };
}

const replicaSetColumns = [
  nameColumn,
  column('Desired', 'integer', 'Replicas requested in the spec.'),
  column('Current', 'integer', 'Replicas observed by the controller.'),
  column('Ready', 'integer', 'Replicas that are ready.'),
  ageColumn,
  containersColumn,
  imagesColumn,
  column('Selector', 'string', 'Label selector for the pods.', 1),
];

function printReplicaSet(obj: KubeObject, now: number): PrintedRow {
  const rs = obj as ReplicaSet;
  const { names, images } = layoutContainerCells(rs.spec?.template?.spec?.containers);
  return {
    cells: [
      rs.metadata?.name ?? '',
      rs.spec?.replicas ?? 0,
      rs.status?.replicas ?? 0,
      rs.status?.readyReplicas ?? 0,
      translateTimestampSince(rs.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(rs.spec?.selector),
    ],
  };
}

/** ReplicaSets: Name, Desired, Current, Ready, Age; wide: Containers, Images, Selector. */
export const replicaSetPrinter: Printer = { columns: replicaSetColumns, print: printReplicaSet };

const deploymentColumns = [
  nameColumn,
  column('Ready', 'string', 'Ready replicas out of desired replicas.'),
  column('Up-to-date', 'string', 'Replicas running the current pod template.'),
  column('Available', 'string', 'Replicas available for at least minReadySeconds.'),
  ageColumn,
  containersColumn,
  imagesColumn,
  column('Selector', 'string', 'Label selector for the pods.', 1),
];

function printDeployment(obj: KubeObject, now: number): PrintedRow {
  const d = obj as Deployment;
  const { names, images } = layoutContainerCells(d.spec?.template?.spec?.containers);
  return {
    cells: [
      d.metadata?.name ?? '',
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      translateTimestampSince(d.metadata?.creationTimestamp, now),
      names,
      images,
      selectorString(d.spec?.selector),
    ],
  };
}

/** Deployments: Name, Ready, Up-to-date, Available, Age; wide: Containers, Images, Selector. */
export const deploymentPrinter: Printer = { columns: deploymentColumns, print: printDeployment };

/** A label map as `labels.FormatLabels` prints it: `k=v` sorted by key, `<none>` when empty. */
function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',');
}

function printReplicationController(obj: KubeObject, now: number): PrintedRow {
  const rc = obj as ReplicationController;
  const { names, images } = layoutContainerCells(rc.spec?.template?.spec?.containers);
  return {
    cells: [
      rc.metadata?.name ?? '',
      rc.spec?.replicas ?? 0,
      rc.status?.replicas ?? 0,
      rc.status?.readyReplicas ?? 0,
      translateTimestampSince(rc.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabels(rc.spec?.selector),
    ],
  };
}

/**
 * ReplicationControllers: the ReplicaSet columns (Name, Desired, Current,
 * Ready, Age; wide: Containers, Images, Selector), the selector a label map.
 */
export const replicationControllerPrinter: Printer = {
  columns: replicaSetColumns,
  print: printReplicationController,
};

const daemonSetColumns = [
  nameColumn,
  column('Desired', 'integer', 'The number of nodes that should be running the daemon pod.'),
  column('Current', 'integer', 'The number of nodes running at least one daemon pod that should.'),
  column('Ready', 'integer', 'The number of nodes with a daemon pod running and ready.'),
  column('Up-to-date', 'integer', 'The number of nodes running the updated daemon pod.'),
  column('Available', 'integer', 'The number of nodes with a daemon pod available.'),
  column('Node Selector', 'string', 'The node labels the daemon pods are limited to.'),
  ageColumn,
  containersColumn,
  imagesColumn,
  column('Selector', 'string', 'Label selector for the pods.', 1),
];

function printDaemonSet(obj: KubeObject, now: number): PrintedRow {
  const ds = obj as DaemonSet;
  const s = ds.status;
  const template = ds.spec?.template;
  const { names, images } = layoutContainerCells(template?.spec?.containers);
  return {
    cells: [
      ds.metadata?.name ?? '',
      s?.desiredNumberScheduled ?? 0,
      s?.currentNumberScheduled ?? 0,
      s?.numberReady ?? 0,
      s?.updatedNumberScheduled ?? 0,
      s?.numberAvailable ?? 0,
      formatLabels(template?.spec?.nodeSelector),
      translateTimestampSince(ds.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(ds.spec?.selector),
    ],
  };
}

/**
 * DaemonSets: Name, Desired, Current, Ready, Up-to-date, Available, Node
 * Selector, Age; wide: Containers, Images, Selector. Go's `printDaemonSet`.
 */
export const daemonSetPrinter: Printer = { columns: daemonSetColumns, print: printDaemonSet };

const statefulSetColumns = [
  nameColumn,
  column('Ready', 'string', 'Number of the pod with ready state'),
  ageColumn,
  containersColumn,
  imagesColumn,
];

function printStatefulSet(obj: KubeObject, now: number): PrintedRow {
  const sts = obj as StatefulSet;
  const { names, images } = layoutContainerCells(sts.spec?.template?.spec?.containers);
  return {
    cells: [
      sts.metadata?.name ?? '',
      `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}`,
      translateTimestampSince(sts.metadata?.creationTimestamp, now),
      names,
      images,
    ],
  };
}

/** StatefulSets: Name, Ready (`ready/desired`), Age; wide: Containers, Images. Go's `printStatefulSet`. */
export const statefulSetPrinter: Printer = { columns: statefulSetColumns, print: printStatefulSet };

const controllerRevisionColumns = [
  nameColumn,
  column('Controller', 'string', 'Controller of the object'),
  column('Revision', 'string', 'The revision number of the object.'),
  ageColumn,
];

function printControllerRevision(obj: KubeObject, now: number): PrintedRow {
  const cr = obj as ControllerRevision;
  const ref = cr.metadata?.ownerReferences?.find((r) => r.controller === true);
  let controller = '<none>';
  if (ref) {
    // formatResourceName with the kind: `daemonset.apps/fluentd`.
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    controller = `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
  }
  return {
    cells: [
      cr.metadata?.name ?? '',
      controller,
      cr.revision ?? 0,
      translateTimestampSince(cr.metadata?.creationTimestamp, now),
    ],
  };
}

/** ControllerRevisions: Name, Controller (`daemonset.apps/name`), Revision, Age. Go's `printControllerRevision`. */
export const controllerRevisionPrinter: Printer = {
  columns: controllerRevisionColumns,
  print: printControllerRevision,
};
