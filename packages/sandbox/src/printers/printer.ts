// What every resource printer provides, and the column pieces they share
// (printers.go, AddHandlers). Names, types, formats and priorities follow
// kube-apiserver 1.32; the descriptions are our own short ones (kubectl shows
// none of them).
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { TableCell, TableColumnDefinition, TableRowCondition } from './types.js';

/** The cells (and any conditions) a printer makes for one object. */
export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

/**
 * The Table columns of one resource and how to fill them for an object. The
 * sandbox always prints wide, as kube-apiserver does, so `print` returns a
 * cell for every column including the priority-1 ones.
 */
export interface Printer {
  readonly columns: readonly TableColumnDefinition[];
  print(obj: KubeObject, now: number): PrintedRow;
}

/** A column definition; `priority` 1 marks an `-o wide` column. */
export function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): TableColumnDefinition {
  return { name, type, format, description, priority };
}

const objectMetaName = 'Name of the object, unique within its namespace.';

/** ObjectMeta's `creationTimestamp` documentation, which every Age column uses. */
export const creationTimestampDescription = 'How long ago the server created the object.';

/** The `Name` column every printer but the Event one starts with. */
export const nameColumn = column('Name', 'string', objectMetaName, 0, 'name');

/** The `Name` column at `-o wide` priority, as Events place it last. */
export const wideNameColumn = column('Name', 'string', objectMetaName, 1, 'name');

/** The `Age` column: how long ago the object was created. */
export const ageColumn = column('Age', 'string', creationTimestampDescription);

/** The wide Containers and Images columns of workload printers. */
export const containersColumn = column(
  'Containers',
  'string',
  'Names of the containers in the pod template.',
  1,
);

/** See {@link containersColumn}. */
export const imagesColumn = column(
  'Images',
  'string',
  'Images of the containers in the pod template.',
  1,
);
