import { expect, it } from 'vitest';
import { run } from './04-in-order.js';

it('tells the DeltaFIFO story per object and the RealFIFO story in order', async () => {
  const lines: string[] = [];
  await run((line) => lines.push(line));
  const story = (kind: string): string[] => {
    const from = lines.indexOf(`${kind}, a list then three watch events:`);
    const to = lines.findIndex((l, i) => i > from && l.startsWith(`${kind}, a relist`));
    return lines.slice(from + 1, to);
  };
  // DeltaFIFO: web's update jumps ahead of db (web was queued first), and the
  // delete of an object it never had is dropped.
  expect(story('DeltaFIFO')).toEqual([
    '  add web (initial list)',
    '  update web rv 1 → 3',
    '  add db',
  ]);
  // RealFIFO: the watch's order, and every delete.
  expect(story('RealFIFO')).toEqual([
    '  add web (initial list)',
    '  add db',
    '  update web rv 1 → 3',
    '  delete cache',
  ]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-in-order.txt');
});
