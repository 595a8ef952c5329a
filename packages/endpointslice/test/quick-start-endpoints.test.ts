// The README's sections on the Endpoints and mirroring controllers: both
// started as kube-controller-manager starts them (startEndpointsController,
// startEndpointSliceMirroringController), through real informers over the
// in-memory API server of test/memory-api.ts on a fake clock.
import { setMaxListeners } from 'node:events';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import {
  EndpointSliceMirroringController,
  EndpointsController,
  concurrentEndpointSyncs,
  mirroringConcurrentServiceEndpointSyncs,
} from '../src/index.js';
import { settle } from './helpers.js';
import { MemoryAPI } from './memory-api.js';

describe('quick start: Endpoints and mirroring', () => {
  it('publishes a Service’s pods in its Endpoints, and mirrors custom Endpoints into a slice', async () => {
    const clock = new FakeClock();
    const api = new MemoryAPI(clock);
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    // Two controllers and four informers share it, as in kube-controller-manager,
    // whose manager lifts Node's listener warning the same way.
    setMaxListeners(0, signal);
    const source = api.source;
    const endpoints = api.client<Endpoints>('', 'endpoints');
    const endpointSlices = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const services = api.client<Service>('', 'services').inNamespace('default');
    const pods = api.client<Pod>('', 'pods').inNamespace('default');

    //#region start-endpoints-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const endpointsController = new EndpointsController({
      pods: factory.pods(),
      services: factory.services(),
      endpoints: factory.endpoints(),
      client: { endpoints },
      endpointUpdatesBatchPeriod: 0, // --endpoint-updates-batch-period
      recorder, // component endpoint-controller
      clock,
    });
    //#endregion start-endpoints-controller
    //#region start-mirroring-controller
    const mirroringController = new EndpointSliceMirroringController({
      endpoints: factory.endpoints(),
      endpointSlices: factory.endpointSlices(),
      services: factory.services(),
      client: { endpointSlices },
      maxEndpointsPerSubset: 1000, // --mirroring-max-endpoints-per-subset
      endpointUpdatesBatchPeriod: 0, // --mirroring-endpointslice-updates-batch-period
      recorder, // component endpoint-slice-mirroring-controller
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = [
      endpointsController.run(concurrentEndpointSyncs, signal), // --concurrent-endpoint-syncs: 5
      // --mirroring-concurrent-service-endpoint-syncs: 5
      mirroringController.run(mirroringConcurrentServiceEndpointSyncs, signal),
    ];
    //#endregion start-mirroring-controller

    await services.create({
      metadata: { name: 'web' },
      spec: {
        selector: { app: 'web' },
        clusterIP: '10.96.0.10',
        ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
      },
    });
    for (let i = 1; i <= 2; i++) {
      await pods.create({
        metadata: { name: `web-${i}`, labels: { app: 'web' } },
        spec: {
          nodeName: 'node-1',
          containers: [{ name: 'web', ports: [{ name: 'http', containerPort: 8080 }] }],
        },
        status: {
          phase: 'Running',
          podIP: `10.244.0.${i}`,
          podIPs: [{ ip: `10.244.0.${i}` }],
          conditions: [{ type: 'Ready', status: i === 2 ? 'False' : 'True' }],
        },
      });
    }
    await services.create({ metadata: { name: 'db' }, spec: { ports: [{ port: 5432 }] } });
    await endpoints.inNamespace('default').create({
      metadata: { name: 'db' },
      subsets: [{ addresses: [{ ip: '192.168.1.10' }], ports: [{ port: 5432, protocol: 'TCP' }] }],
    });
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      await settle();
    }

    //#region result
    const web = await endpoints.inNamespace('default').get('web');
    // web.subsets: [{ addresses: [10.244.0.1], notReadyAddresses: [10.244.0.2],
    //                 ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]
    const [mirrored] = (await endpointSlices.inNamespace('default').list()).items;
    // mirrored.metadata.labels: kubernetes.io/service-name: db,
    //   endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io
    // mirrored.endpoints: [{ addresses: ['192.168.1.10'], conditions: { ready: true } }]
    //#endregion result
    expect(web.subsets).toEqual([
      {
        addresses: [
          {
            ip: '10.244.0.1',
            nodeName: 'node-1',
            targetRef: {
              kind: 'Pod',
              namespace: 'default',
              name: 'web-1',
              uid: expect.any(String),
            },
          },
        ],
        notReadyAddresses: [
          {
            ip: '10.244.0.2',
            nodeName: 'node-1',
            targetRef: {
              kind: 'Pod',
              namespace: 'default',
              name: 'web-2',
              uid: expect.any(String),
            },
          },
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
    expect(mirrored!.metadata!.labels).toEqual({
      'kubernetes.io/service-name': 'db',
      'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io',
    });
    expect(mirrored!.endpoints).toEqual([
      { addresses: ['192.168.1.10'], conditions: { ready: true } },
    ]);
    expect(recorder.events).toEqual([]);

    stop.abort();
    await Promise.all(running);
    await factory.shutdown();
    expect(clock.hasWaiters()).toBe(false);
  });
});
