// The small cluster chapter 7's examples run on: the sandbox API server with
// one simulated node, and kube-controller-manager's `run()` against it, in
// one process on a fake clock, so that a whole start, a cascade of deletions
// or a leader hand-over takes milliseconds and prints the same transcript
// every time. Nothing here replaces a part of the manager: the examples run
// the package's own `run()` with its own init functions, and only listen.
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import {
  FakeClock,
  type GroupVersionResource,
  type KubeObject,
  type Logger,
  type ResourceClient,
  type ResourceDiscovery,
} from '@kcm-ts/apimachinery';
import {
  defaultConfiguration,
  newLogger,
  newManagerMetrics,
  run,
  type ControllerManagerConfiguration,
  type ManagerMetrics,
  type RestClientSource,
  type RunOptions,
} from '@kcm-ts/manager';
import { resources, startSandbox, type Sandbox } from '@kcm-ts/sandbox';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /**
   * Let the sandbox empty and finish deleted namespaces itself (default
   * false: the namespace controller does it, as on a real cluster).
   */
  finishNamespaces?: boolean;
}

/** The sandbox on a fake clock, with helpers to move time. */
export interface Cluster {
  clock: FakeClock;
  sandbox: Sandbox;
  /** Milliseconds since the cluster started, as `t= 1.0s`. */
  at(): string;
  /** Moves the fake clock forward by `ms`, 100 ms at a time, letting everything work. */
  step(ms: number): Promise<void>;
  /** Steps until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** A client for one resource, in `namespace` (default `default`). */
  client<T extends KubeObject = KubeObject>(
    group: string,
    resource: string,
    namespace?: string,
  ): ResourceClient<T>;
  stop(): Promise<void>;
}

/** Lets promise chains and in-process I/O run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Starts the sandbox API server with one simulated node on a fake clock. */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const clock = new FakeClock();
  const start = clock.now();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true, // in-process clients only: no certificates to make
    nodes: 1,
    finishNamespaces: opts.finishNamespaces ?? false,
  });
  const cluster: Cluster = {
    clock,
    sandbox,
    at: () => `t=${((clock.now() - start) / 1000).toFixed(1).padStart(4)}s`,
    async step(ms) {
      for (let t = 0; t < ms; t += 100) {
        await clock.advance(Math.min(100, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += 100) {
        if (await cond()) return;
        await cluster.step(100);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    client: <T extends KubeObject>(group: string, resource: string, namespace = 'default') =>
      sandbox.client<T>(group, resource).inNamespace(namespace),
    stop: () => sandbox.stop(),
  };
  await settle();
  return cluster;
}

//#region discovery
/**
 * What the sandbox serves, as discovery lists it: one APIResourceList per
 * group version. `@kcm-ts/client`'s `newDiscoveryClient` reads the same from
 * `/api` and `/apis` of a real API server.
 */
export function sandboxDiscovery(): ResourceDiscovery {
  const lists = new Map<string, APIResourceList>();
  for (const r of resources) {
    const groupVersion = r.group ? `${r.group}/${r.version}` : r.version;
    let list = lists.get(groupVersion);
    if (list === undefined) lists.set(groupVersion, (list = { groupVersion, resources: [] }));
    list.resources.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
    });
  }
  return { serverPreferredResources: () => Promise.resolve(structuredClone([...lists.values()])) };
}

/**
 * The sandbox's in-process clients as the manager's client source: a
 * metadata-only client when the manager asks for one (the garbage collector
 * and the namespace controller do), as kube-apiserver answers
 * `Accept: ...;as=PartialObjectMetadata`.
 */
export function sandboxSource(sandbox: Sandbox): RestClientSource {
  return {
    resource: <T extends KubeObject>(
      gvr: GroupVersionResource,
      opts: { metadataOnly?: boolean },
    ): ResourceClient<T> =>
      (opts.metadataOnly
        ? sandbox.metadataClient(gvr.group, gvr.resource)
        : sandbox.client(gvr.group, gvr.resource)) as unknown as ResourceClient<T>,
  };
}
//#endregion discovery

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

/** Options of {@link startManager}. */
export interface ManagerOptions extends Partial<Omit<RunOptions, 'config' | 'apiServer'>> {
  /** Changes to kube-controller-manager's defaults (no HTTPS, no leader election here). */
  configure?: (config: ControllerManagerConfiguration) => void;
  /** Where the manager's requests go; default the sandbox's clients. */
  source?: RestClientSource;
  /** The API server's health, polled before the controllers start; default healthy. */
  healthz?: (signal: AbortSignal) => Promise<void>;
}

/** A running manager. */
export interface Manager {
  /** Settles when `run()` returns (rejects as `run()` does). */
  readonly done: Promise<void>;
  /** The controllers started, once they are. */
  started(): readonly string[] | undefined;
  readonly metrics: ManagerMetrics;
  /** Aborts the manager's signal (SIGTERM) and waits for `run()` to return. */
  stop(): Promise<void>;
}

/** Runs kube-controller-manager's `run()` against the cluster. */
export function startManager(c: Cluster, opts: ManagerOptions = {}): Manager {
  const { configure, source, healthz, ...rest } = opts;
  const config = defaultConfiguration();
  config.secureServing.securePort = 0;
  config.generic.leaderElection.leaderElect = false;
  configure?.(config);
  const metrics = opts.metrics ?? newManagerMetrics({ processMetrics: false });
  const abort = new AbortController();
  let started: readonly string[] | undefined;
  const logger: Logger = opts.logger ?? newLogger({ write: () => undefined });
  const done = run(
    {
      clock: c.clock,
      random: () => 0.5,
      identity: 'manager',
      ...rest,
      logger,
      metrics,
      config,
      apiServer: {
        source: source ?? sandboxSource(c.sandbox),
        discovery: sandboxDiscovery(),
        ...(healthz ? { healthz } : {}),
      },
      onControllersStarted: (names) => {
        started = names;
        opts.onControllersStarted?.(names);
      },
    },
    abort.signal,
  );
  // A rejection is the caller's to see through `done`; do not let it go unhandled meanwhile.
  done.catch(() => undefined);
  return {
    done,
    started: () => started,
    metrics,
    async stop() {
      abort.abort();
      await done;
    },
  };
}
