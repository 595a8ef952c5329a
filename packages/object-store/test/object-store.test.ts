import { FakeClock, isNotFound, newInternalError } from '@kcm-ts/apimachinery';
import type { Node, Pod, Secret } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  CacheBasedManager,
  NotRegisteredError,
  ObjectStore,
  getObjectTTLFromNodeFunc,
  getSecretNames,
  newSecretManager,
  objectTTLAnnotationKey,
} from '../src/index.js';
import { FakeServer } from './fake-client.js';

// Ports of pkg/kubelet/util/manager/cache_based_manager_test.go.

function setup(ttl = 60_000, getTTL?: () => number | undefined) {
  const clock = new FakeClock();
  const server = new FakeServer<Secret>('secrets');
  const client = server.client();
  const store = new ObjectStore<Secret>({
    getObject: (ns, name, opts) => client.inNamespace(ns).get(name, opts),
    defaultTTL: ttl,
    getTTL,
    clock,
  });
  return { clock, server, store };
}

const secret = (ns: string, name: string, data = 'v'): Secret => ({
  metadata: { namespace: ns, name },
  data: { key: btoa(data) },
});

describe('ObjectStore (the TTL store)', () => {
  it('fetches each object once after it is referenced (TestSecretStore)', async () => {
    const { server, store } = setup(0);
    for (const [ns, name] of [
      ['ns1', 's1'],
      ['ns2', 's2'],
      ['ns1', 's1'],
      ['ns1', 's1'],
      ['ns1', 's1'],
      ['ns3', 's3'],
    ] as const) {
      store.addReference(ns, name, 'pod');
    }
    store.deleteReference('ns1', 's1', 'pod');
    store.deleteReference('ns2', 's2', 'pod');
    // A reference drops the cache, so nothing was fetched yet.
    expect(server.count('get')).toBe(0);
    // With a TTL of 0 every get fetches; s2 has no reference left.
    await expect(store.get('ns1', 's1')).rejects.toSatisfy(isNotFound);
    await expect(store.get('ns2', 's2')).rejects.toThrow(new NotRegisteredError('ns2', 's2'));
    await expect(store.get('ns3', 's3')).rejects.toSatisfy(isNotFound);
    expect(server.calls.map((c) => `${c.verb} ${c.namespace}/${c.name}`)).toEqual([
      'get ns1/s1',
      'get ns3/s3',
    ]);
  });

  it('sees a deletion once the TTL has passed, and a recreation at once (TestSecretStoreDeletingSecret)', async () => {
    const { clock, server, store } = setup(60_000);
    server.set(secret('ns', 'name'));
    store.addReference('ns', 'name', 'pod');
    expect((await store.get('ns', 'name')).metadata?.name).toBe('name');
    server.remove('ns', 'name');
    // Still fresh: served from the cache.
    expect((await store.get('ns', 'name')).metadata?.name).toBe('name');
    clock.step(60_000);
    await expect(store.get('ns', 'name')).rejects.toSatisfy(isNotFound);
    await expect(store.get('ns', 'name')).rejects.toSatisfy(isNotFound);
    // An entry holding an error is fetched again on every get, however young.
    server.set(secret('ns', 'name'));
    expect((await store.get('ns', 'name')).metadata?.name).toBe('name');
    expect(server.count('get')).toBe(4);
  });

  it('refetches on every get with a TTL of 0 (TestSecretStoreGetAlwaysRefresh)', async () => {
    const { server, store } = setup(0);
    server.set(secret('ns', 's'));
    store.addReference('ns', 's', 'pod');
    await Promise.all(Array.from({ length: 10 }, () => store.get('ns', 's')));
    // Gets queue behind each other's fetch, and each finds the entry stale.
    expect(server.count('get')).toBe(10);
  });

  it('fetches once for many gets within the TTL, concurrent or not (TestSecretStoreGetNeverRefresh)', async () => {
    const { server, store } = setup(60_000);
    server.set(secret('ns', 's'));
    store.addReference('ns', 's', 'pod');
    let open!: () => void;
    server.gate = new Promise((r) => (open = r));
    const gets = Array.from({ length: 10 }, () => store.get('ns', 's'));
    await Promise.resolve();
    open();
    const got = await Promise.all(gets);
    expect(got.every((s) => s.metadata?.name === 's')).toBe(true);
    for (let i = 0; i < 5; i++) await store.get('ns', 's');
    expect(server.count('get')).toBe(1);
  });

  it('refreshes from the API server cache (resourceVersion "0") once it has the object', async () => {
    const { clock, server, store } = setup(1_000);
    server.set(secret('ns', 's'));
    store.addReference('ns', 's', 'pod');
    await store.get('ns', 's');
    clock.step(1_000);
    await store.get('ns', 's');
    expect(server.calls.map((c) => c.opts)).toEqual([{}, { resourceVersion: '0' }]);
  });

  it('never goes back to an older resourceVersion', async () => {
    const clock = new FakeClock();
    const answers: Secret[] = [
      { metadata: { namespace: 'ns', name: 's', resourceVersion: '7' }, data: { v: 'new' } },
      { metadata: { namespace: 'ns', name: 's', resourceVersion: '5' }, data: { v: 'old' } },
    ];
    const store = new ObjectStore<Secret>({
      getObject: () => Promise.resolve(answers.shift()!),
      defaultTTL: 1_000,
      clock,
    });
    store.addReference('ns', 's', 'pod');
    expect((await store.get('ns', 's')).data).toEqual({ v: 'new' });
    clock.step(1_000);
    // A lagging cache answered with rv 5: ignored, the entry stays stale and at rv 7.
    expect((await store.get('ns', 's')).data).toEqual({ v: 'new' });
  });

  it('returns a fetch error when nothing is cached, and the cached object otherwise', async () => {
    const { clock, server, store } = setup(1_000);
    server.set(secret('ns', 's', 'one'));
    store.addReference('ns', 's', 'pod');
    server.failNext.get = [newInternalError(new Error('etcd is down'))];
    await expect(store.get('ns', 's')).rejects.toThrow('etcd is down');
    const first = await store.get('ns', 's');
    server.set(secret('ns', 's', 'two'));
    clock.step(1_000);
    server.failNext.get = [newInternalError(new Error('etcd is down'))];
    // Stale, but better than nothing: the error is not cached.
    expect((await store.get('ns', 's')).data).toEqual(first.data);
    expect((await store.get('ns', 's')).data).toEqual({ key: btoa('two') });
  });

  it('drops the cached object when a reference is added, so the next get fetches (TestCacheInvalidation)', async () => {
    const { server, store } = setup(60_000);
    server.set(secret('ns', 's', 'one'));
    store.addReference('ns', 's', 'pod');
    await store.get('ns', 's');
    server.set(secret('ns', 's', 'two'));
    expect((await store.get('ns', 's')).data).toEqual({ key: btoa('one') });
    store.addReference('ns', 's', 'pod');
    expect((await store.get('ns', 's')).data).toEqual({ key: btoa('two') });
    expect(server.count('get')).toBe(2);
  });

  it('takes the TTL from the node annotation when there is one (TestCustomTTL)', async () => {
    const node: Node = { metadata: { name: 'n', annotations: { [objectTTLAnnotationKey]: '0' } } };
    const { clock, server, store } = setup(
      60_000,
      getObjectTTLFromNodeFunc(() => node),
    );
    server.set(secret('ns', 's'));
    store.addReference('ns', 's', 'pod');
    await store.get('ns', 's');
    clock.step(1);
    await store.get('ns', 's');
    expect(server.count('get')).toBe(2); // TTL 0: every get fetches
    node.metadata!.annotations![objectTTLAnnotationKey] = '5';
    clock.step(4_000);
    await store.get('ns', 's');
    expect(server.count('get')).toBe(2);
    clock.step(1_000);
    await store.get('ns', 's');
    expect(server.count('get')).toBe(3);
    // No annotation: the default (60 s).
    delete node.metadata!.annotations![objectTTLAnnotationKey];
    clock.step(59_999);
    await store.get('ns', 's');
    expect(server.count('get')).toBe(3);
  });
});

describe('getObjectTTLFromNodeFunc (TestParseNodeAnnotation)', () => {
  const ttlOf = (annotations: Record<string, string> | undefined, fail = false) =>
    getObjectTTLFromNodeFunc(() => {
      if (fail) throw new Error('no node');
      return { metadata: { name: 'n', annotations } };
    })();

  it('reads whole seconds and ignores anything else', () => {
    expect(ttlOf(undefined, true)).toBeUndefined();
    expect(ttlOf(undefined)).toBeUndefined();
    expect(ttlOf({ other: '1' })).toBeUndefined();
    expect(ttlOf({ [objectTTLAnnotationKey]: 'bad' })).toBeUndefined();
    expect(ttlOf({ [objectTTLAnnotationKey]: '1.5' })).toBeUndefined();
    expect(ttlOf({ [objectTTLAnnotationKey]: '0' })).toBe(0);
    expect(ttlOf({ [objectTTLAnnotationKey]: '60' })).toBe(60_000);
    expect(getObjectTTLFromNodeFunc(() => undefined)()).toBeUndefined();
  });
});

const podWith = (name: string, uid: string, secrets: string[]): Pod => ({
  metadata: { namespace: 'ns', name, uid },
  spec: {
    containers: [{ name: 'c', envFrom: secrets.map((s) => ({ secretRef: { name: s } })) }],
  },
});

describe('CacheBasedManager', () => {
  function manager() {
    const { clock, server, store } = setup(60_000);
    const refs = new Map<string, number>();
    const counting = {
      addReference: (ns: string, name: string, from: string) => {
        refs.set(name, (refs.get(name) ?? 0) + 1);
        store.addReference(ns, name, from);
      },
      deleteReference: (ns: string, name: string, from: string) => {
        refs.set(name, (refs.get(name) ?? 0) - 1);
        if (refs.get(name) === 0) refs.delete(name);
        store.deleteReference(ns, name, from);
      },
      get: (ns: string, name: string) => store.get(ns, name),
    };
    return { clock, server, refs, m: new CacheBasedManager<Secret>(counting, getSecretNames) };
  }

  it('counts references across pods and versions of a pod (TestCacheRefcounts)', () => {
    const { refs, m } = manager();
    m.registerPod(podWith('p1', 'u1', ['s1', 's2']));
    m.registerPod(podWith('p2', 'u2', ['s2', 's3']));
    m.registerPod(podWith('p3', 'u3', ['s3', 's4']));
    expect(Object.fromEntries(refs)).toEqual({ s1: 1, s2: 2, s3: 2, s4: 1 });
    // p1 changes its references: s1 dropped, s5 added, s2 untouched.
    m.registerPod(podWith('p1', 'u1', ['s2', 's5']));
    expect(Object.fromEntries(refs)).toEqual({ s2: 2, s3: 2, s4: 1, s5: 1 });
    m.unregisterPod(podWith('p2', 'u2', []));
    expect(Object.fromEntries(refs)).toEqual({ s2: 1, s3: 1, s4: 1, s5: 1 });
    // Unregistering uses what was registered, not what is passed.
    m.unregisterPod(podWith('p3', 'u3', []));
    m.unregisterPod(podWith('p3', 'u3', []));
    expect(Object.fromEntries(refs)).toEqual({ s2: 1, s5: 1 });
    // A pod recreated under the same name is another pod (another uid).
    m.registerPod(podWith('p1', 'u9', ['s2']));
    expect(Object.fromEntries(refs)).toEqual({ s2: 2, s5: 1 });
  });

  it('names the referencing pod by its uid in every reference it adds or deletes', () => {
    const calls: string[] = [];
    const recording = {
      addReference: (ns: string, name: string, from: string) =>
        calls.push(`+${ns}/${name}<-${from}`),
      deleteReference: (ns: string, name: string, from: string) =>
        calls.push(`-${ns}/${name}<-${from}`),
      get: () => Promise.reject(new Error('unused')),
    };
    const m = new CacheBasedManager<Secret>(recording, getSecretNames);
    m.registerPod(podWith('p1', 'u1', ['s1']));
    m.registerPod(podWith('p1', 'u1', ['s2']));
    m.unregisterPod(podWith('p1', 'u1', []));
    expect(calls).toEqual(['+ns/s1<-u1', '+ns/s2<-u1', '-ns/s1<-u1', '-ns/s2<-u1']);
  });

  it('is idempotent: registering the same pod again fetches nothing (TestRegisterIdempotence)', async () => {
    const { server, refs, m } = manager();
    server.set(secret('ns', 's1'));
    const pod = podWith('p', 'u', ['s1']);
    m.registerPod(pod);
    await m.getObject('ns', 's1');
    m.registerPod(pod);
    m.registerPod(pod);
    await m.getObject('ns', 's1');
    expect(refs.get('s1')).toBe(1);
    expect(server.count('get')).toBe(1);
    m.unregisterPod(pod);
    m.unregisterPod(pod);
    expect(refs.size).toBe(0);
    await expect(m.getObject('ns', 's1')).rejects.toBeInstanceOf(NotRegisteredError);
  });

  it('serves only what registered pods reference (TestCacheBasedSecretManager)', async () => {
    const { server, m } = manager();
    for (const name of ['s1', 's2', 's3']) server.set(secret('ns', name));
    m.registerPod(podWith('p', 'u', ['s1', 's2']));
    expect((await m.getObject('ns', 's1')).metadata?.name).toBe('s1');
    await expect(m.getObject('ns', 's3')).rejects.toThrow('object "ns"/"s3" not registered');
  });
});

describe('newSecretManager', () => {
  it('Get asks the API server on every read, registered or not', async () => {
    const server = new FakeServer<Secret>('secrets');
    server.set(secret('ns', 's'));
    const m = newSecretManager(server.client(), { strategy: 'Get' });
    await m.getObject('ns', 's');
    await m.getObject('ns', 's');
    expect(server.count('get')).toBe(2);
  });

  it('Cache keeps objects for the default minute', async () => {
    const clock = new FakeClock();
    const server = new FakeServer<Secret>('secrets');
    server.set(secret('ns', 's'));
    const m = newSecretManager(server.client(), { strategy: 'Cache', clock });
    m.registerPod(podWith('p', 'u', ['s']));
    await m.getObject('ns', 's');
    clock.step(59_999);
    await m.getObject('ns', 's');
    clock.step(1);
    await m.getObject('ns', 's');
    expect(server.count('get')).toBe(2);
  });

  it('refuses a Watch strategy without a signal, and an unknown strategy', () => {
    const client = new FakeServer<Secret>('secrets').client();
    expect(() => newSecretManager(client)).toThrow(
      'the Watch strategy needs a signal to stop its watches',
    );
    expect(() => newSecretManager(client, { strategy: 'Poll' as 'Get' })).toThrow(
      'unknown change detection strategy "Poll": expected Get, Cache or Watch',
    );
  });
});
