// Fixtures for the ReplicationController tests: replication_controller_test.go's
// newReplicationController in wire format, and an in-memory core/v1
// replicationcontrollers server (the sandbox does not serve the resource
// yet) that behaves as kube-apiserver does where the manager can notice:
// defaults (replicas 1, the selector from the template's labels), uid,
// resourceVersion and generation, 409 on a stale resourceVersion, a status
// subresource that writes only the status, and list+watch for informers.
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { OwnerReference, Status } from 'kubernetes-types/meta/v1.js';
import {
  formatTime,
  newAlreadyExists,
  newConflict,
  newControllerRef,
  newNotFound,
  optimisticLockErrorMsg,
  parseSelector,
  type GroupVersionResource,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import type { Sandbox } from '@kcm-ts/sandbox';
import { replicationControllerKind } from '../../src/index.js';
import { epoch } from '../helpers.js';

const resource = { group: '', resource: 'replicationcontrollers' };

/** A ReplicationController in wire format, as the API server would hold it. */
export function newReplicationController(
  name: string,
  replicas: number,
  opts: {
    uid?: string;
    labels?: Record<string, string>;
    namespace?: string;
    minReadySeconds?: number;
    owner?: OwnerReference;
    generation?: number;
  } = {},
): ReplicationController {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: {
      name,
      namespace: opts.namespace ?? 'default',
      uid: opts.uid ?? `uid-${name}`,
      resourceVersion: '18',
      generation: opts.generation ?? 1,
      creationTimestamp: formatTime(epoch),
      ...(opts.owner && { ownerReferences: [opts.owner] }),
    },
    spec: {
      replicas,
      selector: { ...labels },
      ...(opts.minReadySeconds !== undefined && { minReadySeconds: opts.minReadySeconds }),
      template: {
        metadata: { labels: { ...labels } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
  };
}

/** A pod owned by `rc` (or an orphan), in the shape of the ReplicaSet tests' `newPod`. */
export function newRCPod(
  name: string,
  rc: ReplicationController | undefined,
  opts: {
    phase?: string;
    labels?: Record<string, string>;
    ready?: boolean;
    readySince?: number;
    nodeName?: string;
    resourceVersion?: string;
    deleting?: boolean;
  } = {},
): Pod {
  const labels = opts.labels ?? rc?.spec?.selector ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: rc?.metadata?.namespace ?? 'default',
      uid: `uid-${name}`,
      resourceVersion: opts.resourceVersion ?? '18',
      labels: { ...labels },
      creationTimestamp: formatTime(epoch),
      ...(opts.deleting && { deletionTimestamp: formatTime(epoch) }),
      ...(rc && { ownerReferences: [newControllerRef(rc, replicationControllerKind)] }),
    },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27' }],
      ...(opts.nodeName !== undefined && { nodeName: opts.nodeName }),
    },
    status: {
      phase: opts.phase ?? 'Running',
      ...(opts.ready !== undefined && {
        conditions: [
          {
            type: 'Ready',
            status: opts.ready ? 'True' : 'False',
            lastTransitionTime: formatTime(opts.readySince ?? epoch),
          },
        ],
      }),
    },
  };
}

type Listener = (e: WatchEvent<ReplicationController>) => void;

/** The in-memory replicationcontrollers server; `client` is its unscoped client. */
export class RCServer {
  readonly #objects = new Map<string, ReplicationController>();
  readonly #listeners = new Set<Listener>();
  /** Every event so far, so a watch can start from the version of a list. */
  readonly #history: WatchEvent<ReplicationController>[] = [];
  #rv = 100;
  #uid = 0;
  /** Calls by verb, such as `updateStatus`. */
  readonly counts = new Map<string, number>();
  /** The next calls of a verb reject with this error (once each). */
  readonly failNext = new Map<string, Error>();
  readonly client: ResourceClient<ReplicationController> = new RCClient(this, undefined);

  /** The stored object (a copy), or undefined. */
  peek(namespace: string, name: string): ReplicationController | undefined {
    const rc = this.#objects.get(`${namespace}/${name}`);
    return rc && structuredClone(rc);
  }

  call<R>(verb: string, fn: () => R): Promise<R> {
    this.counts.set(verb, (this.counts.get(verb) ?? 0) + 1);
    const err = this.failNext.get(verb);
    if (err !== undefined) {
      this.failNext.delete(verb);
      return Promise.reject(err);
    }
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  get(namespace: string, name: string): ReplicationController {
    const rc = this.#objects.get(`${namespace}/${name}`);
    if (rc === undefined) throw newNotFound(resource, name);
    return structuredClone(rc);
  }

  create(namespace: string, obj: ReplicationController): ReplicationController {
    const name = obj.metadata?.name ?? '';
    if (this.#objects.has(`${namespace}/${name}`)) throw newAlreadyExists(resource, name);
    const rc: ReplicationController = structuredClone(obj);
    const spec = { ...rc.spec };
    // SetDefaults_ReplicationController: the selector and labels from the template.
    const templateLabels = spec.template?.metadata?.labels ?? {};
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...templateLabels };
    spec.replicas ??= 1;
    const rv = String(++this.#rv);
    const stored: ReplicationController = {
      ...rc,
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: {
        ...rc.metadata,
        namespace,
        uid: `rc-uid-${++this.#uid}`,
        resourceVersion: rv,
        generation: 1,
        creationTimestamp: formatTime(epoch),
        labels: rc.metadata?.labels ?? { ...templateLabels },
      },
      spec,
      status: { replicas: 0 },
    };
    return this.#store(stored, 'ADDED');
  }

  update(namespace: string, obj: ReplicationController, status: boolean): ReplicationController {
    const name = obj.metadata?.name ?? '';
    const old = this.get(namespace, name);
    const rv = obj.metadata?.resourceVersion;
    if (rv && rv !== old.metadata?.resourceVersion) {
      throw newConflict(resource, name, optimisticLockErrorMsg);
    }
    const next: ReplicationController = status
      ? { ...old, status: structuredClone(obj.status ?? { replicas: 0 }) }
      : { ...structuredClone(obj), status: old.status };
    let generation = old.metadata?.generation ?? 1;
    if (!status && JSON.stringify(obj.spec) !== JSON.stringify(old.spec)) generation++;
    const stored: ReplicationController = {
      ...next,
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: {
        ...(status ? old.metadata : next.metadata),
        uid: old.metadata?.uid ?? '',
        namespace,
        generation,
        resourceVersion: String(++this.#rv),
      },
    };
    return this.#store(stored, 'MODIFIED');
  }

  delete(namespace: string, name: string): Status {
    const old = this.get(namespace, name);
    this.#objects.delete(`${namespace}/${name}`);
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.#rv) } };
    this.#emit({ type: 'DELETED', object: gone });
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
  }

  list(namespace: string | undefined, opts: ListOptions): ObjectList<ReplicationController> {
    const selector = parseSelector(opts.labelSelector ?? '');
    const items = [...this.#objects.values()]
      .filter(
        (rc) =>
          (namespace === undefined || rc.metadata?.namespace === namespace) &&
          selector.matches(rc.metadata?.labels),
      )
      .map((rc) => structuredClone(rc));
    return {
      apiVersion: 'v1',
      kind: 'ReplicationControllerList',
      metadata: { resourceVersion: String(this.#rv) },
      items,
    };
  }

  /** Every change after `resourceVersion` (default now), until `signal` aborts. */
  watch(
    namespace: string | undefined,
    resourceVersion: string | undefined,
    signal?: AbortSignal,
  ): AsyncIterable<WatchEvent<ReplicationController>> {
    const buffered: WatchEvent<ReplicationController>[] = [];
    let wake: (() => void) | undefined;
    const wanted = (e: WatchEvent<ReplicationController>): boolean =>
      e.type !== 'ERROR' && (namespace === undefined || e.object.metadata?.namespace === namespace);
    const since = Number(resourceVersion ?? this.#rv);
    for (const e of this.#history) {
      if (wanted(e) && e.type !== 'ERROR' && Number(e.object.metadata?.resourceVersion) > since) {
        buffered.push(e);
      }
    }
    const listener: Listener = (e) => {
      if (!wanted(e)) return;
      buffered.push(e);
      wake?.();
    };
    this.#listeners.add(listener);
    const listeners = this.#listeners;
    return {
      async *[Symbol.asyncIterator]() {
        const aborted = new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        try {
          while (!signal?.aborted) {
            const next = buffered.shift();
            if (next !== undefined) {
              yield next;
              continue;
            }
            await Promise.race([new Promise<void>((r) => (wake = r)), aborted]);
            wake = undefined;
          }
        } finally {
          listeners.delete(listener);
        }
      },
    };
  }

  #store(rc: ReplicationController, type: 'ADDED' | 'MODIFIED'): ReplicationController {
    this.#objects.set(`${rc.metadata?.namespace}/${rc.metadata?.name}`, rc);
    this.#emit({ type, object: structuredClone(rc) });
    return structuredClone(rc);
  }

  #emit(e: WatchEvent<ReplicationController>): void {
    this.#history.push(e);
    for (const l of this.#listeners) l(e);
  }
}

class RCClient implements ResourceClient<ReplicationController> {
  readonly #server: RCServer;
  readonly namespace: string | undefined;

  constructor(server: RCServer, namespace: string | undefined) {
    this.#server = server;
    this.namespace = namespace;
  }

  inNamespace(namespace: string): ResourceClient<ReplicationController> {
    return new RCClient(this.#server, namespace === '' ? undefined : namespace);
  }

  #ns(obj?: ReplicationController): string {
    return this.namespace ?? obj?.metadata?.namespace ?? '';
  }

  get(name: string): Promise<ReplicationController> {
    return this.#server.call('get', () => this.#server.get(this.#ns(), name));
  }

  create(obj: ReplicationController): Promise<ReplicationController> {
    return this.#server.call('create', () => this.#server.create(this.#ns(obj), obj));
  }

  update(obj: ReplicationController): Promise<ReplicationController> {
    return this.#server.call('update', () => this.#server.update(this.#ns(obj), obj, false));
  }

  updateStatus(obj: ReplicationController): Promise<ReplicationController> {
    return this.#server.call('updateStatus', () => this.#server.update(this.#ns(obj), obj, true));
  }

  patch(): Promise<ReplicationController> {
    return Promise.reject(new Error('patch: not implemented by the test server'));
  }

  patchStatus(): Promise<ReplicationController> {
    return Promise.reject(new Error('patchStatus: not implemented by the test server'));
  }

  delete(name: string): Promise<ReplicationController | Status> {
    return this.#server.call('delete', () => this.#server.delete(this.#ns(), name));
  }

  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('deleteCollection: not implemented by the test server'));
  }

  list(opts: ListOptions = {}): Promise<ObjectList<ReplicationController>> {
    return this.#server.call('list', () => this.#server.list(this.namespace, opts));
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<ReplicationController>>> {
    return this.#server.call('watch', () =>
      this.#server.watch(this.namespace, opts.resourceVersion, opts.signal),
    );
  }
}

/** An informer source: the sandbox for every resource, `rcs` for replicationcontrollers. */
export function rcSource(sandbox: Sandbox, rcs: RCServer): ResourceClientSource {
  return {
    resource<T extends KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
      if (gvr.resource === 'replicationcontrollers') {
        return rcs.client as unknown as ResourceClient<T>;
      }
      return sandbox.client<T>(gvr.group, gvr.resource);
    },
  };
}
