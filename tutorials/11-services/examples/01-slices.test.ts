import { expect, it } from 'vitest';
import { run } from './01-slices.js';

it('lists the pods of a Service in one slice, through a deletion and a new pod', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // One slice, owned by the Service, labelled for it and for the controller.
  expect(r.slice.metadata?.generateName).toBe('web-');
  expect(r.slice.metadata?.labels).toEqual({
    'kubernetes.io/service-name': 'web',
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  expect(r.slice.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'Service',
    name: 'web',
    controller: true,
    blockOwnerDeletion: true,
  });
  expect(r.slice.addressType).toBe('IPv4');
  // The target port `http` resolved per pod to the container port 80.
  expect(r.slice.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP' }]);
  expect(r.slice.endpoints.map((e) => e.targetRef?.name)).toEqual([
    'web-001',
    'web-002',
    'web-003',
  ]);
  expect(r.slice.endpoints.every((e) => e.nodeName === 'node-2' || e.nodeName === 'node-3')).toBe(
    true,
  );
  // The first sync's trigger time is the Service's creation.
  expect(r.triggerTime).toBe(r.serviceCreated);
  // A deleted pod: still serving, no longer ready, terminating.
  expect(r.terminating).toBe('serving terminating');
  // Every change was written into the same slice.
  expect(r.names).toEqual(['web-a']);
  expect(r.syncs).toMatch(/^\d+ syncs: \d+ success$/);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-slices.txt');
});
