import { expect, it } from 'vitest';
import { run } from './03-slow-start.js';

it('slow start sends one doomed create per sync under a full quota, and bursts of at most 500', async () => {
  const lines: string[] = [];
  const { quota, burst } = await run((line) => lines.push(line));

  // The first sync doubles its batches until one fails, then stops.
  const [first, ...rest] = quota.syncs;
  expect(first!.batches.map((b) => [b.size, b.failed])).toEqual([
    [1, 0],
    [2, 0],
    [4, 0],
    [8, 8],
  ]);
  // Every later sync while the quota is full: one create, refused, and no more.
  const failing = rest.filter((s) => s.t < 3000);
  expect(failing.length).toBeGreaterThan(10);
  for (const s of failing) expect(s.batches.map((b) => [b.size, b.failed])).toEqual([[1, 1]]);
  expect(quota.refused).toBe(8 + failing.length);
  // One event per refused create, and one retry with backoff per failed sync.
  expect(quota.failedCreateEvents).toBe(quota.refused);
  expect(quota.requeues).toBe(quota.failingSyncs);
  expect(quota.condition).toMatch(
    /^ReplicaFailure=True FailedCreate: pods "web-" is forbidden: exceeded quota/,
  );
  // Raising the quota wakes nobody; touching the ReplicaSet does, and the rest
  // of the pods go out in doubling batches.
  expect(quota.syncsAfterRaise).toBe(0);
  expect(quota.syncs.at(-1)!.batches.map((b) => [b.size, b.failed])).toEqual([
    [1, 0],
    [2, 0],
    [4, 0],
    [6, 0],
  ]);
  expect(quota.ready).toBe(20);
  expect(quota.conditionsAtEnd).toBe(0);

  // 1,200 pods: at most 500 per sync, each sync in batches of 1, 2, 4, ...
  expect(burst.creates).toBe(1200);
  expect(burst.syncs.map((s) => s.batches.reduce((n, b) => n + b.size, 0))).toEqual([
    500, 500, 200,
  ]);
  expect(burst.syncs[0]!.batches.map((b) => b.size)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 245]);
  expect(burst.syncs[2]!.batches.map((b) => b.size)).toEqual([1, 2, 4, 8, 16, 32, 64, 73]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/03-slow-start.txt');
});
