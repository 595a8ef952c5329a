import { expect, it } from 'vitest';
import { run } from './02-rollout.js';
import { renderTimeline, rolloutTimeline } from './timeline.js';

it('rolls a new image out two nodes at a time, and undoes it by renumbering the old revision', async () => {
  const lines: string[] = [];
  const r = await run((line) => lines.push(line));

  // maxUnavailable 2: never more than two of the three nodes without a ready pod.
  expect(r.mostUnavailable).toBe(2);
  const v32 = r.pods.filter((p) => p.image === 'fluent/fluent-bit:3.2');
  expect(v32.map((p) => p.node)).toEqual(['node-1', 'node-2', 'node-3']);
  // Without surge, each old pod is gone before its replacement is created.
  for (const p of v32) {
    const old = r.pods.find(
      (o) => o.node === p.node && o.image !== p.image && o.gone! <= p.created,
    );
    expect(old).toBeDefined();
  }
  // The third node waits until the first two are back.
  const third = v32.find((p) => p.node === 'node-3')!;
  expect(third.created).toBeGreaterThan(Math.max(...v32.slice(0, 2).map((p) => p.ready!)));

  // Two templates, two revisions; the undo renumbers revision 1 to 3, and makes none.
  expect(r.revisions.map(([, n, image]) => [n, image])).toEqual([
    [1, 'fluent/fluent-bit:3.1'],
    [2, 'fluent/fluent-bit:3.2'],
  ]);
  expect(r.undone).toEqual([r.revisions[1], [r.revisions[0]![0], 3, 'fluent/fluent-bit:3.1']]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-rollout.txt');
  await expect(renderTimeline(rolloutTimeline(r))).toMatchFileSnapshot('../rollout-timeline.svg');
});
