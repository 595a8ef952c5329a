import { FakeClock, isNotFound } from '@kcm-ts/apimachinery';
import type { Pod, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { NotRegisteredError, ObjectCache, newSecretManager } from '../src/index.js';
import { FakeServer } from './fake-client.js';

// Ports of pkg/kubelet/util/manager/watch_based_manager_test.go.

/** Lets the reflectors' I/O (microtasks and the fake's promises) run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const running: { abort: AbortController; cache: ObjectCache<Secret>; clock: FakeClock }[] = [];

function setup(maxIdleTime = 60_000) {
  const clock = new FakeClock();
  const server = new FakeServer<Secret>('secrets');
  const client = server.client();
  const abort = new AbortController();
  const cache = new ObjectCache<Secret>({
    listObject: (ns, opts) => client.inNamespace(ns).list(opts),
    watchObject: (ns, opts) => client.inNamespace(ns).watch(opts),
    isImmutable: (s) => s.immutable === true,
    groupResource: { group: '', resource: 'secrets' },
    signal: abort.signal,
    maxIdleTime,
    clock,
  });
  running.push({ abort, cache, clock });
  return { clock, server, cache, abort };
}

// Every test ends with every watch and timer gone.
afterEach(async () => {
  for (const { abort, cache, clock } of running.splice(0)) {
    abort.abort();
    await cache.stopped();
    expect(clock.hasWaiters()).toBe(false);
  }
});

const secret = (name: string, data = 'v', extra: Partial<Secret> = {}): Secret => ({
  metadata: { namespace: 'ns', name },
  data: { key: btoa(data) },
  ...extra,
});

describe('ObjectCache (the watch-based store)', () => {
  it('watches one object per reference and answers from its cache (TestSecretCache)', async () => {
    const { server, cache } = setup();
    server.set(secret('name', 'one'));
    cache.addReference('ns', 'name', 'pod');
    expect((await cache.get('ns', 'name')).data).toEqual({ key: btoa('one') });
    // Only this object: a field selector on its name.
    expect(
      server.calls.map((c) => [
        c.verb,
        c.namespace,
        'fieldSelector' in c.opts ? c.opts.fieldSelector : '',
      ]),
    ).toEqual([
      ['list', 'ns', 'metadata.name=name'],
      ['watch', 'ns', 'metadata.name=name'],
    ]);
    server.set(secret('name', 'two'));
    await settle();
    expect((await cache.get('ns', 'name')).data).toEqual({ key: btoa('two') });
    server.remove('ns', 'name');
    await settle();
    await expect(cache.get('ns', 'name')).rejects.toSatisfy(isNotFound);
    // Reads never went to the API server.
    expect(server.count('get')).toBe(0);
    cache.deleteReference('ns', 'name', 'pod');
    await settle();
    expect(server.openWatches()).toBe(0);
    await expect(cache.get('ns', 'name')).rejects.toBeInstanceOf(NotRegisteredError);
  });

  it('keeps one watch however many references (TestSecretCacheMultipleRegistrations)', async () => {
    const { server, cache } = setup();
    server.set(secret('name'));
    cache.addReference('ns', 'name', 'pod');
    cache.addReference('ns', 'name', 'pod');
    await cache.get('ns', 'name');
    expect(server.count('list')).toBe(1);
    cache.deleteReference('ns', 'name', 'pod');
    await settle();
    expect(server.openWatches()).toBe(1);
    cache.deleteReference('ns', 'name', 'pod');
    await settle();
    expect(server.openWatches()).toBe(0);
  });

  // TestRefMapHandlesReferencesCorrectly: references are counted per
  // referencing pod, and a pod's deletes never outnumber its adds.
  it.each([
    {
      desc: 'adding and deleting works',
      steps: ['add pod1', 'add pod1', 'delete pod1', 'delete pod1'],
      registered: [true, true, true, false],
    },
    {
      desc: 'deleting a reference never added has no effect',
      steps: ['delete pod1'],
      registered: [false],
    },
    {
      desc: 'deleting more than adding leaves no negative count',
      steps: ['add pod1', 'delete pod1', 'delete pod1', 'add pod2', 'delete pod2'],
      registered: [true, false, false, true, false],
    },
    {
      desc: 'a delete from another pod leaves the references of this one',
      steps: ['add pod1', 'delete pod2', 'delete pod2', 'add pod2', 'delete pod1'],
      registered: [true, true, true, true, true],
    },
  ])('counts references per referencing pod: $desc', async ({ steps, registered }) => {
    const { server, cache } = setup();
    server.set(secret('name'));
    const isRegistered = async (): Promise<boolean> => {
      try {
        await cache.get('ns', 'name');
        return true;
      } catch (err) {
        if (err instanceof NotRegisteredError) return false;
        throw err;
      }
    };
    for (const [i, step] of steps.entries()) {
      const [action, pod] = step.split(' ') as ['add' | 'delete', string];
      if (action === 'add') cache.addReference('ns', 'name', pod);
      else cache.deleteReference('ns', 'name', pod);
      expect(await isRegistered(), step).toBe(registered[i]);
    }
    // A delete for another object never touches this one.
    cache.deleteReference('ns', 'other', 'pod1');
    cache.deleteReference('other-ns', 'name', 'pod1');
    expect(await isRegistered()).toBe(registered.at(-1));
    await settle();
    expect(server.openWatches()).toBe(registered.at(-1) === true ? 1 : 0);
  });

  it('stops watching an immutable object, and still serves it (TestImmutableSecretStopsTheReflector)', async () => {
    const { server, cache } = setup();
    server.set(secret('mutable'));
    server.set(secret('frozen', 'v', { immutable: true }));
    cache.addReference('ns', 'mutable', 'pod');
    cache.addReference('ns', 'frozen', 'pod');
    await cache.get('ns', 'mutable');
    await cache.get('ns', 'frozen');
    await settle();
    expect(server.streams.filter((s) => !s.closed).map((s) => s.name)).toEqual(['mutable']);
    expect((await cache.get('ns', 'frozen')).immutable).toBe(true);
    expect(server.count('list')).toBe(2); // no restart for an immutable object
  });

  it('stops a watch nobody read for the idle time, and restarts it on the next read (TestMaxIdleTimeStopsTheReflector)', async () => {
    const { clock, server, cache } = setup(60_000);
    server.set(secret('name', 'one'));
    cache.addReference('ns', 'name', 'pod');
    await cache.get('ns', 'name');
    await clock.advance(60_000); // the idle check runs every minute; not idle yet
    await settle();
    expect(server.openWatches()).toBe(1);
    await clock.advance(60_000);
    await settle();
    expect(server.openWatches()).toBe(0);
    // Changes made while not watching are seen after the restart's list.
    server.set(secret('name', 'two'));
    const read = cache.get('ns', 'name');
    await settle();
    expect((await read).data).toEqual({ key: btoa('two') });
    expect(server.count('list')).toBe(2);
    expect(server.openWatches()).toBe(1);
  });

  it('never stops a watch whose first list has not arrived (TestReflectorNotStoppedOnSlowInitialization)', async () => {
    const { clock, server, cache } = setup(60_000);
    server.set(secret('name'));
    let open!: () => void;
    server.listGate = new Promise((r) => (open = r));
    cache.addReference('ns', 'name', 'pod');
    await settle();
    await clock.advance(180_000);
    open();
    server.listGate = undefined;
    await settle();
    expect(server.count('list')).toBe(1);
    expect(server.openWatches()).toBe(1);
  });

  it('gives up on a read after one second without a list', async () => {
    const { clock, server, cache } = setup();
    server.set(secret('name'));
    let open!: () => void;
    server.listGate = new Promise((r) => (open = r));
    cache.addReference('ns', 'name', 'pod');
    const read = cache.get('ns', 'name').then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await clock.advance(999);
    await clock.advance(1);
    expect(await read).toBe('failed to sync secrets cache: timed out waiting for the condition');
    open();
    await settle();
    expect((await cache.get('ns', 'name')).metadata?.name).toBe('name');
  });
});

describe('newSecretManager with the Watch strategy', () => {
  it('starts a watch per referenced Secret on registration and stops it on unregistration', async () => {
    const clock = new FakeClock();
    const server = new FakeServer<Secret>('secrets');
    server.set(secret('a'));
    server.set(secret('b'));
    const abort = new AbortController();
    const m = newSecretManager(server.client(), { signal: abort.signal, clock });
    const pod: Pod = {
      metadata: { namespace: 'ns', name: 'p', uid: 'u' },
      spec: {
        imagePullSecrets: [{ name: 'a' }],
        containers: [{ name: 'c' }],
        volumes: [{ name: 'v', secret: { secretName: 'b' } }],
      },
    };
    m.registerPod(pod);
    expect((await m.getObject('ns', 'a')).metadata?.name).toBe('a');
    expect((await m.getObject('ns', 'b')).metadata?.name).toBe('b');
    expect(server.openWatches()).toBe(2);
    m.unregisterPod(pod);
    await settle();
    expect(server.openWatches()).toBe(0);
    abort.abort();
    await m.stopped();
    expect(clock.hasWaiters()).toBe(false);
  });
});
