// The simulated scheduler, on its own: it sees the cluster through a client,
// counts the pods it has just bound, and retries a failed binding after the
// scheduling queue's backoff, on the fake clock.
import { newInternalError, type KubeObject } from '@kcm-ts/apimachinery';
import type { Binding, Pod } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcessClient, inProcessPodBinder } from '../src/client/in-process-client.js';
import { EventRecorder } from '../src/node/events.js';
import { SimulatedScheduler, type PodBinder } from '../src/node/scheduler.js';
import { newRegistry } from './helpers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

function cluster(binder: (real: PodBinder) => PodBinder, nodes: string[]) {
  const { registry, clock } = newRegistry();
  const client = <T extends KubeObject>(resource: string) =>
    inProcessClient<T>(registry, registry.resource('', resource));
  const scheduler = new SimulatedScheduler({
    pods: client<Pod>('pods'),
    binder: binder(inProcessPodBinder(registry)),
    nodes: () => nodes,
    events: new EventRecorder(client('events'), clock),
    clock,
  });
  const abort = new AbortController();
  const running = scheduler.run(abort.signal);
  stops.push(async () => {
    abort.abort();
    await running;
  });
  const pods = client<Pod>('pods').inNamespace('default');
  const create = (name: string) =>
    pods.create({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const nodeOf = async (name: string) => (await pods.get(name)).spec?.nodeName;
  return { clock, create, nodeOf };
}

describe('the simulated scheduler', () => {
  it('binds pods created together to different nodes, counting its own bindings', async () => {
    const c = cluster((real) => real, ['node-1', 'node-2']);
    await Promise.all([c.create('a'), c.create('b')]);
    for (let i = 0; i < 50 && (!(await c.nodeOf('a')) || !(await c.nodeOf('b'))); i++) await tick();
    expect(new Set([await c.nodeOf('a'), await c.nodeOf('b')])).toEqual(
      new Set(['node-1', 'node-2']),
    );
  });

  it('retries a failed binding after its backoff on the fake clock', async () => {
    const attempts: string[] = [];
    const c = cluster(
      (real) => ({
        bind: (binding: Binding) => {
          attempts.push(binding.metadata?.name ?? '');
          if (attempts.length === 1) return Promise.reject(newInternalError(new Error('etcd')));
          return real.bind(binding);
        },
      }),
      ['node-1'],
    );
    await c.create('a');
    for (let i = 0; i < 50 && attempts.length === 0; i++) await tick();
    await tick();
    expect(attempts).toEqual(['a']);
    expect(await c.nodeOf('a')).toBeUndefined();
    await c.clock.advance(999);
    await tick();
    expect(attempts).toEqual(['a']);
    await c.clock.advance(1);
    for (let i = 0; i < 50 && attempts.length < 2; i++) await tick();
    expect(attempts).toEqual(['a', 'a']);
    expect(await c.nodeOf('a')).toBe('node-1');
  });
});
