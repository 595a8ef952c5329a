// The init functions of the apps/v1 controllers
// (cmd/kube-controller-manager/app/apps.go: startDaemonSetController,
// startStatefulSetController, startReplicaSetController,
// startDeploymentController): each builds its controller on the shared
// informers and its own client, and runs it with the configured workers.
import type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  StatefulSet,
} from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource } from '@kcm-ts/apimachinery';
import { DaemonSetsController } from '@kcm-ts/daemonset';
import { DeploymentController } from '@kcm-ts/deployment';
import { informerResources } from '@kcm-ts/informer';
import { ReplicaSetController, burstReplicas } from '@kcm-ts/replicaset';
import { StatefulSetController } from '@kcm-ts/statefulset';
import type { ControllerContext, InitFunc } from './controller-context.js';
import { serverPreferredResources } from './discovery.js';

/**
 * Whether discovery lists `gvr`: a controller whose resource the server
 * lacks is skipped rather than started.
 *
 * @category Controllers
 */
export async function serverHasResource(
  ctx: ControllerContext,
  gvr: GroupVersionResource,
): Promise<boolean> {
  const { resources } = await serverPreferredResources(ctx.discovery);
  const gv = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
  return resources.some(
    (list) => list.groupVersion === gv && list.resources.some((r) => r.name === gvr.resource),
  );
}

/**
 * Starts the DaemonSet controller with `--concurrent-daemonset-syncs`
 * workers, on the shared DaemonSet, ControllerRevision, pod and node
 * informers. Go's `startDaemonSetController`.
 *
 * @category Controllers
 */
export const startDaemonSetController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.daemonSets))) return undefined;
  // Upstream's client, and its RBAC role, are called daemon-set-controller.
  const source = ctx.clientBuilder.client('daemon-set-controller');
  const controller = new DaemonSetsController({
    daemonSets: ctx.informerFactory.daemonSets(),
    controllerRevisions: ctx.informerFactory.controllerRevisions(),
    pods: ctx.informerFactory.pods(),
    nodes: ctx.informerFactory.nodes(),
    client: {
      daemonSets: source.resource<DaemonSet>(informerResources.daemonSets, {
        namespaced: true,
        kind: 'DaemonSet',
      }),
      controllerRevisions: source.resource<ControllerRevision>(
        informerResources.controllerRevisions,
        { namespaced: true, kind: 'ControllerRevision' },
      ),
      pods: source.resource<Pod>(informerResources.pods, { namespaced: true, kind: 'Pod' }),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return {
    running: controller.run(
      ctx.componentConfig.daemonSetController.concurrentDaemonSetSyncs,
      signal,
    ),
  };
};

/**
 * Starts the StatefulSet controller with `--concurrent-statefulset-syncs`
 * workers, on the shared pod, StatefulSet, PersistentVolumeClaim and
 * ControllerRevision informers. Go's `startStatefulSetController`.
 *
 * @category Controllers
 */
export const startStatefulSetController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.statefulSets))) return undefined;
  const source = ctx.clientBuilder.client(name);
  const controller = new StatefulSetController({
    pods: ctx.informerFactory.pods(),
    statefulSets: ctx.informerFactory.statefulSets(),
    persistentVolumeClaims: ctx.informerFactory.persistentVolumeClaims(),
    controllerRevisions: ctx.informerFactory.controllerRevisions(),
    client: {
      statefulSets: source.resource<StatefulSet>(informerResources.statefulSets, {
        namespaced: true,
        kind: 'StatefulSet',
      }),
      pods: source.resource<Pod>(informerResources.pods, { namespaced: true, kind: 'Pod' }),
      persistentVolumeClaims: source.resource<PersistentVolumeClaim>(
        informerResources.persistentVolumeClaims,
        { namespaced: true, kind: 'PersistentVolumeClaim' },
      ),
      controllerRevisions: source.resource<ControllerRevision>(
        informerResources.controllerRevisions,
        { namespaced: true, kind: 'ControllerRevision' },
      ),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return {
    running: controller.run(
      ctx.componentConfig.statefulSetController.concurrentStatefulSetSyncs,
      signal,
    ),
  };
};

//#region start-replicaset-controller
/**
 * Starts the ReplicaSet controller with `--concurrent-replicaset-syncs`
 * workers and kube-controller-manager's burst of 500. Go's `startReplicaSetController`.
 *
 * @category Controllers
 */
export const startReplicaSetController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.replicaSets))) return undefined;
  const source = ctx.clientBuilder.client(name);
  const controller = new ReplicaSetController({
    replicaSets: ctx.informerFactory.replicaSets(),
    pods: ctx.informerFactory.pods(),
    client: {
      replicaSets: source.resource<ReplicaSet>(informerResources.replicaSets, {
        namespaced: true,
        kind: 'ReplicaSet',
      }),
      pods: source.resource<Pod>(informerResources.pods, { namespaced: true, kind: 'Pod' }),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    burstReplicas,
    logger: ctx.logger.withName(name),
  });
  return {
    running: controller.run(ctx.componentConfig.replicaSetController.concurrentRSSyncs, signal),
  };
};
//#endregion start-replicaset-controller

/**
 * Starts the Deployment controller with `--concurrent-deployment-syncs`
 * workers. Go's `startDeploymentController`.
 *
 * @category Controllers
 */
export const startDeploymentController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.deployments))) return undefined;
  const source = ctx.clientBuilder.client(name);
  const controller = new DeploymentController({
    deployments: ctx.informerFactory.deployments(),
    replicaSets: ctx.informerFactory.replicaSets(),
    pods: ctx.informerFactory.pods(),
    client: {
      deployments: source.resource<Deployment>(informerResources.deployments, {
        namespaced: true,
        kind: 'Deployment',
      }),
      replicaSets: source.resource<ReplicaSet>(informerResources.replicaSets, {
        namespaced: true,
        kind: 'ReplicaSet',
      }),
    },
    recorder: ctx.eventRecorder(name),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return {
    running: controller.run(
      ctx.componentConfig.deploymentController.concurrentDeploymentSyncs,
      signal,
    ),
  };
};
