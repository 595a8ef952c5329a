// Cron schedules and their next activation: github.com/robfig/cron/v3 spec.go
// (SpecSchedule, bounds, the field bounds, starBit, SpecSchedule.Next,
// dayMatches) and constantdelay.go (ConstantDelaySchedule, Every,
// ConstantDelaySchedule.Next), with Go's time package in cron-time-zone.ts.
import {
  goDate,
  loadLocation,
  wallClock,
  zoneFor,
  type WallClock,
  type Zone,
} from './cron-time-zone.js';

/**
 * What both kinds of schedule do: give the next activation after an instant.
 * Go's `cron.Schedule`. {@link parseStandard} returns one of the two kinds,
 * told apart by `kind`.
 *
 * @category Cron
 */
export interface CronSchedule {
  /** `'spec'` for fields (Go's `SpecSchedule`), `'constantDelay'` for `@every` (Go's `ConstantDelaySchedule`). */
  readonly kind: 'spec' | 'constantDelay';
  /**
   * The next activation strictly after `after`, in epoch milliseconds, or
   * `undefined` when there is none within five years (Go returns the zero
   * time). `timeZone` (default `UTC`) is the zone of `after` in Go's
   * terms: a schedule's fields are read in its own `TZ=` zone when it has
   * one, else in this one. Throws when a zone is needed and is not one
   * `isValidTimeZone` accepts.
   */
  next(after: number, timeZone?: string): number | undefined;
}

/**
 * The range of one field, and the names it accepts (lowercase). Go's
 * `cron.bounds`.
 *
 * @category Cron
 */
export interface CronBounds {
  /** The lowest value. */
  readonly min: number;
  /** The highest value. */
  readonly max: number;
  /** Names for values, such as `jan` for 1; matched case-insensitively. */
  readonly names?: Readonly<Record<string, number>>;
}

/**
 * The bounds of the six fields, as robfig/cron defines them: seconds and
 * minutes 0-59, hours 0-23, days of the month 1-31, months 1-12 (`jan` to
 * `dec`), days of the week 0-6 (`sun` to `sat`; 7 is not Sunday here).
 *
 * @category Cron
 */
export const cronBounds: {
  /** Seconds, 0-59. */
  readonly seconds: CronBounds;
  /** Minutes, 0-59. */
  readonly minutes: CronBounds;
  /** Hours, 0-23. */
  readonly hours: CronBounds;
  /** Days of the month, 1-31. */
  readonly dom: CronBounds;
  /** Months, 1-12, or `jan` to `dec`. */
  readonly months: CronBounds;
  /** Days of the week, 0-6, or `sun` to `sat`. */
  readonly dow: CronBounds;
} = {
  seconds: { min: 0, max: 59 },
  minutes: { min: 0, max: 59 },
  hours: { min: 0, max: 23 },
  dom: { min: 1, max: 31 },
  months: {
    min: 1,
    max: 12,
    names: {
      jan: 1,
      feb: 2,
      mar: 3,
      apr: 4,
      may: 5,
      jun: 6,
      jul: 7,
      aug: 8,
      sep: 9,
      oct: 10,
      nov: 11,
      dec: 12,
    },
  },
  dow: {
    min: 0,
    max: 6,
    names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 },
  },
};

/**
 * The top bit of a field's bit set, set when the field was written as `*` or
 * `?` (with no step above 1). It changes how the two day fields combine; see
 * {@link SpecSchedule}.
 *
 * @category Cron
 */
export const cronStarBit = 1n << 63n;

/**
 * The fields of a {@link SpecSchedule}: one bit set per field, bit `n` set
 * when value `n` matches, plus {@link cronStarBit} for a `*`.
 *
 * @category Cron
 */
export interface SpecScheduleFields {
  /** Seconds 0-59; the five-field standard spec sets only second 0. */
  readonly second: bigint;
  /** Minutes 0-59. */
  readonly minute: bigint;
  /** Hours 0-23. */
  readonly hour: bigint;
  /** Days of the month 1-31. */
  readonly dom: bigint;
  /** Months 1-12. */
  readonly month: bigint;
  /** Days of the week 0-6, Sunday 0. */
  readonly dow: bigint;
  /**
   * The zone the fields are read in, from a `TZ=` or `CRON_TZ=` prefix;
   * `undefined` when the spec named none (or named `Local`), and then the
   * zone given to {@link SpecSchedule.next} is used.
   */
  readonly timeZone?: string | undefined;
}

// More month and day steps than a five-year search can take, even day by day;
// past it the search is going round in circles and gives up.
const maxSteps = 100_000;

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function bitTable(bits: bigint): Uint8Array {
  const table = new Uint8Array(64);
  for (let i = 0; i < 64; i++) table[i] = Number((bits >> BigInt(i)) & 1n);
  return table;
}

/**
 * A crontab schedule: which seconds, minutes, hours, days and months
 * activate it, as bit sets. Go's `cron.SpecSchedule`; build one with
 * {@link parseStandard} or a {@link newCronParser} parser.
 *
 * A day matches when its day of the month and its day of the week both
 * match if either field was written as `*` or `?`, and when either matches
 * otherwise (so `0 0 1,15 * 1` runs on the 1st, the 15th and every Monday,
 * but `0 0 * * 1` only on Mondays).
 *
 * @category Cron
 */
export class SpecSchedule implements CronSchedule, SpecScheduleFields {
  /** Always `'spec'`. */
  readonly kind = 'spec' as const;
  /** {@inheritDoc SpecScheduleFields.second} */
  readonly second: bigint;
  /** {@inheritDoc SpecScheduleFields.minute} */
  readonly minute: bigint;
  /** {@inheritDoc SpecScheduleFields.hour} */
  readonly hour: bigint;
  /** {@inheritDoc SpecScheduleFields.dom} */
  readonly dom: bigint;
  /** {@inheritDoc SpecScheduleFields.month} */
  readonly month: bigint;
  /** {@inheritDoc SpecScheduleFields.dow} */
  readonly dow: bigint;
  /** {@inheritDoc SpecScheduleFields.timeZone} */
  readonly timeZone: string | undefined;

  readonly #second: Uint8Array;
  readonly #minute: Uint8Array;
  readonly #hour: Uint8Array;
  readonly #dom: Uint8Array;
  readonly #month: Uint8Array;
  readonly #dow: Uint8Array;
  readonly #star: boolean;
  readonly #never: boolean;

  /**
   * @param fields - the bit sets, taken as they are; `timeZone` must be a
   *   name {@link loadLocation} accepts (`Local` is read as `undefined`)
   */
  constructor(fields: SpecScheduleFields) {
    this.second = fields.second;
    this.minute = fields.minute;
    this.hour = fields.hour;
    this.dom = fields.dom;
    this.month = fields.month;
    this.dow = fields.dow;
    const zone = fields.timeZone === undefined ? 'Local' : loadLocation(fields.timeZone);
    this.timeZone = zone === 'Local' ? undefined : zone;
    this.#second = bitTable(fields.second);
    this.#minute = bitTable(fields.minute);
    this.#hour = bitTable(fields.hour);
    this.#dom = bitTable(fields.dom);
    this.#month = bitTable(fields.month);
    this.#dow = bitTable(fields.dow);
    this.#star = ((fields.dom | fields.dow) & cronStarBit) !== 0n;
    // A field with no value at all (`,` parses to one) never matches, so Go
    // searches its five years and gives up; answer that at once.
    const values = ~cronStarBit;
    this.#never = [fields.second, fields.minute, fields.hour, fields.month].some(
      (bits) => (bits & values) === 0n,
    );
  }

  /**
   * The next activation strictly after the instant `after` (epoch
   * milliseconds; a fraction of a second is dropped first, so the answer is
   * always a whole second), or `undefined` when none comes within five years
   * of it, as for `0 0 30 2 *`. Go's `SpecSchedule.Next`, step for step.
   *
   * The fields are read in the schedule's own {@link SpecSchedule.timeZone}
   * when the spec named one, else in `timeZone` (default `'UTC'`), the zone
   * Go would take from the time passed in. Across a daylight-saving change it
   * behaves as robfig/cron does: a time the clocks skip is skipped (a job at
   * 02:30 does not run on the day New York springs forward), a time they
   * repeat runs twice when an hourly field covers it (01:00 EDT, then 01:00
   * EST), and on days when midnight does not exist the day starts at the
   * first hour that does. Where Go would search for ever (a day the zone
   * skips whole, as Samoa skipped 2011-12-30, seen from the days before
   * it), this gives up and returns `undefined`.
   *
   * @example
   * ```ts
   * const daily = parseStandard('CRON_TZ=Europe/Rome 30 6 * * *');
   * new Date(daily.next(Date.UTC(2024, 0, 1))!).toISOString(); // '2024-01-01T05:30:00.000Z'
   * ```
   *
   * @throws `Error` when `timeZone` is needed and is not a zone {@link isValidTimeZone} accepts.
   */
  next(after: number, timeZone = 'UTC'): number | undefined {
    const zone = this.#zone(timeZone);
    if (this.#never) return undefined;

    let t = Math.floor(after / SECOND) * SECOND + SECOND;
    let w = wallClock(t, zone);
    const at = (ms: number): void => {
      t = ms;
      w = wallClock(ms, zone);
    };
    let added = false;
    let steps = 0;
    const yearLimit = w.year + 5;

    wrap: for (;;) {
      if (w.year > yearLimit) return undefined;

      while (this.#month[w.month] === 0) {
        if (!added) {
          added = true;
          at(goDate(w.year, w.month, 1, 0, 0, 0, zone));
        }
        const before = t;
        at(goDate(w.year, w.month + 1, w.day, w.hour, w.minute, w.second, zone));
        if (t === before || ++steps > maxSteps) return undefined;
        if (w.month === 1) continue wrap;
      }

      while (!this.#dayMatches(w)) {
        if (!added) {
          added = true;
          at(goDate(w.year, w.month, w.day, 0, 0, 0, zone));
        }
        const before = t;
        at(goDate(w.year, w.month, w.day + 1, w.hour, w.minute, w.second, zone));
        // Where midnight does not exist the new day starts at 01:00, or the
        // search lands on 23:00 the day before: move to the day's first hour.
        if (w.hour !== 0) at(t + (w.hour > 12 ? 24 - w.hour : -w.hour) * HOUR);
        // A day the zone skips whole (Samoa's 2011-12-30) resolves to the day
        // before, and Go goes round that loop for ever; give up instead.
        if (t === before || ++steps > maxSteps) return undefined;
        if (w.day === 1) continue wrap;
      }

      while (this.#hour[w.hour] === 0) {
        if (!added) {
          added = true;
          at(goDate(w.year, w.month, w.day, w.hour, 0, 0, zone));
        }
        at(t + HOUR);
        if (w.hour === 0) continue wrap;
      }

      while (this.#minute[w.minute] === 0) {
        if (!added) {
          added = true;
          at(Math.floor(t / MINUTE) * MINUTE);
        }
        at(t + MINUTE);
        if (w.minute === 0) continue wrap;
      }

      while (this.#second[w.second] === 0) {
        if (!added) {
          added = true;
          at(Math.floor(t / SECOND) * SECOND);
        }
        at(t + SECOND);
        if (w.second === 0) continue wrap;
      }

      return t;
    }
  }

  #zone(timeZone: string): Zone {
    if (this.timeZone !== undefined) return zoneFor(this.timeZone);
    const name = loadLocation(timeZone);
    if (name === 'Local') {
      throw new Error('time zone Local depends on the machine: name the zone, such as UTC');
    }
    return zoneFor(name);
  }

  #dayMatches(w: WallClock): boolean {
    const domMatch = this.#dom[w.day] === 1;
    const dowMatch = this.#dow[w.weekday] === 1;
    return this.#star ? domMatch && dowMatch : domMatch || dowMatch;
  }
}

/**
 * A schedule that runs at a fixed interval, from `@every <duration>`: Go's
 * `cron.ConstantDelaySchedule`. The zone plays no part.
 *
 * @category Cron
 */
export class ConstantDelaySchedule implements CronSchedule {
  /** Always `'constantDelay'`. */
  readonly kind = 'constantDelay' as const;

  /** @param delay - the interval in milliseconds, used as it is */
  constructor(
    /** The interval in milliseconds. */
    readonly delay: number,
  ) {}

  /**
   * A schedule every `duration` milliseconds, rounded down to whole seconds,
   * and at least one second: Go's `cron.Every`.
   *
   * @example
   * ```ts
   * ConstantDelaySchedule.every(90_500).delay; // 90_000
   * ConstantDelaySchedule.every(15).delay; // 1_000
   * ```
   */
  static every(duration: number): ConstantDelaySchedule {
    return new ConstantDelaySchedule(Math.floor(Math.max(duration, SECOND) / SECOND) * SECOND);
  }

  /**
   * `after` with its fraction of a second dropped, plus the delay, so
   * activations fall on whole seconds.
   */
  next(after: number): number {
    return Math.floor(after / SECOND) * SECOND + this.delay;
  }
}
