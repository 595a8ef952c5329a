// `kubectl get deployments` and `kubectl get replicasets`: printers.go,
// printDeployment, printReplicaSet and layoutContainerCells.
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Container } from 'kubernetes-types/core/v1.js';
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
