import { expect, it } from 'vitest';
import { run } from './06-indexed.js';

it('gives each index its pod, retries a failed index once, and fails the Job with FailedIndexes', async () => {
  const lines: string[] = [];
  const { job, pods, completed } = await run((line) => lines.push(line));

  for (const p of pods) {
    expect(p.index).toBe(p.label);
    expect(p.hostname).toBe(`indexed-${p.index}`);
    expect(p.name.startsWith(`indexed-${p.index}-`)).toBe(true);
    expect(p.env).toBe("metadata.labels['batch.kubernetes.io/job-completion-index']");
  }
  expect(pods.map((p) => p.log)).toEqual([
    'apples',
    'bananas',
    'cherries',
    'cat: /input/3: No such file or directory',
    'cat: /input/3: No such file or directory',
    'elderberries',
  ]);
  // Index 3 was tried twice (backoffLimitPerIndex 1), the retry knowing it.
  expect(pods.filter((p) => p.index === '3').map((p) => p.failureCount)).toEqual(['0', '1']);
  expect(completed).toEqual(['0-2', '0-2,4']);
  expect(job.status).toMatchObject({
    succeeded: 4,
    failed: 2,
    completedIndexes: '0-2,4',
    failedIndexes: '3',
  });
  expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({
    status: 'True',
    reason: 'FailedIndexes',
  });

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/06-indexed.txt');
});
