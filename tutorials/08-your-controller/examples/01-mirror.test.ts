// The mirror controller under test: the test environment's sandbox, the
// manager's run() and one fake clock, so each case takes milliseconds.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import {
  names,
  startGarbageCollectorController,
  startTestEnvironment,
  type TestEnvironment,
  type corev1,
} from '@kcm-ts/manager';
import { configMapMirror } from './01-mirror.js';

const { configMaps, secrets } = informerResources;
let env: TestEnvironment;
let cms: ResourceClient<corev1.ConfigMap>;
let secs: ResourceClient<corev1.Secret>;

//#region harness
beforeEach(async () => {
  env = await startTestEnvironment();
  env.runManager({
    customControllers: { 'configmap-mirror': configMapMirror },
    // kube-controller-manager's garbage collector deletes what the ConfigMap owns.
    controllers: { [names.garbageCollectorController]: startGarbageCollectorController },
  });
  cms = env.client<corev1.ConfigMap>(configMaps, 'default');
  secs = env.client<corev1.Secret>(secrets, 'default');
});
afterEach(() => env.stop());

/** The mirrored data, decoded; undefined while there is no Secret. */
async function mirrored(name: string): Promise<Record<string, string> | undefined> {
  const s = (await secs.list()).items.find((x) => x.metadata?.name === name);
  if (s === undefined) return undefined;
  const data = Object.entries(s.data ?? {});
  return Object.fromEntries(data.map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
}
//#endregion harness

it('mirrors a labelled ConfigMap, follows its changes, and leaves others alone', async () => {
  await cms.create({
    metadata: { name: 'app', labels: { mirror: 'true' } },
    data: { mode: 'fast' },
  });
  await cms.create({ metadata: { name: 'plain' }, data: { mode: 'slow' } });
  await env.until(async () => (await mirrored('app'))?.mode === 'fast');
  const secret = await secs.get('app');
  expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'ConfigMap',
    name: 'app',
    controller: true,
  });

  const cm = await cms.get('app');
  await cms.update({ ...cm, data: { mode: 'faster', extra: 'ü' } });
  await env.until(async () => (await mirrored('app'))?.mode === 'faster');
  expect(await mirrored('app')).toEqual({ mode: 'faster', extra: 'ü' });

  // A deleted mirror is put back; an edited one is put right.
  await secs.delete('app');
  await env.until(async () => (await mirrored('app')) !== undefined);
  const again = await secs.get('app');
  await secs.update({ ...again, data: { mode: 'dGFtcGVyZWQ=' } });
  await env.until(async () => (await mirrored('app'))?.mode === 'faster');

  await env.step(2000);
  expect(await mirrored('plain')).toBeUndefined();
});

it('removes the Secret when the label goes, and the garbage collector when the ConfigMap does', async () => {
  await cms.create({ metadata: { name: 'a', labels: { mirror: 'true' } }, data: { k: '1' } });
  await cms.create({ metadata: { name: 'b', labels: { mirror: 'true' } }, data: { k: '2' } });
  await env.until(
    async () => (await mirrored('a')) !== undefined && (await mirrored('b')) !== undefined,
  );

  const a = await cms.get('a');
  await cms.update({ ...a, metadata: { ...a.metadata, labels: {} } });
  await env.until(async () => (await mirrored('a')) === undefined);

  await cms.delete('b');
  await env.until(async () => (await mirrored('b')) === undefined);
});

//#region fault
it('survives failing and conflicting writes, on the fake clock in well under a second', async () => {
  const started = performance.now();
  // The next three Secret creates answer 500, the next update 409 Conflict.
  env.faults.failNext(3, { code: 500 }, { verbs: ['create'], resource: 'secrets' });
  await cms.create({ metadata: { name: 'app', labels: { mirror: 'true' } }, data: { v: '1' } });
  await env.until(async () => (await mirrored('app'))?.v === '1');
  expect(env.faults.counts()['create secrets']).toBe(4); // three failures, retried with backoff

  env.faults.conflictNext(1, { resource: 'secrets' });
  const cm = await cms.get('app');
  await cms.update({ ...cm, data: { v: '2' } });
  await env.until(async () => (await mirrored('app'))?.v === '2');
  expect(performance.now() - started).toBeLessThan(1000);
});
//#endregion fault
