import { expect, it } from 'vitest';
import { run } from './07-proportional-scaling.js';

it('scales a stuck rollout in proportion, then a rollback frees the budget the broken pods held', async () => {
  const lines: string[] = [];
  const result = await run((line) => lines.push(line));
  // Stuck at 8 old + 5 new: 13 − 8 − 5 = 0 leaves nothing to scale down.
  expect(result.stuck).toEqual([8, 5]);
  // 5 more pods: 3 to the old ReplicaSet, 2 to the new, as getProportion said.
  expect(result.predicted).toEqual([11, 7]);
  expect(result.scaled).toEqual([11, 7]);
  expect(result.events).toContainEqual(
    expect.stringMatching(/Scaled up replica set nginx-deployment-\w+ from 8 to 11$/),
  );
  expect(result.events).toContainEqual(
    expect.stringMatching(/Scaled up replica set nginx-deployment-\w+ from 5 to 7$/),
  );
  // The rollback makes the healthy ReplicaSet new again; the broken one goes.
  expect(result.final).toEqual([15, 0]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
    './__output__/07-proportional-scaling.txt',
  );
});
