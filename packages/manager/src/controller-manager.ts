// kube-controller-manager's main program (cmd/kube-controller-manager/app/
// controllermanager.go: Run, StartControllers, StartController,
// leaderElectAndRun; controller-manager/app/helper.go: WaitForAPIServer):
// events, configz and health checks first, then the secure endpoints, the
// client builders, and either the controllers at once or, with leader
// election, the controllers while this process holds the Lease.
import { setMaxListeners } from 'node:events';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Event as CoreEvent } from 'kubernetes-types/core/v1.js';
import {
  EventSinkImpl,
  newBroadcaster,
  noopLogger,
  realClock,
  type Clock,
  type Logger,
  type ResourceDiscovery,
} from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import {
  HealthzAdaptor,
  LeaseLock,
  runOrDie,
  setProvider as setLeaderMetricsProvider,
} from '@kcm-ts/leader-election';
import { setProvider as setWorkqueueMetricsProvider } from '@kcm-ts/workqueue';
import {
  startDaemonSetController,
  startDeploymentController,
  startReplicaSetController,
  startStatefulSetController,
} from './apps.js';
import { startCronJobController, startJobController } from './batch.js';
import {
  startEndpointSliceController,
  startEndpointSliceMirroringController,
} from './discovery-controllers.js';
import { newClientBuilder, type RestClientSource } from './client-builder.js';
import { configz, type ControllerManagerConfiguration } from './config.js';
import {
  createControllerContext,
  type ControllerContext,
  type InitFunc,
  type StartedController,
} from './controller-context.js';
import {
  isDescriptorEnabled,
  names,
  newControllerDescriptors,
  type ControllerDescriptor,
} from './controller-descriptors.js';
import {
  startEndpointsController,
  startGarbageCollectorController,
  startNamespaceController,
  startNodeIpamController,
  startNodeLifecycleController,
  startPersistentVolumeClaimProtectionController,
  startPersistentVolumeProtectionController,
  startPodGCController,
  startReplicationController,
  startServiceAccountController,
  startTaintEvictionController,
  startTTLAfterFinishedController,
} from './core.js';
import { startRootCACertificatePublisherController } from './certificates.js';
import { startDisruptionController } from './policy.js';
import { startClusterRoleAggregationController } from './rbac.js';
import { newManagerMetrics, type ManagerMetrics } from './metrics/prometheus.js';
import { DelegatingAuth } from './server/delegated-auth.js';
import { MutableHealthChecks, namedPingChecker, type HealthChecker } from './server/healthz.js';
import {
  serveSecurely,
  type DebuggingHandler,
  type SecureServer,
  type ServingCertificate,
} from './server/secure-serving.js';

/**
 * The init functions of the controllers kcm-ts implements, by canonical name:
 * what Go's `NewControllerDescriptors` wires for them.
 *
 * @category Controller manager
 */
export const implementedControllers: Readonly<Record<string, InitFunc>> = Object.freeze({
  [names.replicaSetController]: startReplicaSetController,
  [names.deploymentController]: startDeploymentController,
  [names.garbageCollectorController]: startGarbageCollectorController,
  [names.namespaceController]: startNamespaceController,
  [names.daemonSetController]: startDaemonSetController,
  [names.statefulSetController]: startStatefulSetController,
  [names.endpointSliceController]: startEndpointSliceController,
  [names.jobController]: startJobController,
  [names.cronJobController]: startCronJobController,
  [names.podGarbageCollectorController]: startPodGCController,
  [names.ttlAfterFinishedController]: startTTLAfterFinishedController,
  [names.nodeLifecycleController]: startNodeLifecycleController,
  [names.taintEvictionController]: startTaintEvictionController,
  [names.pvcProtectionController]: startPersistentVolumeClaimProtectionController,
  [names.pvProtectionController]: startPersistentVolumeProtectionController,
  [names.serviceAccountController]: startServiceAccountController,
  [names.rootCACertificatePublisherController]: startRootCACertificatePublisherController,
  [names.clusterRoleAggregationController]: startClusterRoleAggregationController,
  [names.disruptionController]: startDisruptionController,
  [names.endpointsController]: startEndpointsController,
  [names.endpointSliceMirroringController]: startEndpointSliceMirroringController,
  [names.replicationController]: startReplicationController,
  [names.nodeIpamController]: startNodeIpamController,
});

/**
 * The API server the manager works against.
 *
 * @category Controller manager
 */
export interface ApiServerConnection {
  /** Makes the clients (rate-limited and instrumented by the manager). */
  source: RestClientSource;
  /** What the server serves. */
  discovery: ResourceDiscovery;
  /** The server's host, for the REST client metrics. */
  host?: string;
  /**
   * The CA bundle (PEM) the client trusts for this server (client-go's
   * `rest.Config.CAData`): what the root CA publisher puts in every
   * namespace unless `--root-ca-file` is set.
   */
  rootCA?: string;
  /**
   * Resolves once the server's `/healthz` answers ok, rejecting with why
   * not: polled every second for up to 10 s before the controllers start.
   */
  healthz?: (signal: AbortSignal) => Promise<void>;
}

/**
 * Options of {@link run}.
 *
 * @category Controller manager
 */
export interface RunOptions {
  /** The completed configuration. */
  config: ControllerManagerConfiguration;
  /** The API server. */
  apiServer: ApiServerConnection;
  /** The version logged at start and sent in the user agent. */
  version?: string;
  /** This candidate's leader-election identity. Default `<hostname>_<uuid>`. */
  identity?: string;
  /** Default: no logs. */
  logger?: Logger;
  /** Default: the real clock. */
  clock?: Clock;
  /** Jitter and resync periods. Default `Math.random`. */
  random?: () => number;
  /** Where the metrics go; default a new registry. The providers are set globally once per process. */
  metrics?: ManagerMetrics;
  /** The secure port's certificate; default self-signed. */
  servingCertificate?: ServingCertificate;
  /** Init functions by canonical name. Default {@link implementedControllers}. */
  controllers?: Readonly<Record<string, InitFunc>>;
  /**
   * Controllers of your own by name, such as those `newControllerManagedBy()`
   * builds: started after kube-controller-manager's, on the same informers,
   * and enabled unless `--controllers` leaves them out (`-name`, or no `*`).
   */
  customControllers?: Readonly<Record<string, InitFunc>>;
  /** Called once the secure port listens (its URL tells the port when it was chosen at random). */
  onServing?: (server: SecureServer) => void;
  /** Called once every enabled controller has started and the informers run. */
  onControllersStarted?: (started: readonly string[]) => void;
  /** Called once every informer of the shared factory has synced its cache. */
  onInformersSynced?: () => void;
}

/**
 * Runs the controller manager until `signal` aborts: Go's `Run`. With leader
 * election the controllers run only while this process holds the Lease;
 * losing it rejects with `LeaderElectionLostError` (kube-controller-manager
 * exits 1). Resolves once everything has stopped: controllers, informers,
 * the endpoints, events, and a held Lease released.
 *
 * @category Controller manager
 */
export async function run(opts: RunOptions, outerSignal: AbortSignal): Promise<void> {
  const signal = sharedSignal(outerSignal);
  const { config } = opts;
  const logger = opts.logger ?? noopLogger;
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const version = opts.version ?? '0.0.0';
  logger.info('Starting', { version });

  const metrics = opts.metrics ?? newManagerMetrics();
  setWorkqueueMetricsProvider(metrics.workqueue);
  setLeaderMetricsProvider(metrics.leaderElection);

  //#region client-builders
  const rootClients = newClientBuilder(opts.apiServer.source, {
    qps: config.generic.clientConnection.qps,
    burst: config.generic.clientConnection.burst,
    userAgent: `kube-controller-manager/${version} kcm-ts`,
    metrics: metrics.restClient,
    ...(opts.apiServer.host ? { host: opts.apiServer.host } : {}),
    clock,
  });
  //#endregion client-builders

  //#region events
  // Events: one broadcaster for the process, logged at V(0) as Run does,
  // shut down only once everything has stopped (the Lease's last event too).
  const broadcaster = newBroadcaster({ clock, logger });
  broadcaster.startStructuredLogging(0);
  const events = rootClients
    .client('event-broadcaster')
    .resource<CoreEvent>(informerResources.events, { namespaced: true, kind: 'Event' });
  broadcaster.startRecordingToSink(new EventSinkImpl(events));
  //#endregion events

  //#region health-checks
  const le = config.generic.leaderElection;
  const electionChecker = le.leaderElect ? new HealthzAdaptor(20_000) : undefined;
  const health = new MutableHealthChecks(
    electionChecker ? [{ name: electionChecker.name(), check: () => electionChecker.check() }] : [],
  );
  const debugHandlers = new Map<string, DebuggingHandler>();
  //#endregion health-checks

  let server: SecureServer | undefined;
  try {
    //#region secure-serving
    if (config.secureServing.securePort !== 0) {
      const reviews = rootClients.client('delegated-auth');
      server = await serveSecurely({
        bindAddress: config.secureServing.bindAddress,
        port: config.secureServing.securePort === 'random' ? 0 : config.secureServing.securePort,
        ...(opts.servingCertificate ? { certificate: opts.servingCertificate } : {}),
        health,
        metrics: metrics.registry,
        configz: () => configz(config),
        debugHandlers,
        auth: new DelegatingAuth({
          tokenReviews: reviews.resource(
            { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' },
            { namespaced: false, kind: 'TokenReview' },
          ),
          subjectAccessReviews: reviews.resource(
            { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' },
            { namespaced: false, kind: 'SubjectAccessReview' },
          ),
          alwaysAllowPaths: config.authorization.alwaysAllowPaths,
          clock,
          logger,
        }),
      });
      logger.info('Serving securely', { address: server.url });
      opts.onServing?.(server);
    }
    //#endregion secure-serving

    const descriptors = newControllerDescriptors(opts.controllers ?? implementedControllers);
    //#region custom-controllers
    for (const [name, init] of Object.entries(opts.customControllers ?? {})) {
      if (descriptors.has(name) || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
        throw new Error(
          `custom controller name "${name}" must be a DNS-1123 label that names no kube-controller-manager controller`,
        );
      descriptors.set(name, { name, aliases: [], init });
    }
    //#endregion custom-controllers
    //#region run-controllers
    const runControllers = async (leaderSignal: AbortSignal): Promise<void> => {
      const runSignal = sharedSignal(leaderSignal);
      if (opts.apiServer.healthz)
        await waitForAPIServer(opts.apiServer.healthz, clock, logger, runSignal);
      const { context, informersStarted } = createControllerContext({
        config,
        clientBuilder: rootClients,
        discovery: opts.apiServer.discovery,
        eventRecorder: (component) => broadcaster.newRecorder({ component }),
        clock,
        random,
        logger,
        signal: runSignal,
        ...(opts.apiServer.rootCA !== undefined ? { rootCA: opts.apiServer.rootCA } : {}),
        controllerMetrics: metrics.controller,
        metricsRegistry: metrics.registry,
      });
      const running: Promise<void>[] = [];
      try {
        const started = await startControllers(
          context,
          descriptors,
          debugHandlers,
          health,
          running,
          runSignal,
          random,
        );
        if (!runSignal.aborted) {
          context.informerFactory.start(runSignal);
          informersStarted();
          opts.onControllersStarted?.(started);
          if (opts.onInformersSynced) {
            const onSynced = opts.onInformersSynced;
            void context.informerFactory.waitForCacheSync(runSignal).then((synced) => {
              if (!runSignal.aborted && [...synced.values()].every(Boolean)) onSynced();
            });
          }
        }
        await untilAborted(runSignal);
      } finally {
        await Promise.allSettled(running);
        await context.informerFactory.shutdown();
      }
    };
    //#endregion run-controllers

    //#region leader-elect-and-run
    if (!le.leaderElect) {
      await runControllers(signal);
      return;
    }
    const identity = opts.identity ?? (await defaultIdentity());
    const leases = rootClients
      .client('leader-election')
      .resource<Lease>(informerResources.leases, { namespaced: true, kind: 'Lease' });
    await runOrDie(
      {
        lock: new LeaseLock({
          namespace: le.resourceNamespace,
          name: le.resourceName,
          client: leases,
          lockConfig: {
            identity,
            eventRecorder: broadcaster.newRecorder({ component: 'kube-controller-manager' }),
          },
        }),
        leaseDuration: le.leaseDuration,
        renewDeadline: le.renewDeadline,
        retryPeriod: le.retryPeriod,
        watchDog: electionChecker,
        // A stopped manager hands the Lease over at once instead of making
        // the next leader wait out the lease duration (upstream leaves it).
        releaseOnCancel: true,
        name: le.resourceName,
        clock,
        random,
        logger,
        callbacks: {
          onStartedLeading: (leaderSignal) => runControllers(leaderSignal),
          onStoppedLeading: () => {
            if (!signal.aborted) logger.error(undefined, 'leaderelection lost');
          },
          onNewLeader: (holder) => {
            if (holder !== identity) logger.info('New leader elected', { identity: holder });
          },
        },
      },
      signal,
    );
    //#endregion leader-elect-and-run
  } finally {
    await server?.close();
    broadcaster.shutdown();
  }
}

/**
 * Starts every enabled controller in turn, waiting the jittered start
 * interval before each, and adds each started one's health check: Go's
 * `StartControllers` and `StartController`. Returns the names started;
 * their runs are pushed onto `running`.
 */
async function startControllers(
  ctx: ControllerContext,
  descriptors: ReadonlyMap<string, ControllerDescriptor>,
  debugHandlers: Map<string, DebuggingHandler>,
  health: MutableHealthChecks,
  running: Promise<void>[],
  signal: AbortSignal,
  random: () => number,
): Promise<string[]> {
  const logger = ctx.logger;
  const checks: HealthChecker[] = [];
  const startedNames: string[] = [];
  //#region start-controllers
  // The service-account token controller would come first; kcm-ts has none.
  for (const d of descriptors.values()) {
    if (signal.aborted) break;
    if (d.requiresSpecialHandling) continue;
    if (d.cloudProvider) {
      logger.info('Skipping a cloud provider controller', {
        controller: d.name,
        loopMode: 'ExternalLoops',
      });
      continue;
    }
    if (!isDescriptorEnabled(ctx, d)) {
      logger.info('Warning: controller is disabled', { controller: d.name });
      continue;
    }
    if (!d.init) {
      logger.v(1).info('Controller is not implemented in kcm-ts', { controller: d.name });
      continue;
    }
    const interval = ctx.componentConfig.generic.controllerStartInterval;
    if (interval > 0) await ctx.clock.sleep(interval * (1 + random()), signal);
    if (signal.aborted) break;
    logger.v(1).info('Starting controller', { controller: d.name });
    let started: StartedController | undefined;
    try {
      started = await d.init(ctx, d.name, signal);
    } catch (err) {
      logger.error(err, 'Error starting controller', { controller: d.name });
      throw err;
    }
    if (!started) {
      logger.info('Warning: skipping controller', { controller: d.name });
      continue;
    }
    running.push(
      started.running.catch((err: unknown) => {
        logger.error(err, 'Controller stopped with an error', { controller: d.name });
      }),
    );
    if (started.debuggingHandler) debugHandlers.set(d.name, started.debuggingHandler);
    checks.push(
      started.healthChecker
        ? { name: d.name, check: () => started.healthChecker!.check() }
        : namedPingChecker(d.name),
    );
    startedNames.push(d.name);
    logger.info('Started controller', { controller: d.name });
  }
  health.addHealthChecker(...checks);
  //#endregion start-controllers
  return startedNames;
}

/** Polls the API server's health every second for up to 10 s. Go's `WaitForAPIServer`. */
//#region wait-for-api-server
async function waitForAPIServer(
  healthz: (signal: AbortSignal) => Promise<void>,
  clock: Clock,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const deadline = clock.now() + 10_000;
  let last: unknown;
  for (;;) {
    try {
      await healthz(signal);
      return;
    } catch (err) {
      last = err;
      logger.info("APIServer isn't healthy yet, waiting a little while", {
        content: err instanceof Error ? err.message : String(err),
      });
    }
    if (signal.aborted) return;
    if (clock.now() + 1000 > deadline) break;
    await clock.sleep(1000, signal);
  }
  throw new Error(
    `failed to wait for apiserver being healthy: timed out waiting for the condition: ${last instanceof Error ? last.message : String(last)}`,
  );
}
//#endregion wait-for-api-server

/**
 * A signal that follows `parent` and may have many listeners: every informer,
 * queue and worker of every controller listens to the run's signal.
 */
function sharedSignal(parent: AbortSignal): AbortSignal {
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  if (parent.aborted) ctrl.abort(parent.reason);
  else parent.addEventListener('abort', () => ctrl.abort(parent.reason), { once: true });
  return ctrl.signal;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** `<hostname>_<uuid>`, as kube-controller-manager names its candidates. */
async function defaultIdentity(): Promise<string> {
  const { hostname } = await import('node:os');
  return `${hostname()}_${globalThis.crypto.randomUUID()}`;
}
