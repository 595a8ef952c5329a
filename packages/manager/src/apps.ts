// The init functions of the apps/v1 controllers
// (cmd/kube-controller-manager/app/apps.go: startReplicaSetController,
// startDeploymentController): each builds its controller on the shared
// informers and its own client, and runs it with the configured workers.
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { GroupVersionResource } from '@kcm-ts/apimachinery';
import { DeploymentController } from '@kcm-ts/deployment';
import { informerResources } from '@kcm-ts/informer';
import { ReplicaSetController, burstReplicas } from '@kcm-ts/replicaset';
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
