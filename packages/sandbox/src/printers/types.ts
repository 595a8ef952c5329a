// The meta.k8s.io/v1 Table wire types (apimachinery pkg/apis/meta/v1,
// types.go): what the server sends when a client asks for `as=Table`.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * One column of a {@link Table}. `type` is an OpenAPI type (`string`,
 * `integer`, `date`…); `format` is `name` for the column that holds the
 * object's name; columns with `priority` above 0 are shown only by
 * `kubectl get -o wide`.
 *
 * @category Tables
 */
export interface TableColumnDefinition {
  /** The header kubectl prints, upper-cased: `Name`, `Ready`, `Up-to-date`. */
  name: string;
  /** The OpenAPI type of the cells. */
  type: string;
  /** An OpenAPI format modifier; `name` marks the primary name column, else `''`. */
  format: string;
  /** What the column means, usually the field's API documentation. */
  description: string;
  /** 0 for the default columns, 1 for the `-o wide` ones. */
  priority: number;
}

/**
 * One cell of a {@link TableRow}: a string, an integer, a boolean or `null`.
 *
 * @category Tables
 */
export type TableCell = string | number | boolean | null;

/**
 * A condition of a row; pods in a terminal phase carry `Completed`.
 *
 * @category Tables
 */
export interface TableRowCondition {
  /** The condition type, `Completed`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** A machine-readable reason, such as the pod's phase. */
  reason?: string;
  /** A human-readable message. */
  message?: string;
}

/**
 * The object embedded in a row when `includeObject=Metadata` (the default):
 * the object's full `metadata` and nothing else.
 *
 * @category Tables
 */
export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ObjectMeta;
}

/**
 * One row of a {@link Table}: one cell per column definition, in order.
 *
 * @category Tables
 */
export interface TableRow {
  /** The values, one per column. */
  cells: TableCell[];
  /** Row conditions, when there are any. */
  conditions?: TableRowCondition[];
  /** The object the row shows, in the form `includeObject` asked for; absent for `None`. */
  object?: unknown;
}

/**
 * A `meta.k8s.io/v1` Table: what `kubectl get` prints.
 *
 * @category Tables
 */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  /** The list metadata: `resourceVersion`, and for a page `continue` and `remainingItemCount`. */
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** The columns, including the `-o wide` ones (priority 1). */
  columnDefinitions: TableColumnDefinition[];
  /** One row per object. */
  rows: TableRow[];
}

/**
 * How much of each object a Table row embeds: `None`, `Metadata` (a
 * {@link PartialObjectMetadata}; the default) or `Object` (the whole object).
 *
 * @category Tables
 */
export type IncludeObject = 'None' | 'Metadata' | 'Object';
