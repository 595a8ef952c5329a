// The init function of the RBAC controller kcm-ts implements
// (cmd/kube-controller-manager/app/rbac.go:
// startClusterRoleAggregationController).
import { informerResources } from '@kcm-ts/informer';
import { serverHasResource } from './apps.js';
import { ClusterRoleAggregationController } from './clusterroleaggregation/clusterroleaggregation-controller.js';
import type { InitFunc } from './controller-context.js';

/**
 * Starts the controller that fills aggregated ClusterRoles, with five
 * workers and the client `clusterrole-aggregation-controller`, as
 * upstream; skipped when the server serves no ClusterRoles. Go's
 * `startClusterRoleAggregationController`.
 *
 * @category Controllers
 */
export const startClusterRoleAggregationController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.clusterRoles))) return undefined;
  const controller = new ClusterRoleAggregationController({
    controllerName: name,
    client: ctx.clientBuilder.client('clusterrole-aggregation-controller'),
    clusterRoleInformer: ctx.informerFactory.clusterRoles(),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
  });
  return { running: controller.run(5, signal) };
};
