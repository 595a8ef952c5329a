// Fixtures for the history tests: controller_history_test.go's newStatefulSet
// and rawTemplate in wire format, and an in-memory apps/v1
// controllerrevisions server (the sandbox does not serve the resource yet)
// that behaves as kube-apiserver does where a history can notice:
// AlreadyExists on a taken name, 409 on a stale resourceVersion, strategic
// merge patches of ownerReferences by uid, 422 for a patch that changes the
// uid or adds a second controller, immutable data. Its cache (`indexer`)
// follows every write at once, like an informer that has caught up.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { Status } from 'kubernetes-types/meta/v1.js';
import {
  formatTime,
  getControllerOf,
  metaNamespaceKeyFunc,
  newAlreadyExists,
  newConflict,
  newInvalid,
  newNotFound,
  optimisticLockErrorMsg,
  parseSelector,
  strategicMergePatch,
  type GroupVersionKind,
  type ListOptions,
  type ObjectList,
  type Patch,
  type PatchMeta,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import {
  Lister,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  type Indexer,
} from '@kcm-ts/informer';
import {
  controllerRevisionControllerIndex,
  controllerRevisionControllerIndexFunc,
} from '../../src/index.js';
import { epoch } from '../helpers.js';

/** Go's `parentKind` of the tests: apps/v1 StatefulSet. */
export const parentKind: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'StatefulSet' };

/**
 * A StatefulSet whose selector uses matchExpressions only, as Go's
 * `newStatefulSet` builds it, so a path that ignored them would break.
 */
export function newStatefulSet(
  replicas: number,
  name: string,
  uid: string,
  labels: Record<string, string>,
): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default', uid },
    spec: {
      replicas,
      serviceName: 'governingsvc',
      selector: {
        matchExpressions: Object.entries(labels).map(([key, value]) => ({
          key,
          operator: 'In',
          values: [value],
        })),
      },
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx',
              volumeMounts: [
                { name: 'datadir', mountPath: '/tmp/' },
                { name: 'home', mountPath: '/home' },
              ],
            },
          ],
          volumes: [{ name: 'home', hostPath: { path: '/tmp/home' } }],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'datadir' },
          spec: { resources: { requests: { storage: '1' } } },
        },
      ],
    },
  };
}

/** The template as a revision's data (Go's `rawTemplate`: its JSON). */
export function rawTemplate(template: PodTemplateSpec): object {
  return structuredClone(template);
}

/** `cr` in `namespace`, as the Go tests set `Namespace` after NewControllerRevision. */
export function inNamespace(cr: ControllerRevision, namespace: string): ControllerRevision {
  return { ...cr, metadata: { ...cr.metadata, namespace } };
}

/** `cr` with no owner references. */
export function orphaned(cr: ControllerRevision): ControllerRevision {
  return { ...cr, metadata: { ...cr.metadata, ownerReferences: [] } };
}

/** A cache of revisions keyed as an informer keys them, with both indexes. */
export function revisionIndexer(
  withControllerIndex = true,
  ...revisions: ControllerRevision[]
): Indexer<ControllerRevision> {
  const indexer = newIndexer<ControllerRevision>(metaNamespaceKeyFunc, {
    [namespaceIndex]: metaNamespaceIndexFunc,
    ...(withControllerIndex && {
      [controllerRevisionControllerIndex]: controllerRevisionControllerIndexFunc,
    }),
  });
  for (const cr of revisions) indexer.add(cr);
  return indexer;
}

const resource = { group: 'apps', resource: 'controllerrevisions' };
const kind = { group: 'apps', kind: 'ControllerRevision' };
const patchMeta: PatchMeta = {
  fields: {
    metadata: { meta: { fields: { ownerReferences: { strategy: 'merge', mergeKey: 'uid' } } } },
  },
};

type Verb = 'get' | 'create' | 'update' | 'patch' | 'delete' | 'list';

/** An in-memory controllerrevisions API and the cache that follows it. */
export class RevisionServer {
  /** The informer's view: every stored revision, with both indexes. */
  readonly indexer = revisionIndexer(true);
  /** A lister over {@link RevisionServer.indexer}. */
  readonly lister = new Lister(this.indexer, { group: 'apps', resource: 'controllerrevision' });
  /** Every request, as `verb namespace/name`. */
  readonly requests: string[] = [];
  readonly #objects = new Map<string, ControllerRevision>();
  readonly #faults = new Map<Verb, (() => Error)[]>();
  #rv = 100;
  #uid = 0;

  /** The next `errors.length` calls of `verb` fail with these, in order. */
  fail(verb: Verb, ...errors: (() => Error)[]): void {
    this.#faults.set(verb, [...(this.#faults.get(verb) ?? []), ...errors]);
  }

  /** The stored revision `namespace/name`, if any. */
  stored(namespace: string, name: string): ControllerRevision | undefined {
    const cr = this.#objects.get(`${namespace}/${name}`);
    return cr && structuredClone(cr);
  }

  /** An unscoped client; `inNamespace` scopes it. */
  client(namespace?: string): ResourceClient<ControllerRevision> {
    return new MemoryClient(this, namespace);
  }

  /** Runs one request: records it, injects a planned fault, or does it. */
  handle<R>(verb: Verb, namespace: string, name: string, fn: () => R): Promise<R> {
    this.requests.push(`${verb} ${namespace}/${name}`);
    return new Promise<R>((resolve) => {
      const fault = this.#faults.get(verb)?.shift();
      if (fault !== undefined) throw fault();
      resolve(structuredClone(fn()));
    });
  }

  get(namespace: string, name: string): ControllerRevision {
    const cr = this.#objects.get(`${namespace}/${name}`);
    if (cr === undefined) throw newNotFound(resource, name);
    return cr;
  }

  create(namespace: string, obj: ControllerRevision): ControllerRevision {
    const name = obj.metadata?.name ?? '';
    if (this.#objects.has(`${namespace}/${name}`)) throw newAlreadyExists(resource, name);
    const cr = structuredClone(obj);
    cr.metadata = {
      ...cr.metadata,
      namespace,
      uid: `cr-uid-${++this.#uid}`,
      resourceVersion: String(++this.#rv),
      creationTimestamp: formatTime(epoch),
    };
    this.#validate(cr);
    return this.#store(cr);
  }

  update(namespace: string, obj: ControllerRevision): ControllerRevision {
    const name = obj.metadata?.name ?? '';
    const old = this.get(namespace, name);
    const rv = obj.metadata?.resourceVersion;
    if (rv && rv !== old.metadata?.resourceVersion) {
      throw newConflict(resource, name, optimisticLockErrorMsg);
    }
    const cr: ControllerRevision = structuredClone(obj);
    cr.metadata = { ...cr.metadata, namespace, resourceVersion: String(++this.#rv) };
    this.#validateUpdate(old, cr);
    return this.#store(cr);
  }

  patch(namespace: string, name: string, patch: Patch): ControllerRevision {
    const old = this.get(namespace, name);
    if (patch.type !== 'strategic') throw new Error(`unexpected ${patch.type} patch`);
    const cr = strategicMergePatch(old, patch.body, patchMeta) as unknown as ControllerRevision;
    cr.metadata = { ...cr.metadata, resourceVersion: String(++this.#rv) };
    this.#validateUpdate(old, cr);
    return this.#store(cr);
  }

  delete(namespace: string, name: string): Status {
    const cr = this.get(namespace, name);
    this.#objects.delete(`${namespace}/${name}`);
    this.indexer.delete(cr);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
  }

  list(namespace: string | undefined, opts: ListOptions): ObjectList<ControllerRevision> {
    const selector = parseSelector(opts.labelSelector ?? '');
    const items = [...this.#objects.values()].filter(
      (cr) =>
        (namespace === undefined || cr.metadata?.namespace === namespace) &&
        selector.matches(cr.metadata?.labels),
    );
    return {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevisionList',
      metadata: { resourceVersion: String(this.#rv) },
      items,
    };
  }

  #store(cr: ControllerRevision): ControllerRevision {
    this.#objects.set(`${cr.metadata?.namespace}/${cr.metadata?.name}`, cr);
    this.indexer.update(structuredClone(cr));
    return cr;
  }

  #validate(cr: ControllerRevision): void {
    const controllers = (cr.metadata?.ownerReferences ?? []).filter((r) => r.controller === true);
    if (controllers.length > 1) {
      throw newInvalid(kind, cr.metadata?.name ?? '', [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences',
          message: 'Only one reference can have Controller set to true',
        },
      ]);
    }
  }

  #validateUpdate(old: ControllerRevision, cr: ControllerRevision): void {
    const name = cr.metadata?.name ?? '';
    if (cr.metadata?.uid !== old.metadata?.uid) {
      throw newInvalid(kind, name, [
        { reason: 'FieldValueInvalid', field: 'metadata.uid', message: 'field is immutable' },
      ]);
    }
    if (JSON.stringify(cr.data) !== JSON.stringify(old.data)) {
      throw newInvalid(kind, name, [
        { reason: 'FieldValueInvalid', field: 'data', message: 'field is immutable' },
      ]);
    }
    this.#validate(cr);
  }
}

class MemoryClient implements ResourceClient<ControllerRevision> {
  readonly #server: RevisionServer;
  readonly namespace: string | undefined;

  constructor(server: RevisionServer, namespace: string | undefined) {
    this.#server = server;
    this.namespace = namespace;
  }

  inNamespace(namespace: string): ResourceClient<ControllerRevision> {
    return new MemoryClient(this.#server, namespace === '' ? undefined : namespace);
  }

  #ns(obj?: ControllerRevision): string {
    return this.namespace ?? obj?.metadata?.namespace ?? '';
  }

  get(name: string): Promise<ControllerRevision> {
    const ns = this.#ns();
    return this.#server.handle('get', ns, name, () => this.#server.get(ns, name));
  }

  create(obj: ControllerRevision): Promise<ControllerRevision> {
    const ns = this.#ns(obj);
    const name = obj.metadata?.name ?? '';
    return this.#server.handle('create', ns, name, () => this.#server.create(ns, obj));
  }

  update(obj: ControllerRevision): Promise<ControllerRevision> {
    const ns = this.#ns(obj);
    const name = obj.metadata?.name ?? '';
    return this.#server.handle('update', ns, name, () => this.#server.update(ns, obj));
  }

  updateStatus(): Promise<ControllerRevision> {
    return Promise.reject(new Error('controllerrevisions have no status'));
  }

  patch(name: string, patch: Patch): Promise<ControllerRevision> {
    const ns = this.#ns();
    return this.#server.handle('patch', ns, name, () => this.#server.patch(ns, name, patch));
  }

  patchStatus(): Promise<ControllerRevision> {
    return Promise.reject(new Error('controllerrevisions have no status'));
  }

  delete(name: string): Promise<ControllerRevision | Status> {
    const ns = this.#ns();
    return this.#server.handle('delete', ns, name, () => this.#server.delete(ns, name));
  }

  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('not implemented'));
  }

  list(opts: ListOptions = {}): Promise<ObjectList<ControllerRevision>> {
    return this.#server.handle('list', this.namespace ?? '', '', () =>
      this.#server.list(this.namespace, opts),
    );
  }

  watch(): Promise<AsyncIterable<WatchEvent<ControllerRevision>>> {
    return Promise.reject(new Error('not implemented'));
  }
}

/** True when `cr`'s controller reference names `owner`'s uid. */
export function controlledBy(cr: ControllerRevision | undefined, owner: StatefulSet): boolean {
  return cr !== undefined && getControllerOf(cr)?.uid === owner.metadata?.uid;
}
