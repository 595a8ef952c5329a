// Ports of client-go tools/cache listers_test.go and the generated listers'
// behaviour, plus WaitForCacheSync.
import {
  FakeClock,
  isNotFound,
  metaNamespaceKeyFunc,
  nothing,
  parseSelector,
  type KubeObject,
} from '@kcm-ts/apimachinery';
import { describe, expect, it } from 'vitest';
import {
  Lister,
  listAll,
  listAllByNamespace,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newIndexer,
  waitForCacheSync,
  waitForNamedCacheSync,
} from '../src/index.js';
import { RecordingLogger, flush } from './helpers.js';

function pods(withIndex: boolean) {
  const indexer = newIndexer<KubeObject>(
    metaNamespaceKeyFunc,
    withIndex ? { [namespaceIndex]: metaNamespaceIndexFunc } : {},
  );
  for (const [ns, name, app] of [
    ['default', 'web-1', 'web'],
    ['default', 'web-2', 'web'],
    ['default', 'db-1', 'db'],
    ['other', 'web-3', 'web'],
  ] as const) {
    indexer.add({ metadata: { namespace: ns, name, labels: { app } } });
  }
  return indexer;
}

const names = (objs: KubeObject[]): string[] => objs.map((o) => o.metadata?.name ?? '').sort();

describe('listAll', () => {
  it('returns the matching subset, all for the empty selector, none for nothing', () => {
    // TestListAll
    const store = pods(false);
    expect(names(listAll(store, parseSelector('app=web')))).toEqual(['web-1', 'web-2', 'web-3']);
    expect(listAll(store, parseSelector(''))).toHaveLength(4);
    expect(listAll(store, nothing())).toEqual([]);
  });
});

describe('listAllByNamespace', () => {
  it.each([true, false])('reads one namespace (namespace index: %s)', (withIndex) => {
    const indexer = pods(withIndex);
    expect(names(listAllByNamespace(indexer, 'default', parseSelector('app=web')))).toEqual([
      'web-1',
      'web-2',
    ]);
    expect(names(listAllByNamespace(indexer, 'other', parseSelector('')))).toEqual(['web-3']);
    expect(listAllByNamespace(indexer, '', parseSelector('app=web'))).toHaveLength(3);
    expect(listAllByNamespace(indexer, 'default', nothing())).toEqual([]);
  });
});

describe('Lister', () => {
  it('lists and gets, and answers a miss with NotFound naming the singular resource', () => {
    const lister = new Lister(pods(true), { group: '', resource: 'pod' });
    expect(names(lister.list(parseSelector('app=db')))).toEqual(['db-1']);
    expect(lister.list()).toHaveLength(4);
    expect(names(lister.byNamespace('default').list())).toEqual(['db-1', 'web-1', 'web-2']);
    expect(lister.byNamespace('other').get('web-3').metadata?.name).toBe('web-3');
    let err: unknown;
    try {
      lister.byNamespace('other').get('web-1');
    } catch (e) {
      err = e;
    }
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('pod "web-1" not found');
  });

  it('tryGet answers undefined for a missing object instead of NotFound', () => {
    const lister = new Lister(pods(true), { group: '', resource: 'pod' });
    expect(lister.byNamespace('other').tryGet('web-3')?.metadata?.name).toBe('web-3');
    expect(lister.byNamespace('other').tryGet('web-1')).toBeUndefined();
    const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
    indexer.add({ metadata: { name: 'node-1' } });
    const nodes = new Lister(indexer, { group: '', resource: 'node' });
    expect(nodes.tryGet('node-1')?.metadata?.name).toBe('node-1');
    expect(nodes.tryGet('node-2')).toBeUndefined();
  });

  it('gets cluster-scoped objects by name', () => {
    const indexer = newIndexer<KubeObject>(metaNamespaceKeyFunc, {});
    indexer.add({ metadata: { name: 'node-1' } });
    const lister = new Lister(indexer, { group: '', resource: 'node' });
    expect(lister.get('node-1').metadata?.name).toBe('node-1');
    expect(() => lister.get('node-2')).toThrow('node "node-2" not found');
    const rs = new Lister(indexer, { group: 'apps', resource: 'replicaset' });
    expect(() => rs.byNamespace('default').get('x')).toThrow('replicaset.apps "x" not found');
  });
});

describe('waitForCacheSync', () => {
  it('asks at once, then every 100 ms, until all are synced', async () => {
    const clock = new FakeClock();
    let a = false;
    let asked = 0;
    const result = waitForCacheSync(
      new AbortController().signal,
      [
        () => {
          asked++;
          return a;
        },
        () => true,
      ],
      { clock },
    );
    await flush();
    expect(asked).toBe(1);
    await clock.advance(100);
    expect(asked).toBe(2);
    a = true;
    await clock.advance(100);
    expect(await result).toBe(true);
    expect(clock.hasWaiters()).toBe(false);
  });

  it('gives false when the signal aborts first, leaving no timer', async () => {
    const clock = new FakeClock();
    const abort = new AbortController();
    const result = waitForCacheSync(abort.signal, [() => false], { clock });
    await clock.advance(1000);
    abort.abort();
    expect(await result).toBe(false);
    expect(clock.hasWaiters()).toBe(false);
  });

  it("logs client-go's messages, naming the controller, through a Logger", async () => {
    const logger = new RecordingLogger();
    expect(
      await waitForNamedCacheSync('replicaset', new AbortController().signal, [() => true], {
        logger,
      }),
    ).toBe(true);
    expect(
      await waitForNamedCacheSync('deployment', AbortSignal.abort(), [() => true], { logger }),
    ).toBe(false);
    expect(logger.lines.map((l) => [l.level, l.msg, l.values?.['controller']])).toEqual([
      ['info', 'Waiting for caches to sync', 'replicaset'],
      ['info', 'Caches are synced', 'replicaset'],
      ['info', 'Waiting for caches to sync', 'deployment'],
      ['error', 'Unable to sync caches', 'deployment'],
    ]);
  });

  it('names the controller in its messages', async () => {
    const lines: string[] = [];
    const logger = {
      info: (m: string) => lines.push(m),
      error: (m: string) => lines.push(`E ${m}`),
    };
    expect(
      await waitForNamedCacheSync('replicaset', new AbortController().signal, [() => true], {
        logger,
      }),
    ).toBe(true);
    const abort = new AbortController();
    abort.abort();
    expect(await waitForNamedCacheSync('deployment', abort.signal, [() => true], { logger })).toBe(
      false,
    );
    expect(lines).toEqual([
      'Waiting for caches to sync for replicaset',
      'Caches are synced for replicaset',
      'Waiting for caches to sync for deployment',
      'E unable to sync caches for deployment',
    ]);
  });
});
