// The README's quick start: the controller through real informers over an
// in-memory API server (test/memory-api.ts) on a fake clock. The sandbox
// does not serve discovery.k8s.io/v1 endpointslices yet; against a real
// cluster the source and clients come from @kcm-ts/client.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import { FakeClock, FakeRecorder } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { describe, expect, it } from 'vitest';
import { EndpointSliceController, concurrentServiceEndpointSyncs } from '../src/index.js';
import { settle } from './helpers.js';
import { MemoryAPI } from './memory-api.js';

describe('quick start', () => {
  it('lists the ready pods behind a Service in EndpointSlices', async () => {
    const clock = new FakeClock();
    const api = new MemoryAPI(clock);
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    const source = api.source; // anything with resource(), such as @kcm-ts/client's Client
    const endpointSlices = api.client<EndpointSlice>('discovery.k8s.io', 'endpointslices');
    const services = api.client<Service>('', 'services');
    const pods = api.client<Pod>('', 'pods');
    await api.client<Node>('', 'nodes').create({
      metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
    });

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new EndpointSliceController({
      pods: factory.pods(),
      services: factory.services(),
      endpointSlices: factory.endpointSlices(),
      nodes: factory.nodes(),
      client: { endpointSlices },
      maxEndpointsPerSlice: 100, // --max-endpoints-per-slice
      recorder,
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentServiceEndpointSyncs, signal); // 5 workers

    await services.inNamespace('default').create({
      metadata: { name: 'web' },
      spec: {
        selector: { app: 'web' },
        clusterIP: '10.96.0.10', // kube-apiserver allocates it; this in-memory server does not
        ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
        ipFamilies: ['IPv4'],
      },
    });
    //#endregion start-controller

    for (let i = 1; i <= 3; i++) {
      await pods.inNamespace('default').create({
        metadata: { name: `web-${i}`, labels: { app: 'web' } },
        spec: {
          nodeName: 'node-1',
          containers: [{ name: 'web', ports: [{ name: 'http', containerPort: 8080 }] }],
        },
        status: {
          phase: 'Running',
          podIPs: [{ ip: `10.244.0.${i}` }],
          conditions: [{ type: 'Ready', status: i === 3 ? 'False' : 'True' }],
        },
      });
    }
    for (let i = 0; i < 30; i++) {
      await clock.advance(100);
      await settle();
    }

    //#region result
    const [slice] = (await endpointSlices.inNamespace('default').list()).items;
    // slice.metadata.generateName === 'web-', labels kubernetes.io/service-name: web,
    // endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io
    // slice.ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] (the named port, resolved)
    // slice.endpoints: 10.244.0.1 and .2 ready; 10.244.0.3 not ready, each in zone-a
    //#endregion result
    expect(slice!.metadata!.labels).toEqual({
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const byIP = Object.fromEntries(
      slice!.endpoints.map((e) => [e.addresses[0], [e.conditions!.ready, e.zone]]),
    );
    expect(byIP).toEqual({
      '10.244.0.1': [true, 'zone-a'],
      '10.244.0.2': [true, 'zone-a'],
      '10.244.0.3': [false, 'zone-a'],
    });

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queue is shut down
    //#endregion stop
    await factory.shutdown();
    expect(clock.hasWaiters()).toBe(false);
  });
});
