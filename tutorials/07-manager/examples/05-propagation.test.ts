import { expect, it } from 'vitest';
import { renderGraph } from './gc-svg.js';
import { run } from './05-propagation.js';

it('collects dependents in the background, deletes owners last in the foreground, and orphans on request', async () => {
  const lines: string[] = [];
  const { rounds, snapshots } = await run((line) => lines.push(line));
  const [dangling, background, foreground, orphan] = rounds as [
    (typeof rounds)[0],
    (typeof rounds)[0],
    (typeof rounds)[0],
    (typeof rounds)[0],
  ];
  const index = (steps: string[], text: string) => {
    const i = steps.findIndex((s) => s.includes(text));
    expect(i, text).toBeGreaterThanOrEqual(0);
    return i;
  };
  const lastIndex = (steps: string[], text: string) =>
    steps.reduce((last, s, i) => (s.includes(text) ? i : last), -1);

  // An owner nobody has seen becomes a virtual node; a worker asks the API
  // server, hears 404, and the dependent whose only owner is gone goes.
  expect(dangling.steps[0]).toContain('attemptToDelete ← Deployment old-nginx (virtual)');
  expect(index(dangling.steps, 'GET Deployment old-nginx: 404')).toBeLessThan(
    index(dangling.steps, 'DELETE ConfigMap leftover'),
  );
  expect(dangling.left).not.toContain('ConfigMap leftover');
  expect(dangling.left).toContain('Deployment nginx-deployment');

  // Background: the Deployment goes at once; the collector then deletes its
  // dependents, and theirs. Their owner is in the absent-owner cache, so no
  // worker asks the API server about it again.
  expect(background.steps[0]).toContain('Deployment nginx-deployment is gone');
  expect(background.steps.join('\n')).toContain(
    'DELETE ReplicaSet nginx-deployment-7f4d79f7d7 (propagationPolicy Background)',
  );
  expect(background.steps.some((s) => s.includes('404'))).toBe(false);
  expect(background.left).toEqual([]);

  // Foreground: the Deployment waits, with the foregroundDeletion finalizer,
  // until every dependent that blocks it is gone; the ReplicaSet, which has
  // dependents of its own, is deleted in the foreground too.
  expect(foreground.steps[0]).toContain('finalizers [foregroundDeletion]');
  expect(foreground.steps.join('\n')).toContain(
    'DELETE ReplicaSet nginx-deployment-7f4d79f7d7 (propagationPolicy Foreground)',
  );
  const deploymentGone = index(foreground.steps, 'Deployment nginx-deployment is gone');
  expect(deploymentGone).toBe(foreground.steps.length - 1);
  expect(
    lastIndex(foreground.steps, 'ReplicaSet nginx-deployment-7f4d79f7d7 is gone'),
  ).toBeLessThan(deploymentGone);
  expect(lastIndex(foreground.steps, 'Pod nginx-deployment-7f4d79f7d7-xxxxx is gone')).toBeLessThan(
    index(foreground.steps, 'ReplicaSet nginx-deployment-7f4d79f7d7 is gone'),
  );
  expect(foreground.left).toEqual([]);

  // Orphan: the owner goes to attemptToOrphan; its dependents lose their
  // reference to it before its orphan finalizer is removed, and stay.
  expect(orphan.steps[0]).toContain('finalizers [orphan]');
  expect(orphan.steps[1]).toContain('attemptToOrphan ← Deployment nginx-deployment');
  expect(lastIndex(orphan.steps, 'remove the ownerReference to Deployment')).toBeLessThan(
    index(orphan.steps, 'PATCH Deployment nginx-deployment: finalizers []'),
  );
  expect(orphan.steps.some((s) => s.startsWith('t=') && s.includes('DELETE'))).toBe(false);
  const rs = orphan.leftObjects.find((o) => o.kind === 'ReplicaSet')!;
  expect(rs.metadata?.ownerReferences ?? []).toEqual([]);
  const pods = orphan.leftObjects.filter((o) => o.kind === 'Pod');
  expect(pods).toHaveLength(3);
  for (const pod of pods) expect(pod.metadata?.ownerReferences?.[0]?.uid).toBe(rs.metadata?.uid);

  // The four copies of the graph the picture is drawn from.
  const node = (i: number, name: string) => snapshots[i]!.nodes.find((n) => n.name === name)!;
  const queued = (i: number) => snapshots[i]!.queued.map((q) => `${q.queue} ${q.uid}`);
  expect(node(0, 'old-nginx')).toMatchObject({ virtual: true, kind: 'Deployment' });
  expect(queued(0)).toEqual([`attemptToDelete ${node(0, 'old-nginx').uid}`]);
  expect(node(1, 'nginx-deployment')).toMatchObject({ gone: true });
  expect(snapshots[1]!.queued.map((q) => q.queue)).toEqual(['attemptToDelete', 'attemptToDelete']);
  expect(node(2, 'nginx-deployment')).toMatchObject({
    beingDeleted: true,
    deletingDependents: true,
  });
  expect(queued(2)).toContain(`attemptToDelete ${node(2, 'nginx-deployment').uid}`);
  expect(node(3, 'nginx-deployment')).toMatchObject({
    beingDeleted: true,
    deletingDependents: false,
  });
  expect(queued(3)).toEqual([`attemptToOrphan ${node(3, 'nginx-deployment').uid}`]);

  await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__output__/05-propagation.txt');
  await expect(renderGraph(snapshots)).toMatchFileSnapshot('../gc-graph.svg');
});
