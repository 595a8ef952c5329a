import { expect, it } from 'vitest';
import { draw, run } from './03-delaying-heap.js';

it('lets an earlier addAfter win, ignores a later one, and draws delaying-heap.svg from the run', async () => {
  const arrived = await run();
  // a: asked for 3000, then at 500 for 500 more: it comes at 1000.
  // b: asked for 1000; the later request (500 + 2000) is ignored.
  // c: asked for 2000.
  expect([...arrived]).toEqual([
    ['a', 1000],
    ['b', 1000],
    ['c', 2000],
  ]);
  await expect(draw(arrived)).toMatchFileSnapshot('../delaying-heap.svg');
});
