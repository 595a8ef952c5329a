import { FakeClock } from '@kcm-ts/apimachinery';
import type { KubeObject, WatchEvent } from '@kcm-ts/apimachinery';
import { Registry } from '../src/apiserver/registry/store.js';
import type { RegistryOptions } from '../src/apiserver/registry/store.js';

/** 2026-01-02T03:04:05.678Z: a fake clock start with a fractional second. */
export const epoch = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

export function newRegistry(opts: RegistryOptions = {}): { registry: Registry; clock: FakeClock } {
  const clock = new FakeClock(epoch);
  let seed = 1;
  const random = (): number => {
    // A small deterministic generator, so generated names are reproducible.
    seed = (seed * 16807) % 2147483647;
    return (seed - 1) / 2147483646;
  };
  return { registry: new Registry({ clock, random, ...opts }), clock };
}

export function deployment(
  name: string,
  labels: Record<string, string> = { app: name },
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
      },
    },
  } as KubeObject;
}

export function configMap(
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): KubeObject {
  return { metadata: { name, ...(labels ? { labels } : {}) }, data } as KubeObject;
}

/** Takes the events a watch has queued so far, without waiting for more. */
export async function drain(
  watch: AsyncIterable<WatchEvent<KubeObject>> & { stop(): void },
  count: number,
): Promise<WatchEvent<KubeObject>[]> {
  const out: WatchEvent<KubeObject>[] = [];
  const it = watch[Symbol.asyncIterator]();
  while (out.length < count) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

export const summary = (events: WatchEvent<KubeObject>[]): string[] =>
  events.map(
    (e) =>
      `${e.type} ${e.type === 'ERROR' ? String(e.object.code) : (e.object.metadata?.name ?? '')}@${e.type === 'ERROR' ? '' : (e.object.metadata?.resourceVersion ?? '')}`,
  );
