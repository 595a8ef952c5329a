import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  type GroupVersionResource,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { SharedInformerFactory } from '@kcm-ts/informer';
import { ReplicaSetController } from '@kcm-ts/replicaset';
import { startSandbox } from '@kcm-ts/sandbox';
import { expect, it } from 'vitest';
import { DeploymentController } from '../src/index.js';

it('rolls out a Deployment with the ReplicaSet controller beside it', async () => {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ clock, insecureHttp: true, nodes: 1 });
  const source = {
    resource: <T extends KubeObject>(gvr: GroupVersionResource) =>
      sandbox.client<T>(gvr.group, gvr.resource),
  };
  const recorder = new FakeRecorder();
  //#region controller
  const factory = new SharedInformerFactory(source, 0, { clock });
  const deployments = sandbox.client<Deployment>('apps', 'deployments');
  const replicaSets = sandbox.client<ReplicaSet>('apps', 'replicasets');
  const pods = sandbox.client<Pod>('', 'pods');
  const dc = new DeploymentController({
    deployments: factory.deployments(),
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { deployments, replicaSets, pods },
    recorder,
    clock,
  });
  // The Deployment controller writes ReplicaSets; pods come from this one.
  const rsc = new ReplicaSetController({
    replicaSets: factory.replicaSets(),
    pods: factory.pods(),
    client: { replicaSets, pods },
    clock,
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const running = Promise.all([dc.run(5, stop.signal), rsc.run(5, stop.signal)]);

  await deployments.inNamespace('default').create({
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  });
  //#endregion controller

  let web: Deployment | undefined;
  for (let i = 0; i < 100 && (web?.status?.availableReplicas ?? 0) < 3; i++) {
    await clock.advance(100);
    web = await deployments.inNamespace('default').get('web');
  }
  expect(web?.status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
  expect(recorder.events).toEqual([
    expect.stringMatching(/^Normal ScalingReplicaSet Scaled up replica set web-\w+ from 0 to 3$/),
  ]);

  stop.abort();
  await running;
  await factory.shutdown();
  await sandbox.stop();
  expect(clock.hasWaiters()).toBe(false);
});
