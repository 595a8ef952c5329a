// Chapter 1: the basic queue's three sets (queue, dirty, processing), step
// by step, drawn as ../three-sets.svg. The sets are private to the queue, so
// the steps are replayed on a small model of queue.go's rules, and the test
// checks the model against the real queue: the same key from every get, the
// same length after every call.
// Run: npm run start:three-sets -w tutorials/01-workqueue
import { newQueue } from '@kcm-ts/workqueue';

/** The three sets after one call. */
export interface Step {
  call: string;
  queue: string[];
  dirty: string[];
  processing: string[];
}

//#region model
/** queue.go's rules for Add, Get and Done, on plain arrays and sets. */
export class ThreeSets {
  queue: string[] = [];
  dirty = new Set<string>();
  processing = new Set<string>();

  add(key: string): void {
    if (this.dirty.has(key)) return; // already waiting, or parked behind its worker
    this.dirty.add(key);
    if (this.processing.has(key)) return; // re-queued by done
    this.queue.push(key);
  }

  get(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.queue.push(key);
  }
}
//#endregion model

/** The calls the picture shows: a duplicate collapsed, a key changed while a worker holds it. */
export const SCRIPT = [
  'add a',
  'add b',
  'add a',
  'get',
  'add a',
  'done a',
  'get',
  'get',
  'done b',
  'done a',
];

/**
 * Replays SCRIPT on the model and on a real queue; throws if they ever
 * disagree. Returns the model's sets after each call.
 */
export async function run(): Promise<Step[]> {
  const model = new ThreeSets();
  const real = newQueue<string>();
  const steps: Step[] = [];
  for (const call of SCRIPT) {
    const [verb, key] = call.split(' ') as [string, string | undefined];
    let shown = call;
    if (verb === 'add') {
      model.add(key as string);
      real.add(key as string);
    } else if (verb === 'done') {
      model.done(key as string);
      real.done(key as string);
    } else {
      const expected = model.get();
      const [got] = await real.get();
      if (got !== expected)
        throw new Error(`${call}: the queue gave ${got}, the model ${expected}`);
      shown = `get → ${got}`;
    }
    if (real.len() !== model.queue.length)
      throw new Error(`${call}: len() is ${real.len()}, the model has ${model.queue.length}`);
    steps.push({
      call: shown,
      queue: [...model.queue],
      dirty: [...model.dirty].sort(),
      processing: [...model.processing].sort(),
    });
  }
  real.shutDown();
  return steps;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Draws the steps: one row per call, one column per set, a chip per key. */
export function draw(steps: Step[]): string {
  const rowH = 34;
  const top = 64;
  const cols = [
    { x: 20, title: 'call' },
    { x: 180, title: 'queue (order)' },
    { x: 390, title: 'dirty' },
    { x: 560, title: 'processing' },
  ];
  const width = 720;
  const height = top + steps.length * rowH + 16;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="14">`,
    '  <title>The basic queue: queue, dirty and processing after each call</title>',
    `  <rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    '  <text x="20" y="26" font-weight="bold">queue.go: the three sets after each call (generated from a run)</text>',
  ];
  for (const c of cols)
    out.push(`  <text x="${c.x}" y="54" font-weight="bold" fill="#34506e">${esc(c.title)}</text>`);
  steps.forEach((step, i) => {
    const y = top + i * rowH;
    if (i % 2 === 0)
      out.push(`  <rect x="10" y="${y}" width="${width - 20}" height="${rowH}" fill="#f4f7fb"/>`);
    out.push(
      `  <text x="20" y="${y + 22}" font-family="ui-monospace, monospace">${esc(step.call)}</text>`,
    );
    const sets: [number, string[], string, string][] = [
      [cols[1]!.x, step.queue, '#e8f3ea', '#2f6b3a'],
      [cols[2]!.x, step.dirty, '#fdf3e3', '#8a5a14'],
      [cols[3]!.x, step.processing, '#eae8f6', '#4a3f8f'],
    ];
    for (const [x, keys, fill, stroke] of sets) {
      keys.forEach((key, k) => {
        const cx = x + k * 34;
        out.push(
          `  <rect x="${cx}" y="${y + 6}" width="26" height="22" rx="5" fill="${fill}" stroke="${stroke}"/>`,
          `  <text x="${cx + 13}" y="${y + 22}" text-anchor="middle" font-family="ui-monospace, monospace">${esc(key)}</text>`,
        );
      });
      if (keys.length === 0) out.push(`  <text x="${x}" y="${y + 22}" fill="#999">∅</text>`);
    }
  });
  out.push('</svg>', '');
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const step of await run())
    console.log(
      `${step.call.padEnd(10)} queue=[${step.queue.join(' ')}] dirty={${step.dirty.join(' ')}} processing={${step.processing.join(' ')}}`,
    );
}
