// The disruption controller (disruption.go) against caches filled by hand,
// as Go's disruption_test.go fills the informer stores, with a recording
// client that stands for the API server: TestNoSelector, TestUnavailable,
// TestIntegerMaxUnavailable, TestIntegerMaxUnavailableWithScaling,
// TestPercentageMaxUnavailableWithScaling, TestReplicaSet,
// TestMultipleController, TestReplicationController,
// TestStatefulSetController, TestTwoControllers, TestPDBNotExist,
// TestUpdateDisruptedPods, TestInvalidSelectors, TestStalePodDisruption,
// the finders (TestBasicFinderFunctions, TestDeploymentFinderFunction), the
// fail-safe and the conflict rule of sync; then the controller running
// against a sandbox on a fake clock.
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodCondition, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeClock,
  FakeRecorder,
  formatTime,
  newConflict,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory, type Store } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import {
  DisruptionController,
  countHealthyPods,
  deletionTimeout,
  stalePodDisruptionTimeout,
} from '../../src/disruption/disruption.js';
import { formatLabelSelector } from '../../src/disruption/pdb-helpers.js';
import { sandboxSource, until } from '../garbagecollector/helpers.js';
import { FakeClient } from './fake-client.js';

const start = Date.UTC(2026, 0, 1);
const ns = 'default';
const selector = { matchLabels: { foo: 'bar' } };

function fixture(opts: { writeBack?: boolean } = {}) {
  const clock = new FakeClock(start);
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client, 0, { clock });
  const recorder = new FakeRecorder();
  const informers = {
    pods: factory.pods(),
    pdbs: factory.podDisruptionBudgets(),
    rcs: factory.replicationControllers(),
    rss: factory.replicaSets(),
    ds: factory.deployments(),
    sss: factory.statefulSets(),
  };
  const dc = new DisruptionController({
    client,
    podInformer: informers.pods,
    pdbInformer: informers.pdbs,
    replicationControllerInformer: informers.rcs,
    replicaSetInformer: informers.rss,
    deploymentInformer: informers.ds,
    statefulSetInformer: informers.sss,
    recorder,
    clock,
  });
  const store = <T extends KubeObject>(i: { informer(): { getStore(): Store<T> } }) =>
    i.informer().getStore();
  const pdbStore = store<PodDisruptionBudget>(informers.pdbs);
  if (opts.writeBack) client.caches.set('poddisruptionbudgets', pdbStore);
  return {
    clock,
    client,
    recorder,
    dc,
    pdbStore,
    podStore: store<Pod>(informers.pods),
    rcStore: store<ReplicationController>(informers.rcs),
    rsStore: store<ReplicaSet>(informers.rss),
    dStore: store<Deployment>(informers.ds),
    ssStore: store<StatefulSet>(informers.sss),
    /** The last status the controller wrote for the PDB. */
    status(name = 'foobar') {
      const writes = client
        .writes<PodDisruptionBudget>('updateStatus', 'poddisruptionbudgets')
        .filter((p) => p.metadata?.name === name);
      return writes.at(-1)?.status;
    },
    /** Go's `VerifyPdbStatus`: allowed, current, desired, expected, disrupted. */
    verify(
      disruptionsAllowed: number,
      currentHealthy: number,
      desiredHealthy: number,
      expectedPods: number,
      disruptedPods: Record<string, string> = {},
    ) {
      const s = this.status();
      expect(s).toBeDefined();
      expect({
        disruptionsAllowed: s!.disruptionsAllowed,
        currentHealthy: s!.currentHealthy,
        desiredHealthy: s!.desiredHealthy,
        expectedPods: s!.expectedPods,
        disruptedPods: s!.disruptedPods ?? {},
      }).toEqual({
        disruptionsAllowed,
        currentHealthy,
        desiredHealthy,
        expectedPods,
        disruptedPods,
      });
    },
  };
}

/** Go's `newPod`: a ready pod labelled foo=bar. */
function newPod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, uid: `uid-${name}`, labels: { foo: 'bar' } },
    spec: { containers: [] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function pdbWith(spec: Partial<NonNullable<PodDisruptionBudget['spec']>>): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'foobar', namespace: ns, uid: 'pdb-uid', resourceVersion: '18' },
    spec: { selector, ...spec },
  };
}

const owned = (pod: Pod, apiVersion: string, kind: string, owner: KubeObject): Pod => ({
  ...pod,
  metadata: {
    ...pod.metadata,
    ownerReferences: [
      {
        apiVersion,
        kind,
        name: owner.metadata?.name ?? '',
        uid: owner.metadata?.uid ?? '',
        controller: true,
      },
    ],
  },
});

const newRC = (name: string, replicas: number): ReplicationController => ({
  metadata: { name, namespace: ns, uid: `uid-${name}` },
  spec: { replicas, selector: { foo: 'bar' } },
});
const newRS = (name: string, replicas: number): ReplicaSet => ({
  metadata: { name, namespace: ns, uid: `uid-${name}` },
  spec: { replicas, selector },
});
const newSS = (name: string, replicas: number): StatefulSet => ({
  metadata: { name, namespace: ns, uid: `uid-${name}` },
  spec: { replicas, selector, serviceName: name, template: {} },
});
const newDeployment = (name: string, replicas: number): Deployment => ({
  metadata: { name, namespace: ns, uid: `uid-${name}` },
  spec: { replicas, selector, template: {} },
});
const key = 'default/foobar';

describe('the PDB status (disruption_test.go)', () => {
  it('an empty selector matches every pod (TestNoSelector)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 3, selector: {} }));
    await f.dc.sync(key);
    f.verify(0, 0, 3, 0);
    f.podStore.add({
      ...newPod('yo-yo-yo'),
      metadata: { ...newPod('yo-yo-yo').metadata, labels: {} },
    });
    await f.dc.sync(key);
    f.verify(0, 1, 3, 1);
  });

  it('counts pods as they come and an unready one as unhealthy (TestUnavailable)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 3 }));
    await f.dc.sync(key);
    const pods: Pod[] = [];
    for (let i = 0; i < 4; i++) {
      f.verify(0, i, 3, i);
      const pod = newPod(`yo-yo-yo ${i}`);
      pods.push(pod);
      f.podStore.add(pod);
      await f.dc.sync(key);
    }
    f.verify(1, 4, 3, 4);
    f.podStore.update({ ...pods[0]!, status: { conditions: [] } });
    await f.dc.sync(key);
    f.verify(0, 3, 3, 4);
  });

  it('allows nothing with no pods, and reports unmanaged ones (TestIntegerMaxUnavailable)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ maxUnavailable: 1 }));
    await f.dc.sync(key);
    expect(f.status()?.disruptionsAllowed).toBe(0);
    f.podStore.add(newPod('naked'));
    await f.dc.sync(key);
    expect(f.status()?.disruptionsAllowed).toBe(0);
    expect(f.recorder.events.some((e) => e.startsWith('Warning UnmanagedPods '))).toBe(true);
    expect(f.recorder.events).toContain(
      'Warning UnmanagedPods Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{foo: bar,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
    );
  });

  it('follows the ReplicaSet scale with an integer maxUnavailable (TestIntegerMaxUnavailableWithScaling)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ maxUnavailable: 2 }));
    const rs = newRS('rs', 7);
    f.rsStore.add(rs);
    f.podStore.add(owned(newPod('pod'), 'apps/v1', 'ReplicaSet', rs));
    await f.dc.sync(key);
    f.verify(0, 1, 5, 7);
    f.rsStore.update(newRS('rs', 5));
    await f.dc.sync(key);
    f.verify(0, 1, 3, 5);
  });

  it('rounds a percentage maxUnavailable up (TestPercentageMaxUnavailableWithScaling)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ maxUnavailable: '30%' }));
    const rs = newRS('rs', 7);
    f.rsStore.add(rs);
    f.podStore.add(owned(newPod('pod'), 'apps/v1', 'ReplicaSet', rs));
    await f.dc.sync(key);
    f.verify(0, 1, 4, 7);
    f.rsStore.update(newRS('rs', 1));
    await f.dc.sync(key);
    f.verify(1, 1, 0, 1);
  });

  it('takes the ReplicaSet scale for a percentage minAvailable (TestReplicaSet)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '20%' }));
    const rs = newRS('rs', 10);
    f.rsStore.add(rs);
    f.podStore.add(owned(newPod('pod'), 'apps/v1', 'ReplicaSet', rs));
    await f.dc.sync(key);
    f.verify(0, 1, 2, 10);
  });

  it('counts the pods of one controller once (TestMultipleController)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '1%' }));
    for (let i = 0; i < 2; i++) f.podStore.add(newPod(`pod ${i}`));
    await f.dc.sync(key);
    // No controllers: nothing expected, nothing allowed.
    expect(f.status()?.disruptionsAllowed).toBe(0);
    const rc = newRC('rc 1', 1);
    f.rcStore.add(rc);
    for (let i = 0; i < 2; i++)
      f.podStore.update(owned(newPod(`pod ${i}`), 'v1', 'ReplicationController', rc));
    await f.dc.sync(key);
    f.verify(1, 2, 1, 1);
  });

  it('counts a ReplicationController and a rogue pod (TestReplicationController)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '34%' }));
    const rc = newRC('foobar', 3);
    f.rcStore.add(rc);
    for (let i = 0; i < 3; i++) {
      f.podStore.add(owned(newPod(`foobar ${i}`), 'v1', 'ReplicationController', rc));
      await f.dc.sync(key);
      if (i < 2) f.verify(0, i + 1, 2, 3);
      else f.verify(1, 3, 2, 3);
    }
    f.podStore.add(newPod('rogue'));
    await f.dc.sync(key);
    expect(f.status()?.disruptionsAllowed).toBe(2);
  });

  it('counts a StatefulSet (TestStatefulSetController)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '34%' }));
    const ss = newSS('foobar', 3);
    f.ssStore.add(ss);
    for (let i = 0; i < 3; i++) {
      f.podStore.add(owned(newPod(`foobar ${i}`), 'apps/v1', 'StatefulSet', ss));
      await f.dc.sync(key);
      if (i < 2) f.verify(0, i + 1, 2, 3);
      else f.verify(1, 3, 2, 3);
    }
  });

  it('adds up a ReplicationController and a Deployment through its ReplicaSet (TestTwoControllers)', async () => {
    const f = fixture();
    // 28% of 22 expected pods, rounded up, is 7.
    f.pdbStore.add(pdbWith({ minAvailable: '28%' }));
    const rc = newRC('rc', 11);
    const d = newDeployment('d', 11);
    const rs: ReplicaSet = {
      ...newRS('d-1234', 11),
      metadata: {
        ...newRS('d-1234', 11).metadata,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'uid-d', controller: true },
        ],
      },
    };
    f.rcStore.add(rc);
    f.dStore.add(d);
    f.rsStore.add(rs);
    for (let i = 0; i < 11; i++) {
      f.podStore.add(owned(newPod(`rc-${i}`), 'v1', 'ReplicationController', rc));
      f.podStore.add(owned(newPod(`d-${i}`), 'apps/v1', 'ReplicaSet', rs));
    }
    await f.dc.sync(key);
    f.verify(15, 22, 7, 22);
    // A ReplicaSet whose Deployment is gone counts for nothing: no controller found.
    f.dStore.delete(d);
    await f.dc.sync(key);
    expect(f.status()?.conditions?.[0]).toMatchObject({
      type: 'DisruptionAllowed',
      status: 'False',
      reason: 'SyncFailed',
      message: 'found no controllers for pod "d-0"',
    });
    expect(f.recorder.events).toContain(
      'Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: found no controllers for pod "d-0"',
    );
  });

  it('does nothing for a PDB that is gone (TestPDBNotExist)', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 3 }));
    await f.dc.sync('default/notExist');
    expect(f.client.actions).toEqual([]);
  });

  it('keeps only the disrupted pods still awaited (TestUpdateDisruptedPods)', async () => {
    const f = fixture();
    const now = f.clock.now();
    const pdb = pdbWith({ minAvailable: 1 });
    f.pdbStore.add({
      ...pdb,
      status: {
        currentHealthy: 0,
        desiredHealthy: 0,
        expectedPods: 0,
        disruptionsAllowed: 0,
        disruptedPods: {
          p1: formatTime(now), // its deletion has begun: dropped
          p2: formatTime(now - 3 * 60_000), // expired: dropped, with an event
          p3: formatTime(now - 60_000), // awaited: kept
          notthere: formatTime(now), // gone: dropped
        },
      },
    });
    f.podStore.add({
      ...newPod('p1'),
      metadata: { ...newPod('p1').metadata, deletionTimestamp: formatTime(now) },
    });
    f.podStore.add(newPod('p2'));
    f.podStore.add(newPod('p3'));
    await f.dc.sync(key);
    f.verify(0, 1, 1, 3, { p3: formatTime(now - 60_000) });
    expect(f.recorder.events).toContain(
      "Warning NotDeleted Pod was expected by PDB default/default to be deleted but it wasn't",
    );
  });

  it('counts an awaited pod again once its disruption times out', async () => {
    const f = fixture({ writeBack: true });
    const now = f.clock.now();
    f.pdbStore.add({
      ...pdbWith({ minAvailable: 1 }),
      status: {
        currentHealthy: 0,
        desiredHealthy: 0,
        expectedPods: 0,
        disruptionsAllowed: 0,
        disruptedPods: { p1: formatTime(now) },
      },
    });
    f.podStore.add(newPod('p1'));
    f.podStore.add(newPod('p2'));
    await f.dc.sync(key);
    f.verify(0, 1, 1, 2, { p1: formatTime(now) });
    f.clock.setTime(now + deletionTimeout + 1_000);
    await f.dc.sync(key);
    f.verify(1, 2, 1, 2);
  });

  it.each([
    ['illegal value key', { matchLabels: { 'k8s.io/too/many/slashes': 'value' } }],
    [
      'illegal operator',
      { matchExpressions: [{ key: 'foo', operator: 'illegal', values: ['bar'] }] },
    ],
  ])('fails safe on an invalid selector: %s (TestInvalidSelectors)', async (_name, sel) => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 3, selector: sel }));
    f.podStore.add(newPod('pod'));
    await f.dc.sync(key);
    f.verify(0, 0, 0, 0);
    expect(f.status()?.conditions?.[0]).toMatchObject({
      type: 'DisruptionAllowed',
      status: 'False',
      reason: 'SyncFailed',
    });
    expect(f.recorder.events.some((e) => e.startsWith('Warning NoPods Failed to get pods: '))).toBe(
      true,
    );
  });

  it('sets the DisruptionAllowed condition and observedGeneration, and writes nothing when up to date', async () => {
    const f = fixture({ writeBack: true });
    const pdb = pdbWith({ minAvailable: 1 });
    f.pdbStore.add({ ...pdb, metadata: { ...pdb.metadata, generation: 3 } });
    f.podStore.add(newPod('a'));
    f.podStore.add(newPod('b'));
    await f.dc.sync(key);
    expect(f.status()).toMatchObject({
      observedGeneration: 3,
      disruptionsAllowed: 1,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'True',
          reason: 'SufficientPods',
          message: '',
          observedGeneration: 3,
          lastTransitionTime: formatTime(start),
        },
      ],
    });
    const writes = f.client.actions.length;
    await f.dc.sync(key);
    expect(f.client.actions.length).toBe(writes);
    f.podStore.delete(newPod('b'));
    f.clock.step(5_000);
    await f.dc.sync(key);
    expect(f.status()?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'InsufficientPods',
      lastTransitionTime: formatTime(start + 5_000),
    });
  });

  it('says so when no pods match', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 1 }));
    await f.dc.sync(key);
    expect(f.recorder.events).toContain('Normal NoPods No matching pods found');
  });

  it('retries a conflict as it is, without the fail-safe write', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 1 }));
    f.client.fail(
      'updateStatus',
      'poddisruptionbudgets',
      newConflict({ group: 'policy', resource: 'poddisruptionbudgets' }, 'foobar', new Error('x')),
    );
    await expect(f.dc.sync(key)).rejects.toThrow(/conflict|modified|Operation cannot/i);
    expect(f.client.actions.filter((a) => a.verb === 'updateStatus')).toHaveLength(1);
  });

  it('falls back to the fail-safe write when the status write fails otherwise', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: 1 }));
    f.client.fail('updateStatus', 'poddisruptionbudgets', new Error('etcd is sad'));
    await f.dc.sync(key);
    expect(f.status()?.conditions?.[0]).toMatchObject({
      reason: 'SyncFailed',
      message: 'etcd is sad',
    });
  });
});

describe('the finders (TestBasicFinderFunctions, TestDeploymentFinderFunction)', () => {
  it.each([
    ['apps/v1', 'ReplicaSet', true],
    ['extensions/v1beta1', 'ReplicaSet', true],
    ['apps/v1', 'Deployment', false],
    ['v1', 'ReplicaSet', false],
    ['apps/v1', 'ReplicationController', false],
  ])('a pod owned by %s %s finds the ReplicaSet: %s', async (apiVersion, kind, found) => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '50%' }));
    const rs = newRS('rs', 4);
    f.rsStore.add(rs);
    f.podStore.add(owned(newPod('pod'), apiVersion, kind, rs));
    await f.dc.sync(key);
    if (found) f.verify(0, 1, 2, 4);
    else expect(f.status()?.conditions?.[0]?.reason).toBe('SyncFailed');
  });

  it('does not count a ReplicaSet whose uid differs from the reference', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '50%' }));
    f.rsStore.add({ ...newRS('rs', 4), metadata: { ...newRS('rs', 4).metadata, uid: 'other' } });
    f.podStore.add(owned(newPod('pod'), 'apps/v1', 'ReplicaSet', newRS('rs', 4)));
    await f.dc.sync(key);
    expect(f.status()?.conditions?.[0]?.message).toBe('found no controllers for pod "pod"');
  });

  it('fails on an ownerReference whose apiVersion does not parse', async () => {
    const f = fixture();
    f.pdbStore.add(pdbWith({ minAvailable: '50%' }));
    f.podStore.add(owned(newPod('pod'), 'a/b/c', 'ReplicaSet', newRS('rs', 4)));
    await f.dc.sync(key);
    expect(f.status()?.conditions?.[0]?.message).toBe('unexpected GroupVersion string: a/b/c');
  });
});

describe('stale DisruptionTarget conditions (TestStalePodDisruption)', () => {
  const disruption = (extra: Partial<PodCondition> = {}): PodCondition => ({
    type: 'DisruptionTarget',
    status: 'True',
    lastTransitionTime: formatTime(start),
    ...extra,
  });
  const cases: {
    name: string;
    pod: (p: Pod) => Pod;
    timePassed: number;
    wantConditions?: Partial<PodCondition>[];
  }[] = [
    {
      name: 'stale pod disruption',
      pod: (p) => ({ ...p, status: { conditions: [disruption()] } }),
      timePassed: stalePodDisruptionTimeout + 1_000,
      wantConditions: [{ type: 'DisruptionTarget', status: 'False' }],
    },
    {
      name: 'pod disruption in progress',
      pod: (p) => ({ ...p, status: { conditions: [disruption()] } }),
      timePassed: stalePodDisruptionTimeout - 1_000,
    },
    {
      name: 'pod disruption actuated',
      pod: (p) => ({
        ...p,
        metadata: { ...p.metadata, deletionTimestamp: formatTime(start) },
        status: { conditions: [disruption()] },
      }),
      timePassed: stalePodDisruptionTimeout + 1_000,
    },
    {
      name: 'no pod disruption',
      pod: (p) => ({ ...p, status: { conditions: [] } }),
      timePassed: stalePodDisruptionTimeout + 1_000,
    },
    {
      name: 'pod disruption cleared by previous reconcile',
      pod: (p) => ({ ...p, status: { conditions: [disruption({ status: 'False' })] } }),
      timePassed: stalePodDisruptionTimeout + 1_000,
    },
    {
      name: 'pod disruption set by the kubelet',
      pod: (p) => ({
        ...p,
        status: { conditions: [disruption({ reason: 'TerminationByKubelet' })] },
      }),
      timePassed: stalePodDisruptionTimeout + 1_000,
    },
    {
      name: 'pod in a terminal phase',
      pod: (p) => ({ ...p, status: { phase: 'Failed', conditions: [disruption()] } }),
      timePassed: stalePodDisruptionTimeout + 1_000,
    },
  ];
  it.each(cases)('$name', async ({ pod, timePassed, wantConditions }) => {
    const f = fixture();
    const p = pod({ metadata: { name: 'pod', namespace: ns, uid: 'u' }, spec: { containers: [] } });
    f.podStore.add(p);
    f.clock.setTime(start + timePassed);
    await f.dc.syncStalePodDisruption('default/pod');
    const writes = f.client.writes<Pod>('updateStatus', 'pods');
    if (wantConditions === undefined) {
      expect(writes).toEqual([]);
    } else {
      expect(writes).toHaveLength(1);
      const conds = writes[0]!.status?.conditions ?? [];
      expect(conds).toHaveLength(wantConditions.length);
      wantConditions.forEach((w, i) => expect(conds[i]).toMatchObject(w));
      expect(conds[0]?.lastTransitionTime).toBe(formatTime(start + timePassed));
      // The new condition carries no reason or message: UpdatePodCondition replaces the old one.
      expect(conds[0]?.reason).toBeUndefined();
    }
  });

  it('skips a pod that is gone', async () => {
    const f = fixture();
    await f.dc.syncStalePodDisruption('default/none');
    expect(f.client.actions).toEqual([]);
  });
});

describe('countHealthyPods', () => {
  it('skips pods being deleted, awaited disruptions and pods not ready', () => {
    const now = start;
    const pods = [
      newPod('ready'),
      {
        ...newPod('deleting'),
        metadata: { ...newPod('deleting').metadata, deletionTimestamp: formatTime(now) },
      },
      newPod('disrupted'),
      newPod('disrupted-long-ago'),
      { ...newPod('unready'), status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    ];
    const disrupted = {
      disrupted: formatTime(now - 1_000),
      'disrupted-long-ago': formatTime(now - deletionTimeout),
    };
    expect(countHealthyPods(pods, disrupted, now)).toBe(2);
  });
});

describe('formatLabelSelector', () => {
  it('prints as Go prints a *metav1.LabelSelector', () => {
    expect(formatLabelSelector(undefined)).toBe('nil');
    expect(
      formatLabelSelector({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }],
      }),
    ).toBe(
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
    );
  });
});

describe('the disruption controller against a sandbox', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('keeps the status of a PDB as its pods come, get ready and go', async () => {
    const clock = new FakeClock(start);
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    stops.push(() => sandbox.stop());
    const source = sandboxSource(sandbox);
    const factory = new SharedInformerFactory(source, 0, { clock });
    const recorder = new FakeRecorder();
    const dc = new DisruptionController({
      client: source,
      podInformer: factory.pods(),
      pdbInformer: factory.podDisruptionBudgets(),
      replicaSetInformer: factory.replicaSets(),
      deploymentInformer: factory.deployments(),
      statefulSetInformer: factory.statefulSets(),
      replicationControllerInformer: factory.replicationControllers(),
      recorder,
      clock,
    });
    const abort = new AbortController();
    factory.start(abort.signal);
    const running = dc.run(abort.signal);
    stops.push(async () => {
      abort.abort();
      await running;
      await factory.shutdown();
    });
    const pdbs = sandbox
      .client<PodDisruptionBudget>('policy', 'poddisruptionbudgets')
      .inNamespace(ns);
    const pods = sandbox.client<Pod>('', 'pods').inNamespace(ns);
    await pdbs.create({ metadata: { name: 'web' }, spec: { minAvailable: 1, selector } });
    const statusOf = async () => (await pdbs.get('web')).status;
    await until(
      clock,
      async () => (await statusOf())?.conditions?.[0]?.reason === 'InsufficientPods',
      'the empty PDB to be counted',
    );
    for (const name of ['a', 'b']) {
      const created = await pods.create({
        metadata: { name, labels: { foo: 'bar' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
      await pods.updateStatus({
        ...created,
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      });
    }
    await until(
      clock,
      async () => (await statusOf())?.disruptionsAllowed === 1,
      'a disruption to be allowed',
    );
    expect(await statusOf()).toMatchObject({
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
      disruptionsAllowed: 1,
      observedGeneration: 1,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }],
    });
    await pods.delete('b', { gracePeriodSeconds: 0 });
    await until(
      clock,
      async () => (await statusOf())?.conditions?.[0]?.reason === 'InsufficientPods',
      'disruptions to be stopped',
    );
    expect(await statusOf()).toMatchObject({
      currentHealthy: 1,
      expectedPods: 1,
      disruptionsAllowed: 0,
    });
  });
});
