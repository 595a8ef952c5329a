// Ports of update_test.go: TestDaemonSetUpdatesPods,
// TestDaemonSetUpdatesPodsWithMaxSurge,
// TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge,
// TestDaemonSetUpdatesWhenNewPodIsNotReady,
// TestDaemonSetUpdatesSomeOldPodsNotReady, TestDaemonSetUpdatesSaveOldHealthyPods,
// TestDaemonSetUpdatesNoTemplateChanged, TestGetUnavailableNumbers (for
// updatedDesiredNodeCounts), TestControlledHistories; plus OnDelete and the
// surge pruning of podsShouldBeOnNode.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { newControllerRef, noopLogger } from '@kcm-ts/apimachinery';
import { daemonSetKind, nodeShouldRunDaemonPod } from '../src/index.js';
import { updatedDesiredNodeCounts } from '../src/update.js';
import {
  fixture,
  newDaemonSet,
  newNode,
  newPod,
  setNodeTaint,
  simpleDaemonSetLabel,
  type Fixture,
} from './helpers.js';

function world(ds: DaemonSet, nodes: number): Fixture {
  const f = fixture({ world: true });
  f.dsIndexer.add(ds);
  for (let i = 0; i < nodes; i++) f.nodeIndexer.add(newNode(`node-${i}`));
  return f;
}

/** Go's clearExpectations + expectSyncDaemonSets on the world pod control. */
async function step(f: Fixture, ds: DaemonSet, creates: number, deletes: number) {
  f.controller.expectations.deleteExpectations(`default/${ds.metadata!.name}`);
  f.world.created = 0;
  f.world.deleted = 0;
  await f.sync(f.dsIndexer.getByKey(`default/${ds.metadata!.name}`)!);
  expect([f.world.created, f.world.deleted]).toEqual([creates, deletes]);
}

/** Changes the template (and strategy) in the cache, as an update of the DaemonSet. */
function update(f: Fixture, ds: DaemonSet, change: (ds: DaemonSet) => void): DaemonSet {
  const next = structuredClone(f.dsIndexer.getByKey(`default/${ds.metadata!.name}`)!);
  change(next);
  f.dsIndexer.update(next);
  return next;
}

const unavailable = (n: number | string) => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: n },
});
const surge = (n: number | string) => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: 0, maxSurge: n },
});
const image = (name: string) => (ds: DaemonSet) => {
  ds.spec!.template.spec!.containers[0]!.image = name;
};

const readyNames = (f: Fixture) =>
  new Set(
    f.podIndexer
      .list()
      .filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((p) => p.metadata!.name!),
  );

describe('rolling update without surge', () => {
  it('replaces maxUnavailable pods at a time (TestDaemonSetUpdatesPods)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 5);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      image('foo2/bar2')(d);
      d.spec!.updateStrategy = unavailable(2);
    });
    for (const n of [2, 2, 1]) {
      await step(f, ds, 0, n);
      await step(f, ds, n, 0);
      f.world.markReady();
    }
    await step(f, ds, 0, 0);
  });

  it('waits while new pods are not ready (TestDaemonSetUpdatesWhenNewPodIsNotReady)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 5);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      image('foo2/bar2')(d);
      d.spec!.updateStrategy = unavailable(3);
    });
    await step(f, ds, 0, 3);
    await step(f, ds, 3, 0);
    await step(f, ds, 0, 0);
  });

  it('replaces not-ready old pods first and keeps the available ones (TestDaemonSetUpdatesSomeOldPodsNotReady)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 5);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      image('foo2/bar2')(d);
      d.spec!.updateStrategy = unavailable(2);
    });
    await step(f, ds, 0, 2);
    await step(f, ds, 2, 0);
    await step(f, ds, 0, 0);
    // Another update while 2 new pods are not ready: those 2 go, 3 available stay.
    update(f, ds, image('foo2/bar3'));
    await step(f, ds, 0, 2);
    await step(f, ds, 2, 0);
    await step(f, ds, 0, 0);
    expect(readyNames(f).size).toBe(3);
  });

  it('never touches healthy old pods while others are unavailable (TestDaemonSetUpdatesSaveOldHealthyPods)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 20);
    await step(f, ds, 20, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      image('foo2/bar2')(d);
      d.spec!.updateStrategy = unavailable(10);
    });
    await step(f, ds, 0, 10);
    await step(f, ds, 10, 0);
    await step(f, ds, 0, 0);
    const oldReady = readyNames(f);
    for (let i = 0; i < 5; i++) {
      update(f, ds, (d) => {
        image(`foo2/bar3-${i}`)(d);
        d.spec!.updateStrategy = unavailable(i % 10);
      });
      await step(f, ds, 0, 10);
      await step(f, ds, 10, 0);
      await step(f, ds, 0, 0);
      const ready = readyNames(f);
      for (const name of oldReady) expect(ready.has(name)).toBe(true);
    }
  });

  it('does nothing when the template did not change (TestDaemonSetUpdatesNoTemplateChanged)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 5);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      d.spec!.updateStrategy = unavailable(3);
    });
    await step(f, ds, 0, 0);
  });

  it('with OnDelete, leaves old pods until they are deleted, then creates new ones', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.updateStrategy = { type: 'OnDelete' };
    const f = world(ds, 3);
    await step(f, ds, 3, 0);
    f.world.markReady();
    const v2 = update(f, ds, image('foo2/bar2'));
    await step(f, ds, 0, 0);
    const victim = f.podIndexer.list()[0]!;
    f.podIndexer.delete(victim);
    await step(f, ds, 1, 0);
    const hash = f.historyIndexer.list().find((r) => r.revision === 2)!.metadata!.labels![
      'controller-revision-hash'
    ];
    const onNode = f.podIndexer.list().filter((p) => p.spec?.nodeName === victim.spec?.nodeName);
    expect(onNode.map((p) => p.metadata?.labels?.['controller-revision-hash'])).toEqual([hash]);
    expect(f.dsIndexer.getByKey('default/foo')!.status?.updatedNumberScheduled).toBe(1);
    expect(v2.spec?.updateStrategy?.type).toBe('OnDelete');
  });
});

describe('rolling update with maxSurge', () => {
  it('surges maxSurge pods at a time, retiring old ones once new ones are ready (TestDaemonSetUpdatesPodsWithMaxSurge)', async () => {
    const ds = newDaemonSet('foo');
    const f = world(ds, 5);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      image('foo2/bar2')(d);
      d.spec!.updateStrategy = surge(2);
    });
    await step(f, ds, 2, 0);
    await step(f, ds, 0, 0);
    f.world.markReady();
    await step(f, ds, 2, 2);
    await step(f, ds, 0, 0);
    f.world.markReady();
    await step(f, ds, 5 % 2, 2);
    await step(f, ds, 0, 0);
    f.world.markReady();
    await step(f, ds, 0, 5 % 2);
    await step(f, ds, 0, 0);
  });

  it('moves off a node the DaemonSet left only once enough pods are available (TestDaemonSetUpdatesPodsNotMatchTainstWithMaxSurge)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.updateStrategy = surge(1);
    ds.spec!.template.spec!.tolerations = [
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists' },
    ];
    const f = world(ds, 5);
    const node0 = newNode('node-0');
    setNodeTaint(node0, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    f.nodeIndexer.update(node0);
    await step(f, ds, 5, 0);
    f.world.markReady();
    update(f, ds, (d) => {
      d.spec!.template.spec!.tolerations = undefined;
    });
    await step(f, ds, 1, 1);
    await step(f, ds, 0, 0);
    f.world.markReady();
    for (let i = 0; i < 3; i++) {
      await step(f, ds, 1, 1);
      await step(f, ds, 0, 0);
      f.world.markReady();
    }
    await step(f, ds, 0, 1);
    await step(f, ds, 0, 0);
    expect(
      f.podIndexer
        .list()
        .map((p) => p.spec?.nodeName)
        .sort(),
    ).toEqual(['node-1', 'node-2', 'node-3', 'node-4']);
  });

  it('keeps the oldest new and old pod on a node, pruning the rest (podsShouldBeOnNode with surge)', async () => {
    const ds = newDaemonSet('foo');
    ds.spec!.updateStrategy = surge(1);
    const f = world(ds, 1);
    await f.sync(ds);
    const hash = f.historyIndexer.list()[0]!.metadata!.labels!['controller-revision-hash']!;
    for (const p of f.podIndexer.list()) f.podIndexer.delete(p);
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    const pod = (name: string, h: string, s: number, ready: boolean): Pod => {
      const p = newPod(
        name,
        'node-0',
        { ...simpleDaemonSetLabel, 'controller-revision-hash': h },
        undefined,
        at(s),
      );
      return {
        ...p,
        metadata: { ...p.metadata, ownerReferences: [newControllerRef(ds, daemonSetKind)] },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        },
      };
    };
    f.podIndexer.add(pod('old-1', 'old', 1, true));
    f.podIndexer.add(pod('old-2', 'old', 2, true));
    f.podIndexer.add(pod('new-1', hash, 3, false));
    f.podIndexer.add(pod('new-2', hash, 4, false));
    f.world.deleted = 0;
    f.controller.expectations.deleteExpectations('default/foo');
    await f.sync(ds);
    expect(
      f.podIndexer
        .list()
        .map((p) => p.metadata!.name)
        .sort(),
    ).toEqual(['new-1', 'old-1']);
  });
});

describe('updatedDesiredNodeCounts (TestGetUnavailableNumbers)', () => {
  const host = { nodeShouldRunDaemonPod, logger: noopLogger };
  const nodes = (n: number) => Array.from({ length: n }, (_, i) => newNode(`node-${i}`));
  const ready = (name: string, node: string, deleting = false): Pod => {
    const p = newPod(name, node, simpleDaemonSetLabel);
    return deleting
      ? { ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }
      : p;
  };
  it.each<
    [
      string,
      number,
      ReturnType<typeof unavailable>,
      [string, Pod[]][],
      number,
      number,
      number,
      number,
    ]
  >([
    ['No nodes', 0, unavailable(0), [], 0, 0, 0, 0],
    [
      'Two nodes with ready pods',
      2,
      unavailable(1),
      [
        ['node-0', [ready('pod-0', 'node-0')]],
        ['node-1', [ready('pod-1', 'node-1')]],
      ],
      0,
      1,
      2,
      0,
    ],
    [
      'Two nodes, one node without pods',
      2,
      unavailable(0),
      [['node-0', [ready('pod-0', 'node-0')]]],
      0,
      1,
      2,
      1,
    ],
    [
      'Two nodes, one node without pods, surge',
      2,
      surge(0),
      [['node-0', [ready('pod-0', 'node-0')]]],
      0,
      1,
      2,
      1,
    ],
    [
      'Two nodes with pods, MaxUnavailable in percents',
      2,
      unavailable('50%'),
      [
        ['node-0', [ready('pod-0', 'node-0')]],
        ['node-1', [ready('pod-1', 'node-1')]],
      ],
      0,
      1,
      2,
      0,
    ],
    [
      'Two nodes with pods, MaxUnavailable in percents, surge',
      2,
      surge('50%'),
      [
        ['node-0', [ready('pod-0', 'node-0')]],
        ['node-1', [ready('pod-1', 'node-1')]],
      ],
      1,
      0,
      2,
      0,
    ],
    [
      'Two nodes with pods, MaxUnavailable is 100%, surge',
      2,
      surge('100%'),
      [
        ['node-0', [ready('pod-0', 'node-0')]],
        ['node-1', [ready('pod-1', 'node-1')]],
      ],
      2,
      0,
      2,
      0,
    ],
    [
      'Two nodes with pods, MaxUnavailable in percents, pod terminating',
      3,
      unavailable('50%'),
      [
        ['node-0', [ready('pod-0', 'node-0')]],
        ['node-1', [ready('pod-1', 'node-1', true)]],
      ],
      0,
      2,
      3,
      1,
    ],
  ])('%s', (_name, n, strategy, mapping, maxSurge, maxUnavailable, desired, emptyNodes) => {
    const ds = newDaemonSet('x');
    ds.spec!.updateStrategy = strategy;
    const nodeToPods = new Map(mapping);
    expect(updatedDesiredNodeCounts(host, ds, nodes(n), nodeToPods)).toEqual({
      maxSurge,
      maxUnavailable,
      desiredNumberScheduled: desired,
    });
    expect([...nodeToPods.values()].filter((p) => p.length === 0)).toHaveLength(emptyNodes);
  });

  it('refuses an invalid maxUnavailable', () => {
    const ds = newDaemonSet('x');
    ds.spec!.updateStrategy = unavailable('x');
    expect(() => updatedDesiredNodeCounts(host, ds, nodes(1), new Map())).toThrow(
      'invalid value for MaxUnavailable',
    );
  });
});

describe('controlledHistories (TestControlledHistories)', () => {
  const cr = (name: string, namespace: string, owned?: DaemonSet): ControllerRevision => ({
    metadata: {
      name,
      namespace,
      uid: name,
      labels: { ...simpleDaemonSetLabel, 'controller-revision-hash': name },
      ...(owned && { ownerReferences: [newControllerRef(owned, daemonSetKind)] }),
    },
    revision: 1,
  });
  it('adopts orphans of its namespace only', async () => {
    const ds = newDaemonSet('ds1');
    const f = fixture();
    f.dsIndexer.add(ds);
    f.historyIndexer.add(cr('ds1-x1', 'default', ds));
    f.historyIndexer.add(cr('ds1-x2', 'default'));
    f.historyIndexer.add(cr('ds1-x3', 'default-other'));
    await f.sync(ds);
    const owner = (key: string) =>
      f.historyIndexer.getByKey(key)?.metadata?.ownerReferences?.map((r) => r.uid);
    expect(owner('default/ds1-x1')).toEqual([ds.metadata!.uid]);
    expect(owner('default/ds1-x2')).toEqual([ds.metadata!.uid]);
    expect(owner('default-other/ds1-x3')).toBeUndefined();
  });
});
