// The init function of the policy controller kcm-ts implements
// (cmd/kube-controller-manager/app/policy.go: startDisruptionController).
import { informerResources } from '@kcm-ts/informer';
import { serverHasResource } from './apps.js';
import type { InitFunc } from './controller-context.js';
import { DisruptionController } from './disruption/disruption.js';

/**
 * Starts the controller that keeps PodDisruptionBudget status, on the
 * shared pod, PodDisruptionBudget, ReplicationController, ReplicaSet,
 * Deployment and StatefulSet informers (each workload kind only when the
 * server serves it), with the client `disruption-controller` and events
 * from `controllermanager`, as upstream names them; skipped when the server
 * serves no PodDisruptionBudgets. Go's `startDisruptionController`.
 *
 * @category Controllers
 */
export const startDisruptionController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.podDisruptionBudgets))) return undefined;
  const f = ctx.informerFactory;
  const [rc, rs, d, ss] = await Promise.all([
    serverHasResource(ctx, informerResources.replicationControllers),
    serverHasResource(ctx, informerResources.replicaSets),
    serverHasResource(ctx, informerResources.deployments),
    serverHasResource(ctx, informerResources.statefulSets),
  ]);
  const controller = new DisruptionController({
    controllerName: name,
    client: ctx.clientBuilder.client('disruption-controller'),
    podInformer: f.pods(),
    pdbInformer: f.podDisruptionBudgets(),
    ...(rc ? { replicationControllerInformer: f.replicationControllers() } : {}),
    ...(rs ? { replicaSetInformer: f.replicaSets() } : {}),
    ...(d ? { deploymentInformer: f.deployments() } : {}),
    ...(ss ? { statefulSetInformer: f.statefulSets() } : {}),
    // Upstream's disruption controller has a broadcaster of its own whose
    // source component is "controllermanager".
    recorder: ctx.eventRecorder('controllermanager'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(signal) };
};
