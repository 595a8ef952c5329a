import { expect, it } from 'vitest';
import { run } from './08-progress-deadline.js';

it('reports ProgressDeadlineExceeded 30 s after the last progress, and kubectl rollout status fails', async () => {
  const lines: string[] = [];
  const result = await run((line) => lines.push(line));
  // Not before the deadline; at it plus the one-second requeue margin.
  const after = result.timedOutAt - result.changedAt;
  expect(after).toBeGreaterThan(30_000);
  expect(after).toBeLessThanOrEqual(31_000);
  expect(result.progressing).toMatchObject({
    status: 'False',
    reason: 'ProgressDeadlineExceeded',
  });
  expect(result.progressing.message).toMatch(
    /^ReplicaSet "nginx-deployment-\w+" has timed out progressing\.$/,
  );
  // The old pods kept serving.
  expect(result.available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
  expect(result.statusLines.at(-1)).toBe(
    'error: deployment "nginx-deployment" exceeded its progress deadline',
  );
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
    './__output__/08-progress-deadline.txt',
  );
});
