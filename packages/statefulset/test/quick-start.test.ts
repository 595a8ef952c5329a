// The README's quick start: the controller on a sandbox with one simulated
// node, whose kubelet runs the pods of the Kubernetes documentation's `web`
// StatefulSet, on a fake clock.
import type { ControllerRevision, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import { StatefulSetController, concurrentStatefulSetSyncs } from '../src/index.js';
import { settle } from './helpers.js';

describe('quick start', () => {
  it('runs web-0, web-1 and web-2, one after the other', async () => {
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
    const statefulSets = sandbox.client<StatefulSet>('apps', 'statefulsets');
    const pods = sandbox.client<Pod>('', 'pods');
    const persistentVolumeClaims = sandbox.client<PersistentVolumeClaim>(
      '',
      'persistentvolumeclaims',
    );
    const controllerRevisions = sandbox.client<ControllerRevision>('apps', 'controllerrevisions');

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new StatefulSetController({
      pods: factory.pods(),
      statefulSets: factory.statefulSets(),
      persistentVolumeClaims: factory.persistentVolumeClaims(),
      controllerRevisions: factory.controllerRevisions(),
      client: { statefulSets, pods, persistentVolumeClaims, controllerRevisions },
      recorder, // Normal SuccessfulCreate "create Pod web-0 in StatefulSet web successful", ...
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentStatefulSetSyncs, signal); // 5 workers

    await statefulSets.inNamespace('default').create({
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        serviceName: 'nginx',
        selector: { matchLabels: { app: 'nginx' } },
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: { containers: [{ name: 'nginx', image: 'registry.k8s.io/nginx-slim:0.24' }] },
        },
      },
    });
    //#endregion start-controller

    const ready = async () => (await statefulSets.inNamespace('default').get('web')).status;
    for (let i = 0; i < 600 && (await ready())?.readyReplicas !== 3; i++) {
      await clock.advance(100);
      await settle();
    }
    expect(await ready()).toMatchObject({ replicas: 3, readyReplicas: 3 });
    expect(recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toEqual([
      'Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful',
      'Normal SuccessfulCreate create Pod web-1 in StatefulSet web successful',
      'Normal SuccessfulCreate create Pod web-2 in StatefulSet web successful',
    ]);

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queue is shut down
    //#endregion stop
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
