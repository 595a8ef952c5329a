// What every update does to the object before it is stored:
// staging/src/k8s.io/apiserver/pkg/registry/rest/update.go (BeforeUpdate:
// the system fields kept from the stored object, the metadata update
// checks of apimachinery's pkg/api/validation/objectmeta.go, the
// strategy's PrepareForUpdate), with the status subresource's split of
// spec and status and the generation bump the kinds' strategies make.
import type { ResourceInfo } from '../../resources.js';
import { invalid } from '../resource-errors.js';
import { sameJSON } from '../semantic-equality.js';
import type { Strategy } from '../strategy.js';
import { type Obj, obj } from '../../unstructured.js';

/** The metadata fields a client cannot change. */
const systemFields = [
  'uid',
  'creationTimestamp',
  'generation',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/**
 * Settles `next` (in storage form) against the stored `old`: system fields
 * kept, no new finalizers on an object being deleted, the half a
 * (sub)resource does not write kept, the kind's defaults applied.
 */
export function beforeUpdate(
  info: ResourceInfo,
  strategy: Strategy,
  next: Obj,
  old: Obj,
  subresource: 'status' | undefined,
): void {
  const oldMeta = obj(old.metadata);
  const meta = { ...obj(next.metadata) };
  const name = String(oldMeta.name);
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== oldMeta.uid) {
    throw invalid(info, name, [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.uid',
        value: meta.uid,
        detail: 'field is immutable',
      },
    ]);
  }
  for (const f of systemFields) {
    if (oldMeta[f] === undefined) delete meta[f];
    else meta[f] = oldMeta[f];
  }
  delete meta.managedFields;
  delete meta.resourceVersion;
  checkNoNewFinalizers(info, name, meta, oldMeta);
  next.metadata = meta;
  if (strategy.statusSubresource) keepOtherHalf(strategy, next, old, subresource);
  strategy.prepareForUpdate(next, old);
}

// objectmeta.go, ValidateObjectMetaUpdate: no new finalizers once deletion has started.
function checkNoNewFinalizers(info: ResourceInfo, name: string, meta: Obj, oldMeta: Obj): void {
  if (oldMeta.deletionTimestamp === undefined || !Array.isArray(meta.finalizers)) return;
  const before = new Set(Array.isArray(oldMeta.finalizers) ? (oldMeta.finalizers as string[]) : []);
  const added = (meta.finalizers as string[]).filter((f) => !before.has(f));
  if (added.length > 0) {
    throw invalid(info, name, [
      {
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      },
    ]);
  }
}

// A write to the resource keeps the stored status; a write to /status keeps
// the stored spec (and, for some kinds, the labels): the two strategies'
// PrepareForUpdate, such as pkg/registry/apps/deployment/strategy.go's.
function keepOtherHalf(
  strategy: Strategy,
  next: Obj,
  old: Obj,
  subresource: 'status' | undefined,
): void {
  if (subresource === 'status') {
    if (old.spec === undefined) delete next.spec;
    else next.spec = old.spec;
    if (strategy.statusKeepsLabels) {
      const meta = obj(next.metadata);
      const oldMeta = obj(old.metadata);
      if (oldMeta.labels === undefined) delete meta.labels;
      else meta.labels = oldMeta.labels;
    }
  } else if (old.status === undefined) delete next.status;
  else next.status = old.status;
}

/** Bumps `metadata.generation` when a write to the resource changes the spec (or annotations, for some kinds). */
export function updateGeneration(
  strategy: Strategy,
  next: Obj,
  old: Obj,
  subresource: 'status' | undefined,
): void {
  if (!strategy.hasGeneration || subresource === 'status') return;
  const meta = obj(next.metadata);
  const oldMeta = obj(old.metadata);
  const specChanged =
    strategy.generationOn === 'content'
      ? !sameJSON({ ...next, metadata: undefined }, { ...old, metadata: undefined }) ||
        !sameJSON(meta.labels ?? {}, oldMeta.labels ?? {})
      : !sameJSON(next.spec, old.spec);
  const annotationsChanged =
    strategy.generationOnAnnotations &&
    !sameJSON(meta.annotations ?? {}, oldMeta.annotations ?? {});
  if (specChanged || annotationsChanged) meta.generation = Number(oldMeta.generation ?? 0) + 1;
}
