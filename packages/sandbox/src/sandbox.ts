// Starting and stopping a sandbox: the registry, an HTTPS (or HTTP) server
// on 127.0.0.1 in front of it, the certificates and token its clients need,
// and in-process clients for tests that want no sockets at all.
import { createHmac, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { isAlreadyExists } from '@kcm-ts/apimachinery';
import type { Clock, KubeObject, Logger, ResourceClient } from '@kcm-ts/apimachinery';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { TokenAuthenticator, controllerManagerUser } from './apiserver/authn.js';
import type { StaticToken } from './apiserver/authn.js';
import { ContainerLogs } from './node/container-logs.js';
import type { DataDir } from './edge/data-dir.js';
import { createListener } from './edge/listener.js';
import {
  inProcessClient,
  inProcessMetadataClient,
  inProcessPodBinder,
} from './client/in-process-client.js';
import { kubeconfigObject, kubeconfigYaml, writeKubeconfig } from './edge/kubeconfig.js';
import { Registry } from './apiserver/registry/store.js';
import { FaultLab } from './lab/faults.js';
import { EventRecorder } from './node/events.js';
import { SimulatedScheduler } from './node/scheduler/scheduler.js';
import { standardStorageClass } from './node/storage/local-path-provisioner.js';
import { SimulatedVolumeBinder } from './node/storage/volume-binder.js';
import { apiHandler } from './apiserver/server.js';
import type { PartialObjectMetadata } from './apiserver/response.js';
import { Reviewer } from './apiserver/registry/reviews.js';
import { SimulatedNode } from './node/simulated-node.js';
import { KubernetesServiceController } from './apiserver/registry/service/kubernetes-service.js';
import { hostKernelVersion } from './edge/host.js';
import { makeCertificates } from './edge/tls.js';
import type { SandboxCertificates } from './edge/tls.js';

/**
 * Options for {@link startSandbox}.
 *
 * @category Sandbox
 */
export interface SandboxOptions {
  /** The port on 127.0.0.1; `0` (the default) picks a free one. */
  port?: number;
  /** Serve plain HTTP instead of HTTPS. Default false. */
  insecureHttp?: boolean;
  /** The bearer token clients must send. Default: random, made at start. */
  token?: string;
  /** The clock for timestamps, watch timeouts and bookmarks. Default: the real clock. */
  clock?: Clock;
  /** How many changes the history keeps before older resourceVersions get 410 Expired. Default 10000. */
  historyWindow?: number;
  /** Milliseconds between watch bookmarks. Default 60000. */
  bookmarkInterval?: number;
  /** Called after every HTTP request is answered. */
  onRequest?: (method: string, url: string, code: number) => void;
  /**
   * How many simulated nodes run pods (`node-1`, `node-2`, ...), with a
   * scheduler that binds pending pods to them as kube-scheduler's default
   * profile would. As in a kind cluster, `node-1` is the control plane:
   * labelled `node-role.kubernetes.io/control-plane`, and with two nodes or
   * more tainted `node-role.kubernetes.io/control-plane:NoSchedule`, so
   * that pods go to the others. Default 0: pods stay Pending.
   */
  nodes?: number;
  /**
   * Who gives the simulated nodes their pod CIDRs (`spec.podCIDR`, from
   * 10.244.0.0/16, one /24 each), the ranges their pods' addresses come
   * from. `'sandbox'` (the default): each node registers with
   * 10.244.N.0/24, as a kubelet started with `--pod-cidr`.
   * `'controller-manager'`: nodes register without one and stay not Ready
   * until kube-controller-manager's `node-ipam-controller` writes it, as
   * in a kind cluster (`kcm-ts up` does this).
   */
  podCIDRs?: 'sandbox' | 'controller-manager';
  /** How long a pod's containers take to start once it can run, in ms (default 1000). Per pod: the annotation `sandbox.kcm-ts.io/start-delay`. */
  podStartDelay?: number;
  /** How long a started container takes to become ready, in ms (default 1000). Per pod: `sandbox.kcm-ts.io/ready-delay`. */
  podReadyDelay?: number;
  /**
   * How long a container takes to stop once its pod is deleted, in ms
   * (default 500; never longer than the pod's grace period). Per pod:
   * `sandbox.kcm-ts.io/stop-delay`, for a container that ignores SIGTERM.
   */
  podStopDelay?: number;
  /** Where the simulated nodes report what goes wrong; nothing is written when unset. */
  logger?: Logger;
  /**
   * How long a client may take to send a request's head, in ms, before the
   * connection is closed (default 32000: kube-apiserver's ReadHeaderTimeout).
   */
  requestHeaderTimeout?: number;
  /**
   * How long a kept-alive connection may sit idle between requests, in ms
   * (default 90000: kube-apiserver's IdleTimeout).
   */
  idleTimeout?: number;
  /**
   * How long a request other than a watch or log stream may take, in ms,
   * before it is answered 504 Timeout (default 60000: kube-apiserver's
   * `--request-timeout`). A request waits for a seat of its priority level
   * for at most a quarter of it, then gets 429.
   */
  requestTimeout?: number;
  /**
   * Empty and finalize deleted namespaces in the sandbox itself (default
   * true). Set it false when a namespace controller runs against the
   * sandbox, as kube-controller-manager's does against kube-apiserver: a
   * deleted namespace then stays Terminating until its `kubernetes`
   * finalizer is removed through `namespaces/{name}/finalize`.
   */
  finishNamespaces?: boolean;
  /**
   * Keep the cluster's state in this directory, as kind and k3s keep
   * theirs: objects and the resourceVersion counter in an SQLite database
   * (`db/state.db`, kine's layout), the CA and serving certificate
   * (`tls/`) and the token (`token`). A sandbox started again on the same
   * directory serves the same objects, continues the same revisions and
   * accepts the same kubeconfig. One sandbox at a time per directory.
   * Default: none, everything in memory and gone at `stop()`.
   */
  dataDir?: string;
}

/**
 * Options of {@link Sandbox.client} and {@link Sandbox.metadataClient}.
 *
 * @category Sandbox
 */
export interface SandboxClientOptions {
  /**
   * Whether the client meets the faults of {@link Sandbox.faults} (failures,
   * conflicts, latency, dropped and hung watches) and is counted by it, as
   * requests over HTTP are. Default false.
   */
  faults?: boolean;
}

/**
 * A running sandbox API server.
 *
 * @category Sandbox
 */
export interface Sandbox {
  /** The server URL, such as `https://127.0.0.1:6443`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The bearer token. */
  readonly token: string;
  /** The CA certificate (PEM) clients must trust; `undefined` over plain HTTP. */
  readonly caCert: string | undefined;
  /** A kubeconfig for this sandbox, as YAML; its user is the admin, `kubernetes-admin`. */
  readonly kubeconfig: string;
  /** The same kubeconfig as an object (for `KubeConfig.loadFromOptions` and friends). */
  readonly kubeconfigObject: Record<string, unknown>;
  /**
   * A kubeconfig object for one of the cluster's own components, as kubeadm
   * writes `controller-manager.conf`: `kube-controller-manager` is the user
   * `system:kube-controller-manager`, whose requests priority and fairness
   * serves on levels of their own (leader election, workload-high), so that
   * no user's traffic can starve its Lease renewals.
   */
  componentKubeconfigObject(component: 'kube-controller-manager'): Record<string, unknown>;
  /** The registry behind the server: the same objects, without HTTP. */
  readonly registry: Registry;
  /**
   * An in-process client for one resource (no HTTP, same semantics), such as
   * `client('apps', 'deployments')` or `client('', 'pods')`. With
   * `{ faults: true }` it meets the fault lab's faults as an HTTP client
   * does, on the sandbox's clock; by default it meets none, so a test can
   * arrange its objects while faults wait for the code under test.
   */
  client<T extends KubeObject = KubeObject>(
    group: string,
    resource: string,
    opts?: SandboxClientOptions,
  ): ResourceClient<T>;
  /**
   * An in-process metadata-only client for one resource, like client-go's
   * `metadata.NewForConfig(...).Resource(gvr)`: reads, watches, patches and
   * deletes that give `meta.k8s.io/v1` PartialObjectMetadata, as
   * kube-apiserver answers `Accept: ...;as=PartialObjectMetadata`.
   */
  metadataClient(
    group: string,
    resource: string,
    opts?: SandboxClientOptions,
  ): ResourceClient<PartialObjectMetadata>;
  /**
   * Writes the kubeconfig to `file` with mode 0600: the admin's, or with
   * `component` that component's (see {@link Sandbox.componentKubeconfigObject}).
   */
  writeKubeconfig(file: string, component?: 'kube-controller-manager'): Promise<void>;
  /**
   * The fault lab: failures, conflicts, latency, dropped and hung watches,
   * compaction and request counts, for tests that prove clients survive them.
   */
  readonly faults: FaultLab;
  /** The names of the simulated nodes, such as `['node-1']`; empty without nodes. */
  readonly nodes: readonly string[];
  /**
   * Restarts the server with its data, as an API server restart looks to
   * clients: every connection is cut and, until `whileDown` has finished,
   * connections are refused; then the server listens again on the same port
   * with the same certificates, token and objects.
   */
  restart(whileDown?: () => void | Promise<void>): Promise<void>;
  /** Stops the server: open watches end, connections close. */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox API server on 127.0.0.1: HTTPS with a freshly made CA and
 * a bearer token by default.
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox();
 * try {
 *   const cms = sandbox.client('', 'configmaps').inNamespace('default');
 *   await cms.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
 * } finally {
 *   await sandbox.stop();
 * }
 * ```
 *
 * @category Sandbox
 */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  // Loaded only when asked for: the database is a native module, and the
  // in-memory sandbox runs without it.
  const kept =
    opts.dataDir === undefined
      ? undefined
      : (await import('./edge/data-dir.js')).openDataDir(opts.dataDir, opts.token);
  try {
    return await serve(opts, kept);
  } catch (err) {
    kept?.release();
    throw err;
  }
}

async function serve(opts: SandboxOptions, kept: DataDir | undefined): Promise<Sandbox> {
  const token = kept?.token ?? opts.token ?? randomBytes(24).toString('base64url');
  const components = componentTokens(token);
  const registry = newRegistry(opts, kept, token, components);
  // Certificates follow the real time, whatever clock the registry keeps.
  const certs = opts.insecureHttp
    ? undefined
    : (kept?.certificates(new Date()) ?? makeCertificates());
  const faults = new FaultLab(registry.clock, () => registry.storage.compact());
  const logs = new ContainerLogs();
  const server = await startServer(registry, opts, { token, components, certs, faults, logs });
  const cluster = await startNodes(registry, logs, faults, opts).catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  const control = await startKubernetesService(registry, server.port, opts).catch(
    async (err: unknown) => {
      await cluster.stop();
      await server.close();
      throw err;
    },
  );
  server.setAddress(`127.0.0.1:${server.port}`);
  return sandboxHandle({
    registry,
    token,
    components,
    certs,
    faults,
    server,
    cluster: { nodes: cluster.nodes, stop: () => control.stop().then(() => cluster.stop()) },
    kept,
  });
}

/**
 * Makes the `kubernetes` Service, its Endpoints and its EndpointSlice, and
 * keeps them every 10 s on the registry's clock, as kube-apiserver's
 * kubernetesservice controller does.
 */
async function startKubernetesService(
  registry: Registry,
  port: number,
  opts: SandboxOptions,
): Promise<{ stop: () => Promise<void> }> {
  const controller = new KubernetesServiceController({
    registry,
    client: <T extends KubeObject>(group: string, resource: string) =>
      inProcessClient<T>(registry, registry.resource(group, resource)),
    clock: registry.clock,
    port,
    logger: opts.logger?.withName('kubernetes-service'),
  });
  await controller.updateKubernetesService(true);
  const abort = new AbortController();
  const running = controller.run(abort.signal);
  return {
    stop() {
      abort.abort();
      return running;
    },
  };
}

/**
 * The tokens of the cluster's components, derived from the admin's so that
 * a kept data directory needs no more secrets and a component's kubeconfig
 * does not hold the admin's token.
 */
function componentTokens(token: string): StaticToken[] {
  return [
    {
      token: createHmac('sha256', token).update(controllerManagerUser.username).digest('base64url'),
      user: controllerManagerUser,
    },
  ];
}

/** The registry of a sandbox, on its kept state if it has a data directory. */
function newRegistry(
  opts: SandboxOptions,
  kept: DataDir | undefined,
  token: string,
  components: readonly StaticToken[],
): Registry {
  return new Registry({
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.historyWindow !== undefined ? { historyWindow: opts.historyWindow } : {}),
    ...(opts.bookmarkInterval !== undefined ? { bookmarkInterval: opts.bookmarkInterval } : {}),
    ...(opts.finishNamespaces !== undefined ? { finishNamespaces: opts.finishNamespaces } : {}),
    ...(kept ? { backend: kept.backend } : {}),
    reviewer: new Reviewer(new TokenAuthenticator(token, components)),
  });
}

/** What the server in front of the registry needs besides it. */
interface ServerParts {
  token: string;
  components: readonly StaticToken[];
  certs: SandboxCertificates | undefined;
  faults: FaultLab;
  logs: ContainerLogs;
}

/** The HTTP(S) server of a sandbox, listening. */
interface RunningServer {
  /** The port it listens on. */
  readonly port: number;
  /** Tells the handler the address it is reached at (discovery's serverAddressByClientCIDRs). */
  setAddress(address: string): void;
  /** Listens again on `port`, after {@link RunningServer.close}. */
  listen(port: number): Promise<void>;
  /** Stops the fault lab's timers and the listener. */
  close(): Promise<void>;
}

/** Starts the API handler on 127.0.0.1, on the port asked for. */
async function startServer(
  registry: Registry,
  opts: SandboxOptions,
  parts: ServerParts,
): Promise<RunningServer> {
  let serverAddress = '127.0.0.1:0';
  const handler = apiHandler(registry, {
    token: parts.token,
    tokens: parts.components,
    ...(opts.requestTimeout !== undefined ? { requestTimeout: opts.requestTimeout } : {}),
    faults: parts.faults,
    podLogs: parts.logs,
    get serverAddress() {
      return serverAddress;
    },
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
  const listener = createListener(handler, {
    tls: parts.certs,
    ...(opts.requestHeaderTimeout !== undefined
      ? { requestHeaderTimeout: opts.requestHeaderTimeout }
      : {}),
    ...(opts.idleTimeout !== undefined ? { idleTimeout: opts.idleTimeout } : {}),
  });
  await listener.listen(opts.port ?? 0);
  return {
    port: listener.port(),
    setAddress(address) {
      serverAddress = address;
    },
    listen: (port) => listener.listen(port),
    close() {
      parts.faults.stop();
      return listener.close();
    },
  };
}

/** The {@link Sandbox} a caller gets: addresses, credentials, clients, restart and stop. */
function sandboxHandle(parts: {
  registry: Registry;
  token: string;
  components: readonly StaticToken[];
  certs: SandboxCertificates | undefined;
  faults: FaultLab;
  server: RunningServer;
  cluster: { nodes: string[]; stop: () => Promise<void> };
  kept: DataDir | undefined;
}): Sandbox {
  const { registry, token, components, certs, faults, server, cluster, kept } = parts;
  const port = server.port;
  const url = `${certs ? 'https' : 'http'}://127.0.0.1:${port}`;
  const params = { server: url, token, ...(certs ? { caCert: certs.caCert } : {}) };
  const withFaults = (o?: SandboxClientOptions) => (o?.faults ? { faults } : {});
  const componentParams = (component: 'kube-controller-manager') => {
    const found = components.find((c) => c.user.username === `system:${component}`);
    if (!found) throw new RangeError(`no kubeconfig for the component ${String(component)}`);
    return { ...params, token: found.token, name: `kcm-ts-${component}` };
  };
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    token,
    caCert: certs?.caCert,
    kubeconfig: kubeconfigYaml(params),
    kubeconfigObject: kubeconfigObject(params),
    componentKubeconfigObject: (component) => kubeconfigObject(componentParams(component)),
    registry,
    client: <T extends KubeObject>(group: string, resource: string, o?: SandboxClientOptions) =>
      inProcessClient<T>(registry, registry.resource(group, resource), withFaults(o)),
    metadataClient: (group: string, resource: string, o?: SandboxClientOptions) =>
      inProcessMetadataClient(registry, registry.resource(group, resource), withFaults(o)),
    writeKubeconfig: (file: string, component?: 'kube-controller-manager') =>
      writeKubeconfig(file, component ? componentParams(component) : params),
    faults,
    nodes: cluster.nodes,
    async restart(whileDown) {
      if (stopped) throw new Error('the sandbox has stopped');
      await server.close();
      await whileDown?.();
      await server.listen(port);
    },
    stop() {
      stopped ??= cluster
        .stop()
        .then(() => server.close())
        .then(() => kept?.release());
      return stopped;
    },
  };
}

/** Creates the `standard` StorageClass unless it is there (a restart keeps it, or its user's change). */
async function ensureStandardStorageClass(classes: ResourceClient<StorageClass>): Promise<void> {
  try {
    await classes.create(standardStorageClass());
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Starts the simulated nodes and the scheduler, if any nodes were asked for. */
async function startNodes(
  registry: Registry,
  logs: ContainerLogs,
  faults: FaultLab,
  opts: SandboxOptions,
): Promise<{ nodes: string[]; stop: () => Promise<void> }> {
  const count = opts.nodes ?? 0;
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`nodes must be a whole number of nodes, got ${String(opts.nodes)}`);
  }
  if (opts.podCIDRs !== undefined && !['sandbox', 'controller-manager'].includes(opts.podCIDRs)) {
    throw new RangeError(
      `podCIDRs must be 'sandbox' or 'controller-manager', got ${JSON.stringify(opts.podCIDRs)}`,
    );
  }
  if (count === 0) return { nodes: [], stop: () => Promise.resolve() };
  const abort = new AbortController();
  // Every node's informers, managers and timers listen to this one signal.
  setMaxListeners(20 * (count + 1), abort.signal);
  const clock = registry.clock;
  const client = <T extends KubeObject>(group: string, resource: string): ResourceClient<T> =>
    inProcessClient<T>(registry, registry.resource(group, resource));
  const kernelVersion = hostKernelVersion();
  const events = new EventRecorder(client('', 'events'), clock);
  const nodes = Array.from(
    { length: count },
    (_, i) =>
      new SimulatedNode(
        {
          name: `node-${i + 1}`,
          index: i + 1,
          // kind's first node; its taint only when there are workers.
          controlPlane: i === 0 ? { taint: count > 1 } : undefined,
          podCIDR: opts.podCIDRs === 'controller-manager' ? undefined : `10.244.${i + 1}.0/24`,
          client,
          clock,
          events,
          podStartDelay: opts.podStartDelay ?? 1_000,
          podReadyDelay: opts.podReadyDelay ?? 1_000,
          podStopDelay: opts.podStopDelay ?? 500,
          logs,
          logger: opts.logger?.withName('kubelet'),
          kernelVersion,
        },
        abort.signal,
      ),
  );
  for (const node of nodes) await node.register();
  const names = nodes.map((n) => n.name);
  faults.attachKubelets(new Map(nodes.map((n) => [n.name, n])));
  // kind's default StorageClass and its provisioner come with the nodes.
  await ensureStandardStorageClass(client<StorageClass>('storage.k8s.io', 'storageclasses'));
  const volumes = new SimulatedVolumeBinder({
    client,
    clock,
    events,
    logger: opts.logger?.withName('volume-binder'),
  });
  const scheduler = new SimulatedScheduler({
    pods: client<Pod>('', 'pods'),
    nodes: client<Node>('', 'nodes'),
    binder: inProcessPodBinder(registry),
    events,
    clock,
    volumes: volumes.binding,
    logger: opts.logger?.withName('scheduler'),
  });
  const running = Promise.all([
    ...nodes.map((n) => n.run(abort.signal)),
    volumes.run(abort.signal),
    scheduler.run(abort.signal),
  ]);
  return {
    nodes: names,
    async stop() {
      abort.abort();
      await running;
    },
  };
}
