// createControllerContext's shared informers: managedFields trimmed (and
// left unparsed by a client that takes the decode hint) and updates sharing
// what did not change, over a fake source on a fake clock.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FakeClock,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ResourceClient,
  type WatchEvent,
} from '@kcm-ts/apimachinery';
import type { ResourceClientSource } from '@kcm-ts/informer';
import type { ControllerClientBuilder } from '../src/client-builder.js';
import { defaultConfiguration } from '../src/config.js';
import { createControllerContext } from '../src/controller-context.js';
import { TestDiscovery, memoryLogger } from './garbagecollector/helpers.js';

const stops: AbortController[] = [];
afterEach(() => {
  while (stops.length > 0) stops.pop()?.abort();
});

/** One resource's list and watch: a list of `items`, then whatever the test pushes. */
class FakePods {
  readonly options: ListOptions[] = [];
  readonly items: KubeObject[] = [];
  #push: ((ev: WatchEvent<KubeObject>) => void) | undefined;

  list(opts: ListOptions = {}): Promise<ObjectList<KubeObject>> {
    this.options.push(opts);
    return Promise.resolve({
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '1' },
      items: this.items,
    });
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<KubeObject>>> {
    this.options.push(opts);
    const queued: WatchEvent<KubeObject>[] = [];
    let wake: (() => void) | undefined;
    this.#push = (ev) => {
      queued.push(ev);
      wake?.();
    };
    const signal = opts.signal;
    return Promise.resolve({
      async *[Symbol.asyncIterator]() {
        while (signal?.aborted !== true) {
          const ev = queued.shift();
          if (ev !== undefined) yield ev;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    });
  }

  push(ev: WatchEvent<KubeObject>): void {
    this.#push?.(ev);
  }

  get watching(): boolean {
    return this.#push !== undefined;
  }
}

const pod = (rv: string, gen: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-1',
    namespace: 'default',
    resourceVersion: rv,
    labels: { gen },
    managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
  },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}

describe('createControllerContext', () => {
  it('makes shared informers that trim managedFields, ask the client not to parse them, and share what an update left unchanged', async () => {
    const pods = new FakePods();
    pods.items.push(pod('1', 'a'));
    const source: ResourceClientSource = {
      resource: <T extends KubeObject>() => pods as unknown as ResourceClient<T>,
    };
    const clientBuilder: ControllerClientBuilder = {
      client: () => source,
      metadataClient: () => source,
    };
    const stop = new AbortController();
    stops.push(stop);
    const { context } = createControllerContext({
      config: defaultConfiguration(),
      clientBuilder,
      discovery: new TestDiscovery(),
      clock: new FakeClock(),
      random: () => 0,
      logger: memoryLogger(),
      signal: stop.signal,
    });
    const informer = context.informerFactory.pods().informer();
    const updates: [Pod, Pod][] = [];
    informer.addEventHandler({ onUpdate: (o, n) => void updates.push([o, n]) });
    context.informerFactory.start(stop.signal);
    await until(() => informer.hasSynced() && pods.watching);

    const cached = informer.getStore().list()[0] as Pod;
    expect(cached.metadata?.managedFields).toBeUndefined();
    // The decode hint, on the list and the watch alike.
    expect(
      pods.options.map((o) => (o as { dropManagedFields?: boolean }).dropManagedFields),
    ).toEqual([true, true]);

    pods.push({ type: 'MODIFIED', object: pod('2', 'b') });
    await until(() => updates.length === 1);
    const [oldPod, newPod] = updates[0] as [Pod, Pod];
    expect(oldPod).toBe(cached);
    expect(newPod.spec).toBe(cached.spec);
    expect(newPod.metadata?.labels).toEqual({ gen: 'b' });
    expect(cached.metadata?.labels).toEqual({ gen: 'a' });
    expect(newPod.metadata?.managedFields).toBeUndefined();
  });
});
