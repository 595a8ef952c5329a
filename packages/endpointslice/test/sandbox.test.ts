// The EndpointSlice controller against an in-process sandbox with three
// simulated nodes on a fake clock: the pods behind a Service are scheduled,
// get their IPs from their nodes and become ready, and the Service's slice
// follows them: added, marked terminating while a deleted pod stops, gone
// with it, in the same slice. The slice names the Service as its owner: the
// garbage collector, not this controller, removes it with the Service.
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, type GroupVersionResource, type KubeObject } from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { EndpointSliceController } from '../src/index.js';

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
    nodes: 3,
    podStartDelay: 100,
    podReadyDelay: 100,
    podStopDelay: 1_000,
  });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const factory = new SharedInformerFactory(source, 0, { clock });
  const controller = new EndpointSliceController({
    pods: factory.pods(),
    services: factory.services(),
    nodes: factory.nodes(),
    endpointSlices: factory.endpointSlices(),
    client: { endpointSlices: sandbox.client<EndpointSlice>('discovery.k8s.io', 'endpointslices') },
    clock,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(2, abort.signal);
  stop = async () => {
    abort.abort();
    await running;
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

describe('the EndpointSlice controller on a sandbox', () => {
  it('keeps a Service’s slice on its ready pods, through deletions, owned by the Service', async () => {
    const { sandbox, clock } = await start();
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const services = sandbox.client<Service>('', 'services').inNamespace('default');
    const slices = sandbox
      .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
      .inNamespace('default');
    for (const name of ['web-1', 'web-2', 'web-3']) await pods.create(pod(name));
    await services.create({
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
    });
    const sliceOf = async () =>
      (await slices.list({ labelSelector: 'kubernetes.io/service-name=web' })).items;
    const ready = async () =>
      (await sliceOf())
        .flatMap((s) => s.endpoints ?? [])
        .filter((e) => e.conditions?.ready === true)
        .flatMap((e) => e.addresses)
        .sort();
    const ips = async () =>
      (await pods.list()).items
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => p.status?.podIP ?? '')
        .sort();
    await until(clock, async () => (await ready()).length === 3, 'three ready endpoints');
    expect(await ready()).toEqual(await ips());
    const [slice] = await sliceOf();
    // The named target port resolved to the pods' container port.
    expect(slice!.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    expect(slice!.addressType).toBe('IPv4');
    expect(new Set(slice!.endpoints.map((e) => e.nodeName))).toEqual(new Set(['node-2', 'node-3']));
    expect(slice!.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Service', name: 'web' });

    // A deleted pod is terminating, not ready nor serving, until it is gone.
    const gone = (await pods.get('web-2')).status?.podIP;
    await pods.delete('web-2');
    await until(
      clock,
      async () =>
        (await sliceOf())
          .flatMap((s) => s.endpoints ?? [])
          .some((e) => e.addresses[0] === gone && e.conditions?.terminating === true),
      'a terminating endpoint',
    );
    const terminating = (await sliceOf())
      .flatMap((s) => s.endpoints ?? [])
      .find((e) => e.addresses[0] === gone);
    expect(terminating?.conditions).toEqual({ ready: false, serving: true, terminating: true });
    await until(
      clock,
      async () =>
        (await ready()).length === 2 &&
        (await sliceOf()).every((s) => s.endpoints.every((e) => e.addresses[0] !== gone)),
      'the deleted pod gone from the slice',
    );
    expect(await ready()).toEqual(await ips());
    expect(await sliceOf()).toHaveLength(1); // updated in place, no new slice
  });
});
