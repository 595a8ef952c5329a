// The taint eviction controller on a fake clock: ports of the cases of Go's
// taint_eviction_test.go that matter here (TestCreatePod, TestDeletePod,
// TestUpdatePod, TestCreateNode, TestUpdateNode, TestUpdateNodeWithMultipleTaints,
// TestGetMinTolerationTime, TestEventualConsistency in part), and of
// timed_workers_test.go.
import type { Node, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '@kcm-ts/apimachinery';
import { taintEvictionMetrics } from '../../src/nodelifecycle/tainteviction/metrics.js';
import {
  getMinTolerationTime,
  getNoExecuteTaints,
} from '../../src/nodelifecycle/tainteviction/taint-eviction.js';
import { TimedWorkerQueue } from '../../src/nodelifecycle/tainteviction/timed-workers.js';
import { evictionHarness, type EvictionHarness } from './helpers.js';

let h: EvictionHarness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const taint = (key: string, effect: Taint['effect'] = 'NoExecute'): Taint => ({
  key,
  value: 'v',
  effect,
});
const toleration = (key: string, seconds?: number): Toleration => ({
  key,
  operator: 'Equal',
  value: 'v',
  effect: 'NoExecute',
  ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
});

/** True once the pod has been deleted (it stays Terminating: no kubelet finishes it). */
async function deleted(name: string): Promise<boolean> {
  const pod = await h!.serverPod(name);
  return pod === undefined || pod.metadata?.deletionTimestamp !== undefined;
}

/** Advances the fake clock by `ms` in 500 ms hops. */
async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 500) await h!.clock.advance(Math.min(500, ms - t));
}

async function setTaints(name: string, taints: Taint[]): Promise<Node> {
  const node = await h!.nodes.get(name);
  return h!.nodes.update({ ...node, spec: { ...node.spec, taints } });
}

describe('getMinTolerationTime', () => {
  it('is the shortest tolerationSeconds, 0 for none or a non-positive one, -1 when none is set', () => {
    expect(getMinTolerationTime([])).toBe(0);
    expect(getMinTolerationTime([toleration('a')])).toBe(-1);
    expect(getMinTolerationTime([toleration('a', 10), toleration('b', 5)])).toBe(5_000);
    expect(getMinTolerationTime([toleration('a', 10), toleration('b')])).toBe(10_000);
    expect(getMinTolerationTime([toleration('a', 10), toleration('b', -3)])).toBe(0);
    expect(getNoExecuteTaints([taint('a'), taint('b', 'NoSchedule')])).toEqual([taint('a')]);
  });
});

describe('TaintEvictionController', () => {
  it('deletes at once a pod that does not tolerate a NoExecute taint, marking it a disruption target', async () => {
    h = await evictionHarness();
    await h.createNode('node1', { taints: [taint('t1')] });
    await h.createPod('pod1', 'node1');
    await h.createPod('pod2', 'node1', { tolerations: [toleration('t1')] });
    await h.until(() => deleted('pod1'), 'pod1 to be deleted');
    const pod = (await h.serverPod('pod1'))!;
    expect(pod.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      }),
    );
    expect(h.recorder.events).toContain(
      'Normal TaintManagerEviction Marking for deletion Pod default/pod1',
    );
    // Tolerated forever: never deleted.
    await advance(600_000);
    expect(await deleted('pod2')).toBe(false);
    const total = await h.registry.getSingleMetricAsString(
      taintEvictionMetrics.podDeletionsTotal.name,
    );
    // The pod's add and its node's add may each schedule it, as upstream; both deletions count.
    expect(total).toMatch(/^taint_eviction_controller_pod_deletions_total [12]$/m);
  });

  it('deletes a tolerating pod once the shortest tolerationSeconds has passed', async () => {
    h = await evictionHarness();
    await h.createNode('node1');
    await h.createPod('pod1', 'node1', {
      tolerations: [toleration('t1', 30), toleration('t2', 60)],
    });
    await h.cached(
      () => h!.factory.pods().lister().byNamespace('default').tryGet('pod1'),
      () => true,
      'pod1',
    );
    await setTaints('node1', [taint('t1'), taint('t2')]);
    await advance(20_000);
    expect(await deleted('pod1')).toBe(false);
    await h.until(() => deleted('pod1'), 'pod1 to be deleted', 500);
    expect(h.clock.now() - Date.UTC(2026, 0, 1)).toBeGreaterThanOrEqual(30_000);
  });

  it('cancels a scheduled deletion when the taint goes, with an event', async () => {
    h = await evictionHarness();
    await h.createNode('node1', { taints: [taint('t1')] });
    await h.createPod('pod1', 'node1', { tolerations: [toleration('t1', 30)] });
    await advance(10_000);
    await setTaints('node1', []);
    await h.until(
      () =>
        h!.recorder.events.includes(
          'Normal TaintManagerEviction Cancelling deletion of Pod default/pod1',
        ),
      'the cancellation',
    );
    await advance(60_000);
    expect(await deleted('pod1')).toBe(false);
  });

  it('deletes at once a pod whose new taint it does not tolerate, and ignores NoSchedule taints', async () => {
    h = await evictionHarness();
    await h.createNode('node1', { taints: [taint('t1')] });
    await h.createPod('pod1', 'node1', { tolerations: [toleration('t1', 600)] });
    await setTaints('node1', [taint('t1'), taint('other', 'NoSchedule')]);
    await advance(30_000);
    expect(await deleted('pod1')).toBe(false);
    await setTaints('node1', [taint('t1'), taint('t2')]);
    await h.until(() => deleted('pod1'), 'pod1 to be deleted');
  });

  it('keeps a deletion due when the pod gains a toleration without tolerationSeconds', async () => {
    h = await evictionHarness();
    await h.createNode('node1', { taints: [taint('t1')] });
    const pod: Pod = await h.createPod('pod1', 'node1', { tolerations: [toleration('t1', 30)] });
    await advance(10_000);
    // A pod's tolerations may gain entries; kube-apiserver allows that update.
    await h.pods.update({
      ...pod,
      spec: { ...pod.spec!, tolerations: [toleration('t1', 30), toleration('t1')] },
    });
    await advance(60_000);
    // The shortest matching toleration still counts: it is deleted.
    expect(await deleted('pod1')).toBe(true);
  });
});

describe('TimedWorkerQueue', () => {
  it('runs work at its time, at once when due, and not once cancelled', async () => {
    const clock = new FakeClock();
    const ran: string[] = [];
    const q = new TimedWorkerQueue((_fireAt, args) => {
      ran.push(args.name);
      return Promise.resolve();
    }, clock);
    const now = clock.now();
    q.addWork({ namespace: 'ns', name: 'now' }, now, now);
    q.addWork({ namespace: 'ns', name: 'later' }, now, now + 1000);
    q.addWork({ namespace: 'ns', name: 'cancelled' }, now, now + 1000);
    q.addWork({ namespace: 'ns', name: 'moved' }, now, now + 1000);
    q.updateWork({ namespace: 'ns', name: 'moved' }, now, now + 3000);
    await clock.advance(0);
    expect(ran).toEqual(['now']);
    expect(q.cancelWork('ns/cancelled')).toBe(true);
    expect(q.getWorkerUnsafe('ns/later')?.fireAt).toBe(now + 1000);
    await clock.advance(1000);
    expect(ran).toEqual(['now', 'later']);
    expect(q.getWorkerUnsafe('ns/later')).toBeUndefined();
    await clock.advance(2000);
    expect(ran).toEqual(['now', 'later', 'moved']);
    q.addWork({ namespace: 'ns', name: 'last' }, clock.now(), clock.now() + 1000);
    await q.cancelAndWait();
    await clock.advance(5000);
    expect(ran).toEqual(['now', 'later', 'moved']);
  });
});
