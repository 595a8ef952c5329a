// Ports of controller_utils_test.go's TestSortingActivePods,
// TestSortingActivePodsWithRanks, TestActivePodFiltering,
// TestCountTerminatingPods, TestClaimedPodFiltering and
// TestActiveReplicaSetsFiltering, and of pod/util_test.go's availability
// cases.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { formatTime, labelSelectorAsSelector } from '@kcm-ts/apimachinery';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  activePods,
  activePodsWithRanks,
  activePodsWithRanksLess,
  countTerminatingPods,
  filterActivePods,
  filterActiveReplicaSets,
  filterClaimedPods,
  filterTerminatingPods,
  getDeletionCostFromPodAnnotations,
  isPodActive,
  isPodAvailable,
  isPodReady,
  isPodTerminating,
  podDeletionCost,
  type RankedPod,
} from '../src/index.js';
import { newPod, newReplicaSet } from './helpers.js';

const now = Date.UTC(2026, 5, 1, 12, 0, 0);
const hour = 3_600_000;
const month = 30 * 24 * hour;

/** A deterministic shuffle, so a failure can be reproduced. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 16807) % 2147483647;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface PodSpecOpts {
  node?: string;
  phase?: string;
  ready?: boolean;
  readySince?: number | null;
  created?: number | null;
  restarts?: number[];
  sidecarRestarts?: number;
  cost?: string;
  uid?: string;
}

function pod(name: string, o: PodSpecOpts = {}): Pod {
  return {
    metadata: {
      name,
      ...(o.uid !== undefined && { uid: o.uid }),
      ...(o.created !== undefined &&
        o.created !== null && { creationTimestamp: formatTime(o.created) }),
      ...(o.cost !== undefined && { annotations: { [podDeletionCost]: o.cost } }),
    },
    spec: {
      containers: [{ name: 'app' }],
      ...(o.node !== undefined && { nodeName: o.node }),
      ...(o.sidecarRestarts !== undefined && {
        initContainers: [{ name: 'sidecar', restartPolicy: 'Always' }],
      }),
    },
    status: {
      ...(o.phase !== undefined && { phase: o.phase }),
      ...(o.ready && {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            ...(o.readySince !== undefined &&
              o.readySince !== null && { lastTransitionTime: formatTime(o.readySince) }),
          },
        ],
      }),
      ...(o.restarts && {
        containerStatuses: o.restarts.map((restartCount, i) => ({
          name: `c${i}`,
          restartCount,
          ready: true,
          image: 'x',
          imageID: 'x',
        })),
      }),
      ...(o.sidecarRestarts !== undefined && {
        initContainerStatuses: [
          {
            name: 'sidecar',
            restartCount: o.sidecarRestarts,
            ready: true,
            image: 'x',
            imageID: 'x',
          },
        ],
      }),
    },
  };
}

describe('activePods', () => {
  it('orders pods for deletion whatever order they come in (TestSortingActivePods)', () => {
    const then = now - month;
    const pods = [
      pod('unscheduled', { phase: 'Pending' }),
      pod('scheduledButPending', { node: 'bar', phase: 'Pending' }),
      pod('unknownPhase', { node: 'foo', phase: 'Unknown' }),
      pod('runningButNotReady', { node: 'foo', phase: 'Running' }),
      pod('runningNoLastTransitionTime', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        restarts: [3, 0],
      }),
      pod('runningWithLastTransitionTime', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        readySince: now,
        restarts: [3, 0],
      }),
      pod('runningLongerTime', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        readySince: then,
        restarts: [3, 0],
      }),
      pod('lowerSidecarContainerRestartCount', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        readySince: then,
        restarts: [2, 1],
        sidecarRestarts: 2,
        created: now,
      }),
      pod('lowerContainerRestartCount', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        readySince: then,
        restarts: [2, 1],
        created: now,
      }),
      pod('oldest', {
        node: 'foo',
        phase: 'Running',
        ready: true,
        readySince: then,
        restarts: [2, 1],
        created: then,
      }),
    ];
    const want = pods.map((p) => p.metadata!.name);
    for (let seed = 1; seed <= 20; seed++) {
      expect(
        shuffled(pods, seed)
          .sort(activePods)
          .map((p) => p.metadata!.name),
      ).toEqual(want);
    }
  });

  it('is a consistent order: sorting any permutation gives the same result', () => {
    const arbPod = fc.record({
      node: fc.constantFrom(undefined, 'a', 'b'),
      phase: fc.constantFrom(undefined, 'Pending', 'Unknown', 'Running'),
      ready: fc.boolean(),
      readySince: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
      created: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
      restarts: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbPod, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1 }),
        (specs, seed) => {
          const pods = specs.map((s, i) =>
            pod(`p${i}`, {
              ...s,
              readySince: s.readySince === null ? null : now - s.readySince * hour,
              created: s.created === null ? null : now - s.created * hour,
            }),
          );
          // Equivalent pods may come in any order: position by position, the
          // two results must hold equivalent pods.
          const a = [...pods].sort(activePods);
          const b = shuffled(pods, seed).sort(activePods);
          a.forEach((p, i) => expect(activePods(p, b[i]!)).toBe(0));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('activePodsWithRanks', () => {
  const then1Month = now - month;
  const then2Hours = now - 2 * hour;
  const then5Hours = now - 5 * hour;
  const then8Hours = now - 8 * hour;
  const mk = (
    name: string,
    node: string,
    phase: string,
    ready: boolean,
    restarts: number,
    sideRestarts: number,
    readySince: number | null,
    created: number | null,
    cost?: string,
  ): Pod =>
    pod(name, {
      node,
      phase,
      ready,
      readySince,
      created,
      ...(ready && { restarts: [restarts], sidecarRestarts: sideRestarts }),
      ...(cost !== undefined && { cost }),
    });
  const unscheduledPod = mk('unscheduled', '', 'Pending', false, 0, 0, null, null);
  const scheduledPendingPod = mk('pending', 'node', 'Pending', false, 0, 0, null, null);
  const unknownPhasePod = mk('unknown-phase', 'node', 'Unknown', false, 0, 0, null, null);
  const runningNotReadyPod = mk('not-ready', 'node', 'Running', false, 0, 0, null, null);
  const runningReadyNoLastTransitionTimePod = mk(
    'ready-no-ltt',
    'node',
    'Running',
    true,
    0,
    0,
    null,
    null,
  );
  const runningReadyNow = mk('ready-now', 'node', 'Running', true, 0, 0, now, now);
  const runningReadyThen = mk('ready-then', 'node', 'Running', true, 0, 0, then1Month, then1Month);
  const runningReadyNowHighRestarts = mk(
    'ready-high-restarts',
    'node',
    'Running',
    true,
    9001,
    0,
    now,
    now,
  );
  const runningReadyNowHighSideRestarts = mk(
    'ready-high-side',
    'node',
    'Running',
    true,
    9001,
    9001,
    now,
    now,
  );
  const runningReadyNowCreatedThen = mk(
    'ready-now-created-then',
    'node',
    'Running',
    true,
    0,
    0,
    now,
    then1Month,
  );
  const lowPodDeletionCost = mk('low-cost', 'node', 'Running', true, 0, 0, now, then1Month, '10');
  const highPodDeletionCost = mk(
    'high-cost',
    'node',
    'Running',
    true,
    0,
    0,
    now,
    then1Month,
    '100',
  );
  const unscheduled5Hours = mk(
    'unscheduled-5-hours',
    '',
    'Pending',
    false,
    0,
    0,
    then5Hours,
    then5Hours,
  );
  const unscheduled8Hours = mk(
    'unscheduled-8-hours',
    '',
    'Pending',
    false,
    0,
    0,
    then8Hours,
    then8Hours,
  );
  const ready2Hours = mk('ready-2-hours', '', 'Running', true, 0, 0, then2Hours, then1Month);
  const ready5Hours = mk('ready-5-hours', '', 'Running', true, 0, 0, then5Hours, then1Month);
  const ready8Hours = mk('ready-8-hours', '', 'Running', true, 0, 0, then8Hours, then1Month);

  it.each([
    [unscheduledPod, unscheduledPod],
    [scheduledPendingPod, scheduledPendingPod],
    [unknownPhasePod, unknownPhasePod],
    [runningNotReadyPod, runningNotReadyPod],
    [runningReadyNowCreatedThen, runningReadyNowCreatedThen],
    [runningReadyNow, runningReadyNow],
    [runningReadyThen, runningReadyThen],
    [runningReadyNowHighRestarts, runningReadyNowHighRestarts],
    // Same log2 bucket of age (and no uid): equivalent.
    [unscheduled5Hours, unscheduled8Hours],
    [ready5Hours, ready8Hours],
  ])('treats %# as equivalent', (p1, p2) => {
    const a: RankedPod = { pod: p1, rank: 1 };
    const b: RankedPod = { pod: p2, rank: 1 };
    expect(activePodsWithRanksLess(a, b, now)).toBe(false);
    expect(activePodsWithRanksLess(b, a, now)).toBe(false);
  });

  it.each([
    [unscheduledPod, 1, scheduledPendingPod, 2],
    [unscheduledPod, 2, scheduledPendingPod, 1],
    [scheduledPendingPod, 1, unknownPhasePod, 2],
    [unknownPhasePod, 1, runningNotReadyPod, 2],
    [runningNotReadyPod, 1, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNoLastTransitionTimePod, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNow, 1, runningReadyThen, 1],
    [runningReadyNow, 2, runningReadyThen, 1],
    [runningReadyNowHighRestarts, 1, runningReadyNow, 1],
    [runningReadyNowHighSideRestarts, 1, runningReadyNowHighRestarts, 1],
    [runningReadyNow, 2, runningReadyNowHighRestarts, 1],
    [runningReadyNow, 1, runningReadyNowCreatedThen, 1],
    [runningReadyNowCreatedThen, 2, runningReadyNow, 1],
    [lowPodDeletionCost, 2, highPodDeletionCost, 1],
    [ready2Hours, 1, ready5Hours, 1],
  ])('puts case %# first', (lesser, lesserRank, greater, greaterRank) => {
    const a: RankedPod = { pod: lesser, rank: lesserRank };
    const b: RankedPod = { pod: greater, rank: greaterRank };
    expect(activePodsWithRanksLess(a, b, now)).toBe(true);
    expect(activePodsWithRanksLess(b, a, now)).toBe(false);
    expect([b, a].sort(activePodsWithRanks(now))[0]).toBe(a);
  });

  it('breaks ties within a log2 bucket by uid, and compares times directly without now', () => {
    const older = pod('older', {
      node: 'n',
      phase: 'Running',
      ready: true,
      readySince: then8Hours,
      uid: 'a',
    });
    const newer = pod('newer', {
      node: 'n',
      phase: 'Running',
      ready: true,
      readySince: then5Hours,
      uid: 'b',
    });
    // Same bucket: uid 'a' < 'b' decides, although `older` has been ready longer.
    expect(activePodsWithRanksLess({ pod: older, rank: 0 }, { pod: newer, rank: 0 }, now)).toBe(
      true,
    );
    // Without a reference time the more recently ready pod goes first.
    expect(
      activePodsWithRanksLess({ pod: newer, rank: 0 }, { pod: older, rank: 0 }, undefined),
    ).toBe(true);
    expect(
      activePodsWithRanksLess({ pod: older, rank: 0 }, { pod: newer, rank: 0 }, undefined),
    ).toBe(false);
  });
});

describe('getDeletionCostFromPodAnnotations', () => {
  it.each([
    [undefined, 0],
    [{}, 0],
    [{ [podDeletionCost]: '0' }, 0],
    [{ [podDeletionCost]: '100' }, 100],
    [{ [podDeletionCost]: '-42' }, -42],
    [{ [podDeletionCost]: '2147483647' }, 2147483647],
    [{ [podDeletionCost]: '-2147483648' }, -2147483648],
  ])('reads %j as %d', (annotations, want) => {
    expect(getDeletionCostFromPodAnnotations(annotations)).toBe(want);
  });

  it.each(['+10', '008', '', '1.5', 'ten', '2147483648', '-'])('refuses %j', (value) => {
    expect(() => getDeletionCostFromPodAnnotations({ [podDeletionCost]: value })).toThrow(
      /invalid value/,
    );
  });

  it('ranks a pod with an invalid cost as cost 0', () => {
    const bad = pod('bad', { node: 'n', phase: 'Running', cost: 'ten' });
    const negative = pod('neg', { node: 'n', phase: 'Running', cost: '-1' });
    const zero = pod('zero', { node: 'n', phase: 'Running', cost: '0' });
    expect(activePodsWithRanksLess({ pod: negative, rank: 0 }, { pod: bad, rank: 0 }, now)).toBe(
      true,
    );
    expect(activePodsWithRanksLess({ pod: bad, rank: 0 }, { pod: zero, rank: 0 }, now)).toBe(false);
    expect(activePodsWithRanksLess({ pod: zero, rank: 0 }, { pod: bad, rank: 0 }, now)).toBe(false);
  });
});

describe('pod activity', () => {
  it('keeps pods that have not finished and are not being deleted (TestActivePodFiltering)', () => {
    const rs = newReplicaSet('rs', 0);
    const pods = [
      newPod('pod-1', rs, { phase: 'Succeeded' }),
      newPod('pod-2', rs, { phase: 'Failed' }),
      newPod('pod-3', rs, { phase: '' }),
      newPod('pod-4', rs, { phase: 'Pending' }),
      newPod('pod-5', rs, { phase: 'Running' }),
      newPod('pod-6', rs, { phase: 'Running', deleting: true }),
    ];
    expect(filterActivePods(pods).map((p) => p.metadata!.name)).toEqual([
      'pod-3',
      'pod-4',
      'pod-5',
    ]);
    expect(isPodActive(pods[5]!)).toBe(false);
  });

  it('counts terminating pods: being deleted but not finished (TestCountTerminatingPods)', () => {
    const rs = newReplicaSet('rs', 0);
    const pods = [
      newPod('succeeded', rs, { phase: 'Succeeded', deleting: true }),
      newPod('failed', rs, { phase: 'Failed' }),
      newPod('pending-deleting', rs, { phase: 'Pending', deleting: true }),
      newPod('running-deleting', rs, { phase: 'Running', deleting: true }),
      newPod('running', rs, { phase: 'Running' }),
    ];
    expect(countTerminatingPods(pods)).toBe(2);
    expect(filterTerminatingPods(pods).map((p) => p.metadata!.name)).toEqual([
      'pending-deleting',
      'running-deleting',
    ]);
    expect(isPodTerminating(pods[0]!)).toBe(false);
  });

  it('keeps pods controlled by the owner and matching its selector (TestClaimedPodFiltering)', () => {
    const rs = newReplicaSet('rs', 3, { labels: { foo: 'bar' } });
    const other = newReplicaSet('other', 3, { labels: { foo: 'bar' } });
    const ref = (owner: typeof rs, controller: boolean | undefined) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: owner.metadata!.name!,
      uid: owner.metadata!.uid!,
      ...(controller !== undefined && { controller }),
    });
    const mk = (name: string, labels: Record<string, string> | undefined, refs: object[]): Pod => ({
      metadata: {
        name,
        namespace: 'default',
        ...(labels && { labels }),
        ownerReferences: refs as never,
      },
      status: { phase: 'Running' },
    });
    const pods = [
      mk('claimed-1', { foo: 'bar' }, [ref(rs, true)]),
      mk('wrong-selector-1', { foo: 'baz' }, [ref(rs, true)]),
      mk('non-controller-1', { foo: 'bar' }, [ref(rs, undefined)]),
      mk('other-controller-1', { foo: 'bar' }, [ref(other, true)]),
      mk('standalone-1', { foo: 'bar' }, []),
      mk('claimed-2', { foo: 'bar' }, [ref(other, false), ref(rs, true)]),
      mk('non-controller-2', { foo: 'bar' }, [ref(other, false), ref(rs, false)]),
      mk('wrong-selector-3', undefined, [ref(other, false), ref(rs, true)]),
    ];
    const selector = labelSelectorAsSelector(rs.spec!.selector);
    expect(filterClaimedPods(rs, selector, pods).map((p) => p.metadata!.name)).toEqual([
      'claimed-1',
      'claimed-2',
    ]);
  });

  it('keeps ReplicaSets that ought to have pods (TestActiveReplicaSetsFiltering)', () => {
    const got = filterActiveReplicaSets([
      newReplicaSet('zero', 0),
      null,
      newReplicaSet('foo', 1),
      undefined,
      newReplicaSet('bar', 2),
    ]);
    expect(got.map((rs) => rs.metadata!.name)).toEqual(['foo', 'bar']);
  });
});

describe('isPodAvailable', () => {
  const readyAt = (since: number | null) =>
    pod('p', { phase: 'Running', ready: true, readySince: since });
  it('needs readiness', () => {
    expect(isPodAvailable(pod('p', { phase: 'Running', ready: false }), 0, now)).toBe(false);
    expect(isPodReady(readyAt(now))).toBe(true);
  });
  it('is immediate with minReadySeconds 0', () => {
    expect(isPodAvailable(readyAt(now), 0, now)).toBe(true);
    expect(isPodAvailable(readyAt(null), 0, now)).toBe(true);
  });
  it('needs the ready time plus minReadySeconds to be strictly before now', () => {
    expect(isPodAvailable(readyAt(now - 10_000), 10, now)).toBe(false);
    expect(isPodAvailable(readyAt(now - 10_001), 10, now)).toBe(true);
  });
  it('is never available without a transition time when minReadySeconds > 0', () => {
    expect(isPodAvailable(readyAt(null), 1, now + month)).toBe(false);
  });
});
