// A test environment for controllers: controller-runtime's pkg/envtest
// (server.go: Environment.Start, Environment.Stop), without its binaries.
// Where envtest downloads and starts etcd and kube-apiserver, this starts
// the sandbox in process on one fake clock, and hands out everything a
// controller test needs already bound to that clock: clients, informer
// factories, queues, the manager's run(), and the sandbox's fault lab.
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
  SharedInformerFactory,
  type InformerResource,
  type SharedInformerFactoryOptions,
} from '@kcm-ts/informer';
import {
  resources,
  startSandbox,
  type FaultLab,
  type Sandbox,
  type SandboxOptions,
} from '@kcm-ts/sandbox';
import {
  defaultControllerRateLimiter,
  newRateLimitingQueue,
  type RateLimiter,
  type RateLimitingQueue,
} from '@kcm-ts/workqueue';
import type { RestClientSource } from '../client-builder.js';
import { defaultConfiguration, type ControllerManagerConfiguration } from '../config.js';
import { run, type ApiServerConnection, type RunOptions } from '../controller-manager.js';
import { newLogger } from '../logging/logger.js';
import { newManagerMetrics, type ManagerMetrics } from '../metrics/prometheus.js';

/**
 * Options of {@link startTestEnvironment}.
 *
 * @category Test environment
 */
export interface TestEnvironmentOptions {
  /** Simulated nodes that run pods (default 0, as envtest has none). */
  nodes?: number;
  /** Let the sandbox finish deleted namespaces itself (default true: no namespace controller needed). */
  finishNamespaces?: boolean;
  /** The fake clock's start (default 2026-01-01T00:00:00Z). */
  start?: number | Date;
  /**
   * How far {@link TestEnvironment.step} moves the clock between two
   * settles by default, and {@link TestEnvironment.until} between two checks,
   * in ms (default 10). A coarser tick runs long scenarios in fewer steps.
   */
  tick?: number;
  /** Other sandbox options. */
  sandbox?: Omit<SandboxOptions, 'clock' | 'nodes' | 'finishNamespaces'>;
}

/**
 * Options of {@link TestEnvironment.runManager}: `run()`'s, with the API
 * server and the clock filled in.
 *
 * @category Test environment
 */
export interface TestManagerOptions extends Partial<Omit<RunOptions, 'config' | 'apiServer'>> {
  /** Run behind leader election on the Lease `kube-system/kube-controller-manager` (default false). */
  leaderElect?: boolean;
  /** Changes to the configuration (the secure port is off). */
  configure?: (config: ControllerManagerConfiguration) => void;
  /** Where the manager's requests go; default {@link TestEnvironment.source}. */
  source?: RestClientSource;
  /** The API server's health, polled before the controllers start (see {@link ApiServerConnection}); default not polled. */
  healthz?: ApiServerConnection['healthz'];
}

/**
 * A manager running in a {@link TestEnvironment}.
 *
 * @category Test environment
 */
export interface TestManager {
  /** Settles when `run()` returns, rejecting as it does. */
  readonly done: Promise<void>;
  /** The names of the controllers started, once they have. */
  started(): readonly string[] | undefined;
  /** Where its metrics go. */
  readonly metrics: ManagerMetrics;
  /** Aborts its signal and waits for `run()` to return. */
  stop(): Promise<void>;
}

/**
 * Everything a controller test needs, on one fake clock: Go's
 * `envtest.Environment` once started.
 *
 * @category Test environment
 */
export interface TestEnvironment {
  /** The one clock of the sandbox and of everything made here. */
  readonly clock: FakeClock;
  /** The sandbox API server. */
  readonly sandbox: Sandbox;
  /**
   * The sandbox's in-process clients as a client source that both
   * `SharedInformerFactory` and the manager's `run()` accept; its requests
   * meet the fault lab's faults.
   */
  readonly source: RestClientSource;
  /** What the sandbox serves, for the manager and the garbage collector. */
  readonly discovery: ResourceDiscovery;
  /**
   * The sandbox's fault lab: failures, conflicts, latency, dropped watches
   * and compaction, for the in-process clients of {@link TestEnvironment.source}
   * as for HTTP clients, timed by the fake clock.
   */
  readonly faults: FaultLab;
  /** A client for `resource`, in `namespace` when given and the resource is namespaced. */
  client<T extends KubeObject = KubeObject>(
    resource: InformerResource,
    namespace?: string,
  ): ResourceClient<T>;
  /** A shared informer factory over {@link TestEnvironment.source} on the fake clock. */
  informerFactory(
    opts?: SharedInformerFactoryOptions,
    defaultResync?: number,
  ): SharedInformerFactory;
  /** A rate-limiting queue on the fake clock (default: client-go's controller rate limiter). */
  queue<T>(name?: string, limiter?: RateLimiter<T>): RateLimitingQueue<T>;
  /** Runs kube-controller-manager's `run()` here, with no built-in controller unless given. */
  runManager(opts?: TestManagerOptions): TestManager;
  /**
   * Moves the clock `ms` forward, `tick` ms at a time (default the
   * environment's tick), letting promises settle between.
   */
  step(ms: number, tick?: number): Promise<void>;
  /** Steps one tick at a time until `cond` holds; throws after `maxMs` of fake time. */
  until(cond: () => boolean | Promise<boolean>, maxMs?: number): Promise<void>;
  /** Stops the managers started here, then the sandbox. */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox on a fake clock and returns the test environment around
 * it: Go's `envtest.Environment.Start`, in milliseconds and without
 * binaries.
 *
 * @example
 * {@includeCode ../../test/envtest.test.ts#envtest}
 *
 * @category Test environment
 */
export async function startTestEnvironment(
  opts: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const clock = new FakeClock(opts.start);
  const defaultTick = opts.tick ?? 10;
  if (!(defaultTick > 0)) throw new RangeError(`tick must be > 0 ms, got ${defaultTick}`);
  const sandbox = await startSandbox({
    insecureHttp: true,
    ...opts.sandbox,
    clock,
    nodes: opts.nodes ?? 0,
    finishNamespaces: opts.finishNamespaces ?? true,
  });
  const faults = sandbox.faults;
  // Every client the environment hands out meets the fault lab, as requests
  // over HTTP do, so fault tests run on the fake clock.
  const source: RestClientSource = {
    resource: <T extends KubeObject>(
      gvr: GroupVersionResource,
      o: { metadataOnly?: boolean },
    ): ResourceClient<T> =>
      (o.metadataOnly
        ? sandbox.metadataClient(gvr.group, gvr.resource, { faults: true })
        : sandbox.client(gvr.group, gvr.resource, {
            faults: true,
          })) as unknown as ResourceClient<T>,
  };
  const managers = new Set<TestManager>();
  const env: TestEnvironment = {
    clock,
    sandbox,
    source,
    discovery: sandboxDiscovery(),
    faults,
    client: <T extends KubeObject>(resource: InformerResource, namespace?: string) => {
      const c = source.resource<T>(resource, {
        namespaced: resource.namespaced,
        kind: resource.kind,
      });
      return namespace !== undefined && resource.namespaced ? c.inNamespace(namespace) : c;
    },
    informerFactory: (o = {}, resync = 0) =>
      new SharedInformerFactory(source, resync, { ...o, clock }),
    queue: <T>(name?: string, limiter?: RateLimiter<T>) =>
      newRateLimitingQueue<T>(limiter ?? defaultControllerRateLimiter<T>(clock), {
        clock,
        ...(name === undefined ? {} : { name }),
      }),
    runManager: (o = {}) => {
      const m = startManager(env, o);
      managers.add(m);
      return m;
    },
    async step(ms, tick = defaultTick) {
      if (!(ms >= 0) || !(tick > 0)) throw new RangeError(`cannot step ${ms} ms by ${tick} ms`);
      for (let t = 0; t < ms; t += tick) {
        await clock.advance(Math.min(tick, ms - t));
        await settle();
      }
    },
    async until(cond, maxMs = 60_000) {
      for (let t = 0; ; t += defaultTick) {
        if (await cond()) return;
        if (t >= maxMs) throw new Error(`condition not met within ${maxMs} ms of fake time`);
        await env.step(defaultTick);
      }
    },
    async stop() {
      await Promise.allSettled([...managers].map((m) => m.stop()));
      await sandbox.stop();
    },
  };
  await settle();
  return env;
}

function startManager(env: TestEnvironment, opts: TestManagerOptions): TestManager {
  const { configure, source, leaderElect, healthz, ...rest } = opts;
  const config = defaultConfiguration();
  config.secureServing.securePort = 0;
  config.generic.leaderElection.leaderElect = leaderElect ?? false;
  configure?.(config);
  const metrics = opts.metrics ?? newManagerMetrics({ processMetrics: false });
  const logger: Logger = opts.logger ?? newLogger({ write: () => undefined });
  const abort = new AbortController();
  let started: readonly string[] | undefined;
  const done = run(
    {
      random: () => 0.5,
      identity: 'manager',
      controllers: {},
      ...rest,
      clock: env.clock,
      logger,
      metrics,
      config,
      apiServer: {
        source: source ?? env.source,
        discovery: env.discovery,
        ...(healthz ? { healthz } : {}),
      },
      onControllersStarted: (names) => {
        started = names;
        opts.onControllersStarted?.(names);
      },
    },
    abort.signal,
  );
  // The caller sees a rejection through `done`; it must not go unhandled meanwhile.
  done.catch(() => undefined);
  return {
    done,
    started: () => started,
    metrics,
    async stop() {
      abort.abort();
      await done.catch(() => undefined);
    },
  };
}

/** Lets promise chains and in-process I/O run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** What the sandbox serves, as discovery lists it. */
function sandboxDiscovery(): ResourceDiscovery {
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
