// The helpers a reconcile uses: controller references, finalizers, retry on
// conflict, createOrUpdate and server-side apply, against the test
// environment's sandbox on its fake clock.
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, StatusError, isConflict } from '@kcm-ts/apimachinery';
import { informerResources } from '@kcm-ts/informer';
import {
  AlreadyOwnedError,
  addFinalizer,
  apply,
  containsFinalizer,
  createOrUpdate,
  removeFinalizer,
  retryOnConflict,
  setControllerReference,
  startTestEnvironment,
  type TestEnvironment,
} from '../src/index.js';

const cmKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const owner: ConfigMap = { metadata: { name: 'src', namespace: 'ns', uid: 'uid-1' } };

let env: TestEnvironment | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const conflict = () =>
  new StatusError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });

describe('setControllerReference', () => {
  it('adds a controller reference once, and refuses a second controller', () => {
    const obj: Secret = { metadata: { name: 's', namespace: 'ns' } };
    setControllerReference(owner, obj, cmKind);
    setControllerReference(owner, obj, cmKind);
    expect(obj.metadata!.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'src',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const other: ConfigMap = { metadata: { name: 'other', namespace: 'ns', uid: 'uid-2' } };
    expect(() => setControllerReference(other, obj, cmKind)).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(other, obj, cmKind)).toThrow(
      'Object ns/s is already owned by another ConfigMap controller src',
    );
  });

  it('refuses owners across namespaces and owners not yet created', () => {
    expect(() =>
      setControllerReference(owner, { metadata: { name: 's', namespace: 'b' } }, cmKind),
    ).toThrow(
      "cross-namespace owner references are disallowed, owner's namespace ns, obj's namespace b",
    );
    expect(() =>
      setControllerReference(
        { metadata: { name: 'x', namespace: 'ns' } },
        { metadata: { name: 's', namespace: 'ns' } },
        cmKind,
      ),
    ).toThrow(/no uid/);
  });
});

describe('finalizers', () => {
  it('adds once and removes every copy, saying whether the object changed', () => {
    const obj: ConfigMap = { metadata: { name: 'x' } };
    expect(addFinalizer(obj, 'example.com/cleanup')).toBe(true);
    expect(addFinalizer(obj, 'example.com/cleanup')).toBe(false);
    expect(containsFinalizer(obj, 'example.com/cleanup')).toBe(true);
    obj.metadata!.finalizers!.push('other', 'example.com/cleanup');
    expect(removeFinalizer(obj, 'example.com/cleanup')).toBe(true);
    expect(obj.metadata!.finalizers).toEqual(['other']);
    expect(removeFinalizer(obj, 'example.com/cleanup')).toBe(false);
  });
});

describe('retryOnConflict', () => {
  it('retries conflicts on the clock and gives up after the last step', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const done = retryOnConflict(
      () => (++calls < 3 ? Promise.reject(conflict()) : Promise.resolve(calls)),
      { clock, random: () => 0 },
    );
    await clock.advance(9);
    expect(calls).toBe(1);
    await clock.advance(11);
    await expect(done).resolves.toBe(3);

    const always = retryOnConflict(() => Promise.reject(conflict()), { clock, random: () => 0 });
    always.catch(() => undefined);
    await clock.advance(100);
    await expect(always).rejects.toSatisfy(isConflict);
    const other = new Error('boom');
    await expect(retryOnConflict(() => Promise.reject(other), { clock })).rejects.toBe(other);
    await expect(
      retryOnConflict(() => Promise.resolve(1), {
        backoff: { steps: 0, duration: 1, factor: 1, jitter: 0 },
      }),
    ).rejects.toThrow(/steps must be an integer/);
  });
});

describe('createOrUpdate and apply', () => {
  it('creates, leaves alone, updates, and retries a conflict with a fresh read', async () => {
    env = await startTestEnvironment();
    const cms = env.client<ConfigMap>(informerResources.configMaps, 'default');
    const want = (v: string) => (c: ConfigMap) => {
      c.data = { ...c.data, key: v };
    };
    const obj: ConfigMap = { metadata: { name: 'c', namespace: 'default' } };
    const opts = { clock: env.clock };
    expect((await createOrUpdate(cms, obj, want('1'), opts)).result).toBe('created');
    expect((await createOrUpdate(cms, obj, want('1'), opts)).result).toBe('unchanged');
    env.faults.conflictNext(1, { resource: 'configmaps' });
    const updating = createOrUpdate(cms, obj, want('2'), opts);
    await env.step(50);
    const { result, object } = await updating;
    expect(result).toBe('updated');
    expect(object.data).toEqual({ key: '2' });
    expect(env.faults.counts()['update configmaps']).toBe(2);
    await expect(
      createOrUpdate(cms, obj, (c) => {
        c.metadata!.name = 'renamed';
      }),
    ).rejects.toThrow('MutateFn cannot mutate object name and/or object namespace');
    await expect(createOrUpdate(cms, { metadata: {} }, () => undefined)).rejects.toThrow(
      /metadata.name/,
    );
  });

  it('compares as the API does: a mutate that only reorders keys or adds empty maps writes nothing', async () => {
    env = await startTestEnvironment();
    const cms = env.client<ConfigMap>(informerResources.configMaps, 'default');
    const obj: ConfigMap = { metadata: { name: 'ordered', namespace: 'default' } };
    await createOrUpdate(cms, obj, (c) => {
      c.data = { a: '1', b: '2' };
    });
    const reorder = await createOrUpdate(cms, obj, (c) => {
      c.data = { b: '2', a: '1' };
      c.metadata!.annotations ??= {};
    });
    expect(reorder.result).toBe('unchanged');
    expect(env.faults.counts()['update configmaps'] ?? 0).toBe(0);
  });

  it('passes the signal to its writes: an aborted call does not create later', async () => {
    env = await startTestEnvironment();
    const cms = env.client<ConfigMap>(informerResources.configMaps, 'default');
    const seen: unknown[] = [];
    const spy = new Proxy(cms, {
      get: (t, p) =>
        p === 'create' || p === 'update'
          ? (obj: ConfigMap, opts?: { signal?: AbortSignal }) => {
              seen.push([p, opts?.signal]);
              return (Reflect.get(t, p) as (o: ConfigMap, x?: unknown) => Promise<ConfigMap>).call(
                t,
                obj,
                opts,
              );
            }
          : Reflect.get(t, p),
    });
    const abort = new AbortController();
    const obj: ConfigMap = { metadata: { name: 'signalled', namespace: 'default' } };
    await createOrUpdate(spy, obj, (c) => void (c.data = { k: '1' }), { signal: abort.signal });
    await createOrUpdate(spy, obj, (c) => void (c.data = { k: '2' }), { signal: abort.signal });
    expect(seen).toEqual([
      ['create', abort.signal],
      ['update', abort.signal],
    ]);
    abort.abort();
    await expect(
      createOrUpdate(spy, { metadata: { name: 'late', namespace: 'default' } }, () => undefined, {
        signal: abort.signal,
      }),
    ).rejects.toThrow();
    expect(await cms.list()).toMatchObject({ items: [{ metadata: { name: 'signalled' } }] });
  });

  it('applies with a field manager: creates, then changes the fields it sets', async () => {
    env = await startTestEnvironment();
    const cms = env.client<ConfigMap>(informerResources.configMaps, 'default');
    const desired = (v: string): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: 'default' },
      data: { key: v },
    });
    expect((await apply(cms, desired('1'), 'mirror')).data).toEqual({ key: '1' });
    expect((await apply(cms, desired('2'), 'mirror', { force: true })).data).toEqual({
      key: '2',
    });
    expect(env.faults.counts()['patch configmaps']).toBe(2);
    // What goes to the server: an apply patch under the manager, forced when asked.
    const sent: unknown[] = [];
    const spy = new Proxy(cms, {
      get: (t, p) =>
        p === 'patch'
          ? (...args: unknown[]) => {
              sent.push(args.slice(1));
              return Promise.resolve(desired('3'));
            }
          : Reflect.get(t, p),
    });
    await apply(spy, desired('3'), 'mirror', { force: true });
    expect(sent).toEqual([
      [
        { type: 'apply', body: desired('3'), fieldManager: 'mirror', force: true },
        { fieldManager: 'mirror' },
      ],
    ]);
    expect(() => apply(cms, { metadata: { name: 'x' } }, 'mirror')).toThrow(/apiVersion, kind/);
    expect(() => apply(cms, desired('1'), '')).toThrow(/field manager/);
  });
});
