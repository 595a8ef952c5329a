import { expect, it } from 'vitest';
import { run } from './01-ownership.js';

it('ties Deployment → ReplicaSet → Pod by labels, selectors and controller references', async () => {
  const lines: string[] = [];
  const { deployment, replicaSets, pods, hash, hashAfterCollision } = await run((line) =>
    lines.push(line),
  );

  // One ReplicaSet, named and labelled after the template's hash.
  expect(replicaSets).toHaveLength(1);
  const rs = replicaSets[0]!;
  expect(rs.metadata?.name).toBe(`nginx-deployment-${hash}`);
  expect(rs.metadata?.labels).toEqual({ app: 'nginx', 'pod-template-hash': hash });
  expect(rs.spec?.selector.matchLabels).toEqual({ app: 'nginx', 'pod-template-hash': hash });
  expect(rs.spec?.template?.metadata?.labels).toEqual({ app: 'nginx', 'pod-template-hash': hash });
  expect(rs.metadata?.ownerReferences).toEqual([
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'nginx-deployment',
      uid: deployment.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  // Our hash: the same alphabet and length as Go's, not the same value.
  expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  expect(hashAfterCollision).not.toBe(hash);

  // Three pods, each controlled by that ReplicaSet and carrying its hash.
  expect(pods).toHaveLength(3);
  for (const pod of pods) {
    expect(pod.metadata?.name).toMatch(new RegExp(`^nginx-deployment-${hash}-[a-z0-9]{5}$`));
    expect(pod.metadata?.labels).toEqual({ app: 'nginx', 'pod-template-hash': hash });
    expect(pod.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ReplicaSet', uid: rs.metadata?.uid, controller: true }),
    ]);
  }
  // The Deployment's own template never gets the hash label.
  expect(deployment.spec?.template.metadata?.labels).toEqual({ app: 'nginx' });
  expect(deployment.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-ownership.txt');
});
