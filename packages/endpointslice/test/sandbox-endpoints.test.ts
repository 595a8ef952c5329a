// The Endpoints and EndpointSlice mirroring controllers against an
// in-process sandbox with simulated nodes on a fake clock: the pods behind
// a Service with a selector show up in its Endpoints object (ready, then not
// ready while a deleted pod stops, then gone), and a selector-less Service's
// hand-written Endpoints are mirrored into an EndpointSlice and follow its
// changes.
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, type GroupVersionResource, type KubeObject } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import {
  EndpointSliceMirroringController,
  EndpointsController,
  mirroringControllerQualifiedName,
} from '../src/index.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function start(): Promise<{ sandbox: Sandbox; clock: FakeClock }> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 2,
    podStartDelay: 100,
    podReadyDelay: 100,
    podStopDelay: 1_000,
  });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const endpoints = new EndpointsController({
    pods: factory.pods(),
    services: factory.services(),
    endpoints: factory.endpoints(),
    client: { endpoints: sandbox.client<Endpoints>('', 'endpoints') },
    clock,
  });
  const mirroring = new EndpointSliceMirroringController({
    endpoints: factory.endpoints(),
    endpointSlices: factory.endpointSlices(),
    services: factory.services(),
    client: { endpointSlices: sandbox.client<EndpointSlice>('discovery.k8s.io', 'endpointslices') },
    clock,
  });
  // One signal each, so that no signal gathers more listeners than Node's warning threshold.
  const aborts = [new AbortController(), new AbortController(), new AbortController()];
  factory.start(aborts[0]!.signal);
  const running = [endpoints.run(2, aborts[1]!.signal), mirroring.run(2, aborts[2]!.signal)];
  stop = async () => {
    for (const a of aborts) a.abort();
    await Promise.all(running);
    await factory.shutdown();
    await sandbox.stop();
  };
  return { sandbox, clock };
}

async function until(clock: FakeClock, done: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await done()) return;
    await clock.advance(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const pod = (name: string): Pod => ({
  metadata: { name, labels: { app: 'web' } },
  spec: {
    containers: [{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }],
  },
});

describe('the Endpoints and mirroring controllers on a sandbox', () => {
  it('keep a Service’s Endpoints on its pods, and mirror hand-written Endpoints into a slice', async () => {
    const { sandbox, clock } = await start();
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const services = sandbox.client<Service>('', 'services').inNamespace('default');
    const endpoints = sandbox.client<Endpoints>('', 'endpoints').inNamespace('default');
    const slices = sandbox
      .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
      .inNamespace('default');
    for (const name of ['web-1', 'web-2']) await pods.create(pod(name));
    await services.create({
      metadata: { name: 'web', labels: { tier: 'front' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const web = async () => endpoints.get('web').catch(() => undefined);
    const ready = async () =>
      ((await web())?.subsets ?? []).flatMap((s) => s.addresses ?? []).map((a) => a.ip);
    const ips = async () =>
      (await pods.list()).items
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => p.status?.podIP ?? '')
        .sort();
    await until(clock, async () => (await ready()).length === 2, 'two ready addresses');
    expect(await ready()).toEqual(await ips());
    const ep = (await web())!;
    expect(ep.metadata!.labels).toEqual({ tier: 'front' }); // a cluster IP: not headless
    expect(ep.subsets![0]!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    // Settled: more time writes nothing more.
    const rv = ep.metadata!.resourceVersion;
    for (let i = 0; i < 20; i++) await clock.advance(100);
    expect((await web())!.metadata!.resourceVersion).toBe(rv);

    // A deleted pod leaves the Endpoints (terminating pods are not published).
    const gone = (await pods.get('web-2')).status?.podIP;
    await pods.delete('web-2');
    await until(clock, async () => !(await ready()).includes(gone!), 'the deleted pod gone');
    expect(await ready()).toEqual(await ips());

    // A Service without a selector, with hand-written Endpoints: mirrored.
    await services.create({ metadata: { name: 'db' }, spec: { ports: [{ port: 5432 }] } });
    await endpoints.create({
      metadata: { name: 'db' },
      subsets: [{ addresses: [{ ip: '192.168.1.10' }], ports: [{ port: 5432, protocol: 'TCP' }] }],
    });
    const mirrored = async () =>
      (
        await slices.list({
          labelSelector: `endpointslice.kubernetes.io/managed-by=${mirroringControllerQualifiedName}`,
        })
      ).items;
    await until(clock, async () => (await mirrored()).length === 1, 'a mirrored slice');
    const [slice] = await mirrored();
    expect(slice!.metadata!.labels!['kubernetes.io/service-name']).toBe('db');
    expect(slice!.endpoints.map((e) => [e.addresses[0], e.conditions?.ready])).toEqual([
      ['192.168.1.10', true],
    ]);
    expect(slice!.metadata!.ownerReferences?.[0]).toMatchObject({ kind: 'Endpoints', name: 'db' });
    // The Endpoints controller leaves the selector-less Service's Endpoints alone.
    expect((await endpoints.get('db')).subsets![0]!.addresses).toEqual([{ ip: '192.168.1.10' }]);

    const db = await endpoints.get('db');
    await endpoints.update({
      ...db,
      subsets: [
        {
          addresses: [{ ip: '192.168.1.10' }, { ip: '192.168.1.11' }],
          ports: [{ port: 5432, protocol: 'TCP' }],
        },
      ],
    });
    await until(
      clock,
      async () => (await mirrored())[0]?.endpoints.length === 2,
      'the mirrored slice updated',
    );
    expect((await mirrored()).map((s) => s.metadata!.name)).toEqual([slice!.metadata!.name]);
  });
});
