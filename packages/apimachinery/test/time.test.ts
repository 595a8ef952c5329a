import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, parseMicroTime } from '../src/index.js';

const t0 = Date.UTC(2026, 0, 1, 12);

describe('Time', () => {
  it('formats in whole seconds, truncating', () => {
    expect(formatTime(t0)).toBe('2026-01-01T12:00:00Z');
    expect(formatTime(t0 + 999.9)).toBe('2026-01-01T12:00:00Z');
    expect(formatTime(t0 + 1000)).toBe('2026-01-01T12:00:01Z');
  });
});

describe('MicroTime', () => {
  it('formats with six fractional digits, as kube does', () => {
    expect(formatMicroTime(t0)).toBe('2026-01-01T12:00:00.000000Z');
    expect(formatMicroTime(t0 + 123.456)).toBe('2026-01-01T12:00:00.123456Z');
    expect(formatMicroTime(t0 + 999.9999)).toBe('2026-01-01T12:00:01.000000Z');
  });

  it('parses MicroTime and Time, keeping microseconds', () => {
    expect(parseMicroTime('2026-01-01T12:00:00.123456Z')).toBeCloseTo(t0 + 123.456, 6);
    expect(parseMicroTime('2026-01-01T12:00:00Z')).toBe(t0);
    expect(parseMicroTime('2026-01-01T13:00:00.5+01:00')).toBe(t0 + 500);
    expect(() => parseMicroTime('yesterday')).toThrow(/invalid MicroTime/);
  });
});
