// Property of the SharedIndexInformer: whatever mix of changes, broken
// watches, 410s, compactions, failures, resyncs and late handlers the source
// goes through, once the backoffs have run out the cache holds exactly the
// source's live objects, and every handler's notifications, replayed over an
// empty map, rebuild that same state with no add of a known key and no update
// of an unknown one.
import { FakeClock, isDeletedFinalStateUnknown } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SharedIndexInformer,
  type InformerFeatureGates,
  type ResourceEventHandler,
} from '../src/index.js';
import {
  FakeSource,
  applySourceOp,
  sourceFaults,
  type SourceObj,
  type SourceOp,
} from './fake-source.js';
import { flush } from './helpers.js';

const nameArb = fc.constantFrom('a', 'b', 'c', 'd');
const fault = (op: string) => ({ arbitrary: fc.constant({ op }), weight: 1 });
const opArb = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant('add' as const), name: nameArb, val: fc.nat(9) }),
    weight: 4,
  },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), name: nameArb }), weight: 2 },
  { arbitrary: fc.constant({ op: 'tick' as const }), weight: 3 },
  ...sourceFaults.map(fault),
  fault('handler'),
) as fc.Arbitrary<SourceOp | { op: 'tick' | 'handler' }>;

const show = (o: SourceObj): string =>
  `${o.metadata.name}=${String(o.val)}@${o.metadata.resourceVersion}`;

/** A handler that mirrors what it is told into a map, and notes any inconsistency. */
class Mirror implements ResourceEventHandler<SourceObj> {
  readonly state = new Map<string, SourceObj>();
  readonly problems: string[] = [];
  constructor(readonly slow: boolean) {}

  onAdd(obj: SourceObj): Promise<void> | undefined {
    if (this.state.has(obj.metadata.name)) this.problems.push(`add of known ${show(obj)}`);
    this.state.set(obj.metadata.name, obj);
    return this.pause();
  }

  onUpdate(_old: SourceObj, obj: SourceObj): Promise<void> | undefined {
    if (!this.state.has(obj.metadata.name)) this.problems.push(`update of unknown ${show(obj)}`);
    this.state.set(obj.metadata.name, obj);
    return this.pause();
  }

  onDelete(obj: SourceObj | { key: string }): Promise<void> | undefined {
    this.state.delete(isDeletedFinalStateUnknown(obj) ? obj.key : (obj as SourceObj).metadata.name);
    return this.pause();
  }

  view(): string[] {
    return [...this.state.values()].map(show).sort();
  }

  // A slow handler yields to the event loop on every notification.
  private pause(): Promise<void> | undefined {
    return this.slow ? new Promise((resolve) => setImmediate(resolve)) : undefined;
  }
}

// Each queue an informer can run on (client-go's gates), with and without
// a streaming list.
const modes: [string, InformerFeatureGates, boolean][] = [
  ['RealFIFO, atomic (the default)', {}, false],
  ['RealFIFO, atomic (the default)', {}, true],
  ['RealFIFO, not atomic', { AtomicFIFO: false }, false],
  ['DeltaFIFO', { InOrderInformers: false }, false],
  ['DeltaFIFO', { InOrderInformers: false }, true],
];

describe.each(modes)(
  'SharedIndexInformer properties (%s, watch list: %s)',
  (_mode, featureGates, useWatchList) => {
    it('converges, and every handler agrees with the cache', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
          const source = new FakeSource();
          source.add('a', 0);
          const clock = new FakeClock();
          const informer = new SharedIndexInformer<SourceObj>(source, {
            clock,
            resyncPeriod: 5000,
            useWatchList,
            featureGates,
          });
          informer.setWatchErrorHandler(() => {});
          const mirrors = [new Mirror(false), new Mirror(true)];
          const registrations = mirrors.map((m, i) =>
            informer.addEventHandler(m, { resyncPeriod: i === 0 ? 0 : 5000 }),
          );
          const controller = new AbortController();
          const done = informer.run(controller.signal);
          await flush();
          for (const op of ops) {
            if (!applySourceOp(source, op)) {
              if (op.op === 'tick') await clock.advance(2500);
              if (op.op === 'handler') {
                const late = new Mirror(mirrors.length % 2 === 0);
                mirrors.push(late);
                registrations.push(informer.addEventHandler(late));
              }
            }
            await flush();
          }
          for (let i = 0; i < 5; i++) await clock.advance(60_000);
          for (let i = 0; i < 10; i++) await flush();

          const live = source.live().map(show).sort();
          expect(informer.getStore().list().map(show).sort()).toEqual(live);
          for (const m of mirrors) {
            expect(m.problems).toEqual([]);
            expect(m.view()).toEqual(live);
          }
          expect(registrations.every((r) => r.hasSynced())).toBe(true);
          // No storm: one list per failure at most, plus the first.
          const failures = ops.filter(
            (o) => o.op !== 'add' && o.op !== 'delete' && o.op !== 'tick',
          );
          expect(source.callsOf('list').length).toBeLessThanOrEqual(failures.length + 1);
          controller.abort();
          await done;
          await flush();
          expect(clock.hasWaiters()).toBe(false);
          expect(source.openWatches()).toHaveLength(0);
        }),
        { numRuns: 200 },
      );
    });
  },
);
