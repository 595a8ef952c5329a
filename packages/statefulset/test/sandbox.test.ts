// The StatefulSet controller against an in-process sandbox apiserver with a
// simulated node, on a fake clock: pods are scheduled, start and become
// ready as the sandbox's kubelet runs them, and go away after their grace
// period. Covers the informer round trip the unit tables cannot: ordered
// creation web-0, web-1, web-2; scaling down from the top through the scale
// subresource; a deleted pod coming back under its name; a partitioned
// rolling update through ControllerRevisions and `kubectl rollout undo`;
// claims from the templates, bound by the sandbox's storage, and handed to
// their pod on scale-down; adoption and release of pods and revisions.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox, type Sandbox } from '@kcm-ts/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { StatefulSetController, statefulSetRevisionLabel } from '../src/index.js';
import { isRunningAndReady } from '../src/stateful-set-utils.js';
import { settle } from './helpers.js';

interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  recorder: FakeRecorder;
  sets: ResourceClient<StatefulSet>;
  pods: ResourceClient<Pod>;
  claims: ResourceClient<PersistentVolumeClaim>;
  revisions: ResourceClient<ControllerRevision>;
  /** Names of the pods in creation order, as an observer saw them appear. */
  created: string[];
  step(ms: number): Promise<void>;
  until(cond: () => Promise<boolean>, maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function startHarness(opts: { claims?: boolean } = {}): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({
    clock,
    insecureHttp: true,
    nodes: 1,
    podStartDelay: 1000,
    podReadyDelay: 1000,
    podStopDelay: 1000,
  });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const recorder = new FakeRecorder();
  const factory = new SharedInformerFactory(source, 0, { clock });
  const created: string[] = [];
  factory
    .pods()
    .informer()
    .addEventHandler({ onAdd: (p) => created.push(p.metadata!.name!) });
  const controller = new StatefulSetController({
    pods: factory.pods(),
    statefulSets: factory.statefulSets(),
    controllerRevisions: factory.controllerRevisions(),
    ...(opts.claims === true && { persistentVolumeClaims: factory.persistentVolumeClaims() }),
    client: {
      statefulSets: sandbox.client<StatefulSet>('apps', 'statefulsets'),
      pods: sandbox.client<Pod>('', 'pods'),
      persistentVolumeClaims: sandbox.client<PersistentVolumeClaim>('', 'persistentvolumeclaims'),
      controllerRevisions: sandbox.client<ControllerRevision>('apps', 'controllerrevisions'),
    },
    recorder,
    clock,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(2, abort.signal);
  await settle();
  await clock.advance(100);
  await settle();
  const h: Harness = {
    sandbox,
    clock,
    recorder,
    sets: sandbox.client<StatefulSet>('apps', 'statefulsets').inNamespace('default'),
    pods: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    claims: sandbox
      .client<PersistentVolumeClaim>('', 'persistentvolumeclaims')
      .inNamespace('default'),
    revisions: sandbox
      .client<ControllerRevision>('apps', 'controllerrevisions')
      .inNamespace('default'),
    created,
    async step(ms) {
      for (let t = 0; t < ms; t += 200) {
        await clock.advance(Math.min(200, ms - t));
        await settle(4);
      }
    },
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += 200) {
        if (await cond()) return;
        await h.step(200);
      }
      throw new Error(`condition not met within ${maxMs} ms of fake time`);
    },
    async stop() {
      abort.abort();
      await running;
      await factory.shutdown();
      await sandbox.stop();
    },
  };
  return h;
}

function web(replicas: number, spec: Partial<StatefulSet['spec']> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
      ...spec,
    },
  };
}

let h: Harness;
afterEach(async () => {
  await h.stop();
  // Nothing left behind on the fake clock: every timer of the controller stopped.
  expect(h.clock.hasWaiters()).toBe(false);
});

const podNames = async () =>
  (await h.pods.list()).items
    .map((p) => p.metadata!.name!)
    .sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
const readyNames = async () =>
  (await h.pods.list()).items
    .filter((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp)
    .map((p) => p.metadata!.name!)
    .sort();
const statusOf = async () => (await h.sets.get('web')).status;

describe('the StatefulSet controller on a sandbox', () => {
  it('creates web-0, web-1, web-2 in order, scales down from the top, and brings back a deleted pod', async () => {
    h = await startHarness();
    await h.sets.create(web(3));
    await h.until(async () => (await readyNames()).length === 3);
    expect(h.created).toEqual(['web-0', 'web-1', 'web-2']);
    // Each pod was created only once its predecessor was Ready.
    const pods = (await h.pods.list()).items;
    const readyAt = (name: string) =>
      Date.parse(
        pods
          .find((p) => p.metadata?.name === name)!
          .status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!,
      );
    const createdAt = (name: string) =>
      Date.parse(pods.find((p) => p.metadata?.name === name)!.metadata!.creationTimestamp!);
    expect(createdAt('web-1')).toBeGreaterThanOrEqual(readyAt('web-0'));
    expect(createdAt('web-2')).toBeGreaterThanOrEqual(readyAt('web-1'));
    const web1 = pods.find((p) => p.metadata?.name === 'web-1')!;
    expect(web1.spec?.hostname).toBe('web-1');
    expect(web1.spec?.subdomain).toBe('nginx');
    expect(web1.metadata?.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'web-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    await h.until(async () => (await statusOf())?.readyReplicas === 3);
    const st = (await statusOf())!;
    expect(st).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
    });
    expect(st.currentRevision).toBe(st.updateRevision);
    expect(st.observedGeneration).toBe(1);

    // `kubectl delete pod web-1`: it comes back under its name.
    const oldUid = web1.metadata!.uid;
    await h.pods.delete('web-1');
    await h.until(async () => {
      const p = (await h.pods.list()).items.find((x) => x.metadata?.name === 'web-1');
      return p !== undefined && p.metadata?.uid !== oldUid && isRunningAndReady(p);
    });
    expect(await podNames()).toEqual(['web-0', 'web-1', 'web-2']);

    // `kubectl scale sts web --replicas=1`, through the scale subresource.
    const deletions: string[] = [];
    h.recorder.events.length = 0;
    // (over HTTP, as kubectl does: the in-process client serves no scale).
    const res = await fetch(
      `${h.sandbox.url}/apis/apps/v1/namespaces/default/statefulsets/web/scale`,
      {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${h.sandbox.token}`,
          'content-type': 'application/merge-patch+json',
        },
        body: JSON.stringify({ spec: { replicas: 1 } }),
      },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { kind: string }).kind).toBe('Scale');
    expect((await h.sets.get('web')).spec?.replicas).toBe(1);
    await h.until(async () => (await podNames()).length === 1);
    for (const e of h.recorder.events) {
      const m = /^Normal SuccessfulDelete delete Pod (\S+) in StatefulSet web successful$/.exec(e);
      if (m) deletions.push(m[1]!);
    }
    expect(deletions).toEqual(['web-2', 'web-1']);
    expect(await podNames()).toEqual(['web-0']);
    await h.until(async () => (await statusOf())?.replicas === 1);
    expect(h.recorder.events.filter((e) => e.startsWith('Warning'))).toEqual([]);
  });

  it('rolls a partitioned update from the top down to the partition, then finishes it', async () => {
    h = await startHarness();
    await h.sets.create(
      web(3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }),
    );
    await h.until(async () => (await statusOf())?.readyReplicas === 3);
    const first = (await statusOf())!.currentRevision!;
    await h.sets.patch('web', {
      type: 'strategic',
      body: {
        spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } },
      },
    });
    await h.until(async () => {
      const st = await statusOf();
      return st?.updatedReplicas === 2 && st.readyReplicas === 3;
    });
    const second = (await statusOf())!.updateRevision!;
    expect(second).not.toBe(first);
    const revisionOf = async (name: string) =>
      (await h.pods.get(name)).metadata?.labels?.[statefulSetRevisionLabel];
    expect([
      await revisionOf('web-0'),
      await revisionOf('web-1'),
      await revisionOf('web-2'),
    ]).toEqual([first, second, second]);
    expect((await h.pods.get('web-2')).spec?.containers[0]?.image).toBe('nginx:1.28');
    expect((await h.pods.get('web-0')).spec?.containers[0]?.image).toBe('nginx:1.27');
    expect((await statusOf())?.currentRevision).toBe(first);
    const revisions = (await h.revisions.list()).items;
    expect(revisions.map((r) => r.metadata?.name).sort()).toEqual([first, second].sort());
    expect(revisions.every((r) => r.metadata?.ownerReferences?.[0]?.kind === 'StatefulSet')).toBe(
      true,
    );

    await h.sets.patch('web', {
      type: 'merge',
      body: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } },
    });
    await h.until(async () => (await statusOf())?.currentRevision === second);
    expect(await revisionOf('web-0')).toBe(second);
    expect(await statusOf()).toMatchObject({ currentReplicas: 3, updatedReplicas: 3 });

    // `kubectl rollout undo sts/web`: the first revision's data, applied as
    // a strategic merge patch, brings its template back, and the controller
    // renumbers that revision rather than making a new one.
    const old = await h.revisions.get(first);
    await h.sets.patch('web', { type: 'strategic', body: old.data! });
    await h.until(async () => (await statusOf())?.currentRevision === first);
    expect((await h.pods.get('web-0')).spec?.containers[0]?.image).toBe('nginx:1.27');
    expect((await h.revisions.get(first)).revision).toBe(3);
    expect((await h.revisions.list()).items).toHaveLength(2);
  });

  it('creates each pod claim from the templates before the pod, and hands it over on scale-down', async () => {
    h = await startHarness({ claims: true });
    await h.sets.create(
      web(2, {
        volumeClaimTemplates: [
          {
            metadata: { name: 'www' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
      }),
    );
    // The sandbox binds each claim (kind's local-path provisioner) before
    // its pod can be scheduled, so web-1 waits for web-0 and its claim.
    await h.until(async () => (await readyNames()).length === 2);
    expect(h.created).toEqual(['web-0', 'web-1']);
    await h.until(async () =>
      (await h.claims.list()).items.every((c) => (c.metadata?.ownerReferences ?? []).length > 0),
    );
    const claims = (await h.claims.list()).items;
    expect(claims.map((c) => c.metadata?.name).sort()).toEqual(['www-web-0', 'www-web-1']);
    const set = await h.sets.get('web');
    for (const c of claims) {
      expect(c.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([set.metadata?.uid]);
    }
    const pod = await h.pods.get('web-0');
    expect(pod.spec?.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim?.claimName).toBe(
      'www-web-0',
    );
    const claimCreated = h.recorder.events.indexOf(
      'Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success',
    );
    const podCreated = h.recorder.events.indexOf(
      'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful',
    );
    expect(claimCreated).toBeGreaterThanOrEqual(0);
    expect(podCreated).toBeGreaterThan(claimCreated);

    // Scaled down with whenScaled: Delete, web-1's claim passes to web-1,
    // so that the garbage collector deletes it with the pod.
    const web1Uid = (await h.pods.get('web-1')).metadata?.uid;
    await h.sets.patch('web', { type: 'merge', body: { spec: { replicas: 1 } } });
    await h.until(async () => (await podNames()).length === 1);
    expect(
      (await h.claims.get('www-web-1')).metadata?.ownerReferences?.map((r) => [r.kind, r.uid]),
    ).toEqual([['Pod', web1Uid]]);
    expect((await h.claims.get('www-web-0')).metadata?.ownerReferences?.map((r) => r.kind)).toEqual(
      ['StatefulSet'],
    );
  });

  it('adopts orphan pods and revisions its selector matches, and releases a pod whose labels no longer match', async () => {
    h = await startHarness();
    const orphan = web(1);
    // An orphan web-0 (left behind by `kubectl delete sts web --cascade=orphan`).
    await h.pods.create({
      metadata: { name: 'web-0', labels: { app: 'nginx' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    });
    await h.until(async () => (await readyNames()).length === 1);
    const orphanUid = (await h.pods.get('web-0')).metadata?.uid;
    const set = await h.sets.create(orphan);
    await h.until(
      async () =>
        (await h.pods.get('web-0')).metadata?.ownerReferences?.[0]?.uid === set.metadata?.uid,
    );
    // Adopted, not replaced.
    expect((await h.pods.get('web-0')).metadata?.uid).toBe(orphanUid);
    await h.until(async () => (await statusOf())?.replicas === 1);

    // Release: the pod's labels stop matching; a new web-0 cannot be made
    // while the released one holds the name.
    await h.pods.patch('web-0', {
      type: 'merge',
      body: { metadata: { labels: { app: 'other' } } },
    });
    await h.until(
      async () => ((await h.pods.get('web-0')).metadata?.ownerReferences ?? []).length === 0,
    );
    await h.step(5000);
    expect((await h.pods.list()).items.map((p) => p.metadata?.name)).toEqual(['web-0']);

    // Orphaned revisions are adopted by a new set of the same selector (the
    // sandbox runs no garbage collector: the test orphans them as it would).
    await h.sets.delete('web');
    for (const r of (await h.revisions.list()).items) {
      await h.revisions.patch(r.metadata!.name!, {
        type: 'merge',
        body: { metadata: { ownerReferences: null } },
      });
    }
    const again = await h.sets.create(web(1));
    await h.until(async () =>
      (await h.revisions.list()).items.every(
        (r) => r.metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid,
      ),
    );
    expect((await h.revisions.list()).items).toHaveLength(1);
  });
});
