// The README's quick start: the controller on a sandbox with three simulated
// nodes (node-1 the tainted control plane, as in kind), whose scheduler binds
// each daemon pod to its node and whose kubelets run it, on a fake clock.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
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
import { DaemonSetsController, concurrentDaemonSetSyncs } from '../src/index.js';
import { settle } from './helpers.js';

describe('quick start', () => {
  it('runs a node agent on every worker node', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 3 });
    const recorder = new FakeRecorder();
    const stop = new AbortController();
    const signal = stop.signal;
    // The factory's source: anything with resource(), such as @kcm-ts/client's Client.
    const source = {
      resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
        sandbox.client<T>(gvr.group, gvr.resource),
    };
    const daemonSets = sandbox.client<DaemonSet>('apps', 'daemonsets');
    const controllerRevisions = sandbox.client<ControllerRevision>('apps', 'controllerrevisions');
    const pods = sandbox.client<Pod>('', 'pods');

    //#region start-controller
    const factory = new SharedInformerFactory(source, 0, { clock });
    const controller = new DaemonSetsController({
      daemonSets: factory.daemonSets(),
      controllerRevisions: factory.controllerRevisions(),
      pods: factory.pods(),
      nodes: factory.nodes(),
      client: { daemonSets, controllerRevisions, pods },
      recorder, // Normal SuccessfulCreate "Created pod: node-agent-x7k2q", ...
      clock,
    });
    factory.start(signal); // after every controller has asked for its informers
    const running = controller.run(concurrentDaemonSetSyncs, signal); // 2 workers, as kube-controller-manager

    await daemonSets.inNamespace('default').create({
      metadata: { name: 'node-agent' },
      spec: {
        selector: { matchLabels: { app: 'node-agent' } },
        template: {
          metadata: { labels: { app: 'node-agent' } },
          spec: { containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    });
    //#endregion start-controller

    const available = async () =>
      (await daemonSets.inNamespace('default').get('node-agent')).status?.numberAvailable ?? 0;
    for (let i = 0; i < 300 && (await available()) < 2; i++) {
      await clock.advance(100);
      await settle();
    }
    const ds = await daemonSets.inNamespace('default').get('node-agent');
    // node-1 is the control plane: its NoSchedule taint keeps the agent off it.
    expect(ds.status).toMatchObject({ desiredNumberScheduled: 2, numberAvailable: 2 });
    const placed = (await pods.inNamespace('default').list()).items.map((p) => p.spec?.nodeName);
    expect(placed.sort()).toEqual(['node-2', 'node-3']);
    expect(recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(2);

    //#region stop
    stop.abort();
    await running; // every worker has stopped; the queue is shut down
    //#endregion stop
    await factory.shutdown();
    await sandbox.stop();
    expect(clock.hasWaiters()).toBe(false);
  });
});
