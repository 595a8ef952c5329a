// How much does the workqueue cost over the bookkeeping it cannot avoid?
//
// One cycle adds every key (once, or three times to exercise deduplication),
// then takes and finishes each key, leaving the queue empty. Each queue is
// built once per case and cycled repeatedly, as a controller keeps one queue,
// so construction is not measured. Each case runs the same cycle on:
//   - the queue under test;
//   - bare: a dirty Set, a processing Set and an array FIFO with a head index,
//     doing exactly the dedup/take/done steps, synchronously;
//   - bare+await: the same, but each take is awaited, as a worker's get() is.
// Cases:
//   - queue: newQueue<string>() with no metrics (the default): add → get → done;
//   - rate-limited: newRateLimitingQueue with a zero-delay per-item exponential
//     limiter: addRateLimited → get → forget → done. A zero delay goes straight
//     to add, so this measures the retry bookkeeping, not timers; its bare
//     baseline adds a Map of failure counts.
// The baselines are long-lived too, so both sides pay the same for reusing
// their Sets and arrays (under tinybench a fresh Bare per cycle runs about
// twice as fast as a reused one).
// Figures are ratios to the bare runs measured in the same process, so they
// compare across machines; absolute rates are printed only for orientation.
import { Bench } from 'tinybench';
import {
  ItemExponentialFailureRateLimiter,
  newQueue,
  newRateLimitingQueue,
} from '@kcm-ts/workqueue';

class Bare {
  readonly dirty = new Set<string>();
  readonly processing = new Set<string>();
  fifo: string[] = [];
  head = 0;

  add(key: string): void {
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.fifo.push(key);
  }

  take(): string | undefined {
    if (this.head === this.fifo.length) return undefined;
    const key = this.fifo[this.head++]!;
    if (this.head === this.fifo.length) {
      this.fifo = [];
      this.head = 0;
    }
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.fifo.push(key);
  }
}

/** The bare queue plus the least a per-item rate limiter must keep: a failure count per key. */
class BareRateLimited extends Bare {
  readonly failures = new Map<string, number>();

  addRateLimited(key: string): void {
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    this.add(key);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }
}

function keysOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `namespace-${i % 97}/object-${i}`);
}

/** One cycle over a long-lived queue, which is empty again when the cycle ends. */
type Cycle = (keys: readonly string[], adds: number) => unknown;

/** Builds the queue (or bare baseline) once and returns its cycle, as a controller keeps one queue. */
type CycleFactory = () => Cycle;

function queueCycle(): Cycle {
  const queue = newQueue<string>();
  return async (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) queue.add(key);
    for (let i = 0; i < keys.length; i++) {
      const [key, shutdown] = await queue.get();
      if (shutdown) throw new Error('queue shut down unexpectedly');
      queue.done(key);
    }
    if (queue.len() !== 0) throw new Error('queue not empty after a cycle');
  };
}

function bareCycle(): Cycle {
  const bare = new Bare();
  return (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) bare.add(key);
    for (let i = 0; i < keys.length; i++) bare.done(bare.take()!);
    if (bare.take() !== undefined) throw new Error('bare queue not empty after a cycle');
  };
}

function bareAwaitCycle(): Cycle {
  const bare = new Bare();
  return async (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) bare.add(key);
    for (let i = 0; i < keys.length; i++) bare.done((await Promise.resolve(bare.take()))!);
    if (bare.take() !== undefined) throw new Error('bare queue not empty after a cycle');
  };
}

function rateLimitedCycle(): Cycle {
  const limiter = new ItemExponentialFailureRateLimiter<string>(0, 0);
  const queue = newRateLimitingQueue<string>(limiter);
  return async (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) queue.addRateLimited(key);
    for (let i = 0; i < keys.length; i++) {
      const [key, shutdown] = await queue.get();
      if (shutdown) throw new Error('queue shut down unexpectedly');
      queue.forget(key);
      queue.done(key);
    }
    if (queue.len() !== 0) throw new Error('queue not empty after a cycle');
    if (keys.length > 0 && queue.numRequeues(keys[0]!) !== 0) throw new Error('failures kept');
  };
}

function bareRateLimitedCycle(): Cycle {
  const bare = new BareRateLimited();
  return (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) bare.addRateLimited(key);
    for (let i = 0; i < keys.length; i++) {
      const key = bare.take()!;
      bare.forget(key);
      bare.done(key);
    }
    if (bare.take() !== undefined) throw new Error('bare queue not empty after a cycle');
  };
}

function bareRateLimitedAwaitCycle(): Cycle {
  const bare = new BareRateLimited();
  return async (keys, adds) => {
    for (let round = 0; round < adds; round++) for (const key of keys) bare.addRateLimited(key);
    for (let i = 0; i < keys.length; i++) {
      const key = (await Promise.resolve(bare.take()))!;
      bare.forget(key);
      bare.done(key);
    }
    if (bare.take() !== undefined) throw new Error('bare queue not empty after a cycle');
  };
}

interface Case {
  name: string;
  keys: number;
  adds: number;
  queue: CycleFactory;
  bare: CycleFactory;
  bareAwait: CycleFactory;
}

const cases: Case[] = [
  ...[1, 1_000, 100_000].flatMap((keys) =>
    [1, 3].map((adds) => ({
      name: 'queue',
      keys,
      adds,
      queue: queueCycle,
      bare: bareCycle,
      bareAwait: bareAwaitCycle,
    })),
  ),
  ...[1, 1_000, 100_000].flatMap((keys) =>
    [1, 3].map((adds) => ({
      name: 'rate-limited',
      keys,
      adds,
      queue: rateLimitedCycle,
      bare: bareRateLimitedCycle,
      bareAwait: bareRateLimitedAwaitCycle,
    })),
  ),
];

const header = [
  'case',
  'keys',
  'adds/key',
  'queue cycles/s',
  'bare cycles/s',
  'queue / bare',
  'queue / bare+await',
];
const rows: string[][] = [];
const started = performance.now();

for (const c of cases) {
  const keys = keysOf(c.keys);
  // Fewer, longer samples for the big case; enough samples for the small ones.
  const bench = new Bench(
    c.keys >= 100_000
      ? { time: 1000, iterations: 5, warmupIterations: 2 }
      : { time: 600, warmupTime: 150 },
  );
  const queueRun = c.queue();
  const bareRun = c.bare();
  const bareAwaitRun = c.bareAwait();
  // Say which tasks are async: otherwise tinybench calls each task once to find
  // out, without awaiting it, and that stray cycle would share the queue.
  bench
    .add('queue', () => queueRun(keys, c.adds), { async: true })
    .add('bare', () => bareRun(keys, c.adds), { async: false })
    .add('bare+await', () => bareAwaitRun(keys, c.adds), { async: true });
  await bench.run();

  // Cycles per second over the whole measured time: runs / total time.
  const opsPerSecond = (task: string): number => {
    const result = bench.getTask(task)?.result;
    if (!result || !('period' in result)) throw new Error(`benchmark ${task} did not complete`);
    return 1000 / result.period;
  };
  const queue = opsPerSecond('queue');
  const bare = opsPerSecond('bare');
  const bareAwait = opsPerSecond('bare+await');
  const rate = (n: number): string =>
    n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3);
  rows.push([
    c.name,
    c.keys.toLocaleString('en-US'),
    String(c.adds),
    rate(queue),
    rate(bare),
    (queue / bare).toFixed(2),
    (queue / bareAwait).toFixed(2),
  ]);
}

// A Markdown table whose columns also line up in a terminal.
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string =>
  `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`;

console.log(
  `workqueue add → get → done, Node ${process.version}, ${process.platform}/${process.arch}`,
);
console.log('queue / bare: 1.00 = as fast as the bare bookkeeping, 0.50 = half its speed');
console.log();
console.log([line(header), rule, ...rows.map(line)].join('\n'));
console.log();
console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
