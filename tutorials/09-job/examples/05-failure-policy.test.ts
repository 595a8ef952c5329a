import { expect, it } from 'vitest';
import { run } from './05-failure-policy.js';

it('ignores, counts or fails the Job as the pod failure policy says', async () => {
  const lines: string[] = [];
  const { table, job, trace } = await run((line) => lines.push(line));

  expect(table.map((r) => [r.pod, r.action, r.countFailed])).toEqual([
    ['main exits 42', 'FailJob', true],
    ['main exits 1', '(none)', true],
    ['sidecar exits 42, main 0', '(none)', true],
    ['main exits 137, DisruptionTarget', 'Ignore', false],
    ['main exits 143', 'Ignore', false],
  ]);
  expect(table[0]!.message).toBe(
    'Container main for pod default/p failed with exit code 42 matching FailJob rule at index 0',
  );

  // Three pods: 143 ignored, 1 counted, 42 fails the Job far below backoffLimit 6.
  const pods = trace.changes.filter((ch) => ch.kind === 'Pod' && ch.type === 'ADDED');
  expect(pods).toHaveLength(3);
  expect(job.status?.failed).toBe(2);
  const failed = job.status?.conditions?.find((c) => c.type === 'Failed');
  expect(failed).toMatchObject({ status: 'True', reason: 'PodFailurePolicy' });
  expect(failed?.message).toMatch(
    /^Container main for pod default\/policy-\w{5} failed with exit code 42 matching FailJob rule at index 0$/,
  );
  // The ignored failure did not count, yet it delayed the next pod by the backoff.
  expect(pods.map((p) => p.t)).toEqual([0, 13_000, 36_000]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-failure-policy.txt');
});
