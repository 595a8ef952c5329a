import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../src/index.js';

// Cases from Go's time/time_test.go (parseDurationTests), in milliseconds.
describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['5s', 5_000],
    ['30s', 30_000],
    ['1478s', 1_478_000],
    ['-5s', -5_000],
    ['+5s', 5_000],
    ['-0', 0],
    ['+0', 0],
    ['5.0s', 5_000],
    ['5.6s', 5_600],
    ['5.s', 5_000],
    ['.5s', 500],
    ['1.0s', 1_000],
    ['1.004s', 1_004],
    ['100.00100s', 100_001],
    ['10ns', 0.00001],
    ['11us', 0.011],
    ['12µs', 0.012],
    ['12μs', 0.012],
    ['13ms', 13],
    ['14s', 14_000],
    ['15m', 900_000],
    ['16h', 57_600_000],
    ['3h30m', 12_600_000],
    ['10.5s4m', 250_500],
    ['-2m3.4s', -123_400],
    ['1h2m3s4ms', 3_723_004],
    ['9223372036854775807ns', 9_223_372_036_854.775],
    ['-9223372036854775808ns', -9_223_372_036_854.775],
    ['0.3333333333333333333h', 1_200_000],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['2 s', 'time: unknown unit " s" in duration "2 s"'],
    ['15', 'time: missing unit in duration "15"'],
    // The unit runs to the next digit or dot, spaces and all.
    ['1h ', 'time: unknown unit "h " in duration "1h "'],
    // Non-ASCII bytes are written as \x escapes, as Go's time package quotes.
    ['3\u00a0s', 'time: unknown unit "\\xc2\\xa0s" in duration "3\\xc2\\xa0s"'],
    // An integer beyond int64 is an invalid duration, whatever follows it.
    ['99999999999999999999Z', 'time: invalid duration "99999999999999999999Z"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['2562048h', 'time: invalid duration "2562048h"'],
  ])('refuses %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('reads back what it is given as whole milliseconds', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), (ms) => {
        const h = Math.floor(ms / 3_600_000);
        const m = Math.floor(ms / 60_000) % 60;
        const s = Math.floor(ms / 1000) % 60;
        const rest = ms % 1000;
        expect(parseDuration(`${h}h${m}m${s}s${rest}ms`)).toBe(ms);
      }),
    );
  });
});
