// The binding subresource of pods: pkg/registry/core/pod/storage/storage.go
// (BindingREST.Create, assignPod and setPodHostAndAnnotations): the Binding
// checked, then `spec.nodeName`, the Binding's annotations and the
// PodScheduled condition set in one write.
import {
  formatTime,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
} from '@kcm-ts/apimachinery';
import type { Clock } from '@kcm-ts/apimachinery';
import type { Status } from 'kubernetes-types/meta/v1.js';
import type { Storage } from '../../storage/storage.js';
import { storageKey } from '../../storage/storage.js';
import { plain, toCauses, type FieldError } from '../field-errors.js';
import { type Obj, isObj, obj } from '../../unstructured.js';

/** The Binding's target node: 400 for another kind or name, 422 for a bad target. */
function bindingTarget(name: string, body: unknown): { target: string; annotations: Obj } {
  if (!isObj(body)) throw newBadRequest('the body of a binding must be a Binding object');
  if (body.kind !== undefined && body.kind !== 'Binding') {
    throw newBadRequest(`${plain(body.kind)} is not a Binding`);
  }
  const meta = obj(body.metadata);
  if (meta.name !== name) throw newBadRequest('name in URL does not match name in Binding object');
  const target = obj(body.target);
  const errs: FieldError[] = [];
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'target.kind',
      value: target.kind,
      detail: 'supported values: "Node", "<empty>"',
    });
  }
  if (typeof target.name !== 'string' || target.name === '') {
    errs.push({ type: 'FieldValueRequired', field: 'target.name' });
  }
  if (errs.length > 0) throw newInvalid({ group: '', kind: 'Binding' }, name, toCauses(errs));
  return { target: target.name as string, annotations: obj(meta.annotations) };
}

/**
 * Binds the pod `namespace/name` as `body`, a Binding, says: a Success
 * Status, or 409 Conflict when the pod is already bound or is being deleted.
 */
export function bindPod(
  store: { storage: Storage; clock: Clock },
  namespace: string,
  name: string,
  body: unknown,
): Status {
  const { target, annotations } = bindingTarget(name, body);
  const key = storageKey(namespace, name);
  const existing = store.storage.get('pods', key);
  if (!existing) throw newNotFound({ group: '', resource: 'pods' }, name);
  const pod = structuredClone(existing) as unknown as Obj;
  const podMeta = obj(pod.metadata);
  const spec = obj(pod.spec);
  const resource = { group: '', resource: 'pods/binding' };
  if (podMeta.deletionTimestamp !== undefined) {
    throw newConflict(resource, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  }
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
    throw newConflict(resource, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
  }
  pod.spec = { ...spec, nodeName: target };
  if (Object.keys(annotations).length > 0) {
    pod.metadata = { ...podMeta, annotations: { ...obj(podMeta.annotations), ...annotations } };
  }
  const status = obj(pod.status);
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(
    (c) => obj(c).type !== 'PodScheduled',
  );
  conditions.push({
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: formatTime(store.clock.now()),
  });
  pod.status = { ...status, conditions };
  store.storage.commit('pods', key, 'MODIFIED', pod);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
