// The node lifecycle controller on a fake clock: ports of the cases of Go's
// node_lifecycle_controller_test.go that matter here (TestMonitorNodeHealthUpdateStatus,
// TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease,
// TestMonitorNodeHealthMarkPodsNotReady, TestSwapUnreachableNotReadyTaints,
// TestApplyNoExecuteTaints, TestTaintsNodeByCondition, TestNodeEventGeneration,
// TestReconcileNodeLabels, the full-disruption cases of
// TestMonitorNodeHealthEvictPodsWithDisruption, TestComputeZoneState), and of
// scheduler/rate_limited_queue_test.go.
import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, formatTime } from '@kcm-ts/apimachinery';
import {
  RateLimitedTimedQueue,
  neverRateLimiter,
  newTokenBucketRateLimiter,
} from '../../src/nodelifecycle/rate-limited-queue.js';
import { nodeLifecycleMetrics } from '../../src/nodelifecycle/metrics.js';
import { healthyConditions, lifecycleHarness, type LifecycleHarness } from './helpers.js';

let h: LifecycleHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const condition = (node: Node | undefined, type: string) =>
  node?.status?.conditions?.find((c) => c.type === type);
const noExecute = (node: Node | undefined) =>
  (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute').map((t) => t.key);
const noSchedule = (node: Node | undefined) =>
  (node?.spec?.taints ?? [])
    .filter((t) => t.effect === 'NoSchedule')
    .map((t) => t.key)
    .sort();

/** Runs a health pass once the cache holds `name` as `check` wants it. */
async function monitorWhen(name: string, check: (n: Node) => boolean = () => true): Promise<void> {
  await h!.cached(() => h!.cachedNode(name), check, name);
  await h!.controller.monitorNodeHealth();
}

describe('monitorNodeHealth', () => {
  it('marks a node Unknown once its heartbeats are older than the grace period, NetworkUnavailable left alone', async () => {
    h = await lifecycleHarness();
    await h.createNode('node0', { conditions: healthyConditions(formatTime(h.clock.now())) });
    await h.renewLease('node0');
    await monitorWhen('node0');
    expect(h.recorder.events).toContain(
      'Normal RegisteredNode Node node0 event: Registered Node node0 in Controller',
    );
    // Within the grace period nothing changes.
    await h.clock.advance(40_000);
    await h.controller.monitorNodeHealth();
    expect(condition(await h.nodes.get('node0'), 'Ready')?.status).toBe('True');
    // Past it: Unknown, with upstream's reason and message.
    await h.clock.advance(11_000);
    await h.controller.monitorNodeHealth();
    const node = await h.nodes.get('node0');
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      expect(condition(node, type)).toMatchObject({
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastTransitionTime: formatTime(h.clock.now()),
      });
    }
    expect(condition(node, 'NetworkUnavailable')?.status).toBe('False');
    expect(condition(node, 'Ready')?.lastHeartbeatTime).toBe(
      healthyConditions(formatTime(Date.UTC(2026, 0, 1)))[0]!.lastHeartbeatTime,
    );
    expect(h.recorder.events).toContain(
      'Normal NodeNotReady Node node0 status is now: NodeNotReady',
    );
  });

  it('keeps a node whose Lease is renewed healthy, however old its status heartbeat', async () => {
    h = await lifecycleHarness();
    await h.createNode('node0', { conditions: healthyConditions(formatTime(h.clock.now())) });
    await h.renewLease('node0');
    await monitorWhen('node0');
    for (let i = 0; i < 12; i++) {
      await h.clock.advance(10_000);
      await h.renewLease('node0');
      const renewed = await h.leases.get('node0');
      await h.cached(
        () => h!.factory.leases().lister().byNamespace('kube-node-lease').tryGet('node0'),
        (l) => l.spec?.renewTime === renewed.spec?.renewTime,
        'the renewed Lease',
      );
      await h.controller.monitorNodeHealth();
    }
    expect(condition(await h.nodes.get('node0'), 'Ready')?.status).toBe('True');
    // The Lease stops: Unknown a grace period after its last renewal.
    await h.clock.advance(51_000);
    await h.controller.monitorNodeHealth();
    expect(condition(await h.nodes.get('node0'), 'Ready')?.status).toBe('Unknown');
  });

  it('marks a node that never reported NodeStatusNeverUpdated after the startup grace period', async () => {
    h = await lifecycleHarness();
    await h.createNode('node0');
    await monitorWhen('node0');
    await h.clock.advance(50_000);
    await h.controller.monitorNodeHealth();
    expect((await h.nodes.get('node0')).status?.conditions ?? []).toEqual([]);
    await h.clock.advance(11_000);
    await h.controller.monitorNodeHealth();
    const node = await h.nodes.get('node0');
    expect(node.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Ready', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['MemoryPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
    ]);
  });

  it('marks the pods of a node that stops being ready not ready, with NodeNotReady events', async () => {
    h = await lifecycleHarness();
    const t0 = formatTime(h.clock.now());
    await h.createNode('node0', { conditions: healthyConditions(t0) });
    await h.createNode('node1', { conditions: healthyConditions(t0) });
    await h.createPod('pod0', 'node0', { ready: true });
    await h.createPod('pod1', 'node1', { ready: true });
    await h.cached(
      () => h!.factory.pods().lister().list(),
      (pods) => pods.length === 2 && pods.every((p) => p.status?.conditions?.length === 1),
      'both pods',
    );
    await monitorWhen('node1');
    // node0's kubelet goes quiet while node1's keeps reporting: the pass that
    // turns node0 Unknown marks its pods (a kubelet reporting NotReady marks
    // its pods itself).
    await h.clock.advance(51_000);
    await h.setConditions('node1', healthyConditions(formatTime(h.clock.now())));
    await monitorWhen('node1', (n) => condition(n, 'Ready')?.lastHeartbeatTime !== t0);
    expect(condition(await h.nodes.get('node0'), 'Ready')?.status).toBe('Unknown');
    const ready = async (name: string) =>
      (await h!.pods.get(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
    expect(await ready('pod0')).toBe('False');
    expect(await ready('pod1')).toBe('True');
    expect(h.recorder.events).toContain('Warning NodeNotReady Node is not ready');
    expect(h.recorder.events.filter((e) => e.startsWith('Warning NodeNotReady'))).toHaveLength(1);
  });
});

describe('taint-based eviction', () => {
  it('taints an unresponsive node unreachable, swaps to not-ready when it says NotReady, and untaints it when Ready', async () => {
    h = await lifecycleHarness();
    const t0 = formatTime(h.clock.now());
    // Two healthy nodes, so that one going down is not a full disruption.
    await h.createNode('node0', { conditions: healthyConditions(t0) });
    await h.createNode('node1', { conditions: healthyConditions(t0) });
    await h.renewLease('node0');
    await monitorWhen('node1');
    await h.clock.advance(51_000);
    await h.setConditions('node1', healthyConditions(formatTime(h.clock.now())));
    await monitorWhen('node1', (n) => condition(n, 'Ready')?.lastHeartbeatTime !== t0);
    expect(condition(await h.nodes.get('node0'), 'Ready')?.status).toBe('Unknown');
    // The next pass sees it Unknown and queues it for the taint, which the
    // tainting pass adds at the eviction rate.
    await monitorWhen('node0', (n) => condition(n, 'Ready')?.status === 'Unknown');
    expect(noExecute(await h.nodes.get('node0'))).toEqual([]);
    await h.controller.doNoExecuteTaintingPass();
    const tainted = await h.nodes.get('node0');
    expect(tainted.spec?.taints).toEqual([
      {
        key: 'node.kubernetes.io/unreachable',
        effect: 'NoExecute',
        timeAdded: formatTime(h.clock.now()),
      },
    ]);
    expect(noExecute(await h.nodes.get('node1'))).toEqual([]);
    expect(h.registry.getSingleMetric(nodeLifecycleMetrics.evictionsTotal.name)).toBeDefined();
    const evictions = await h.registry.getSingleMetricAsString(
      nodeLifecycleMetrics.evictionsTotal.name,
    );
    expect(evictions).toContain('node_collector_evictions_total{zone=""} 1');

    // The kubelet is back but says NotReady: the taint is swapped at once.
    await h.clock.advance(5_000);
    await h.setConditions('node0', healthyConditions(formatTime(h.clock.now()), 'False'));
    await monitorWhen(
      'node0',
      (n) => condition(n, 'Ready')?.status === 'False' && noExecute(n).length === 1,
    );
    expect(noExecute(await h.nodes.get('node0'))).toEqual(['node.kubernetes.io/not-ready']);

    // Ready again: no NoExecute taint is left.
    await h.clock.advance(5_000);
    await h.setConditions('node0', healthyConditions(formatTime(h.clock.now())));
    await monitorWhen('node0', (n) => condition(n, 'Ready')?.status === 'True');
    expect(noExecute(await h.nodes.get('node0'))).toEqual([]);
  });

  it('taints nothing when every node is down, and resumes once one is back', async () => {
    h = await lifecycleHarness();
    const t0 = formatTime(h.clock.now());
    await h.createNode('node0', { conditions: healthyConditions(t0) });
    await h.createNode('node1', { conditions: healthyConditions(t0) });
    await monitorWhen('node1');
    expect(h.controller.zoneStates().get('')).toBe('Normal');
    await h.clock.advance(51_000);
    await h.controller.monitorNodeHealth();
    expect(h.controller.zoneStates().get('')).toBe('FullDisruption');
    // Seen Unknown, both are queued for the taint: none is added.
    await monitorWhen('node0', (n) => condition(n, 'Ready')?.status === 'Unknown');
    await monitorWhen('node1', (n) => condition(n, 'Ready')?.status === 'Unknown');
    await h.controller.doNoExecuteTaintingPass();
    await h.clock.advance(20_000);
    await h.controller.doNoExecuteTaintingPass();
    expect(noExecute(await h.nodes.get('node0'))).toEqual([]);
    expect(noExecute(await h.nodes.get('node1'))).toEqual([]);
    expect(
      h.logger.lines.some((l) => l.startsWith('Controller detected that all Nodes are not-Ready')),
    ).toBe(true);

    // node1 comes back: the zone is normal again, and node0 is tainted.
    await h.setConditions('node1', healthyConditions(formatTime(h.clock.now())));
    await monitorWhen('node1', (n) => condition(n, 'Ready')?.status === 'True');
    expect(h.controller.zoneStates().get('')).toBe('Normal');
    // Exiting the disruption restarts every node's grace period.
    await h.clock.advance(51_000);
    await h.setConditions('node1', healthyConditions(formatTime(h.clock.now())));
    await monitorWhen('node1', (n) => condition(n, 'Ready')?.lastHeartbeatTime !== t0);
    await h.controller.monitorNodeHealth();
    await h.clock.advance(10_000);
    await h.controller.doNoExecuteTaintingPass();
    expect(noExecute(await h.nodes.get('node0'))).toEqual(['node.kubernetes.io/unreachable']);
    expect(noExecute(await h.nodes.get('node1'))).toEqual([]);
  });

  it('computes zone states as upstream', async () => {
    h = await lifecycleHarness();
    const c = (status: string) => ({ type: 'Ready', status });
    const zone = (...s: (string | undefined)[]) =>
      h!.controller.computeZoneState(s.map((x) => (x === undefined ? undefined : c(x))));
    expect(zone('True', 'True')).toEqual([0, 'Normal']);
    expect(zone('False', 'Unknown', undefined)).toEqual([3, 'FullDisruption']);
    expect(zone('True', 'False', 'False')).toEqual([2, 'Normal']);
    expect(zone('True', 'False', 'False', 'Unknown')).toEqual([3, 'PartialDisruption']);
    expect(zone('True', 'True', 'False', 'False', 'Unknown', 'True', 'True')).toEqual([
      3,
      'Normal',
    ]);
    expect(h.controller.reducedQPSFunc(50)).toBe(0);
    expect(h.controller.reducedQPSFunc(51)).toBe(0.01);
    expect(h.controller.healthyQPSFunc(3)).toBe(0.1);
  });
});

describe('doNoScheduleTaintingPass', () => {
  it('mirrors conditions and cordoning in NoSchedule taints, leaving other taints alone', async () => {
    h = await lifecycleHarness();
    const t0 = formatTime(h.clock.now());
    const conditions = healthyConditions(t0, 'False').map((c) =>
      c.type === 'MemoryPressure' ? { ...c, status: 'True' } : c,
    );
    const userTaint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    await h.createNode('node0', { conditions, taints: [userTaint], unschedulable: true });
    await h.cached(
      () => h!.cachedNode('node0'),
      () => true,
      'node0',
    );
    await h.controller.doNoScheduleTaintingPass('node0');
    expect(noSchedule(await h.nodes.get('node0'))).toEqual([
      'dedicated',
      'node.kubernetes.io/memory-pressure',
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unschedulable',
    ]);
    // Healthy and uncordoned: only the user's taint is left.
    await h.setConditions('node0', healthyConditions(formatTime(h.clock.now())));
    const node = await h.nodes.get('node0');
    await h.nodes.update({ ...node, spec: { ...node.spec, unschedulable: false } });
    await h.cached(
      () => h!.cachedNode('node0'),
      (n) => !n.spec?.unschedulable && condition(n, 'Ready')?.status === 'True',
      'node0 healthy',
    );
    await h.controller.doNoScheduleTaintingPass('node0');
    expect((await h.nodes.get('node0')).spec?.taints).toEqual([userTaint]);
  });

  it('runs for every node change while the controller runs, as do label reconciles', async () => {
    h = await lifecycleHarness({ nodeMonitorPeriod: 5_000 });
    const abort = new AbortController();
    const running = h.controller.run(abort.signal);
    try {
      await h.createNode('node0', {
        conditions: healthyConditions(formatTime(h.clock.now()), 'Unknown'),
        labels: {
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'arm64',
          'beta.kubernetes.io/arch': 'amd64',
        },
      });
      await h.until(async () => {
        const node = await h!.nodes.get('node0');
        return (
          noSchedule(node).includes('node.kubernetes.io/unreachable') &&
          node.metadata?.labels?.['beta.kubernetes.io/os'] === 'linux'
        );
      }, 'the NoSchedule taint and the beta labels');
      const labels = (await h.nodes.get('node0')).metadata?.labels;
      expect(labels).toMatchObject({
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'arm64',
      });
    } finally {
      abort.abort();
      await running;
    }
    expect(h.logger.lines).toContain(
      'Shutting down controller {"controller":"node-lifecycle-controller"}',
    );
  });
});

describe('RateLimitedTimedQueue', () => {
  it("adds a value once until it is removed, and processes due values at the limiter's rate", async () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(newTokenBucketRateLimiter(1, 1, clock), clock);
    expect(q.add('first', 'u1')).toBe(true);
    expect(q.add('second', 'u2')).toBe(true);
    expect(q.add('first', 'u1')).toBe(false);
    const seen: string[] = [];
    await q.try((v) => {
      seen.push(v.value);
      return Promise.resolve([true]);
    });
    // One token: one value.
    expect(seen).toEqual(['first']);
    await clock.advance(1000);
    await q.try((v) => {
      seen.push(v.value);
      return Promise.resolve([true]);
    });
    expect(seen).toEqual(['first', 'second']);
    // Processed values stay known until removed.
    expect(q.add('first', 'u1')).toBe(false);
    expect(q.remove('first')).toBe(true);
    expect(q.add('first', 'u1')).toBe(true);
  });

  it('retries a value not done no sooner than the wait it asks for, and a zero rate stops it', async () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(newTokenBucketRateLimiter(100, 1, clock), clock);
    q.add('n', 'u');
    let calls = 0;
    const fn = () => {
      calls++;
      return Promise.resolve<[boolean, number]>([false, 50]);
    };
    await q.try(fn);
    expect(calls).toBe(1);
    await clock.advance(20);
    await q.try(fn);
    expect(calls).toBe(1);
    await clock.advance(40);
    await q.try(fn);
    expect(calls).toBe(2);
    q.swapLimiter(0);
    expect(q.qps()).toBe(0);
    await clock.advance(1000);
    await q.try(fn);
    expect(calls).toBe(2);
    expect(neverRateLimiter.tryAccept()).toBe(false);
  });
});
