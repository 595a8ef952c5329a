// What is special about deleting a Namespace: the namespace storage
// (pkg/registry/core/namespace/storage/storage.go: Delete marks it
// Terminating and keeps it until its spec finalizers are gone,
// ShouldDeleteNamespaceDuringUpdate, and FinalizeREST behind
// `namespaces/{name}/finalize`). Without a controller manager the sandbox
// also does the namespace controller's part in place
// (pkg/controller/namespace/deletion, namespaced_resources_deleter.go):
// it deletes what the namespace holds and finalizes it once it is empty.
import { formatTime } from '@kcm-ts/apimachinery';
import type { DeleteOptions, KubeObject } from '@kcm-ts/apimachinery';
import { resources } from '../../resources.js';
import type { ResourceInfo } from '../../resources.js';
import type { Storage } from '../../storage/storage.js';
import { notFound } from '../resource-errors.js';
import { sameButResourceVersion } from '../semantic-equality.js';
import { present } from '../versioning.js';
import { type Obj, obj } from '../../unstructured.js';

/** What the namespace storage needs of the generic store. */
export interface NamespaceParents {
  /** The storage underneath. */
  readonly storage: Storage;
  /** The served resource with this group and plural name. */
  resource(group: string, plural: string): ResourceInfo;
  /** The generic delete, for the objects of a terminating namespace. */
  delete(info: ResourceInfo, namespace: string, name: string, opts: DeleteOptions): unknown;
}

/** The spec finalizers a namespace waits for, if it has any. */
function specFinalizers(o: Obj): unknown[] {
  const finalizers = obj(o.spec).finalizers;
  return Array.isArray(finalizers) ? finalizers : [];
}

/** Namespace deletion and finalization over the generic store. */
export class NamespaceStorage {
  readonly #store: NamespaceParents;
  readonly #finish: boolean;

  /**
   * `finish`: empty and finalize deleted namespaces here (the namespace
   * controller's job), rather than leave them Terminating for one.
   */
  constructor(store: NamespaceParents, finish: boolean) {
    this.#store = store;
    this.#finish = finish;
    // When the last object of a terminating namespace goes (its finalizers
    // cleared), the namespace can be finalized.
    store.storage.subscribe((event) => {
      const ns = event.object.metadata?.namespace;
      if (event.type === 'DELETED' && ns) queueMicrotask(() => this.#finalizeIfEmpty(ns));
    });
  }

  /** ShouldDeleteNamespaceDuringUpdate: true while spec finalizers keep an update from deleting it. */
  waitsForFinalize(info: ResourceInfo, next: Obj): boolean {
    return info.storage === 'namespaces' && specFinalizers(next).length > 0;
  }

  /** A namespace whose deletion has just started shows phase Terminating. */
  markTerminating(info: ResourceInfo, next: Obj): void {
    if (info.storage === 'namespaces') next.status = { ...obj(next.status), phase: 'Terminating' };
  }

  /**
   * The namespace storage's Delete for a namespace with spec finalizers
   * (`next`, a copy of `existing` settled by the generic steps): it stays,
   * Terminating, and its contents go. Undefined for anything else, which
   * the generic delete finishes.
   */
  delete(
    info: ResourceInfo,
    existing: KubeObject,
    next: Obj,
    pending: boolean,
    now: number,
    dryRun: boolean,
  ): KubeObject | undefined {
    if (!this.waitsForFinalize(info, next)) return undefined;
    const name = existing.metadata?.name ?? '';
    if (!pending) {
      const m = next.metadata as Obj;
      m.deletionTimestamp = formatTime(now);
      m.deletionGracePeriodSeconds = 0;
      this.markTerminating(info, next);
    }
    if (dryRun) return present(info, next);
    const { storage } = this.#store;
    const out = sameButResourceVersion(next, existing)
      ? existing
      : storage.commit(info.storage, name, 'MODIFIED', next);
    this.#empty(name);
    return present(info, storage.get(info.storage, name) ?? out);
  }

  /** FinalizeREST, PUT `namespaces/{name}/finalize`: sets `spec.finalizers`; the namespace goes once they are empty. */
  finalize(name: string, body: unknown): KubeObject {
    const { storage } = this.#store;
    const info = this.#store.resource('', 'namespaces');
    const existing = storage.get('namespaces', name);
    if (!existing) throw notFound(info, name);
    const finalizers = obj(obj(body).spec).finalizers;
    const next = structuredClone(existing) as unknown as Obj;
    next.spec = { ...obj(next.spec), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    const meta = obj(next.metadata);
    const done =
      meta.deletionTimestamp !== undefined &&
      (!Array.isArray(finalizers) || finalizers.length === 0) &&
      !(Array.isArray(meta.finalizers) && meta.finalizers.length > 0);
    const stored = storage.commit('namespaces', name, done ? 'DELETED' : 'MODIFIED', next);
    return present(info, stored);
  }

  /** The namespace controller's job, done in place: delete everything in a terminating namespace. */
  #empty(namespace: string): void {
    if (!this.#finish) return;
    for (const info of resources) {
      if (!info.namespaced || (info.storage === 'events' && info.group !== '')) continue;
      for (const o of this.#store.storage.list(info.storage, namespace)) {
        if (o.metadata?.deletionTimestamp) continue;
        this.#store.delete(info, namespace, o.metadata?.name ?? '', {
          propagationPolicy: 'Background',
          gracePeriodSeconds: 0,
        });
      }
    }
    this.#finalizeIfEmpty(namespace);
  }

  // Finalizes a terminating namespace once nothing is left in it.
  #finalizeIfEmpty(namespace: string): void {
    if (!this.#finish) return;
    const { storage } = this.#store;
    const ns = storage.get('namespaces', namespace);
    if (!ns?.metadata?.deletionTimestamp) return;
    const finalizers = specFinalizers(ns as unknown as Obj);
    if (!finalizers.includes('kubernetes')) return;
    const occupied = resources.some(
      (info) => info.namespaced && storage.list(info.storage, namespace).length > 0,
    );
    if (occupied) return;
    this.finalize(namespace, {
      spec: { finalizers: finalizers.filter((f) => f !== 'kubernetes') },
    });
  }
}
