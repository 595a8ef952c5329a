// Objects in and out of storage: the versioning codec
// (apimachinery's pkg/runtime/serializer/versioning/versioning.go) sets
// apiVersion and kind on what it encodes and converts between a resource's
// version and the stored one. Here the only conversion is the events.k8s.io
// view of core Events (event-views.ts); every other resource is stored as
// served.
import type { KubeObject } from '@kcm-ts/apimachinery';
import { apiVersionOf } from '../resources.js';
import type { ResourceInfo } from '../resources.js';
import { eventFromCore, eventToCore } from './event-views.js';
import { type Obj } from '../unstructured.js';

const isEventsV1 = (info: ResourceInfo): boolean =>
  info.storage === 'events' && info.group === 'events.k8s.io';

/** A stored object as `info` shows it: a mutable copy, with apiVersion and kind. */
export function present(info: ResourceInfo, stored: KubeObject): KubeObject {
  let out = structuredClone(stored) as Obj;
  if (isEventsV1(info)) out = eventFromCore(out);
  // apiVersion and kind first, as kube-apiserver writes them.
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = out;
  return { apiVersion: apiVersionOf(info), kind: info.kind, ...rest };
}

/** A request's object, of the resource `info`, in the form it is stored in. */
export function toStorageForm(info: ResourceInfo, body: Obj): Obj {
  const served = { ...body, apiVersion: apiVersionOf(info), kind: info.kind };
  const stored = isEventsV1(info) ? eventToCore(served) : served;
  stored.apiVersion = info.storage === 'events' ? 'v1' : apiVersionOf(info);
  return stored;
}

/**
 * Stored objects as each resource shows them, frozen and made once per
 * change for every watcher of the resource (the cacher's cachingObject,
 * staging/src/k8s.io/apiserver/pkg/storage/cacher/caching_object.go).
 */
export class SharedForms {
  readonly #forms = new WeakMap<KubeObject, Map<ResourceInfo, KubeObject>>();

  /** The one frozen form of `stored` as `info` shows it. */
  present(info: ResourceInfo, stored: KubeObject): KubeObject {
    let forms = this.#forms.get(stored);
    if (!forms) {
      forms = new Map();
      this.#forms.set(stored, forms);
    }
    let form = forms.get(info);
    if (!form) {
      // The stored object is frozen all the way down: only the top level,
      // with apiVersion and kind first, is new.
      const source = isEventsV1(info)
        ? eventFromCore(structuredClone(stored) as Obj)
        : (stored as unknown as Obj);
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = source;
      form = Object.freeze({ apiVersion: apiVersionOf(info), kind: info.kind, ...rest });
      forms.set(info, form);
    }
    return form;
  }
}
