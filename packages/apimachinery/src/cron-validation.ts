// How kube-apiserver validates a CronJob's schedule and time zone: kubernetes
// pkg/apis/batch/validation/validation.go (validateScheduleFormat,
// validTimeZoneCharacters, validateTimeZone, and the TZ rule of
// validateCronJobSpec).
import { parseStandard } from './cron-parser.js';
import { loadLocation } from './cron-time-zone.js';
import { fieldInvalid, type FieldError } from './field-errors.js';

/**
 * True when a schedule carries a time zone of its own, by Kubernetes' test:
 * it contains `TZ` anywhere (so `CRON_TZ=UTC 0 * * * *` and `TZ=UTC 0 * * * *`
 * do). kube-apiserver refuses such a schedule on create, and on an update
 * unless the old schedule had one too; the CronJob controller still runs one,
 * with an `UnsupportedSchedule` warning event, and otherwise prefixes
 * `TZ=<spec.timeZone> ` itself.
 *
 * @category Cron
 */
export function scheduleUsesTimeZone(schedule: string): boolean {
  return schedule.includes('TZ');
}

/**
 * Options of {@link validateCronJobSchedule}.
 *
 * @category Cron
 */
export interface CronJobScheduleValidationOptions {
  /**
   * Whether a `TZ`/`CRON_TZ` prefix is tolerated: true on an update whose old
   * schedule already had one ({@link scheduleUsesTimeZone} of the old
   * schedule). Default false, as on create.
   */
  readonly allowTZInSchedule?: boolean;
  /** The CronJob's `spec.timeZone`, when it is set. */
  readonly timeZone?: string | undefined;
}

/**
 * The problems kube-apiserver finds in a non-empty CronJob `spec.schedule`:
 * Go's `validateScheduleFormat`. The parse error of {@link parseStandard}
 * comes first, as an Invalid error at `fieldPath`; then, if the schedule uses
 * `TZ` (see {@link scheduleUsesTimeZone}), `cannot use TZ or CRON_TZ in
 * schedule, use timeZone field instead` (or, when the old schedule had it and
 * a `timeZone` is set too, `cannot use both timeZone field and TZ or CRON_TZ
 * in schedule`). An empty list means the schedule is valid.
 *
 * @example
 * ```ts
 * validateCronJobSchedule('61 * * * *', 'spec.schedule');
 * // [{ type: 'FieldValueInvalid', field: 'spec.schedule', value: '61 * * * *',
 * //    detail: 'end of range (61) above maximum (59): 61' }]
 * ```
 *
 * @category Cron
 */
export function validateCronJobSchedule(
  schedule: string,
  fieldPath: string,
  options: CronJobScheduleValidationOptions = {},
): FieldError[] {
  const errors: FieldError[] = [];
  try {
    parseStandard(schedule);
  } catch (err) {
    errors.push(fieldInvalid(fieldPath, schedule, (err as Error).message));
  }
  const usesTZ = scheduleUsesTimeZone(schedule);
  if (options.allowTZInSchedule && usesTZ && options.timeZone !== undefined) {
    errors.push(
      fieldInvalid(
        fieldPath,
        schedule,
        'cannot use both timeZone field and TZ or CRON_TZ in schedule',
      ),
    );
  } else if (!options.allowTZInSchedule && usesTZ) {
    errors.push(
      fieldInvalid(
        fieldPath,
        schedule,
        'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      ),
    );
  }
  return errors;
}

// One part of a zone name between slashes, per the IANA naming rules with
// digits and `+` tolerated for the legacy names.
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

/**
 * The problems kube-apiserver finds in a CronJob's `spec.timeZone`: Go's
 * `validateTimeZone`. `undefined` (not set) is valid; `''` is refused
 * (`timeZone must be nil or non-empty string`), as is a name with a part
 * that is `.`, `..`, starts with `-`, is empty or longer than 14 characters,
 * or holds anything but ASCII letters, digits and `.-_+` (`unknown time zone
 * <name>`); `Local` in any case is refused as not explicit; and any other
 * name must load (see {@link loadLocation}), else its error is the detail.
 *
 * @example
 * ```ts
 * validateCronJobTimeZone('Europe/Rome', 'spec.timeZone'); // []
 * validateCronJobTimeZone('Europe/Pariss', 'spec.timeZone')[0]?.detail; // 'unknown time zone Europe/Pariss'
 * ```
 *
 * @category Cron
 */
export function validateCronJobTimeZone(
  timeZone: string | undefined,
  fieldPath: string,
): FieldError[] {
  if (timeZone === undefined) return [];
  if (timeZone === '') {
    return [fieldInvalid(fieldPath, timeZone, 'timeZone must be nil or non-empty string')];
  }
  for (const part of timeZone.split('/')) {
    if (
      part === '.' ||
      part === '..' ||
      part.startsWith('-') ||
      !validTimeZoneCharacters.test(part)
    ) {
      return [fieldInvalid(fieldPath, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errors: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') {
    errors.push(
      fieldInvalid(
        fieldPath,
        timeZone,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  }
  try {
    loadLocation(timeZone);
  } catch (err) {
    errors.push(fieldInvalid(fieldPath, timeZone, (err as Error).message));
  }
  return errors;
}
