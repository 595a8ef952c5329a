// The README's quick start: the pattern every pod-owning controller's sync
// follows, with expectations, PodControl and the ControllerRefManager, on
// an in-process sandbox and a fake clock.
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  FakeClock,
  FakeRecorder,
  labelSelectorAsSelector,
  newControllerRef,
  type GroupVersionKind,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { startSandbox } from '@kcm-ts/sandbox';
import { describe, expect, it } from 'vitest';
import {
  ControllerExpectations,
  PodControllerRefManager,
  RealPodControl,
  filterActivePods,
  slowStartBatch,
  slowStartInitialBatchSize,
} from '../src/index.js';

describe('quick start', () => {
  it('claims, counts and creates the pods an owner is missing, once', async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({ clock, insecureHttp: true });
    const pods = sandbox.client<Pod>('', 'pods');
    const recorder = new FakeRecorder();
    const kind: GroupVersionKind = { group: 'example.com', version: 'v1', kind: 'Runner' };
    const owner = {
      apiVersion: 'example.com/v1',
      kind: 'Runner',
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
    } as KubeObject;
    const selector = { matchLabels: { app: 'web' } };
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    };
    await pods.inNamespace('default').create({
      metadata: { name: 'orphan', labels: { app: 'web' } },
      spec: template.spec,
    });

    //#region sync
    const expectations = new ControllerExpectations({ clock });
    const podControl = new RealPodControl({ client: pods, recorder });
    const key = 'default/web';

    async function sync(want: number): Promise<void> {
      // Until the informer has seen what the last sync asked for, do nothing more.
      if (!expectations.satisfiedExpectations(key)) return;
      const all = (await pods.inNamespace('default').list()).items;
      // Adopt matching orphans, release owned pods that no longer match.
      const claimed = await new PodControllerRefManager(
        podControl,
        owner,
        labelSelectorAsSelector(selector),
        kind,
      ).claimPods(all);
      const missing = want - filterActivePods(claimed).length;
      if (missing <= 0) return;
      expectations.expectCreations(key, missing);
      const { successes } = await slowStartBatch(missing, slowStartInitialBatchSize, () =>
        podControl.createPods('default', template, owner, newControllerRef(owner, kind)),
      );
      // Creations that failed will never be observed: stop waiting for them.
      for (let i = successes; i < missing; i++) expectations.creationObserved(key);
    }
    //#endregion sync

    await sync(3);
    // The informer's add handler: each create observed once.
    expectations.creationObserved(key);
    expect(expectations.satisfiedExpectations(key)).toBe(false);
    expectations.creationObserved(key);
    const owned = (await pods.inNamespace('default').list()).items;
    expect(owned).toHaveLength(3);
    for (const pod of owned) {
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
        uid: 'uid-web',
        controller: true,
      });
    }
    expect(recorder.events.filter((e) => e.startsWith('Normal SuccessfulCreate'))).toHaveLength(2);
    await sync(3);
    expect((await pods.inNamespace('default').list()).items).toHaveLength(3);
    await sandbox.stop();
  });
});
