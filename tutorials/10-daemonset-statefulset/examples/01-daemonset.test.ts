import { expect, it } from 'vitest';
import { run } from './01-daemonset.js';

it('runs a DaemonSet on the two workers, then on all three nodes with a toleration', async () => {
  const lines: string[] = [];
  const { before, after, pod, status, events } = await run((line) => lines.push(line));

  // node-1's control-plane taint keeps the pods off it until they tolerate it.
  expect(before).toEqual(['node-2', 'node-3']);
  expect(after).toEqual(['node-1', 'node-2', 'node-3']);
  expect(status).toMatchObject({
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    numberReady: 3,
    updatedNumberScheduled: 3,
    numberAvailable: 3,
    numberMisscheduled: 0,
  });

  // The controller does not bind the pod: it pins it with required node
  // affinity on metadata.name, and the scheduler binds it.
  expect(pod.spec?.nodeName).toBeUndefined();
  expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
    nodeSelectorTerms: [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] },
    ],
  });
  expect(pod.spec?.tolerations?.map((t) => `${t.key}:${t.effect}`)).toEqual([
    'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/unreachable:NoExecute',
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule',
    'node.kubernetes.io/pid-pressure:NoSchedule',
    'node.kubernetes.io/unschedulable:NoSchedule',
  ]);
  expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'DaemonSet',
    name: 'fluent-bit',
    controller: true,
  });
  // Two pods, then the third, then the two replaced for the new template.
  expect(events.filter((e) => e.includes('SuccessfulCreate'))).toHaveLength(5);
  expect(events.filter((e) => e.includes('SuccessfulDelete'))).toHaveLength(2);
  expect(events.filter((e) => e.includes('Warning'))).toEqual([]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/01-daemonset.txt');
});
