import { expect, it } from 'vitest';
import { run } from './07-drain.js';
import { drainPicture } from './diagrams.js';

it('drains a node one disruption at a time: 201, then 429 until the replacement is ready, then 201', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // The disruption controller's status: four expected and healthy, three desired, one allowed.
  expect(r.before).toMatchObject({
    expectedPods: 4,
    currentHealthy: 4,
    desiredHealthy: 3,
    disruptionsAllowed: 1,
  });
  // The eviction API spent the one disruption, refused the next with 429
  // and the budget's numbers, and let it through once the budget allowed.
  const codes = r.evictions.map((e) => e.code);
  expect(codes[0]).toBe(201);
  expect(codes).toContain(429);
  expect(codes.at(-1)).toBe(201);
  expect(codes.filter((c) => c === 201)).toHaveLength(2);
  const refused = r.evictions.find((e) => e.code === 429)!;
  expect(refused.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
  expect(refused.cause).toBe('The disruption budget web needs 3 healthy pods and has 3 currently');
  // Each evicted pod was marked before it was deleted.
  expect(r.disruptionTargets).toEqual([
    'DisruptionTarget True EvictionByEvictionAPI: Eviction API: evicting',
    'DisruptionTarget True EvictionByEvictionAPI: Eviction API: evicting',
  ]);
  // The budget held: never fewer than three ready pods; all four end on node-3.
  expect(r.fewestReady).toBeGreaterThanOrEqual(3);
  expect(r.nodesAfter).toEqual(['node-3', 'node-3', 'node-3', 'node-3']);
  // kubectl's retry interval: the second pod waited at least one 5 s turn.
  expect(r.seconds).toBeGreaterThanOrEqual(5);

  // The times depend on how soon the in-process controllers answer while
  // the clock ticks, which a loaded machine changes by a few hundred ms; the
  // transcript keeps the order of events and leaves the times to the picture.
  const untimed = lines.map((l) => l.replace(/^t=\s*\d+\.\ds {2}/, ''));
  await expect(`${untimed.join('\n')}\n`).toMatchFileSnapshot('./__output__/07-drain.txt');
  // The picture is drawn from this run (`npm run diagrams` writes drain.svg):
  // a row per pod, and the budget's line under them.
  const picture = drainPicture(r);
  for (const pod of ['web-a', 'web-b', 'web-c', 'web-d', 'web-e', 'web-f'])
    expect(picture).toContain(`>${pod}<`);
  expect(picture).toMatch(/^<svg[\s\S]*<\/svg>\n?$/);
});
