// Ports of controller_ref_manager_test.go's TestClaimPods (with the fake pod
// control), then adoption and release against the sandbox's API server: the
// uid precondition, a re-created pod, the canAdopt recheck, and ReplicaSets.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isInvalid,
  labelSelectorAsSelector,
  newNotFound,
  newControllerRef,
  selectorFromSet,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakePodControl,
  PodControllerRefManager,
  RealPodControl,
  RealRSControl,
  ReplicaSetControllerRefManager,
  recheckDeletionTimestamp,
} from '../src/index.js';
import { creatable, epoch, newPod, newReplicaSet, replicaSetKind } from './helpers.js';

const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function deleting<T extends ReplicaSet | Pod>(obj: T): T {
  return { ...obj, metadata: { ...obj.metadata, deletionTimestamp: formatTime(epoch) } };
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name);

describe('claimPods (TestClaimPods)', () => {
  const rs = newReplicaSet('rs', 1, { labels: { foo: 'bar' } });
  const other = newReplicaSet('other', 1, { labels: { foo: 'bar' } });
  const selector = labelSelectorAsSelector(rs.spec!.selector);
  const claim = async (owner: ReplicaSet, pods: Pod[]) => {
    const control = new FakePodControl();
    const cm = new PodControllerRefManager(control, owner, selector, replicaSetKind);
    const claimed = await cm.claimPods(pods);
    return { claimed: names(claimed), patches: control.patches };
  };

  it('adopts matching orphans only', async () => {
    const got = await claim(rs, [
      newPod('pod1', undefined, { labels: { foo: 'bar' } }),
      newPod('pod2', undefined, { labels: { foo: 'other' } }),
    ]);
    expect(got.claimed).toEqual(['pod1']);
    expect(got.patches).toEqual([
      {
        metadata: {
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'rs',
              uid: 'uid-rs',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
          uid: 'uid-pod1',
        },
      },
    ]);
  });

  it('adopts nothing while the controller is being deleted', async () => {
    const got = await claim(deleting(rs), [
      newPod('pod1', undefined, { labels: { foo: 'bar' } }),
      newPod('pod2', undefined, { labels: { foo: 'other' } }),
    ]);
    expect(got).toEqual({ claimed: [], patches: [] });
  });

  it('keeps what it owns but releases nothing while being deleted', async () => {
    const owner = deleting(rs);
    const got = await claim(owner, [
      newPod('pod1', owner, { labels: { foo: 'bar' } }),
      newPod('pod2', owner, { labels: { foo: 'other' } }),
    ]);
    expect(got).toEqual({ claimed: ['pod1'], patches: [] });
  });

  it('does not adopt an orphan that is being deleted', async () => {
    const got = await claim(rs, [deleting(newPod('pod1', undefined, { labels: { foo: 'bar' } }))]);
    expect(got).toEqual({ claimed: [], patches: [] });
  });

  it('claims or releases owned pods according to the selector', async () => {
    const got = await claim(rs, [
      newPod('pod1', rs, { labels: { foo: 'bar' } }),
      newPod('pod2', rs, { labels: { foo: 'other' } }),
    ]);
    expect(got.claimed).toEqual(['pod1']);
    expect(got.patches).toEqual([
      { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'uid-rs' }], uid: 'uid-pod2' } },
    ]);
  });

  it('ignores pods another controller owns, matching or not', async () => {
    const got = await claim(rs, [
      newPod('pod1', other, { labels: { foo: 'bar' } }),
      newPod('pod2', other, { labels: { foo: 'other' } }),
    ]);
    expect(got).toEqual({ claimed: [], patches: [] });
  });

  it('does not adopt pods of another namespace', async () => {
    const got = await claim(rs, [
      newPod('pod1', undefined, { labels: { foo: 'bar' }, namespace: 'elsewhere' }),
    ]);
    expect(got).toEqual({ claimed: [], patches: [] });
  });

  it('applies the extra filters after the selector', async () => {
    const control = new FakePodControl();
    const cm = new PodControllerRefManager(control, rs, selector, replicaSetKind);
    const claimed = await cm.claimPods(
      [
        newPod('pod1', rs, { labels: { foo: 'bar' } }),
        newPod('pod2', rs, { labels: { foo: 'bar' } }),
      ],
      (pod) => pod.metadata?.name !== 'pod2',
    );
    expect(names(claimed)).toEqual(['pod1']);
    expect(control.patches).toHaveLength(1); // pod2 no longer matches: released
  });

  it('checks canAdopt once, only when adopting, and fails every adoption after a refusal', async () => {
    let checks = 0;
    const control = new FakePodControl();
    const cm = new PodControllerRefManager(control, rs, selector, replicaSetKind, () => {
      checks++;
      return Promise.reject(new Error('rs/default has just been deleted'));
    });
    await expect(
      cm.claimPods([newPod('owned', rs, { labels: { foo: 'bar' } })]),
    ).resolves.toHaveLength(1);
    expect(checks).toBe(0);
    const err = await cm
      .claimPods([
        newPod('o1', undefined, { labels: { foo: 'bar' } }),
        newPod('o2', undefined, { labels: { foo: 'bar' } }),
      ])
      .catch((e: unknown) => e);
    expect(checks).toBe(1);
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as Error).message).toBe(
      "[can't adopt Pod default/o1 (uid-o1): rs/default has just been deleted, can't adopt Pod default/o2 (uid-o2): rs/default has just been deleted]",
    );
    expect(control.patches).toEqual([]);
  });

  it('claims settled pods without yielding once per pod: only adoptions and releases wait', async () => {
    const control = new FakePodControl();
    const cm = new PodControllerRefManager(control, rs, selector, replicaSetKind);
    const pods = [
      ...Array.from({ length: 1000 }, (_, i) =>
        newPod(`owned-${i}`, rs, { labels: { foo: 'bar' } }),
      ),
      ...Array.from({ length: 1000 }, (_, i) =>
        newPod(`theirs-${i}`, other, { labels: { foo: 'bar' } }),
      ),
    ];
    let settled = false;
    const claimed = cm.claimPods(pods).then((got) => {
      settled = true;
      return got;
    });
    // A handful of microtask turns, far fewer than there are pods.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(settled).toBe(true);
    expect(await claimed).toHaveLength(1000);
    expect(control.patches).toEqual([]);
  });

  it('adopts and releases one after the other, in the order of the pods', async () => {
    const order: string[] = [];
    const control = new FakePodControl();
    const patchPod = control.patchPod.bind(control);
    control.patchPod = async (namespace, name, patch) => {
      order.push(`start ${name}`);
      await new Promise<void>((r) => setImmediate(r));
      await patchPod(namespace, name, patch);
      order.push(`end ${name}`);
    };
    const cm = new PodControllerRefManager(control, rs, selector, replicaSetKind);
    const claimed = await cm.claimPods([
      newPod('orphan', undefined, { labels: { foo: 'bar' } }),
      newPod('owned', rs, { labels: { foo: 'bar' } }),
      newPod('owned-mismatch', rs, { labels: { foo: 'other' } }),
      newPod('orphan-2', undefined, { labels: { foo: 'bar' } }),
    ]);
    expect(names(claimed)).toEqual(['orphan', 'owned', 'orphan-2']);
    expect(order).toEqual([
      'start orphan',
      'end orphan',
      'start owned-mismatch',
      'end owned-mismatch',
      'start orphan-2',
      'end orphan-2',
    ]);
  });

  it('treats a pod gone meanwhile as not claimed and a failed release of a gone pod as released', async () => {
    const control = new FakePodControl();
    control.err = newNotFound({ group: '', resource: 'pods' }, 'gone');
    const cm = new PodControllerRefManager(control, rs, selector, replicaSetKind);
    const claimed = await cm.claimPods([
      newPod('orphan', undefined, { labels: { foo: 'bar' } }),
      newPod('owned-mismatch', rs, { labels: { foo: 'other' } }),
    ]);
    expect(claimed).toEqual([]);
    expect(control.patches).toHaveLength(2);
  });
});

describe('recheckDeletionTimestamp', () => {
  it('allows a live owner, refuses a deleted one with the time as Go prints it', async () => {
    await expect(
      recheckDeletionTimestamp(() => Promise.resolve(newReplicaSet('rs', 1)))(),
    ).resolves.toBe(undefined);
    const gone = deleting(newReplicaSet('rs', 1));
    await expect(recheckDeletionTimestamp(() => Promise.resolve(gone))()).rejects.toThrow(
      'default/rs has just been deleted at 2026-01-01 00:00:00 +0000 UTC',
    );
    await expect(
      recheckDeletionTimestamp(() =>
        Promise.reject(newNotFound({ group: 'apps', resource: 'replicasets' }, 'rs')),
      )(),
    ).rejects.toThrow('can\'t recheck DeletionTimestamp: replicasets.apps "rs" not found');
  });
});

describe('adoption and release against the API server', () => {
  let sandbox: Sandbox;
  afterEach(async () => {
    await sandbox.stop();
  });

  async function setup() {
    sandbox = await startSandbox({ insecureHttp: true });
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const rsClient = sandbox.client<ReplicaSet>('apps', 'replicasets').inNamespace('default');
    const rs = await rsClient.create(creatable(newReplicaSet('web', 1)));
    const control = new RealPodControl({ client: sandbox.client<Pod>('', 'pods') });
    const manager = (owner: ReplicaSet = rs) =>
      new PodControllerRefManager(
        control,
        owner,
        labelSelectorAsSelector(owner.spec!.selector),
        replicaSetKind,
        recheckDeletionTimestamp(() => rsClient.get(owner.metadata!.name!)),
      );
    const podOf = (name: string, labels = { app: 'web' }): Pod => ({
      metadata: { name, labels },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
    });
    return { pods, rsClient, rs, manager, podOf };
  }

  it('adopts an orphan and releases it once its labels stop matching', async () => {
    const { pods, rs, manager, podOf } = await setup();
    const orphan = await pods.create(podOf('orphan'));
    expect(names(await manager().claimPods([orphan]))).toEqual(['orphan']);
    const adopted = await pods.get('orphan');
    expect(adopted.metadata?.ownerReferences).toEqual([newControllerRef(rs, replicaSetKind)]);

    const relabelled = await pods.patch('orphan', {
      type: 'merge',
      body: { metadata: { labels: { app: 'db' } } },
    });
    expect(await manager().claimPods([relabelled])).toEqual([]);
    expect((await pods.get('orphan')).metadata?.ownerReferences ?? []).toEqual([]);
  });

  it('refuses to adopt a pod deleted and re-created under the same name (uid precondition)', async () => {
    const { pods, manager, podOf } = await setup();
    const first = await pods.create(podOf('p'));
    await pods.delete('p');
    await pods.create(podOf('p'));
    const err = await manager()
      .claimPods([first])
      .catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect((await pods.get('p')).metadata?.ownerReferences).toBeUndefined();
  });

  it('counts the release of a re-created pod as done', async () => {
    const { pods, rs, manager, podOf } = await setup();
    const owned = await pods.create({
      ...podOf('p', { app: 'db' }),
      metadata: {
        name: 'p',
        labels: { app: 'db' },
        ownerReferences: [newControllerRef(rs, replicaSetKind)],
      },
    });
    await pods.delete('p');
    await pods.create(podOf('p', { app: 'db' }));
    await expect(manager().claimPods([owned])).resolves.toEqual([]);
  });

  it('does not adopt when a fresh read shows the owner being deleted, though the cache does not', async () => {
    const { pods, rsClient, rs, manager, podOf } = await setup();
    await rsClient.patch('web', {
      type: 'merge',
      body: { metadata: { finalizers: ['example.com/hold'] } },
    });
    await rsClient.delete('web');
    const orphan = await pods.create(podOf('orphan'));
    const err = await manager(rs)
      .claimPods([orphan])
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /^can't adopt Pod default\/orphan \(.+\): default\/web has just been deleted at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC$/,
    );
    expect((await pods.get('orphan')).metadata?.ownerReferences).toBeUndefined();
  });

  it('claims ReplicaSets for a Deployment (ClaimReplicaSets)', async () => {
    sandbox = await startSandbox({ insecureHttp: true });
    const rsClient = sandbox.client<ReplicaSet>('apps', 'replicasets').inNamespace('default');
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: 'uid-deploy' },
    };
    // A Deployment matches ReplicaSets by their own labels.
    const orphan = await rsClient.create({
      ...creatable(newReplicaSet('web-1', 1)),
      metadata: { name: 'web-1', labels: { app: 'web' } },
    });
    const mismatched = await rsClient.create({
      ...creatable(newReplicaSet('web-2', 1)),
      metadata: {
        name: 'web-2',
        labels: { app: 'old' },
        ownerReferences: [newControllerRef(deployment, deploymentKind)],
      },
    });
    const cm = new ReplicaSetControllerRefManager(
      new RealRSControl(sandbox.client<ReplicaSet>('apps', 'replicasets')),
      deployment,
      selectorFromSet({ app: 'web' }),
      deploymentKind,
    );
    const claimed = await cm.claimReplicaSets([orphan, mismatched]);
    expect(claimed.map((r) => r.metadata?.name)).toEqual(['web-1']);
    expect((await rsClient.get('web-1')).metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      uid: 'uid-deploy',
      controller: true,
    });
    expect((await rsClient.get('web-2')).metadata?.ownerReferences ?? []).toEqual([]);
  });
});
