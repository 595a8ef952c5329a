// Ports of controller_ref_manager_test.go's TestClaimPods (with the fake pod
// control), then adoption and release against the sandbox's API server: the
// uid precondition, a re-created pod, the canAdopt recheck, and ReplicaSets;
// last, the same for ControllerRevisions.
import type { ControllerRevision, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  isInvalid,
  labelSelectorAsSelector,
  newNotFound,
  newControllerRef,
  selectorFromSet,
  type KubeObject,
  type Logger,
} from '@kcm-ts/apimachinery';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ControllerRevisionControllerRefManager,
  FakePodControl,
  PodControllerRefManager,
  RealControllerRevisionControl,
  RealPodControl,
  RealRSControl,
  ReplicaSetControllerRefManager,
  recheckDeletionTimestamp,
} from '../src/index.js';
import { creatable, epoch, newPod, newReplicaSet, replicaSetKind } from './helpers.js';
import { RevisionServer } from './history/helpers.js';

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

// ControllerRevisions, the DaemonSet's history: controller_ref_manager_test.go
// has no cases for them, so these follow TestClaimPods' cases, then run
// adoption and release through RealControllerRevisionControl against the
// in-memory controllerrevisions server of the history tests.
describe('claimControllerRevisions (ControllerRevisionControllerRefManager)', () => {
  const dsKind = { group: 'apps', version: 'v1', kind: 'DaemonSet' };
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ds', namespace: 'default', uid: 'uid-ds' },
  };
  const otherDs = { ...ds, metadata: { ...ds.metadata, name: 'other', uid: 'uid-other' } };
  const selector = selectorFromSet({ type: 'production' });
  const revision = (
    name: string,
    labels: Record<string, string>,
    owner?: KubeObject,
    namespace = 'default',
  ): ControllerRevision => ({
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      labels,
      ...(owner && { ownerReferences: [newControllerRef(owner, dsKind)] }),
    },
    data: { spec: { template: { $patch: 'replace' } } },
    revision: 1,
  });
  const production = { type: 'production' };
  const testing = { type: 'testing' };
  const recorder = () => {
    const patches: { namespace: string; name: string; patch: object }[] = [];
    return {
      patches,
      patchControllerRevision(namespace: string, name: string, patch: object) {
        patches.push({ namespace, name, patch });
        return Promise.resolve();
      },
    };
  };
  const claim = async (owner: KubeObject, revisions: ControllerRevision[]) => {
    const control = recorder();
    const cm = new ControllerRevisionControllerRefManager(control, owner, selector, dsKind);
    const claimed = await cm.claimControllerRevisions(revisions);
    return { claimed: claimed.map((cr) => cr.metadata!.name), patches: control.patches };
  };

  it('claims revisions with the right labels, adopting orphans', async () => {
    const got = await claim(ds, [revision('cr1', production), revision('cr2', testing)]);
    expect(got.claimed).toEqual(['cr1']);
    expect(got.patches).toEqual([
      {
        namespace: 'default',
        name: 'cr1',
        patch: {
          metadata: {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: 'ds',
                uid: 'uid-ds',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
            uid: 'uid-cr1',
          },
        },
      },
    ]);
  });

  it('claims nothing new while the controller is being deleted, but keeps what it owns', async () => {
    const owner = { ...ds, metadata: { ...ds.metadata, deletionTimestamp: formatTime(epoch) } };
    expect(await claim(owner, [revision('cr1', production), revision('cr2', production)])).toEqual({
      claimed: [],
      patches: [],
    });
    expect(
      await claim(owner, [revision('cr1', production, owner), revision('cr2', production)]),
    ).toEqual({ claimed: ['cr1'], patches: [] });
  });

  it('cannot claim revisions another controller owns', async () => {
    const got = await claim(ds, [
      revision('cr1', production, ds),
      revision('cr2', production, otherDs),
    ]);
    expect(got).toEqual({ claimed: ['cr1'], patches: [] });
  });

  it('releases owned revisions whose labels stopped matching', async () => {
    const got = await claim(ds, [revision('cr1', production, ds), revision('cr2', testing, ds)]);
    expect(got.claimed).toEqual(['cr1']);
    expect(got.patches).toEqual([
      {
        namespace: 'default',
        name: 'cr2',
        patch: {
          metadata: { ownerReferences: [{ $patch: 'delete', uid: 'uid-ds' }], uid: 'uid-cr2' },
        },
      },
    ]);
  });

  it('does not claim orphans marked for deletion, or of another namespace', async () => {
    const dying = revision('cr2', production);
    const got = await claim(ds, [
      revision('cr1', production, ds),
      { ...dying, metadata: { ...dying.metadata, deletionTimestamp: formatTime(epoch) } },
      revision('cr3', production, undefined, 'fakens'),
    ]);
    expect(got).toEqual({ claimed: ['cr1'], patches: [] });
  });

  it('claims orphans of any namespace for a cluster-scoped controller', async () => {
    const clusterScoped = { ...ds, metadata: { name: 'ds', uid: 'uid-ds' } };
    const got = await claim(clusterScoped, [
      revision('cr1', production),
      revision('cr2', production, undefined, 'fakens'),
    ]);
    expect(got.claimed).toEqual(['cr1', 'cr2']);
    expect(got.patches.map((p) => `${p.namespace}/${p.name}`)).toEqual([
      'default/cr1',
      'fakens/cr2',
    ]);
  });

  it('logs the release as Go does', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      info: (msg, values) => void lines.push(`${msg} ${JSON.stringify(values)}`),
      error: () => {},
      v: () => logger,
      enabled: () => true,
      withValues: () => logger,
      withName: () => logger,
    };
    const cm = new ControllerRevisionControllerRefManager(
      recorder(),
      ds,
      selector,
      dsKind,
      undefined,
      logger,
    );
    await cm.releaseControllerRevision(revision('cr2', testing, ds));
    expect(lines).toEqual([
      'Patching ControllerRevision to remove its controllerRef {"controllerRevision":"default/cr2","gvk":"apps/v1, Kind=DaemonSet","controller":"ds"}',
    ]);
  });

  it('adopts and releases through the API, refusing a re-created revision', async () => {
    const server = new RevisionServer();
    const client = server.client().inNamespace('default');
    const create = (cr: ControllerRevision) => {
      const { uid: _uid, ...metadata } = cr.metadata!;
      return client.create({ ...cr, metadata });
    };
    const manager = () =>
      new ControllerRevisionControllerRefManager(
        new RealControllerRevisionControl(server.client()),
        ds,
        selector,
        dsKind,
      );
    const orphan = await create(revision('cr1', production));
    const owned = await create(revision('cr2', testing, ds));
    const claimed = await manager().claimControllerRevisions([orphan, owned]);
    expect(claimed.map((cr) => cr.metadata!.name)).toEqual(['cr1']);
    expect(server.stored('default', 'cr1')?.metadata?.ownerReferences).toEqual([
      newControllerRef(ds, dsKind),
    ]);
    expect(server.stored('default', 'cr2')?.metadata?.ownerReferences ?? []).toEqual([]);

    // cr3 deleted and re-created under the same name: the uid in the patch refuses it.
    const first = await create(revision('cr3', production));
    await client.delete('cr3');
    await create(revision('cr3', production));
    const err = await manager()
      .claimControllerRevisions([first])
      .catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect(server.stored('default', 'cr3')?.metadata?.ownerReferences).toBeUndefined();
    // A release of a revision gone meanwhile counts as done.
    await client.delete('cr1');
    const gone = {
      ...orphan,
      metadata: {
        ...orphan.metadata,
        labels: testing,
        ownerReferences: [newControllerRef(ds, dsKind)],
      },
    };
    await expect(manager().claimControllerRevisions([gone])).resolves.toEqual([]);
  });
});
