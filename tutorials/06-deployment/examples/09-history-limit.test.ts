import { expect, it } from 'vitest';
import { run } from './09-history-limit.js';

it('keeps revisionHistoryLimit old ReplicaSets, deleting the oldest first', async () => {
  const lines: string[] = [];
  const kept = await run((line) => lines.push(line));
  expect(kept).toEqual([
    ['1:nginx:1.14.2:3'],
    ['1:nginx:1.14.2:0', '2:nginx:1.16.1:3'],
    ['1:nginx:1.14.2:0', '2:nginx:1.16.1:0', '3:nginx:1.17:3'],
    ['2:nginx:1.16.1:0', '3:nginx:1.17:0', '4:nginx:1.18:3'],
    ['3:nginx:1.17:0', '4:nginx:1.18:0', '5:nginx:1.19:3'],
  ]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/09-history-limit.txt');
});
