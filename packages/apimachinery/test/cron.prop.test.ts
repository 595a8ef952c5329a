// Property tests for the cron parser and SpecSchedule.next: for random
// five-field specs built from parts, the parsed bits are the values the parts
// stand for; and for random instants and zones, next(t) comes after t, matches
// the spec on the wall clock of its zone (read here with Intl directly), and
// no whole minute between t and next(t) (within a day and a half) matches.
// The zones change their clocks on the hour and not at midnight; where they do
// otherwise robfig/cron's search has quirks of its own, which cron.test.ts
// pins against Go instead.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStandard } from '../src/index.js';
import { SpecSchedule, cronStarBit } from '../src/cron-schedule.js';

interface FieldSpec {
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const ZONES = [
  'UTC',
  'America/New_York',
  'America/Los_Angeles',
  'Europe/Berlin',
  'Europe/London',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Tokyo',
];

// One item of a field's list: its text, the values it stands for, and
// whether it sets the star bit.
interface Item {
  readonly text: string;
  readonly values: readonly number[];
  readonly star: boolean;
}

function stepped(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
}

function itemArb(f: FieldSpec): fc.Arbitrary<Item> {
  const value = fc.integer({ min: f.min, max: f.max });
  const name = (v: number, upper: boolean): string => {
    const n = f.names?.[v - f.min];
    return n === undefined ? String(v) : upper ? n.toUpperCase() : n;
  };
  const written = (v: number) =>
    f.names === undefined
      ? fc.constant(String(v))
      : fc.oneof(
          fc.constant(String(v)),
          fc.boolean().map((u) => name(v, u)),
        );
  const range = fc
    .tuple(value, value)
    .map(([a, b]) => (a <= b ? ([a, b] as const) : ([b, a] as const)));
  const step = fc.integer({ min: 1, max: 12 });
  return fc.oneof(
    fc
      .constantFrom('*', '?')
      .map((text) => ({ text, values: stepped(f.min, f.max, 1), star: true })),
    value.chain((v) => written(v).map((text) => ({ text, values: [v], star: false }))),
    range.map(([a, b]) => ({ text: `${a}-${b}`, values: stepped(a, b, 1), star: false })),
    fc.tuple(range, step).map(([[a, b], s]) => ({
      text: `${a}-${b}/${s}`,
      values: stepped(a, b, s),
      star: false,
    })),
    step.map((s) => ({ text: `*/${s}`, values: stepped(f.min, f.max, s), star: s === 1 })),
    fc.tuple(value, step).map(([a, s]) => ({
      text: `${a}/${s}`,
      values: stepped(a, f.max, s),
      star: false,
    })),
  );
}

interface Field {
  readonly text: string;
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

function fieldArb(f: FieldSpec, starWeight: number): fc.Arbitrary<Field> {
  const list = fc.array(itemArb(f), { minLength: 1, maxLength: 3 }).map((items) => ({
    text: items.map((i) => i.text).join(','),
    values: new Set(items.flatMap((i) => i.values)),
    star: items.some((i) => i.star),
  }));
  const star: Field = { text: '*', values: new Set(stepped(f.min, f.max, 1)), star: true };
  return fc.oneof(
    { arbitrary: fc.constant(star), weight: starWeight },
    { arbitrary: list, weight: 4 },
  );
}

const specArb = fc.tuple(
  fieldArb(FIELDS[0]!, 1),
  fieldArb(FIELDS[1]!, 2),
  fieldArb(FIELDS[2]!, 6),
  fieldArb(FIELDS[3]!, 8),
  fieldArb(FIELDS[4]!, 6),
);

type Spec = [Field, Field, Field, Field, Field];

const bitsOf = (values: ReadonlySet<number>, star: boolean): bigint =>
  [...values].reduce((acc, v) => acc | (1n << BigInt(v)), star ? cronStarBit : 0n);

// The wall clock of an instant in a zone, straight from Intl.
const formats = new Map<string, Intl.DateTimeFormat>();
function wall(ms: number, zone: string) {
  let f = formats.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(zone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
  const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  return {
    minute: Number(parts.minute),
    hour: Number(parts.hour),
    day: Number(parts.day),
    month: Number(parts.month),
    weekday: weekdays.indexOf(parts.weekday!),
    second: Number(parts.second),
  };
}

function matches(spec: Spec, ms: number, zone: string): boolean {
  const w = wall(ms, zone);
  const [minute, hour, dom, month, dow] = spec;
  const domMatch = dom.values.has(w.day);
  const dowMatch = dow.values.has(w.weekday);
  const day = dom.star || dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  return (
    w.second === 0 &&
    minute.values.has(w.minute) &&
    hour.values.has(w.hour) &&
    month.values.has(w.month) &&
    day
  );
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WINDOW = 36 * HOUR;

// The instants where the zones' offsets change in a few years, found with Intl
// to the minute, so that the search is tried across them often.
function transitions(): number[] {
  const out: number[] = [];
  for (const zone of ZONES) {
    const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    const offset = (ms: number) => f.format(ms).split(' ').pop();
    for (const year of [2012, 2019, 2024, 2031]) {
      for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 1, 0, 1); ms += 6 * HOUR) {
        if (offset(ms) === offset(ms + 6 * HOUR)) continue;
        let lo = ms;
        let hi = ms + 6 * HOUR;
        while (hi - lo > MINUTE) {
          const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
          if (offset(mid) === offset(lo)) lo = mid;
          else hi = mid;
        }
        out.push(hi);
      }
    }
  }
  return out;
}

const instantArb = fc.oneof(
  fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2035, 0, 1) }),
  fc
    .tuple(fc.constantFrom(...transitions()), fc.integer({ min: -72 * 60, max: 72 * 60 }))
    .map(([at, minutes]) => at + minutes * MINUTE),
);

describe('cron schedules (properties)', () => {
  it('parses a spec built from parts into the bits the parts stand for', () => {
    fc.assert(
      fc.property(specArb, (spec: Spec) => {
        const s = parseStandard(spec.map((f) => f.text).join(' '));
        expect(s).toBeInstanceOf(SpecSchedule);
        const { minute, hour, dom, month, dow, second } = s as SpecSchedule;
        expect([minute, hour, dom, month, dow]).toEqual(spec.map((f) => bitsOf(f.values, f.star)));
        expect(second).toBe(1n);
      }),
      { numRuns: 300 },
    );
  });

  it('finds the first activation after an instant, in the zone given or named', () => {
    fc.assert(
      fc.property(
        specArb,
        instantArb,
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(...ZONES),
        fc.boolean(),
        (spec: Spec, t0: number, fraction: number, zone: string, prefix: boolean) => {
          const t = t0 + fraction;
          const text = spec.map((f) => f.text).join(' ');
          const schedule = parseStandard(prefix ? `CRON_TZ=${zone} ${text}` : text);
          const next = prefix ? schedule.next(t, 'Asia/Tokyo') : schedule.next(t, zone);
          if (next !== undefined) {
            expect(next).toBeGreaterThan(t);
            expect(next % MINUTE).toBe(0);
            expect(matches(spec, next, zone)).toBe(true);
          }
          const end = Math.min(next ?? Infinity, t + WINDOW);
          for (let m = Math.floor(t / MINUTE) * MINUTE + MINUTE; m < end; m += MINUTE) {
            if (matches(spec, m, zone)) {
              expect.fail(`${text} matches ${new Date(m).toISOString()} in ${zone}`);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never does anything but return a schedule or throw an Error', () => {
    const cronish = fc.string({
      unit: fc.constantFrom(...'0123456789*?/-, @TZ=_abcdefghijklmnopqrstuvwxyzJMS\t'.split('')),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.oneof(cronish, fc.string({ maxLength: 20 })), (text) => {
        let schedule;
        try {
          schedule = parseStandard(text);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          return;
        }
        const next = schedule.next(Date.UTC(2024, 0, 1));
        if (next !== undefined) expect(next).toBeGreaterThan(Date.UTC(2024, 0, 1));
      }),
      { numRuns: 500 },
    );
  });
});
