// The small cluster chapter 7's examples run on: the manager package's own
// test environment (`startTestEnvironment`, chapter 8), which holds the
// sandbox API server, the simulated node and kube-controller-manager's
// `run()` in one process on a fake clock, so that a whole start, a cascade
// of deletions or a leader hand-over takes milliseconds and prints the same
// transcript every time. Nothing here replaces a part of the manager: the
// examples run the package's own `run()` with its own init functions, and
// only listen. What is left in this file is the chapter's settings, and a
// client source that can be cut off from the API server.
import type { GroupVersionResource, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import {
  implementedControllers,
  startTestEnvironment,
  type RestClientSource,
  type TestEnvironment,
  type TestManager,
  type TestManagerOptions,
} from '@kcm-ts/manager';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /**
   * Let the sandbox empty and finish deleted namespaces itself (default
   * false: the namespace controller does it, as on a real cluster).
   */
  finishNamespaces?: boolean;
}

/**
 * Starts the sandbox with one simulated node on a fake clock that the
 * examples move 100 ms at a time.
 */
export function startCluster(opts: ClusterOptions = {}): Promise<TestEnvironment> {
  return startTestEnvironment({
    nodes: 1,
    finishNamespaces: opts.finishNamespaces ?? false,
    tick: 100,
  });
}

/**
 * Runs kube-controller-manager's `run()` in the cluster with the controllers
 * kcm-ts implements (a test environment starts none unless told).
 */
export function startManager(c: TestEnvironment, opts: TestManagerOptions = {}): TestManager {
  return c.runManager({ controllers: implementedControllers, ...opts });
}

/** A source whose every request can be made to fail, as a network partition would. */
export function partitionable(inner: RestClientSource): {
  source: RestClientSource;
  cut: () => void;
  /**
   * Creates, updates, patches and deletes sent through this source so far;
   * only to `resources` (such as `pods`, `replicasets.apps`) if given.
   */
  writes: (resources?: readonly string[]) => number;
} {
  let isCut = false;
  const writes = new Map<string, number>(); // by resource, such as `replicasets.apps`
  const writeVerbs = new Set([
    'create',
    'update',
    'updateStatus',
    'patch',
    'patchStatus',
    'delete',
  ]);
  const wrap = <T extends KubeObject>(c: ResourceClient<T>, key: string): ResourceClient<T> =>
    new Proxy(c, {
      get(target, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns), key);
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (isCut)
            return Promise.reject(new Error('connect ECONNREFUSED: cut off from the API server'));
          if (typeof prop === 'string' && writeVerbs.has(prop))
            writes.set(key, (writes.get(key) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    source: {
      resource: <T extends KubeObject>(
        gvr: GroupVersionResource,
        opts: Parameters<RestClientSource['resource']>[1],
      ) =>
        wrap(
          inner.resource<T>(gvr, opts),
          gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource,
        ),
    },
    cut: () => (isCut = true),
    writes: (only) =>
      [...writes].filter(([k]) => !only || only.includes(k)).reduce((n, [, w]) => n + w, 0),
  };
}
