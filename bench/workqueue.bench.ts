// How much does the workqueue cost over the bookkeeping it cannot avoid?
//
// One cycle adds every key (once, or three times to exercise deduplication),
// then takes and finishes each key. The same cycle runs on:
//   - workqueue: newQueue<string>() with no metrics, the default;
//   - bare: a dirty Set, a processing Set and an array FIFO with a head index,
//     doing exactly the dedup/take/done steps, synchronously;
//   - bare+await: the same, but each take is awaited, as a worker's get() is.
// Figures are ratios to the bare runs measured in the same process, so they
// compare across machines; absolute times are printed only for orientation.
import { Bench } from 'tinybench';
import { newQueue } from '@kcm-ts/workqueue';

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

function keysOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `namespace-${i % 97}/object-${i}`);
}

async function workqueueCycle(keys: readonly string[], adds: number): Promise<void> {
  const queue = newQueue<string>();
  for (let round = 0; round < adds; round++) for (const key of keys) queue.add(key);
  for (let i = 0; i < keys.length; i++) {
    const [key, shutdown] = await queue.get();
    if (shutdown) throw new Error('queue shut down unexpectedly');
    queue.done(key);
  }
  if (queue.len() !== 0) throw new Error('queue not empty after a cycle');
  queue.shutDown();
}

function bareCycle(keys: readonly string[], adds: number): void {
  const bare = new Bare();
  for (let round = 0; round < adds; round++) for (const key of keys) bare.add(key);
  for (let i = 0; i < keys.length; i++) bare.done(bare.take()!);
  if (bare.take() !== undefined) throw new Error('bare queue not empty after a cycle');
}

async function bareAwaitCycle(keys: readonly string[], adds: number): Promise<void> {
  const bare = new Bare();
  for (let round = 0; round < adds; round++) for (const key of keys) bare.add(key);
  for (let i = 0; i < keys.length; i++) bare.done((await Promise.resolve(bare.take()))!);
}

interface Row {
  keys: number;
  addsPerKey: number;
  'workqueue items/s': string;
  'bare items/s': string;
  'workqueue / bare': string;
  'workqueue / bare+await': string;
}

const cases = [1, 1_000, 100_000].flatMap((keys) => [1, 3].map((adds) => ({ keys, adds })));
const rows: Row[] = [];

for (const { keys: count, adds } of cases) {
  const keys = keysOf(count);
  // Fewer, longer samples for the big case; enough samples for the tiny one.
  const bench = new Bench(
    count >= 100_000
      ? { time: 1500, iterations: 5, warmupIterations: 2 }
      : { time: 800, warmupTime: 200 },
  );
  bench
    .add('workqueue', () => workqueueCycle(keys, adds))
    .add('bare', () => bareCycle(keys, adds))
    .add('bare+await', () => bareAwaitCycle(keys, adds));
  await bench.run();

  const itemsPerSecond = (name: string): number => {
    const result = bench.getTask(name)?.result;
    if (!result || !('period' in result)) throw new Error(`benchmark ${name} did not complete`);
    return (count / result.period) * 1000;
  };
  const wq = itemsPerSecond('workqueue');
  const bare = itemsPerSecond('bare');
  const bareAwait = itemsPerSecond('bare+await');
  rows.push({
    keys: count,
    addsPerKey: adds,
    'workqueue items/s': Math.round(wq).toLocaleString('en-US'),
    'bare items/s': Math.round(bare).toLocaleString('en-US'),
    'workqueue / bare': (wq / bare).toFixed(2),
    'workqueue / bare+await': (wq / bareAwait).toFixed(2),
  });
}

console.log(`workqueue add→get→done throughput, Node ${process.version}`);
console.log('ratios above 1 would mean faster than the baseline; 0.5 means half its speed');
console.table(rows);
