import { expect, it } from 'vitest';
import { run } from './02-rolling-update.js';
import { renderTimeline } from './timeline.js';

it('rolls 10 pods in two waves, within replicas + maxSurge and replicas − maxUnavailable', async () => {
  const lines: string[] = [];
  const trace = await run((line) => lines.push(line));
  const { samples, replicas, maxSurge, maxUnavailable, podReadyAfter } = trace;

  // The defaults, 25% of 10: surge rounds up to 3, unavailable down to 2.
  expect([maxSurge, maxUnavailable]).toEqual([3, 2]);
  // In every state the server held: never more than 13 pods, never fewer
  // than 8 ready; and both limits are reached, so neither is loose.
  const total = samples.map((s) => s.oldPods + s.newPods);
  const ready = samples.filter((s) => s.t >= trace.changedAt).map((s) => s.oldReady + s.newReady);
  expect(Math.max(...total)).toBe(replicas + maxSurge);
  expect(Math.min(...ready)).toBe(replicas - maxUnavailable);
  // The ReplicaSets are never asked for more than that either.
  for (const s of samples) expect(s.oldWanted + s.newWanted).toBeLessThanOrEqual(13);

  // Each wave replaces maxSurge + maxUnavailable = 5 pods and lasts one
  // pod's time to Ready: two waves, 4 s.
  expect(samples.map((s) => [s.t - trace.changedAt, s.oldWanted, s.newWanted])).toEqual([
    [-1000, 10, 0],
    [0, 8, 5],
    [podReadyAfter, 3, 10],
    [2 * podReadyAfter, 0, 10],
  ]);
  expect(trace.completeAt - trace.changedAt).toBe(2 * podReadyAfter);

  // The controller's own account, in its events.
  const scaling = trace.events.filter((e) => e.includes('ScalingReplicaSet'));
  expect(scaling[0]).toMatch(/Scaled up replica set nginx-deployment-\w+ from 0 to 3$/);
  expect(scaling[1]).toMatch(/Scaled down replica set nginx-deployment-\w+ from 10 to 8$/);
  expect(scaling[2]).toMatch(/Scaled up replica set nginx-deployment-\w+ from 3 to 5$/);
  expect(scaling.at(-1)).toMatch(/Scaled down replica set nginx-deployment-\w+ from \d+ to 0$/);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/02-rolling-update.txt');
  // The chapter's picture is drawn from this very run.
  await expect(renderTimeline(trace)).toMatchFileSnapshot('../rollout-timeline.svg');
});
