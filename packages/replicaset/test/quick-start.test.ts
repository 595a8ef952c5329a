// The README's quick start: the controller on a sandbox with one simulated
// node, on a fake clock.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import { ReplicaSetController, concurrentRSSyncs } from '../src/index.js';
import { settle } from './helpers.js';

describe('quick start', () => {
  it('keeps spec.replicas pods running', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 1 });
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    // The factory's source: anything with resource(), such as @kcm-ts/client's Client.
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    };
    const replicaSets = sandbox.client<ReplicaSet>('apps', 'replicasets');
    const pods = sandbox.client<Pod>('', 'pods');

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new ReplicaSetController({
      replicaSets: factory.replicaSets(),
      pods: factory.pods(),
      client: { replicaSets, pods },
      recorder, // Normal SuccessfulCreate "Created pod: web-x7k2q", ...
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentRSSyncs, signal); // 5 workers, as kube-controller-manager

    await replicaSets.inNamespace('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
    //#endregion start-controller

    for (let i = 0; i < 100; i++) {
      const rs = await replicaSets.inNamespace('default').get('web');
      if (rs.status?.readyReplicas === 3) break;
      await clock.advance(100);
      await settle();
    }
    const rs = await replicaSets.inNamespace('default').get('web');
    expect(rs.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(3);

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queue is shut down
    //#endregion stop
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
