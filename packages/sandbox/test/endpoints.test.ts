// v1 Endpoints and discovery.k8s.io/v1 EndpointSlices as kube-apiserver
// stores them: ports default to TCP, kube's field errors (addresses,
// ports, address types, the 1,000-endpoint cap), the address type fixed
// once set, and the Tables `kubectl get endpoints` and `kubectl get
// endpointslices` print.
import { isInvalid } from '@kcm-ts/apimachinery';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { describe, expect, it } from 'vitest';
import { toTable } from '../src/printers/index.js';
import { newRegistry } from './helpers.js';

function setup() {
  const { registry } = newRegistry();
  const ep = registry.resource('', 'endpoints');
  const eps = registry.resource('discovery.k8s.io', 'endpointslices');
  const causes = (fn: () => unknown): string[] => {
    try {
      fn();
    } catch (err) {
      expect(isInvalid(err)).toBe(true);
      const details = (err as { details?: { causes?: { field?: string; message?: string }[] } })
        .details;
      return (details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
    }
    throw new Error('expected 422 Invalid');
  };
  return { registry, ep, eps, causes };
}

const slice = (name: string, addresses: string[][], extra: object = {}) => ({
  metadata: { name, labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: addresses.map((a) => ({ addresses: a, conditions: { ready: true } })),
  ports: [{ name: 'http', port: 80 }],
  ...extra,
});

describe('Endpoints', () => {
  it('default their ports to TCP and refuse addresses no pod has', () => {
    const { registry, ep, causes } = setup();
    const created = registry.create(ep, 'default', {
      metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.244.1.2' }], ports: [{ port: 80 }] }],
    }) as Endpoints;
    expect(created.subsets?.[0]?.ports).toEqual([{ port: 80, protocol: 'TCP' }]);
    expect(
      causes(() =>
        registry.create(ep, 'default', {
          metadata: { name: 'bad' },
          subsets: [
            {
              addresses: [{ ip: '127.0.0.1' }, { ip: 'nope' }],
              ports: [{ port: 0 }, { port: 80 }],
            },
            { ports: [{ port: 80 }] },
          ],
        }),
      ),
    ).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'subsets[0].addresses[1].ip: Invalid value: "nope": must be a valid IP address',
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'subsets[0].ports[1].name: Required value',
      'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
    ]);
  });
});

describe('EndpointSlices', () => {
  it('default their ports to TCP, need a supported address type, and keep it', () => {
    const { registry, eps, causes } = setup();
    const created = registry.create(
      eps,
      'default',
      slice('web-abc', [['10.244.1.2']]),
    ) as EndpointSlice;
    expect(created.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);
    expect(created.metadata?.generation).toBe(1);
    expect(
      causes(() =>
        registry.create(
          eps,
          'default',
          slice('bad', [[], ['10.0.0.300']], { addressType: 'IPv5' }),
        ),
      ),
    ).toEqual([
      'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"',
      'endpoints[0].addresses: Required value: must contain at least 1 address',
    ]);
    expect(causes(() => registry.create(eps, 'default', slice('bad', [['10.0.0.300']])))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "10.0.0.300": must be a valid IPv4 address',
    ]);
    const many = Array.from({ length: 1001 }, (_, i) => [
      `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    ]);
    expect(causes(() => registry.create(eps, 'default', slice('big', many)))).toEqual([
      'endpoints: Too many: 1001: must have at most 1000 items',
    ]);
    expect(
      causes(() =>
        registry.patch(eps, 'default', 'web-abc', { type: 'merge', body: { addressType: 'IPv6' } }),
      ),
    ).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });
});

describe('the Tables of Endpoints and EndpointSlices', () => {
  const now = Date.parse('2026-01-02T03:04:05Z');
  const cells = (resource: string, group: string, o: object) => {
    const t = toTable(resource, group, [o], { now, resourceVersion: '1' });
    return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0]!.cells[i]]));
  };
  const meta = { name: 'web', creationTimestamp: '2026-01-02T03:03:05Z' };

  it('print what kubectl get prints', () => {
    expect(
      cells('endpoints', '', {
        metadata: meta,
        subsets: [
          {
            addresses: [{ ip: '10.244.1.2' }, { ip: '10.244.2.3' }],
            ports: [{ port: 80 }, { port: 443 }],
          },
        ],
      }),
    ).toEqual({
      Name: 'web',
      Endpoints: '10.244.1.2:80,10.244.2.3:80,10.244.1.2:443 + 1 more...',
      Age: '60s',
    });
    expect(cells('endpoints', '', { metadata: meta })).toMatchObject({ Endpoints: '<none>' });
    expect(
      cells('endpointslices', 'discovery.k8s.io', {
        ...slice('web', [['10.244.1.2'], ['10.244.2.3']]),
        metadata: meta,
      }),
    ).toEqual({
      Name: 'web',
      AddressType: 'IPv4',
      Ports: '80',
      Endpoints: '10.244.1.2,10.244.2.3',
      Age: '60s',
    });
    expect(
      cells('endpointslices', 'discovery.k8s.io', {
        metadata: meta,
        addressType: 'IPv4',
        endpoints: [],
      }),
    ).toMatchObject({ Ports: '<unset>', Endpoints: '<unset>' });
  });
});
