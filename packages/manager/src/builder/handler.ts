// How a watched object's event becomes requests in the queue:
// controller-runtime's pkg/handler (enqueue.go: EnqueueRequestForObject;
// enqueue_owner.go: EnqueueRequestForOwner with OnlyControllerOwner;
// enqueue_mapped.go: EnqueueRequestsFromMapFunc), run behind the watch's
// predicates (pkg/internal/source/event_handler.go: EventHandler.OnAdd,
// OnUpdate, OnDelete).
import {
  getControllerOf,
  isDeletedFinalStateUnknown,
  parseGroupVersion,
  type DeletedFinalStateUnknown,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import type { ResourceEventHandler } from '@kcm-ts/informer';
import { passesCreate, passesDelete, passesUpdate, type Predicate } from './predicate.js';
import { requestKey, type Request } from './reconcile.js';

/**
 * Maps a watched object to the requests it concerns: Go's `handler.MapFunc`.
 *
 * @category Controller builder
 */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly Request[];

/** The request naming `obj` itself: Go's `EnqueueRequestForObject`. */
export const enqueueForObject: MapFunc = (obj) => [
  { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' },
];

/**
 * The request naming the object's controller, when that controller is of
 * `owner`'s group and kind: Go's `EnqueueRequestForOwner(..., OnlyControllerOwner())`.
 * The owner is in the object's namespace, or cluster-scoped.
 */
//#region enqueue-for-owner
export function enqueueForOwner(owner: {
  group: string;
  kind: string;
  namespaced: boolean;
}): MapFunc {
  return (obj) => {
    const ref = getControllerOf(obj);
    if (ref === undefined || ref.kind !== owner.kind) return [];
    if (parseGroupVersion(ref.apiVersion).group !== owner.group) return [];
    const namespace = owner.namespaced ? (obj.metadata?.namespace ?? '') : '';
    return [{ namespace, name: ref.name }];
  };
}
//#endregion enqueue-for-owner

/**
 * An informer handler that filters events through `predicates`, maps each
 * object to requests with `map` and adds their keys to the queue. An update
 * enqueues the requests of the old object too, so an owner that lost a
 * dependent hears of it (as Go's owner handler does).
 */
export function enqueueHandler<T extends KubeObject>(
  map: MapFunc<T>,
  predicates: readonly Predicate<T>[],
  add: (key: string) => void,
): ResourceEventHandler<T> {
  const enqueue = (obj: T) => {
    for (const req of map(obj)) if (req.name) add(requestKey(req));
  };
  return {
    onAdd: (obj) => {
      if (passesCreate(predicates, obj)) enqueue(obj);
    },
    onUpdate: (oldObj, newObj) => {
      if (!passesUpdate(predicates, oldObj, newObj)) return;
      const seen = new Set<string>();
      for (const obj of [newObj, oldObj])
        for (const req of map(obj)) {
          const key = requestKey(req);
          if (req.name && !seen.has(key)) {
            seen.add(key);
            add(key);
          }
        }
    },
    onDelete: (obj: T | DeletedFinalStateUnknown<T>) => {
      // A missed delete carries the last known state, possibly none.
      const last = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
      if (last === undefined) return;
      if (passesDelete(predicates, last)) enqueue(last);
    },
  };
}
