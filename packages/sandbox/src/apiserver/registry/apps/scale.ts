// The scale subresource of Deployments and ReplicaSets: autoscaling/v1 Scale
// read from and written to the parent's `spec.replicas`
// (pkg/registry/apps/deployment/storage/storage.go, ScaleREST Get and
// Update with scaleUpdatedObjectInfo; pkg/registry/apps/replicaset/storage
// is the same; pkg/registry/core/replicationcontroller/storage/storage.go,
// scaleFromRC, for ReplicationControllers, whose selector is a label map),
// over the generic store's get and update.
import {
  labelSelectorAsSelector,
  selectorFromSet,
  newBadRequest,
  newConflict,
  newInvalid,
  optimisticLockErrorMsg,
} from '@kcm-ts/apimachinery';
import type { KubeObject, Patch, PatchOptions, UpdateOptions } from '@kcm-ts/apimachinery';
import { applyPatch } from '../../patch.js';
import type { ResourceInfo } from '../../resources.js';
import { plain, toCauses } from '../field-errors.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

/** What the scale subresource needs of the store: the parent's get and update. */
export interface ScaleParents {
  get(info: ResourceInfo, namespace: string, name: string): KubeObject;
  update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    body: unknown,
    opts: UpdateOptions & { subresource?: 'status' },
  ): { object: KubeObject };
}

/** The Scale of a parent object, as scaleFromDeployment makes it. */
export function scaleOf(o: KubeObject): KubeObject {
  const spec = obj((o as unknown as Obj).spec);
  const status = obj((o as unknown as Obj).status);
  const meta = o.metadata ?? {};
  let selector = '';
  try {
    selector =
      o.kind === 'ReplicationController'
        ? selectorFromSet(obj(spec.selector) as Record<string, string>).string()
        : labelSelectorAsSelector(spec.selector as never).string();
  } catch {
    selector = '';
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, selector },
  } as KubeObject;
}

/** GET of `.../scale`. */
export function getScale(
  store: ScaleParents,
  info: ResourceInfo,
  namespace: string,
  name: string,
): KubeObject {
  return scaleOf(store.get(info, namespace, name));
}

/** The replicas a Scale body asks for: 400 for another kind, 422 for a bad count. */
function requestedReplicas(name: string, body: unknown): number {
  if (!isObj(body)) throw newBadRequest('the body of the request must be a Scale object');
  if (body.kind !== undefined && body.kind !== 'Scale') {
    throw newBadRequest(`${plain(body.kind)} in version "v1" cannot be handled as a Scale`);
  }
  const replicas = obj(body.spec).replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    const cause = {
      type: 'FieldValueInvalid' as const,
      field: 'spec.replicas',
      value: replicas ?? null,
      detail: 'must be greater than or equal to 0',
    };
    throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, name, toCauses([cause]));
  }
  return replicas;
}

/** PUT of `.../scale` (or a patch already applied): only `spec.replicas` of the parent changes. */
export function updateScale(
  store: ScaleParents,
  info: ResourceInfo,
  namespace: string,
  name: string,
  body: unknown,
  opts: UpdateOptions = {},
): KubeObject {
  const existing = store.get(info, namespace, name);
  const replicas = requestedReplicas(name, body);
  // The Scale names its parent: the URL's object, in the URL's namespace.
  const meta = obj(obj(body).metadata);
  if (meta.name !== undefined && meta.name !== name) {
    throw newBadRequest(
      `the name of the object (${plain(meta.name)}) does not match the name on the URL (${name})`,
    );
  }
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw newBadRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  const rv = obj(obj(body).metadata).resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== existing.metadata?.resourceVersion) {
    throw newConflict({ group: info.group, resource: info.resource }, name, optimisticLockErrorMsg);
  }
  const next = {
    ...existing,
    spec: { ...obj((existing as unknown as Obj).spec), replicas },
  } as KubeObject;
  return scaleOf(
    store.update(info, namespace, name, next, { ...opts, subresource: undefined }).object,
  );
}

/** PATCH of `.../scale`: the patch applies to the Scale object, then as {@link updateScale}. */
export function patchScale(
  store: ScaleParents,
  info: ResourceInfo,
  namespace: string,
  name: string,
  patch: Patch,
  opts: PatchOptions = {},
): KubeObject {
  const patched = applyPatch(undefined, getScale(store, info, namespace, name), patch);
  return updateScale(store, info, namespace, name, patched, opts);
}
