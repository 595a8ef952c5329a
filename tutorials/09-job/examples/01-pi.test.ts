import { expect, it } from 'vitest';
import { run } from './01-pi.js';

it('runs the pi Job to Complete, counting its pod through the tracking finalizer', async () => {
  const lines: string[] = [];
  const { job, trace, events, log } = await run((line) => lines.push(line));

  // The pod is created with the tracking finalizer already on.
  const created = trace.changes.find((ch) => ch.kind === 'Pod' && ch.type === 'ADDED')!;
  expect(created.object.metadata?.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
  expect(created.object.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'Job',
    name: 'pi',
    controller: true,
  });

  // The order that makes counting exact: the pod's uid goes into
  // uncountedTerminatedPods, then its finalizer goes, then the counter moves.
  const uid = created.object.metadata!.uid!;
  const index = (pred: (ch: (typeof trace.changes)[number]) => boolean) =>
    trace.changes.findIndex(pred);
  const listed = index(
    (ch) =>
      ch.kind === 'Job' &&
      (ch.object.status?.uncountedTerminatedPods?.succeeded ?? []).includes(uid),
  );
  const released = index(
    (ch) =>
      ch.kind === 'Pod' &&
      ch.prev?.metadata?.finalizers?.length === 1 &&
      (ch.object.metadata?.finalizers ?? []).length === 0,
  );
  const counted = index((ch) => ch.kind === 'Job' && ch.object.status?.succeeded === 1);
  expect(listed).toBeGreaterThan(-1);
  expect(released).toBeGreaterThan(listed);
  expect(counted).toBeGreaterThan(released);
  // SuccessCriteriaMet comes first, Complete once the pod is counted.
  expect(job.status?.conditions?.map((c) => `${c.type}/${c.reason}`)).toEqual([
    'SuccessCriteriaMet/CompletionsReached',
    'Complete/CompletionsReached',
  ]);
  expect(job.status).toMatchObject({ succeeded: 1, uncountedTerminatedPods: {} });
  // 1 s to start, 2 s of perl: complete 3 s after creation.
  expect(Date.parse(job.status!.completionTime!) - Date.parse(job.status!.startTime!)).toBe(3000);
  expect(events.at(-1)).toMatch(/Job pi {2}Normal Completed Job completed$/);
  expect(log.startsWith('3.14159265358979323846264338327950288419716939937510')).toBe(true);
  expect(log.trim()).toHaveLength(2001);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-pi.txt');
});
