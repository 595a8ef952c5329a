import { expect, it } from 'vitest';
import { run } from './05-rollback.js';

it('rolls back by reusing the old ReplicaSet, which takes the next revision and remembers its old one', async () => {
  const lines: string[] = [];
  const { steps, messages } = await run((line) => lines.push(line));
  const [created, updated, back, again] = steps;
  const first = created!.replicaSets[0]!.name;
  const second = updated!.replicaSets.find((rs) => rs.name !== first)!.name;

  // No ReplicaSet is ever made for a template that already has one.
  expect(new Set(steps.flatMap((s) => s.replicaSets.map((rs) => rs.name)))).toEqual(
    new Set([first, second]),
  );
  // The rollback makes the first ReplicaSet new again: revision 3, history 1.
  expect(back!.replicaSets).toEqual([
    { name: second, replicas: 0, image: 'nginx:1.16.1', revision: '2', history: '' },
    { name: first, replicas: 3, image: 'nginx:1.14.2', revision: '3', history: '1' },
  ]);
  expect(back!.deploymentRevision).toBe('3');
  // Rolling back again swaps them again.
  expect(again!.replicaSets).toEqual([
    { name: first, replicas: 0, image: 'nginx:1.14.2', revision: '3', history: '1' },
    { name: second, replicas: 3, image: 'nginx:1.16.1', revision: '4', history: '2' },
  ]);
  // The history lists one line per ReplicaSet, with the change-cause it carries.
  expect(again!.history).toEqual([
    'REVISION  CHANGE-CAUSE',
    '3         first rollout: nginx:1.14.2',
    '4         image updated to nginx:1.16.1',
  ]);
  expect(messages).toEqual([
    'rolled back',
    'rolled back',
    'skipped rollback (current template already matches revision 4)',
  ]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-rollback.txt');
});
