import { expect, it } from 'vitest';
import { run } from './04-recreate.js';

it('Recreate never runs old and new pods together, and is unavailable in between', async () => {
  const lines: string[] = [];
  const result = await run((line) => lines.push(line));
  // Checked in every state the API server committed, terminating pods included.
  expect(result.overlap).toBe(false);
  expect(result.gap).toBe(true);
  // Recreate allows no unavailability: the gap makes the Deployment unavailable.
  expect(result.available).toEqual([
    'MinimumReplicasAvailable',
    'MinimumReplicasUnavailable',
    'MinimumReplicasAvailable',
  ]);
  // Scale the old ReplicaSet to zero first; create the new one only once its pods are gone.
  expect(result.events).toEqual([
    expect.stringMatching(
      /^t= 0\.0s {2}Normal ScalingReplicaSet Scaled down replica set nginx-recreate-\w+ from 3 to 0$/,
    ),
    expect.stringMatching(
      /^t= 0\.5s {2}Normal ScalingReplicaSet Scaled up replica set nginx-recreate-\w+ from 0 to 3$/,
    ),
  ]);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/04-recreate.txt');
});
