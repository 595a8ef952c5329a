import { expect, it } from 'vitest';
import { run } from './04-partition.js';

it('updates only the ordinals at or above the partition, then the rest from the top down', async () => {
  const lines: string[] = [];
  const { snapshots, deleted, events } = await run((line) => lines.push(line));
  const images = (i: number) => snapshots[i]!.pods.map((p) => p.image.split(':')[1]);

  expect(images(0)).toEqual(['0.24', '0.24', '0.24']);
  expect(images(1)).toEqual(['0.24', '0.24', '0.27']);
  // Deleted below the partition, web-0 comes back at the current revision.
  expect(images(2)).toEqual(['0.24', '0.24', '0.27']);
  expect(images(3)).toEqual(['0.27', '0.27', '0.27']);
  expect(deleted).toEqual(['web-2', 'web-0', 'web-1', 'web-0']);

  const [start, partial, , done] = snapshots.map((s) => s.status!);
  expect(partial!.currentRevision).toBe(start!.currentRevision);
  expect(partial!.updateRevision).not.toBe(start!.updateRevision);
  expect(partial).toMatchObject({ currentReplicas: 2, updatedReplicas: 1 });
  expect(done!.currentRevision).toBe(partial!.updateRevision);
  expect(done).toMatchObject({ currentReplicas: 3, updatedReplicas: 3 });
  expect(events.filter((e) => e.includes('Warning'))).toEqual([]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-partition.txt');
});
