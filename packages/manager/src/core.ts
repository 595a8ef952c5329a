// The init functions of the core controllers kcm-ts implements
// (cmd/kube-controller-manager/app/core.go: startGarbageCollectorController,
// startModifiedNamespaceController, startPodGCController,
// startTTLAfterFinishedController, newNodeLifecycleController,
// newTaintEvictionController, startPersistentVolumeClaimProtectionController,
// startPersistentVolumeProtectionController).
import { informerResources } from '@kcm-ts/informer';
import { serverHasResource } from './apps.js';
import { serverPreferredNamespacedResources } from './discovery.js';
import { GarbageCollector } from './garbagecollector/garbage-collector.js';
import { NamespaceController } from './namespace/namespace-controller.js';
import { newNodeLifecycleMetrics } from './nodelifecycle/metrics.js';
import { NodeLifecycleController } from './nodelifecycle/node-lifecycle-controller.js';
import { newTaintEvictionMetrics } from './nodelifecycle/tainteviction/metrics.js';
import { TaintEvictionController } from './nodelifecycle/tainteviction/taint-eviction.js';
import { newPodGCMetrics } from './podgc/metrics.js';
import { PodGCController } from './podgc/gc-controller.js';
import { newTTLAfterFinishedMetrics } from './ttlafterfinished/metrics.js';
import { TTLAfterFinishedController } from './ttlafterfinished/ttl-after-finished-controller.js';
import { PVProtectionController } from './volume/pv-protection-controller.js';
import { PVCProtectionController } from './volume/pvc-protection-controller.js';
import type { InitFunc } from './controller-context.js';

//#region start-garbage-collector-controller
/**
 * Starts the garbage collector with `--concurrent-gc-syncs` workers, unless
 * `--enable-garbage-collector=false`. Its client may send twice the
 * configured QPS, since every deletion costs two requests, as upstream
 * allows. Its dependency graph is served as Graphviz DOT at
 * `/debug/controllers/garbage-collector-controller/graph`. Go's
 * `startGarbageCollectorController`.
 *
 * @category Controllers
 */
export const startGarbageCollectorController: InitFunc = (ctx, name, signal) => {
  const gcConfig = ctx.componentConfig.garbageCollectorController;
  if (!gcConfig.enableGarbageCollector) return Promise.resolve(undefined);
  const gc = new GarbageCollector({
    metadataClient: ctx.clientBuilder.metadataClient('generic-garbage-collector', { qpsScale: 2 }),
    discovery: ctx.discovery,
    ignoredResources: gcConfig.gcIgnoredResources,
    informersStarted: ctx.informersStarted,
    eventRecorder: ctx.eventRecorder('garbage-collector-controller'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({
    running: gc.run(gcConfig.concurrentGCSyncs, signal),
    debuggingHandler: gc.debuggingHandler(),
  });
};
//#endregion start-garbage-collector-controller

//#region start-namespace-controller
/**
 * Starts the namespace controller with `--concurrent-namespace-syncs`
 * workers and `--namespace-sync-period`. Its client may send 20 times the
 * configured QPS with 100 times the burst, as upstream gives it, since
 * emptying a namespace takes many requests. Go's `startNamespaceController`.
 *
 * @category Controllers
 */
export const startNamespaceController: InitFunc = (ctx, name, signal) => {
  const nsConfig = ctx.componentConfig.namespaceController;
  const scale = { qpsScale: 20, burstScale: 100 };
  const controller = new NamespaceController({
    controllerName: name,
    kubeClient: ctx.clientBuilder.client('namespace-controller', scale),
    metadataClient: ctx.clientBuilder.metadataClient('namespace-controller', scale),
    discoverResourcesFn: () => serverPreferredNamespacedResources(ctx.discovery),
    namespaceInformer: ctx.informerFactory.namespaces(),
    resyncPeriod: nsConfig.namespaceSyncPeriod,
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({ running: controller.run(nsConfig.concurrentNamespaceSyncs, signal) });
};
//#endregion start-namespace-controller

//#region start-pod-gc-controller
/**
 * Starts the pod garbage collector with `--terminated-pod-gc-threshold`,
 * on the shared pod and node informers and its own client,
 * `pod-garbage-collector`. Go's `startPodGCController`.
 *
 * @category Controllers
 */
export const startPodGCController: InitFunc = (ctx, name, signal) => {
  const controller = new PodGCController({
    kubeClient: ctx.clientBuilder.client('pod-garbage-collector'),
    podInformer: ctx.informerFactory.pods(),
    nodeInformer: ctx.informerFactory.nodes(),
    terminatedPodThreshold: ctx.componentConfig.podGCController.terminatedPodGCThreshold,
    ...(ctx.metricsRegistry ? { metrics: newPodGCMetrics(ctx.metricsRegistry) } : {}),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({ running: controller.run(signal) });
};
//#endregion start-pod-gc-controller

//#region start-ttl-after-finished-controller
/**
 * Starts the controller that deletes finished Jobs once their
 * `ttlSecondsAfterFinished` has passed, with
 * `--concurrent-ttl-after-finished-syncs` workers. Go's
 * `startTTLAfterFinishedController`.
 *
 * @category Controllers
 */
export const startTTLAfterFinishedController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.jobs))) return undefined;
  const controller = new TTLAfterFinishedController({
    controllerName: name,
    client: ctx.clientBuilder.client(name),
    jobInformer: ctx.informerFactory.jobs(),
    ...(ctx.metricsRegistry ? { metrics: newTTLAfterFinishedMetrics(ctx.metricsRegistry) } : {}),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  const workers = ctx.componentConfig.ttlAfterFinishedController.concurrentTTLSyncs;
  return { running: controller.run(workers, signal) };
};
//#endregion start-ttl-after-finished-controller

//#region start-node-lifecycle-controller
/**
 * Starts the node lifecycle controller with `--node-monitor-period`,
 * `--node-monitor-grace-period`, `--node-startup-grace-period` and the
 * eviction rates, on the shared Lease, pod, node and (when served)
 * DaemonSet informers, with the client and event source `node-controller`,
 * as upstream names them. Go's `newNodeLifecycleController`.
 *
 * @category Controllers
 */
export const startNodeLifecycleController: InitFunc = async (ctx, name, signal) => {
  const nl = ctx.componentConfig.nodeLifecycleController;
  const hasDaemonSets = await serverHasResource(ctx, informerResources.daemonSets);
  const controller = new NodeLifecycleController({
    controllerName: name,
    kubeClient: ctx.clientBuilder.client('node-controller'),
    leaseInformer: ctx.informerFactory.leases(),
    podInformer: ctx.informerFactory.pods(),
    nodeInformer: ctx.informerFactory.nodes(),
    ...(hasDaemonSets ? { daemonSetInformer: ctx.informerFactory.daemonSets() } : {}),
    nodeMonitorPeriod: ctx.componentConfig.kubeCloudShared.nodeMonitorPeriod,
    nodeStartupGracePeriod: nl.nodeStartupGracePeriod,
    nodeMonitorGracePeriod: nl.nodeMonitorGracePeriod,
    evictionLimiterQPS: nl.nodeEvictionRate,
    secondaryEvictionLimiterQPS: nl.secondaryNodeEvictionRate,
    largeClusterThreshold: nl.largeClusterSizeThreshold,
    unhealthyZoneThreshold: nl.unhealthyZoneThreshold,
    recorder: ctx.eventRecorder('node-controller'),
    ...(ctx.metricsRegistry ? { metrics: newNodeLifecycleMetrics(ctx.metricsRegistry) } : {}),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(signal) };
};
//#endregion start-node-lifecycle-controller

//#region start-taint-eviction-controller
/**
 * Starts the taint eviction controller, which deletes the pods on
 * NoExecute-tainted nodes once their tolerations run out, on the shared pod
 * and node informers with its own client, `taint-eviction-controller`. Go's
 * `newTaintEvictionController`.
 *
 * @category Controllers
 */
export const startTaintEvictionController: InitFunc = (ctx, name, signal) => {
  const controller = new TaintEvictionController({
    controllerName: name,
    kubeClient: ctx.clientBuilder.client(name),
    podInformer: ctx.informerFactory.pods(),
    nodeInformer: ctx.informerFactory.nodes(),
    recorder: ctx.eventRecorder(name),
    ...(ctx.metricsRegistry ? { metrics: newTaintEvictionMetrics(ctx.metricsRegistry) } : {}),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({ running: controller.run(signal) });
};
//#endregion start-taint-eviction-controller

/**
 * Starts the controller that keeps a PersistentVolumeClaim a pod uses from
 * going away under it, with one worker as upstream. Go's
 * `startPersistentVolumeClaimProtectionController`.
 *
 * @category Controllers
 */
export const startPersistentVolumeClaimProtectionController: InitFunc = async (
  ctx,
  name,
  signal,
) => {
  if (!(await serverHasResource(ctx, informerResources.persistentVolumeClaims))) return undefined;
  const controller = new PVCProtectionController({
    controllerName: name,
    client: ctx.clientBuilder.client('pvc-protection-controller'),
    pvcInformer: ctx.informerFactory.persistentVolumeClaims(),
    podInformer: ctx.informerFactory.pods(),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(1, signal) };
};

/**
 * Starts the controller that keeps a bound PersistentVolume from going
 * away, with one worker as upstream. Go's
 * `startPersistentVolumeProtectionController`.
 *
 * @category Controllers
 */
export const startPersistentVolumeProtectionController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.persistentVolumes))) return undefined;
  const controller = new PVProtectionController({
    controllerName: name,
    client: ctx.clientBuilder.client('pv-protection-controller'),
    pvInformer: ctx.informerFactory.persistentVolumes(),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(1, signal) };
};
