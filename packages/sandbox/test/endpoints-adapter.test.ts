// kube-apiserver's EndpointsAdapter.Sync, the rows of
// pkg/controlplane/reconcilers/endpointsadapter_test.go
// (TestEndpointsAdapterSync) that a single-stack IPv4 server can meet: what
// it creates, updates and deletes from each starting state. Left out: the
// IPv6 and dual-stack rows (the sandbox serves IPv4 only and its Endpoints
// validation refuses IPv6 addresses) and the deprecated `IP` address type,
// which no slice the sandbox stores can have.
import type { KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import type { EndpointPort, Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { describe, expect, it } from 'vitest';
import { EndpointsAdapter } from '../src/apiserver/registry/service/endpoints-adapter.js';
import { inProcessClient } from '../src/index.js';
import { newRegistry } from './helpers.js';

const ns = 'testing';
const name = 'foo';

/** generateEndpointsAndSlice: the Endpoints and slice Sync writes for `ports` and `ips`. */
function generate(ports: number[], ips: string[]): { eps: Endpoints; slice: EndpointSlice } {
  const epPorts: EndpointPort[] = ports.map((port, i) => ({
    name: `port-${i}`,
    port,
    protocol: 'TCP',
  }));
  return {
    eps: {
      metadata: {
        name,
        namespace: ns,
        labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
      },
      subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: epPorts }],
    },
    slice: {
      metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: epPorts.map((p) => ({ ...p })),
    },
  };
}

const one = generate([80], ['10.1.2.3', '10.1.2.4']);
const ips1 = ['10.1.2.3', '10.1.2.4'];
const ports1 = one.eps.subsets![0]!.ports!;
const two = generate([80, 443], ['10.1.2.3', '10.1.2.4', '10.1.2.5']);
const ips2 = ['10.1.2.3', '10.1.2.4', '10.1.2.5'];
const ports2 = two.eps.subsets![0]!.ports!;
const ipsDual = ['10.1.2.3', '10.1.2.4', '1234::5678', '1234::abcd'];

/** A client that notes each write it passes on. */
function recording<T extends KubeObject>(
  client: ResourceClient<T>,
  kind: string,
  actions: string[],
): ResourceClient<T> {
  const wrap = (c: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(c, {
      get(target, prop, receiver) {
        if (prop === 'inNamespace') return (n: string) => wrap(target.inNamespace(n));
        if (prop === 'create' || prop === 'update' || prop === 'delete') {
          return (...args: unknown[]) => {
            actions.push(`${String(prop)} ${kind}`);
            return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  return wrap(client);
}

describe('EndpointsAdapter.sync (TestEndpointsAdapterSync)', () => {
  it.each([
    ['single-endpoint', [], ips1, ports1, ['create Endpoints', 'create EndpointSlice'], one],
    [
      'ipv4-cluster-no-create-ipv6',
      [],
      ipsDual,
      ports1,
      ['create Endpoints', 'create EndpointSlice'],
      one,
    ],
    ['existing-endpointslice-correct', [one.slice], ips1, ports1, ['create Endpoints'], one],
    [
      'existing-endpointslice-incorrect',
      [one.slice],
      ips2,
      ports2,
      ['create Endpoints', 'update EndpointSlice'],
      two,
    ],
    ['single-existing-endpoints-no-change', [one.eps, one.slice], ips1, ports1, [], one],
    [
      'add-ports-and-ips',
      [one.eps, one.slice],
      ips2,
      ports2,
      ['update Endpoints', 'update EndpointSlice'],
      two,
    ],
    [
      'endpoints-correct-endpointslice-wrong',
      [two.eps, one.slice],
      ips2,
      ports2,
      ['update EndpointSlice'],
      two,
    ],
    [
      'endpointslice-correct-endpoints-wrong',
      [one.eps, two.slice],
      ips2,
      ports2,
      ['update Endpoints'],
      two,
    ],
    [
      'missing-endpointslice',
      [two.eps],
      ips1,
      ports1,
      ['update Endpoints', 'create EndpointSlice'],
      one,
    ],
  ] as const)('%s', async (_row, initial, ips, ports, wantActions, want) => {
    const { registry, clock } = newRegistry();
    registry.create(registry.resource('', 'namespaces'), '', { metadata: { name: ns } });
    const epsInfo = registry.resource('', 'endpoints');
    const sliceInfo = registry.resource('discovery.k8s.io', 'endpointslices');
    for (const o of initial) {
      registry.create('subsets' in o ? epsInfo : sliceInfo, ns, structuredClone(o));
    }
    const actions: string[] = [];
    const adapter = new EndpointsAdapter({
      endpoints: recording(inProcessClient<Endpoints>(registry, epsInfo), 'Endpoints', actions),
      endpointSlices: recording(
        inProcessClient<EndpointSlice>(registry, sliceInfo),
        'EndpointSlice',
        actions,
      ),
      serviceNamespace: ns,
      serviceName: name,
      clock,
      random: () => 0,
    });
    await adapter.sync(ips, ports, true);
    expect(actions).toEqual(wantActions);
    const eps = registry.get(epsInfo, ns, name) as Endpoints;
    expect({ labels: eps.metadata?.labels, subsets: eps.subsets }).toEqual({
      labels: want.eps.metadata?.labels,
      subsets: want.eps.subsets,
    });
    const slice = registry.get(sliceInfo, ns, name) as EndpointSlice;
    expect({
      labels: slice.metadata?.labels,
      addressType: slice.addressType,
      endpoints: slice.endpoints,
      ports: slice.ports,
    }).toEqual({
      labels: want.slice.metadata?.labels,
      addressType: 'IPv4',
      endpoints: want.slice.endpoints,
      ports: want.slice.ports,
    });
  });

  it('keeps the ports it finds unless told to reconcile them', async () => {
    const { registry, clock } = newRegistry();
    registry.create(registry.resource('', 'namespaces'), '', { metadata: { name: ns } });
    const epsInfo = registry.resource('', 'endpoints');
    const sliceInfo = registry.resource('discovery.k8s.io', 'endpointslices');
    registry.create(epsInfo, ns, structuredClone(two.eps));
    registry.create(sliceInfo, ns, structuredClone(two.slice));
    const adapter = new EndpointsAdapter({
      endpoints: inProcessClient<Endpoints>(registry, epsInfo),
      endpointSlices: inProcessClient<EndpointSlice>(registry, sliceInfo),
      serviceNamespace: ns,
      serviceName: name,
      clock,
      random: () => 0,
    });
    await adapter.sync(ips1, ports1, false);
    const eps = registry.get(epsInfo, ns, name) as Endpoints;
    expect(eps.subsets).toEqual([{ addresses: ips1.map((ip) => ({ ip })), ports: ports2 }]);
    expect((registry.get(sliceInfo, ns, name) as EndpointSlice).ports).toEqual(ports2);
    await adapter.sync(ips1, ports1, true);
    expect((registry.get(epsInfo, ns, name) as Endpoints).subsets).toEqual(one.eps.subsets);
    expect((registry.get(sliceInfo, ns, name) as EndpointSlice).ports).toEqual(ports1);
  });
});
