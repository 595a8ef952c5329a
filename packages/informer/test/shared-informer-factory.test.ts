// The informer factory (client-go informers/factory.go), over fake clients.
import {
  FakeClock,
  groupResourceString,
  isForbidden,
  isUnauthorized,
  newForbidden,
  newInternalError,
  newResourceExpired,
  newUnauthorized,
  type GroupVersionResource,
  type KubeObject,
  type ListerWatcher,
  type ResourceClient,
} from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CacheSyncError,
  InformerOptionsConflictError,
  SharedInformerFactory,
  informerResources,
  namespaceIndex,
  type ResourceClientSource,
} from '../src/index.js';
import { FakeSource } from './fake-source.js';
import { RecordingLogger, flush } from './helpers.js';
import { Recorder, until } from './informer-harness.js';

/** One FakeSource per resource; records which clients were asked for. */
class FakeClients implements ResourceClientSource {
  readonly sources = new Map<string, FakeSource>();
  readonly requests: string[] = [];

  source(key: string): FakeSource {
    let s = this.sources.get(key);
    if (s === undefined) this.sources.set(key, (s = new FakeSource()));
    return s;
  }

  resource<T extends KubeObject>(
    gvr: GroupVersionResource,
    opts: { namespaced: boolean; kind: string },
  ): ResourceClient<T> {
    const key = groupResourceString(gvr);
    this.requests.push(`${key} ${opts.kind} namespaced=${String(opts.namespaced)}`);
    const lw = this.source(key) as unknown as ListerWatcher<T>;
    const client = (namespace: string | undefined): ResourceClient<T> =>
      ({
        namespace,
        inNamespace: (ns: string) => {
          this.requests.push(`${key} in ${ns}`);
          return client(ns);
        },
        list: (o) => lw.list(o),
        watch: (o) => lw.watch(o),
      }) as Partial<ResourceClient<T>> as ResourceClient<T>;
    return client(undefined);
  }
}

const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
});
function signal(): AbortSignal {
  const a = new AbortController();
  aborts.push(a);
  return a.signal;
}

describe('SharedInformerFactory', () => {
  it('hands out one informer per resource, with the namespace index', () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    const a = factory.pods().informer();
    expect(factory.pods().informer()).toBe(a);
    expect(factory.informerFor(informerResources.pods)).toBe(a);
    expect(factory.deployments().informer()).not.toBe(a);
    expect(Object.keys(a.getIndexer().getIndexers())).toEqual([namespaceIndex]);
    expect(clients.requests).toEqual([
      'pods Pod namespaced=true',
      'deployments.apps Deployment namespaced=true',
    ]);
  });

  it('starts each informer once, waits for the started ones, and serves listers', async () => {
    const clients = new FakeClients();
    clients.source('pods').add('web-1', 1);
    clients.source('replicasets.apps').add('web', 1);
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    const pods = factory.pods();
    const rec = new Recorder();
    pods.informer().addEventHandler(rec);
    const s = signal();
    factory.start(s);
    factory.start(s);
    factory.replicaSets().informer(); // asked for, not started yet
    const synced = await factory.waitForCacheSync(s);
    expect([...synced]).toEqual([['pods', true]]);
    expect(clients.source('pods').callsOf('list')).toHaveLength(1);
    expect(
      pods
        .lister()
        .list()
        .map((p) => p.metadata?.name),
    ).toEqual(['web-1']);
    expect(() => factory.replicaSets().lister().byNamespace('default').get('nope')).toThrow(
      'replicaset.apps "nope" not found',
    );

    factory.start(s);
    expect([...(await factory.waitForCacheSync(s))]).toEqual([
      ['pods', true],
      ['replicasets.apps', true],
    ]);
    await until(() => rec.events.length === 1);
    expect(rec.events).toEqual(['add web-1=1 initial']);
  });

  it('reports unsynced informers when the signal aborts first', async () => {
    const clients = new FakeClients();
    clients.source('nodes').listErrors.push(new Error('down'));
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    factory
      .nodes()
      .informer()
      .setWatchErrorHandler(() => {});
    const a = new AbortController();
    factory.start(a.signal);
    const waiting = factory.waitForCacheSync(a.signal);
    await flush();
    a.abort();
    expect([...(await waiting)]).toEqual([['nodes', false]]);
    await factory.shutdown();
    expect(factory.nodes().informer().isStopped()).toBe(true);
  });

  it('watches one namespace and tweaks every request when told to', async () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, {
      namespace: 'team-a',
      tweakListOptions: (opts) => {
        opts.labelSelector = 'app=web';
      },
      clock: new FakeClock(),
    });
    factory.configMaps().informer();
    factory.namespaces().informer(); // cluster-scoped: no namespace
    factory.start(signal());
    await factory.waitForCacheSync(signal());
    expect(clients.requests).toEqual([
      'configmaps ConfigMap namespaced=true',
      'configmaps in team-a',
      'namespaces Namespace namespaced=false',
    ]);
    expect(clients.source('configmaps').callsOf('list')[0]?.labelSelector).toBe('app=web');
    expect(clients.source('configmaps').callsOf('watch')[0]?.labelSelector).toBe('app=web');
  });

  it('uses a custom resync period per resource, and the transform', async () => {
    const clients = new FakeClients();
    clients.source('leases.coordination.k8s.io').add('lock', 1);
    const clock = new FakeClock();
    const factory = new SharedInformerFactory(clients, 0, {
      customResync: { 'leases.coordination.k8s.io': 10_000 },
      transform: (o) => ({ ...(o as object), transformed: true }),
      clock,
    });
    const rec = new Recorder();
    const reg = factory.leases().informer().addEventHandler(rec);
    factory.start(signal());
    await reg.whenSynced();
    expect(factory.leases().lister().list()[0]).toMatchObject({ transformed: true });
    rec.take();
    await clock.advance(10_000);
    await until(() => rec.events.length === 1);
    expect(rec.take()).toEqual(['update lock=1->1']);
  });

  it('passes shareUnchanged on to its informers', async () => {
    const clients = new FakeClients();
    const spec = { holder: 'a', durations: [15] };
    clients.source('leases.coordination.k8s.io').add('lock', { spec, renew: 1 });
    const factory = new SharedInformerFactory(clients, 0, { shareUnchanged: true });
    const updates: [unknown, unknown][] = [];
    const reg = factory
      .leases()
      .informer()
      .addEventHandler({ onUpdate: (o, n) => void updates.push([o, n]) });
    factory.start(signal());
    await reg.whenSynced();
    clients.source('leases.coordination.k8s.io').modify('lock', { spec, renew: 2 });
    await until(() => updates.length === 1);
    const [o, n] = updates[0] as [
      { val: { spec: object } },
      { val: { spec: object; renew: number } },
    ];
    expect(n.val.spec).toBe(o.val.spec);
    expect(n.val.renew).toBe(2);
  });

  it('waits for started informers on shutdown and starts nothing after it', async () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    const a = new AbortController();
    factory.secrets().informer();
    factory.start(a.signal);
    await factory.waitForCacheSync(a.signal);
    a.abort();
    await factory.shutdown();
    expect(factory.secrets().informer().isStopped()).toBe(true);
    factory.events().informer();
    factory.start(signal());
    await flush();
    expect(clients.source('events').calls).toEqual([]);
  });
});

describe('SharedInformerFactory: TypeScript-first additions', () => {
  it('rejects with a CacheSyncError on 401 or 403 when told to, naming the resource', async () => {
    for (const err of [
      newUnauthorized('Unauthorized'),
      newForbidden({ group: '', resource: 'pods' }, '', new Error('no RBAC')),
    ]) {
      const clients = new FakeClients();
      clients.source('pods').listErrors.push(err);
      const clock = new FakeClock();
      const factory = new SharedInformerFactory(clients, 0, { clock });
      factory.pods().informer();
      const s = signal();
      factory.start(s);
      let thrown: unknown;
      try {
        await factory.waitForCacheSync(s, { failOnAuthErrors: true });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(CacheSyncError);
      expect((thrown as CacheSyncError).resource).toBe('pods');
      expect((thrown as Error).message).toMatch(/^failed to wait for caches to sync: pods: /);
      expect(isUnauthorized(thrown) || isForbidden(thrown)).toBe(true);
      // The informer goes on retrying, and a later wait sees it synced.
      await clock.advance(2_000);
      expect([...(await factory.waitForCacheSync(s, { failOnAuthErrors: true }))]).toEqual([
        ['pods', true],
      ]);
    }
  });

  it('waits through a 403 by default, as client-go does', async () => {
    const clients = new FakeClients();
    clients
      .source('pods')
      .listErrors.push(newForbidden({ group: '', resource: 'pods' }, '', new Error('x')));
    const clock = new FakeClock();
    const factory = new SharedInformerFactory(clients, 0, { clock });
    factory.pods().informer();
    const s = signal();
    factory.start(s);
    let done = false;
    const waiting = factory.waitForCacheSync(s).then((m) => {
      done = true;
      return m;
    });
    await flush();
    expect(done).toBe(false);
    await clock.advance(2_000);
    expect([...(await waiting)]).toEqual([['pods', true]]);
  });

  it('does not reject for other errors, nor for an informer already synced', async () => {
    const clients = new FakeClients();
    clients.source('pods').listErrors.push(newInternalError('boom'));
    const clock = new FakeClock();
    const factory = new SharedInformerFactory(clients, 0, { clock });
    factory.pods().informer();
    const s = signal();
    factory.start(s);
    const waiting = factory.waitForCacheSync(s, { failOnAuthErrors: true });
    await flush();
    await clock.advance(2_000);
    expect([...(await waiting)]).toEqual([['pods', true]]);
  });

  it("sends the reflector's messages to the factory's logger", async () => {
    const clients = new FakeClients();
    clients.source('pods').listErrors.push(newInternalError('boom'));
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const factory = new SharedInformerFactory(clients, 0, { clock, logger });
    const informer = factory.pods().informer();
    const seen: unknown[] = [];
    const remove = informer.onWatchError((err) => seen.push(err));
    const s = signal();
    factory.start(s);
    await flush();
    expect(seen).toHaveLength(1);
    const failed = logger.lines.find((l) => l.msg === 'Failed to watch');
    expect(failed?.level).toBe('error');
    expect(failed?.values?.['reflector']).toBe('pods');
    remove();
    clients.source('pods').listErrors.push(newInternalError('again'));
    // The next list fails too: the logger hears it, the removed listener does not.
    await clock.advance(2_000);
    expect(logger.lines.filter((l) => l.msg === 'Failed to watch')).toHaveLength(2);
    expect(seen).toHaveLength(1);
  });

  it('gives listers a tryGet that answers undefined for a missing object', async () => {
    const clients = new FakeClients();
    clients.source('pods').add('web-1', 1);
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    const lister = factory.pods().lister();
    const s = signal();
    factory.start(s);
    await factory.waitForCacheSync(s);
    // The fake source's objects have no namespace: their key is the name.
    expect(lister.tryGet('web-1')?.metadata?.name).toBe('web-1');
    expect(lister.tryGet('nope')).toBeUndefined();
    expect(() => lister.get('nope')).toThrow('pod "nope" not found');
  });
});

describe('SharedInformerFactory: per-resource options (controller-runtime ByObject)', () => {
  const tag =
    (name: string) =>
    (o: unknown): unknown => ({ ...(o as object), tag: name });
  const factoryTransform = tag('factory');
  const podTransform = tag('pods');

  it('selects and transforms one resource only, on top of the factory-wide options', async () => {
    const clients = new FakeClients();
    clients.source('pods').add('web-1', 1);
    clients.source('configmaps').add('conf', 1);
    const clock = new FakeClock();
    const factory = new SharedInformerFactory(clients, 0, {
      clock,
      tweakListOptions: (o) => {
        o.labelSelector = 'tier=front';
      },
      transform: factoryTransform,
      byResource: {
        pods: {
          labelSelector: 'app=web',
          fieldSelector: 'spec.nodeName=node-1',
          tweakListOptions: (o) => {
            o.limit = 7;
          },
          transform: podTransform,
        },
      },
    });
    const pods = factory.pods();
    const configMaps = factory.configMaps();
    pods.informer();
    configMaps.informer();
    const s = signal();
    factory.start(s);
    expect([...(await factory.waitForCacheSync(s))]).toEqual([
      ['pods', true],
      ['configmaps', true],
    ]);
    for (const method of ['list', 'watch'] as const) {
      const [podOpts] = clients.source('pods').callsOf(method);
      expect(podOpts?.labelSelector).toBe('tier=front,app=web');
      expect(podOpts?.fieldSelector).toBe('spec.nodeName=node-1');
      expect(podOpts?.limit).toBe(7);
      const [cmOpts] = clients.source('configmaps').callsOf(method);
      expect(cmOpts?.labelSelector).toBe('tier=front');
      expect(cmOpts?.fieldSelector).toBeUndefined();
    }
    expect(pods.lister().list()[0]).toMatchObject({ tag: 'pods' });
    expect(configMaps.lister().list()[0]).toMatchObject({ tag: 'factory' });
  });

  it('keeps the selector through relists and re-watches', async () => {
    const clients = new FakeClients();
    const clock = new FakeClock();
    const factory = new SharedInformerFactory(clients, 0, {
      clock,
      byResource: { 'replicasets.apps': { labelSelector: 'app=web' } },
    });
    factory.replicaSets().informer();
    const s = signal();
    factory.start(s);
    await factory.waitForCacheSync(s);
    const source = clients.source('replicasets.apps');
    await until(() => source.openWatches().length === 1);
    source.add('web', 1);
    for (const w of source.openWatches()) w.fail(newResourceExpired('expired'));
    await until(() => source.callsOf('list').length === 2 || clock.hasWaiters());
    await clock.advance(2_000);
    await until(() => source.callsOf('list').length === 2);
    await until(() => source.callsOf('watch').length === 2);
    for (const opts of [...source.callsOf('list'), ...source.callsOf('watch')]) {
      expect(opts.labelSelector).toBe('app=web');
    }
  });

  it('gives a resource its options on the first request, and the same informer for the same options', () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    const tweak = (o: { limit?: number }): void => {
      o.limit = 1;
    };
    const web = factory.informerFor(informerResources.pods, {
      labelSelector: 'app=web',
      tweakListOptions: tweak,
    });
    expect(
      factory.informerFor(informerResources.pods, {
        labelSelector: 'app=web',
        tweakListOptions: tweak,
      }),
    ).toBe(web);
    expect(
      factory
        .pods({ labelSelector: 'app=web', fieldSelector: '', tweakListOptions: tweak })
        .informer(),
    ).toBe(web);
    // Other resources are not affected.
    expect(factory.nodes().informer()).not.toBe(web);
  });

  it('refuses a request whose options differ from the informer already made', () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    factory.pods({ labelSelector: 'app=web' }).informer();
    const conflicts: [() => unknown, RegExp][] = [
      [
        () => factory.pods({ labelSelector: 'app=db' }).informer(),
        /^pods: the informer already made has labelSelector "app=web", but this request asks for labelSelector "app=db" \(differing: labelSelector\)/,
      ],
      [
        () => factory.pods().lister(),
        /^pods: .* but this request asks for no per-resource options \(differing: labelSelector\)/,
      ],
      [
        () =>
          factory.informerFor(informerResources.pods, {
            labelSelector: 'app=web',
            transform: podTransform,
          }),
        /\(differing: transform\)/,
      ],
    ];
    for (const [request, message] of conflicts) {
      let thrown: unknown;
      try {
        request();
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InformerOptionsConflictError);
      expect((thrown as InformerOptionsConflictError).resource).toBe('pods');
      expect((thrown as Error).message).toMatch(message);
    }
    // Only the first request reached the source.
    expect(clients.requests).toEqual(['pods Pod namespaced=true']);
  });

  it("refuses options that differ from the factory's byResource entry, and accepts equal ones", () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, {
      clock: new FakeClock(),
      byResource: { 'deployments.apps': { labelSelector: 'app=web' } },
    });
    expect(() => factory.deployments({ labelSelector: 'app=db' }).informer()).toThrow(
      /^deployments\.apps: the informer set by the factory's byResource option has labelSelector "app=web", but this request asks for labelSelector "app=db"/,
    );
    const a = factory.deployments({ labelSelector: 'app=web' }).informer();
    expect(factory.deployments().informer()).toBe(a);
    expect(() => factory.deployments({}).informer()).toThrow(InformerOptionsConflictError);
  });

  it('refuses a filtered request for a resource already watched whole', () => {
    const clients = new FakeClients();
    const factory = new SharedInformerFactory(clients, 0, { clock: new FakeClock() });
    factory.secrets().informer();
    expect(() => factory.secrets({ fieldSelector: 'type=Opaque' }).informer()).toThrow(
      'secrets: the informer already made has no per-resource options, but this request asks for fieldSelector "type=Opaque" (differing: fieldSelector)',
    );
  });
});
