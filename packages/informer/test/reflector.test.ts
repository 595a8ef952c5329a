// Ports of client-go tools/cache reflector_test.go and listwatch / pager
// behaviour, against the FakeSource and a FakeClock.
import {
  FakeClock,
  metaNamespaceKeyFunc,
  newInternalError,
  newResourceExpired,
  newTimeoutError,
  newTooManyRequests,
  StatusError,
  type ListOptions,
  type ListerWatcher,
} from '@kcm-ts/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ListPager,
  ListWatch,
  Reflector,
  VeryShortWatchError,
  newDeltaFIFO,
  newStore,
  type ReflectorOptions,
  type ReflectorStore,
  type Store,
} from '../src/index.js';
import { FakeSource, FakeWatch, type SourceObj } from './fake-source.js';
import { RecordingLogger, flush } from './helpers.js';

interface Harness {
  source: FakeSource;
  store: Store<SourceObj>;
  clock: FakeClock;
  reflector: Reflector<SourceObj>;
  errors: unknown[];
  controller: AbortController;
  done: Promise<void>;
}

const running: Harness[] = [];

function start(
  setup: (source: FakeSource) => void = () => {},
  options: ReflectorOptions = {},
  store: Store<SourceObj> = newStore<SourceObj>(metaNamespaceKeyFunc),
): Harness {
  const source = new FakeSource();
  setup(source);
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const reflector = new Reflector<SourceObj>(source, store, {
    clock,
    random: () => 0,
    watchErrorHandler: (_r, err) => errors.push(err),
    ...options,
  });
  const controller = new AbortController();
  const done = reflector.run(controller.signal);
  const h = { source, store, clock, reflector, errors, controller, done };
  running.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  h.controller.abort();
  await h.done;
  await flush();
  expect(h.clock.hasWaiters()).toBe(false);
  expect(h.source.openWatches()).toHaveLength(0);
}

afterEach(async () => {
  for (const h of running.splice(0)) {
    h.controller.abort();
    await h.done;
  }
});

const names = (store: Store<SourceObj>): string[] =>
  store
    .list()
    .map((o) => `${o.metadata.name}=${String(o.val)}`)
    .sort();

function twoObjects(source: FakeSource): void {
  source.add('a', 1);
  source.add('b', 2);
}

describe('Reflector', () => {
  it('lists at "0", then watches from the list resourceVersion (TestReflectorListAndWatch)', async () => {
    const h = start(twoObjects);
    await flush();
    expect(h.source.callsOf('list')).toEqual([
      { resourceVersion: '0', limit: 500, signal: h.controller.signal },
    ]);
    const watch = h.source.callsOf('watch');
    expect(watch).toHaveLength(1);
    expect(watch[0]).toMatchObject({ resourceVersion: '2', allowWatchBookmarks: true });
    expect(watch[0]!.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(watch[0]!.timeoutSeconds).toBeLessThan(600);
    expect(names(h.store)).toEqual(['a=1', 'b=2']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('2');

    h.source.add('c', 3);
    h.source.modify('a', 10);
    h.source.delete('b');
    await flush();
    expect(names(h.store)).toEqual(['a=10', 'c=3']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('5');
    await stop(h);
  });

  it('randomises the watch timeout between the minimum and twice it (TestWatchTimeout)', async () => {
    const h = start(twoObjects, { random: () => 0.5, minWatchTimeout: 10 * 60_000 });
    await flush();
    expect(h.source.callsOf('watch')[0]!.timeoutSeconds).toBe(900);
    await stop(h);
  });

  it('re-watches from the last resourceVersion without relisting on a normal close', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.add('c', 3);
    await flush();
    h.source.closeWatches();
    await flush();
    expect(h.source.callsOf('list')).toHaveLength(1);
    expect(h.source.callsOf('watch').map((o) => o.resourceVersion)).toEqual(['2', '3']);
    expect(h.clock.hasWaiters()).toBe(false);
    await stop(h);
  });

  it('logs a very short watch, returns normally, then backs off and relists (handler not called)', async () => {
    // reflector.go, watch: a VeryShortWatchError ends the watch with a log
    // line and a nil return, so ListAndWatch succeeds and only the backoff
    // paces the relist.
    const logger = new RecordingLogger();
    const h = start(twoObjects, { logger });
    await flush();
    h.source.closeWatches();
    await flush();
    expect(h.errors).toEqual([]);
    const line = logger.lines.find((l) => l.msg === 'Warning: watch ended with error');
    expect(line?.values?.['err']).toBeInstanceOf(VeryShortWatchError);
    await h.clock.advance(799);
    expect(h.source.calls).toHaveLength(2);
    await h.clock.advance(1);
    // A later list at a known version is unpaginated.
    expect(h.source.callsOf('list').map((o) => [o.resourceVersion, o.limit])).toEqual([
      ['0', 500],
      ['2', undefined],
    ]);
    expect(h.source.callsOf('watch')).toHaveLength(2);
    await stop(h);
  });

  it('relists at the last resourceVersion after a 410 in the stream', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.fail(newResourceExpired('too old resource version'));
    await flush();
    // Not an error for the handler, but still paced by the backoff.
    expect(h.errors).toHaveLength(0);
    expect(h.source.callsOf('list')).toHaveLength(1);
    await h.clock.advance(800);
    expect(h.source.callsOf('list').map((o) => o.resourceVersion)).toEqual(['0', '2']);
    await stop(h);
  });

  it('relists from the latest when a list at a version expires (TestReflectorExpiredExactResourceVersion)', async () => {
    const h = start((s) => {
      twoObjects(s);
    });
    await flush();
    h.source.listErrors.push(newResourceExpired('expired'));
    h.source.watches[0]!.fail(newResourceExpired('expired'));
    await h.clock.advance(800);
    expect(h.source.callsOf('list').map((o) => o.resourceVersion)).toEqual(['0', '2', '']);
    expect(h.source.callsOf('watch')).toHaveLength(2);
    await stop(h);
  });

  it('relists after a very short watch, dropping objects deleted meanwhile', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.close();
    h.source.delete('a');
    await flush();
    await h.clock.advance(800);
    expect(names(h.store)).toEqual(['b=2']);
    await stop(h);
  });

  it('relists after an internal error event', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.fail(newInternalError('store read error'));
    await flush();
    expect(h.source.callsOf('list')).toHaveLength(1);
    await h.clock.advance(800);
    expect(h.source.callsOf('list')).toHaveLength(2);
    await stop(h);
  });

  it('pages the first list and keeps the first page resourceVersion', async () => {
    const h = start(
      (s) => {
        for (const n of ['a', 'b', 'c', 'd', 'e']) s.add(n, 0);
      },
      { pageSize: 2 },
    );
    await flush();
    const lists = h.source.callsOf('list');
    expect(lists.map((o) => [o.resourceVersion, o.limit, o.continue])).toEqual([
      ['0', 2, undefined],
      [undefined, 2, '5:2'],
      [undefined, 2, '5:4'],
    ]);
    expect(h.store.listKeys().sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('5');
    await stop(h);
  });

  it('falls back to a full list when a continue token expires (TestReflectorFullListIfExpired)', async () => {
    const h = start(
      (s) => {
        for (const n of ['a', 'b', 'c']) s.add(n, 0);
        s.expireContinue = true;
      },
      { pageSize: 2 },
    );
    await flush();
    expect(h.source.callsOf('list').map((o) => [o.resourceVersion, o.limit, o.continue])).toEqual([
      ['0', 2, undefined],
      [undefined, 2, '3:2'],
      ['0', undefined, undefined],
    ]);
    expect(h.store.listKeys()).toHaveLength(3);
    await stop(h);
  });

  it('holds back the resourceVersion of ADDED events on a watch from "0" until another event', async () => {
    const h = start();
    await flush();
    expect(h.source.callsOf('watch')[0]!.resourceVersion).toBe('0');
    h.source.add('a', 1);
    await flush();
    expect(names(h.store)).toEqual(['a=1']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('0');
    h.source.modify('a', 2);
    await flush();
    expect(h.reflector.lastSyncResourceVersion()).toBe('2');
    await stop(h);
  });

  it('skips events whose object has no metadata (TestReflectorWatchHandler)', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.push({ type: 'ADDED', object: null as unknown as SourceObj });
    h.source.add('c', 3);
    await flush();
    expect(names(h.store)).toEqual(['a=1', 'b=2', 'c=3']);
    await stop(h);
  });

  it('records bookmarks in lastSyncResourceVersion without storing anything', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.push({
      type: 'BOOKMARK',
      object: { metadata: { name: '', resourceVersion: '10' }, val: undefined },
    });
    await flush();
    expect(h.reflector.lastSyncResourceVersion()).toBe('10');
    expect(names(h.store)).toEqual(['a=1', 'b=2']);
    await stop(h);
  });

  it('backs off exponentially up to the cap, and resets two minutes after the last reset', async () => {
    const h = start((s) => {
      for (let i = 0; i < 20; i++) s.listErrors.push(newInternalError('boom'));
    });
    await flush();
    let calls = h.source.calls.length;
    expect(calls).toBe(1);
    for (const delay of [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 800, 1600]) {
      await h.clock.advance(delay - 1);
      expect(h.source.calls.length).toBe(calls);
      await h.clock.advance(1);
      expect(h.source.calls.length).toBe(calls + 1);
      calls++;
    }
    expect(h.errors.length).toBe(calls);
    await stop(h);
  });

  it('keeps jittered delays within [d, 2d)', async () => {
    const h = start(
      (s) => {
        for (let i = 0; i < 5; i++) s.listErrors.push(newInternalError('boom'));
      },
      { random: () => 0.999 },
    );
    await flush();
    await h.clock.advance(1599);
    expect(h.source.calls).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.source.calls).toHaveLength(2);
    await stop(h);
  });

  it('honours a custom backoff (TestNewReflectorWithCustomBackoff)', async () => {
    const h = start(
      (s) => {
        for (let i = 0; i < 5; i++) s.listErrors.push(newInternalError('boom'));
      },
      { backoff: { initial: 10, factor: 2, cap: 100, jitter: 0, resetAfter: 120_000 } },
    );
    await flush();
    await h.clock.advance(10 + 20 + 40 + 80 + 100 - 1);
    expect(h.source.callsOf('list')).toHaveLength(5);
    await h.clock.advance(1);
    expect(h.source.callsOf('list')).toHaveLength(6);
    expect(h.source.callsOf('watch')).toHaveLength(1);
    await stop(h);
  });

  it('retries a 429 watch after Retry-After without relisting (TestNoRelistOnTooManyRequests)', async () => {
    const h = start((s) => {
      twoObjects(s);
      for (let i = 0; i < 4; i++) s.watchErrors.push(newTooManyRequests('slow down', 10));
    });
    await flush();
    for (let i = 1; i <= 4; i++) {
      expect(h.source.callsOf('watch')).toHaveLength(i);
      await h.clock.advance(9999);
      expect(h.source.callsOf('watch')).toHaveLength(i);
      await h.clock.advance(1);
    }
    expect(h.source.callsOf('watch')).toHaveLength(5);
    expect(h.source.callsOf('list')).toHaveLength(1);
    expect(h.errors).toHaveLength(0);
    await stop(h);
  });

  it('backs off on a refused connection and re-watches without relisting (TestReflectorListAndWatchInitConnBackoff)', async () => {
    const refused = (): Error =>
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      });
    const h = start((s) => {
      twoObjects(s);
      for (let i = 0; i < 8; i++) s.watchErrors.push(refused());
    });
    await flush();
    for (const delay of [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]) {
      await h.clock.advance(delay);
    }
    expect(h.source.callsOf('watch')).toHaveLength(9);
    expect(h.source.callsOf('list')).toHaveLength(1);
    expect(h.errors).toHaveLength(0);
    expect(h.source.openWatches()).toHaveLength(1);
    await stop(h);
  });

  it('relists at "" after every form of too large resource version (TestReflectorFullListIfTooLarge)', async () => {
    // The three forms kube-apiserver has sent: a ResourceVersionTooLarge
    // cause; a Timeout whose cause message says so (1.17.0-1.18.5); a Timeout
    // whose message says so (before 1.17).
    const withCauses = (causes: { reason?: string; message?: string }[]): StatusError => {
      const err = newTimeoutError('too large resource version', 1);
      return new StatusError({
        code: err.code,
        reason: err.reason,
        message: err.message,
        details: { ...err.details, causes },
      });
    };
    const tooLarge: Record<string, StatusError> = {
      '20': withCauses([{ reason: 'ResourceVersionTooLarge' }]),
      '30': withCauses([{ message: 'Too large resource version' }]),
      '40': newTimeoutError('Too large resource version', 1),
    };
    const calls: string[] = [];
    let version = 30;
    const lw: ListerWatcher<SourceObj> = {
      list: (opts: ListOptions = {}) => {
        const rv = opts.resourceVersion ?? '';
        calls.push(rv);
        const failure = tooLarge[rv];
        if (failure !== undefined) return Promise.reject(failure);
        let listRV = '20';
        if (rv === '') {
          listRV = String(version);
          version += 10;
        }
        return Promise.resolve({
          apiVersion: 'v1',
          kind: 'List',
          metadata: { resourceVersion: listRV },
          items: [],
        });
      },
      watch: () => Promise.reject(new Error('not watching in this test')),
    };
    const reflector = new Reflector<SourceObj>(lw, newStore<SourceObj>(metaNamespaceKeyFunc), {
      clock: new FakeClock(),
    });
    const signal = new AbortController().signal;
    for (let i = 0; i < 4; i++) await reflector.listAndWatch(signal).catch(() => {});
    expect(calls).toEqual(['0', '20', '', '30', '', '40', '']);
  });

  it('does not take a Timeout without details for too large (isTooLargeResourceVersionError)', async () => {
    const calls: string[] = [];
    const lw: ListerWatcher<SourceObj> = {
      list: (opts: ListOptions = {}) => {
        calls.push(opts.resourceVersion ?? '');
        if (calls.length === 1) {
          return Promise.resolve({
            apiVersion: 'v1',
            kind: 'List',
            metadata: { resourceVersion: '5' },
            items: [],
          });
        }
        return Promise.reject(
          new StatusError({ code: 504, reason: 'Timeout', message: 'Too large resource version' }),
        );
      },
      watch: () => Promise.reject(new Error('not watching in this test')),
    };
    const reflector = new Reflector<SourceObj>(lw, newStore<SourceObj>(metaNamespaceKeyFunc), {
      clock: new FakeClock(),
    });
    const signal = new AbortController().signal;
    await reflector.listAndWatch(signal).catch(() => {});
    await expect(reflector.listAndWatch(signal)).rejects.toThrow(
      'failed to list <unspecified>: Too large resource version',
    );
    expect(calls).toEqual(['0', '5']);
  });

  it('reports a watch that cannot be established and relists after the backoff', async () => {
    const h = start((s) => {
      twoObjects(s);
      s.watchErrors.push(newInternalError('no watch'));
    });
    await flush();
    expect(h.errors).toHaveLength(1);
    await h.clock.advance(800);
    expect(h.source.callsOf('list')).toHaveLength(2);
    expect(h.source.callsOf('watch')).toHaveLength(2);
    await stop(h);
  });

  it('backs off and re-watches after a 429 error event (TestBackoffOnTooManyRequests)', async () => {
    const h = start(twoObjects);
    await flush();
    h.source.watches[0]!.fail(newTooManyRequests('slow down', 0));
    await flush();
    expect(h.source.callsOf('watch')).toHaveLength(1);
    await h.clock.advance(800);
    expect(h.source.callsOf('watch')).toHaveLength(2);
    expect(h.source.callsOf('list')).toHaveLength(1);
    await stop(h);
  });

  it('tells a store every resourceVersion it moves to, bookmarks included (TestReflectorResourceVersionUpdate)', async () => {
    const rvs: string[] = [];
    const bookmarks: string[] = [];
    const store = Object.assign(newStore<SourceObj>(metaNamespaceKeyFunc), {
      updateResourceVersion: (rv: string) => rvs.push(rv),
      bookmark: (rv: string) => bookmarks.push(rv),
    });
    const h = start(() => {}, {}, store);
    await flush();
    // The list is at "0": the synthetic ADDED of a watch from "0" propagates nothing.
    const w = h.source.watches[0]!;
    const pod = (rv: string): SourceObj => ({
      metadata: { name: 'p', resourceVersion: rv },
      val: 0,
    });
    w.push({ type: 'ADDED', object: pod('10') });
    w.push({ type: 'MODIFIED', object: pod('20') });
    w.push({ type: 'BOOKMARK', object: pod('30') });
    w.push({ type: 'DELETED', object: pod('40') });
    await flush();
    expect(rvs).toEqual(['20', '30', '40']);
    expect(bookmarks).toEqual(['30']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('40');
    await stop(h);
  });

  it('starts resourceVersion updates at once on a watch from a known version', async () => {
    const rvs: string[] = [];
    const store = Object.assign(newStore<SourceObj>(metaNamespaceKeyFunc), {
      updateResourceVersion: (rv: string) => rvs.push(rv),
    });
    const h = start(twoObjects, {}, store);
    await flush();
    h.source.add('c', 3);
    h.source.watches[0]!.push({
      type: 'BOOKMARK',
      object: { metadata: { name: '', resourceVersion: '9' }, val: undefined },
    });
    await flush();
    expect(rvs).toEqual(['3', '9']);
    await stop(h);
  });

  it.each([
    ['retries off', 0, 0, 0],
    ['retries on, all calls fail', 30_000, 0, 31],
    ['retries on, one call successful', 30_000, 10, 40],
  ])(
    're-watches after internal errors within maxInternalErrorRetryDuration: %s (TestRetryInternalError)',
    async (_name, maxInternalErrorRetryDuration, rewindAt, wantRetries) => {
      const clock = new FakeClock();
      let counter = 0;
      const lw: ListerWatcher<SourceObj> = {
        list: () =>
          Promise.resolve({
            apiVersion: 'v1',
            kind: 'List',
            metadata: { resourceVersion: '1' },
            items: [],
          }),
        watch: (opts: ListOptions = {}) => {
          counter++;
          if (counter === rewindAt) clock.step(60_000);
          clock.step(1000);
          const w = new FakeWatch<SourceObj>(opts);
          w.fail(newInternalError(new Error('etcdserver: no leader')));
          return Promise.resolve(w);
        },
      };
      const reflector = new Reflector<SourceObj>(lw, newStore<SourceObj>(metaNamespaceKeyFunc), {
        clock,
        maxInternalErrorRetryDuration,
      });
      await reflector.listAndWatch(new AbortController().signal);
      expect(counter - 1).toBe(wantRetries);
    },
  );

  it('calls store.resync every resync period (TestReflectorResync)', async () => {
    let resyncs = 0;
    const store = newStore<SourceObj>(metaNamespaceKeyFunc);
    const inner = store.resync.bind(store);
    store.resync = () => {
      resyncs++;
      inner();
    };
    const h = start(twoObjects, { resyncPeriod: 1000 }, store);
    await flush();
    await h.clock.advance(3000);
    expect(resyncs).toBe(3);
    await stop(h);
  });

  it('ends the watch and relists when a resync fails, without reporting it', async () => {
    const store = newStore<SourceObj>(metaNamespaceKeyFunc);
    store.resync = () => {
      throw new Error('resync failed');
    };
    const h = start(twoObjects, { resyncPeriod: 1000 }, store);
    await flush();
    await h.clock.advance(1000);
    expect(h.source.openWatches()).toHaveLength(0);
    await h.clock.advance(800);
    expect(h.source.callsOf('list')).toHaveLength(2);
    expect(h.errors).toHaveLength(0);
    await stop(h);
  });

  it('makes no calls when already stopped (TestReflectorWatchStoppedBefore)', async () => {
    const source = new FakeSource();
    const reflector = new Reflector(source, newStore<SourceObj>(metaNamespaceKeyFunc), {
      clock: new FakeClock(),
    });
    await reflector.listAndWatch(AbortSignal.abort());
    await reflector.run(AbortSignal.abort());
    expect(source.calls).toHaveLength(0);
  });

  it('stops during a backoff leaving no timers (TestRunUntil)', async () => {
    const h = start((s) => s.listErrors.push(newInternalError('boom')));
    await flush();
    expect(h.clock.hasWaiters()).toBe(true);
    await stop(h);
  });

  it('stops a running watch and its resync ticker', async () => {
    const h = start(twoObjects, { resyncPeriod: 1000 });
    await flush();
    expect(h.source.openWatches()).toHaveLength(1);
    await stop(h);
  });

  it('feeds a DeltaFIFO', async () => {
    const fifo = newDeltaFIFO<SourceObj>();
    const store: ReflectorStore<SourceObj> = fifo;
    const source = new FakeSource();
    twoObjects(source);
    const controller = new AbortController();
    const reflector = new Reflector(source, store, { clock: new FakeClock() });
    const done = reflector.run(controller.signal);
    await flush();
    source.add('c', 3);
    await flush();
    expect(fifo.listKeys().sort()).toEqual(['a', 'b', 'c']);
    expect(fifo.hasSynced()).toBe(false);
    controller.abort();
    await done;
  });
});

describe('ListPager', () => {
  it('returns a single page as is', async () => {
    const source = new FakeSource();
    twoObjects(source);
    const pager = new ListPager((opts) => source.list(opts));
    const { list, paginated } = await pager.list({ resourceVersion: '0' });
    expect(paginated).toBe(false);
    expect(list.items).toHaveLength(2);
    expect(source.calls[0]!.opts).toEqual({ resourceVersion: '0', limit: 500 });
  });

  it('sends no limit with a page size of 0', async () => {
    const source = new FakeSource();
    const pager = new ListPager((opts) => source.list(opts), { pageSize: 0 });
    await pager.list();
    expect(source.calls[0]!.opts).toEqual({});
  });

  it('fails on an expired continue token when the fallback is off', async () => {
    const source = new FakeSource();
    for (const n of ['a', 'b', 'c']) source.add(n, 0);
    source.expireContinue = true;
    const pager = new ListPager((opts) => source.list(opts), {
      pageSize: 1,
      fullListIfExpired: false,
    });
    await expect(pager.list()).rejects.toMatchObject({ code: 410 });
  });
});

describe('ListWatch', () => {
  it('applies the modifier to every list and watch (NewFilteredListWatchFromClient)', async () => {
    const source = new FakeSource();
    const lw = ListWatch.filtered(source, (opts: ListOptions) => {
      opts.labelSelector = 'app=web';
    });
    await lw.list({ limit: 1 });
    await lw.watch({ resourceVersion: '0' });
    expect(source.calls.map((c) => c.opts)).toEqual([
      { limit: 1, labelSelector: 'app=web' },
      { resourceVersion: '0', labelSelector: 'app=web' },
    ]);
  });
});

describe('Reflector with a streaming list (WatchList)', () => {
  const watchList = { useWatchList: true };

  it('streams the initial state, replaces the store at the bookmark, and goes on watching on the same stream', async () => {
    const h = start((s) => {
      s.add('a', 1);
      s.add('b', 1);
    }, watchList);
    await until(() => names(h.store).length === 2);
    expect(names(h.store)).toEqual(['a=1', 'b=1']);
    expect(h.reflector.lastSyncResourceVersion()).toBe('2');
    expect(h.source.callsOf('list')).toEqual([]);
    const [opts] = h.source.callsOf('watch');
    expect(opts).toMatchObject({
      resourceVersion: '',
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
    });
    h.source.modify('a', 2);
    await until(() => names(h.store).includes('a=2'));
    expect(h.source.callsOf('watch')).toHaveLength(1);
    expect(h.reflector.lastSyncResourceVersion()).toBe('3');
    await stop(h);
  });

  it('falls back to list and watch when the server refuses the streaming list', async () => {
    const h = start((s) => {
      s.add('a', 1);
      s.watchListUnsupported = true;
    }, watchList);
    await until(() => names(h.store).length === 1);
    expect(h.source.callsOf('list')).toHaveLength(1);
    expect(h.source.callsOf('watch').map((o) => o.sendInitialEvents)).toEqual([true, undefined]);
    await stop(h);
  });

  it('asks again from the latest state after a 410', async () => {
    const h = start((s) => {
      s.add('a', 1);
      s.watchErrors.push(newResourceExpired('too old resource version'));
    }, watchList);
    await until(() => names(h.store).length === 1);
    expect(h.source.callsOf('watch').map((o) => o.sendInitialEvents)).toEqual([true, true]);
    expect(h.source.callsOf('list')).toEqual([]);
    await stop(h);
  });

  it('asks again from the latest state when the server has not reached the version', async () => {
    const h = start((s) => {
      s.add('a', 1);
      s.watchErrors.push(
        new StatusError({
          code: 504,
          reason: 'Timeout',
          message: 'Too large resource version: 9, current: 1',
          details: {
            causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
            retryAfterSeconds: 1,
          },
        }),
      );
    }, watchList);
    await until(() => names(h.store).length === 1);
    expect(h.source.callsOf('watch').map((o) => [o.sendInitialEvents, o.resourceVersion])).toEqual([
      [true, ''],
      [true, ''],
    ]);
    expect(h.source.callsOf('list')).toEqual([]);
    expect(h.errors).toEqual([]);
    await stop(h);
  });

  it('asks again when the stream ends before its bookmark', async () => {
    const h = start((s) => {
      s.add('a', 1);
      s.dropWatchListBeforeBookmark = 1;
    }, watchList);
    await until(() => names(h.store).length === 1);
    expect(h.source.callsOf('watch').map((o) => o.sendInitialEvents)).toEqual([true, true]);
    expect(h.source.callsOf('list')).toEqual([]);
    await stop(h);
  });

  it('lists instead when the stream ends at once with nothing in it', async () => {
    const h = start((s) => {
      s.dropWatchListBeforeBookmark = 1;
    }, watchList);
    await until(() => h.source.callsOf('list').length === 1);
    expect(h.source.callsOf('watch')[0]?.sendInitialEvents).toBe(true);
    await stop(h);
  });

  it('feeds a shared informer through a DeltaFIFO', async () => {
    const fifo = newDeltaFIFO<SourceObj>({ keyFunction: metaNamespaceKeyFunc });
    const h = start((s) => s.add('a', 1), watchList, fifo as unknown as Store<SourceObj>);
    await until(() => fifo.listKeys().length === 1);
    expect(fifo.getByKey('a')?.map((d) => d.type)).toEqual(['Sync']);
    await stop(h);
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await flush();
  expect(cond()).toBe(true);
}
