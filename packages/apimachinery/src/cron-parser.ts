// Cron specs, as kube-apiserver validates a CronJob's schedule and the CronJob
// controller reads it: github.com/robfig/cron/v3 parser.go (ParseOption,
// NewParser, Parser.Parse, normalizeFields, ParseStandard, getField, getRange,
// parseIntOrName, mustParseInt, getBits, all, parseDescriptor), with Go's
// strconv.Atoi, strings.Fields and strings.TrimSpace where it leans on them.
import {
  ConstantDelaySchedule,
  SpecSchedule,
  cronBounds,
  cronStarBit,
  type CronBounds,
  type CronSchedule,
} from './cron-schedule.js';
import { loadLocation } from './cron-time-zone.js';
import { parseDuration } from './duration.js';
import { goQuote } from './strconv.js';

/**
 * The fields and features a {@link newCronParser} parser accepts, as bit
 * flags to combine with `|`: Go's `cron.ParseOption`. A field left out takes
 * its default (0 for seconds, minutes and hours, `*` for the rest); the order
 * of the fields never changes. At most one of `SecondOptional` and
 * `DowOptional` may be given.
 *
 * @example
 * ```ts
 * const withSeconds = newCronParser(
 *   CronParseOption.Second | CronParseOption.Minute | CronParseOption.Hour |
 *     CronParseOption.Dom | CronParseOption.Month | CronParseOption.Dow,
 * );
 * withSeconds.parse('30 0 * * * *'); // at 30 s past every hour
 * ```
 *
 * @category Cron
 */
export const CronParseOption = {
  /** The seconds field. */
  Second: 1,
  /** An optional seconds field, first. */
  SecondOptional: 2,
  /** The minutes field. */
  Minute: 4,
  /** The hours field. */
  Hour: 8,
  /** The day-of-month field. */
  Dom: 16,
  /** The month field. */
  Month: 32,
  /** The day-of-week field. */
  Dow: 64,
  /** An optional day-of-week field, last. */
  DowOptional: 128,
  /** Descriptors such as `@daily` and `@every 1h`. */
  Descriptor: 256,
} as const;

/**
 * A parser of cron specs with a fixed set of fields: Go's `cron.Parser`.
 *
 * @category Cron
 */
export interface CronParser {
  /**
   * Parses `spec` into a schedule, or throws an `Error` with robfig/cron's
   * message, such as `expected exactly 5 fields, found 6: [* * * * * *]`.
   * A `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix sets the schedule's zone.
   */
  parse(spec: string): CronSchedule;
}

const places = [
  CronParseOption.Second,
  CronParseOption.Minute,
  CronParseOption.Hour,
  CronParseOption.Dom,
  CronParseOption.Month,
  CronParseOption.Dow,
];
const defaults = ['0', '0', '0', '*', '*', '*'];

/**
 * A parser for the fields and features in `options`, a combination of
 * {@link CronParseOption} flags: Go's `cron.NewParser`. Throws when both
 * optional fields are asked for.
 *
 * @category Cron
 */
export function newCronParser(options: number): CronParser {
  let optionals = 0;
  if (options & CronParseOption.DowOptional) optionals++;
  if (options & CronParseOption.SecondOptional) optionals++;
  if (optionals > 1) throw new Error('multiple optionals may not be configured');
  return { parse: (spec) => parse(spec, options) };
}

const standardParser = newCronParser(
  CronParseOption.Minute |
    CronParseOption.Hour |
    CronParseOption.Dom |
    CronParseOption.Month |
    CronParseOption.Dow |
    CronParseOption.Descriptor,
);

/**
 * Parses a standard five-field cron spec (minute, hour, day of month, month,
 * day of week) or a descriptor, as Kubernetes reads a CronJob's
 * `spec.schedule`: Go's `cron.ParseStandard`.
 *
 * Each field is a comma-separated list of `*` or `?` (every value), a value
 * or a range `a-b`, each of which may take a step `/n` (every n-th value;
 * `a/n` runs from `a` to the field's maximum). Months and weekdays also take
 * their three-letter names in any case (`jan`, `MON`); weekdays run from 0
 * (Sunday) to 6, so 7 is refused. The descriptors are `@yearly` (or `@annually`),
 * `@monthly`, `@weekly`, `@daily` (or `@midnight`), `@hourly`, and
 * `@every <duration>` with a Go duration such as `1h30m`. A prefix
 * `TZ=<zone> ` or `CRON_TZ=<zone> ` sets the zone the fields are read in;
 * kube-apiserver refuses it in a CronJob (see {@link validateCronJobSchedule}),
 * but the controller still honours one left over from before that rule.
 *
 * Errors are `Error`s with robfig/cron's messages, which kube-apiserver
 * returns as the reason a schedule is invalid: `end of range (60) above
 * maximum (59): 60`, `failed to parse int from x: strconv.Atoi: parsing "x":
 * invalid syntax`, `unrecognized descriptor: @often`, and so on.
 *
 * @example
 * ```ts
 * const schedule = parseStandard('0/15 9-17 * * mon-fri');
 * schedule.next(Date.UTC(2024, 0, 5, 17, 50)); // Date.UTC(2024, 0, 8, 9, 0), the Monday
 * parseStandard('@every 1h30m').next(0); // 5_400_000
 * ```
 *
 * @category Cron
 */
export function parseStandard(spec: string): CronSchedule {
  return standardParser.parse(spec);
}

// strings.Fields and strings.TrimSpace split and trim on unicode.IsSpace,
// which differs from JavaScript's \s (U+0085 in, U+FEFF out).
const goSpace =
  '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const goSpaceRun = new RegExp(`[${goSpace}]+`);
const goTrim = new RegExp(`^[${goSpace}]+|[${goSpace}]+$`, 'g');

function goFields(s: string): string[] {
  return s.split(goSpaceRun).filter((f) => f !== '');
}

function parse(input: string, options: number): CronSchedule {
  if (input.length === 0) throw new Error('empty spec string');
  let spec = input;

  let timeZone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    // Go slices spec[eq+1:i] and panics when there is no space at all.
    if (i < 0) throw new Error('runtime error: slice bounds out of range [:-1]');
    const name = spec.slice(spec.indexOf('=') + 1, i);
    try {
      timeZone = loadLocation(name);
    } catch (err) {
      throw new Error(`provided bad location ${name}: ${(err as Error).message}`);
    }
    spec = spec.slice(i).replace(goTrim, '');
  }

  if (spec.startsWith('@')) {
    if ((options & CronParseOption.Descriptor) === 0) {
      throw new Error(`parser does not accept descriptors: ${spec}`);
    }
    return parseDescriptor(spec, timeZone);
  }

  const fields = normalizeFields(goFields(spec), options);
  return new SpecSchedule({
    second: getField(fields[0]!, cronBounds.seconds),
    minute: getField(fields[1]!, cronBounds.minutes),
    hour: getField(fields[2]!, cronBounds.hours),
    dom: getField(fields[3]!, cronBounds.dom),
    month: getField(fields[4]!, cronBounds.months),
    dow: getField(fields[5]!, cronBounds.dow),
    timeZone,
  });
}

// Checks the number of fields against the options and fills in the defaults
// of the fields that are left out, giving all six.
function normalizeFields(fields: string[], opts: number): string[] {
  let options = opts;
  let optionals = 0;
  if (options & CronParseOption.SecondOptional) {
    options |= CronParseOption.Second;
    optionals++;
  }
  if (options & CronParseOption.DowOptional) {
    options |= CronParseOption.Dow;
    optionals++;
  }
  if (optionals > 1) throw new Error('multiple optionals may not be configured');

  const max = places.filter((place) => options & place).length;
  const min = max - optionals;
  const count = fields.length;
  if (count < min || count > max) {
    const found = `found ${count}: [${fields.join(' ')}]`;
    if (min === max) throw new Error(`expected exactly ${min} fields, ${found}`);
    throw new Error(`expected ${min} to ${max} fields, ${found}`);
  }

  let given = fields;
  if (min < max && count === min) {
    if (options & CronParseOption.DowOptional) given = [...given, defaults[5]!];
    else given = [defaults[0]!, ...given];
  }

  let n = 0;
  return places.map((place, i) => (options & place ? given[n++]! : defaults[i]!));
}

// A field is a list of ranges separated by commas; empty items are skipped,
// so `,` alone is a field that matches nothing.
function getField(field: string, bounds: CronBounds): bigint {
  let bits = 0n;
  for (const expr of field.split(',')) {
    if (expr !== '') bits |= getRange(expr, bounds);
  }
  return bits;
}

// One range: `*`, `?`, `n`, `a-b`, each optionally followed by `/step`.
function getRange(expr: string, bounds: CronBounds): bigint {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: bigint;
  let end: bigint;
  let step: bigint;
  let extra = 0n;

  const low = lowAndHigh[0]!;
  if (low === '*' || low === '?') {
    // Anything after a `-` is ignored here, as in Go: `*-5` is `*`.
    start = BigInt(bounds.min);
    end = BigInt(bounds.max);
    extra = cronStarBit;
  } else {
    start = parseIntOrName(low, bounds.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, bounds.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }

  if (rangeAndStep.length === 1) {
    step = 1n;
  } else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // `n/step` means from n to the maximum.
    if (singleDigit) end = BigInt(bounds.max);
    if (step > 1n) extra = 0n;
  } else {
    throw new Error(`too many slashes: ${expr}`);
  }

  if (start < bounds.min) {
    throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  }
  if (end > bounds.max) {
    throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  }
  if (start > end) {
    throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  }
  if (step === 0n) throw new Error(`step of range should be a positive number: ${expr}`);

  let bits = 0n;
  for (let i = start; i <= end; i += step) bits |= 1n << i;
  return bits | extra;
}

// Go's strings.ToLower maps U+0130 (İ) to a plain i, where JavaScript gives
// i and a combining dot; nothing else differs on the way to an ASCII name.
function goToLower(s: string): string {
  return s.replaceAll('\u0130', 'i').toLowerCase();
}

function parseIntOrName(expr: string, names: CronBounds['names']): bigint {
  const key = goToLower(expr);
  if (names !== undefined && Object.hasOwn(names, key)) return BigInt(names[key]!);
  return mustParseInt(expr);
}

const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);

function mustParseInt(expr: string): bigint {
  let num: bigint;
  try {
    num = atoi(expr);
  } catch (err) {
    throw new Error(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (num < 0n) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

// Go's strconv.Atoi on a 64-bit machine: an optional sign and decimal digits.
function atoi(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) {
    throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  }
  const n = BigInt(s);
  if (n > maxInt64 || n < minInt64) {
    throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  }
  return n;
}

function all(bounds: CronBounds): bigint {
  let bits = 0n;
  for (let i = bounds.min; i <= bounds.max; i++) bits |= 1n << BigInt(i);
  return bits | cronStarBit;
}

function first(bounds: CronBounds): bigint {
  return 1n << BigInt(bounds.min);
}

function parseDescriptor(descriptor: string, timeZone: string | undefined): CronSchedule {
  const { seconds, minutes, hours, dom, months, dow } = cronBounds;
  const at = (fields: { hour?: bigint; dom?: bigint; month?: bigint; dow?: bigint }) =>
    new SpecSchedule({
      second: first(seconds),
      minute: first(minutes),
      hour: fields.hour ?? first(hours),
      dom: fields.dom ?? all(dom),
      month: fields.month ?? all(months),
      dow: fields.dow ?? all(dow),
      timeZone,
    });

  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return at({ dom: first(dom), month: first(months) });
    case '@monthly':
      return at({ dom: first(dom) });
    case '@weekly':
      return at({ dow: first(dow) });
    case '@daily':
    case '@midnight':
      return at({});
    case '@hourly':
      return at({ hour: all(hours) });
  }

  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const text = descriptor.slice(every.length);
    let duration: number;
    try {
      duration = parseDuration(text);
    } catch (err) {
      throw new Error(`failed to parse duration ${descriptor}: ${(err as Error).message}`);
    }
    return ConstantDelaySchedule.every(duration);
  }

  throw new Error(`unrecognized descriptor: ${descriptor}`);
}
