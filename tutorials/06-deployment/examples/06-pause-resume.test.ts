import { expect, it } from 'vitest';
import { run } from './06-pause-resume.js';

it('pause, two edits and resume make one rollout with one new ReplicaSet', async () => {
  const lines: string[] = [];
  const { whilePaused, after, progressing, events } = await run((line) => lines.push(line));

  // Nothing rolls while paused, however long it stays paused.
  expect(whilePaused).toHaveLength(1);
  expect(whilePaused[0]?.spec?.template?.spec?.containers[0]?.image).toBe('nginx:1.14.2');
  // The resume rolls both edits out at once: one new ReplicaSet, revision 2.
  expect(after).toHaveLength(2);
  const newRS = after[1]!;
  expect(newRS.spec?.template?.spec?.containers[0]).toMatchObject({
    image: 'nginx:1.16.1',
    resources: { limits: { cpu: '200m', memory: '512Mi' } },
  });
  expect(newRS.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
  expect(after.map((rs) => rs.spec?.replicas)).toEqual([0, 3]);
  // Pausing and resuming are recorded in the Progressing condition (Unknown).
  expect(progressing.slice(0, 3)).toEqual([
    'NewReplicaSetAvailable',
    'DeploymentPaused',
    'DeploymentResumed',
  ]);
  expect(progressing.at(-1)).toBe('NewReplicaSetAvailable');
  // One scale-up from zero: one rollout.
  expect(events.filter((e) => e.includes('from 0 to'))).toHaveLength(1);
  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/06-pause-resume.txt');
});
