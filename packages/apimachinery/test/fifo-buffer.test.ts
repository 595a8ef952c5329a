import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FifoBuffer } from '../src/index.js';

describe('FifoBuffer', () => {
  it('hands items out in the order they came in, across growth and wrap-around', () => {
    const b = new FifoBuffer<number>();
    for (let i = 0; i < 10; i++) b.push(i);
    for (let i = 0; i < 7; i++) expect(b.shift()).toBe(i);
    // The ring has wrapped: growing must unroll it in order.
    for (let i = 10; i < 40; i++) b.push(i);
    expect(b.length).toBe(33);
    expect([...b]).toEqual(Array.from({ length: 33 }, (_, i) => i + 7));
    expect(b.peek()).toBe(7);
    expect(b.at(0)).toBe(7);
    expect(b.at(32)).toBe(39);
    expect(b.at(33)).toBeUndefined();
    expect(b.at(-1)).toBeUndefined();
    const out: number[] = [];
    for (let x = b.shift(); x !== undefined; x = b.shift()) out.push(x);
    expect(out).toEqual(Array.from({ length: 33 }, (_, i) => i + 7));
    expect(b.length).toBe(0);
    expect(b.shift()).toBeUndefined();
    expect(b.peek()).toBeUndefined();
  });

  it('clears', () => {
    const b = new FifoBuffer<string>();
    b.push('a');
    b.push('b');
    b.clear();
    expect(b.length).toBe(0);
    expect([...b]).toEqual([]);
    b.push('c');
    expect(b.shift()).toBe('c');
  });

  it('drains: every item, first to last, and empty after', () => {
    const b = new FifoBuffer<number>();
    for (let i = 0; i < 16; i++) b.push(i);
    for (let i = 0; i < 10; i++) b.shift();
    // The last eight wrap around to the front of the ring.
    for (let i = 16; i < 24; i++) b.push(i);
    expect(b.drain()).toEqual(Array.from({ length: 14 }, (_, i) => i + 10));
    expect(b.length).toBe(0);
    expect(b.drain()).toEqual([]);
    b.push(99);
    expect(b.shift()).toBe(99);
  });

  it('does not keep a taken item alive', () => {
    const b = new FifoBuffer<object>();
    const items = Array.from({ length: 5 }, () => ({}));
    for (const item of items) b.push(item);
    b.shift();
    b.shift();
    // The taken slots are cleared: only the three left are reachable.
    expect([...b]).toEqual(items.slice(2));
    expect(b.at(-2)).toBeUndefined();
  });

  it('behaves like an array used as a queue, whatever the mix of operations', () => {
    const op = fc.oneof(
      { arbitrary: fc.record({ push: fc.integer() }), weight: 10 },
      { arbitrary: fc.constant({ shift: true as const }), weight: 8 },
      { arbitrary: fc.constant({ clear: true as const }), weight: 1 },
      { arbitrary: fc.constant({ drain: true as const }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const b = new FifoBuffer<number>();
        const model: number[] = [];
        for (const o of ops) {
          if ('push' in o) {
            b.push(o.push);
            model.push(o.push);
          } else if ('shift' in o) {
            expect(b.shift()).toBe(model.shift());
          } else if ('drain' in o) {
            expect(b.drain()).toEqual(model.splice(0));
          } else {
            b.clear();
            model.length = 0;
          }
          expect(b.length).toBe(model.length);
          expect(b.peek()).toBe(model[0]);
        }
        expect([...b]).toEqual(model);
      }),
      { numRuns: 200 },
    );
  });
});
