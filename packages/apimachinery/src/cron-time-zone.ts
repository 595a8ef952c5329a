// Go's time zones and wall clock, as robfig/cron's SpecSchedule.Next uses them,
// computed with the platform's Intl.DateTimeFormat instead of a zoneinfo file:
// time/zoneinfo.go (LoadLocation, Location.lookup), time/zoneinfo_read.go
// (loadLocation, containsDotDot), and time/time.go (Date with its zone guess,
// Time.AddDate, Time.Truncate, and the wall clock read by Time.Date, Time.Clock
// and Time.Weekday).
import { tzdataNames } from './cron-zone-names.js';

/**
 * Go's `time.LoadLocation`, for the names it can load anywhere: `''` and
 * `'UTC'` give `'UTC'`, `'Local'` gives `'Local'` (the zone of the machine;
 * a schedule's `next` reads it as the zone it is given), and an IANA
 * name such as `'Europe/Rome'` or `'US/Eastern'` comes back as it is. Names
 * are case-sensitive, as they are for Go on Linux.
 *
 * Anything else throws an `Error` with Go's message: `time: invalid location
 * name` for a name holding `..` or starting with `/` or `\`, otherwise
 * `unknown time zone <name>`. A name is known when it is a zone or link of the
 * IANA database (tzdata 2025b, or a canonical name the platform's `Intl`
 * lists) and the platform's `Intl.DateTimeFormat` can compute in it.
 *
 * @example
 * ```ts
 * loadLocation('America/New_York'); // 'America/New_York'
 * loadLocation('Europe/Pariss'); // throws: unknown time zone Europe/Pariss
 * ```
 *
 * @category Cron
 */
export function loadLocation(name: string): string {
  if (name === '' || name === 'UTC') return 'UTC';
  if (name === 'Local') return 'Local';
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) {
    throw new Error('time: invalid location name');
  }
  if (!isKnownZone(name)) throw new Error(`unknown time zone ${name}`);
  return name;
}

/**
 * True when {@link loadLocation} accepts `name` as an explicit zone: an IANA
 * name such as `Asia/Tokyo`, or `UTC`. `'Local'` is refused, since a
 * schedule's zone must not depend on the machine; `''` is accepted, as
 * `time.LoadLocation` accepts it (Kubernetes refuses an empty `timeZone`
 * before it asks, as {@link validateCronJobTimeZone} does).
 *
 * @category Cron
 */
export function isValidTimeZone(name: string): boolean {
  if (name === 'Local') return false;
  try {
    loadLocation(name);
    return true;
  } catch {
    return false;
  }
}

let canonicalNames: ReadonlySet<string> | undefined;

function isKnownZone(name: string): boolean {
  canonicalNames ??= new Set(
    typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [],
  );
  if (!tzdataNames().has(name) && !canonicalNames.has(name)) return false;
  try {
    zoneFor(name);
    return true;
  } catch {
    return false;
  }
}

/** A time zone as `SpecSchedule.next` needs it: the UTC offset at any instant. */
export interface Zone {
  /** The zone's name, as {@link loadLocation} returned it. */
  readonly name: string;
  /** Milliseconds east of UTC at the instant `ms` (a whole number of seconds). */
  offsetAt(ms: number): number;
}

const utc: Zone = { name: 'UTC', offsetAt: () => 0 };
const zones = new Map<string, Zone>();

// The localized GMT format of `timeZoneName: 'longOffset'`: `GMT` alone at
// zero, else `GMT-04:00`, with seconds for the local mean times before
// standard time (`GMT-04:56:02`).
const longOffset = /GMT(?:([+\-\u2212])(\d{1,2}):?(\d{2})?(?::?(\d{2}))?)?$/;

// Go's Location.lookup gives the offset at an instant; the platform's Intl
// data gives the same, one formatted string at a time. Sought offsets are
// cached per second, since the search asks for the same instants repeatedly.
function intlZone(name: string): Zone {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  const cache = new Map<number, number>();
  return {
    name,
    offsetAt(ms: number): number {
      const second = Math.floor(ms / 1000) * 1000;
      let offset = cache.get(second);
      if (offset === undefined) {
        const text = format.format(second);
        const m = longOffset.exec(text);
        if (m === null) throw new Error(`cannot read the UTC offset of ${name} from "${text}"`);
        const sign = m[1] === '+' ? 1 : -1;
        offset = m[1] === undefined ? 0 : sign * zoneSeconds(m[2], m[3], m[4]) * 1000;
        if (cache.size >= 4096) cache.clear();
        cache.set(second, offset);
      }
      return offset;
    },
  };
}

function zoneSeconds(h = '0', m = '0', s = '0'): number {
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}

/**
 * The zone named `name` (as {@link loadLocation} returns names; not `Local`),
 * built once and cached. Throws a `RangeError` when the platform does not
 * know it.
 */
export function zoneFor(name: string): Zone {
  if (name === 'UTC') return utc;
  let zone = zones.get(name);
  if (zone === undefined) {
    zone = intlZone(name);
    zones.set(name, zone);
  }
  return zone;
}

/** The wall clock at an instant in a zone: what Go's Date, Clock and Weekday read. */
export interface WallClock {
  readonly year: number;
  /** 1 to 12. */
  readonly month: number;
  /** 1 to 31. */
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** 0 (Sunday) to 6. */
  readonly weekday: number;
}

/** The wall clock at the instant `ms` in `zone` (proleptic Gregorian, as Go's). */
export function wallClock(ms: number, zone: Zone): WallClock {
  const d = new Date(ms + zone.offsetAt(ms));
  if (Number.isNaN(d.getTime())) throw new RangeError(`instant out of range: ${ms}`);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * Go's `time.Date(year, month, day, hour, minute, second, 0, zone)` as epoch
 * milliseconds. Out-of-range fields carry over (month 13 is January of the
 * next year, day 32 the first of the next month). A wall time that a zone
 * transition skips or repeats resolves as Go resolves it: Go first guesses the
 * offset in force at the wall time read as if it were UTC, then takes the
 * offset in force at the instant that guess gives. So in a zone west of UTC a
 * skipped time falls back by the gap and a repeated time takes its first
 * instant (New York's 02:30 on 2012-03-11 is 01:30 EST), while east of UTC a
 * skipped time moves forward and a repeated one takes its second instant
 * (Berlin's 02:30 on 2012-03-25 is 03:30 CEST, on 2012-10-28 02:30 CET).
 */
export function goDate(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  zone: Zone,
): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const wall = d.getTime();
  // Location.lookup of the wall time as if it were an instant; when its zone
  // period does not hold the instant that guess gives, Go looks again there.
  // Either way the offset used is the one in force at that instant.
  const guess = zone.offsetAt(wall);
  if (guess === 0) return wall;
  return wall - zone.offsetAt(wall - guess);
}
