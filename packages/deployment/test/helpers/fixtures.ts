// Test fixtures in the shape of the Go tests' helpers (deployment_controller_test.go:
// rs, newRSWithStatus, newDeployment, newReplicaSet; deployment_util_test.go:
// generateDeployment, generateRS), and a fake client that records actions
// like client-go's fake clientset.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  labelSelectorAsSelector,
  metaNamespaceKeyFunc,
  newAlreadyExists,
  newNotFound,
  noopLogger,
  patchMetaForKind,
  strategicMergePatch,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type Patch,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import {
  Lister,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  type Indexer,
  type Indexers,
  type ResourceEventHandler,
  type ResourceInformer,
  type SharedIndexInformer,
} from '@kcm-ts/informer';
import type { DeploymentSyncContext } from '../../src/sync-context.js';

let uidSeq = 0;
/** A fresh uid. */
export const newUID = (): string => `uid-${++uidSeq}`;

/** A ReplicaSet like Go's `rs(name, replicas, selector, timestamp)`. */
export function rs(
  name: string,
  replicas: number,
  selector: Record<string, string> | undefined,
  timestamp?: string,
): ReplicaSet {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: newUID(),
      ...(timestamp !== undefined ? { creationTimestamp: timestamp } : {}),
    },
    spec: {
      replicas,
      selector: { ...(selector ? { matchLabels: selector } : {}) },
      template: {},
    },
  };
}

/** Go's `newRSWithStatus`. */
export function newRSWithStatus(
  name: string,
  specReplicas: number,
  statusReplicas: number,
  selector?: Record<string, string>,
): ReplicaSet {
  const r = rs(name, specReplicas, selector);
  return { ...r, status: { replicas: statusReplicas } };
}

/** Sets status fields on a ReplicaSet (its `status` is read-only in kubernetes-types). */
export function withStatus(r: ReplicaSet, status: NonNullable<ReplicaSet['status']>): ReplicaSet {
  (r as { status?: ReplicaSet['status'] }).status = status;
  return r;
}

/**
 * A RollingUpdate Deployment like Go's `newDeployment(name, replicas,
 * revisionHistoryLimit, maxSurge, maxUnavailable, selector)`: both bounds
 * default to 0 as in the Go helper.
 */
export function newDeployment(
  name: string,
  replicas: number,
  revisionHistoryLimit?: number,
  maxSurge?: number | string,
  maxUnavailable?: number | string,
  selector?: Record<string, string>,
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { uid: newUID(), name, namespace: 'default', annotations: {} },
    spec: {
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: maxUnavailable ?? 0, maxSurge: maxSurge ?? 0 },
      },
      replicas,
      selector: { ...(selector ? { matchLabels: { ...selector } } : {}) },
      template: {
        metadata: { labels: { ...(selector ?? {}) } },
        spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
      },
      ...(revisionHistoryLimit !== undefined ? { revisionHistoryLimit } : {}),
    },
  };
}

/** A ReplicaSet of `d` with its template, like Go's `newReplicaSet(d, name, replicas)`. */
export function newReplicaSet(d: Deployment, name: string, replicas: number): ReplicaSet {
  return {
    metadata: {
      name,
      uid: newUID(),
      namespace: 'default',
      labels: { ...(d.spec?.selector.matchLabels ?? {}) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: d.metadata!.name!,
          uid: d.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      selector: structuredClone(d.spec!.selector),
      replicas,
      template: structuredClone(d.spec!.template),
    },
  };
}

/** A pod of `r` (Go's `generatePodFromRS`). */
export function podOf(r: ReplicaSet, name = `${r.metadata!.name}-pod`): Pod {
  return {
    metadata: {
      name,
      namespace: r.metadata?.namespace ?? 'default',
      uid: newUID(),
      labels: { ...(r.spec?.selector.matchLabels ?? {}) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: r.metadata!.name!,
          uid: r.metadata!.uid!,
          controller: true,
        },
      ],
    },
    spec: { containers: [{ name: 'c', image: 'foo/bar' }] },
  };
}

/** Go's `generateDeployment(image)` in deployment_util_test.go. */
export function generateDeployment(image: string): Deployment {
  const podLabels = { name: image };
  return {
    metadata: { name: image, namespace: 'default', uid: newUID(), annotations: {} },
    spec: {
      replicas: 1,
      selector: { matchLabels: { ...podLabels } },
      template: {
        metadata: { labels: { ...podLabels } },
        spec: {
          containers: [
            {
              name: image,
              image,
              imagePullPolicy: 'Always',
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          terminationGracePeriodSeconds: 30,
          restartPolicy: 'Always',
          securityContext: {},
          enableServiceLinks: true,
        },
      },
    },
  };
}

/** Go's `generateRS(deployment)`: a ReplicaSet of 0 with the Deployment's template. */
export function generateRS(d: Deployment): ReplicaSet {
  const template = structuredClone(d.spec!.template);
  return {
    metadata: {
      uid: newUID(),
      name: `${d.metadata!.name}-${Math.random().toString(36).slice(2, 7)}`,
      namespace: 'default',
      labels: template.metadata?.labels ?? {},
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: d.metadata!.name!,
          uid: d.metadata!.uid!,
          controller: true,
        },
      ],
    },
    spec: {
      replicas: 0,
      template,
      selector: { matchLabels: { ...(template.metadata?.labels ?? {}) } },
    },
  };
}

/** One call made through a {@link FakeClient}. */
export interface Action {
  verb: 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete';
  resource: string;
  namespace: string;
  name: string;
  subresource?: 'status';
  object?: unknown;
}

/**
 * A resource client over an in-memory map that records every call, as
 * client-go's fake clientset does: no resourceVersion checks, objects handed
 * back as written. `failOn` injects an error for a verb.
 */
export class FakeClient<T extends KubeObject> implements ResourceClient<T> {
  readonly namespace: string | undefined;
  readonly objects: Map<string, T>;
  readonly actions: Action[];
  readonly #resource: string;
  readonly #kind: string;
  readonly #namespace: string;
  readonly #failures: Map<string, unknown>;
  readonly #rv: { n: number };

  constructor(
    resource: string,
    kind: string,
    actions: Action[] = [],
    shared?: { objects: Map<string, T>; failures: Map<string, unknown>; rv: { n: number } },
    namespace = '',
  ) {
    this.#resource = resource;
    this.#kind = kind;
    this.actions = actions;
    this.#namespace = namespace;
    this.namespace = namespace === '' ? undefined : namespace;
    this.#failures = shared?.failures ?? new Map();
    this.#rv = shared?.rv ?? { n: 100 };
    this.objects = shared?.objects ?? new Map();
  }

  /** Makes every later call of `verb` (optionally only on `subresource`) reject with `err`. */
  failOn(verb: Action['verb'] | 'updateStatus', err: unknown): void {
    this.#failures.set(verb, err);
  }

  /** Adds objects as if they existed on the server. */
  seed(...objs: T[]): this {
    for (const o of objs) this.objects.set(metaNamespaceKeyFunc(o), structuredClone(o));
    return this;
  }

  inNamespace(namespace: string): ResourceClient<T> {
    return new FakeClient<T>(
      this.#resource,
      this.#kind,
      this.actions,
      { objects: this.objects, failures: this.#failures, rv: this.#rv },
      namespace,
    );
  }

  #ns(obj?: KubeObject): string {
    return obj?.metadata?.namespace ?? this.#namespace;
  }

  #fail(verb: string): void {
    if (this.#failures.has(verb)) throw this.#failures.get(verb);
  }

  #gr() {
    return { group: this.#resource === 'pods' ? '' : 'apps', resource: this.#resource };
  }

  async list(opts: ListOptions = {}): Promise<ObjectList<T>> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    this.actions.push({
      verb: 'list',
      resource: this.#resource,
      namespace: this.#namespace,
      name: '',
    });
    this.#fail('list');
    const selector = opts.labelSelector ? labelSelectorFromString(opts.labelSelector) : undefined;
    const items = [...this.objects.values()].filter(
      (o) =>
        (this.#namespace === '' || o.metadata?.namespace === this.#namespace) &&
        (selector === undefined || selector(o.metadata?.labels ?? {})),
    );
    return { apiVersion: 'v1', kind: 'List', metadata: {}, items: structuredClone(items) };
  }

  watch(): Promise<AsyncIterable<never>> {
    return Promise.reject(new Error('FakeClient does not watch'));
  }

  async get(name: string): Promise<T> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    this.actions.push({ verb: 'get', resource: this.#resource, namespace: this.#namespace, name });
    this.#fail('get');
    const o = this.objects.get(`${this.#namespace}/${name}`);
    if (!o) throw newNotFound(this.#gr(), name);
    return structuredClone(o);
  }

  async create(obj: T): Promise<T> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    const ns = this.#ns(obj);
    const name = obj.metadata?.name ?? '';
    this.actions.push({
      verb: 'create',
      resource: this.#resource,
      namespace: ns,
      name,
      object: structuredClone(obj),
    });
    this.#fail('create');
    const key = `${ns}/${name}`;
    if (this.objects.has(key)) throw newAlreadyExists(this.#gr(), name);
    const stored = structuredClone(obj);
    stored.metadata = {
      ...stored.metadata,
      namespace: ns,
      uid: stored.metadata?.uid ?? newUID(),
      resourceVersion: String(++this.#rv.n),
      creationTimestamp: stored.metadata?.creationTimestamp ?? formatTime(Date.UTC(2026, 0, 1)),
    };
    this.objects.set(key, stored);
    return structuredClone(stored);
  }

  async #write(obj: T, subresource?: 'status'): Promise<T> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    const ns = this.#ns(obj);
    const name = obj.metadata?.name ?? '';
    this.actions.push({
      verb: 'update',
      resource: this.#resource,
      namespace: ns,
      name,
      ...(subresource ? { subresource } : {}),
      object: structuredClone(obj),
    });
    this.#fail(subresource ? 'updateStatus' : 'update');
    const stored = structuredClone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#rv.n) };
    // Like the fake clientset without a tracker entry: the object comes back as sent.
    this.objects.set(`${ns}/${name}`, stored);
    return structuredClone(stored);
  }

  update(obj: T): Promise<T> {
    return this.#write(obj);
  }

  updateStatus(obj: T): Promise<T> {
    return this.#write(obj, 'status');
  }

  async patch(name: string, patch: Patch): Promise<T> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    this.actions.push({
      verb: 'patch',
      resource: this.#resource,
      namespace: this.#namespace,
      name,
      object: patch,
    });
    this.#fail('patch');
    const key = `${this.#namespace}/${name}`;
    const o = this.objects.get(key);
    if (!o) throw newNotFound(this.#gr(), name);
    if (patch.type !== 'strategic')
      throw new Error('FakeClient only applies strategic merge patches');
    const meta = patchMetaForKind('apps/v1', this.#kind) ?? patchMetaForKind('v1', this.#kind)!;
    const body = structuredClone(patch.body) as Record<string, unknown>;
    // The uid precondition of adopt/release patches.
    const wantUID = (body.metadata as { uid?: string } | undefined)?.uid;
    if (wantUID !== undefined && wantUID !== o.metadata?.uid) {
      throw newNotFound(this.#gr(), name);
    }
    const next = strategicMergePatch(o, body, meta) as T;
    next.metadata = { ...next.metadata, resourceVersion: String(++this.#rv.n) };
    this.objects.set(key, next);
    return structuredClone(next);
  }

  patchStatus(name: string, patch: Patch): Promise<T> {
    return this.patch(name, patch);
  }

  deleteCollection(): Promise<void> {
    return Promise.reject(new Error('deletecollection: not used by the Deployment controller'));
  }

  async delete(name: string): Promise<never> {
    // Answer on a later tick, as a server would.
    await Promise.resolve();
    this.actions.push({
      verb: 'delete',
      resource: this.#resource,
      namespace: this.#namespace,
      name,
    });
    this.#fail('delete');
    const key = `${this.#namespace}/${name}`;
    if (!this.objects.delete(key)) throw newNotFound(this.#gr(), name);
    return { kind: 'Status', apiVersion: 'v1', status: 'Success' } as never;
  }
}

function labelSelectorFromString(s: string): (labels: Record<string, string>) => boolean {
  const matchLabels: Record<string, string> = {};
  for (const part of s.split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    matchLabels[k!] = v ?? '';
  }
  const sel = labelSelectorAsSelector({ matchLabels });
  return (labels) => sel.matches(labels);
}

/** The three fake clients of a controller, sharing one action log. */
export function fakeClients() {
  const actions: Action[] = [];
  return {
    actions,
    deployments: new FakeClient<Deployment>('deployments', 'Deployment', actions),
    replicaSets: new FakeClient<ReplicaSet>('replicasets', 'ReplicaSet', actions),
    pods: new FakeClient<Pod>('pods', 'Pod', actions),
  };
}

/** What tests see of the writes: `verb resource[/status] name`. */
export function describeActions(actions: readonly Action[], verbs?: Action['verb'][]): string[] {
  return actions
    .filter((a) => verbs === undefined || verbs.includes(a.verb))
    .map((a) => `${a.verb} ${a.resource}${a.subresource ? '/status' : ''} ${a.name}`);
}

/** A store-backed stand-in for a shared informer, whose handlers a test calls directly. */
export interface FakeInformer<T> {
  resource: ResourceInformer<T & KubeObject>;
  indexer: Indexer<T>;
  handlers: ResourceEventHandler<T>[];
  add(...objs: T[]): void;
}

export function fakeInformer<T extends KubeObject>(
  singular: string,
  group = 'apps',
): FakeInformer<T> {
  const indexer = newIndexer<T>(metaNamespaceKeyFunc, { [namespaceIndex]: metaNamespaceIndexFunc });
  const handlers: ResourceEventHandler<T>[] = [];
  const informer = {
    addEventHandler(h: ResourceEventHandler<T>) {
      handlers.push(h);
      return { hasSynced: () => true };
    },
    hasSynced: () => true,
    getIndexer: () => indexer,
    addIndexers: (indexers: Indexers<T>) => indexer.addIndexers(indexers),
  };
  return {
    resource: {
      informer: () => informer as unknown as SharedIndexInformer<T>,
      lister: () => new Lister<T>(indexer, { group, resource: singular }),
    },
    indexer,
    handlers,
    add: (...objs) => objs.forEach((o) => indexer.add(o)),
  };
}

/** A sync context over fake clients, the way Go's tests build a bare controller. */
export function fakeContext(
  opts: {
    clock?: FakeClock;
    clients?: ReturnType<typeof fakeClients>;
    rsInformer?: FakeInformer<ReplicaSet>;
  } = {},
) {
  const clock = opts.clock ?? new FakeClock();
  const clients = opts.clients ?? fakeClients();
  const recorder = new FakeRecorder();
  const rsInformer = opts.rsInformer ?? fakeInformer<ReplicaSet>('replicaset');
  const enqueued: { key: string; after?: number; rateLimited?: boolean }[] = [];
  const ctx: DeploymentSyncContext = {
    client: clients,
    recorder,
    clock,
    logger: noopLogger,
    rsLister: rsInformer.resource.lister(),
    enqueueRateLimited: (d) => enqueued.push({ key: metaNamespaceKeyFunc(d), rateLimited: true }),
    enqueueAfter: (d, ms) => enqueued.push({ key: metaNamespaceKeyFunc(d), after: ms }),
  };
  return { ctx, clock, clients, recorder, enqueued, rsInformer };
}

export type { Lister };

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The object's metadata, writable (kubernetes-types marks server-set fields read-only). */
export function meta(obj: KubeObject): Writable<ObjectMeta> {
  return (obj.metadata ??= {});
}

/** Sets a pod's status (read-only in kubernetes-types). */
export function withPodStatus(pod: Pod, status: NonNullable<Pod['status']>): Pod {
  (pod as { status?: Pod['status'] }).status = status;
  return pod;
}
