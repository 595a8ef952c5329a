// Event filters for the controller builder: controller-runtime's
// pkg/predicate/predicate.go (Funcs, GenerationChangedPredicate,
// LabelChangedPredicate, AnnotationChangedPredicate,
// ResourceVersionChangedPredicate, LabelSelectorPredicate, NewPredicateFuncs,
// And, Or, Not). A predicate sees every event of one watch before it reaches
// the queue; any method it leaves out lets that kind of event through.
import type { KubeObject, Selector } from '@kcm-ts/apimachinery';
import { parseSelector } from '@kcm-ts/apimachinery';

/**
 * Decides which events of a watch enqueue anything: Go's `predicate.Funcs`.
 * A method left out passes every event of its kind.
 *
 * @category Controller builder
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  /** An object appeared (the informer's initial list included). */
  create?(obj: T): boolean;
  /** An object changed, or was resynced. */
  update?(oldObj: T, newObj: T): boolean;
  /** An object went away. */
  delete?(obj: T): boolean;
}

/** Whether `p` lets a create through. */
export const passesCreate = <T extends KubeObject>(ps: readonly Predicate<T>[], obj: T): boolean =>
  ps.every((p) => p.create?.(obj) ?? true);
/** Whether `p` lets an update through. */
export const passesUpdate = <T extends KubeObject>(
  ps: readonly Predicate<T>[],
  oldObj: T,
  newObj: T,
): boolean => ps.every((p) => p.update?.(oldObj, newObj) ?? true);
/** Whether `p` lets a delete through. */
export const passesDelete = <T extends KubeObject>(ps: readonly Predicate<T>[], obj: T): boolean =>
  ps.every((p) => p.delete?.(obj) ?? true);

/**
 * One test applied to every event (to the new object of an update): Go's
 * `NewPredicateFuncs`.
 *
 * @category Controller builder
 */
export function newPredicateFuncs<T extends KubeObject = KubeObject>(
  filter: (obj: T) => boolean,
): Predicate<T> {
  return {
    create: (obj) => filter(obj),
    update: (_old, obj) => filter(obj),
    delete: (obj) => filter(obj),
  };
}

/**
 * Passes updates only when `metadata.generation` changed, so status writes
 * (which leave it alone) do not wake the controller: Go's
 * `GenerationChangedPredicate`. Creates and deletes pass.
 *
 * @category Controller builder
 */
export const generationChangedPredicate: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation,
};

/**
 * Passes updates only when the resourceVersion changed, dropping the
 * informer's periodic resyncs: Go's `ResourceVersionChangedPredicate`.
 *
 * @category Controller builder
 */
export const resourceVersionChangedPredicate: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion,
};

/**
 * Passes updates only when the labels changed: Go's `LabelChangedPredicate`.
 *
 * @category Controller builder
 */
export const labelChangedPredicate: Predicate = {
  update: (oldObj, newObj) => !sameMap(oldObj.metadata?.labels, newObj.metadata?.labels),
};

/**
 * Passes updates only when the annotations changed: Go's `AnnotationChangedPredicate`.
 *
 * @category Controller builder
 */
export const annotationChangedPredicate: Predicate = {
  update: (oldObj, newObj) => !sameMap(oldObj.metadata?.annotations, newObj.metadata?.annotations),
};

/**
 * Passes events of objects whose labels match `selector` (a string such as
 * `mirror=true` or a parsed `Selector`): Go's `LabelSelectorPredicate`. It
 * filters after the cache; to keep other objects out of the cache as well,
 * give the watch a `labelSelector` instead.
 *
 * @category Controller builder
 */
export function labelSelectorPredicate(selector: string | Selector): Predicate {
  const sel = typeof selector === 'string' ? parseSelector(selector) : selector;
  return newPredicateFuncs((obj) => sel.matches(obj.metadata?.labels));
}

/**
 * Passes an event only when every predicate does: Go's `And`.
 *
 * @category Controller builder
 */
export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => passesCreate(ps, obj),
    update: (o, n) => passesUpdate(ps, o, n),
    delete: (obj) => passesDelete(ps, obj),
  };
}

/**
 * Passes an event when any predicate does: Go's `Or`.
 *
 * @category Controller builder
 */
export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => ps.some((p) => passesCreate([p], obj)),
    update: (o, n) => ps.some((p) => passesUpdate([p], o, n)),
    delete: (obj) => ps.some((p) => passesDelete([p], obj)),
  };
}

/**
 * Passes exactly the events `p` stops: Go's `Not`.
 *
 * @category Controller builder
 */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (obj) => !passesCreate([p], obj),
    update: (o, n) => !passesUpdate([p], o, n),
    delete: (obj) => !passesDelete([p], obj),
  };
}

function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a?.[k] === b?.[k]);
}
