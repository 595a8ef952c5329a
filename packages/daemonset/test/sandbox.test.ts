// The DaemonSet controller against an in-process sandbox apiserver with
// three simulated nodes on a fake clock: the sandbox's scheduler binds each
// pod to the node its required node affinity pins it to (with kube-
// scheduler's filters: taints, node affinity), and its kubelets run the pods
// and make them ready. node-1 is the control plane, tainted NoSchedule, as
// in kind. Covers what the unit tables cannot: the informer round trip,
// expectations observed through real watch events, the revision history
// in the API server, and a rolling update that really converges.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
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
import {
  DaemonSetsController,
  concurrentDaemonSetSyncs,
  controllerRevisionHashLabelKey,
} from '../src/index.js';
import { settle } from './helpers.js';

interface Harness {
  sandbox: Sandbox;
  clock: FakeClock;
  recorder: FakeRecorder;
  dsIn: ResourceClient<DaemonSet>;
  podsIn: ResourceClient<Pod>;
  revisionsIn: ResourceClient<ControllerRevision>;
  until(cond: () => Promise<boolean>, maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function startHarness(): Promise<Harness> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 3 });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const recorder = new FakeRecorder();
  const factory = new SharedInformerFactory(source, 0, { clock });
  const controller = new DaemonSetsController({
    daemonSets: factory.daemonSets(),
    controllerRevisions: factory.controllerRevisions(),
    pods: factory.pods(),
    nodes: factory.nodes(),
    client: {
      daemonSets: sandbox.client<DaemonSet>('apps', 'daemonsets'),
      controllerRevisions: sandbox.client<ControllerRevision>('apps', 'controllerrevisions'),
      pods: sandbox.client<Pod>('', 'pods'),
    },
    recorder,
    clock,
  });
  const abort = new AbortController();
  factory.start(abort.signal);
  const running = controller.run(concurrentDaemonSetSyncs, abort.signal);
  await settle();
  await clock.advance(100);
  await settle();
  const h: Harness = {
    sandbox,
    clock,
    recorder,
    dsIn: sandbox.client<DaemonSet>('apps', 'daemonsets').inNamespace('default'),
    podsIn: sandbox.client<Pod>('', 'pods').inNamespace('default'),
    revisionsIn: sandbox
      .client<ControllerRevision>('apps', 'controllerrevisions')
      .inNamespace('default'),
    async until(cond, maxMs = 120_000) {
      for (let t = 0; t <= maxMs; t += 200) {
        if (await cond()) return;
        await clock.advance(200);
        await settle(4);
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

let h: Harness;
afterEach(async () => {
  await h.stop();
  // Nothing left behind on the fake clock: every timer of the controller stopped.
  expect(h.clock.hasWaiters()).toBe(false);
});

const isReady = (p: Pod) =>
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function daemonSet(name: string): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    },
  };
}

describe('the DaemonSet controller on a sandbox with 3 nodes', () => {
  it('runs on the 2 workers, on all 3 with a control-plane toleration, and rolls an image out', async () => {
    h = await startHarness();
    const nodes = await h.sandbox.client<Node>('', 'nodes').list();
    expect(nodes.items.map((n) => n.metadata?.name).sort()).toEqual(['node-1', 'node-2', 'node-3']);

    await h.dsIn.create(daemonSet('agent'));
    const live = async () =>
      (await h.podsIn.list()).items.filter((p) => !p.metadata?.deletionTimestamp);
    const placement = async () => (await live()).map((p) => p.spec?.nodeName ?? '').sort();
    await h.until(async () => {
      const pods = await live();
      return pods.length === 2 && pods.every(isReady);
    });
    expect(await placement()).toEqual(['node-2', 'node-3']);
    await h.until(async () => (await h.dsIn.get('agent')).status?.numberAvailable === 2);
    expect((await h.dsIn.get('agent')).status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberReady: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
      observedGeneration: 1,
    });
    expect(h.recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(
      2,
    );

    // A toleration for the control plane's taint: node-1 too.
    const tolerate = await h.dsIn.get('agent');
    tolerate.spec!.template.spec!.tolerations = [
      { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
    ];
    await h.dsIn.update(tolerate);
    await h.until(async () => {
      const ds = await h.dsIn.get('agent');
      const pods = await live();
      return (
        pods.length === 3 &&
        pods.every(isReady) &&
        ds.status?.updatedNumberScheduled === 3 &&
        ds.status?.numberAvailable === 3
      );
    });
    expect(await placement()).toEqual(['node-1', 'node-2', 'node-3']);

    // A new image rolls out, one node at a time (maxUnavailable defaults to 1).
    const image = await h.dsIn.get('agent');
    image.spec!.template.spec!.containers[0]!.image = 'agent:2';
    await h.dsIn.update(image);
    let mostUnavailable = 0;
    await h.until(async () => {
      const ds = await h.dsIn.get('agent');
      const pods = await live();
      mostUnavailable = Math.max(mostUnavailable, 3 - pods.filter(isReady).length);
      return (
        ds.status?.observedGeneration === ds.metadata?.generation &&
        ds.status?.updatedNumberScheduled === 3 &&
        ds.status?.numberAvailable === 3 &&
        pods.length === 3 &&
        pods.every((p) => p.spec?.containers[0]?.image === 'agent:2' && isReady(p))
      );
    });
    expect(mostUnavailable).toBeLessThanOrEqual(1);
    expect(await placement()).toEqual(['node-1', 'node-2', 'node-3']);

    // Three templates, three revisions; the pods carry the newest one's hash.
    const revisions = (await h.revisionsIn.list()).items.sort((a, b) => a.revision - b.revision);
    expect(revisions.map((r) => r.revision)).toEqual([1, 2, 3]);
    const hash = revisions[2]!.metadata!.labels![controllerRevisionHashLabelKey];
    for (const p of await live()) {
      expect(p.metadata?.labels?.[controllerRevisionHashLabelKey]).toBe(hash);
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'DaemonSet', name: 'agent' });
    }

    // `kubectl rollout undo daemonset/agent`: revision 2's data, a strategic
    // merge patch replacing the template, applied to the DaemonSet.
    await h.dsIn.patch('agent', { type: 'strategic', body: revisions[1]!.data! });
    await h.until(async () => {
      const ds = await h.dsIn.get('agent');
      const pods = await live();
      return (
        ds.status?.observedGeneration === ds.metadata?.generation &&
        ds.status?.updatedNumberScheduled === 3 &&
        ds.status?.numberAvailable === 3 &&
        pods.length === 3 &&
        pods.every((p) => p.spec?.containers[0]?.image === 'agent:1' && isReady(p))
      );
    });
    // The old revision is current again, renumbered: no new revision.
    const after = (await h.revisionsIn.list()).items.sort((a, b) => a.revision - b.revision);
    expect(after.map((r) => [r.metadata?.name, r.revision])).toEqual([
      [revisions[0]!.metadata?.name, 1],
      [revisions[2]!.metadata?.name, 3],
      [revisions[1]!.metadata?.name, 4],
    ]);
  }, 60_000);
});
