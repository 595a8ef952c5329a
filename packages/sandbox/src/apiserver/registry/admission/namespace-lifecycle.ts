// No new objects in a namespace that is missing or being deleted: the
// NamespaceLifecycle admission plugin
// (plugin/pkg/admission/namespace/lifecycle/admission.go, Admit).
import { newForbidden, newNotFound } from '@kcm-ts/apimachinery';
import type { KubeObject } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../../resources.js';
import { plain } from '../field-errors.js';
import { withCause } from '../resource-errors.js';
import { type Obj } from '../../unstructured.js';

/**
 * Admits a create in `namespace`: 404 if the namespace is missing, 403 with
 * the NamespaceTerminating cause if it is being deleted.
 */
export function admitToNamespace(
  info: ResourceInfo,
  namespace: string,
  meta: Obj,
  getNamespace: (name: string) => KubeObject | undefined,
): void {
  const ns = getNamespace(namespace);
  if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, namespace);
  if (!ns.metadata?.deletionTimestamp) return;
  const err = newForbidden(
    { group: info.group, resource: info.resource },
    plain(meta.name ?? meta.generateName ?? ''),
    new Error(
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    ),
  );
  // The cause controllers look for to stop creating quietly (v1.NamespaceTerminatingCause).
  throw withCause(err, {
    reason: 'NamespaceTerminating',
    message: `namespace ${namespace} is being terminated`,
    field: 'metadata.namespace',
  });
}
