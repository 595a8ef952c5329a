// The CronJob controller's time and Job helpers: pkg/controller/cronjob/utils.go
// (missedSchedulesType, inActiveList, inActiveListByName,
// deleteFromActiveList, mostRecentScheduleTime, nextScheduleTimeDuration,
// nextScheduleTime, copyLabels, copyAnnotations, getJobFromTemplate2,
// getTimeHashInMinutes, byJobStartTime), and from cronjob_controllerv2.go
// the helpers that name Jobs and read schedules (getJobName, formatSchedule,
// getRef, and the nextScheduleDelta padding).
//
// Times are milliseconds since the epoch. A schedule without a zone of its own
// is read in UTC, the zone of kube-controller-manager's container (Go reads
// it in the process's Local zone).
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import {
  formatTime,
  getReference,
  loadLocation,
  newControllerRef,
  noopEventRecorder,
  noopLogger,
  type CronSchedule,
  type EventRecorder,
  type GroupVersionKind,
  type Logger,
} from '@kcm-ts/apimachinery';

/**
 * batch/v1 CronJob: the kind the controller writes into the owner references
 * of the Jobs it creates. Go's `controllerKind`.
 *
 * @category CronJob controller
 */
export const cronJobKind: GroupVersionKind = Object.freeze({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
});

/**
 * The padding added to every requeue for the next scheduled time (100 ms), so
 * that a clock a little ahead of the controller's still finds the time passed.
 * Go's `nextScheduleDelta`.
 *
 * @category CronJob controller
 */
export const nextScheduleDelta = 100;

/**
 * The annotation on each Job the controller creates that holds the time it
 * was scheduled for, in RFC 3339 in the CronJob's `spec.timeZone` (UTC when
 * unset), such as `2026-01-01T05:30:00+05:30`. batch/v1's
 * `CronJobScheduledTimestampAnnotation`.
 *
 * @category CronJob controller
 */
export const cronJobScheduledTimestampAnnotation =
  'batch.kubernetes.io/cronjob-scheduled-timestamp';

/**
 * How many schedules {@link mostRecentScheduleTime} found missed: `none`,
 * `few` (1 to 100) or `many` (over 100, which the controller reports with a
 * `TooManyMissedTimes` warning). Go's `missedSchedulesType`, spelled as its
 * `String()` spells it.
 *
 * @category Schedules
 */
export type MissedSchedules = 'none' | 'few' | 'many';

/**
 * What {@link mostRecentScheduleTime} found.
 *
 * @category Schedules
 */
export interface MostRecentSchedule {
  /**
   * Where the search started: `status.lastScheduleTime`, else the CronJob's
   * creation time, moved up to `now - startingDeadlineSeconds` when asked.
   */
  earliestTime: number;
  /** The latest scheduled time after `earliestTime` and not after `now`; `undefined` when none. */
  mostRecentTime: number | undefined;
  /** How many scheduled times were missed since `earliestTime`, roughly. */
  missedSchedules: MissedSchedules;
}

// Go's zero time, 0001-01-01T00:00:00Z: what a missing timestamp reads as.
const goZeroTime = -62_135_596_800_000;
const SECOND = 1000;

/** The instant of a wire-format time (RFC 3339), or Go's zero time when unset. */
export function metaTime(value: string | undefined | null): number {
  if (value === undefined || value === null || value === '') return goZeroTime;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? goZeroTime : ms;
}

/** True when the CronJob's `status.active` holds a Job with this uid. Go's `inActiveList`. */
export function inActiveList(cj: CronJob, uid: string | undefined): boolean {
  return (cj.status?.active ?? []).some((ref) => ref.uid === uid);
}

/**
 * True when the CronJob's `status.active` holds a Job with this name and
 * namespace. Go's `inActiveListByName`.
 */
export function inActiveListByName(cj: CronJob, job: Job): boolean {
  return (cj.status?.active ?? []).some(
    (ref) => ref.name === job.metadata?.name && ref.namespace === job.metadata?.namespace,
  );
}

/**
 * Removes the Job with this uid from the CronJob's `status.active`, in place.
 * An empty list is left out, as Go's `omitempty` writes it. Go's
 * `deleteFromActiveList`.
 */
export function deleteFromActiveList(cj: CronJob | undefined, uid: string | undefined): void {
  if (cj === undefined) return;
  const status = (cj.status ??= {});
  const active = (status.active ?? []).filter((ref) => ref.uid !== uid);
  if (active.length === 0) delete status.active;
  else status.active = active;
}

//#region most-recent-schedule-time
/**
 * The latest time the CronJob should have started a Job, as the controller
 * decides it: starting from `status.lastScheduleTime` (or the creation time
 * of a CronJob that never ran; with `includeStartingDeadlineSeconds`, no
 * earlier than `now - startingDeadlineSeconds`), the schedule's times up to
 * `now`. Rather than walk every missed time, it estimates their number from
 * the gap between the first two and jumps close to `now`, so a controller that
 * was down for a year does not walk a year of minutes; over 100 missed times
 * count as `many`. Go's `mostRecentScheduleTime`.
 *
 * @example
 * ```ts
 * const schedule = parseStandard('0 * * * *');
 * mostRecentScheduleTime(cronJob, Date.parse('2026-01-01T05:01:00Z'), schedule, false);
 * // created at 00:00: { earliestTime: <00:00>, mostRecentTime: <05:00>, missedSchedules: 'few' }
 * ```
 *
 * @throws `Error` when the schedule has no two times a second or more apart,
 *   such as `59 23 31 2 *` (February has no 31st)
 *
 * @category Schedules
 */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
  includeStartingDeadlineSeconds: boolean,
): MostRecentSchedule {
  let earliestTime = metaTime(cj.metadata?.creationTimestamp);
  let missedSchedules: MissedSchedules = 'none';
  if (cj.status?.lastScheduleTime) earliestTime = metaTime(cj.status.lastScheduleTime);
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadlineSeconds && deadline !== undefined && deadline !== null) {
    // Nothing older than the deadline can still start.
    const schedulingDeadline = now - deadline * SECOND;
    if (schedulingDeadline > earliestTime) earliestTime = schedulingDeadline;
  }

  const t1 = schedule.next(earliestTime);
  // A schedule that never comes again reads as Go's zero time: the gap
  // between the two is then zero or negative, which is refused below.
  if (t1 !== undefined && now < t1) {
    return { earliestTime, mostRecentTime: undefined, missedSchedules };
  }
  const t2 = t1 === undefined ? undefined : schedule.next(t1);
  if (t1 !== undefined && t2 !== undefined && now < t2) {
    return { earliestTime, mostRecentTime: t1, missedSchedules };
  }
  const between = t1 === undefined || t2 === undefined ? 0 : Math.round((t2 - t1) / SECOND);
  if (t1 === undefined || t2 === undefined || between < 1) {
    throw new Error('time difference between two schedules is less than 1 second');
  }
  // A rough count: how many gaps of the first one fit between t1 and now.
  const elapsed = Math.trunc((now - t1) / SECOND);
  const missed = Math.floor(elapsed / between) + 1;

  // Start one gap before the estimate and let the schedule find the exact
  // times: schedules with uneven gaps (30 6-16/4 * * 1-5) and @every ones
  // both land right.
  const potentialEarliest = t1 + (missed - 2) * between * SECOND;
  let mostRecentTime: number | undefined;
  for (let t = schedule.next(potentialEarliest); t !== undefined && t <= now;) {
    mostRecentTime = t;
    t = schedule.next(t);
  }

  // Over 100 missed times is more than an hourly schedule misses over a long
  // weekend: a sign of clock skew or a bug, reported as such.
  if (missed > 100) missedSchedules = 'many';
  else if (missed > 0) missedSchedules = 'few';
  return { earliestTime, mostRecentTime, missedSchedules };
}
//#endregion most-recent-schedule-time

/**
 * How long to wait before looking at the CronJob again: until the schedule's
 * next time after the most recent one (or after `now` when times were missed,
 * or the schedule is broken), plus {@link nextScheduleDelta}. `undefined` when
 * the schedule has no next time. Go's `nextScheduleTimeDuration`.
 *
 * @category Schedules
 */
export function nextScheduleTimeDuration(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
): number | undefined {
  let mostRecent: number;
  try {
    const found = mostRecentScheduleTime(cj, now, schedule, false);
    if (found.mostRecentTime !== undefined) mostRecent = found.mostRecentTime;
    else mostRecent = found.missedSchedules === 'none' ? found.earliestTime : now;
  } catch {
    // The schedule is broken, but the CronJob must be looked at again some time.
    mostRecent = now;
  }
  const next = schedule.next(mostRecent);
  return next === undefined ? undefined : next + nextScheduleDelta - now;
}

//#region next-schedule-time
/**
 * The scheduled time the CronJob should start a Job for now, or `undefined`
 * when none has come since the last one (or within `startingDeadlineSeconds`).
 * Records a `TooManyMissedTimes` warning when over 100 times were missed.
 * Go's `nextScheduleTime`.
 *
 * @throws `Error` as {@link mostRecentScheduleTime} does
 *
 * @category Schedules
 */
export function nextScheduleTime(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
  recorder: EventRecorder = noopEventRecorder,
  logger: Logger = noopLogger,
): number | undefined {
  const { mostRecentTime, missedSchedules } = mostRecentScheduleTime(cj, now, schedule, true);
  if (mostRecentTime === undefined || mostRecentTime > now) return undefined;
  if (missedSchedules === 'many') {
    recorder.event(
      cj,
      'Warning',
      'TooManyMissedTimes',
      'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
    );
    logger.info('too many missed times', { cronjob: objectName(cj) });
  }
  return mostRecentTime;
}
//#endregion next-schedule-time

/**
 * The minutes since the epoch of a scheduled time: the suffix of a Job's name,
 * since the controller schedules no finer than by the minute. Go's
 * `getTimeHashInMinutes`.
 */
export function getTimeHashInMinutes(scheduledTime: number): number {
  return Math.trunc(Math.floor(scheduledTime / SECOND) / 60);
}

/**
 * The name of the Job for one scheduled time, `<cronjob>-<minutes since the
 * epoch>`: the same time always gives the same name, so a Job is never
 * created twice for it. Go's `getJobName`.
 */
export function getJobName(cj: CronJob, scheduledTime: number): string {
  return `${cj.metadata?.name ?? ''}-${getTimeHashInMinutes(scheduledTime)}`;
}

//#region get-job-from-template
/**
 * The Job to create for the CronJob's `scheduledTime`: the Job template's
 * labels, annotations and spec, the name `<cronjob>-<minutes since the
 * epoch>` (the same time always gives the same name, so a Job is never
 * created twice for it), a controller reference to the CronJob, and the
 * {@link cronJobScheduledTimestampAnnotation} in the CronJob's time zone.
 * Go's `getJobFromTemplate2`.
 *
 * @example
 * ```ts
 * const job = getJobFromTemplate2(cronJob, Date.parse('2026-01-01T00:00:00Z'));
 * job.metadata.name; // 'hello-29453760'
 * ```
 *
 * @throws `Error` when `spec.timeZone` names no known zone
 *
 * @category CronJob controller
 */
export function getJobFromTemplate2(cj: CronJob, scheduledTime: number): Job {
  const template = cj.spec?.jobTemplate;
  const labels = { ...template?.metadata?.labels };
  const annotations = { ...template?.metadata?.annotations };
  const zone = loadLocation(cj.spec?.timeZone ?? '');
  annotations[cronJobScheduledTimestampAnnotation] = formatRFC3339In(scheduledTime, zone);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      labels,
      annotations,
      name: getJobName(cj, scheduledTime),
      // The API server sets its own; Go sends the scheduled time too.
      creationTimestamp: formatTime(scheduledTime),
      ownerReferences: [newControllerRef(cj, cronJobKind)],
    },
    spec: structuredClone(template?.spec ?? { template: {} }),
  };
}
//#endregion get-job-from-template

/**
 * The schedule as the controller parses it: `TZ=<spec.timeZone> ` put in
 * front when a valid time zone is set. A schedule that names a zone itself
 * (`TZ=` or `CRON_TZ=`, which kube-apiserver no longer accepts) is used as it
 * is, with an `UnsupportedSchedule` warning when `recorder` is given. Go's
 * `formatSchedule`.
 *
 * @category Schedules
 */
export function formatSchedule(cj: CronJob, recorder?: EventRecorder): string {
  const schedule = cj.spec?.schedule ?? '';
  if (schedule.includes('TZ')) {
    recorder?.event(
      cj,
      'Warning',
      'UnsupportedSchedule',
      `CRON_TZ or TZ used in schedule ${goQuote(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
    );
    return schedule;
  }
  const timeZone = cj.spec?.timeZone;
  if (timeZone !== undefined && timeZone !== null) {
    try {
      loadLocation(timeZone);
    } catch {
      return schedule;
    }
    return `TZ=${timeZone} ${schedule}`;
  }
  return schedule;
}

/**
 * Orders Jobs by `status.startTime`, oldest first, Jobs not started last and
 * equal times by name: the order in which history limits delete. Go's
 * `byJobStartTime`.
 */
export function byJobStartTime(a: Job, b: Job): number {
  const sa = a.status?.startTime;
  const sb = b.status?.startTime;
  if (!sa && sb) return 1;
  if (sa && !sb) return -1;
  const ta = sa ? metaTime(sa) : undefined;
  const tb = sb ? metaTime(sb) : undefined;
  if (ta === tb) {
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return ta! < tb! ? -1 : 1;
}

/**
 * The reference `status.active` keeps to a Job: its kind, namespace, name,
 * uid, apiVersion and resourceVersion. Go's `getRef` (the scheme fills in
 * the kind; here it is batch/v1 Job whatever the object carries).
 */
export function getRef(job: Job): ObjectReference {
  return getReference({ ...job, apiVersion: 'batch/v1', kind: 'Job' });
}

/** `namespace/name`, as klog's `KObj` prints an object. */
export function objectName(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

/** A string as Go's `%q` prints it (the same as JSON for what schedules hold). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** An Error's message, or the value as a string: what Go's `%v` prints of an error. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A time as Go's `Format(time.RFC1123Z)` prints it in UTC:
 * `Thu, 19 May 2016 10:00:00 +0000`.
 */
export function formatRFC1123Z(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toUTCString().replace(/GMT$/, '+0000');
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
// `GMT`, `GMT+05:30` or `GMT-04:56:02`, as Intl's longOffset names the offset.
const longOffset = /GMT(?:([+\-\u2212])(\d{1,2}):?(\d{2})?(?::?(\d{2}))?)?$/;

/** Milliseconds east of UTC in `zone` (a name loadLocation accepted) at the instant `ms`. */
function offsetAt(ms: number, zone: string): number {
  if (zone === 'UTC') return 0;
  let format = offsetFormats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    offsetFormats.set(zone, format);
  }
  const m = longOffset.exec(format.format(ms));
  if (m === null || m[1] === undefined) return 0;
  const seconds = Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return (m[1] === '+' ? 1 : -1) * seconds * SECOND;
}

/**
 * A time as Go's `t.In(zone).Format(time.RFC3339)` prints it:
 * `2016-05-19T12:00:00+02:00`, or with `Z` where the offset is zero.
 */
export function formatRFC3339In(ms: number, zone: string): string {
  const whole = Math.floor(ms / SECOND) * SECOND;
  const offset = offsetAt(whole, zone);
  const wall = new Date(whole + offset).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  // Go prints hours and minutes of the offset, dropping any seconds.
  const minutes = Math.trunc(Math.abs(offset) / 60_000);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${wall}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}
