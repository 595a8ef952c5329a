import { expect, it } from 'vitest';
import { run } from './02-placement.js';
import { placementPicture } from './diagrams.js';

it('places endpoints as upstream does: in place, best fit, no new slice, no repacking', async () => {
  const lines: string[] = [];
  const steps = await run((line) => lines.push(line));
  const sizes = (i: number) => steps[i]!.slices.map((s) => [s.name, s.endpoints]);
  const written = (i: number) => steps[i]!.slices.filter((s) => s.writes > 0).map((s) => s.name);

  // At most 100 endpoints a slice: 100, 100, 50.
  expect(sizes(0)).toEqual([
    ['web-a', 100],
    ['web-b', 100],
    ['web-c', 50],
  ]);
  expect(steps[0]!.slices.every((s) => s.created && s.writes === 1)).toBe(true);
  // One pod's change writes one slice.
  expect(written(1)).toEqual(['web-b']);
  expect(sizes(1)).toEqual([
    ['web-a', 100],
    ['web-b', 99],
    ['web-c', 50],
  ]);
  // New endpoints fill the slice they fit best (the hole first), and no slice is created.
  expect(sizes(2)).toEqual([
    ['web-a', 100],
    ['web-b', 100],
    ['web-c', 54],
  ]);
  expect(steps[2]!.slices.some((s) => s.created)).toBe(false);
  // Removals shrink the slices in place; nothing is moved to pack them.
  expect(written(3)).toEqual(['web-a', 'web-b']);
  expect(steps[3]!.slices.some((s) => s.created || s.deleted)).toBe(false);
  expect(steps[3]!.slices.reduce((n, s) => n + s.endpoints, 0)).toBe(155);
  expect(steps[3]!.slices.find((s) => s.name === 'web-c')?.endpoints).toBe(54);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-placement.txt');
  await expect(placementPicture(steps)).toMatchFileSnapshot('../placement.svg');
});
