// Shared test fixtures: objects in wire format shaped like the ones
// controller_utils_test.go and replica_set_test.go build, and a client
// wrapper that counts requests and injects failures (the sandbox's fault lab
// acts only on HTTP). The controller packages' tests build on them.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import {
  formatTime,
  newControllerRef,
  type GroupVersionKind,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';

/** The kind a pod's controller reference names. */
export const replicaSetKind: GroupVersionKind = {
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
};

/** 2026-01-01T00:00:00Z, the fake clock's default start. */
export const epoch = Date.UTC(2026, 0, 1);

/** A ReplicaSet in wire format, as the API server would hold it. */
export function newReplicaSet(
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
): ReplicaSet {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
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
      selector: { matchLabels: labels },
      ...(opts.minReadySeconds !== undefined && { minReadySeconds: opts.minReadySeconds }),
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
  };
}

/** `obj` without the fields the server sets, ready to be created. */
export function creatable<T extends KubeObject>(obj: T): T {
  const metadata = { ...obj.metadata };
  delete metadata.uid;
  delete metadata.resourceVersion;
  delete metadata.creationTimestamp;
  delete metadata.generation;
  return { ...obj, metadata };
}

/** A pod owned by `rs` (or an orphan with `rs` undefined), with the given phase. */
export function newPod(
  name: string,
  rs: ReplicaSet | undefined,
  opts: {
    phase?: string;
    labels?: Record<string, string>;
    ready?: boolean;
    readySince?: number;
    nodeName?: string;
    namespace?: string;
    uid?: string;
    deleting?: boolean;
    resourceVersion?: string;
  } = {},
): Pod {
  const labels = opts.labels ?? rs?.spec?.selector.matchLabels ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.namespace ?? rs?.metadata?.namespace ?? 'default',
      uid: opts.uid ?? `uid-${name}`,
      resourceVersion: opts.resourceVersion ?? '18',
      labels,
      creationTimestamp: formatTime(epoch),
      ...(opts.deleting && { deletionTimestamp: formatTime(epoch) }),
      ...(rs && { ownerReferences: [newControllerRef(rs, replicaSetKind)] }),
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

type Verb = 'list' | 'watch' | 'get' | 'create' | 'update' | 'updateStatus' | 'patch' | 'delete';

/** A client that counts every call by verb and fails the next calls on demand. */
export interface FaultyClient<T extends KubeObject> {
  client: ResourceClient<T>;
  /** Calls by verb, such as `create`. */
  readonly counts: Map<string, number>;
  /** The next `n` calls of `verb` reject with `err()` before reaching the server. */
  failNext(verb: Verb, n: number, err: () => Error): void;
  /** Every call of `verb` rejects with `err()` until cleared. */
  failAlways(verb: Verb, err: () => Error): void;
  /** Removes every planned failure. */
  clear(): void;
  /** Runs before every call that reaches the server (after the failure check). */
  onCall?: (verb: string, args: unknown[]) => void;
}

/** Wraps `inner` so every request is counted and failures can be injected. */
export function faultyClient<T extends KubeObject>(inner: ResourceClient<T>): FaultyClient<T> {
  const counts = new Map<string, number>();
  const planned = new Map<string, { n: number; err: () => Error }>();
  const self: FaultyClient<T> = {
    client: undefined as unknown as ResourceClient<T>,
    counts,
    failNext(verb, n, err) {
      planned.set(verb, { n, err });
    },
    failAlways(verb, err) {
      planned.set(verb, { n: Infinity, err });
    },
    clear() {
      planned.clear();
    },
  };
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, prop);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return (...args: unknown[]) => {
          counts.set(prop, (counts.get(prop) ?? 0) + 1);
          const plan = planned.get(prop);
          if (plan && plan.n > 0) {
            plan.n--;
            return Promise.reject(plan.err());
          }
          self.onCall?.(prop, args);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  self.client = wrap(inner);
  return self;
}
