// Port of replica_set_test.go's TestGetPodsToDelete, and the ReplicaSet
// controller's burst.
import { describe, expect, it } from 'vitest';
import {
  burstReplicas,
  getPodsRankedByRelatedPodsOnSameNode,
  getPodsToDelete,
} from '../src/index.js';
import { newPod, newReplicaSet } from './helpers.js';

const now = Date.UTC(2026, 5, 1, 12, 0, 0);

describe('getPodsToDelete (TestGetPodsToDelete)', () => {
  const rs = newReplicaSet('rs', 1);
  // Every pod is scheduled, so rule 1 never decides; names tell the state.
  const unknownPhasePod = newPod('unknown-phase', rs, { phase: 'Unknown', nodeName: 'node-x' });
  const pendingPod = newPod('pending', rs, { phase: 'Pending', nodeName: 'node-x' });
  const notReadyPod = newPod('not-ready', rs, {
    phase: 'Running',
    nodeName: 'node-x',
    ready: false,
  });
  const readyOnNodeX = newPod('ready-x', rs, { phase: 'Running', nodeName: 'node-x', ready: true });
  const readyOnNodeY = newPod('ready-y', rs, { phase: 'Running', nodeName: 'node-y', ready: true });
  const relatedOnNodeX = newPod('related-x', rs, {
    phase: 'Running',
    nodeName: 'node-x',
    ready: true,
  });

  it.each([
    // pods, related, diff, want
    [[pendingPod, unknownPhasePod], [], 2, ['pending', 'unknown-phase']],
    [[pendingPod, unknownPhasePod], [], 1, ['pending']],
    [[notReadyPod, readyOnNodeX], [], 1, ['not-ready']],
    [[readyOnNodeX, notReadyPod, pendingPod], [], 2, ['pending', 'not-ready']],
    // More related pods on node-x: its pod goes first.
    [[readyOnNodeY, readyOnNodeX], [readyOnNodeY, readyOnNodeX, relatedOnNodeX], 1, ['ready-x']],
    [[readyOnNodeX, readyOnNodeY], [readyOnNodeY, relatedOnNodeX, readyOnNodeX], 1, ['ready-x']],
  ] as const)('case %#', (pods, related, diff, want) => {
    const input = [...pods];
    const got = getPodsToDelete(input, related, diff, now);
    expect(got.map((p) => p.metadata!.name)).toEqual(want);
    expect(input).toEqual(pods); // not reordered in place
  });

  it('does not sort when deleting every pod', () => {
    const pods = [readyOnNodeX, pendingPod, notReadyPod];
    expect(getPodsToDelete(pods, [], 3, now).map((p) => p.metadata!.name)).toEqual([
      'ready-x',
      'pending',
      'not-ready',
    ]);
  });

  it('ranks by the active related pods on each node, unscheduled pods sharing one', () => {
    const terminating = newPod('terminating-x', rs, { nodeName: 'node-x', deleting: true });
    const unscheduledA = newPod('u-a', rs, { phase: 'Pending' });
    const unscheduledB = newPod('u-b', rs, { phase: 'Pending' });
    const ranked = getPodsRankedByRelatedPodsOnSameNode(
      [readyOnNodeX, readyOnNodeY, unscheduledA],
      [readyOnNodeX, relatedOnNodeX, terminating, readyOnNodeY, unscheduledA, unscheduledB],
    );
    expect(ranked.map((r) => [r.pod.metadata!.name, r.rank])).toEqual([
      ['ready-x', 2],
      ['ready-y', 1],
      ['u-a', 2],
    ]);
  });
});

describe('burstReplicas', () => {
  it('is 500, as BurstReplicas', () => {
    expect(burstReplicas).toBe(500);
  });
});
