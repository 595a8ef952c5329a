// The init functions of the core controllers kcm-ts implements
// (cmd/kube-controller-manager/app/core.go: startGarbageCollectorController,
// startModifiedNamespaceController, startPodGCController,
// startTTLAfterFinishedController, newNodeLifecycleController,
// newServiceAccountController, newEndpointsController,
// newReplicationController, newNodeIpamController,
// newTaintEvictionController, startPersistentVolumeClaimProtectionController,
// startPersistentVolumeProtectionController).
import type { Endpoints, Node, Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import { EndpointsController } from '@kcm-ts/endpointslice';
import { informerResources } from '@kcm-ts/informer';
import { ReplicationManager, burstReplicas } from '@kcm-ts/replicaset';
import { serverHasResource } from './apps.js';
import { serverPreferredNamespacedResources } from './discovery.js';
import { GarbageCollector } from './garbagecollector/garbage-collector.js';
import { NamespaceController } from './namespace/namespace-controller.js';
import { newNodeLifecycleMetrics } from './nodelifecycle/metrics.js';
import { NodeLifecycleController } from './nodelifecycle/node-lifecycle-controller.js';
import { NodeIpamController, nodeIpamParams } from './nodeipam/node-ipam-controller.js';
import { newTaintEvictionMetrics } from './nodelifecycle/tainteviction/metrics.js';
import { TaintEvictionController } from './nodelifecycle/tainteviction/taint-eviction.js';
import { newPodGCMetrics } from './podgc/metrics.js';
import { PodGCController } from './podgc/gc-controller.js';
import { ServiceAccountsController } from './serviceaccount/serviceaccounts-controller.js';
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

/**
 * Starts the controller that keeps the `default` ServiceAccount in every
 * active namespace, with one worker and the client
 * `service-account-controller`, as upstream; skipped when the server
 * serves no ServiceAccounts. Go's `newServiceAccountController`.
 *
 * @category Controllers
 */
export const startServiceAccountController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.serviceAccounts))) return undefined;
  const controller = new ServiceAccountsController({
    controllerName: name,
    client: ctx.clientBuilder.client('service-account-controller'),
    serviceAccountInformer: ctx.informerFactory.serviceAccounts(),
    namespaceInformer: ctx.informerFactory.namespaces(),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(1, signal) };
};

//#region start-endpoints-controller
/**
 * Starts the Endpoints controller, which keeps every selecting Service's
 * `v1` Endpoints (what `kubectl describe svc` shows), with
 * `--concurrent-endpoint-syncs` workers and
 * `--endpoint-updates-batch-period`, on the shared pod, Service and
 * Endpoints informers, with the client `endpoint-controller`. Go's
 * `newEndpointsController`.
 *
 * @category Controllers
 */
export const startEndpointsController: InitFunc = (ctx, name, signal) => {
  const config = ctx.componentConfig.endpointController;
  const source = ctx.clientBuilder.client('endpoint-controller');
  const controller = new EndpointsController({
    pods: ctx.informerFactory.pods(),
    services: ctx.informerFactory.services(),
    endpoints: ctx.informerFactory.endpoints(),
    client: {
      endpoints: source.resource<Endpoints>(informerResources.endpoints, {
        namespaced: true,
        kind: 'Endpoints',
      }),
    },
    endpointUpdatesBatchPeriod: config.endpointUpdatesBatchPeriod,
    recorder: ctx.eventRecorder('endpoint-controller'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({ running: controller.run(config.concurrentEndpointSyncs, signal) });
};
//#endregion start-endpoints-controller

//#region start-replication-controller
/**
 * Starts the ReplicationController manager, the ReplicaSet controller run
 * through its conversion adapters, with `--concurrent-rc-syncs` workers and
 * the burst of 500, on the shared ReplicationController and pod informers,
 * with the client `replication-controller`. Go's `newReplicationController`.
 *
 * @category Controllers
 */
export const startReplicationController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.replicationControllers))) return undefined;
  const source = ctx.clientBuilder.client('replication-controller');
  const controller = new ReplicationManager({
    replicationControllers: ctx.informerFactory.replicationControllers(),
    pods: ctx.informerFactory.pods(),
    client: {
      replicationControllers: source.resource<ReplicationController>(
        informerResources.replicationControllers,
        { namespaced: true, kind: 'ReplicationController' },
      ),
      pods: source.resource<Pod>(informerResources.pods, { namespaced: true, kind: 'Pod' }),
    },
    recorder: ctx.eventRecorder('replication-controller'),
    clock: ctx.clock,
    burstReplicas,
    logger: ctx.logger.withName(name),
  });
  return {
    running: controller.run(ctx.componentConfig.replicationController.concurrentRCSyncs, signal),
  };
};
//#endregion start-replication-controller

//#region start-node-ipam-controller
/**
 * Starts the node IPAM controller with the range allocator when
 * `--allocate-node-cidrs` is set: every node gets a pod CIDR from
 * `--cluster-cidr`, cut by `--node-cidr-mask-size`, with the Services'
 * range kept out, through the client `node-controller`. Go's
 * `newNodeIpamController`; a bad flag stops the manager, as upstream.
 *
 * @category Controllers
 */
export const startNodeIpamController: InitFunc = (ctx, name, signal) => {
  const shared = ctx.componentConfig.kubeCloudShared;
  if (!shared.allocateNodeCIDRs) return Promise.resolve(undefined);
  if (shared.cidrAllocatorType === 'CloudAllocator') {
    return Promise.reject(
      new Error(
        "--cidr-allocator-type is set to 'CloudAllocator' but cloud provider is not configured",
      ),
    );
  }
  const ipam = ctx.componentConfig.nodeIPAMController;
  let params: ReturnType<typeof nodeIpamParams>;
  try {
    params = nodeIpamParams({ clusterCIDR: shared.clusterCIDR, ...ipam });
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  const source = ctx.clientBuilder.client('node-controller');
  const controller = new NodeIpamController({
    nodes: ctx.informerFactory.nodes(),
    client: {
      nodes: source.resource<Node>(informerResources.nodes, { namespaced: false, kind: 'Node' }),
    },
    params,
    recorder: ctx.eventRecorder('cidrAllocator'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return Promise.resolve({ running: controller.run(signal) });
};
//#endregion start-node-ipam-controller
