// Property tests: random interleavings of producers, a fake clock and several
// async workers on a delaying queue, checked against a small model.
import { FakeClock } from '@kcm-ts/apimachinery';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newDelayingQueue } from '../src/index.js';
import { flush } from './helpers.js';

const WORKERS = 3;
const ITEMS = ['a', 'b', 'c', 'd', 'e'] as const;

type Command =
  | { kind: 'add'; item: string }
  | { kind: 'addAfter'; item: string; ms: number }
  | { kind: 'step'; ms: number }
  | { kind: 'get'; worker: number }
  | { kind: 'done'; worker: number }
  | { kind: 'shutDown' }
  | { kind: 'shutDownWithDrain' };

type ShutdownKind = 'shutDown' | 'shutDownWithDrain';

const itemArb = fc.constantFrom(...ITEMS);
const workerArb = fc.integer({ min: 0, max: WORKERS - 1 });
// Everything but shutdown: producers, time, and workers taking and finishing items.
const workCommandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: itemArb.map((item) => ({ kind: 'add' as const, item })) },
  {
    weight: 4,
    arbitrary: fc
      .record({ item: itemArb, ms: fc.integer({ min: -5, max: 30 }) })
      .map((r) => ({ kind: 'addAfter' as const, ...r })),
  },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 0, max: 20 }).map((ms) => ({ kind: 'step' as const, ms })),
  },
  { weight: 5, arbitrary: workerArb.map((worker) => ({ kind: 'get' as const, worker })) },
  { weight: 5, arbitrary: workerArb.map((worker) => ({ kind: 'done' as const, worker })) },
);
const shutdownKindArb = fc.constantFrom<ShutdownKind>('shutDown', 'shutDownWithDrain');
// Work, then a shutdown, then more work, in which a second shutdown of
// either kind may come (a shutDown after a drain forces it).
const scenarioArb = fc
  .record({
    before: fc.array(workCommandArb, { maxLength: 60, size: 'max' }),
    shutdown: shutdownKindArb,
    after: fc.array(
      fc.oneof(
        { weight: 10, arbitrary: workCommandArb },
        { weight: 1, arbitrary: shutdownKindArb.map((kind) => ({ kind })) },
      ),
      { maxLength: 15, size: 'max' },
    ),
  })
  .map(({ before, shutdown, after }): Command[] => [...before, { kind: shutdown }, ...after]);

interface Report {
  /** (a): an item handed to a worker while another worker held it. */
  doubleHeld: string[];
  /** (b): items added (or whose delay elapsed) before shutdown and not handed out after. */
  lost: string[];
  /** (c): deliveries with no add before shutdown since the item's previous delivery. */
  unowed: string[];
  /** A drain that resolved while a worker still held an item, without a forcing shutDown. */
  earlyDrain: string[];
  /** Anything else that went wrong: workers that never saw shutdown, drains that never resolved, leaks. */
  other: string[];
}

type Worker = { state: 'idle' | 'getting' | 'exited' } | { state: 'holding'; item: string };

async function runScenario(commands: Command[]): Promise<Report> {
  const report: Report = { doubleHeld: [], lost: [], unowed: [], earlyDrain: [], other: [] };
  const clock = new FakeClock(0);
  const q = newDelayingQueue<string>({ clock });
  const workers: Worker[] = Array.from({ length: WORKERS }, () => ({ state: 'idle' }));
  const holder = new Map<string, number>();
  // The model: items with an add before shutdown not yet followed by a delivery,
  // and the ready time of each item waiting for its delay.
  const owed = new Set<string>();
  const waiting = new Map<string, number>();
  let shutdown = false;
  let forced = false;
  let drainsPending = 0;

  const startGet = (w: number) => {
    workers[w] = { state: 'getting' };
    void q.get().then(([item, isShutdown]) => {
      if (isShutdown) {
        workers[w] = { state: 'exited' };
        return;
      }
      const other = holder.get(item);
      if (other !== undefined) report.doubleHeld.push(`${item}: worker ${w} and ${other}`);
      if (!owed.has(item)) report.unowed.push(`${item} to worker ${w} at ${clock.now()}`);
      owed.delete(item);
      holder.set(item, w);
      workers[w] = { state: 'holding', item };
    });
  };
  const finish = (w: number) => {
    const worker = workers[w]!;
    if (worker.state !== 'holding') return;
    holder.delete(worker.item);
    workers[w] = { state: 'idle' };
    q.done(worker.item);
  };
  const beginShutdown = (kind: ShutdownKind) => {
    shutdown = true;
    waiting.clear();
    if (kind === 'shutDown') {
      forced = true;
      q.shutDown();
      return;
    }
    drainsPending++;
    void q.shutDownWithDrain().then(() => {
      drainsPending--;
      if (!forced && holder.size > 0) {
        report.earlyDrain.push(`drain resolved while ${[...holder.keys()].join()} in flight`);
      }
    });
  };

  // Between commands the model's owed items are exactly the dirty ones, so the
  // queue holds those not in processing, and no worker may wait while it holds any.
  const checkConsistency = (cmd: Command) => {
    const queued = [...owed].filter((item) => !holder.has(item)).length;
    if (q.len() !== queued) {
      report.other.push(`len ${q.len()}, expected ${queued}, after ${JSON.stringify(cmd)}`);
    }
    if (q.len() > 0 && workers.some((w) => w.state === 'getting')) {
      report.other.push(`a worker waits while ${q.len()} item(s) are queued`);
    }
    if (drainsPending > 0 && holder.size === 0) {
      report.other.push(
        `a drain is still blocked with nothing in flight, after ${JSON.stringify(cmd)}`,
      );
    }
  };

  for (const cmd of commands) {
    switch (cmd.kind) {
      case 'add':
        if (!shutdown) owed.add(cmd.item);
        q.add(cmd.item);
        break;
      case 'addAfter':
        if (!shutdown) {
          if (cmd.ms <= 0) {
            owed.add(cmd.item);
          } else {
            const readyAt = clock.now() + cmd.ms;
            const earlier = waiting.get(cmd.item);
            if (earlier === undefined || readyAt < earlier) waiting.set(cmd.item, readyAt);
          }
        }
        q.addAfter(cmd.item, cmd.ms);
        break;
      case 'step':
        clock.step(cmd.ms);
        for (const [item, readyAt] of waiting) {
          if (readyAt <= clock.now()) {
            owed.add(item);
            waiting.delete(item);
          }
        }
        break;
      case 'get':
        if (workers[cmd.worker]!.state === 'idle') startGet(cmd.worker);
        break;
      case 'done':
        finish(cmd.worker);
        break;
      case 'shutDown':
      case 'shutDownWithDrain':
        beginShutdown(cmd.kind);
        break;
    }
    await flush();
    checkConsistency(cmd);
  }

  // Wind down: every worker finishes what it holds and keeps getting until
  // the queue reports shutdown.
  if (!shutdown) report.other.push('the scenario never shut down');
  q.add('late');
  q.addAfter('late-delayed', 0);
  q.addAfter('late-delayed', 5);
  for (let round = 0; workers.some((w) => w.state !== 'exited'); round++) {
    if (round > 1000) {
      report.other.push('workers never saw shutdown');
      break;
    }
    for (let w = 0; w < WORKERS; w++) {
      finish(w);
      if (workers[w]!.state === 'idle') startGet(w);
    }
    clock.step(50);
    await flush();
  }
  await flush();

  report.lost.push(...owed);
  if (drainsPending > 0) report.other.push(`${drainsPending} drain(s) never resolved`);
  if (q.len() !== 0) report.other.push(`len ${q.len()} after wind-down`);
  if (clock.hasWaiters()) report.other.push('timers left on the clock');
  return report;
}

const params = { numRuns: 200 };

describe('delaying queue under random interleavings', () => {
  it('(a) never hands an item to two workers at once', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (commands) => {
        const report = await runScenario(commands);
        expect(report.doubleHeld).toEqual([]);
        expect(report.earlyDrain).toEqual([]);
      }),
      params,
    );
  });

  it('(b) loses no item added, or whose delay elapsed, before shutdown', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (commands) => {
        const report = await runScenario(commands);
        expect(report.lost).toEqual([]);
        expect(report.other).toEqual([]);
      }),
      params,
    );
  });

  it('(c) never delivers an add that came only after shutdown', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (commands) => {
        const report = await runScenario(commands);
        expect(report.unowed).toEqual([]);
      }),
      params,
    );
  });
});
