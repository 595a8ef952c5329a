import { expect, it } from 'vitest';
import { describeEndpoints, run } from './05-endpoints.js';

it('keeps one Endpoints object per Service, and mirrors hand-written Endpoints into a slice', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // Two port numbers for the name `http`: two subsets, repacked (RepackSubsets)
  // so that the pods sharing a port share a subset.
  const subsets = r.web.subsets ?? [];
  expect(subsets.map((s) => s.ports?.map((p) => p.port))).toEqual([[80], [8080]]);
  expect(subsets.map((s) => (s.addresses ?? []).map((a) => a.targetRef?.name).sort())).toEqual([
    ['web-001', 'web-002'],
    ['web-003'],
  ]);
  expect(subsets.every((s) => (s.notReadyAddresses ?? []).length === 0)).toBe(true);
  // The trigger time, and no over-capacity annotation under the cap.
  expect(r.web.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toMatch(
    /^2026-01-01T/,
  );
  expect(r.web.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity']).toBeUndefined();
  // The whole object was written again for each change: creation, then the pods.
  expect(r.writes).toBeGreaterThanOrEqual(3);
  expect(r.describe.split(',')).toHaveLength(3);

  // The mirrored slice: labelled for the Service and the mirroring controller,
  // owned by the Endpoints object, following its edit.
  expect(r.mirrored.metadata?.labels).toMatchObject({
    'kubernetes.io/service-name': 'db',
    'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io',
  });
  expect(r.mirrored.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'Endpoints',
    name: 'db',
  });
  expect(r.mirrored.endpoints.map((e) => e.addresses[0])).toEqual([
    '192.168.1.10',
    '192.168.1.11',
    '192.168.1.12',
  ]);
  expect(r.mirrored.ports).toEqual([{ name: 'pg', port: 5432, protocol: 'TCP' }]);
  // The Endpoints of a Service with a selector are not mirrored.
  expect(new Set(r.webManagers)).toEqual(new Set(['endpointslice-controller.k8s.io']));

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-endpoints.txt');
});

it('prints describe’s Endpoints line as kubectl did: ready addresses, three at most', () => {
  const ep = {
    subsets: [
      {
        addresses: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].map((ip) => ({ ip })),
        notReadyAddresses: [{ ip: '10.0.0.9' }],
        ports: [{ name: 'http', port: 80 }],
      },
    ],
  };
  expect(describeEndpoints(ep, 'http')).toBe('10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...');
  expect(describeEndpoints(ep, 'other')).toBe('<none>');
  expect(describeEndpoints(undefined, 'http')).toBe('<none>');
});
