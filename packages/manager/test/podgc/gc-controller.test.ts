// PodGC (gc_controller.go and metrics/metrics.go): the table tests of
// gc_controller_test.go (TestGCTerminated, TestGCOrphaned,
// TestGCUnscheduledTerminating, TestGCTerminating,
// TestGCInspectingPatchedPodBeforeDeletion, with the metrics each checks)
// against caches filled by hand, then PodGC running against a sandbox on a
// fake clock.
import type { Node, NodeCondition, Pod, PodStatus, Taint } from 'kubernetes-types/core/v1.js';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeClock,
  formatTime,
  newServiceUnavailable,
  patchMetaForKind,
  strategicMergePatch,
} from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  defaultTerminatedPodGCThreshold,
  gcCheckPeriod,
  quarantineTime,
} from '../../src/podgc/gc-controller.js';
import { newPodGCMetrics, noopPodGCMetrics, podGCMetrics } from '../../src/podgc/metrics.js';
import {
  counterValue,
  gcFixture,
  makePod,
  newNode,
  startPodGC,
  type GCFixture,
  type PodGCHarness,
} from './helpers.js';

const hour = 3_600_000;
/** A deletion timestamp: its value does not matter, only that there is one. */
const deleting = formatTime(0);

let f: GCFixture | PodGCHarness | undefined;
afterEach(async () => {
  await f?.stop();
  f = undefined;
});

/** `names` sorted, for comparing with a fixture's `deleted()` and `patched()`. */
const set = (...names: string[]) => [...names].sort();

describe('gcTerminated (TestGCTerminated)', () => {
  type P = { name: string; phase: PodStatus['phase']; reason?: string };
  const cases: { name: string; pods: P[]; threshold: number; deleted?: string[] }[] = [
    {
      name: 'delete pod a which is PodFailed and pod b which is PodSucceeded',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
        { name: 'c', phase: 'Failed' },
      ],
      threshold: 1,
      deleted: ['a', 'b'],
    },
    {
      name: 'threshold = 0, disables terminated pod deletion',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
      ],
      threshold: 0,
    },
    {
      name: 'threshold = 1, delete pod a which is PodFailed and pod b which is PodSucceeded',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
        { name: 'c', phase: 'Failed' },
      ],
      threshold: 1,
      deleted: ['a', 'b'],
    },
    {
      name: 'threshold = 1, delete pod b which is PodSucceeded',
      pods: [
        { name: 'a', phase: 'Running' },
        { name: 'b', phase: 'Succeeded' },
        { name: 'c', phase: 'Failed' },
      ],
      threshold: 1,
      deleted: ['b'],
    },
    {
      name: 'threshold = 1, delete pod a which is PodFailed',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
      ],
      threshold: 1,
      deleted: ['a'],
    },
    {
      name: "threshold = 5, don't delete pod",
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
      ],
      threshold: 5,
    },
    {
      name: 'an evicted pod goes before older ones',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Succeeded' },
        { name: 'c', phase: 'Failed', reason: 'Evicted' },
      ],
      threshold: 1,
      deleted: ['c', 'a'],
    },
    {
      name: 'only the evicted pod goes when one is over the threshold',
      pods: [
        { name: 'a', phase: 'Running' },
        { name: 'b', phase: 'Succeeded' },
        { name: 'c', phase: 'Failed', reason: 'Evicted' },
      ],
      threshold: 1,
      deleted: ['c'],
    },
    {
      name: 'a negative threshold disables it too',
      pods: [
        { name: 'a', phase: 'Failed' },
        { name: 'b', phase: 'Failed' },
      ],
      threshold: -1,
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const pods = tc.pods.map((p, i): Pod => ({
        ...makePod(p.name, 'node', p.phase),
        metadata: {
          name: p.name,
          namespace: 'default',
          creationTimestamp: formatTime((i + 1) * hour),
        },
        status: { phase: p.phase, ...(p.reason === undefined ? {} : { reason: p.reason }) },
      }));
      const fx = await gcFixture({
        threshold: tc.threshold,
        informerNodes: [newNode('node')],
        clientNodes: [newNode('node')],
        pods,
      });
      f = fx;
      await fx.gcc.gc();
      expect(fx.deleted()).toEqual(set(...(tc.deleted ?? [])));
      // Terminated pods have their phase already.
      expect(fx.patched()).toEqual([]);
      expect(await fx.deletingPodsTotal('terminated')).toBe(tc.deleted?.length ?? 0);
      expect(await fx.deletingPodsErrorTotal('terminated')).toBe(0);
    });
  }

  it('deletes the oldest first, by name when they are as old, and with grace period 0', async () => {
    const at = (name: string, created: number): Pod => ({
      ...makePod(name, 'node', 'Succeeded'),
      metadata: { name, namespace: 'default', creationTimestamp: formatTime(created) },
    });
    const fx = await gcFixture({
      threshold: 2,
      informerNodes: [newNode('node')],
      clientNodes: [newNode('node')],
      pods: [at('z', hour), at('y', 3 * hour), at('x', 3 * hour), at('w', 5 * hour)],
    });
    f = fx;
    await fx.gcc.gc();
    expect(fx.deleted()).toEqual(['x', 'z']);
    expect(fx.calls.map((c) => c.options)).toEqual([
      { gracePeriodSeconds: 0, signal: undefined },
      { gracePeriodSeconds: 0, signal: undefined },
    ]);
    expect(fx.logger.lines).toContain('Garbage collecting pods {"numPods":2}');
  });
});

describe('gcOrphaned (TestGCOrphaned)', () => {
  const cases: {
    name: string;
    initialClientNodes?: Node[];
    initialInformerNodes?: Node[];
    delay: number;
    addedClientNodes?: Node[];
    deletedClientNodes?: Node[];
    addedInformerNodes?: Node[];
    deletedInformerNodes?: Node[];
    pods: Pod[];
    /** The nodes read from the API server: those out of quarantine the informer lacks. */
    nodeGets?: string[];
    deleted?: string[];
    patched?: string[];
  }[] = [
    {
      name: 'nodes present in lister',
      initialInformerNodes: [newNode('existing1'), newNode('existing2')],
      delay: 2 * quarantineTime,
      pods: [
        makePod('a', 'existing1', 'Running'),
        makePod('b', 'existing2', 'Failed'),
        makePod('c', 'existing2', 'Succeeded'),
      ],
    },
    {
      name: 'nodes present in client',
      initialClientNodes: [newNode('existing1'), newNode('existing2')],
      delay: 2 * quarantineTime,
      pods: [
        makePod('a', 'existing1', 'Running'),
        makePod('b', 'existing2', 'Failed'),
        makePod('c', 'existing2', 'Succeeded'),
      ],
      nodeGets: ['existing1', 'existing2'],
    },
    {
      name: 'no nodes',
      delay: 2 * quarantineTime,
      pods: [makePod('a', 'deleted', 'Failed'), makePod('b', 'deleted', 'Succeeded')],
      nodeGets: ['deleted'],
      deleted: ['a', 'b'],
    },
    {
      name: 'no nodes, one running pod',
      delay: 2 * quarantineTime,
      pods: [
        makePod('a', 'deleted', 'Failed'),
        makePod('b', 'deleted', 'Succeeded'),
        makePod('c', 'deleted', 'Running'),
      ],
      nodeGets: ['deleted'],
      deleted: ['a', 'b', 'c'],
      patched: ['c'],
    },
    {
      name: 'quarantine not finished',
      delay: quarantineTime / 2,
      pods: [makePod('a', 'deleted', 'Failed')],
    },
    {
      name: 'wrong nodes',
      initialInformerNodes: [newNode('existing')],
      delay: 2 * quarantineTime,
      pods: [makePod('a', 'deleted', 'Running')],
      nodeGets: ['deleted'],
      deleted: ['a'],
      patched: ['a'],
    },
    {
      name: 'some nodes missing',
      initialInformerNodes: [newNode('existing')],
      delay: 2 * quarantineTime,
      pods: [
        makePod('a', 'deleted', 'Failed'),
        makePod('b', 'existing', 'Failed'),
        makePod('c', 'deleted', 'Succeeded'),
        makePod('d', 'deleted', 'Running'),
      ],
      nodeGets: ['deleted'],
      deleted: ['a', 'c', 'd'],
      patched: ['d'],
    },
    {
      name: 'node added to client after quarantine',
      delay: 2 * quarantineTime,
      addedClientNodes: [newNode('node')],
      pods: [makePod('a', 'node', 'Running')],
      nodeGets: ['node'],
    },
    {
      name: 'node added to informer after quarantine',
      delay: 2 * quarantineTime,
      addedInformerNodes: [newNode('node')],
      pods: [makePod('a', 'node', 'Failed')],
    },
    {
      name: 'node deleted from client after quarantine',
      initialClientNodes: [newNode('node')],
      delay: 2 * quarantineTime,
      deletedClientNodes: [newNode('node')],
      pods: [makePod('a', 'node', 'Failed')],
      nodeGets: ['node'],
      deleted: ['a'],
    },
    {
      name: 'node deleted from informer after quarantine',
      initialInformerNodes: [newNode('node')],
      delay: 2 * quarantineTime,
      deletedInformerNodes: [newNode('node')],
      pods: [makePod('a', 'node', 'Succeeded')],
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const fx = await gcFixture({
        clientNodes: tc.initialClientNodes,
        informerNodes: tc.initialInformerNodes,
        pods: tc.pods,
      });
      f = fx;
      // The first pass only starts the quarantine.
      await fx.gcc.gc();
      expect(fx.deleted()).toEqual([]);
      expect(fx.nodeGets()).toEqual([]);

      await fx.clock.advance(tc.delay);
      for (const n of tc.addedClientNodes ?? []) await fx.addClientNode(n);
      for (const n of tc.deletedClientNodes ?? []) await fx.nodes.delete(n.metadata?.name ?? '');
      for (const n of tc.addedInformerNodes ?? []) fx.nodeStore.add(n);
      for (const n of tc.deletedInformerNodes ?? []) fx.nodeStore.delete(n);

      await fx.gcc.gc();
      expect(fx.nodeGets()).toEqual(set(...(tc.nodeGets ?? [])));
      expect(fx.deleted()).toEqual(set(...(tc.deleted ?? [])));
      expect(fx.patched()).toEqual(set(...(tc.patched ?? [])));
      expect(await fx.deletingPodsTotal('orphaned')).toBe(tc.deleted?.length ?? 0);
      expect(await fx.deletingPodsErrorTotal('orphaned')).toBe(0);
    });
  }

  it('keeps a node in quarantine from the first time a pass sees it missing', async () => {
    const fx = await gcFixture({ pods: [makePod('a', 'gone', 'Running')] });
    f = fx;
    await fx.gcc.gc();
    await fx.clock.advance(gcCheckPeriod);
    // The second pass asks to quarantine it again: the earlier deadline holds.
    await fx.gcc.gc();
    expect(fx.deleted()).toEqual([]);
    await fx.clock.advance(quarantineTime - gcCheckPeriod);
    await fx.gcc.gc();
    expect(fx.nodeGets()).toEqual(['gone']);
    expect(fx.deleted()).toEqual(['a']);
  });

  it('looks again after a failed node read', async () => {
    const fx = await gcFixture({ pods: [makePod('a', 'gone', 'Running')] });
    f = fx;
    await fx.gcc.gc();
    await fx.clock.advance(quarantineTime);
    fx.failures.set('get nodes', [newServiceUnavailable('etcd is down')]);
    await fx.gcc.gc();
    expect(fx.deleted()).toEqual([]);
    expect(fx.logger.lines.some((l) => l.startsWith('ERROR Error while getting node'))).toBe(true);
    // Back in quarantine on the next pass, and collected after it.
    await fx.gcc.gc();
    expect(fx.deleted()).toEqual([]);
    await fx.clock.advance(quarantineTime);
    await fx.gcc.gc();
    expect(fx.deleted()).toEqual(['a']);
  });
});

describe('markFailedAndDeletePodWithCondition (TestGCInspectingPatchedPodBeforeDeletion)', () => {
  it('orphaned pod should have DisruptionTarget condition added before deletion', async () => {
    const pod: Pod = {
      metadata: { namespace: 'default', name: 'test-pod' },
      spec: { nodeName: 'deletedNode', containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const fx = await gcFixture({ pods: [pod], quarantineTime: -1 });
    f = fx;
    await fx.gcc.gc();
    const [patch, del] = fx.calls.filter((c) => c.call !== 'get nodes/deletedNode');
    expect(patch?.call).toBe('patch pods/test-pod');
    expect(patch?.patch?.type).toBe('strategic');
    const stored = fx.podStore.list()[0]!;
    const patched = strategicMergePatch(
      stored,
      (patch?.patch as { body: object }).body,
      patchMetaForKind('v1', 'Pod')!,
    ) as Pod;
    // The uid in the patch is the pod's own: a precondition, not a change.
    expect(patched.metadata).toEqual(stored.metadata);
    expect(patched.spec).toEqual(pod.spec);
    const conditions = patched.status?.conditions ?? [];
    expect(conditions.map(({ lastTransitionTime: _, ...c }) => c)).toEqual([
      { type: 'Ready', status: 'True' },
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'DeletionByPodGC',
        message: 'PodGC: node no longer exists',
      },
    ]);
    expect(conditions[1]?.lastTransitionTime).toBe(formatTime(fx.clock.now()));
    expect(patched.status?.phase).toBe('Failed');
    expect(del).toEqual({
      call: 'delete pods/test-pod',
      name: 'test-pod',
      options: { gracePeriodSeconds: 0, signal: undefined },
    });
    expect(fx.logger.lines).toContain('PodGC is force deleting Pod {"pod":"default/test-pod"}');
    expect(fx.logger.lines).toContain(
      'Forced deletion of orphaned Pod succeeded {"pod":"default/test-pod"}',
    );
  });

  it('keeps the transition time of a DisruptionTarget condition that is True already', async () => {
    const pod: Pod = {
      metadata: { namespace: 'default', name: 'evicting' },
      spec: { nodeName: 'gone', containers: [{ name: 'c', image: 'nginx' }] },
      status: {
        phase: 'Running',
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'EvictionByEvictionAPI',
            lastTransitionTime: '2025-06-01T00:00:00Z',
          },
        ],
      },
    };
    const fx = await gcFixture({ pods: [pod], quarantineTime: -1 });
    f = fx;
    await fx.gcc.gc();
    const patch = fx.calls.find((c) => c.call === 'patch pods/evicting');
    expect((patch?.patch as { body: unknown }).body).toEqual({
      metadata: { uid: fx.podStore.list()[0]?.metadata?.uid },
      status: {
        phase: 'Failed',
        '$setElementOrder/conditions': [{ type: 'DisruptionTarget' }],
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'DeletionByPodGC',
            message: 'PodGC: node no longer exists',
            lastTransitionTime: '2025-06-01T00:00:00Z',
          },
        ],
      },
    });
  });

  it('reports a failed patch, does not delete, and counts the error', async () => {
    const fx = await gcFixture({
      pods: [makePod('a', 'gone', 'Running'), makePod('b', 'gone', 'Failed')],
      quarantineTime: -1,
    });
    f = fx;
    // The cached uid is not the server's: the patch's precondition fails.
    const stale = fx.podStore.list().find((p) => p.metadata?.name === 'a')!;
    fx.podStore.update({ ...stale, metadata: { ...stale.metadata, uid: 'not-the-uid' } });
    await fx.gcc.gc();
    expect(fx.patched()).toEqual(['a']);
    expect(fx.deleted()).toEqual(['b']);
    const error = fx.logger.lines.find((l) => l.startsWith('ERROR Unhandled Error'));
    expect(error).toContain('failed to patch status');
    expect(error).toContain('for pod "default"/"a": Pod "a" is invalid');
    expect(await fx.deletingPodsTotal('orphaned')).toBe(2);
    expect(await fx.deletingPodsErrorTotal('orphaned')).toBe(1);
  });
});

describe('gcUnscheduledTerminating (TestGCUnscheduledTerminating)', () => {
  type P = { name: string; phase: PodStatus['phase']; deleting: boolean; nodeName: string };
  const cases: { name: string; pods: P[]; deleted?: string[]; patched?: string[] }[] = [
    {
      name: 'Unscheduled pod in any phase must be deleted',
      pods: [
        { name: 'a', phase: 'Failed', deleting: true, nodeName: '' },
        { name: 'b', phase: 'Succeeded', deleting: true, nodeName: '' },
        { name: 'c', phase: 'Running', deleting: true, nodeName: '' },
      ],
      deleted: ['a', 'b', 'c'],
      patched: ['c'],
    },
    {
      name: 'Scheduled pod in any phase must not be deleted',
      pods: [
        { name: 'a', phase: 'Failed', deleting: false, nodeName: '' },
        { name: 'b', phase: 'Succeeded', deleting: false, nodeName: 'node' },
        { name: 'c', phase: 'Running', deleting: true, nodeName: 'node' },
      ],
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const pods = tc.pods.map((p, i): Pod => ({
        metadata: {
          name: p.name,
          namespace: 'default',
          creationTimestamp: formatTime((i + 1) * hour),
          ...(p.deleting ? { deletionTimestamp: deleting } : {}),
        },
        spec: {
          ...(p.nodeName ? { nodeName: p.nodeName } : {}),
          containers: [{ name: 'c', image: 'nginx' }],
        },
        status: { phase: p.phase },
      }));
      const fx = await gcFixture({ pods });
      f = fx;
      await fx.gcc.gc();
      expect(fx.deleted()).toEqual(set(...(tc.deleted ?? [])));
      expect(fx.patched()).toEqual(set(...(tc.patched ?? [])));
      expect(await fx.deletingPodsTotal('unscheduled')).toBe(tc.deleted?.length ?? 0);
      expect(await fx.deletingPodsErrorTotal('unscheduled')).toBe(0);
    });
  }
});

describe('gcTerminating (TestGCTerminating)', () => {
  type N = { name: string; ready: NodeCondition['status']; taints?: Taint[] };
  type P = { name: string; phase?: PodStatus['phase']; deleting?: boolean; nodeName: string };
  const outOfService = (effect: string, value?: string): Taint[] => [
    { key: 'node.kubernetes.io/out-of-service', effect, ...(value ? { value } : {}) },
  ];
  const fivePods = (n: number, nodeName: string): P[] => [
    { name: `a${n}`, nodeName },
    { name: `b${n}`, deleting: true, nodeName },
    { name: `c${n}`, phase: 'Pending', nodeName },
    { name: `d${n}`, phase: 'Running', nodeName },
    { name: `e${n}`, phase: 'Unknown', nodeName },
  ];
  const cases: { name: string; nodes: N[]; pods: P[]; deleted?: string[]; patched?: string[] }[] = [
    {
      name: 'pods have deletion timestamp set and the corresponding nodes are not ready',
      nodes: [
        { name: 'worker-0', ready: 'False' },
        { name: 'worker-1', ready: 'False' },
      ],
      pods: [
        { name: 'a', deleting: true, nodeName: 'worker-0' },
        { name: 'b', deleting: true, nodeName: 'worker-1' },
      ],
    },
    {
      name:
        'some pods have deletion timestamp and/or phase set and some of the corresponding nodes have an' +
        'outofservice taint that are not ready',
      nodes: [
        { name: 'worker-0', ready: 'False', taints: outOfService('NoExecute') },
        { name: 'worker-1', ready: 'False' },
        { name: 'worker-2', ready: 'True' },
        { name: 'worker-3', ready: 'False', taints: outOfService('NoSchedule') },
        { name: 'worker-4', ready: 'False', taints: outOfService('PreferNoSchedule') },
        { name: 'worker-5', ready: 'False', taints: outOfService('NoExecute', 'any-value') },
      ],
      pods: [
        ...fivePods(1, 'worker-0'),
        ...fivePods(2, 'worker-1'),
        ...fivePods(3, 'worker-2'),
        ...fivePods(4, 'worker-3'),
        // As upstream: a5 is on worker-3, the rest of its five on worker-4.
        ...fivePods(5, 'worker-4').map((p) =>
          p.name === 'a5' ? { ...p, nodeName: 'worker-3' } : p,
        ),
        ...fivePods(6, 'worker-5'),
      ],
      deleted: ['b1', 'b4', 'b5', 'b6'],
      patched: ['b1', 'b4', 'b5', 'b6'],
    },
    {
      name: 'pods deleted from node tainted out-of-service',
      nodes: [{ name: 'worker', ready: 'False', taints: outOfService('NoExecute') }],
      pods: [
        { name: 'a', phase: 'Running', deleting: true, nodeName: 'worker' },
        { name: 'b', phase: 'Failed', deleting: true, nodeName: 'worker' },
        { name: 'c', phase: 'Succeeded', deleting: true, nodeName: 'worker' },
      ],
      deleted: ['a', 'b', 'c'],
      patched: ['a'],
    },
    {
      name: 'a ready node keeps its pods even when tainted out-of-service',
      nodes: [{ name: 'worker', ready: 'True', taints: outOfService('NoExecute') }],
      pods: [{ name: 'a', phase: 'Running', deleting: true, nodeName: 'worker' }],
    },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      let created = 0;
      const nodes = tc.nodes.map((n): Node => ({
        metadata: { name: n.name, creationTimestamp: formatTime((created += 2) * hour) },
        spec: { ...(n.taints ? { taints: n.taints } : {}) },
        status: { conditions: [{ type: 'Ready', status: n.ready }] },
      }));
      const pods = tc.pods.map((p): Pod => ({
        metadata: {
          name: p.name,
          namespace: 'default',
          creationTimestamp: formatTime((created += 1) * hour),
          ...(p.deleting ? { deletionTimestamp: deleting } : {}),
        },
        spec: { nodeName: p.nodeName, containers: [{ name: 'c', image: 'nginx' }] },
        status: p.phase === undefined ? {} : { phase: p.phase },
      }));
      const fx = await gcFixture({ clientNodes: nodes, informerNodes: nodes, pods });
      f = fx;
      await fx.gcc.gc();
      expect(fx.deleted()).toEqual(set(...(tc.deleted ?? [])));
      expect(fx.patched()).toEqual(set(...(tc.patched ?? [])));
      expect(await fx.deletingPodsTotal('out-of-service')).toBe(tc.deleted?.length ?? 0);
      expect(await fx.deletingPodsErrorTotal('out-of-service')).toBe(0);
    });
  }
});

describe('PodGC metrics', () => {
  it("has upstream's names, help and labels", () => {
    expect(Object.values(podGCMetrics).map((m) => [m.name, m.labels.join(',')])).toEqual([
      ['pod_gc_collector_force_delete_pods_total', 'namespace,reason'],
      ['pod_gc_collector_force_delete_pod_errors_total', 'namespace,reason'],
    ]);
    expect(podGCMetrics.deletingPodsTotal.help).toBe(
      'Number of pods that are being forcefully deleted since the Pod GC Controller started.',
    );
    expect(podGCMetrics.deletingPodsErrorTotal.help).toBe(
      'Number of errors encountered when forcefully deleting the pods since the Pod GC Controller started.',
    );
  });

  it('registers once per registry and counts by namespace and reason', async () => {
    const registry = new Registry();
    newPodGCMetrics(registry).deletingPod('a', 'orphaned');
    newPodGCMetrics(registry).deletingPod('a', 'orphaned');
    newPodGCMetrics(registry).deletingPodError('b', 'unscheduled');
    const total = podGCMetrics.deletingPodsTotal.name;
    const errors = podGCMetrics.deletingPodsErrorTotal.name;
    expect(await counterValue(registry, total, { namespace: 'a', reason: 'orphaned' })).toBe(2);
    expect(await counterValue(registry, total, { namespace: 'b', reason: 'orphaned' })).toBe(0);
    expect(await counterValue(registry, errors, { namespace: 'b', reason: 'unscheduled' })).toBe(1);
    expect(() => noopPodGCMetrics.deletingPod('a', 'terminated')).not.toThrow();
  });

  it("has upstream's defaults", () => {
    expect(defaultTerminatedPodGCThreshold).toBe(12500);
    expect(gcCheckPeriod).toBe(20_000);
    expect(quarantineTime).toBe(40_000);
  });
});

/** Sets a pod's phase (and reason) as its kubelet would. */
async function setPhase(
  h: PodGCHarness,
  name: string,
  phase: PodStatus['phase'],
  reason?: string,
): Promise<void> {
  await h.pods.patchStatus(name, {
    type: 'merge',
    body: { status: { phase, ...(reason === undefined ? {} : { reason }) } },
  });
}

/** A pod on `nodeName` (none: unscheduled). */
function podOn(name: string, nodeName?: string, finalizers?: string[]): Pod {
  return {
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      containers: [{ name: 'c', image: 'nginx' }],
    },
  };
}

/** Creates a node whose kubelet reports `ready`. */
async function makeNode(
  h: PodGCHarness,
  name: string,
  ready: 'True' | 'False',
  taints?: Taint[],
): Promise<void> {
  await h.nodes.create({ metadata: { name }, spec: taints ? { taints } : {} });
  await h.nodes.patchStatus(name, {
    type: 'merge',
    body: { status: { conditions: [{ type: 'Ready', status: ready }] } },
  });
}

/** Every change the store made to pods, oldest first. */
function podHistory(h: PodGCHarness): { type: string; pod: Pod }[] {
  const seen: { type: string; pod: Pod }[] = [];
  h.sandbox.registry.storage.subscribe((e) => {
    if (e.storage === 'pods') seen.push({ type: e.type, pod: structuredClone(e.object) as Pod });
  });
  return seen;
}

describe('PodGCController', () => {
  it('keeps the newest terminated pods up to the threshold, evicted ones going first', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const h = await startPodGC({ clock, sandbox, threshold: 3 });
    f = h;
    try {
      await makeNode(h, 'node-a', 'True');
      for (const name of ['p1', 'p2', 'p3', 'p4', 'p5', 'running']) {
        await h.pods.create(podOn(name, 'node-a'));
        await clock.advance(1_000);
      }
      for (const name of ['p1', 'p2', 'p3', 'p4']) await setPhase(h, name, 'Succeeded');
      await setPhase(h, 'p5', 'Failed', 'Evicted');
      await setPhase(h, 'running', 'Running');
      const remaining = async () =>
        (await h.pods.list()).items.map((p) => p.metadata?.name ?? '').sort();
      await h.until(async () => (await remaining()).length === 4, 'two pods collected');
      expect(await remaining()).toEqual(['p2', 'p3', 'p4', 'running']);
      expect(await h.deletingPodsTotal('terminated')).toBe(2);

      // One more finishes: the next pass collects the oldest again.
      await clock.advance(1_000);
      await h.pods.create(podOn('p6', 'node-a'));
      await setPhase(h, 'p6', 'Failed');
      await h.until(async () => (await remaining()).length === 4, 'one more collected');
      expect(await remaining()).toEqual(['p3', 'p4', 'p6', 'running']);
      expect(h.patched()).toEqual([]);
    } finally {
      await h.stop();
      await sandbox.stop();
    }
  });

  it('collects the pods of a node that is gone once the quarantine is over', async () => {
    const h = await startPodGC();
    f = h;
    await makeNode(h, 'node-a', 'True');
    await h.pods.create(podOn('homed', 'node-a'));
    await h.pods.create(podOn('orphan', 'ghost'));
    await setPhase(h, 'orphan', 'Running');
    const history = podHistory(h);
    const start = h.clock.now();
    await h.clock.advance(quarantineTime - 1_000);
    expect(await h.isGone('orphan')).toBe(false);
    await h.until(() => h.isGone('orphan'), 'the orphan gone');
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(quarantineTime);
    expect(h.nodeGets()).toEqual(['ghost']);
    // Marked failed, with the reason, before it went.
    const [modified, deleted] = history.filter((e) => e.pod.metadata?.name === 'orphan');
    expect(modified?.type).toBe('MODIFIED');
    expect(modified?.pod.status?.phase).toBe('Failed');
    expect(
      modified?.pod.status?.conditions?.map(
        (c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`,
      ),
    ).toContain('DisruptionTarget=True DeletionByPodGC: PodGC: node no longer exists');
    expect(deleted?.type).toBe('DELETED');
    expect(await h.isGone('homed')).toBe(false);
    expect(await h.deletingPodsTotal('orphaned')).toBe(1);
  });

  it('force-deletes pods terminating on a node that is out of service', async () => {
    const h = await startPodGC();
    f = h;
    const taint = [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }];
    await makeNode(h, 'down', 'False', taint);
    await makeNode(h, 'unreachable', 'False');
    for (const [name, node] of [
      ['stuck', 'down'],
      ['waiting', 'unreachable'],
      ['alive', 'down'],
    ] as const) {
      await h.pods.create(podOn(name, node));
      await setPhase(h, name, 'Running');
    }
    const history = podHistory(h);
    // Graceful deletions: without kubelets they stay terminating.
    await h.pods.delete('stuck');
    await h.pods.delete('waiting');
    expect((await h.pods.get('stuck')).metadata?.deletionTimestamp).toBeDefined();
    await h.until(() => h.isGone('stuck'), 'the stuck pod gone');
    const stuck = history.filter((e) => e.pod.metadata?.name === 'stuck' && e.type === 'MODIFIED');
    expect(stuck.at(-1)?.pod.status?.phase).toBe('Failed');
    expect(stuck.at(-1)?.pod.status?.conditions ?? []).toEqual([]);
    await h.clock.advance(3 * gcCheckPeriod);
    expect(await h.isGone('waiting')).toBe(false);
    expect(await h.isGone('alive')).toBe(false);
    expect(h.deleted()).toEqual(['stuck']);
    expect(await h.deletingPodsTotal('out-of-service')).toBe(1);
  });

  it('force-deletes terminating pods that were never scheduled', async () => {
    const h = await startPodGC();
    f = h;
    await h.pods.create(podOn('held', undefined, ['example.com/hold']));
    await h.pods.delete('held');
    await h.until(() => h.deleted().includes('held'), 'the force delete');
    expect(h.calls.find((c) => c.call === 'delete pods/held')?.options).toEqual({
      gracePeriodSeconds: 0,
      signal: undefined,
    });
    expect(h.patched()).toEqual(['held']);
    expect((await h.pods.get('held')).status?.phase).toBe('Failed');
    expect(h.logged('Forced deletion of unscheduled terminating Pod succeeded')).toBe(true);
    expect(await h.deletingPodsTotal('unscheduled')).toBeGreaterThanOrEqual(1);
  });

  it('leaves running and pending pods alone, and stops cleanly', async () => {
    const h = await startPodGC({ threshold: 1 });
    f = h;
    await makeNode(h, 'node-a', 'True');
    await h.pods.create(podOn('web', 'node-a'));
    await setPhase(h, 'web', 'Running');
    await h.pods.create(podOn('queued'));
    await h.clock.advance(5 * gcCheckPeriod);
    expect(h.logged('Caches are synced {"controller":"GC"}')).toBe(true);
    expect(h.calls).toEqual([]);
    const clock = h.clock;
    await h.stop();
    expect(h.logged('Shutting down GC controller')).toBe(true);
    // The node queue's, the informers' and the sandbox's timers are all gone.
    expect(clock.waiterCount()).toBe(0);
  });

  it('uses the given periods', async () => {
    const h = await startPodGC({ gcCheckPeriod: 1_000, quarantineTime: 2_000 });
    f = h;
    await h.pods.create(podOn('orphan', 'ghost'));
    const start = h.clock.now();
    await h.until(() => h.isGone('orphan'), 'the orphan gone');
    expect(h.clock.now() - start).toBeLessThan(quarantineTime);
  });
});
