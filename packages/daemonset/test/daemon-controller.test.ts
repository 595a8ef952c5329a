// Ports of daemon_controller_test.go: TestNodeShouldRunDaemonPod and the
// taint cases (TestTaintedNodeDaemonDoesNotLaunchIntolerantPod,
// TestNoExecuteTaintedDoesEvicitRunningIntolerantPod,
// TestTaintPressureNodeDaemonLaunchPod, ...), the sync tables
// (TestSimpleDaemonSetLaunchesPods, TestDealsWithExistingPods,
// TestSelectorDaemonLaunchesPods, TestNodeAffinityDaemonLaunchesPods,
// TestDaemonKillFailedPods, TestDaemonKillFailedPodsBackoff,
// TestDeleteUnscheduledPodForNotExistingNode, TestNumberReadyStatus,
// TestObservedGeneration, TestSelectingAll...), expectations and slow start,
// the handlers (TestUpdateNode, TestAddPod, TestUpdatePod, TestDeletePod),
// and the revision history of update.go (constructHistory, cleanupHistory,
// dedupCurHistories, getPatch).
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  FakeClock,
  formatTime,
  newControllerRef,
} from '@kcm-ts/apimachinery';
import { computeHash } from '@kcm-ts/controller';
import {
  burstReplicas,
  controllerRevisionHashLabelKey,
  daemonSetKind,
  getPatch,
  nodeShouldRunDaemonPod,
} from '../src/index.js';
import { nodeShouldRunDaemonPodFor } from '../src/daemon-controller.js';
import { getTargetNodeName } from '../src/daemonset-util.js';
import {
  fixture,
  mut,
  newDaemonSet,
  newNode,
  newPod,
  noExecuteTaints,
  noScheduleTaints,
  pinnedNodes,
  setNodeTaint,
  simpleDaemonSetLabel,
  simpleDaemonSetLabel2,
  simpleNodeLabel,
  type Fixture,
  type Writable,
} from './helpers.js';

function addNodes(f: Fixture, start: number, count: number, labels?: Record<string, string>) {
  for (let i = start; i < start + count; i++) f.nodeIndexer.add(newNode(`node-${i}`, labels));
}

function addPods(
  f: Fixture,
  nodeName: string,
  labels: Record<string, string>,
  ds: DaemonSet | undefined,
  n: number,
) {
  for (let i = 0; i < n; i++) {
    f.podIndexer.add(
      newPod(`${nodeName}-${Object.values(labels).join('-')}-${i}`, nodeName, labels, ds),
    );
  }
}

/** Go's `expectSyncDaemonSets`: one sync, then the creations, deletions and events it made. */
async function expectSync(
  f: Fixture,
  ds: DaemonSet,
  creates: number,
  deletes: number,
  events: number,
) {
  await f.sync(ds);
  expect(f.podControl.templates).toHaveLength(creates);
  expect(f.podControl.deletePodName).toHaveLength(deletes);
  expect(f.recorder.events).toHaveLength(events);
  // Every pod created is pinned to a node, owned by the DaemonSet and labelled with the revision.
  for (const [i, t] of f.podControl.templates.entries()) {
    expect(getTargetNodeName({ spec: t.spec! })).toMatch(/./);
    expect(t.metadata?.labels?.[controllerRevisionHashLabelKey]).toMatch(/./);
    expect(f.podControl.controllerRefs[i]).toMatchObject({
      kind: 'DaemonSet',
      name: ds.metadata!.name,
      uid: ds.metadata!.uid,
      controller: true,
    });
  }
}

function clearExpectations(f: Fixture, ds: DaemonSet) {
  f.controller.expectations.deleteExpectations(`${ds.metadata!.namespace}/${ds.metadata!.name}`);
  f.podControl.clear();
  f.recorder.events.length = 0;
}

function withF(ds: DaemonSet, cb?: (f: Fixture) => void): Fixture {
  const f = fixture();
  f.dsIndexer.add(ds);
  cb?.(f);
  return f;
}

const nodeWith = (taints?: Taint[], labels = simpleDaemonSetLabel): Node => {
  const node = newNode('test-node', labels);
  if (taints) setNodeTaint(node, taints);
  return node;
};

describe('nodeShouldRunDaemonPod (TestNodeShouldRunDaemonPod and the taint tests)', () => {
  const ds = (
    spec: Partial<NonNullable<NonNullable<DaemonSet['spec']>['template']['spec']>> = {},
  ) => {
    const d = newDaemonSet('ds');
    d.spec!.template.spec = { ...d.spec!.template.spec!, ...spec };
    return d;
  };
  const affinity = (values: string[]) => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'type', operator: 'In', values }] }],
      },
    },
  });
  const taint = (key: string, effect: string, value?: string): Taint => ({
    key,
    effect,
    ...(value && { value }),
  });
  it.each<[string, DaemonSet, Node, boolean, boolean]>([
    ['ShouldRunDaemonPod', ds(), nodeWith(), true, true],
    ['ErrPodNotMatchHostName', ds({ nodeName: 'other-node' }), nodeWith(), false, false],
    ['template nodeName is the node', ds({ nodeName: 'test-node' }), nodeWith(), true, true],
    [
      'ErrNodeSelectorNotMatch',
      ds({ nodeSelector: simpleDaemonSetLabel2 }),
      nodeWith(),
      false,
      false,
    ],
    ['node selector matches', ds({ nodeSelector: simpleDaemonSetLabel }), nodeWith(), true, true],
    ['ErrPodAffinityNotMatch', ds({ affinity: affinity(['test']) }), nodeWith(), false, false],
    [
      'required node affinity matches',
      ds({ affinity: affinity(['production']) }),
      nodeWith(),
      true,
      true,
    ],
    [
      'unschedulable node (no taint)',
      ds(),
      { ...nodeWith(), spec: { unschedulable: true } },
      true,
      true,
    ],
    [
      'untolerated NoSchedule taint: keep running pods',
      ds(),
      nodeWith(noScheduleTaints),
      false,
      true,
    ],
    ['untolerated NoExecute taint: evict', ds(), nodeWith(noExecuteTaints), false, false],
    [
      'tolerated NoSchedule taint',
      ds({
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'user1', effect: 'NoSchedule' },
        ],
      }),
      nodeWith(noScheduleTaints),
      true,
      true,
    ],
    [
      'toleration for another value',
      ds({
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' },
        ],
      }),
      nodeWith(noScheduleTaints),
      false,
      true,
    ],
    [
      'PreferNoSchedule taint does not matter',
      ds(),
      nodeWith([taint('x', 'PreferNoSchedule')]),
      true,
      true,
    ],
    [
      'not-ready NoExecute is tolerated',
      ds(),
      nodeWith([taint('node.kubernetes.io/not-ready', 'NoExecute')]),
      true,
      true,
    ],
    [
      'unreachable NoExecute is tolerated',
      ds(),
      nodeWith([taint('node.kubernetes.io/unreachable', 'NoExecute')]),
      true,
      true,
    ],
    [
      'not-ready NoSchedule is not',
      ds(),
      nodeWith([taint('node.kubernetes.io/not-ready', 'NoSchedule')]),
      false,
      true,
    ],
    [
      'disk pressure',
      ds(),
      nodeWith([taint('node.kubernetes.io/disk-pressure', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'memory pressure',
      ds(),
      nodeWith([taint('node.kubernetes.io/memory-pressure', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'pid pressure',
      ds(),
      nodeWith([taint('node.kubernetes.io/pid-pressure', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'unschedulable taint',
      ds(),
      nodeWith([taint('node.kubernetes.io/unschedulable', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'network unavailable, pod network',
      ds(),
      nodeWith([taint('node.kubernetes.io/network-unavailable', 'NoSchedule')]),
      false,
      true,
    ],
    [
      'network unavailable, host network',
      ds({ hostNetwork: true }),
      nodeWith([taint('node.kubernetes.io/network-unavailable', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'control plane tolerated by key',
      ds({ tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' }] }),
      nodeWith([taint('node-role.kubernetes.io/control-plane', 'NoSchedule')]),
      true,
      true,
    ],
    [
      'matchFields pins another node',
      ds({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['other'] }] },
              ],
            },
          },
        },
      }),
      nodeWith(),
      false,
      false,
    ],
    [
      'an empty term matches nothing',
      ds({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] },
          },
        },
      }),
      nodeWith(),
      false,
      false,
    ],
  ])('%s', (_name, d, node, shouldRun, shouldContinue) => {
    for (const type of ['RollingUpdate', 'OnDelete']) {
      d.spec!.updateStrategy = {
        type,
        ...(type === 'RollingUpdate' && { rollingUpdate: { maxUnavailable: 1 } }),
      };
      expect(nodeShouldRunDaemonPod(node, d)).toEqual([shouldRun, shouldContinue]);
      // The decisions one sync shares between its walks give the same answers.
      const decide = nodeShouldRunDaemonPodFor(d);
      expect(decide(node)).toEqual([shouldRun, shouldContinue]);
      expect(decide(node)).toEqual([shouldRun, shouldContinue]);
    }
  });

  it('nodeShouldRunDaemonPodFor decides each node object once, and a replaced node afresh', () => {
    const d = newDaemonSet('foo');
    const decide = nodeShouldRunDaemonPodFor(d);
    const node = newNode('node-0');
    expect(decide(node)).toEqual([true, true]);
    // The same object is not decided again (its answer is kept) ...
    setNodeTaint(node, noExecuteTaints);
    expect(decide(node)).toEqual([true, true]);
    // ... while a node the cache replaced is a new object, decided afresh.
    expect(decide({ ...node })).toEqual([false, false]);
    expect(nodeShouldRunDaemonPod(node, d)).toEqual([false, false]);
    // The template's node name is checked before anything else.
    const pinned = newDaemonSet('pinned');
    mut(pinned.spec!.template.spec!).nodeName = 'node-1';
    const decidePinned = nodeShouldRunDaemonPodFor(pinned);
    expect(decidePinned(newNode('node-0'))).toEqual([false, false]);
    expect(decidePinned(newNode('node-1'))).toEqual([true, true]);
  });
});

describe('syncDaemonSet: pods per node', () => {
  it('launches one pod per node, pinned by node affinity (TestSimpleDaemonSetLaunchesPods)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 5));
    await expectSync(f, ds, 5, 0, 0);
    expect(pinnedNodes(f.podControl).sort()).toEqual([
      'node-0',
      'node-1',
      'node-2',
      'node-3',
      'node-4',
    ]);
    const t = f.podControl.templates[0]!;
    expect(t.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        {
          matchFields: [
            { key: 'metadata.name', operator: 'In', values: [pinnedNodes(f.podControl)[0]] },
          ],
        },
      ],
    });
    expect(t.spec?.tolerations).toHaveLength(6);
    expect(t.spec?.nodeName).toBeUndefined();
  });

  it('does nothing without nodes (TestNoNodesDoesNothing)', async () => {
    const ds = newDaemonSet('foo');
    await expectSync(withF(ds), ds, 0, 0, 0);
  });

  it('launches on a node that is not ready (TestNotReadyNodeDaemonDoesLaunchPod)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => {
      const node = newNode('not-ready');
      mut(node).status = { conditions: [{ type: 'Ready', status: 'False' }] };
      setNodeTaint(node, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]);
      f.nodeIndexer.add(node);
    });
    await expectSync(f, ds, 1, 0, 0);
  });

  it('creates on empty nodes and prunes extras, oldest kept (TestDealsWithExistingPods)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => {
      addNodes(f, 0, 5);
      addPods(f, 'node-1', simpleDaemonSetLabel, ds, 1);
      addPods(f, 'node-2', simpleDaemonSetLabel, ds, 2);
      addPods(f, 'node-3', simpleDaemonSetLabel, ds, 5);
      addPods(f, 'node-4', simpleDaemonSetLabel2, ds, 2);
    });
    await expectSync(f, ds, 2, 5, 0);
    expect(f.podControl.deletePodName).not.toContain('node-3-simple-daemon-production-0');
  });

  it('launches only on nodes its selector picks, deleting the others (TestSelectorDaemonDeletesUnselectedPods)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.template.spec!.nodeSelector = simpleNodeLabel;
    const f = withF(ds, (f) => {
      addNodes(f, 0, 5);
      addNodes(f, 5, 5, simpleNodeLabel);
      addPods(f, 'node-0', simpleDaemonSetLabel2, ds, 2);
      addPods(f, 'node-1', simpleDaemonSetLabel, ds, 3);
      addPods(f, 'node-1', simpleDaemonSetLabel2, ds, 1);
      addPods(f, 'node-4', simpleDaemonSetLabel, ds, 1);
    });
    await expectSync(f, ds, 5, 4, 0);
  });

  it('launches where required node affinity matches (TestNodeAffinityDaemonLaunchesPods)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.template.spec!.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'color', operator: 'In', values: ['blue'] }] },
          ],
        },
      },
    };
    const f = withF(ds, (f) => {
      addNodes(f, 0, 4);
      addNodes(f, 4, 3, simpleNodeLabel);
    });
    await expectSync(f, ds, 3, 0, 0);
    // The pinned term replaces the DaemonSet's own required terms.
    expect(
      f.podControl.templates[0]!.spec?.affinity?.nodeAffinity
        ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    ).toHaveLength(1);
  });

  it('respects taints: no launch, no eviction for NoSchedule; eviction for NoExecute', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => {
      const n1 = newNode('tainted');
      setNodeTaint(n1, noScheduleTaints);
      f.nodeIndexer.add(n1);
    });
    await expectSync(f, ds, 0, 0, 0);
    addPods(f, 'tainted', simpleDaemonSetLabel, ds, 1);
    clearExpectations(f, ds);
    await expectSync(f, ds, 0, 0, 0);
    setNodeTaint(f.nodeIndexer.getByKey('tainted')!, noExecuteTaints);
    clearExpectations(f, ds);
    await expectSync(f, ds, 0, 1, 0);
  });

  it('deletes failed pods once per backoff step, with FailedDaemonPod (TestDaemonKillFailedPods, ...Backoff)', async () => {
    const ds = newDaemonSet('foo');
    // Observed already: the backoff key (uid/observedGeneration/node) stays the same.
    mut(ds).status = { observedGeneration: 1 } as Writable<DaemonSet>['status'];
    const f = withF(ds, (f) => addNodes(f, 0, 1));
    const failed = newPod('failed', 'node-0', simpleDaemonSetLabel, ds);
    mut(failed).status = { phase: 'Failed' };
    f.podIndexer.add(failed);
    await expectSync(f, ds, 0, 1, 1);
    expect(f.recorder.events[0]).toBe(
      'Warning FailedDaemonPod Found failed daemon pod default/failed on node node-0, will try to kill it',
    );
    // Within the backoff (1 s): not deleted again, the DaemonSet is requeued after the delay.
    clearExpectations(f, ds);
    await expectSync(f, ds, 0, 0, 0);
    await f.drain();
    await f.clock.advance(1000);
    expect(await f.drain()).toEqual(['default/foo']);
    // Past it: deleted again, and the next delay doubles.
    clearExpectations(f, ds);
    await f.clock.advance(1);
    await expectSync(f, ds, 0, 1, 1);
    expect(f.controller.failedPodsBackoff.get(`${ds.metadata!.uid}/1/node-0`)).toBe(2000);
  });

  it('deletes succeeded pods with SucceededDaemonPod', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 1));
    const done = newPod('done', 'node-0', simpleDaemonSetLabel, ds);
    mut(done).status = { phase: 'Succeeded' };
    f.podIndexer.add(done);
    await expectSync(f, ds, 0, 1, 1);
    expect(f.recorder.events[0]).toMatch(
      /^Normal SucceededDaemonPod Found succeeded daemon pod default\/done/,
    );
  });

  it('adopts an orphan pod its selector matches, and counts it for its node (ControllerRefManager)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 2));
    f.podIndexer.add(newPod('orphan', 'node-0', simpleDaemonSetLabel));
    await expectSync(f, ds, 1, 0, 0);
    expect(pinnedNodes(f.podControl)).toEqual(['node-1']);
    // The fake pod control leaves the cache as it was: each read of the pods adopts again.
    expect(new Set(f.podControl.patches.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(f.podControl.patches[0]).toEqual({
      metadata: {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'foo',
            uid: ds.metadata!.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        uid: f.podIndexer.getByKey('default/orphan')!.metadata!.uid,
      },
    });
  });

  it('deletes unscheduled pods for nodes that are gone (TestDeleteUnscheduledPodForNotExistingNode)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 1));
    addPods(f, 'node-0', simpleDaemonSetLabel, ds, 1);
    const orphaned = newPod('for-gone-node', '', simpleDaemonSetLabel, ds);
    mut(orphaned).spec = {
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-gone'] }] },
            ],
          },
        },
      },
    };
    f.podIndexer.add(orphaned);
    await expectSync(f, ds, 0, 1, 0);
    expect(f.podControl.deletePodName).toEqual(['for-gone-node']);
  });

  it('warns about a selector that selects everything and does nothing else', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.selector = {};
    const f = withF(ds, (f) => addNodes(f, 0, 2));
    await expectSync(f, ds, 0, 0, 1);
    expect(f.recorder.events[0]).toBe(
      'Warning SelectingAll This daemon set is selecting all pods. A non-empty selector is required.',
    );
  });

  it('leaves a DaemonSet being deleted alone', async () => {
    const ds = newDaemonSet('foo');
    mut(ds.metadata!).deletionTimestamp = '2026-01-01T00:00:00Z';
    const f = withF(ds, (f) => addNodes(f, 0, 2));
    await expectSync(f, ds, 0, 0, 0);
    expect(f.dsLog.statusUpdates).toHaveLength(0);
    expect(f.historyLog.creates).toHaveLength(0);
  });

  it('drops the expectations of a DaemonSet gone from the cache', async () => {
    const f = fixture();
    f.controller.expectations.expectCreations('default/gone', 3);
    await f.controller.syncDaemonSet('default/gone');
    expect(f.controller.expectations.getExpectations('default/gone')).toBeUndefined();
  });
});

describe('syncDaemonSet: expectations, bursts and slow start', () => {
  it('creates no more until its creations are seen, but writes status', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 3));
    await expectSync(f, ds, 3, 0, 0);
    f.podControl.clear();
    const v2 = {
      ...f.dsIndexer.getByKey('default/foo')!,
      metadata: { ...ds.metadata, generation: 2 },
    };
    f.dsIndexer.update(v2);
    await expectSync(f, v2, 0, 0, 0);
    // Status only: the new generation was not acted on.
    expect(f.dsLog.statusUpdates.at(-1)?.status).toMatchObject({
      desiredNumberScheduled: 3,
      observedGeneration: 1,
    });
  });

  it(`creates at most burstReplicas (${burstReplicas}) pods per sync`, async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, burstReplicas + 50));
    await expectSync(f, ds, burstReplicas, 0, 0);
  });

  it('stops after a failing slow-start batch and lowers the expectations for the pods never tried', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 100));
    f.podControl.createLimit = 10;
    await expect(f.sync(ds)).rejects.toThrow('not creating pod, limit 10 already reached');
    // Batches of 1, 2, 4, 8: 15 calls, 10 made, 5 failed; 85 never tried.
    expect(f.podControl.createCallCount).toBe(15);
    expect(f.podControl.templates).toHaveLength(10);
    expect(f.controller.expectations.getExpectations('default/foo')?.getExpectations()).toEqual([
      10, 0,
    ]);
  });
});

describe('syncDaemonSet: status', () => {
  it('counts ready, available, updated and misscheduled pods; observes the generation', async () => {
    const clock = new FakeClock();
    const f = fixture({ clock });
    const ds = newDaemonSet('foo');
    ds.spec!.template.spec!.nodeSelector = simpleNodeLabel;
    mut(ds.metadata!).generation = 3;
    f.dsIndexer.add(ds);
    addNodes(f, 0, 2, simpleNodeLabel);
    addNodes(f, 2, 1);
    await f.sync(ds); // the revision, and 2 creations (on the fake pod control)
    const hash = f.historyIndexer.list()[0]!.metadata!.labels![controllerRevisionHashLabelKey]!;
    clearExpectations(f, ds);
    const ready = newPod(
      'ready',
      'node-0',
      { ...simpleDaemonSetLabel, [controllerRevisionHashLabelKey]: hash },
      ds,
    );
    const notReady = newPod('not-ready', 'node-1', simpleDaemonSetLabel, ds);
    mut(notReady).status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
    notReady.metadata!.labels![controllerRevisionHashLabelKey] = 'an-old-revision';
    f.podIndexer.add(ready);
    f.podIndexer.add(notReady);
    addPods(f, 'node-2', simpleDaemonSetLabel, ds, 1);
    await expectSync(f, ds, 0, 1, 0);
    expect(f.dsLog.statusUpdates.at(-1)?.status).toEqual({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 1,
      numberReady: 1,
      updatedNumberScheduled: 1,
      numberAvailable: 1,
      numberUnavailable: 1,
      observedGeneration: 3,
    });
  });

  it('resyncs after minReadySeconds while ready pods are not available yet', async () => {
    const clock = new FakeClock();
    const f = fixture({ clock });
    const ds = newDaemonSet('foo');
    ds.spec!.minReadySeconds = 10;
    f.dsIndexer.add(ds);
    addNodes(f, 0, 1);
    const pod = newPod('p', 'node-0', simpleDaemonSetLabel, ds);
    mut(pod).status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()) }],
    };
    f.podIndexer.add(pod);
    await f.sync(ds);
    expect(f.dsLog.statusUpdates.at(-1)?.status).toMatchObject({
      numberReady: 1,
      numberAvailable: 0,
    });
    await f.drain();
    await clock.advance(10_000);
    expect(await f.drain()).toEqual(['default/foo']);
  });
});

describe('event handlers', () => {
  it('observes creations and deletions of owned pods, and wakes the DaemonSets of orphans', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    f.controller.expectations.setExpectations('default/foo', 1, 1);
    f.controller.addPod(newPod('p', 'node-0', simpleDaemonSetLabel, ds));
    f.controller.deletePod(newPod('q', 'node-0', simpleDaemonSetLabel, ds));
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    expect(await f.drain()).toEqual(['default/foo']);
    f.controller.addPod(newPod('orphan', 'node-0', simpleDaemonSetLabel));
    expect(await f.drain()).toEqual(['default/foo']);
    f.controller.addPod(newPod('other', 'node-0', { app: 'x' }));
    expect(await f.drain()).toEqual([]);
  });

  it('requeues a pod turned ready after minReadySeconds + 1 s (TestUpdatePod)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.minReadySeconds = 5;
    const f = withF(ds);
    const old = newPod('p', 'node-0', simpleDaemonSetLabel, ds);
    mut(old).status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
    const cur = {
      ...newPod('p', 'node-0', simpleDaemonSetLabel, ds),
      metadata: { ...old.metadata, resourceVersion: '2' },
    };
    f.controller.updatePod(old, cur);
    expect(await f.drain()).toEqual(['default/foo']);
    await f.clock.advance(5999);
    expect(await f.drain()).toEqual([]);
    await f.clock.advance(1);
    expect(await f.drain()).toEqual(['default/foo']);
  });

  it('wakes DaemonSets on node changes that matter only (TestUpdateNode)', async () => {
    const ds = newDaemonSet('ds');
    ds.spec!.template.spec!.nodeSelector = simpleNodeLabel;
    const f = withF(ds);
    const old = newNode('node1');
    f.controller.updateNode(old, {
      ...newNode('node1'),
      metadata: { ...old.metadata, resourceVersion: '2' },
    });
    expect(await f.drain()).toEqual([]);
    f.controller.updateNode(old, newNode('node1', simpleNodeLabel));
    expect(await f.drain()).toEqual(['default/ds']);
    // Heartbeats alone change nothing.
    const beat = newNode('node1');
    beat.status!.conditions = [
      { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:01:00Z' },
    ];
    f.controller.updateNode(old, beat);
    expect(await f.drain()).toEqual([]);
    // Taints: only DaemonSets whose verdict changes.
    const plain = newDaemonSet('plain');
    f.dsIndexer.add(plain);
    const tainted = newNode('node1');
    setNodeTaint(tainted, noScheduleTaints);
    f.controller.updateNode(newNode('node1'), tainted);
    expect(await f.drain()).toEqual(['default/plain']);
    f.controller.addNode(newNode('node2'));
    expect(await f.drain()).toEqual(['default/plain']);
  });

  it('treats a DaemonSet re-created under its name as deleted first', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    f.controller.expectations.expectCreations('default/foo', 2);
    f.controller.updateDaemonset(ds, { ...ds, metadata: { ...ds.metadata, uid: 'new-uid' } });
    expect(f.controller.expectations.getExpectations('default/foo')).toBeUndefined();
    expect(await f.drain()).toEqual(['default/foo']);
  });

  it('wakes the owner of a revision, and the DaemonSets selecting an orphan revision', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    const owned = {
      metadata: {
        name: 'foo-1',
        namespace: 'default',
        labels: simpleDaemonSetLabel,
        ownerReferences: [newControllerRef(ds, daemonSetKind)],
      },
      revision: 1,
    };
    f.controller.deleteHistory(owned);
    expect(await f.drain()).toEqual(['default/foo']);
    f.controller.addHistory({
      metadata: { name: 'orphan', namespace: 'default', labels: simpleDaemonSetLabel },
      revision: 1,
    });
    expect(await f.drain()).toEqual(['default/foo']);
  });
});

describe('run', () => {
  it('refuses a bad worker count, and stops at once when aborted before the caches sync', async () => {
    const f = fixture();
    await expect(f.controller.run(-1, new AbortController().signal)).rejects.toThrow(RangeError);
    const abort = new AbortController();
    const running = f.controller.run(2, abort.signal);
    abort.abort();
    await running;
    expect(f.controller.queue.shuttingDown()).toBe(true);
    await expect(f.controller.run(1, new AbortController().signal)).rejects.toThrow(
      'this controller has stopped',
    );
    expect(f.clock.hasWaiters()).toBe(false);
  });

  it('observes a deletion from a tombstone', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    f.controller.expectations.expectDeletions('default/foo', 1);
    const pod = newPod('p', 'node-0', simpleDaemonSetLabel, ds);
    f.controller.deletePod(new DeletedFinalStateUnknown('default/p', pod));
    expect(f.controller.expectations.satisfiedExpectations('default/foo')).toBe(true);
    expect(await f.drain()).toEqual(['default/foo']);
  });
});

describe('revision history', () => {
  it('records the template as revision 1 named <ds>-<hash>, labelling pods with the hash', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds, (f) => addNodes(f, 0, 1));
    await f.sync(ds);
    const [cr] = f.historyIndexer.list();
    const hash = computeHash(ds.spec!.template);
    expect(cr).toMatchObject({
      metadata: {
        name: `foo-${hash}`,
        labels: { ...simpleDaemonSetLabel, [controllerRevisionHashLabelKey]: hash },
        ownerReferences: [{ kind: 'DaemonSet', name: 'foo', controller: true }],
      },
      revision: 1,
      data: getPatch(ds),
    });
    expect(
      (cr!.data as { spec: { template: Record<string, unknown> } }).spec.template['$patch'],
    ).toBe('replace');
    expect(f.podControl.templates[0]!.metadata?.labels?.[controllerRevisionHashLabelKey]).toBe(
      hash,
    );
  });

  it('numbers a new template 2, and an old template brought back 3 (rollout undo)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    await f.sync(ds);
    const first = f.historyIndexer.list()[0]!;
    const v2 = structuredClone(ds);
    v2.spec!.template.spec!.containers[0]!.image = 'foo/bar:2';
    f.dsIndexer.update(v2);
    await f.sync(v2);
    expect(
      f.historyIndexer
        .list()
        .map((r) => r.revision)
        .sort(),
    ).toEqual([1, 2]);
    // Undo: the DaemonSet gets the patch of revision 1 applied.
    f.dsIndexer.update(ds);
    await f.sync(ds);
    const back = f.historyIndexer.getByKey(`default/${first.metadata!.name}`)!;
    expect(back.revision).toBe(3);
    expect(f.historyIndexer.list()).toHaveLength(2);
  });

  it('keeps revisionHistoryLimit old revisions, never one a pod still runs (cleanupHistory)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.revisionHistoryLimit = 1;
    const f = withF(ds, (f) => addNodes(f, 0, 1));
    let cur = ds;
    for (const image of ['a', 'b', 'c', 'd', 'e']) {
      cur = structuredClone(cur);
      cur.spec!.template.spec!.containers[0]!.image = image;
      f.dsIndexer.update(cur);
      clearExpectations(f, cur);
      await f.sync(cur);
      if (image === 'a') {
        // A pod of revision 1 keeps running on node-0.
        const hash = f.historyLog.creates[0]!.metadata!.labels![controllerRevisionHashLabelKey]!;
        f.podIndexer.add(
          newPod('old', 'node-0', {
            ...simpleDaemonSetLabel,
            [controllerRevisionHashLabelKey]: hash,
          }),
        );
      }
    }
    const left = f.historyIndexer
      .list()
      .map((r) => r.revision)
      .sort((a, b) => a - b);
    // The current (5), and revision 1, live; the limit left no room for 2 to 4.
    expect(left).toEqual([1, 5]);
  });

  it('merges duplicate current revisions into the newest, relabelling pods (dedupCurHistories)', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    const ref = newControllerRef(ds, daemonSetKind);
    const dup = (name: string, revision: number): ControllerRevision => ({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name,
        namespace: 'default',
        uid: name,
        labels: { ...simpleDaemonSetLabel, [controllerRevisionHashLabelKey]: name },
        ownerReferences: [ref],
      },
      data: getPatch(ds),
      revision,
    });
    f.historyIndexer.add(dup('foo-a', 1));
    f.historyIndexer.add(dup('foo-b', 4));
    f.podIndexer.add(
      newPod(
        'p',
        'node-0',
        { ...simpleDaemonSetLabel, [controllerRevisionHashLabelKey]: 'foo-a' },
        ds,
      ),
    );
    await f.sync(ds);
    expect(f.historyIndexer.list().map((r) => r.metadata!.name)).toEqual(['foo-b']);
    expect(
      f.podIndexer.getByKey('default/p')!.metadata!.labels![controllerRevisionHashLabelKey],
    ).toBe('foo-b');
  });

  it('gives a revision without the hash label its name as the label', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    f.historyIndexer.add({
      metadata: {
        name: 'foo-legacy',
        namespace: 'default',
        uid: 'l',
        labels: { ...simpleDaemonSetLabel },
        ownerReferences: [newControllerRef(ds, daemonSetKind)],
      },
      data: getPatch(ds),
      revision: 1,
    });
    await f.sync(ds);
    const cr = f.historyIndexer.getByKey('default/foo-legacy')!;
    expect(cr.metadata!.labels![controllerRevisionHashLabelKey]).toBe('foo-legacy');
    expect(f.historyIndexer.list()).toHaveLength(1);
  });

  it('bumps collisionCount when another template holds its revision name', async () => {
    const ds = newDaemonSet('foo');
    const f = withF(ds);
    const hash = computeHash(ds.spec!.template);
    const other = structuredClone(ds);
    other.spec!.template.spec!.containers[0]!.image = 'other';
    f.historyIndexer.add({
      metadata: {
        name: `foo-${hash}`,
        namespace: 'default',
        uid: 'x',
        labels: { app: 'unrelated' },
      },
      data: getPatch(other),
      revision: 1,
    });
    await expect(f.sync(ds)).rejects.toThrow(/already exists/);
    const updated = f.dsIndexer.getByKey('default/foo')!;
    expect(updated.status?.collisionCount).toBe(1);
    await f.sync(updated);
    const mine = f.historyIndexer
      .list()
      .find((r) => r.metadata!.name === `foo-${computeHash(ds.spec!.template, 1)}`);
    expect(mine?.revision).toBe(1);
  });
});
