// Chapter 3: the kubelet's three strategies side by side. Twenty pods on a
// node reference the same Secret and read it every 10 s for five minutes (on
// a fake clock, against the sandbox); at 2 min 05 s someone changes it. For
// each strategy: the requests that reached the API server, and how long after
// the change the pods first read the new value.
// Run: npm run strategies -w tutorials/03-object-store
import { FakeClock, type KubeObject, type ResourceClient } from '@kcm-ts/apimachinery';
import { newSecretManager, type ChangeDetectionStrategy } from '@kcm-ts/object-store';
import { startSandbox } from '@kcm-ts/sandbox';
import type { Pod, Secret } from 'kubernetes-types/core/v1.js';

//#region counting
/** Wraps a client so that every request it makes is counted, by verb. */
export function counting<T extends KubeObject>(
  inner: ResourceClient<T>,
): { client: ResourceClient<T>; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const wrap = (target: ResourceClient<T>): ResourceClient<T> =>
    new Proxy(target, {
      get(t, verb) {
        if (verb === 'inNamespace') return (ns: string) => wrap(t.inNamespace(ns));
        const value: unknown = Reflect.get(t, verb);
        if (typeof value !== 'function' || typeof verb !== 'string') return value;
        return (...args: unknown[]) => {
          counts.set(verb, (counts.get(verb) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return { client: wrap(inner), counts };
}
//#endregion counting

/** Lets in-process watch events and fetches run between clock steps. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const podUsing = (secret: string, i: number): Pod => ({
  metadata: { namespace: 'default', name: `web-${i}`, uid: `uid-${i}` },
  spec: {
    containers: [{ name: 'app', image: 'nginx', envFrom: [{ secretRef: { name: secret } }] }],
  },
});

/** What one strategy cost and how fresh it was. */
export interface Measurement {
  strategy: ChangeDetectionStrategy;
  requests: string;
  /** Milliseconds from the change to the first read that returned it. */
  staleFor: number;
}

async function measure(strategy: ChangeDetectionStrategy): Promise<Measurement> {
  const clock = new FakeClock();
  // In-process clients only: no HTTPS, so no certificates to make.
  const sandbox = await startSandbox({ clock, insecureHttp: true });
  try {
    const secrets = sandbox.client<Secret>('', 'secrets').inNamespace('default');
    await secrets.create({ metadata: { name: 'db' }, stringData: { password: 'one' } });
    const { client, counts } = counting(sandbox.client<Secret>('', 'secrets'));
    const stop = new AbortController();

    //#region measure
    const manager = newSecretManager(client, { strategy, clock, signal: stop.signal });
    const pods = Array.from({ length: 20 }, (_, i) => podUsing('db', i));
    for (const pod of pods) manager.registerPod(pod);
    const start = clock.now();
    let changedAt: number | undefined;
    let seenAt: number | undefined;
    while (clock.now() - start < 300_000) {
      // Every pod reads the Secret, as the kubelet does for each pod's sync.
      const read = await Promise.all(pods.map(() => manager.getObject('default', 'db')));
      const fresh = read.every((s) => s.data?.password === btoa('two'));
      if (changedAt !== undefined && seenAt === undefined && fresh) seenAt = clock.now();
      await clock.advance(5_000);
      if (clock.now() - start === 125_000) {
        await secrets.patch('db', { type: 'merge', body: { stringData: { password: 'two' } } });
        changedAt = clock.now();
      }
      await settle();
      await clock.advance(5_000);
      await settle();
    }
    //#endregion measure

    stop.abort();
    await manager.stopped();
    const requests = [...counts].map(([verb, n]) => `${n} ${verb}`).join(', ');
    return { strategy, requests, staleFor: (seenAt ?? NaN) - (changedAt ?? NaN) };
  } finally {
    await sandbox.stop();
  }
}

/** Measures the three strategies and prints a table. */
export async function run(log: (line: string) => void = console.log): Promise<Measurement[]> {
  const results: Measurement[] = [];
  for (const strategy of ['Get', 'Cache', 'Watch'] as const) results.push(await measure(strategy));
  log('20 pods reading one Secret every 10 s for 5 min; the Secret changes once.');
  log('');
  log(
    `${'strategy'.padEnd(9)}${'requests to the API server'.padEnd(28)}new value first read after`,
  );
  for (const r of results) {
    log(`${r.strategy.padEnd(9)}${r.requests.padEnd(28)}${r.staleFor / 1000} s`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
