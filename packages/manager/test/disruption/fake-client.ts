// A recording client for controller unit tests, in the manner of client-go's
// fake clientset with its Actions(): every write is logged and answered
// from the object sent (creates get a uid), failures can be planned per
// `verb resource`, and a written object can be put into an informer's cache
// as the watch would, so that the next sync sees it. Reads are not served:
// the controllers under test read their caches.
import type { Status } from 'kubernetes-types/meta/v1.js';
import {
  formatTime,
  isStatus,
  newNotFound,
  type GroupVersionResource,
  type KubeObject,
  type Patch,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource, Store } from '@kcm-ts/informer';

/** One write the fake served (or failed). */
export interface Action {
  /** `create`, `update`, `updateStatus`, `patch` or `delete`. */
  verb: string;
  /** The plural resource, such as `poddisruptionbudgets`. */
  resource: string;
  namespace: string;
  name: string;
  /** The object sent with a create or an update. */
  object?: KubeObject;
  /** The patch sent. */
  patch?: Patch;
}

/** The recording client. */
export class FakeClient implements ResourceClientSource {
  /** Every write, oldest first. */
  readonly actions: Action[] = [];
  /** Errors to answer with instead, keyed `verb resource`, each used once, oldest first. */
  readonly failures = new Map<string, Error[]>();
  /** Caches a successful write of a resource is put into, keyed by plural resource. */
  readonly caches = new Map<string, Store<KubeObject>>();
  #uid = 0;

  /** The writes of `verb` to `resource`, oldest first. */
  writes<T extends KubeObject>(verb: string, resource: string): T[] {
    return this.actions
      .filter((a) => a.verb === verb && a.resource === resource && a.object)
      .map((a) => a.object as T);
  }

  /** Plans `err` for the next `verb` on `resource`. */
  fail(verb: string, resource: string, err: Error): void {
    const key = `${verb} ${resource}`;
    this.failures.set(key, [...(this.failures.get(key) ?? []), err]);
  }

  resource<T extends KubeObject>(
    gvr: GroupVersionResource,
    o: { namespaced: boolean; kind: string },
  ): ResourceClient<T> {
    const resource = gvr.resource;
    const write = (
      verb: string,
      ns: string,
      name: string,
      extra: Partial<Action>,
      answer: () => T | Status,
    ): Promise<T> => {
      this.actions.push({ verb, resource, namespace: ns, name, ...extra });
      const err = this.failures.get(`${verb} ${resource}`)?.shift();
      if (err !== undefined) return Promise.reject(err);
      const out = answer();
      const cache = this.caches.get(resource);
      if (cache && !isStatus(out)) {
        if (verb === 'create') cache.add(out);
        else cache.update(out);
      }
      return Promise.resolve(out as T);
    };
    const make = (ns: string): ResourceClient<T> => {
      const nsOf = (obj: T) => (o.namespaced ? ns || (obj.metadata?.namespace ?? '') : '');
      const stored = (obj: T): T => {
        const copy = structuredClone(obj);
        copy.metadata = { ...copy.metadata, ...(o.namespaced ? { namespace: nsOf(obj) } : {}) };
        return copy;
      };
      const unsupported = () => Promise.reject(new Error('the fake client serves writes only'));
      return {
        namespace: ns || undefined,
        inNamespace: (n: string) => make(n),
        list: unsupported,
        watch: unsupported,
        get: (name: string) => Promise.reject(newNotFound({ group: gvr.group, resource }, name)),
        create: (obj: T) =>
          write(
            'create',
            nsOf(obj),
            obj.metadata?.name ?? '',
            { object: structuredClone(obj) },
            () => {
              const out = stored(obj);
              out.metadata = {
                ...out.metadata,
                uid: `uid-${++this.#uid}`,
                resourceVersion: '1',
                creationTimestamp: formatTime(0),
              };
              return out;
            },
          ),
        update: (obj: T) =>
          write(
            'update',
            nsOf(obj),
            obj.metadata?.name ?? '',
            { object: structuredClone(obj) },
            () => stored(obj),
          ),
        updateStatus: (obj: T) =>
          write(
            'updateStatus',
            nsOf(obj),
            obj.metadata?.name ?? '',
            { object: structuredClone(obj) },
            () => stored(obj),
          ),
        patch: (name: string, patch: Patch) =>
          write('patch', ns, name, { patch }, () => {
            const body = 'body' in patch ? (patch.body as T) : ({ metadata: { name } } as T);
            return stored(body);
          }),
        patchStatus: (name: string, patch: Patch) =>
          write('patchStatus', ns, name, { patch }, () => ({ metadata: { name } }) as T),
        delete: (name: string) =>
          write('delete', ns, name, {}, () => ({ metadata: { name } }) as T),
        deleteCollection: () => Promise.reject(new Error('the fake client has no collections')),
      };
    };
    return make('');
  }
}
