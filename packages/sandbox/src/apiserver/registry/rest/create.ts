// What every create does to the object before it is stored:
// staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate:
// the system fields cleared and filled, generation started, the strategy's
// PrepareForCreate), for a body already decoded and placed in its namespace.
import { newBadRequest } from '@kcm-ts/apimachinery';
import type { ResourceInfo } from '../../resources.js';
import type { Strategy } from '../strategy.js';
import { toStorageForm } from '../versioning.js';
import { fillObjectMetaSystemFields } from './meta.js';
import { type Obj, obj } from '../../unstructured.js';

/** 400 BadRequest for a create that names a resourceVersion. */
export function checkNoResourceVersion(body: Obj): void {
  const rv = obj(body.metadata).resourceVersion;
  if (rv !== undefined && rv !== '') {
    throw newBadRequest('resourceVersion should not be set on objects to be created');
  }
}

/** The object a create stores, in storage form, with fresh metadata; its name may still be generated. */
export function beforeCreate(info: ResourceInfo, strategy: Strategy, body: Obj, now: number): Obj {
  const o = toStorageForm(info, body);
  const meta: Obj = { ...obj(body.metadata) };
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.managedFields;
  delete meta.resourceVersion;
  fillObjectMetaSystemFields(meta, now);
  if (strategy.hasGeneration) meta.generation = 1;
  else delete meta.generation;
  o.metadata = meta;
  strategy.prepareForCreate(o);
  return o;
}
