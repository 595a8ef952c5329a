import { expect, it } from 'vitest';
import { run } from './07-suspend-deadline.js';

it('counts the deadline from the last resume, and deletes the Job its TTL after it finished', async () => {
  const lines: string[] = [];
  const { at, failed, trace, events } = await run((line) => lines.push(line));

  // Suspended at creation: no pod until resumed.
  const firstPod = trace.changes.find((ch) => ch.kind === 'Pod' && ch.type === 'ADDED')!;
  expect(firstPod.t).toBe(at.resumed);
  // Suspending deletes the pods without counting them as failures.
  const deletedWhileSuspending = trace.changes.filter(
    (ch) => ch.kind === 'Pod' && ch.type === 'DELETED' && ch.t < at.resumedAgain,
  );
  expect(deletedWhileSuspending).toHaveLength(2);
  // activeDeadlineSeconds counts from the last resume: 20 s after it, not after the first.
  const target = trace.changes.find(
    (ch) =>
      ch.kind === 'Job' && ch.object.status?.conditions?.some((c) => c.type === 'FailureTarget'),
  )!;
  expect(target.t - at.resumedAgain).toBe(20_000);
  expect(failed.status?.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
    'Suspended=False/JobResumed',
    'FailureTarget=True/DeadlineExceeded',
    'Failed=True/DeadlineExceeded',
  ]);
  // The two pods killed at the deadline are its failures; the suspended ones are not.
  expect(failed.status?.failed).toBe(2);
  expect(events.at(-1)).toMatch(
    /Warning DeadlineExceeded Job was active longer than specified deadline$/,
  );
  // ttlSecondsAfterFinished: gone 10 s after Failed.
  const failedAt = trace.changes.find(
    (ch) => ch.kind === 'Job' && ch.object.status?.conditions?.some((c) => c.type === 'Failed'),
  )!.t;
  expect(at.jobGone - failedAt).toBe(10_000);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/07-suspend-deadline.txt');
});
