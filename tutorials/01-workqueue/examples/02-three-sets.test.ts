import { expect, it } from 'vitest';
import { draw, run, ThreeSets } from './02-three-sets.js';

it('agrees with the real queue at every step, and draws three-sets.svg from the run', async () => {
  const steps = await run();
  // A duplicate add collapses; a key added while a worker holds it waits in
  // dirty only, and done puts it back in the queue.
  expect(steps.map((s) => s.call)).toEqual([
    'add a',
    'add b',
    'add a',
    'get → a',
    'add a',
    'done a',
    'get → b',
    'get → a',
    'done b',
    'done a',
  ]);
  expect(steps[2]).toMatchObject({ queue: ['a', 'b'], dirty: ['a', 'b'], processing: [] });
  expect(steps[4]).toMatchObject({ queue: ['b'], dirty: ['a', 'b'], processing: ['a'] });
  expect(steps[5]).toMatchObject({ queue: ['b', 'a'], dirty: ['a', 'b'], processing: [] });
  expect(steps.at(-1)).toMatchObject({ queue: [], dirty: [], processing: [] });
  await expect(draw(steps)).toMatchFileSnapshot('../three-sets.svg');
});

it('keeps every queued key dirty and out of processing', () => {
  const model = new ThreeSets();
  for (const key of ['x', 'y', 'x']) model.add(key);
  const got = model.get() as string;
  model.add(got);
  for (const key of model.queue) {
    expect(model.dirty.has(key)).toBe(true);
    expect(model.processing.has(key)).toBe(false);
  }
  expect(model.processing.has(got)).toBe(true);
});
