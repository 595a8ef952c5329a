// Building the Table: the printers' GenerateTable (pkg/printers/tablegenerator.go)
// for the rows, and the apiserver's asTable (endpoints/handlers/response.go)
// for the object each row embeds.
import type { KubeObject } from '@kcm-ts/apimachinery';
import { cronJobPrinter, jobPrinter } from './batch.js';
import { configMapPrinter, secretPrinter } from './config.js';
import { defaultPrinter } from './default.js';
import { endpointSlicePrinter, endpointsPrinter } from './endpoints.js';
import { eventPrinter } from './events.js';
import { leasePrinter } from './leases.js';
import { namespacePrinter } from './namespaces.js';
import { nodePrinter } from './nodes.js';
import { podPrinter } from './pods.js';
import { podDisruptionBudgetPrinter } from './policy.js';
import { roleBindingPrinter, rolePrinter, serviceAccountPrinter } from './rbac.js';
import { servicePrinter } from './services.js';
import {
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  storageClassPrinter,
} from './storage.js';
import type { Printer } from './printer.js';
import type { IncludeObject, PartialObjectMetadata, Table, TableRow } from './types.js';
import {
  controllerRevisionPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  replicaSetPrinter,
  replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads.js';

// Keyed by `group/resource`, `''` being the core group.
const printers: ReadonlyMap<string, Printer> = new Map([
  ['/pods', podPrinter],
  ['/namespaces', namespacePrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['/events', eventPrinter],
  ['/nodes', nodePrinter],
  ['/services', servicePrinter],
  ['/endpoints', endpointsPrinter],
  ['/persistentvolumeclaims', persistentVolumeClaimPrinter],
  ['/persistentvolumes', persistentVolumePrinter],
  ['/replicationcontrollers', replicationControllerPrinter],
  ['/serviceaccounts', serviceAccountPrinter],
  ['policy/poddisruptionbudgets', podDisruptionBudgetPrinter],
  ['rbac.authorization.k8s.io/roles', rolePrinter],
  ['rbac.authorization.k8s.io/clusterroles', rolePrinter],
  ['rbac.authorization.k8s.io/rolebindings', roleBindingPrinter],
  ['rbac.authorization.k8s.io/clusterrolebindings', roleBindingPrinter],
  ['apps/deployments', deploymentPrinter],
  ['apps/replicasets', replicaSetPrinter],
  ['apps/daemonsets', daemonSetPrinter],
  ['apps/statefulsets', statefulSetPrinter],
  ['apps/controllerrevisions', controllerRevisionPrinter],
  ['batch/jobs', jobPrinter],
  ['batch/cronjobs', cronJobPrinter],
  ['coordination.k8s.io/leases', leasePrinter],
  ['storage.k8s.io/storageclasses', storageClassPrinter],
  ['discovery.k8s.io/endpointslices', endpointSlicePrinter],
  ['events.k8s.io/events', eventPrinter],
]);

/**
 * The printer for a resource, or the default Name/Age one when it has none.
 *
 * @param resource - the plural resource name, such as `deployments`.
 * @param group - the API group, `''` for the core group.
 */
export function printerFor(resource: string, group: string): Printer {
  return printers.get(`${group}/${resource}`) ?? defaultPrinter;
}

/**
 * What {@link toTable} needs besides the objects.
 *
 * @category Tables
 */
export interface TableOptions {
  /** The current time in epoch milliseconds, for the Age columns. */
  now: number;
  /** What each row embeds; `Metadata` when absent. */
  includeObject?: IncludeObject;
  /** The list's (or the single object's) resourceVersion; omitted when `''`. */
  resourceVersion: string;
  /** The list's continue token, for a page. */
  continue?: string;
  /** The list's remainingItemCount, for a page. */
  remainingItemCount?: number;
}

function embedded(obj: KubeObject, includeObject: IncludeObject): unknown {
  switch (includeObject) {
    case 'None':
      return undefined;
    case 'Object':
      return obj;
    case 'Metadata': {
      const partial: PartialObjectMetadata = {
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: obj.metadata ?? {},
      };
      return partial;
    }
  }
}

/**
 * Renders objects of one resource as the `meta.k8s.io/v1` Table
 * kube-apiserver would send to `kubectl get`: the resource's columns
 * (including the `-o wide` ones, which kubectl hides unless asked), one row
 * per object with the cells kube-apiserver 1.32's printers compute, and in
 * each row the object as `includeObject` asks: a `PartialObjectMetadata`
 * (`Metadata`, the default), the whole object (`Object`) or nothing (`None`).
 *
 * @param resource - the plural resource name, such as `pods`.
 * @param group - the API group, `''` for the core group.
 * @param objects - the objects, in wire form (a list's items, or one object).
 * @category Tables
 */
export function toTable(
  resource: string,
  group: string,
  objects: readonly KubeObject[],
  opts: TableOptions,
): Table {
  const printer = printerFor(resource, group);
  const includeObject = opts.includeObject ?? 'Metadata';
  const metadata: Table['metadata'] = {};
  if (opts.resourceVersion !== '') metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: printer.columns.map((c) => ({ ...c })),
    rows: objects.map((obj) => {
      const { cells, conditions } = printer.print(obj, opts.now);
      const row: TableRow = { cells };
      if (conditions !== undefined && conditions.length > 0) row.conditions = conditions;
      const object = embedded(obj, includeObject);
      if (object !== undefined) row.object = object;
      return row;
    }),
  };
}
