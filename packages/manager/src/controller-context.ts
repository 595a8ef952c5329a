// What every controller's init function receives: Go's ControllerContext and
// CreateControllerContext (cmd/kube-controller-manager/app/
// controllermanager.go): one shared informer factory whose caches drop
// managedFields, the client builder, discovery with a REST mapper reset
// every 30 s, the completed configuration, and InformersStarted, which
// resolves once the factory has been started after every controller.
import {
  noopEventRecorder,
  type Clock,
  type EventRecorder,
  type Logger,
  type ResourceDiscovery,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, trimManagedFields } from '@kcm-ts/informer';
import type { Registry } from 'prom-client';
import type { ControllerMetrics } from './metrics/controller-runtime.js';
import type { ControllerClientBuilder } from './client-builder.js';
import type { ControllerManagerConfiguration } from './config.js';
import { DeferredDiscoveryRESTMapper } from './discovery.js';
import type { DebuggingHandler } from './server/secure-serving.js';
import type { HealthChecker } from './server/healthz.js';

/**
 * What a controller's init function gets: Go's `ControllerContext`.
 *
 * @category Controller manager
 */
export interface ControllerContext {
  /** Gives each controller its own client and user agent. */
  readonly clientBuilder: ControllerClientBuilder;
  /** The informers every controller shares; started after all controllers are. */
  readonly informerFactory: SharedInformerFactory;
  /** The completed configuration. */
  readonly componentConfig: ControllerManagerConfiguration;
  /** What the API server serves. */
  readonly discovery: ResourceDiscovery;
  /** Kinds to resources and back, read from discovery and reset every 30 s. */
  readonly restMapper: DeferredDiscoveryRESTMapper;
  /** Resolves once the shared informers have been started. Go's `InformersStarted`. */
  readonly informersStarted: Promise<void>;
  /** A fresh resync period in [min, 2·min) each call. Go's `ResyncPeriod`. */
  readonly resyncPeriod: () => number;
  /** An event recorder for a component, such as `replicaset-controller`. */
  readonly eventRecorder: (component: string) => EventRecorder;
  /** The clock everything waits on. */
  readonly clock: Clock;
  /** The manager's logger. */
  readonly logger: Logger;
  /**
   * The CA bundle (PEM) the manager's client config trusts for the API
   * server, as client-go's `rest.Config.CAData`; the root CA publisher's
   * default. Absent when the connection has none.
   */
  readonly rootCA?: string;
  /**
   * Where controllers made with the builder count and time their
   * reconciles (controller-runtime's metrics); none when absent. Not part
   * of Go's `ControllerContext`: there, controller-runtime's controllers
   * register with a global registry.
   */
  readonly controllerMetrics?: ControllerMetrics;
  /**
   * Where controllers register their own metrics (the Job controller's
   * `job_controller_*`, the pod GC's `pod_gc_collector_*`); none when
   * absent. In Go they register with the process-wide legacy registry.
   */
  readonly metricsRegistry?: Registry;
}

/**
 * What a started controller offers the manager: Go's `controller.Interface`
 * with the optional `Debuggable` and `HealthCheckable`, plus the promise of
 * its run, which settles once it has stopped.
 *
 * @category Controller manager
 */
export interface StartedController {
  /** Settles when the controller has stopped (after the signal aborts). */
  readonly running: Promise<void>;
  /** Served under `/debug/controllers/<name>`. */
  readonly debuggingHandler?: DebuggingHandler;
  /** Replaces the default ping check named after the controller. */
  readonly healthChecker?: HealthChecker;
}

//#region init-func
/**
 * Starts one controller: Go's `InitFunc`. Resolves with `undefined` when the
 * controller chose not to start (a resource the server lacks, a disabled
 * feature), and rejects when it cannot start, which stops the manager.
 *
 * @category Controller manager
 */
export type InitFunc = (
  ctx: ControllerContext,
  name: string,
  signal: AbortSignal,
) => Promise<StartedController | undefined>;
//#endregion init-func

/**
 * Inputs of {@link createControllerContext} beyond the configuration.
 *
 * @category Controller manager
 */
export interface ControllerContextOptions {
  /** The completed configuration. */
  config: ControllerManagerConfiguration;
  /** The root client builder (the shared informers' client is `shared-informers`). */
  clientBuilder: ControllerClientBuilder;
  /** What the API server serves. */
  discovery: ResourceDiscovery;
  /** Makes event recorders. Default: recorders that drop events. */
  eventRecorder?: (component: string) => EventRecorder;
  /** The clock. */
  clock: Clock;
  /** The random source of resync periods. */
  random: () => number;
  /** The logger. */
  logger: Logger;
  /** The API server's CA bundle (PEM) from the client config. Default: none. */
  rootCA?: string;
  /** Ends the REST mapper's reset loop. */
  signal: AbortSignal;
  /** Where built controllers' metrics go. Default: nowhere. */
  controllerMetrics?: ControllerMetrics;
  /** Where controllers register their own metrics. Default: nowhere. */
  metricsRegistry?: Registry;
}

//#region create-controller-context
/**
 * What {@link createControllerContext} returns.
 *
 * @category Controller manager
 */
export interface CreatedControllerContext {
  /** The context every controller's init receives. */
  context: ControllerContext;
  /** Called once the informer factory has been started: resolves `context.informersStarted`. */
  informersStarted: () => void;
}

/**
 * Builds the controller context and the function that marks the informers
 * started: Go's `CreateControllerContext`.
 *
 * @category Controller manager
 */
export function createControllerContext(opts: ControllerContextOptions): CreatedControllerContext {
  const { config, clock, random } = opts;
  const min = config.generic.minResyncPeriod;
  const resyncPeriod = () => Math.floor(min * (random() + 1));
  const informerFactory = new SharedInformerFactory(
    opts.clientBuilder.client('shared-informers'),
    resyncPeriod(),
    { clock, transform: trimManagedFields, shareUnchanged: true },
  );
  const restMapper = new DeferredDiscoveryRESTMapper(opts.discovery);
  const ticker = clock.newTicker(30_000, () => restMapper.reset());
  opts.signal.addEventListener('abort', () => ticker.stop(), { once: true });
  let markStarted!: () => void;
  const informersStarted = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    context: {
      clientBuilder: opts.clientBuilder,
      informerFactory,
      componentConfig: config,
      discovery: opts.discovery,
      restMapper,
      informersStarted,
      resyncPeriod,
      eventRecorder: opts.eventRecorder ?? (() => noopEventRecorder),
      clock,
      logger: opts.logger,
      ...(opts.rootCA !== undefined ? { rootCA: opts.rootCA } : {}),
      ...(opts.controllerMetrics ? { controllerMetrics: opts.controllerMetrics } : {}),
      ...(opts.metricsRegistry ? { metricsRegistry: opts.metricsRegistry } : {}),
    },
    informersStarted: markStarted,
  };
}
//#endregion create-controller-context
