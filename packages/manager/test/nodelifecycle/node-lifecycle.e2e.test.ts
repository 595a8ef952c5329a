// The node lifecycle and taint eviction controllers in the whole manager,
// against a sandbox of three nodes on a fake clock: node-2's kubelet stops,
// the node goes Unknown and is tainted unreachable, its Deployment pod is
// evicted once its toleration runs out and comes back on another node while
// the DaemonSet's pod there stays (the controller makes it tolerate the
// taint for good), and when the kubelet starts again the taints come off.
import type { DaemonSet, Deployment } from 'kubernetes-types/apps/v1.js';
import type { Event, Node, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { FakeClock, type GroupVersionResource, type KubeObject } from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import { defaultConfiguration, run } from '../../src/index.js';
import { TestDiscovery, until } from '../garbagecollector/helpers.js';

const tolerationSeconds = 30;

describe('node lifecycle in the manager', () => {
  it('evicts the pods of a node whose kubelet stopped, and untaints it when it is back', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({
      clock,
      insecureHttp: true,
      nodes: 3,
      podStartDelay: 100,
      podReadyDelay: 100,
    });
    const config = defaultConfiguration();
    config.secureServing.securePort = 0;
    config.generic.leaderElection.leaderElect = false;
    const stop = new AbortController();
    const manager = run(
      {
        config,
        apiServer: {
          source: {
            resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
              sandbox.client<T>(gvr.group, gvr.resource),
          },
          discovery: new TestDiscovery(),
        },
        clock,
      },
      stop.signal,
    );
    const nodes = sandbox.client<Node>('', 'nodes');
    const pods = sandbox.client<Pod>('', 'pods').inNamespace('default');
    const deployments = sandbox.client<Deployment>('apps', 'deployments').inNamespace('default');
    const events = sandbox.client<Event>('', 'events').inNamespace('default');
    const daemonSets = sandbox.client<DaemonSet>('apps', 'daemonsets').inNamespace('default');
    const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');
    const unreachable = (node: Node) =>
      node.spec?.taints?.find(
        (t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute',
      );
    try {
      await deployments.create({
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [{ name: 'web', image: 'nginx' }],
              // What kube-apiserver's DefaultTolerationSeconds admission would add (300 s there).
              tolerations: [
                {
                  key: 'node.kubernetes.io/unreachable',
                  operator: 'Exists',
                  effect: 'NoExecute',
                  tolerationSeconds,
                },
                {
                  key: 'node.kubernetes.io/not-ready',
                  operator: 'Exists',
                  effect: 'NoExecute',
                  tolerationSeconds,
                },
              ],
            },
          },
        },
      });
      await daemonSets.create({
        metadata: { name: 'agent' },
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: {
            metadata: { labels: { app: 'agent' } },
            spec: { containers: [{ name: 'agent', image: 'fluentd' }] },
          },
        },
      });
      await until(
        clock,
        async () =>
          (await deployments.get('web')).status?.availableReplicas === 2 &&
          (await daemonSets.get('agent')).status?.numberAvailable === 2,
        'the Deployment and the DaemonSet to be available',
        { step: 500, maxSteps: 200 },
      );
      const agentOnNode2 = (await pods.list({ labelSelector: 'app=agent' })).items.find(
        (p) => p.spec?.nodeName === 'node-2',
      );
      expect(agentOnNode2).toBeDefined();
      const onNode2 = (await pods.list({ labelSelector: 'app=web' })).items.filter(
        (p) => p.spec?.nodeName === 'node-2' && !p.metadata?.deletionTimestamp,
      );
      expect(onNode2).toHaveLength(1);
      const victim = onNode2[0]!.metadata!.name!;

      sandbox.faults.stopKubelet('node-2');

      // After the grace period: Unknown, with the upstream reason and message, and tainted.
      await until(
        clock,
        async () => ready(await nodes.get('node-2'))?.status === 'Unknown',
        'node-2 to go Unknown',
        { step: 1000, maxSteps: 200 },
      );
      const silent = await nodes.get('node-2');
      expect(ready(silent)).toMatchObject({
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      });
      for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure']) {
        expect(silent.status?.conditions?.find((c) => c.type === type)?.status).toBe('Unknown');
      }
      expect(ready(await nodes.get('node-1'))?.status).toBe('True');
      expect(ready(await nodes.get('node-3'))?.status).toBe('True');
      await until(
        clock,
        async () => unreachable(await nodes.get('node-2')) !== undefined,
        'the unreachable NoExecute taint',
        { step: 100, maxSteps: 200 },
      );
      const tainted = await nodes.get('node-2');
      expect(tainted.spec?.taints).toContainEqual({
        key: 'node.kubernetes.io/unreachable',
        effect: 'NoSchedule',
        timeAdded: expect.any(String) as string,
      });
      const taintedAt = Date.parse(unreachable(tainted)!.timeAdded!);
      // The pod on node-2 is marked not ready, and not deleted yet: it tolerates the taint for a while.
      await until(
        clock,
        async () =>
          (await pods.get(victim)).status?.conditions?.find((c) => c.type === 'Ready')?.status ===
          'False',
        'the pod on node-2 to be marked not ready',
        { step: 100, maxSteps: 100 },
      );
      expect((await pods.get(victim)).metadata?.deletionTimestamp).toBeUndefined();

      // Once its toleration has run out: deleted (it stays Terminating, its kubelet being
      // stopped), marked as a disruption target, and replaced on another node.
      await until(
        clock,
        async () => (await pods.get(victim)).metadata?.deletionTimestamp !== undefined,
        'the pod on node-2 to be deleted',
        { step: 1000, maxSteps: 100 },
      );
      const evicted = await pods.get(victim);
      expect(Date.parse(evicted.metadata!.deletionTimestamp!) - taintedAt).toBeGreaterThanOrEqual(
        (tolerationSeconds - 1) * 1000,
      );
      expect(evicted.status?.conditions).toContainEqual(
        expect.objectContaining({
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'DeletionByTaintManager',
          message: 'Taint manager: deleting due to NoExecute taint',
        }),
      );
      await until(
        clock,
        async () => (await deployments.get('web')).status?.availableReplicas === 2,
        'the Deployment to be available again',
        { step: 500, maxSteps: 200 },
      );
      const live = (await pods.list({ labelSelector: 'app=web' })).items.filter(
        (p) => !p.metadata?.deletionTimestamp,
      );
      expect(live).toHaveLength(2);
      expect(live.every((p) => p.spec?.nodeName === 'node-3')).toBe(true);
      await until(
        clock,
        async () =>
          (await events.list()).items.some(
            (e) =>
              e.reason === 'TaintManagerEviction' &&
              e.message === `Marking for deletion Pod default/${victim}`,
          ),
        'the TaintManagerEviction event',
      );
      // The DaemonSet's pod on node-2 is not evicted: it tolerates the taint without end.
      const agent = await pods.get(agentOnNode2!.metadata!.name!);
      expect(agent.metadata?.deletionTimestamp).toBeUndefined();
      expect(agent.spec?.tolerations).toContainEqual({
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
      });
      const reasons = (await events.list()).items
        .filter((e) => e.involvedObject.name === victim)
        .map((e) => e.reason);
      expect(reasons).toContain('NodeNotReady');

      // The kubelet is back: Ready, and both the NoExecute and the NoSchedule taints come off.
      await sandbox.faults.startKubelet('node-2');
      await until(
        clock,
        async () => {
          const node = await nodes.get('node-2');
          return (
            ready(node)?.status === 'True' &&
            !(node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/unreachable')
          );
        },
        'node-2 to be Ready and untainted',
        { step: 1000, maxSteps: 100 },
      );
      const nodeEvents = await sandbox.client<Event>('', 'events').list();
      expect(
        nodeEvents.items.some(
          (e) =>
            e.reason === 'NodeNotReady' &&
            e.involvedObject.kind === 'Node' &&
            e.message === 'Node node-2 status is now: NodeNotReady',
        ),
      ).toBe(true);
    } finally {
      stop.abort();
      await manager;
      await sandbox.stop();
    }
  }, 120_000);
});
