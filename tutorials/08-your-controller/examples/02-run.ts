// Chapter 8, the mirror in a manager: two copies of kube-controller-manager's
// run() against the sandbox, behind leader election, each with the mirror
// registered beside the garbage collector. Only the holder of the Lease
// reconciles; stopping it hands the Lease over and the other copy carries on.
// Everything runs on the test environment's fake clock, so the transcript is
// the same every time.
// Run: npm run mirror -w tutorials/08-your-controller
import type { GroupVersionResource, KubeObject, ResourceClient } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import {
  names,
  startGarbageCollectorController,
  startTestEnvironment,
  type RestClientSource,
  type corev1,
} from '@kcm-ts/manager';
import { configMapMirror } from './01-mirror.js';

/** A client source that reports the Secret writes sent through it. */
function reporting(inner: RestClientSource, say: (what: string) => void): RestClientSource {
  const wrap = <T extends KubeObject>(c: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(c, {
      get(target, prop) {
        if (prop === 'inNamespace') return (ns: string) => wrap(target.inNamespace(ns));
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function' || !['create', 'update', 'delete'].includes(String(prop)))
          return value;
        return (first: unknown, ...rest: unknown[]) => {
          const name = typeof first === 'string' ? first : (first as KubeObject).metadata?.name;
          say(`${String(prop)} secret ${name ?? ''}`);
          return (value as (...a: unknown[]) => unknown).call(target, first, ...rest);
        };
      },
    });
  return {
    resource: <T extends KubeObject>(
      gvr: GroupVersionResource,
      o: Parameters<RestClientSource['resource']>[1],
    ) => (gvr.resource === 'secrets' ? wrap(inner.resource<T>(gvr, o)) : inner.resource<T>(gvr, o)),
  };
}

/** Runs the experiment, printing what each copy does. */
export async function run(log: (line: string) => void = console.log): Promise<void> {
  const env = await startTestEnvironment();
  const start = env.clock.now();
  const say = (who: string, what: string) =>
    log(
      `t=${((env.clock.now() - start) / 1000).toFixed(1).padStart(4)}s  ${who.padEnd(9)}  ${what}`,
    );
  const cms = env.client<corev1.ConfigMap>(informerResources.configMaps, 'default');
  const mirrored = async (mode: string) => {
    const s = await env.sandbox.client('', 'secrets').inNamespace('default').get('app');
    return (s as { data?: Record<string, string> }).data?.mode === btoa(mode);
  };

  //#region copies
  const copy = (identity: string) =>
    env.runManager({
      identity,
      leaderElect: true,
      source: reporting(env.source, (what) => say(identity, what)),
      customControllers: { 'configmap-mirror': configMapMirror },
      controllers: { [names.garbageCollectorController]: startGarbageCollectorController },
      onControllersStarted: (started) => say(identity, `leads; runs ${started.join(', ')}`),
    });
  const a = copy('manager-a');
  await env.step(500);
  const b = copy('manager-b');
  //#endregion copies
  try {
    await cms.create({
      metadata: { name: 'app', labels: { mirror: 'true' } },
      data: { mode: 'fast' },
    });
    say('', 'created ConfigMap app (mirror=true, mode=fast)');
    await env.until(() => mirrored('fast').catch(() => false));
    await env.step(1000);

    await a.stop();
    say('manager-a', 'stopped (Lease released)');
    await env.until(() => b.started() !== undefined);
    const cm = await cms.get('app');
    await cms.update({ ...cm, data: { mode: 'faster' } });
    say('', 'updated ConfigMap app (mode=faster)');
    await env.until(() => mirrored('faster'));

    await cms.delete('app');
    say('', 'deleted ConfigMap app');
    await env.until(
      async () =>
        (await env.sandbox.client('', 'secrets').inNamespace('default').list()).items.length === 0,
    );
    say('', 'Secret app is gone');
  } finally {
    await env.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
