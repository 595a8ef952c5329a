import { expect, it } from 'vitest';
import { run } from './04-deletion-ranking.js';

it('ranks pods for deletion as kube-controller-manager does, and deletes the first six', async () => {
  const lines: string[] = [];
  const { order, deleted } = run((line) => lines.push(line));
  expect(order).toEqual([
    'unscheduled', // 1. not on a node
    'pending', // 2. Pending before Running
    'not-ready', // 3. not ready before ready
    'cheap', // 4. lower pod-deletion-cost first
    'crowded', // 5. more pods of its family on its node (5 against 3)
    'young', // 6. ready for less time (a lower log2 bucket of its age)
    'twin-b', // 6. same bucket as twin-a (40 and 50 min): the smaller uid first
    'twin-a',
    'old',
    'precious', // the highest cost goes last, however young
  ]);
  expect(deleted).toEqual(order.slice(0, 6));
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-deletion-ranking.txt');
});
