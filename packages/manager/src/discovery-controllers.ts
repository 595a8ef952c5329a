// The init functions of the discovery.k8s.io controllers kcm-ts implements
// (cmd/kube-controller-manager/app/discovery.go:
// startEndpointSliceController, newEndpointSliceMirroringController).
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { EndpointSliceController, EndpointSliceMirroringController } from '@kcm-ts/endpointslice';
import { informerResources } from '@kcm-ts/informer';
import { serverHasResource } from './apps.js';
import type { InitFunc } from './controller-context.js';
import { prometheusEndpointSliceMetricsProvider } from './metrics/endpointslice-controller.js';

/**
 * Starts the EndpointSlice controller with
 * `--concurrent-service-endpoint-syncs` workers, `--max-endpoints-per-slice`
 * and `--endpointslice-updates-batch-period`, on the shared pod, Service,
 * node and EndpointSlice informers. Go's `startEndpointSliceController`.
 *
 * @category Controllers
 */
export const startEndpointSliceController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.endpointSlices))) return undefined;
  const config = ctx.componentConfig.endpointSliceController;
  const source = ctx.clientBuilder.client(name);
  const controller = new EndpointSliceController({
    pods: ctx.informerFactory.pods(),
    services: ctx.informerFactory.services(),
    nodes: ctx.informerFactory.nodes(),
    endpointSlices: ctx.informerFactory.endpointSlices(),
    client: {
      endpointSlices: source.resource<EndpointSlice>(informerResources.endpointSlices, {
        namespaced: true,
        kind: 'EndpointSlice',
      }),
    },
    maxEndpointsPerSlice: config.maxEndpointsPerSlice,
    endpointUpdatesBatchPeriod: config.endpointUpdatesBatchPeriod,
    // Upstream's broadcaster for this controller is named endpoint-slice-controller.
    recorder: ctx.eventRecorder('endpoint-slice-controller'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
    ...(ctx.metricsRegistry
      ? { metricsProvider: prometheusEndpointSliceMetricsProvider(ctx.metricsRegistry) }
      : {}),
  });
  return { running: controller.run(config.concurrentServiceEndpointSyncs, signal) };
};

/**
 * Starts the EndpointSlice mirroring controller, which mirrors Endpoints
 * that no selector fills (custom Endpoints) into EndpointSlices, with
 * `--mirroring-concurrent-service-endpoint-syncs` workers,
 * `--mirroring-max-endpoints-per-subset` and
 * `--mirroring-endpointslice-updates-batch-period`, on the shared Endpoints,
 * EndpointSlice and Service informers, with the client
 * `endpointslicemirroring-controller`. Go's
 * `newEndpointSliceMirroringController`.
 *
 * @category Controllers
 */
export const startEndpointSliceMirroringController: InitFunc = async (ctx, name, signal) => {
  if (!(await serverHasResource(ctx, informerResources.endpointSlices))) return undefined;
  const config = ctx.componentConfig.endpointSliceMirroringController;
  const source = ctx.clientBuilder.client('endpointslicemirroring-controller');
  const controller = new EndpointSliceMirroringController({
    endpoints: ctx.informerFactory.endpoints(),
    endpointSlices: ctx.informerFactory.endpointSlices(),
    services: ctx.informerFactory.services(),
    client: {
      endpointSlices: source.resource<EndpointSlice>(informerResources.endpointSlices, {
        namespaced: true,
        kind: 'EndpointSlice',
      }),
    },
    maxEndpointsPerSubset: config.mirroringMaxEndpointsPerSubset,
    endpointUpdatesBatchPeriod: config.mirroringEndpointUpdatesBatchPeriod,
    recorder: ctx.eventRecorder('endpoint-slice-mirroring-controller'),
    clock: ctx.clock,
    logger: ctx.logger.withName(name),
    ...(ctx.metricsRegistry
      ? { metricsProvider: prometheusEndpointSliceMetricsProvider(ctx.metricsRegistry) }
      : {}),
  });
  return { running: controller.run(config.mirroringConcurrentServiceEndpointSyncs, signal) };
};
