// The README's ReplicationController quick start: the manager on a sandbox
// with one simulated node, on a fake clock.
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import { ReplicationManager, concurrentRCSyncs } from '../../src/index.js';
import { settle } from '../helpers.js';

describe('ReplicationController quick start', () => {
  it('keeps spec.replicas pods running for a ReplicationController', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 1 });
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    };
    const replicationControllers = sandbox.client<ReplicationController>(
      '',
      'replicationcontrollers',
    );
    const pods = sandbox.client<Pod>('', 'pods');

    //#region start-replication-manager
    const factory = new SharedInformerFactory(source, 0, { clock });
    const manager = new ReplicationManager({
      replicationControllers: factory.replicationControllers(),
      pods: factory.pods(),
      client: { replicationControllers, pods },
      recorder, // kube-controller-manager's source: replication-controller
      clock,
    });
    factory.start(signal);
    const running = manager.run(concurrentRCSyncs, signal); // --concurrent-rc-syncs, 5

    await replicationControllers.inNamespace('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { app: 'web' }, // a label map, not a LabelSelector
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    //#endregion start-replication-manager

    for (let i = 0; i < 100; i++) {
      const rc = await replicationControllers.inNamespace('default').get('web');
      if (rc.status?.readyReplicas === 3) break;
      await clock.advance(100);
      await settle();
    }
    const rc = await replicationControllers.inNamespace('default').get('web');
    expect(rc.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const owned = (await pods.inNamespace('default').list()).items.map(
      (p) => p.metadata?.ownerReferences?.[0]?.kind,
    );
    expect(owned).toEqual([
      'ReplicationController',
      'ReplicationController',
      'ReplicationController',
    ]);

    stop.abort();
    await running;
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
