// The `kubernetes` Service's Endpoints and EndpointSlice, as kube-apiserver
// keeps them (pkg/controlplane/controller/kubernetesservice/controller.go
// with the lease reconciler, writing through pkg/controlplane/reconcilers/
// endpointsadapter.go, whose own table test is endpoints-adapter.test.ts):
// written at start, put back on the 10 s beat of the sandbox's fake clock
// after a delete or an edit.
import { FakeClock, isStatus } from '@kcm-ts/apimachinery';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import type { Sandbox } from '../src/index.js';
import { toTable } from '../src/printers/index.js';
import { epoch } from './helpers.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
});

async function start() {
  const clock = new FakeClock(epoch);
  sandbox = await startSandbox({ insecureHttp: true, clock });
  const endpoints = sandbox.client<Endpoints>('', 'endpoints').inNamespace('default');
  const slices = sandbox
    .client<EndpointSlice>('discovery.k8s.io', 'endpointslices')
    .inNamespace('default');
  return { sandbox, clock, endpoints, slices, port: sandbox.port };
}

const wantedSubsets = (port: number) => [
  {
    addresses: [{ ip: '172.18.0.2' }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  },
];

const wantedSlice = (port: number) => ({
  addressType: 'IPv4',
  endpoints: [{ addresses: ['172.18.0.2'], conditions: { ready: true } }],
  ports: [{ name: 'https', port, protocol: 'TCP' }],
});

describe('the kubernetes Service’s endpoints', () => {
  it('are written at start: the advertised address and the server’s port, as kubectl get endpoints shows', async () => {
    const { endpoints, slices, port } = await start();
    const eps = await endpoints.get('kubernetes');
    expect(eps.metadata?.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(eps.subsets).toEqual(wantedSubsets(port));
    const slice = await slices.get('kubernetes');
    // endpointsadapter.go labels the slice with the service name only (no managed-by).
    expect(slice.metadata?.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice).toMatchObject(wantedSlice(port));
    const table = toTable('endpoints', '', [eps], { now: epoch, resourceVersion: '1' });
    const column = table.columnDefinitions.findIndex((c) => c.name === 'Endpoints');
    expect(table.rows[0]?.cells[column]).toBe(`172.18.0.2:${port}`);
  });

  it('are left alone while nobody touches them: no write every 10 s', async () => {
    const { clock, endpoints, slices } = await start();
    const before = [
      (await endpoints.get('kubernetes')).metadata?.resourceVersion,
      (await slices.get('kubernetes')).metadata?.resourceVersion,
    ];
    await clock.advance(35_000);
    expect([
      (await endpoints.get('kubernetes')).metadata?.resourceVersion,
      (await slices.get('kubernetes')).metadata?.resourceVersion,
    ]).toEqual(before);
  });

  it('come back within 10 s of being deleted, with the Service', async () => {
    const { sandbox: s, clock, endpoints, slices, port } = await start();
    const services = s.client<Service>('', 'services').inNamespace('default');
    await services.delete('kubernetes');
    expect(isStatus(await endpoints.delete('kubernetes'))).toBe(true);
    await slices.delete('kubernetes');
    await expect(endpoints.get('kubernetes')).rejects.toMatchObject({ code: 404 });
    await clock.advance(9_000);
    await expect(slices.get('kubernetes')).rejects.toMatchObject({ code: 404 });
    await clock.advance(1_000);
    expect((await endpoints.get('kubernetes')).subsets).toEqual(wantedSubsets(port));
    expect(await slices.get('kubernetes')).toMatchObject(wantedSlice(port));
    expect((await services.get('kubernetes')).spec).toMatchObject({
      clusterIP: '10.96.0.1',
      ports: [{ name: 'https', port: 443, targetPort: port }],
    });
  });

  it('have edited addresses and labels put back; ports someone set are kept, a missing port list refilled', async () => {
    const { clock, endpoints, slices, port } = await start();
    const eps = await endpoints.get('kubernetes');
    await endpoints.update({
      ...eps,
      metadata: { ...eps.metadata, labels: { team: 'x' } },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.9' }],
          ports: [{ name: 'https', port: 7443, protocol: 'TCP' }],
        },
      ],
    });
    const slice = await slices.get('kubernetes');
    await slices.update({
      ...slice,
      metadata: {
        ...slice.metadata,
        labels: { 'kubernetes.io/service-name': 'kubernetes', x: 'y' },
      },
      endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: false } }],
      ports: [],
    });
    await clock.advance(10_000);
    const fixed = await endpoints.get('kubernetes');
    expect(fixed.metadata?.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    // The periodic pass does not reconcile ports that are there (reconcilePorts false).
    expect(fixed.subsets).toEqual([
      {
        addresses: [{ ip: '172.18.0.2' }],
        ports: [{ name: 'https', port: 7443, protocol: 'TCP' }],
      },
    ]);
    const fixedSlice = await slices.get('kubernetes');
    expect(fixedSlice.metadata?.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(fixedSlice).toMatchObject(wantedSlice(port));
  });

  it('have extra subsets folded back into one, and other slices labelled for the Service deleted', async () => {
    const { clock, endpoints, slices, port } = await start();
    const eps = await endpoints.get('kubernetes');
    await endpoints.update({
      ...eps,
      subsets: [
        { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1 }] },
        { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 2 }] },
      ],
    });
    await slices.create({
      metadata: {
        name: 'kubernetes-extra',
        labels: { 'kubernetes.io/service-name': 'kubernetes' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.3'] }],
    });
    await clock.advance(10_000);
    expect((await endpoints.get('kubernetes')).subsets).toEqual(wantedSubsets(port));
    await expect(slices.get('kubernetes-extra')).rejects.toMatchObject({ code: 404 });
  });

  it('stop being kept once the sandbox stops', async () => {
    const { sandbox: s, clock } = await start();
    await s.stop();
    sandbox = undefined;
    expect(clock.hasWaiters()).toBe(false);
  });
});
