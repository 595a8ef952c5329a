// Property of the Reflector: whatever sequence of changes, closed watches,
// 410s, compactions and failures the source goes through, once the backoffs
// have run out the store holds exactly the source's live objects.
import { FakeClock, deletionHandlingMetaNamespaceKeyFunc } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Reflector,
  metaNamespaceIndexFunc,
  namespaceIndex,
  newDeltaFIFO,
  newIndexer,
  newRealFIFO,
  processDeltas,
  type Indexer,
  type RealFIFO,
  type ReflectorStore,
} from '../src/index.js';
import { FakeSource, applySourceOp, sourceFaults, type SourceObj } from './fake-source.js';
import { flush } from './helpers.js';

const nameArb = fc.constantFrom('a', 'b', 'c', 'd');
const opArb = fc.oneof(
  fc.record({ op: fc.constant('add' as const), name: nameArb, val: fc.nat(9) }),
  fc.record({ op: fc.constant('delete' as const), name: nameArb }),
  fc.constantFrom(...[...sourceFaults, 'tick' as const].map((op) => ({ op }))),
);

const view = (objs: SourceObj[]): string[] =>
  objs.map((o) => `${o.metadata.name}=${String(o.val)}@${o.metadata.resourceVersion}`).sort();

interface Target {
  /** What the reflector writes to. */
  store: ReflectorStore<SourceObj>;
  /** The cache to compare, once everything queued has been applied. */
  settle(): Promise<Indexer<SourceObj>>;
}

// Keyed as informers key their caches, so a tombstone from a relist finds its object.
function newCache(): Indexer<SourceObj> {
  return newIndexer<SourceObj>(deletionHandlingMetaNamespaceKeyFunc, {
    [namespaceIndex]: metaNamespaceIndexFunc,
  });
}

const targets: Record<string, () => Target> = {
  indexer: () => {
    const store = newCache();
    return { store, settle: () => Promise.resolve(store) };
  },
  // The informer's path: a DeltaFIFO drained into an indexer, as processDeltas does.
  'drained DeltaFIFO': () => {
    const cache = newCache();
    const fifo = newDeltaFIFO<SourceObj>({ knownObjects: cache });
    return {
      store: fifo,
      settle: async () => {
        while (fifo.listKeys().length > 0) {
          await fifo.pop((deltas) => {
            for (const d of deltas) {
              if (d.type === 'Deleted') cache.delete(d.object as SourceObj);
              else cache.update(d.object as SourceObj);
            }
          });
        }
        return cache;
      },
    };
  },
  // The default informer path: a RealFIFO, drained through processDeltas.
  'drained RealFIFO': () => {
    const cache = newCache();
    return drainedRealFIFO(cache, newRealFIFO<SourceObj>({ knownObjects: cache }));
  },
  'drained atomic RealFIFO': () =>
    drainedRealFIFO(
      newCache(),
      newRealFIFO<SourceObj>({ atomicEvents: true, emitDeltaTypeBookmark: true }),
    ),
};

function drainedRealFIFO(cache: Indexer<SourceObj>, fifo: RealFIFO<SourceObj>): Target {
  return {
    store: fifo,
    settle: async () => {
      while (fifo.queued().length > 0) {
        await fifo.pop((deltas, initial) => processDeltas({}, cache, deltas, initial));
      }
      return cache;
    },
  };
}

describe.each(Object.keys(targets))('Reflector properties into %s', (target) => {
  it('converges on the source after any mix of events, closes and failures', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 25 }), async (ops) => {
        const source = new FakeSource();
        source.add('a', 0);
        const t = targets[target]!();
        const store = t.store;
        const clock = new FakeClock();
        const reflector = new Reflector(source, store, {
          clock,
          watchErrorHandler: () => {},
        });
        const controller = new AbortController();
        const done = reflector.run(controller.signal);
        await flush();
        for (const op of ops) {
          if (!applySourceOp(source, op)) {
            if (op.op === 'tick') await clock.advance(1000);
          }
          await flush();
        }
        for (let i = 0; i < 5; i++) await clock.advance(60_000);
        expect(view((await t.settle()).list())).toEqual(view(source.live()));
        expect(source.openWatches()).toHaveLength(1);
        controller.abort();
        await done;
        await flush();
        expect(clock.hasWaiters()).toBe(false);
        expect(source.openWatches()).toHaveLength(0);
      }),
      { numRuns: 150 },
    );
  });
});
