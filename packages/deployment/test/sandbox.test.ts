// The Deployment controller with the ReplicaSet controller beside it, against
// the sandbox's API server and simulated node on a fake clock: the
// experiments of the course's walkthrough (rollout, image change, rollback,
// pause and resume, proportional scaling, the progress deadline, Recreate,
// revision history).
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getDeploymentCondition,
  revisionAnnotation,
  revisionHistoryAnnotation,
} from '../src/index.js';
import {
  isActive,
  isReady,
  nginx,
  ownedReplicaSets,
  rolledOut,
  setImage,
  startHarness,
  type Harness,
} from './helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  if (h === undefined) return;
  const clock = h.clock;
  await h.stop();
  // Controllers, informers and nodes leave no timer behind.
  expect(clock.hasWaiters()).toBe(false);
  h = undefined;
});

const images = (pods: Pod[]) => pods.map((p) => p.spec?.containers[0]?.image).sort();
const sizes = (sets: ReplicaSet[]) => sets.map((r) => r.spec?.replicas);
const activePods = async (harness: Harness) => (await harness.pods.list()).items.filter(isActive);

describe('the Deployment controller on the sandbox', () => {
  it('rolls a new Deployment out: ReplicaSet, revision, conditions, events', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 3));
    await h.until(() => rolledOut(h!, 'web'));
    const d = await h.deployments.get('web');
    const [rs] = await ownedReplicaSets(h, d);
    const hash = rs!.metadata!.labels!['pod-template-hash']!;
    expect(rs!.metadata?.name).toBe(`web-${hash}`);
    expect(rs!.spec?.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs!.metadata?.annotations).toMatchObject({
      [revisionAnnotation]: '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    // The revision reached the Deployment through the status subresource.
    expect(d.metadata?.annotations?.[revisionAnnotation]).toBe('1');
    expect(d.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    expect(getDeploymentCondition(d.status, 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
    });
    expect(getDeploymentCondition(d.status, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: `ReplicaSet "web-${hash}" has successfully progressed.`,
    });
    expect(h.recorder.events).toEqual([
      `Normal ScalingReplicaSet Scaled up replica set web-${hash} from 0 to 3`,
    ]);
    const pods = (await h.pods.list()).items;
    expect(pods.map((p) => p.metadata?.labels?.['pod-template-hash'])).toEqual([hash, hash, hash]);
  });

  it('rolls an image change within maxSurge and maxUnavailable', async () => {
    h = await startHarness({ podReadyDelay: 2000 });
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } };
    await h.deployments.create(nginx('web', 4, { strategy }));
    await h.until(() => rolledOut(h!, 'web'));
    await setImage(h, 'web', 'nginx:1.28');
    let maxTotal = 0;
    let minAvailable = Infinity;
    const sawBoth = { old: false, new: false };
    await h.until(async () => {
      const pods = await activePods(h!);
      maxTotal = Math.max(maxTotal, pods.length);
      minAvailable = Math.min(minAvailable, pods.filter(isReady).length);
      sawBoth.old ||= pods.some((p) => p.spec?.containers[0]?.image === 'nginx:1.27');
      sawBoth.new ||= pods.some((p) => p.spec?.containers[0]?.image === 'nginx:1.28');
      return rolledOut(h!, 'web');
    });
    expect(maxTotal).toBe(5); // replicas + maxSurge, reached
    expect(minAvailable).toBe(3); // replicas − maxUnavailable, never less
    expect(sawBoth).toEqual({ old: true, new: true });
    await h.until(async () => (await activePods(h!)).length === 4);
    expect(images(await activePods(h))).toEqual(Array(4).fill('nginx:1.28'));
    const sets = await ownedReplicaSets(h, await h.deployments.get('web'));
    expect(sizes(sets)).toEqual([0, 4]);
    expect(sets.map((r) => r.metadata?.annotations?.[revisionAnnotation])).toEqual(['1', '2']);
    expect((await h.deployments.get('web')).metadata?.annotations?.[revisionAnnotation]).toBe('2');
    const scaling = h.recorder.events.filter((e) => e.includes('ScalingReplicaSet'));
    expect(scaling[0]).toMatch(/Scaled up replica set web-\w+ from 0 to 4/);
    expect(scaling[1]).toMatch(/Scaled up replica set web-\w+ from 0 to 1/);
    expect(scaling.at(-1)).toMatch(/Scaled down replica set web-\w+ from 1 to 0/);
  });

  it('rolls back by template (kubectl rollout undo): the old ReplicaSet is new again, with its history', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 2));
    await h.until(() => rolledOut(h!, 'web'));
    await setImage(h, 'web', 'nginx:1.28');
    await h.until(() => rolledOut(h!, 'web'));
    const [first] = await ownedReplicaSets(h, await h.deployments.get('web'));
    // What `kubectl rollout undo` does: the old template, without its hash label.
    const template = structuredClone(first!.spec!.template!);
    delete template.metadata!.labels!['pod-template-hash'];
    await h.deployments.patch('web', { type: 'merge', body: { spec: { template } } });
    await h.until(() => rolledOut(h!, 'web'));
    const sets = await ownedReplicaSets(h, await h.deployments.get('web'));
    expect(sets.map((r) => r.metadata?.name)).toHaveLength(2);
    expect(sets[0]?.metadata?.name).toBe(first!.metadata?.name);
    expect(sizes(sets)).toEqual([2, 0]);
    expect(sets[0]?.metadata?.annotations?.[revisionAnnotation]).toBe('3');
    expect(sets[0]?.metadata?.annotations?.[revisionHistoryAnnotation]).toBe('1');
    expect((await h.deployments.get('web')).metadata?.annotations?.[revisionAnnotation]).toBe('3');
    expect(images(await activePods(h))).toEqual(['nginx:1.27', 'nginx:1.27']);
  });

  it('rolls back through the legacy annotation', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 1));
    await h.until(() => rolledOut(h!, 'web'));
    await setImage(h, 'web', 'nginx:1.28');
    await h.until(() => rolledOut(h!, 'web'));
    await h.deployments.patch('web', {
      type: 'merge',
      body: { metadata: { annotations: { 'deprecated.deployment.rollback.to': '0' } } },
    });
    await h.until(
      async () =>
        (await rolledOut(h!, 'web')) &&
        (await h!.deployments.get('web')).metadata?.annotations?.[revisionAnnotation] === '3',
    );
    const d = await h.deployments.get('web');
    expect(d.metadata?.annotations).not.toHaveProperty('deprecated.deployment.rollback.to');
    expect(d.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    expect(h.recorder.events).toContain(
      'Normal DeploymentRollback Rolled back deployment "web" to revision 1',
    );
  });

  it('does not roll out while paused: two edits and a resume give one rollout', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 2));
    await h.until(() => rolledOut(h!, 'web'));
    await h.deployments.patch('web', { type: 'merge', body: { spec: { paused: true } } });
    await h.until(
      async () =>
        getDeploymentCondition((await h!.deployments.get('web')).status, 'Progressing')?.reason ===
        'DeploymentPaused',
    );
    await setImage(h, 'web', 'nginx:1.28');
    await h.step(2000);
    await setImage(h, 'web', 'nginx:1.29');
    await h.step(2000);
    expect(await ownedReplicaSets(h, await h.deployments.get('web'))).toHaveLength(1);
    const paused = await h.deployments.get('web');
    expect(getDeploymentCondition(paused.status, 'Progressing')).toMatchObject({
      status: 'Unknown',
      message: 'Deployment is paused',
    });
    await h.deployments.patch('web', { type: 'merge', body: { spec: { paused: false } } });
    await h.until(async () => (await rolledOut(h!, 'web')) && (await activePods(h!)).length === 2);
    const sets = await ownedReplicaSets(h, await h.deployments.get('web'));
    expect(sets).toHaveLength(2);
    expect(sets.map((r) => r.spec?.template?.spec?.containers[0]?.image)).toEqual([
      'nginx:1.27',
      'nginx:1.29',
    ]);
    expect(images(await activePods(h))).toEqual(['nginx:1.29', 'nginx:1.29']);
  });

  it('scales a stuck rollout proportionally', async () => {
    h = await startHarness();
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await h.deployments.create(nginx('web', 10, { strategy }));
    await h.until(() => rolledOut(h!, 'web'));
    // An image that cannot be pulled: the rollout stops at 8 old + 5 new (13 − 8 − 5 = 0).
    await setImage(h, 'web', 'nginx:bad');
    await h.until(
      async () =>
        sizes(await ownedReplicaSets(h!, await h!.deployments.get('web'))).join() === '8,5',
    );
    await h.step(3000);
    expect(sizes(await ownedReplicaSets(h, await h.deployments.get('web')))).toEqual([8, 5]);
    h.recorder.events.length = 0;
    await h.deployments.patch('web', { type: 'merge', body: { spec: { replicas: 20 } } });
    // 23 allowed − 13 = 10 more: 8 × 23/13 → 14, 5 × 23/13 → 9.
    await h.until(
      async () =>
        sizes(await ownedReplicaSets(h!, await h!.deployments.get('web'))).join() === '14,9',
    );
    expect(h.recorder.events.filter((e) => e.includes('ScalingReplicaSet'))).toEqual([
      expect.stringMatching(/Scaled up replica set web-\w+ from 8 to 14/),
      expect.stringMatching(/Scaled up replica set web-\w+ from 5 to 9/),
    ]);
  });

  it('reports ProgressDeadlineExceeded when a rollout stops progressing', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 2, { progressDeadlineSeconds: 30 }));
    await h.until(() => rolledOut(h!, 'web'));
    await setImage(h, 'web', 'nginx:bad');
    const start = h.clock.now();
    await h.until(
      async () =>
        getDeploymentCondition((await h!.deployments.get('web')).status, 'Progressing')?.reason ===
        'ProgressDeadlineExceeded',
      120_000,
    );
    const elapsed = h.clock.now() - start;
    // Not before the deadline, and not long after it (the controller requeues itself at the deadline + 1 s).
    expect(elapsed).toBeGreaterThan(30_000);
    expect(elapsed).toBeLessThan(34_000);
    const d = await h.deployments.get('web');
    const newRS = (await ownedReplicaSets(h, d)).at(-1)!;
    expect(getDeploymentCondition(d.status, 'Progressing')).toMatchObject({
      status: 'False',
      message: `ReplicaSet "${newRS.metadata?.name}" has timed out progressing.`,
    });
    // The old pods keep serving.
    expect(getDeploymentCondition(d.status, 'Available')?.status).toBe('True');
  });

  it('does not count time spent paused against the progress deadline', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 2, { progressDeadlineSeconds: 10 }));
    await h.until(() => rolledOut(h!, 'web'));
    await h.deployments.patch('web', { type: 'merge', body: { spec: { paused: true } } });
    await setImage(h, 'web', 'nginx:bad');
    await h.step(60_000);
    const paused = await h.deployments.get('web');
    expect(getDeploymentCondition(paused.status, 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'DeploymentPaused',
    });
    const resumedAt = h.clock.now();
    await h.deployments.patch('web', { type: 'merge', body: { spec: { paused: false } } });
    await h.until(
      async () =>
        getDeploymentCondition((await h!.deployments.get('web')).status, 'Progressing')?.reason ===
        'ProgressDeadlineExceeded',
    );
    // Ten seconds from the resume (and the new ReplicaSet), not from the pause.
    expect(h.clock.now() - resumedAt).toBeGreaterThan(10_000);
    expect(h.clock.now() - resumedAt).toBeLessThan(14_000);
  });

  it('Recreate never runs old and new pods together', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 3, { strategy: { type: 'Recreate' } }));
    await h.until(() => rolledOut(h!, 'web'));
    // Watch every state the server goes through, not samples of it.
    let overlap = false;
    let sawGap = false;
    const unsubscribe = h.observe((world) => {
      const running = [...world.pods.values()].filter(
        (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
      );
      const old = running.some((p) => p.spec?.containers[0]?.image === 'nginx:1.27');
      const fresh = running.some((p) => p.spec?.containers[0]?.image === 'nginx:1.28');
      overlap ||= old && fresh;
      sawGap ||= !old && !fresh;
    });
    await setImage(h, 'web', 'nginx:1.28');
    await h.until(async () => (await rolledOut(h!, 'web')) && (await activePods(h!)).length === 3);
    unsubscribe();
    expect(overlap).toBe(false);
    expect(sawGap).toBe(true);
    expect(images(await activePods(h))).toEqual(Array(3).fill('nginx:1.28'));
  });

  it('keeps revisionHistoryLimit old ReplicaSets', async () => {
    h = await startHarness();
    await h.deployments.create(nginx('web', 1, { revisionHistoryLimit: 2 }));
    await h.until(() => rolledOut(h!, 'web'));
    for (const tag of ['1.28', '1.29', '1.30', '1.31']) {
      await setImage(h, 'web', `nginx:${tag}`);
      await h.until(
        async () => (await rolledOut(h!, 'web')) && (await activePods(h!)).length === 1,
      );
    }
    await h.step(2000);
    const sets = await ownedReplicaSets(h, await h.deployments.get('web'));
    expect(sets.map((r) => r.spec?.template?.spec?.containers[0]?.image)).toEqual([
      'nginx:1.29',
      'nginx:1.30',
      'nginx:1.31',
    ]);
    expect(sets.map((r) => r.metadata?.annotations?.[revisionAnnotation])).toEqual(['3', '4', '5']);
  });

  it('adopts a matching orphan ReplicaSet as its new one', async () => {
    h = await startHarness();
    const d = nginx('web', 2);
    const orphan: ReplicaSet = {
      metadata: { name: 'web-manual', labels: { app: 'web', 'pod-template-hash': 'manual' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': 'manual' } },
        template: {
          metadata: { labels: { app: 'web', 'pod-template-hash': 'manual' } },
          spec: d.spec!.template.spec!,
        },
      },
    };
    await h.replicaSets.create(orphan);
    await h.until(async () => (await activePods(h!)).filter(isReady).length === 2);
    const created: Deployment = await h.deployments.create(d);
    await h.until(() => rolledOut(h!, 'web'));
    const sets = await ownedReplicaSets(h, created);
    expect(sets.map((r) => r.metadata?.name)).toEqual(['web-manual']);
    expect(sets[0]?.metadata?.annotations?.[revisionAnnotation]).toBe('1');
    expect(h.recorder.events).toEqual([]);
  });
});
