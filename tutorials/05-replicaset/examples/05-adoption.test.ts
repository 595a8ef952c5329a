import { expect, it } from 'vitest';
import { run } from './05-adoption.js';

it('adopts matching orphans instead of creating, releases a relabelled pod and replaces it', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // Two adopted, one created; then one released and one more created.
  expect(r.creates).toBe(2);
  expect(r.adopted).toHaveLength(1);
  expect(r.adopted![0]).toMatchObject({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: 'web',
    controller: true,
    blockOwnerDeletion: true,
  });
  expect(r.released ?? []).toEqual([]);
  expect(r.owned).toHaveLength(3);
  expect(r.owned).toContain('orphan-2');
  expect(r.owned).not.toContain('orphan-1');

  // The live read of the ReplicaSet comes before the first adoption; each
  // patch carries the pod's uid, so a pod re-created under the same name is
  // never adopted or released by mistake.
  expect(r.writes[0]).toMatch(/get replicaset web \(fresh read before adopting\)$/);
  const patches = r.writes.filter((w) => w.includes('patch pod'));
  expect(patches).toHaveLength(3);
  for (const p of patches) expect(p).toMatch(/\(strategic\): .*"uid":"<uid of orphan-\d>"}}$/);
  expect(patches[2]).toContain(
    '"ownerReferences":[{"$patch":"delete","uid":"<uid of replicaset web>"}]',
  );

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-adoption.txt');
});
