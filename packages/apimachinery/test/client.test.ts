// The client interfaces are types only. This test implements them in memory for a
// small custom resource, to show they can be implemented and used as documented:
// errors are StatusErrors, a watch yields events until the consumer breaks out or the
// signal aborts, and delete resolves with a Status or the object.
import type { Status } from 'kubernetes-types/meta/v1.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  StatusError,
  isConflict,
  isNotFound,
  isStatus,
  metaNamespaceKeyFunc,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newNotFound,
  optimisticLockErrorMsg,
  parseSelector,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ListerWatcher,
  type ObjectList,
  type Patch,
  type ResourceClient,
  type WatchEvent,
} from '../src/index.js';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean };
}

const widgets = { group: 'example.com', resource: 'widgets' };

/** Everything the clients of one "server" share. */
class Backend {
  readonly objects = new Map<string, Widget>();
  readonly watchers = new Set<(event: WatchEvent<Widget>) => void>();
  rv = 0;

  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Widget) {
    for (const w of this.watchers) w({ type, object: structuredClone(obj) });
  }
}

class FakeWidgets implements ResourceClient<Widget> {
  constructor(
    private readonly backend: Backend,
    readonly namespace: string | undefined,
  ) {}

  inNamespace(namespace: string): ResourceClient<Widget> {
    return new FakeWidgets(this.backend, namespace === '' ? undefined : namespace);
  }

  #visible(w: Widget, opts: ListOptions): boolean {
    const inScope = this.namespace === undefined || w.metadata?.namespace === this.namespace;
    return inScope && parseSelector(opts.labelSelector ?? '').matches(w.metadata?.labels);
  }

  #key(name: string): string {
    if (this.namespace === undefined) throw newBadRequest('a namespace is needed');
    return `${this.namespace}/${name}`;
  }

  list(opts: ListOptions = {}): Promise<ObjectList<Widget>> {
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason as Error);
    const items = [...this.backend.objects.values()].filter((w) => this.#visible(w, opts));
    return Promise.resolve({
      apiVersion: 'example.com/v1',
      kind: 'WidgetList',
      metadata: { resourceVersion: String(this.backend.rv) },
      items: structuredClone(items),
    });
  }

  watch(opts: ListOptions = {}): Promise<AsyncIterable<WatchEvent<Widget>>> {
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason as Error);
    const { backend } = this;
    const queue: WatchEvent<Widget>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const push = (event: WatchEvent<Widget>) => {
      if (event.type !== 'ERROR' && !this.#visible(event.object, opts)) return;
      queue.push(event);
      wake?.();
    };
    const close = () => {
      closed = true;
      backend.watchers.delete(push);
      opts.signal?.removeEventListener('abort', close);
      wake?.();
    };
    backend.watchers.add(push);
    opts.signal?.addEventListener('abort', close, { once: true });
    const iterator: AsyncIterator<WatchEvent<Widget>> = {
      async next() {
        while (queue.length === 0 && !closed) await new Promise<void>((r) => (wake = r));
        const event = queue.shift();
        if (event === undefined) return { done: true, value: undefined };
        if (event.type === 'ERROR') close(); // the stream ends after an ERROR
        return { done: false, value: event };
      },
      return() {
        close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    return Promise.resolve({ [Symbol.asyncIterator]: () => iterator });
  }

  get(name: string): Promise<Widget> {
    const found = this.backend.objects.get(this.#key(name));
    if (found === undefined) return Promise.reject(newNotFound(widgets, name));
    return Promise.resolve(structuredClone(found));
  }

  create(obj: Widget): Promise<Widget> {
    const namespace = this.namespace ?? obj.metadata?.namespace ?? '';
    const stored: Widget = {
      ...structuredClone(obj),
      metadata: {
        ...obj.metadata,
        namespace,
        uid: `uid-${++this.backend.rv}`,
        resourceVersion: String(this.backend.rv),
      },
    };
    const key = metaNamespaceKeyFunc(stored);
    if (this.backend.objects.has(key)) {
      return Promise.reject(newAlreadyExists(widgets, stored.metadata?.name ?? ''));
    }
    this.backend.objects.set(key, stored);
    this.backend.emit('ADDED', stored);
    return Promise.resolve(structuredClone(stored));
  }

  #write(obj: Widget, change: (old: Widget) => Widget): Promise<Widget> {
    const name = obj.metadata?.name ?? '';
    const key = this.#key(name);
    const old = this.backend.objects.get(key);
    if (old === undefined) return Promise.reject(newNotFound(widgets, name));
    const rv = obj.metadata?.resourceVersion;
    if (rv !== undefined && rv !== old.metadata?.resourceVersion) {
      return Promise.reject(newConflict(widgets, name, optimisticLockErrorMsg));
    }
    const next = change(old);
    next.metadata = { ...next.metadata, resourceVersion: String(++this.backend.rv) };
    this.backend.objects.set(key, next);
    this.backend.emit('MODIFIED', next);
    return Promise.resolve(structuredClone(next));
  }

  update(obj: Widget): Promise<Widget> {
    return this.#write(obj, (old) => ({ ...structuredClone(obj), status: old.status }));
  }

  updateStatus(obj: Widget): Promise<Widget> {
    return this.#write(obj, (old) => ({ ...old, status: structuredClone(obj.status) }));
  }

  patch(name: string, patch: Patch): Promise<Widget> {
    if (patch.type !== 'merge') return Promise.reject(newBadRequest(`${patch.type} not supported`));
    const body = patch.body as Widget;
    return this.#write({ metadata: { name } }, (old) => ({
      ...old,
      spec: { ...old.spec, ...body.spec },
    }));
  }

  patchStatus(name: string, patch: Patch): Promise<Widget> {
    if (patch.type !== 'merge') return Promise.reject(newBadRequest(`${patch.type} not supported`));
    const body = patch.body as Widget;
    return this.#write({ metadata: { name } }, (old) => ({
      ...old,
      status: { ...old.status, ...body.status },
    }));
  }

  delete(name: string): Promise<Widget | Status> {
    const key = this.#key(name);
    const old = this.backend.objects.get(key);
    if (old === undefined) return Promise.reject(newNotFound(widgets, name));
    this.backend.objects.delete(key);
    this.backend.emit('DELETED', old);
    return Promise.resolve({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: 'example.com', kind: 'widgets', uid: old.metadata?.uid },
    });
  }

  async deleteCollection(_opts?: DeleteOptions, listOpts: ListOptions = {}): Promise<void> {
    for (const w of [...this.backend.objects.values()]) {
      if (this.#visible(w, listOpts)) await this.delete(w.metadata?.name ?? '');
    }
  }
}

/** Lets pending promise callbacks run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the client interfaces', () => {
  it('type delete as the object or a Status, and a ResourceClient as a ListerWatcher', () => {
    type Client = ResourceClient<Widget>;
    expectTypeOf<ReturnType<Client['delete']>>().toEqualTypeOf<Promise<Widget | Status>>();
    expectTypeOf<Client>().toMatchTypeOf<ListerWatcher<Widget>>();
    expectTypeOf<ReturnType<Client['watch']>>().toEqualTypeOf<
      Promise<AsyncIterable<WatchEvent<Widget>>>
    >();
    expectTypeOf<ReturnType<Client['list']>>().toEqualTypeOf<Promise<ObjectList<Widget>>>();
  });

  it('reject with StatusErrors that the classifiers recognise', async () => {
    const client = new FakeWidgets(new Backend(), undefined).inNamespace('default');
    await expect(client.get('missing')).rejects.toSatisfy(isNotFound);
    const made = await client.create({ metadata: { name: 'w' }, spec: { size: 1 } });
    expect(made.metadata?.resourceVersion).toBe('1');
    await client.update({ ...made, spec: { size: 2 } });
    const stale = client.update({ ...made, spec: { size: 3 } });
    await expect(stale).rejects.toSatisfy(isConflict);
    await expect(stale).rejects.toBeInstanceOf(StatusError);
  });

  it('update the status only through the status calls', async () => {
    const client = new FakeWidgets(new Backend(), 'default');
    await client.create({ metadata: { name: 'w' }, spec: { size: 1 } });
    await client.patchStatus('w', { type: 'merge', body: { status: { ready: true } } });
    const patched = await client.patch('w', { type: 'merge', body: { spec: { size: 5 } } });
    expect(patched).toMatchObject({ spec: { size: 5 }, status: { ready: true } });
    await expect(
      client.patch('w', { type: 'json', ops: [{ op: 'replace', path: '/spec/size', value: 6 }] }),
    ).rejects.toSatisfy((err: unknown) => err instanceof StatusError && err.code === 400);
    await expect(
      client.patch('w', { type: 'apply', body: {}, fieldManager: 'me', force: true }),
    ).rejects.toThrow('apply not supported');
  });

  it('list across namespaces when unscoped, and in one when scoped', async () => {
    const backend = new Backend();
    const all = new FakeWidgets(backend, undefined);
    await all.create({ metadata: { name: 'a', namespace: 'ns1', labels: { app: 'x' } } });
    await all.create({ metadata: { name: 'b', namespace: 'ns2' } });
    expect((await all.list()).items.map((w) => w.metadata?.name)).toEqual(['a', 'b']);
    expect((await all.inNamespace('ns2').list()).items).toHaveLength(1);
    expect((await all.list({ labelSelector: 'app=x' })).items).toHaveLength(1);
    expect(all.inNamespace('ns1').inNamespace('').namespace).toBeUndefined();
  });

  it('watch until the consumer breaks out, which closes the stream', async () => {
    const backend = new Backend();
    const client = new FakeWidgets(backend, 'default');
    const events = await client.watch();
    expect(backend.watchers.size).toBe(1);
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const event of events) {
        seen.push(`${event.type} ${event.type === 'ERROR' ? '' : event.object.metadata?.name}`);
        if (event.type === 'DELETED') break;
      }
    })();
    await client.create({ metadata: { name: 'w' } });
    await client.patch('w', { type: 'merge', body: { spec: { size: 2 } } });
    await client.delete('w');
    await consumer;
    expect(seen).toEqual(['ADDED w', 'MODIFIED w', 'DELETED w']);
    expect(backend.watchers.size).toBe(0);
  });

  it('end the watch when the signal aborts, and refuse to start on an aborted signal', async () => {
    const backend = new Backend();
    const client = new FakeWidgets(backend, 'default');
    const controller = new AbortController();
    const events = await client.watch({ signal: controller.signal });
    let count = 0;
    const consumer = (async () => {
      for await (const _ of events) count++;
    })();
    await client.create({ metadata: { name: 'w' } });
    await flush();
    controller.abort();
    await consumer;
    expect(count).toBe(1);
    expect(backend.watchers.size).toBe(0);
    await expect(client.watch({ signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  it('deliver an ERROR event as a Status, and end the stream after it', async () => {
    const backend = new Backend();
    const events = await new FakeWidgets(backend, 'default').watch();
    for (const w of backend.watchers) {
      w({
        type: 'ERROR',
        object: new StatusError({ code: 410, reason: 'Expired', message: 'too old' }).toStatus(),
      });
    }
    const seen: WatchEvent<Widget>[] = [];
    for await (const event of events) seen.push(event);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.type === 'ERROR' && StatusError.fromStatus(seen[0].object).reason).toBe(
      'Expired',
    );
  });

  it('tell a finished delete from a pending one with isStatus', async () => {
    const client = new FakeWidgets(new Backend(), 'default');
    await client.create({ metadata: { name: 'w' } });
    const result = await client.delete('w');
    expect(isStatus(result)).toBe(true);
    if (isStatus(result)) expect(result.details?.name).toBe('w');
  });
});
